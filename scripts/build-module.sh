#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# build-module.sh [-a ARCH] [-s SUITE] [-k KDIR | -v KVER] [-t] [OUTDIR]
#
# Build uwind.ko with the kernel's external-module interface,
#   make -C KDIR M=OUTDIR modules
# where OUTDIR (default $O/module) is a tree of symbolic links to Kbuild,
# kernel/, lib/, include/ and the one header of scripts/uwind the module
# shares: the source tree gets no objects.  Prints the path of the .ko on
# stdout; the kernel build's output goes to stderr.  Extra make arguments
# may be given in KMAKEFLAGS (e.g. V=1 W=1).
#
# Which kernel (KDIR, the headers' build directory):
#   -k KDIR    that directory (also from the environment: KDIR=)
#   -v KVER    /lib/modules/KVER/build (also KVER=)
#   otherwise  the running kernel's, /lib/modules/$(uname -r)/build, as an
#              out-of-tree module is built; when the running kernel has
#              no headers (a machine that boots a kernel of its own, as
#              these test machines do), the newest installed Debian kernel
#              with headers (scripts/kernel-env.sh), and a note says so
#   -t         the kernel the tests boot (scripts/kernel-env.sh), never
#              the running one
#   -a arm64   cross-build (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-);
#              without -k/-v/-s, against Debian 12's arm64 headers,
#              extracted by scripts/deps-arm64.sh (scripts/kernel-env-arm64.sh)
#   -s SUITE   with the compiler and headers of the Debian SUITE (trixie,
#              forky), in its chroot (scripts/suite-run.sh): that suite's
#              kernel of ARCH (KVER_<arch> of scripts/suite-root.sh), or
#              with -v the chroot's headers of KVER (trixie's rt-amd64),
#              with -k KDIR that build directory (the debug kernel's,
#              mounted there by UWIND_SUITE_MOUNTS)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
arch="" suite="" kdir=${KDIR:-} kver=${KVER:-} kver_opt="" kdir_opt=""
test_kernel=0
usage() { sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2; }
while getopts a:s:k:v:t opt; do
	case $opt in
	a) arch=$OPTARG ;;
	s) suite=$OPTARG ;;
	k) kdir=$OPTARG kdir_opt=$OPTARG ;;
	v) kver=$OPTARG kver_opt=$OPTARG ;;
	t) test_kernel=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
kmake=""
case $arch in
"" | x86_64 | amd64) arch=x86_64 deb=amd64 ;;
arm64 | aarch64)
	arch=arm64 deb=arm64
	kmake="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	;;
*) echo "build-module: unknown architecture $arch" >&2; exit 2 ;;
esac
run=""
if [ -n "$suite" ]; then
	root=$(sh "$top/scripts/suite-root.sh" -q "$suite")
	v=${kver_opt:-$(sed -n "s/^KVER_$deb=//p" "$root/uwind/env")}
	kdir=${kdir_opt:-/usr/src/linux-headers-$v}
	run="sh $top/scripts/suite-run.sh $suite"
elif [ -z "$kdir" ] && [ -n "$kver" ]; then
	kdir=/lib/modules/$kver/build
elif [ -z "$kdir" ] && [ "$arch" = arm64 ]; then
	. "$top/scripts/kernel-env-arm64.sh"
	kdir=$UWIND_KBUILD
elif [ -z "$kdir" ] && [ "$test_kernel" -eq 0 ] &&
    [ -f "/lib/modules/$(uname -r)/build/Makefile" ]; then
	kdir=/lib/modules/$(uname -r)/build
elif [ -z "$kdir" ]; then
	. "$top/scripts/kernel-env.sh"
	kdir=$UWIND_KBUILD
	[ "$test_kernel" -eq 1 ] ||
		echo "build-module: the running kernel $(uname -r) has no headers" \
			"(/lib/modules/$(uname -r)/build): building for $UWIND_KVER" >&2
fi
if [ -z "$suite" ] && [ ! -f "$kdir/Makefile" ]; then
	echo "build-module: $kdir is not a kernel headers build directory" \
		"(install linux-headers-<version>, or give KDIR= or KVER=)" >&2
	exit 1
fi

out=${1:-${O:-build}/module}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Mirror: drop links whose source is gone, link every current source.
find "$out" -type l ! -exec test -e {} \; -delete
src=$top files="Kbuild kernel/*.c kernel/*.h lib/*.c lib/*.h lib/*.mk include/uwind/*.h
	scripts/uwind/uwsf.h"
ko=$out/uwind.ko
for f in $files; do
	for g in "$src"/$f; do
		[ -e "$g" ] || continue
		rel=${g#"$src"/}
		mkdir -p "$out/$(dirname "$rel")"
		ln -sfn "$g" "$out/$rel"
	done
done
# Objects of removed sources would still be linked by a stale .cmd: remove.
for o in "$out"/kernel/*.o "$out"/lib/*.o; do
	[ -e "$o" ] || continue
	[ -e "${o%.o}.c" ] || rm -f "$o"
done

# Called from our Makefile, MAKEFLAGS would hand our command-line variables
# (O=..., CC=..., KDIR=...) to Kbuild, where O= means something else: drop
# them.  ARCH and CROSS_COMPILE come from -a alone ("make module
# ARCH=arm64" exports ARCH to every command).
unset MAKEFLAGS MAKEOVERRIDES MFLAGS MAKELEVEL ARCH CROSS_COMPILE KDIR KVER
# shellcheck disable=SC2086
$run make -C "$kdir" M="$out" $kmake ${KMAKEFLAGS:-} modules >&2
echo "$ko"
