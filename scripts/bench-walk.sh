#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Benchmarks (not tests): a whole 38-frame stack unwound by uwind (with
# its cache warm, and without one) next to nongnu libunwind's
# unw_backtrace(), glibc's backtrace(), libgcc's _Unwind_Backtrace() and a
# frame-pointer walk, all on the same stack of the same run
# (selftests/bench/walk_bench.c).  uwind reads the stack in place
# (UW_WALK_DIRECT_STACK, the thread's stack bounds: what a program
# unwinding itself would use), and again through a memory accessor
# (NAME.accessor).  Prints "BENCH name value unit" lines:
#
#   walk.NAME ns                 per frame, warm (best of 9 passes)
#   walk.cold.NAME ns            per frame, every CPU cache evicted before
#                                each unwind (median of 301); walk.cold.uwind
#                                is uwind with its cache
#   walk.NAME.instr instr        per frame, callgrind: N unwinds minus none
#   walk.nofp.*                  the same stack built without frame
#                                pointers (walk_bench-nofp: SFrame rows
#                                that save the return address alone, as
#                                -O2 code has them), every walker but fp
#   walk.ehabi.* / walk.chrome.* the same stack on 32-bit ARM (Thumb-2)
#                                from EHABI / a Chrome table, instructions
#                                per frame counted under qemu-arm (below)
#   walk.arm.libgcc.instr        libgcc's _Unwind_Backtrace() on that
#                                stack (its EHABI tables), the same way
#
# ARM instructions: valgrind does not run ARM programs on this host, and
# Debian's qemu-user ships no TCG plugins, so the count is qemu's own
# execution trace: with -singlestep every translation block is one guest
# instruction, and -d nochain,exec logs one "Trace" line each time a
# block runs; N unwinds minus none, divided by the frames.
set -eu
O=${O:-build}
B=$O/bench
N=${BENCH_WALK_N:-1000}
NQ=${BENCH_WALK_QEMU_N:-20}
FRAMES=38

make -s --no-print-directory -j2 O="$O" "$B/walk_bench" "$B/walk_bench-nofp"

for prog in walk_bench walk_bench-nofp; do
	"$B/$prog" check >/dev/null || {
		echo "# $prog: the walkers disagree on the stack" >&2
		"$B/$prog" check >&2
		exit 1
	}
done
"$B/walk_bench" time
"$B/walk_bench-nofp" time

collected()
{
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$B/$1" count "$2" "$3" 2>&1 |
		sed -n 's/.*Collected : *//p'
}

# instr PROG PREFIX WALKER...: the instruction lines of PROG's walkers.
instr()
{
	prog=$1
	prefix=$2
	shift 2
	for w in "$@"; do
		base=$(collected "$prog" "$w" 0)
		total=$(collected "$prog" "$w" "$N")
		echo "BENCH $prefix$w.instr $(( (total - base) / N / FRAMES )) instr"
	done
}

if command -v valgrind >/dev/null 2>&1; then
	instr walk_bench walk. cache.uwind nocache.uwind cache.uwind.accessor \
		nocache.uwind.accessor libunwind backtrace libgcc fp
	instr walk_bench-nofp walk.nofp. cache.uwind nocache.uwind \
		cache.uwind.accessor nocache.uwind.accessor libunwind
else
	echo "# valgrind not installed: no instruction counts"
fi

if ! command -v qemu-arm >/dev/null 2>&1 ||
   ! command -v arm-linux-gnueabihf-gcc >/dev/null 2>&1; then
	echo "# qemu-arm or the ARM cross compiler missing: no ARM lines"
	exit 0
fi
make -s --no-print-directory -j2 O="$O" "$B/walk_bench-arm" \
	"$B/walk_bench-arm.chrome"

traced()
{
	# shellcheck disable=SC2086
	qemu-arm -singlestep -d nochain,exec -D /dev/stdout \
		"$B/walk_bench-arm" count "$1" "$2" $3 | grep -c '^Trace'
}

for fmt in ehabi chrome; do
	table=
	[ "$fmt" = chrome ] && table=$B/walk_bench-arm.chrome
	# shellcheck disable=SC2086
	qemu-arm "$B/walk_bench-arm" check $table >/dev/null || {
		echo "# walk_bench-arm ($fmt): cache and no cache disagree" >&2
		exit 1
	}
	for w in cache.uwind nocache.uwind cache.uwind.accessor \
		nocache.uwind.accessor; do
		base=$(traced "$w" 0 "$table")
		total=$(traced "$w" "$NQ" "$table")
		echo "BENCH walk.$fmt.$w.instr $(( (total - base) / NQ / FRAMES )) instr"
	done
done
# libgcc's _Unwind_Backtrace() on the same stack, from the EHABI tables.
base=$(traced libgcc 0 "")
total=$(traced libgcc "$NQ" "")
echo "BENCH walk.arm.libgcc.instr $(( (total - base) / NQ / FRAMES )) instr"
