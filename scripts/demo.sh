#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# make demo: build a program with -fomit-frame-pointer and SFrame tables,
# let it crash, and show the backtrace `uwind stack --core` recovers from
# SFrame next to what a frame-pointer walk gives on the same core.
set -eu
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"
gcc -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -Wa,--gsframe \
	-o "$out/crash" scripts/demo/crash.c
rm -f "$out/crash.core"
# gdb writes the core whatever the system's core_pattern says.
gdb -q -batch -ex run -ex "generate-core-file $out/crash.core" "$out/crash" \
	>"$out/gdb.log" 2>&1 || true
if [ ! -s "$out/crash.core" ]; then
	echo "demo: no core was written; gdb said:" >&2
	cat "$out/gdb.log" >&2
	exit 1
fi

echo "== $out/crash crashed; its core is $out/crash.core"
echo
echo "== uwind stack --core (SFrame, frame pointers as fallback):"
build/uwind stack --core "$out/crash.core" --exe "$out/crash"
echo
echo "== the same core, frame pointers only (what a plain fp unwinder sees):"
build/uwind stack --core "$out/crash.core" --exe "$out/crash" --no-sframe || true
echo
echo "== gdb's bt from DWARF, for reference:"
gdb -q -batch -ex bt "$out/crash" "$out/crash.core" 2>/dev/null | grep '^#' | awk '!seen[$0]++'
