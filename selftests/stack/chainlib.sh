# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced by the tests that unwind the chain program (selftests/stack/
# chain.c): its call chains, the function names of each thread as
# `uwind stack`, eu-stack and gdb print them, and the programs' runs.
# The caller sets BIN (the directory holding chain and chain-a64),
# sources selftests/common/tap.sh and calls tap_scratch (TMP, PIDS)
# first.

MAIN_CHAIN="leaf big_frame with_alloca recurse recurse recurse recurse run main"
WORKER_CHAIN="worker_leaf worker_mid worker"
SIG_CHAIN="leaf handler_mid on_usr1 sig_raise run_sig main"

# Name lists, one line per thread: "LWP name name ...", cut after main or
# worker, sorted by LWP.
cut_chain()
{
	awk '{ l = $1; for (i = 2; i <= NF; i++) { l = l " " $i;
		if ($i == "main" || $i == "worker") break } print l }' | sort -n
}

uw_names()
{
	awk '/^Thread [0-9]+ \(LWP [0-9]+\):$/ {
		if (l != "") print l; l = $4; sub(/\):$/, "", l); next }
	/^#[0-9]/ && !/\[sigframe\]/ && !/\[inline\]$/ {
		f = $3; sub(/\+0x[0-9a-f]+$/, "", f); l = l " " f }
	END { if (l != "") print l }' "$1" | cut_chain
}

eu_names()
{
	awk '/^TID [0-9]+:$/ { if (l != "") print l; l = $2; sub(/:$/, "", l); next }
	/^#[0-9]/ && $3 != "__restore_rt" { l = l " " $3 }
	END { if (l != "") print l }' "$1" | cut_chain
}

gdb_names()
{
	awk '/^Thread [0-9]+ .*LWP [0-9]+/ {
		if (l != "") print l; match($0, /LWP [0-9]+/);
		l = substr($0, RSTART + 4, RLENGTH - 4); next }
	l != "" && /^#[0-9]/ {
		if (match($0, / in [^ ]+ \(/))
			f = substr($0, RSTART + 4, RLENGTH - 6)
		else if ($2 ~ /^</)
			next
		else
			f = $2
		l = l " " f }
	END { if (l != "") print l }' "$1" | cut_chain
}

# gdb_names of GDB's ($1: gdb, gdb-multiarch) `bt` of every thread of
# executable $2's core $3.
gdb_bt_names()
{
	"$1" -nx -batch -ex 'thread apply all bt' "$2" "$3" \
		>"$TMP/gdb.txt" 2>/dev/null
	gdb_names "$TMP/gdb.txt"
}

# ok if GDB ($1) names the same functions in every thread of executable
# $2's core $3 as name list file $4; $5 describes the test; with $6 set,
# the lists hold no LWP (qemu cores).  Skipped without that gdb.
same_as_gdb()
{
	if ! tap_have "$1"; then
		tap_skip "$5" "no $1"
		return
	fi
	if [ -n "${6:-}" ]; then
		gdb_bt_names "$1" "$2" "$3" | cut -d' ' -f2- >"$TMP/gdb.names"
	else
		gdb_bt_names "$1" "$2" "$3" >"$TMP/gdb.names"
	fi
	[ -s "$TMP/gdb.names" ] && cmp -s "$4" "$TMP/gdb.names"
	tap_result $? "$5"
}

# The names of the thread whose LWP is $2 in a name list file $1.
thread_of()
{
	awk -v t="$2" '$1 == t { $1 = ""; sub(/^ /, ""); print }' "$1"
}

# Start the chain program in mode $1 and wait until it is stopped.
start_stopped()
{
	"$BIN/chain" "$1" >"$TMP/pid.$1" &
	PIDS="$PIDS $!"
	pid=$!
	tap_wait_stopped "$pid"
}

# AArch64: the core qemu-aarch64 writes for chain-a64 run in mode $1.
# qemu writes qemu_PROG_DATE_PID.core itself (RLIMIT_CORE permitting),
# then dies of the signal; a directory named "core" keeps the kernel (with
# core_pattern "core") from also dumping qemu itself there.
qemu_core()
{
	mkdir -p "$TMP/q.$1/core"
	(cd "$TMP/q.$1" && ulimit -c unlimited &&
	 qemu-aarch64 "$BIN/chain-a64" "$1" >/dev/null 2>&1; :) 2>/dev/null
	ls "$TMP/q.$1"/qemu_*.core 2>/dev/null | head -n 1
}
