#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The module as DKMS takes it: the version (scripts/pkg/version.sh, from
# git describe, a Debian version); the source tree of
# scripts/pkg/dkms-source.sh and its dkms.conf, read by bash as dkms
# reads it; the module built from a copy of that tree alone, with
# dkms.conf's MAKE line run as dkms runs it (in its build directory,
# "make" made "make -jN KERNELRELEASE=<version>"), for the installed
# Debian kernel and cross-built for arm64; the tree holding exactly the
# files those two builds read (from the compiler's dependency lists),
# and its CLEAN line.  dkms itself runs in the lead's Debian 13 chroot
# test (the packages installed there).
#
# usage: dkms.sh BUILD_DIR
. selftests/pkg/lib.sh
top=$(pwd)
V=$(sh scripts/pkg/version.sh 2>/dev/null)

# dkms_var TREE EXPR: EXPR (e.g. '${MAKE[0]}') after bash sources
# TREE/dkms.conf with dkms's variables set as for a build of kernel K in
# dkms tree /var/lib/dkms with headers /k.
dkms_var()
{
	bash -c 'kernelver=K kernel_source_dir=/k dkms_tree=/var/lib/dkms
		. "$1/dkms.conf"; eval "echo \"$2\""' sh "$1" "$2"
}

# dkms_make TREE KDIR KVER [MAKEARGS]: dkms.conf's MAKE line, run in
# TREE as dkms runs it, TREE standing for its build directory.
dkms_make()
{
	(cd "$1" && bash -c 'kernel_source_dir=$2 dkms_tree=$4
		. ./dkms.conf
		cmd=${MAKE[0]/#make/make -j2 KERNELRELEASE=$3 $5}
		unset MAKEFLAGS MAKELEVEL
		eval "$cmd"' sh "$1" "$2" "$3" "$(dirname "$(dirname "$(dirname "$1")")")" "${4:-}")
}

# read_files TREE: the .c and .h files under TREE the compiler read,
# relative to TREE (Kbuild's .cmd files list each object's source and
# dependencies), but uwind.mod.c, which modpost writes.
read_files()
{
	find "$1" -name '.*.o.cmd' -exec cat {} + |
		tr ' ' '\n' | sed -n "s|^$1/||p" | sed 's/)$//' |
		grep -E '\.(c|h)$' | grep -v '\.mod\.c$' | while read -r f; do
			realpath -m --relative-to="$1" "$1/$f"
		done | sort -u
}

tap_begin 10

printf '%s\n' "$V" | grep -Eq '^[0-9][A-Za-z0-9.+~]*$' &&
	dpkg --compare-versions "$V" gt 0
r1=$?
if d=$(git describe --tags --long --always --match 'v[0-9]*' 2>/dev/null); then
	case $V in
	*"g${d##*-g}"* | *"g$d"* | "${d#v}" | "${d%%-*}") r2=0 ;;
	*) r2=1 ;;
	esac
else
	r2=0
fi
[ $r1 -eq 0 ] && [ $r2 -eq 0 ]
tap_result $? "version $V: a native package's Debian version, from git describe (${d:-no git here})"

v2=$(UWIND_PKG_VERSION=2.0+test sh scripts/pkg/version.sh) &&
	! UWIND_PKG_VERSION=2.0-1 sh scripts/pkg/version.sh >/dev/null 2>&1
[ $? -eq 0 ] && [ "$v2" = 2.0+test ]
tap_result $? "UWIND_PKG_VERSION overrides it; one with a Debian revision (2.0-1) is refused"

S=$TMP/src/uwind-$V
sh scripts/pkg/dkms-source.sh "$S" "$V" > "$TMP/list"
[ "$(dkms_var "$S" '$PACKAGE_NAME $PACKAGE_VERSION ${BUILT_MODULE_NAME[0]} $AUTOINSTALL')" = "uwind $V uwind yes" ] &&
	[ "$(dkms_var "$S" '${MAKE[0]}')" = "make -C /k M=/var/lib/dkms/uwind/$V/build UWIND_MODULE_VERSION=$V modules" ] &&
	[ "$(dkms_var "$S" '$CLEAN')" = "make -C /k M=/var/lib/dkms/uwind/$V/build clean" ]
tap_result $? "dkms.conf: PACKAGE_NAME uwind, PACKAGE_VERSION $V, BUILT_MODULE_NAME uwind, AUTOINSTALL yes, MAKE and CLEAN through the kernel's external-module interface on dkms's build tree"

bash -c '. "$1/dkms.conf"
	[[ x86_64 =~ $BUILD_EXCLUSIVE_ARCH && aarch64 =~ $BUILD_EXCLUSIVE_ARCH &&
	   ! armv7l =~ $BUILD_EXCLUSIVE_ARCH && ! i686 =~ $BUILD_EXCLUSIVE_ARCH &&
	   $BUILD_EXCLUSIVE_CONFIG == "CONFIG_PERF_EVENTS CONFIG_DYNAMIC_FTRACE" ]]' sh "$S"
tap_result $? "BUILD_EXCLUSIVE_ARCH takes x86_64 and aarch64 only, BUILD_EXCLUSIVE_CONFIG what kernel/compat.h requires: dkms skips other kernels"

# x86-64: the installed Debian kernel's headers.
B=$TMP/dkms/uwind/$V/build
kver="" kbuild=""
if . scripts/kernel-env.sh 2>/dev/null; then
	kver=$UWIND_KVER kbuild=$UWIND_KBUILD
fi
if [ -n "$kbuild" ]; then
	mkdir -p "$(dirname "$B")"
	cp -r "$S" "$B"
	dkms_make "$B" "$kbuild" "$kver" > "$TMP/make.log" 2>&1
	rc=$?
	# The version reaches the compiler (MODULE_VERSION, when
	# uwind_main.c uses it, names it).
	[ $rc -eq 0 ] && [ "$(modinfo -F name "$B/uwind.ko")" = uwind ] &&
		modinfo -F vermagic "$B/uwind.ko" | grep -q "^$kver " &&
		grep -qF -- "-DUWIND_MODULE_VERSION='\"$V\"'" "$B/kernel/.uwind_main.o.cmd" &&
		{ ! grep -q 'MODULE_VERSION(UWIND_MODULE_VERSION)' kernel/uwind_main.c ||
			[ "$(modinfo -F version "$B/uwind.ko")" = "$V" ]; }
	tap_result $? "built from the tree alone as dkms does, for $kver: uwind.ko, its vermagic $kver, UWIND_MODULE_VERSION=$V given to the compiler"
	[ $rc -eq 0 ] || tail -n 20 "$TMP/make.log" | sed 's/^/# /'
else
	tap_skip "built as dkms does" "no Debian kernel headers installed (make deps)"
fi

# arm64: Debian 12's arm64 headers, cross-built.
A=$TMP/dkms-arm64/uwind/$V/build
abuild=""
if (. scripts/kernel-env-arm64.sh) >/dev/null 2>&1; then
	abuild=$(. scripts/kernel-env-arm64.sh && echo "$UWIND_KBUILD:$UWIND_KVER")
fi
if [ -n "$abuild" ]; then
	mkdir -p "$(dirname "$A")"
	cp -r "$S" "$A"
	dkms_make "$A" "${abuild%%:*}" "${abuild#*:}" \
		"ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" > "$TMP/make-arm64.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && readelf -h "$A/uwind.ko" | grep -q 'Machine: *AArch64'
	tap_result $? "cross-built from the same tree for arm64 (${abuild#*:}): an AArch64 uwind.ko"
	[ $rc -eq 0 ] || tail -n 20 "$TMP/make-arm64.log" | sed 's/^/# /'
else
	tap_skip "cross-built for arm64" "no arm64 headers (scripts/deps-arm64.sh)"
fi

# Exactly what the compiler reads: the sources and headers shipped
# against those the two builds read.
grep -E '\.(c|h)$' "$TMP/list" > "$TMP/shipped"
{
	[ ! -f "$B/uwind.ko" ] || read_files "$B"
	[ ! -f "$A/uwind.ko" ] || read_files "$A"
} | sort -u > "$TMP/read"
if [ -f "$B/uwind.ko" ] && [ -f "$A/uwind.ko" ]; then
	diff "$TMP/shipped" "$TMP/read" > "$TMP/diff"
	rc=$?
	tap_result $rc "the tree's $(wc -l < "$TMP/shipped") sources and headers are exactly those the x86-64 and arm64 builds read"
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/diff"
else
	tap_skip "the tree holds exactly what the builds read" "a build is missing"
fi
sed -n '/\.[ch]$/!p' "$TMP/list" | tr '\n' ' ' > "$TMP/others"
[ "$(cat "$TMP/others")" = "Kbuild dkms.conf lib/uwind.mk " ]
tap_result $? "besides them: Kbuild, lib/uwind.mk and dkms.conf only ($(cat "$TMP/others"))"

if [ -f "$B/uwind.ko" ]; then
	(cd "$B" && bash -c 'kernel_source_dir=$1 dkms_tree=$2; . ./dkms.conf
		unset MAKEFLAGS MAKELEVEL; eval "$CLEAN"' sh "$kbuild" "$TMP/dkms") \
		>/dev/null 2>&1
	[ ! -e "$B/uwind.ko" ] && [ -z "$(find "$B" -name '*.o')" ]
	tap_result $? "dkms.conf's CLEAN leaves no object"
else
	tap_skip "CLEAN" "no build"
fi

# The install section of kernel/README.md says how DKMS signs for
# Secure Boot.
sed -n '/^## Install/,/^## /p' kernel/README.md > "$TMP/install.md"
grep -q 'mokutil --import /var/lib/dkms/mok.pub' "$TMP/install.md" &&
	grep -q 'uwind-dkms' "$TMP/install.md" && grep -q 'uwind status' "$TMP/install.md"
tap_result $? "kernel/README.md's Install section: the packages, uwind status, and the MOK enrolment (mokutil --import /var/lib/dkms/mok.pub)"

cd "$top" || exit 1
tap_end
