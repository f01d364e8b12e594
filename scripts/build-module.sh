#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# build-module.sh [-a ARCH] [-m MODDIR] [OUTDIR]
#
# Build uwind.ko against the installed Debian kernel's headers
# (scripts/kernel-env.sh), never the running kernel's.  Kbuild of this
# kernel writes objects next to the sources of an external module, so the
# build runs in OUTDIR (default $O/kernel/mod), a tree of symbolic links to
# Kbuild, kernel/, lib/ and include/: the source tree stays clean.
# Prints the path of the .ko on stdout; the kernel build's output goes to
# stderr.  Extra make arguments may be given in KMAKEFLAGS (e.g. V=1 W=1).
#
#   -a arm64   cross-build against Debian's arm64 kernel headers, extracted
#              by scripts/deps-arm64.sh (scripts/kernel-env-arm64.sh)
#   -m MODDIR  build another out-of-tree module instead: the files of MODDIR
#              (its Kbuild and sources), linked into OUTDIR the same way;
#              the .ko printed is OUTDIR/<MODDIR's name>.ko
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
arch="" moddir=""
while getopts a:m: opt; do
	case $opt in
	a) arch=$OPTARG ;;
	m) moddir=$OPTARG ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $arch in
"" | x86_64 | amd64) UWIND_KMAKE="" && . "$top/scripts/kernel-env.sh" ;;
arm64 | aarch64) . "$top/scripts/kernel-env-arm64.sh" ;;
*) echo "build-module: unknown architecture $arch" >&2; exit 2 ;;
esac
out=${1:-${O:-build}/kernel/mod}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Mirror: drop links whose source is gone, link every current source.
find "$out" -type l ! -exec test -e {} \; -delete
src=$top files="Kbuild kernel/*.c kernel/*.h lib/*.c lib/*.h lib/*.mk include/uwind/*.h
	scripts/uwind/uwsf.h"
ko=$out/uwind.ko
if [ -n "$moddir" ]; then
	src=$(cd "$moddir" && pwd) files="Kbuild *.c *.h"
	ko=$out/$(basename "$src").ko
fi
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
# (O=..., CC=...) to Kbuild, where O= means something else: drop them.
# ARCH and CROSS_COMPILE come from -a alone ("make module ARCH=arm64"
# exports ARCH to every command).
unset MAKEFLAGS MAKEOVERRIDES MFLAGS MAKELEVEL ARCH CROSS_COMPILE
# shellcheck disable=SC2086
make -C "$UWIND_KBUILD" M="$out" ${UWIND_KMAKE:-} ${KMAKEFLAGS:-} modules >&2
echo "$ko"
