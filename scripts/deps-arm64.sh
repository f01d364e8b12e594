#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# deps-arm64.sh [-q]
#
# The arm64 guest's Debian packages, downloaded and extracted, never
# installed: Debian 12's arm64 kernel image (/boot only), its headers with
# the *amd64* linux-kbuild of the same version (x86-64 fixdep and modpost,
# so modules cross-build on this host), the arm64 perf with every library
# it may load, and the arm64 busybox-static.  Called by scripts/deps.sh
# (so "make check" fetches it on a fresh machine) and by the arm64 build
# and guest scripts (scripts/kernel-env-arm64.sh).  Prints the sysroot's
# path on stdout.
#
# Why not "dpkg --add-architecture arm64" and apt-get install: the arm64
# headers depend on gcc-12:arm64, which is not Multi-Arch, and apt would
# remove the host's compilers to install it.  So apt-get runs on a private
# state (its own lists, cache and an empty dpkg status, sources naming the
# Debian archive only) and dpkg-deb extracts the .debs into a sysroot.
#
# Cached: $UWIND_CACHE/arm64 (default ${XDG_CACHE_HOME:-$HOME/.cache}/uwind,
# shared by every checkout on the machine, locked while it is written).
# Once the sysroot is complete, a run costs one file comparison and uses no
# network; the package lists and .debs are deleted after extraction.
# UWIND_REFRESH=1 fetches again (a newer kernel ABI, say).
# The archive is the one the host's apt sources name for its release
# (scripts/debian-mirror.sh), else deb.debian.org; UWIND_DEBIAN_MIRROR and
# UWIND_DEBIAN_SECURITY override it.
#
# armhf programs need nothing from here: the guest gets their loader and
# libraries from the host's cross packages (libc6-armhf-cross), which are
# Debian's armhf libc6 relocated.
set -eu

quiet=0
[ "${1:-}" = -q ] && quiet=1
say() { [ "$quiet" -eq 1 ] || echo "deps-arm64: [$(($(date +%s) - t0)) s] $*" >&2; }
t0=$(date +%s)
die() { echo "deps-arm64: $*" >&2; exit 1; }

cache=${UWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uwind}/arm64
root=$cache/root
# What is asked for; a change here (or in this file's package choice)
# makes the next run fetch again.
want="v1 linux-image-arm64 linux-headers linux-kbuild:amd64 linux-perf+libs busybox-static"

current()
{
	[ -f "$root/.uwind-complete" ] && [ "${UWIND_REFRESH:-0}" != 1 ] &&
		[ "$(cat "$root/.uwind-complete")" = "$want" ]
}

if current; then
	echo "$root"
	exit 0
fi

for t in apt-get apt-cache dpkg-deb flock tar; do
	command -v "$t" >/dev/null 2>&1 || die "$t is missing"
done
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
# Another run may have finished while this one waited.
if current; then
	echo "$root"
	exit 0
fi

st=$cache/apt
rm -rf "$st" "$root.new"
mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$st/sources.d" \
	"$st/prefs.d" "$st/conf.d" "$st/debs" "$root.new"
: > "$st/status"

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ "$codename" = bookworm ] ||
	say "host is '$codename', not bookworm: fetching bookworm's kernel anyway"
codename=bookworm
. "$(dirname "$0")/debian-mirror.sh"
mirror=${UWIND_DEBIAN_MIRROR:-$(debian_mirror main)}
security=${UWIND_DEBIAN_SECURITY:-$(debian_mirror security)}
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
[ -n "$security" ] || security=http://deb.debian.org/debian-security
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring is missing (debian-archive-keyring)"
cat > "$st/sources.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $codename $codename-updates
Components: main
Signed-By: $keyring

Types: deb
URIs: $security
Suites: $codename-security
Components: main
Signed-By: $keyring
EOF
# The host's apt.conf.d is still read (its proxy settings apply); its
# sources and pins are not.  The binary caches are kept (Debian's docker
# images turn them off), or every apt-cache call rebuilds them.
cat > "$st/apt.conf" <<EOF
Dir::State "$st";
Dir::State::lists "$st/lists";
Dir::State::status "$st/status";
Dir::Cache "$st/cache";
Dir::Cache::pkgcache "pkgcache.bin";
Dir::Cache::srcpkgcache "srcpkgcache.bin";
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$st/sources.d";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$st/prefs.d";
APT::Architecture "amd64";
APT::Architectures { "amd64"; "arm64"; };
Acquire::Languages "none";
EOF
# As root, apt drops to the _apt user to download, which cannot write here.
[ "$(id -u)" -ne 0 ] || echo 'APT::Sandbox::User "root";' >> "$st/apt.conf"
APT_CONFIG=$st/apt.conf
export APT_CONFIG

say "updating a private apt state in $st"
apt-get update -qq >&2 || apt-get update -qq >&2 ||
	die "apt-get update failed"

# field PKG FIELD: one field of the candidate version.
field()
{
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		awk -v f="$2:" '$1 == f { print $2; exit }'
}
# deps PKG REGEX: its direct Depends matching REGEX, without ":arch".
deps()
{
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: <\{0,1\}\([^ <>]*\)>\{0,1\}$/\1/p' |
		sed 's/:.*//' |
		grep -E "$2" || :
}

image=$(deps linux-image-arm64:arm64 '^linux-image-.*-arm64$' | head -n 1)
[ -n "$image" ] || die "no linux-image-arm64 dependency found"
kver=${image#linux-image-}
ver=$(field "$image:arm64" Version)
headers=linux-headers-$kver
[ "$(field "$headers:arm64" Version)" = "$ver" ] ||
	die "$headers is not at the image's version $ver"
common=$(deps "$headers:arm64" '^linux-headers-.*-common$' | head -n 1)
kbuild=$(deps "$headers:arm64" '^linux-kbuild-' | head -n 1)
[ -n "$common" ] && [ -n "$kbuild" ] || die "$headers: no -common or kbuild"
[ "$(field "$kbuild:amd64" Version)" = "$ver" ] ||
	die "$kbuild:amd64 is not at version $ver"

# perf and the libraries it can load: its Depends, recursively, keeping
# the library packages (perl and python themselves are not needed, their
# lib* packages are).  More than perf's ELF needs; the initramfs builder
# takes only what the dynamic linker will load.
libs=$(apt-cache depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances linux-perf:arm64 |
	grep -E '^(lib|zlib)[^ <>]*:arm64$' | sort -u)
[ -n "$libs" ] || die "no libraries found for linux-perf:arm64"

say "downloading $image $ver, $headers, $common, $kbuild:amd64," \
	"linux-perf, busybox-static and $(echo "$libs" | wc -l) libraries"
# shellcheck disable=SC2086
(cd "$st/debs" && apt-get download -q=2 "$image:arm64=$ver" \
	"$headers:arm64=$ver" "$common=$ver" "$kbuild:amd64=$ver" \
	linux-perf:arm64 busybox-static:arm64 $libs >&2) ||
	die "apt-get download failed"

say "extracting into $root"
for d in "$st"/debs/*.deb; do
	case ${d##*/} in
	linux-image-*)
		# /boot only: lib/modules (about 300 MB) is not needed.
		dpkg-deb --fsys-tarfile "$d" | tar -x -C "$root.new" ./boot
		;;
	*)
		dpkg-deb -x "$d" "$root.new"
		;;
	esac
done
h=$root.new/usr/src/$headers
# The headers' Makefile includes the -common tree by absolute path, which
# would silently be the host's (when it has the same ABI's) or nothing:
# point it at the extracted one.
sed -i "s|^include /usr/src/$common/|include ../$common/|" "$h/Makefile"
grep -q "^include \.\./$common/Makefile" "$h/Makefile" ||
	die "$h/Makefile: unexpected contents"
for f in "$root.new/boot/vmlinuz-$kver" "$h/scripts/basic/fixdep" \
    "$h/scripts/mod/modpost" "$root.new/usr/bin/perf" "$root.new/bin/busybox"; do
	[ -e "$f" ] || die "$f is missing after extraction"
done
"$h/scripts/basic/fixdep" 2>&1 | grep -q -i usage ||
	die "$h/scripts/basic/fixdep does not run on this host"

echo "$want" > "$root.new/.uwind-complete"
echo "$kver $ver" > "$root.new/.uwind-version"
rm -rf "$root.old"
[ ! -d "$root" ] || mv "$root" "$root.old"
mv "$root.new" "$root"
rm -rf "$root.old" "$st"
say "$kver ($ver) ready," \
	"$(du -sm "$root" | cut -f1) MB in $root"
echo "$root"
