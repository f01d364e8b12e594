#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Benchmarks (not tests): SFrame lookup speed, uwind against the system
# libsframe (binutils 2.40), on the .sframe of a generated program with
# ~12,000 functions built with gcc -O2 -fomit-frame-pointer -Wa,--gsframe.
# Prints "BENCH name value unit" lines.
set -eu
O=${O:-build}
B=$O/bench
N=${BENCH_CALLGRIND_N:-100000}

make -s --no-print-directory -j2 O="$O" "$B/sframe_bench" "$B/gen.sframe"

vaddr=$(readelf -SW "$B/gen" | awk '$2 == ".sframe" { print "0x" $4 }')
text=$(readelf -SW "$B/gen" | awk '$2 == ".text" { print $4, $6 }')
set -- $text
lo=0x$1
hi=$(printf '0x%x' $((0x$1 + 0x$2)))
args="$B/gen.sframe $vaddr $lo $hi"

# shellcheck disable=SC2086
"$B/sframe_bench" $args

# Instructions per lookup: callgrind totals for N lookups minus the same
# run with 0 lookups (setup, pc generation, libsframe's decode).
if ! command -v valgrind >/dev/null 2>&1; then
	echo "# valgrind not installed: no instruction counts"
	exit 0
fi
collected()
{
	# shellcheck disable=SC2086
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$B/sframe_bench" $args "$1" "$2" 2>&1 |
		sed -n 's/.*Collected : *//p'
}
for kind in random hot; do
	for impl in uwind libsframe; do
		base=$(collected "$kind-$impl" 0)
		total=$(collected "$kind-$impl" "$N")
		echo "BENCH sframe.lookup.$kind.$impl.instr $(( (total - base) / N )) instr"
	done
done
