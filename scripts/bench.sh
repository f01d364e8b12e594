#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Benchmarks (not tests): SFrame lookup speed, uwind against the system
# libsframe (binutils 2.40), on the .sframe of two generated programs of
# 12,000 functions each, built with gcc -O2 -fomit-frame-pointer
# -Wa,--gsframe (selftests/bench/gen.sh):
#   small  ~3.4 FREs a function, ~350 KB: the shape of the table the
#          issue's libsframe figures come from; names sframe.lookup.*
#   mixed  ~8.4 FREs a function, ~580 KB; names sframe.mixed.lookup.*
# Prints "BENCH name value unit" lines: times (best of 9 interleaved
# passes of 2^20 lookups) and instructions per lookup (callgrind); for
# the small table re-encoded as V3, uwind's instructions alone.
set -eu
O=${O:-build}
B=$O/bench
N=${BENCH_CALLGRIND_N:-100000}

make -s --no-print-directory -j2 O="$O" "$B/sframe_bench" bench-table \
	"$O/selftests/sframe/sframe_reencode"

# Instructions per lookup: callgrind totals for N lookups minus the same
# run with 0 lookups (setup, pc generation, libsframe's decode).
collected()
{
	# shellcheck disable=SC2086
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$B/sframe_bench" $args "$1" "$2" 2>&1 |
		sed -n 's/.*Collected : *//p'
}

for mix in small mixed; do
	prefix=sframe
	[ "$mix" = small ] || prefix=sframe.$mix
	exe=$B/$mix/gen
	vaddr=$(readelf -SW "$exe" | awk '$2 == ".sframe" { print "0x" $4 }')
	# shellcheck disable=SC2046
	set -- $(readelf -SW "$exe" | awk '$2 == ".text" { print $4, $6 }')
	lo=0x$1
	hi=$(printf '0x%x' $((0x$1 + 0x$2)))
	args="$B/$mix.sframe $vaddr $lo $hi"

	# shellcheck disable=SC2086
	"$B/sframe_bench" $args | sed "s/^BENCH sframe\./BENCH $prefix./"

	if ! command -v valgrind >/dev/null 2>&1; then
		echo "# valgrind not installed: no instruction counts"
		continue
	fi
	for kind in random hot; do
		for impl in uwind libsframe; do
			base=$(collected "$kind-$impl" 0)
			total=$(collected "$kind-$impl" "$N")
			echo "BENCH $prefix.lookup.$kind.$impl.instr $(( (total - base) / N )) instr"
		done
	done

	# The same table as SFrame V3 (8-byte FDE keys, PCREL, the format
	# newer binutils emit), uwind alone: libsframe 2.40 reads V1 only.
	if [ "$mix" = small ]; then
		"$O/selftests/sframe/sframe_reencode" --vaddr "$vaddr" \
			--to v3 "$B/$mix.sframe" "$B/$mix-v3.sframe"
		args="$B/$mix-v3.sframe $vaddr $lo $hi"
		for kind in random hot; do
			base=$(collected "$kind-uwind" 0)
			total=$(collected "$kind-uwind" "$N")
			echo "BENCH $prefix.v3.lookup.$kind.uwind.instr $(( (total - base) / N )) instr"
		done
	fi
done
