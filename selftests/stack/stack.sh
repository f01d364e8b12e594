#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack` on cores and live processes of the chain program
# (selftests/stack/chain.c), compared with independent unwinders:
# eu-stack (elfutils, DWARF CFI from .eh_frame) and gdb's `bt`, and with
# the call chain the program's source fixes.  Function names are compared
# up to and including main (worker for the second thread); sigreturn
# trampoline frames are left out of the name lists (gdb prints no name for
# them) and checked on their own.
#
# x86-64 cores come from gcore on a process stopped (SIGSTOP) in its leaf;
# AArch64 cores are what qemu-aarch64 writes itself when the static program
# crashes (no NT_FILE note: --exe places the executable).
#
# eu-stack is not used on qemu cores: without NT_FILE it does not find the
# executable's module even with -e and prints wrong frames.  gdb-multiarch
# 13 loops forever unwinding through qemu's AArch64 sigreturn trampoline,
# so the AArch64 signal-frame core is checked against the source's chain
# only.
#
# usage: stack.sh UWIND BUILD_DIR   (BUILD_DIR holds chain and chain-a64)
set -u

UWIND=$1
BIN=$(cd "$2" && pwd)
. "$(dirname "$0")/../common/tap.sh"
tap_scratch
# The chains and name lists, start_stopped, qemu_core, same_as_gdb.
. "$(dirname "$0")/chainlib.sh"

tap_begin 27

# ---- x86-64: gcore of a stopped two-thread process, and the live process.
if tap_have gcore && start_stopped stop; then
	gcore -o "$TMP/core" "$pid" >/dev/null 2>&1
	CORE=$TMP/core.$pid
	[ -s "$CORE" ]
	tap_result $? "x86-64: gcore wrote a core"
	"$UWIND" stack --core "$CORE" >"$TMP/uw.txt" 2>"$TMP/uw.err"
	rc=$?
	[ $rc -eq 0 ] && [ "$(grep -c '^Thread ' "$TMP/uw.txt")" -eq 2 ]
	tap_result $? "x86-64 core: uwind stack --core exits 0 with 2 threads"
	uw_names "$TMP/uw.txt" >"$TMP/uw.names"
	[ "$(thread_of "$TMP/uw.names" "$pid")" = "$MAIN_CHAIN" ]
	tap_result $? "x86-64 core: main thread is the source's chain"
	[ "$(awk -v p="$pid" '$1 != p' "$TMP/uw.names" | cut -d' ' -f2-)" = \
	  "$WORKER_CHAIN" ]
	tap_result $? "x86-64 core: second thread is the worker chain"
	# Every frame up to main was unwound with SFrame.
	out=$(awk '/^Thread 1 /, /^# stopped/' "$TMP/uw.txt" |
	      awk '/^#[0-9]/ { print $NF; if ($3 ~ /^main\+/) exit }' | sort -u)
	[ "$out" = "[sframe]" ]
	tap_result $? "x86-64 core: frames up to main unwound by [sframe]"
	if tap_have eu-stack; then
		eu-stack --core "$CORE" -e "$BIN/chain" >"$TMP/eu.txt" 2>/dev/null
		eu_names "$TMP/eu.txt" >"$TMP/eu.names"
		[ -s "$TMP/eu.names" ] && cmp -s "$TMP/uw.names" "$TMP/eu.names"
		tap_result $? "x86-64 core: same functions as eu-stack"
	else
		tap_skip "x86-64 core: same functions as eu-stack" "no eu-stack"
	fi
	same_as_gdb gdb "$BIN/chain" "$CORE" "$TMP/uw.names" \
		"x86-64 core: same functions as gdb bt"

	# The live process, still stopped in its leaf.
	ntask=$(ls "/proc/$pid/task" | wc -l)
	"$UWIND" stack -p "$pid" >"$TMP/live.txt" 2>"$TMP/live.err"
	rc=$?
	[ $rc -eq 0 ] && [ "$ntask" -ge 2 ] &&
		[ "$(grep -c '^Thread ' "$TMP/live.txt")" -eq "$ntask" ]
	tap_result $? "live: uwind stack -p exits 0 and prints all $ntask threads"
	uw_names "$TMP/live.txt" >"$TMP/live.names"
	[ "$(thread_of "$TMP/live.names" "$pid")" = "$MAIN_CHAIN" ] &&
	[ "$(awk -v p="$pid" '$1 != p' "$TMP/live.names" | cut -d' ' -f2-)" = \
	  "$WORKER_CHAIN" ]
	tap_result $? "live: both threads give the source's chains"
	cmp -s "$TMP/live.names" "$TMP/uw.names"
	tap_result $? "live: same functions as the gcore core"
	[ "$(awk '{ print $3 }' "/proc/$pid/stat")" = T ]
	tap_result $? "live: the process is still stopped after uwind detached"
	kill -9 "$pid"
else
	for d in "x86-64: gcore wrote a core" "x86-64 core: uwind exits 0" \
		 "x86-64 core: main chain" "x86-64 core: worker chain" \
		 "x86-64 core: sframe frames" "x86-64 core: eu-stack" \
		 "x86-64 core: gdb" "live: exit" "live: chains" "live: core" \
		 "live: still stopped"; do
		tap_skip "$d" "gcore missing or the program did not stop"
	done
fi

# ---- x86-64: a signal handler frame in the chain.
if tap_have gcore && start_stopped sigstop; then
	gcore -o "$TMP/sig" "$pid" >/dev/null 2>&1
	CORE=$TMP/sig.$pid
	kill -9 "$pid"
	"$UWIND" stack --core "$CORE" >"$TMP/sig.txt" 2>/dev/null
	uw_names "$TMP/sig.txt" >"$TMP/sig.names"
	[ "$(thread_of "$TMP/sig.names" "$pid")" = "$SIG_CHAIN" ]
	tap_result $? "x86-64 signal core: the source's chain"
	# on_usr1 returns into the trampoline, unwound as a signal frame, and
	# the interrupted frame after it has an exact pc.
	out=$(awk '/^#[0-9]/ { print $3, $NF }' "$TMP/sig.txt" |
	      sed -n '/^on_usr1/,/^sig_raise/p' | sed 's/+0x[0-9a-f]* / /')
	[ "$out" = "on_usr1 [sframe]
?? [sigframe]
sig_raise signal" ] || [ "$out" = "on_usr1 [sframe]
__restore_rt [sigframe]
sig_raise signal" ]
	tap_result $? "x86-64 signal core: trampoline frame [sigframe], then an exact-pc frame"
	if tap_have eu-stack; then
		eu-stack --core "$CORE" -e "$BIN/chain" >"$TMP/eu.txt" 2>/dev/null
		eu_names "$TMP/eu.txt" >"$TMP/eu.names"
		[ -s "$TMP/eu.names" ] && cmp -s "$TMP/sig.names" "$TMP/eu.names"
		tap_result $? "x86-64 signal core: same functions as eu-stack"
	else
		tap_skip "x86-64 signal core: same functions as eu-stack" "no eu-stack"
	fi
	same_as_gdb gdb "$BIN/chain" "$CORE" "$TMP/sig.names" \
		"x86-64 signal core: same functions as gdb bt"
else
	for d in chain trampoline eu-stack gdb; do
		tap_skip "x86-64 signal core: $d" "gcore missing or no stop"
	done
fi

# ---- AArch64: cores qemu-aarch64 writes for a crashing static program.
if tap_have qemu-aarch64 && [ -x "$BIN/chain-a64" ]; then
	CORE=$(qemu_core crash)
	[ -n "$CORE" ]
	tap_result $? "aarch64: qemu-aarch64 wrote a core for the crash"
	"$UWIND" stack --core "$CORE" --exe "$BIN/chain-a64" \
		>"$TMP/a64.txt" 2>/dev/null
	rc=$?
	uw_names "$TMP/a64.txt" | cut -d' ' -f2- >"$TMP/a64.names"
	[ $rc -eq 0 ] && [ "$(cat "$TMP/a64.names")" = "$MAIN_CHAIN" ]
	tap_result $? "aarch64 core: uwind stack --core --exe gives the source's chain"
	out=$(awk '/^#[0-9]/ { print $NF; if ($3 ~ /^main\+/) exit }' \
	      "$TMP/a64.txt" | sort -u)
	[ "$out" = "[sframe]" ]
	tap_result $? "aarch64 core: frames up to main unwound by [sframe]"
	same_as_gdb gdb-multiarch "$BIN/chain-a64" "$CORE" "$TMP/a64.names" \
		"aarch64 core: same functions as gdb-multiarch bt" lwp-less
	"$UWIND" stack --core "$CORE" >/dev/null 2>"$TMP/a64.err"
	[ $? -eq 0 ] && grep -q -- '--exe' "$TMP/a64.err"
	tap_result $? "aarch64 core without --exe: still walks, says to use --exe"

	CORE=$(qemu_core sigcrash)
	"$UWIND" stack --core "$CORE" --exe "$BIN/chain-a64" \
		>"$TMP/a64s.txt" 2>/dev/null
	uw_names "$TMP/a64s.txt" | cut -d' ' -f2- >"$TMP/a64s.names"
	out=$(awk '/^#[0-9]/ { print $NF }' "$TMP/a64s.txt" | sed -n 4,5p |
	      tr '\n' ' ')
	[ -n "$CORE" ] && [ "$(cat "$TMP/a64s.names")" = "$SIG_CHAIN" ] &&
		[ "$out" = "[sigframe] signal " ]
	tap_result $? "aarch64 signal core: the source's chain through qemu's trampoline"
else
	for d in core chain sframe gdb no-exe signal; do
		tap_skip "aarch64: $d" "no qemu-aarch64 or no chain-a64"
	done
fi

# ---- Bad input: a message and a non-zero exit, never a crash.
crashed()
{
	[ "$1" -ge 128 ] || grep -q -e Sanitizer -e 'runtime error' "$2"
}

head -c 65536 /dev/urandom >"$TMP/garbage"
"$UWIND" stack --core "$TMP/garbage" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q '^uwind: ' "$TMP/err"
tap_result $? "garbage core: error message and exit 1"

: >"$TMP/empty"
"$UWIND" stack --core "$TMP/empty" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q '^uwind: ' "$TMP/err"
tap_result $? "empty core: error message and exit 1"

"$UWIND" stack --core "$BIN/chain" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'not an ELF core' "$TMP/err"
tap_result $? "an executable is not a core: error message and exit 1"

# Truncated copies of a real core: the headers alone, part of the
# segments, all but the end.  Cut before the notes, no thread is left.
SRC=$(ls "$TMP"/core.* 2>/dev/null | head -n 1)
if [ -n "$SRC" ]; then
	size=$(wc -c <"$SRC")
	bad=0
	for cut in 63 64 500 1200 $((size / 3)) $((size / 2)) $((size - 4096)) \
		   $((size - 100)) $((size - 1)); do
		head -c "$cut" "$SRC" >"$TMP/trunc"
		"$UWIND" stack --core "$TMP/trunc" >/dev/null 2>"$TMP/err"
		rc=$?
		if crashed $rc "$TMP/err" ||
		   { [ $rc -ne 0 ] && ! grep -q '^uwind: ' "$TMP/err"; }; then
			echo "# truncated at $cut: rc $rc"
			bad=1
		fi
		if [ "$cut" -le 1200 ] && [ $rc -eq 0 ]; then
			echo "# truncated at $cut: accepted"
			bad=1
		fi
	done
	tap_result $bad "truncated cores: error messages, no crash"

	# Corrupt the program headers and the notes a few bytes at a time.
	cp "$SRC" "$TMP/corrupt"
	noff=$(readelf -lW "$SRC" 2>/dev/null | awk '$1 == "NOTE" { print $2; exit }')
	noff=$((noff))
	bad=0
	for off in 56 72 80 96 $((64 + 56 + 8)) $((64 + 56 + 32)) \
		   $((noff + 4)) $((noff + 20)) $((noff + 200)) $((noff + 700)) \
		   $((noff + 1500)) $((noff + 3000)) $((noff + 6000)) 0; do
		printf '\377\377\377\177' |
			dd of="$TMP/corrupt" bs=1 seek="$off" conv=notrunc \
			   2>/dev/null
		"$UWIND" stack --core "$TMP/corrupt" >/dev/null 2>"$TMP/err"
		rc=$?
		if crashed $rc "$TMP/err" || [ $rc -gt 1 ]; then
			echo "# corrupted at $off: rc $rc"
			bad=1
		fi
	done
	tap_result $bad "corrupted cores: no crash"
else
	tap_skip "truncated cores" "no x86-64 core"
	tap_skip "corrupted cores" "no x86-64 core"
fi

"$UWIND" stack -p 2147483647 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q '^uwind: ' "$TMP/err"
tap_result $? "-p of a missing process: error message and exit 1"
tap_end
