#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack` on programs built as distributions build them (plain -O2:
# no frame pointers, no SFrame), which die or stop inside libc: every
# mapped file's DWARF CFI is converted to SFrame in memory, and the walk
# must give gdb's frames (same pcs, frame by frame, down to main), then
# go on through libc to _start, where the CFI marks the outermost frame.
# With --no-convert the same walk must go wrong (Debian's libc has neither
# SFrame nor frame pointers; the frame-pointer fallback may still skip
# to main through a function that keeps one): the conversion is what
# makes it right.
#
# x86-64: cores are written by gdb (gcore at the fault; gdb's own
# backtrace of the same stop is the oracle); the live case stops itself
# with SIGSTOP inside qsort's comparator.  AArch64: a static program (its
# libc code comes from libc.a, with CFI) crashing under qemu-aarch64,
# against gdb-multiarch on the core qemu writes.  gdb is kept from
# libc's separate debug info, so that it too unwinds from .eh_frame.
#
# usage: stock.sh BUILD_DIR
set -u
O=${1:-build}
UWIND=$(cd "$O" && pwd)/uwind
BIN=$(cd "$O/selftests/sfconv" && pwd)
. selftests/common/tap.sh
tap_scratch
mkdir -p "$TMP/nodebug"

# -iex: before gdb reads any file (-p attaches before -ex commands run).
GDBOPTS="-nx -batch -iex 'set debug-file-directory $TMP/nodebug'
	-iex 'set debuginfod enabled off' -iex 'set pagination off'"

# gdb's frame pcs, up to and including main's frame, from its last
# backtrace (loading a core prints frame #0 once before).
gdb_pcs()
{
	awk '/^#0 / { k = 0; done = 0 }
	/^#[0-9]+ +0x[0-9a-f]+ in / && !done {
		pc = $2; sub(/^0x0*/, "", pc); l[k++] = pc
		if ($4 == "main") done = 1 }
	END { for (i = 0; i < k; i++) print l[i] }' "$1"
}

# uwind's frame pcs, up to and including main's frame; inline frames
# (from libc's debug info when it is installed) are not frames to gdb
# without it.
uw_pcs()
{
	awk '/^#[0-9]/ && !/\[inline\]$/ { pc = $2; sub(/^0x0*/, "", pc); print pc
		if ($3 ~ /^main\+/) exit }' "$1"
}

# The walk goes past main to _start and ends there as the CFI says, and
# every frame but the last was unwound by a table.
check_tail()
{
	awk '/^#[0-9]/ && !/\[inline\]$/ { n++; last = $3; src[n] = $NF }
	/^# stopped:/ { stop = $0 }
	END {
		if (last !~ /^_start\+/ || stop !~ /outermost/) exit 1
		for (i = 1; i < n; i++) if (src[i] != "[sframe]") exit 1
	}' "$1"
}

# uwind's frames ($1) = gdb's ($2) down to main; $3: uwind's exit status.
same_frames()
{
	gdb_pcs "$2" >"$2.pcs"
	uw_pcs "$1" >"$1.pcs"
	[ "$3" -eq 0 ] && grep -q ' in main ()' "$2" && cmp -s "$2.pcs" "$1.pcs"
	rc=$?
	if [ $rc -ne 0 ]; then
		sed 's/^/# uwind: /' "$1"
		grep '^#' "$2" | sed 's/^/# gdb: /'
	fi
	nf=$(wc -l <"$2.pcs")
	return $rc
}

# One x86-64 crash: mode $1.
crash_x86()
{
	m=$1
	eval gdb $GDBOPTS -ex run -ex "'gcore $TMP/core.$m'" -ex bt \
		--args "$BIN/crash" "$m" >"$TMP/gdb.$m" 2>&1
	[ -s "$TMP/core.$m" ] && grep -q ' in main ()' "$TMP/gdb.$m"
	tap_result $? "x86-64 $m: gdb wrote a core and its backtrace reaches main"
	"$UWIND" stack --core "$TMP/core.$m" >"$TMP/uw.$m" 2>&1
	same_frames "$TMP/uw.$m" "$TMP/gdb.$m" $?
	tap_result $? "x86-64 $m: uwind stack --core = gdb's frames down to main ($nf frames)"
	check_tail "$TMP/uw.$m"
	tap_result $? "x86-64 $m: on through libc to _start, the outermost frame, all from tables"
	"$UWIND" stack --no-convert --core "$TMP/core.$m" >"$TMP/nc.$m" 2>&1
	uw_pcs "$TMP/nc.$m" >"$TMP/nc.$m.pcs"
	! cmp -s "$TMP/gdb.$m.pcs" "$TMP/nc.$m.pcs"
	tap_result $? "x86-64 $m: with --no-convert the frames are not gdb's"
}

tap_begin 18

if tap_have gdb; then
	for m in qsort memcpy drap; do
		crash_x86 "$m"
	done
	# drap: the realigning frame is unwound by a FLEX rule, CFA = *(rbp-8).
	grep -q ' realigned+0x[0-9a-f]* .*\[sframe\]' "$TMP/uw.drap"
	tap_result $? "x86-64 drap: the stack-realigning (DRAP) frame is in the walk"

	tap_start_stopped "$BIN/crash" stop
	"$UWIND" stack -p "$pid" >"$TMP/live" 2>&1
	rc=$?
	eval gdb $GDBOPTS -p "$pid" -ex bt >"$TMP/gdb.live" 2>&1
	same_frames "$TMP/live" "$TMP/gdb.live" $rc
	tap_result $? "x86-64 live (stopped in raise inside qsort's comparator): uwind stack -p = gdb -p's frames ($nf)"
	check_tail "$TMP/live"
	tap_result $? "x86-64 live: on to _start, the outermost frame, all from tables"
	kill -9 "$pid" 2>/dev/null
else
	i=0
	while [ $i -lt 15 ]; do
		i=$((i + 1))
		tap_result 1 "x86-64 stock-program test $i: gdb is not installed"
	done
fi

# ---- AArch64: static stock program under qemu-aarch64.
if tap_have qemu-aarch64 && tap_have gdb-multiarch && [ -x "$BIN/crash-a64" ]; then
	mkdir -p "$TMP/q/core"
	(cd "$TMP/q" && ulimit -c unlimited &&
	 qemu-aarch64 "$BIN/crash-a64" qsort >/dev/null 2>&1; :) 2>/dev/null
	CORE=$(ls "$TMP/q"/qemu_*.core 2>/dev/null | head -n 1)
	[ -n "$CORE" ]
	tap_result $? "aarch64 qsort: qemu-aarch64 wrote a core"
	"$UWIND" stack --core "$CORE" --exe "$BIN/crash-a64" >"$TMP/a64" 2>&1
	rc=$?
	eval gdb-multiarch $GDBOPTS -ex bt "$BIN/crash-a64" "$CORE" \
		>"$TMP/gdb.a64" 2>&1
	same_frames "$TMP/a64" "$TMP/gdb.a64" $rc
	tap_result $? "aarch64 qsort: uwind stack --core = gdb-multiarch's frames ($nf)"
	check_tail "$TMP/a64"
	tap_result $? "aarch64 qsort: on to _start, the outermost frame, all from tables"
else
	for d in core frames tail; do
		tap_result 1 "aarch64 qsort: $d: qemu-aarch64, gdb-multiarch or the program missing"
	done
fi
tap_end
