#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# suite-root.sh [-q] SUITE
#
# A Debian SUITE (trixie, forky; bullseye, whose kernels are only built
# for) as the kernel tests need it, made once and cached: an amd64
# chroot (debootstrap, minbase) with that suite's compilers (gcc and
# g++; the aarch64 and armhf cross compilers; libelf and libdw's headers
# and dkms, for the packages' test),
# kernel headers (the amd64 flavour installed, the arm64 flavour's
# package unpacked beside it: the same -common tree and kbuild), perf,
# busybox-static and the libraries the guests run; then, next to it, what
# a guest boots and runs that a chroot cannot install:
#
#   ROOT/uwind/amd64/vmlinuz    the suite's x86-64 kernel image
#   ROOT/uwind/amd64/modules/   its KVM modules (the guest-in-guest test)
#   ROOT/uwind/arm64/vmlinuz    the suite's arm64 kernel image
#   ROOT/uwind/arm64/sysroot/   the arm64 guest's userland: perf and every
#                               library it loads, busybox, libc, libstdc++
#                               (unpacked .debs, never installed)
#   ROOT/uwind/rt-amd64/vmlinuz trixie only: its PREEMPT_RT x86-64 kernel
#                               (the rt-amd64 flavour, headers installed)
#   ROOT/usr/src/linux-source-6.12.tar.xz  trixie only: its kernel source
#                               (and bc, bison, flex, libssl-dev, openssl to
#                               build it)
#   ROOT/uwind/env              KVER_amd64=, KVER_arm64= (the versions),
#                               KVER_rt_amd64= (trixie)
#
# Prints ROOT.  Nothing is installed on the host, and the host's apt
# sources are only read: the mirror is the one they name for the host's
# release (scripts/debian-mirror.sh), or UWIND_DEBIAN_MIRROR.  Needs root (debootstrap,
# chroot) and debootstrap.
#
# Cached in $UWIND_CACHE/suites/SUITE (default ${XDG_CACHE_HOME:-$HOME/.cache}/uwind),
# shared by every checkout on the machine, locked while it is made.  Once
# complete, a run costs one file comparison and no network.
# UWIND_REFRESH=1 makes it again (a newer kernel in the suite, say).
#
# Why a chroot: 6.12's headers want gcc-14 and 7.2's gcc-16, each
# suite's kbuild programs link against that suite's libc, and the guest
# tests run the suite's perf, libc and libstdc++, as a user of that
# Debian release has them.
set -eu

quiet=0
[ "${1:-}" = -q ] && { quiet=1; shift; }
suite=${1:-}
t0=$(date +%s)
say() { [ "$quiet" -eq 1 ] || echo "suite-root: $suite: [$(($(date +%s) - t0)) s] $*" >&2; }
die() { echo "suite-root: ${suite:-?}: $*" >&2; exit 1; }

case $suite in
# Debian 11: its security suite (LTS) has its arm64 packages listed but
# not on these machines' mirror: the point release's kernel and packages.
bullseye) script=bullseye updates="bullseye-updates" security="" ;;
trixie) script=trixie updates="trixie-updates" security="trixie-security" ;;
# Testing: debootstrap of Debian 12 has no forky script; sid's fits.
forky) script=sid updates="" security="" ;;
*) die "unknown suite '$suite' (bullseye, trixie or forky)" ;;
esac

cache=${UWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uwind}/suites
root=$cache/$suite
# What is asked for; a change here makes the next run make it again.
want="v3 $suite gcc g++ cross-aarch64 cross-aarch64-g++ cross-armhf libelf-dev libdw-dev dkms headers-amd64+arm64 perf busybox libdw images-amd64+arm64 kvm arm64-sysroot"
# Debian 13's PREEMPT_RT flavour too (rt-amd64: its headers and image),
# and its kernel source with what building it takes (the debug kernel:
# scripts/debug-kernel.sh).
rt=0 kbuild=""
[ "$suite" = trixie ] && rt=1 want="$want rt-amd64 linux-source+openssl" &&
	kbuild="linux-source-6.12 bc bison flex libssl-dev openssl"

current()
{
	[ -f "$root/uwind/complete" ] && [ "${UWIND_REFRESH:-0}" != 1 ] &&
		[ "$(cat "$root/uwind/complete")" = "$want" ]
}

if current; then
	echo "$root"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "making the chroot needs root (debootstrap, chroot)"
for t in debootstrap chroot unshare flock dpkg-deb; do
	command -v "$t" >/dev/null 2>&1 || die "$t is missing (make deps)"
done

# The mirror the host's apt sources name for the host's release (the
# main archive, and the security one beside it): scripts/debian-mirror.sh.
. "$(dirname "$0")/debian-mirror.sh"
mirror=${UWIND_DEBIAN_MIRROR:-$(debian_mirror main)}
secmirror=${UWIND_DEBIAN_SECURITY:-$(debian_mirror security)}
[ -n "$mirror" ] || die "no Debian mirror in the host's apt sources (set UWIND_DEBIAN_MIRROR)"
[ -n "$secmirror" ] || secmirror=$mirror-security

mkdir -p "$cache"
exec 9>"$cache/$suite.lock"
flock 9
if current; then
	echo "$root"
	exit 0
fi

new=$root.new
# A half-made root from an interrupted run: start over.
rm -rf "$new"
mkdir -p "$new"

say "debootstrap $suite from $mirror"
debootstrap --variant=minbase --arch=amd64 "$suite" "$new" "$mirror" \
	"/usr/share/debootstrap/scripts/$script" > "$cache/$suite.debootstrap.log" 2>&1 ||
	{ tail -n 20 "$cache/$suite.debootstrap.log" >&2; die "debootstrap failed"; }

# in_new CMD...: run CMD in the new root, /proc mounted (objtool and
# some maintainer scripts read it), in a mount namespace of its own so
# that nothing stays mounted.
in_new()
{
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && exec chroot "$r" "$@"' \
		sh "$new" "$@"
}

{
	echo "deb $mirror $suite main"
	[ -z "$updates" ] || echo "deb $mirror $updates main"
	[ -z "$security" ] || echo "deb $secmirror $security main"
} > "$new/etc/apt/sources.list"
# A mirror that serves a snapshot of the archive (as these machines' does)
# has Release files past their Valid-Until date: accept them.
echo 'Acquire::Check-Valid-Until "false";' > "$new/etc/apt/apt.conf.d/99uwind"
# Nothing starts services in a chroot; no documentation either.
printf '#!/bin/sh\nexit 101\n' > "$new/usr/sbin/policy-rc.d"
chmod 755 "$new/usr/sbin/policy-rc.d"
printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
	> "$new/etc/dpkg/dpkg.cfg.d/uwind-nodoc"
# 6.12's headers depend on its image, whose postinst would make an
# initramfs nothing here boots (half a minute, twice).
in_new dpkg-divert --local --rename --add /usr/sbin/update-initramfs >/dev/null
ln -s /bin/true "$new/usr/sbin/update-initramfs"
in_new dpkg --add-architecture arm64

log=$cache/$suite.apt.log
: > "$log"
apt_in()
{
	in_new env DEBIAN_FRONTEND=noninteractive apt-get -q=2 \
		-o APT::Sandbox::User=root "$@" >> "$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; return 1; }
}
say "apt-get update"
apt_in update || apt_in update || die "apt-get update failed"

# The kernel's flavours, from the meta packages' dependencies.
dep_of()
{
	in_new apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: <\{0,1\}\([^ <>]*\)>\{0,1\}$/\1/p' |
		sed 's/:.*//' | grep -E "$2" | head -n 1
}
hdr64=$(dep_of linux-headers-amd64 '^linux-headers-.*-amd64$')
hdra=$(dep_of linux-headers-arm64:arm64 '^linux-headers-.*-arm64$')
[ -n "$hdr64" ] && [ -n "$hdra" ] || die "no linux-headers-*-amd64/-arm64 found"
kver64=${hdr64#linux-headers-}
kvera=${hdra#linux-headers-}
hdrrt="" kverrt=""
if [ "$rt" -eq 1 ]; then
	hdrrt=$(dep_of linux-headers-rt-amd64 '^linux-headers-.*-rt-amd64$')
	[ -n "$hdrrt" ] || die "no linux-headers-*-rt-amd64 found"
	kverrt=${hdrrt#linux-headers-}
fi

# Debian 13 renamed libdw1 for the 64-bit time_t transition.
libdw=libdw1t64
in_new apt-cache show libdw1t64 >/dev/null 2>&1 || libdw=libdw1
# Debian 11's linux-perf is a meta package: perf_5.10 is in
# linux-perf-5.10, and /usr/bin/perf (linux-base's wrapper) is made below.
perfver=$(dep_of linux-perf '^linux-perf-[0-9]')

say "installing the compilers, $hdr64, perf and busybox"
apt_in install -y --no-install-recommends \
	make gcc g++ libc6-dev binutils file kmod xz-utils zstd mawk \
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross \
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross libstdc++6-armhf-cross \
	"$hdr64" $hdrrt linux-perf $perfver busybox-static "$libdw" libelf-dev libdw-dev dkms \
	$kbuild ||
	die "apt-get install failed"

# The rest is downloaded in the chroot and unpacked, never installed.
dl=$new/uwind/debs
mkdir -p "$dl"
dl_in()
{
	in_new sh -c 'cd /uwind/debs &&
		apt-get -q=2 -o APT::Sandbox::User=root download "$@"' sh "$@" \
		>> "$log" 2>&1 || { tail -n 20 "$log" >&2; return 1; }
}

# The amd64 image: Debian 13 ships it in linux-image-<ver>-unsigned,
# forky in linux-binary-<ver> (/usr/lib/modules/<ver>/vmlinuz), with the
# modules in linux-modules-<ver> there.
img_pkgs()
{
	# img_pkgs VER ARCH: the packages holding VER's image and modules.
	for p in "linux-binary-$1" "linux-image-$1-unsigned" "linux-image-$1"; do
		if in_new apt-cache show "$p:$2" >/dev/null 2>&1; then
			echo "$p:$2"
			[ "$p" = "linux-binary-$1" ] && echo "linux-modules-$1:$2"
			return 0
		fi
	done
	return 1
}
imgs64=$(img_pkgs "$kver64" amd64) || die "no image package for $kver64"
imgsa=$(img_pkgs "$kvera" arm64) || die "no image package for $kvera"
imgsrt=""
if [ "$rt" -eq 1 ]; then
	imgsrt=$(img_pkgs "$kverrt" amd64) || die "no image package for $kverrt"
fi

# The arm64 guest's userland: perf with every library package it may
# load (its Depends, recursively), busybox, libc and libstdc++.
libs=$(in_new apt-cache depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances linux-perf:arm64 |
	grep -E '^(lib|zlib)[^ <>]*:arm64$' | sort -u)
[ -n "$libs" ] || die "no libraries found for linux-perf:arm64"

say "downloading $hdra, the images, arm64 perf and $(echo "$libs" | wc -l) libraries"
# shellcheck disable=SC2086
dl_in "$hdra:arm64" $imgs64 $imgsa $imgsrt linux-perf:arm64 ${perfver:+$perfver:arm64} busybox-static:arm64 \
	libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64 $libs ||
	die "apt-get download failed"

say "unpacking"
u=$new/uwind
mkdir -p "$u/amd64/modules" "$u/arm64/sysroot" "$u/tmp"
for d in "$dl"/*.deb; do
	case ${d##*/} in
	# The RT flavour's image: the kernel alone (no KVM test there).
	linux-image-*-rt-amd64*_amd64.deb)
		rm -rf "$u/tmp" && mkdir -p "$u/tmp" "$u/rt-amd64"
		dpkg-deb -x "$d" "$u/tmp"
		find "$u/tmp" -name 'vmlinuz*' -type f -exec cp {} "$u/rt-amd64/vmlinuz" \;
		;;
	# Debian 11's files under /lib: into the merged /usr, not over
	# the /lib link.
	linux-headers-*)
		dpkg-deb --fsys-tarfile "$d" |
			tar -x -C "$new" --keep-directory-symlink ;;
	linux-image-*_amd64.deb | linux-binary-*_amd64.deb)
		rm -rf "$u/tmp" && mkdir -p "$u/tmp"
		dpkg-deb -x "$d" "$u/tmp"
		find "$u/tmp" -name 'vmlinuz*' -type f -exec cp {} "$u/amd64/vmlinuz" \;
		# Debian 13's image package has the modules too.
		find "$u/tmp" -path '*/kernel/arch/x86/kvm/*' -name 'kvm*.ko*' \
			-exec cp {} "$u/amd64/modules/" \;
		find "$u/tmp" \( -name 'irqbypass.ko*' -o -name 'ccp.ko*' \) \
			-exec cp {} "$u/amd64/modules/" \;
		;;
	linux-modules-*_amd64.deb)
		rm -rf "$u/tmp" && mkdir -p "$u/tmp"
		dpkg-deb -x "$d" "$u/tmp"
		find "$u/tmp" \( -path '*/kernel/arch/x86/kvm/kvm*.ko*' \
			-o -name 'irqbypass.ko*' -o -name 'ccp.ko*' \) \
			-exec cp {} "$u/amd64/modules/" \;
		;;
	linux-image-*_arm64.deb | linux-binary-*_arm64.deb)
		rm -rf "$u/tmp" && mkdir -p "$u/tmp"
		dpkg-deb --fsys-tarfile "$d" |
			tar -x -C "$u/tmp" --wildcards '*vmlinuz*'
		find "$u/tmp" -name 'vmlinuz*' -type f -exec cp {} "$u/arm64/vmlinuz" \;
		;;
	*_arm64.deb)
		dpkg-deb -x "$d" "$u/arm64/sysroot" ;;
	esac
done
rm -rf "$u/tmp" "$dl"
# Merged /usr, as base-files makes it on an installed system: the
# loader's path (/lib/ld-linux-aarch64.so.1) must resolve.
# A release before the merge (Debian 11) has its packages put files in
# /lib and /bin: moved under /usr, as the merge does.
for d in lib bin sbin; do
	sr=$u/arm64/sysroot
	if [ -d "$sr/$d" ] && [ ! -L "$sr/$d" ]; then
		mkdir -p "$sr/usr/$d"
		cp -a "$sr/$d/." "$sr/usr/$d/"
		rm -rf "${sr:?}/$d"
	fi
	[ -e "$sr/$d" ] || ln -s "usr/$d" "$sr/$d"
done
# perf by its plain name, where the package has it by its version only.
for d in "$new" "$u/arm64/sysroot"; do
	[ -e "$d/usr/bin/perf" ] || [ -z "$perfver" ] ||
		ln -s "perf_${perfver#linux-perf-}" "$d/usr/bin/perf"
done
# The modules as busybox's insmod takes them: uncompressed.
for m in "$u"/amd64/modules/*.ko.xz; do
	[ -e "$m" ] && xz -d "$m"
done
for m in "$u"/amd64/modules/*.ko.zst; do
	[ -e "$m" ] && zstd -q -d --rm "$m"
done
for f in "$u/amd64/vmlinuz" "$u/arm64/vmlinuz" "$u/arm64/sysroot/usr/bin/perf" \
    "$u/arm64/sysroot/usr/bin/busybox" "$new/usr/src/$hdr64/Makefile" \
    "$new/usr/src/$hdra/Makefile" "$new/usr/bin/perf" "$new/usr/bin/busybox"; do
	[ -e "$f" ] || die "$f is missing"
done
if [ "$rt" -eq 1 ]; then
	for f in "$u/rt-amd64/vmlinuz" "$new/usr/src/$hdrrt/Makefile"; do
		[ -e "$f" ] || die "$f is missing"
	done
fi
printf 'KVER_amd64=%s\nKVER_arm64=%s\n' "$kver64" "$kvera" > "$u/env"
[ "$rt" -eq 0 ] || printf 'KVER_rt_amd64=%s\n' "$kverrt" >> "$u/env"
in_new apt-get clean
echo "$want" > "$u/complete"

rm -rf "$root.old"
[ ! -d "$root" ] || mv "$root" "$root.old"
mv "$new" "$root"
rm -rf "$root.old"
say "ready: $kver64, $kvera; $(du -sm "$root" | cut -f1) MB in $root"
echo "$root"
