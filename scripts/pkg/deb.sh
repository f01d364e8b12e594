#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# deb.sh OUT: the Debian packages, built with dpkg-deb into OUT (`make
# deb`: $(O)/deb), their paths printed on stdout:
#
#   uwind-dkms_VERSION_all.deb   the module's source for DKMS
#                                (/usr/src/uwind-VERSION: dkms-source.sh);
#                                its postinst builds and installs it for
#                                every kernel with headers, its prerm
#                                takes it out of DKMS
#   uwind_VERSION_ARCH.deb       the tool (built here, for this machine's
#                                architecture, with the distribution's
#                                hardening flags), its man page,
#                                uwind.service (the module and the
#                                agent), uwind-tables.service,
#                                /etc/uwind.conf, and the dpkg trigger
#                                that keeps tables fresh
#
# VERSION is version.sh's (UWIND_PKG_VERSION overrides it).  The tool's
# Depends come from dpkg-shlibdeps (dpkg-dev), or without it from the
# packages holding the libraries it links (dpkg -S), at least at their
# installed versions.  Maintainer: UWIND_PKG_MAINTAINER, or a fixed one.
# Nothing here depends on the machine but the compiler, the libraries
# and the architecture: it runs the same in a Debian chroot.  The files'
# times are the last commit's (SOURCE_DATE_EPOCH), so two builds of one
# commit give the same packages.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
pkg=$top/scripts/pkg
[ $# -eq 1 ] || { echo "usage: deb.sh OUT" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
for t in dpkg-deb dpkg gzip make; do
	command -v "$t" >/dev/null 2>&1 ||
		{ echo "deb.sh: $t is missing" >&2; exit 1; }
done

umask 022
version=$(sh "$pkg/version.sh")
arch=$(dpkg --print-architecture)
maint=${UWIND_PKG_MAINTAINER:-uwind maintainers <uwind-maintainers@users.noreply.github.com>}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null) ||
		SOURCE_DATE_EPOCH=$(stat -c %Y "$top/Makefile")
fi
export SOURCE_DATE_EPOCH
date=$(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" -R)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null) || commit=""
# The copyright's years: the first commit's to this build's.
last=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
first=$(git -C "$top" log --reverse --format=%cd --date=format:%Y 2>/dev/null |
	head -n 1) || first=""
years=${first:-$last}
[ "$years" = "$last" ] || years=$years-$last

# ---- the tool, with the distribution's flags ----

if command -v dpkg-buildflags >/dev/null 2>&1; then
	cflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CFLAGS)"
	ldflags=$(dpkg-buildflags --get LDFLAGS)
else
	# What dpkg-buildflags gives on Debian 12 and 13 (hardening=+all
	# but pie, which gcc already does).
	cflags="-D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection -Wformat -Werror=format-security"
	ldflags="-Wl,-z,relro -Wl,-z,now"
fi
obj=$out/obj
# main.o holds the version, which make does not see change.
rm -f "$obj/tool/main.o"
(
	# Called from our Makefile: its command-line variables (O=...) are
	# not for this build.
	unset MAKEFLAGS MAKEOVERRIDES MFLAGS MAKELEVEL
	make --no-print-directory -C "$top" O="$obj" UWIND_VERSION="$version" \
		TOOL_CFLAGS="$cflags" TOOL_LDFLAGS="$ldflags" "$obj/uwind"
) >&2

# ---- staging helpers ----

# doc ROOT PACKAGE: its copyright, and a changelog of this build.
doc()
{
	d=$1/usr/share/doc/$2
	mkdir -p "$d"
	sed "s/@YEARS@/$years/" "$pkg/copyright" > "$d/copyright"
	chmod 644 "$d/copyright"
	{
		echo "$2 ($version) unstable; urgency=medium"
		echo
		echo "  * Built from uwind's tree${commit:+ at commit $commit}."
		echo
		echo " -- $maint  $date"
	} | gzip -9n > "$d/changelog.gz"
	chmod 644 "$d/changelog.gz"
}

# script ROOT NAME FILE: a maintainer script, with the version filled in.
script()
{
	sed "s/@VERSION@/$version/g" "$3" > "$1/DEBIAN/$2"
	chmod 755 "$1/DEBIAN/$2"
}

# finish ROOT: md5sums, the times, and the package built; prints its path.
finish()
{
	r=$1
	(cd "$r" && find . -type f ! -path './DEBIAN/*' | sed 's|^\./||' |
		LC_ALL=C sort | xargs md5sum) > "$r/DEBIAN/md5sums"
	chmod 644 "$r/DEBIAN/md5sums"
	find "$r" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	p=$(sed -n 's/^Package: //p' "$r/DEBIAN/control")
	a=$(sed -n 's/^Architecture: //p' "$r/DEBIAN/control")
	deb=$out/${p}_${version}_$a.deb
	dpkg-deb --root-owner-group -Zxz --build "$r" "$deb" >&2
	echo "$deb"
}

size_of() { du -sk --exclude=DEBIAN "$1" | cut -f1; }

# ---- uwind-dkms ----

r=$out/root/uwind-dkms
rm -rf "$r"
mkdir -p "$r/DEBIAN" "$r/usr/src"
sh "$pkg/dkms-source.sh" "$r/usr/src/uwind-$version" "$version" >/dev/null
doc "$r" uwind-dkms
script "$r" postinst "$pkg/uwind-dkms.postinst"
script "$r" prerm "$pkg/uwind-dkms.prerm"
cat > "$r/DEBIAN/control" <<EOF
Package: uwind-dkms
Version: $version
Architecture: all
Maintainer: $maint
Installed-Size: $(size_of "$r")
Depends: dkms (>= 2.1.0.0)
Recommends: linux-headers-amd64 | linux-headers-arm64 | linux-headers-generic, openssl
Suggests: uwind
Section: kernel
Priority: optional
Description: whole user callchains for perf and BPF (kernel module, DKMS)
 The uwind kernel module gives perf (record -g, top -g, trace
 --call-graph) and BPF's bpf_get_stack() whole user-space call chains of
 programs built without frame pointers: from their SFrame tables, and
 from the tables the uwind tool makes from the DWARF CFI of stock
 distribution binaries.  x86-64 and arm64, Linux 6.1 and later.
 .
 This package holds the module's source; DKMS builds and installs it
 for every kernel that has headers installed, and again on each kernel
 upgrade.  On a machine with Secure Boot, DKMS signs it with its MOK key
 (made with openssl), which the administrator enrolls once with mokutil.
EOF
finish "$r"

# ---- uwind ----

r=$out/root/uwind
rm -rf "$r"
mkdir -p "$r/DEBIAN" "$r/usr/bin" "$r/usr/share/man/man1" \
	"$r/usr/lib/systemd/system" "$r/etc"
install -m 755 "$obj/uwind" "$r/usr/bin/uwind"
strip --remove-section=.comment --remove-section=.note "$r/usr/bin/uwind"
# The man page names the packaged release.
sed "1,/^\.TH /s/^\(\.TH UWIND 1 \"[^\"]*\" \)\"uwind [^\"]*\"/\1\"uwind $version\"/" \
	"$top/scripts/uwind/uwind.1" | gzip -9n > "$r/usr/share/man/man1/uwind.1.gz"
for u in uwind.service uwind-tables.service; do
	install -m 644 "$pkg/$u" "$r/usr/lib/systemd/system/$u"
done
install -m 644 "$pkg/uwind.conf" "$r/etc/uwind.conf"
doc "$r" uwind
script "$r" postinst "$pkg/uwind.postinst"
script "$r" prerm "$pkg/uwind.prerm"
script "$r" postrm "$pkg/uwind.postrm"
install -m 644 "$pkg/uwind.triggers" "$r/DEBIAN/triggers"
echo /etc/uwind.conf > "$r/DEBIAN/conffiles"
chmod 644 "$r/DEBIAN/conffiles"

# The libraries' packages: dpkg-shlibdeps wants a debian/control.
depends=""
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
	w=$out/shlibdeps
	rm -rf "$w"
	mkdir -p "$w/debian"
	printf 'Source: uwind\n\nPackage: uwind\nArchitecture: any\n' \
		> "$w/debian/control"
	depends=$(cd "$w" && dpkg-shlibdeps -O "$r/usr/bin/uwind" 2>/dev/null |
		sed -n 's/^shlibs:Depends=//p') || depends=""
	rm -rf "$w"
fi
if [ -z "$depends" ]; then
	# Each library it names (DT_NEEDED), where the loader finds it.
	ldd "$r/usr/bin/uwind" > "$out/ldd"
	for so in $(readelf -dW "$r/usr/bin/uwind" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		lib=$(awk -v so="$so" '$1 == so { print $3 }' "$out/ldd")
		real=$(readlink -f "$lib")
		p=""
		for f in "$lib" "$real" "/usr$lib" "/usr$real" "${lib#/usr}" "${real#/usr}"; do
			p=$(dpkg -S "$f" 2>/dev/null | sed -n '1s/: .*//p') && [ -n "$p" ] && break
		done
		[ -n "$p" ] || { echo "deb.sh: no package holds $lib" >&2; exit 1; }
		v=$(dpkg-query -W -f '${Version}' "$p")
		p=${p%:*}
		case ", $depends, " in
		*", $p "*) ;;
		*) depends="${depends:+$depends, }$p (>= $v)" ;;
		esac
	done
	rm -f "$out/ldd"
fi

cat > "$r/DEBIAN/control" <<EOF
Package: uwind
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $(size_of "$r")
Depends: $depends
Suggests: uwind-dkms, perf
Section: devel
Priority: optional
Description: stack unwinder: backtraces, and unwind tables for perf
 uwind reads the tables that say how to unwind a stack (SFrame, ARM
 EHABI, Chrome's ARM tables, Apple compact unwind, Breakpad files) with
 the freestanding core the uwind kernel module runs.  It prints
 backtraces of core files and live processes (uwind stack), makes SFrame
 tables from the DWARF CFI of stock binaries and installs them for the
 kernel module (uwind sframe --install), says where each process's
 frames come from (uwind status), and dumps, looks up, converts and
 checks tables.
 .
 With uwind-dkms, uwind.service loads the module with the parameters of
 /etc/uwind.conf and runs uwind agent, which makes the table of each
 program or library the module meets without one (any process, containers
 included) when it is first sampled; tables made ahead of time for the
 whole system are an option of /etc/uwind.conf, and a dpkg trigger
 removes those no file has any more after each package installation.
EOF
finish "$r"
