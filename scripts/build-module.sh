#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# build-module.sh [OUTDIR]
#
# Build uwind.ko against the installed Debian kernel's headers
# (scripts/kernel-env.sh), never the running kernel's.  Kbuild of this
# kernel writes objects next to the sources of an external module, so the
# build runs in OUTDIR (default $O/kernel/mod), a tree of symbolic links to
# Kbuild, kernel/, lib/ and include/: the source tree stays clean.
# Prints the path of the .ko on stdout; the kernel build's output goes to
# stderr.  Extra make arguments may be given in KMAKEFLAGS (e.g. V=1 W=1).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/kernel-env.sh"
out=${1:-${O:-build}/kernel/mod}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Mirror: drop links whose source is gone, link every current source.
find "$out" -type l ! -exec test -e {} \; -delete
for f in Kbuild kernel/*.c kernel/*.h lib/*.c lib/*.h include/uwind/*.h; do
	for g in "$top"/$f; do
		[ -e "$g" ] || continue
		rel=${g#"$top"/}
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
unset MAKEFLAGS MAKEOVERRIDES MFLAGS MAKELEVEL
# shellcheck disable=SC2086
make -C "$UWIND_KBUILD" M="$out" ${KMAKEFLAGS:-} modules >&2
echo "$out/uwind.ko"
