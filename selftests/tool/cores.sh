#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack --core` on what can go wrong around a core: --exe naming
# another program than the one that dumped it (refused: its build-id
# note is not the core's, or, in a qemu-user core that holds no text,
# its entry and program headers are not where the core's auxiliary
# vector has them), a program rebuilt since at the core's path (left
# out, with a hint), and a walk that ends cleanly on a return address no
# mapping holds (not "success").  What a core says of its process: the
# signal, its code and fault address or sender (as gdb's $_siginfo has
# them), the command line; -t picks threads, -n cuts frames; a program
# that cannot be read gets a hint to name it with --exe.  --check-walk
# (each thread walked again with a cache and with the fast loops off)
# agrees on a three-thread x86-64 core and an AArch64 one.  Cores of
# target come from gdb (gcore at the signal), AArch64 ones from
# qemu-aarch64.
#
# usage: cores.sh BUILD_DIR
. selftests/tool/lib.sh
A64=$(cd "$O/selftests" && pwd)

# core NAME MODE [ARG...]: run target (a copy at $TMP/NAME) in MODE under
# gdb, which writes $TMP/NAME.core at the signal; its bt in $TMP/NAME.gdb.
core()
{
	n=$1
	shift
	cp "$P" "$TMP/$n"
	gdb -nx -batch -iex 'set debuginfod enabled off' -ex run \
		-ex "gcore $TMP/$n.core" -ex bt --args "$TMP/$n" "$@" \
		>"$TMP/$n.gdb" 2>&1
	[ -s "$TMP/$n.core" ]
}

tap_begin 18

if tap_have gdb && core segv segv 10; then
	"$UWIND" stack --core "$TMP/segv.core" --exe "$BIN/target-other" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] &&
		grep -q "^uwind: $BIN/target-other: not the program .*build-id" "$TMP/err"
	tap_result $? "--exe another program (a gdb core): refused on its build-id, exit 1"
	sed 's/^/# /' "$TMP/err"
	"$UWIND" stack --core "$TMP/segv.core" --exe "$P" >"$TMP/out" 2>"$TMP/err"
	[ $? -eq 0 ] && grep -q ' poke+0x' "$TMP/out" && ! grep -q 'not the' "$TMP/err"
	tap_result $? "--exe the program itself (another path): accepted, its frames named"

	# The program at the core's path rebuilt since: left out, said so.
	cp "$BIN/target-other" "$TMP/segv"
	"$UWIND" stack --core "$TMP/segv.core" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^uwind: $TMP/segv: not the program .*--exe" "$TMP/err" &&
		! grep -q ' poke+0x' "$TMP/out"
	tap_result $? "the program at the core's path is another build: left out, --exe suggested"
	"$UWIND" stack --core "$TMP/segv.core" --exe "$P" >"$TMP/out" 2>&1
	grep -q ' poke+0x' "$TMP/out"
	tap_result $? "... and --exe with the right one names its frames again"
else
	for d in refused accepted rebuilt again; do
		tap_skip "gdb core: --exe $d" "no gdb, or it wrote no core"
	done
fi

# The signal, against gdb's reading of the same core.
# gdb_siginfo CORE: "SIGNO CODE ADDR" as gdb reads $_siginfo in it.
gdb_siginfo()
{
	gdb -nx -batch -ex 'p $_siginfo.si_signo' -ex 'p $_siginfo.si_code' \
		-ex 'p $_siginfo._sifields._sigfault.si_addr' \
		-ex 'p $_siginfo._sifields._kill.si_pid' "$P" "$1" 2>/dev/null |
		awk '/^\$[0-9]+ = / { printf "%s ", $NF }'
}
if tap_have gdb && [ -s "$TMP/segv.core" ]; then
	"$UWIND" stack --core "$TMP/segv.core" --exe "$P" >"$TMP/out" 2>&1
	set -- $(gdb_siginfo "$TMP/segv.core")
	sig=$(grep '^Signal ' "$TMP/out")
	echo "# $sig; gdb: $*"
	[ "$1" = 11 ] && [ "$2" = 1 ] && [ "$3" = 0x10 ] &&
		echo "$sig" | grep -q "^Signal 11 (SIGSEGV, Segmentation fault) in LWP [0-9]*: SEGV_MAPERR, fault address 0x10$"
	tap_result $? "segv core: signal 11, SEGV_MAPERR, fault address 0x10, as gdb reads \$_siginfo"
	grep -q "^Process [0-9]*: $TMP/segv segv 10\$" "$TMP/out"
	tap_result $? "segv core: the process's pid and command line"
else
	tap_skip "segv core: signal" "no gdb core"
	tap_skip "segv core: command line" "no gdb core"
fi
if tap_have gdb && core abort abort; then
	"$UWIND" stack --core "$TMP/abort.core" >"$TMP/out" 2>&1
	set -- $(gdb_siginfo "$TMP/abort.core")
	sig=$(grep '^Signal ' "$TMP/out")
	echo "# $sig; gdb: $*"
	[ "$1" = 6 ] && echo "$sig" | grep -q "^Signal 6 (SIGABRT, Aborted) in LWP [0-9]*: SI_TKILL, from pid $4 uid 0$"
	tap_result $? "abort core: signal 6, SI_TKILL from the process itself (pid $4), as gdb reads \$_siginfo"
else
	tap_skip "abort core: signal" "no gdb core"
fi

# Threads and frames: target stop has three threads.
if tap_have gdb && tap_start_stopped "$P" stop; then
	gcore -o "$TMP/stop" "$pid" >/dev/null 2>&1
	kill -9 "$pid"
	C=$TMP/stop.$pid
	"$UWIND" stack --core "$C" >"$TMP/all" 2>&1
	tids=$(awk '/^Thread / { t = $4; sub(/\):$/, "", t); print t }' "$TMP/all")
	t2=$(echo "$tids" | sed -n 2p)
	t3=$(echo "$tids" | sed -n 3p)
	"$UWIND" stack --core "$C" -t "$t3" >"$TMP/one" 2>&1
	"$UWIND" stack --core "$C" -t "$t3,$t2" >"$TMP/two" 2>&1
	[ "$(grep '^Thread ' "$TMP/one")" = "Thread 1 (LWP $t3):" ] &&
		[ "$(grep -c '^Thread ' "$TMP/two")" -eq 2 ] &&
		[ "$(awk '/^Thread /, 0' "$TMP/one" | grep '^#')" = \
		  "$(awk -v t="$t3" '$0 ~ "LWP " t "\\):", /^# stopped/' "$TMP/all" | grep '^#')" ]
	tap_result $? "-t $t3: that thread alone, its frames as in the whole walk; -t $t3,$t2: two"
	"$UWIND" stack --core "$C" -t 999999 >"$TMP/out" 2>"$TMP/err"
	[ $? -eq 1 ] && grep -q "^uwind: $C: no thread 999999; its threads: $(echo $tids)\$" "$TMP/err"
	tap_result $? "-t of a thread the core has not: exit 1, its threads listed"
	"$UWIND" stack --core "$C" -n 2 >"$TMP/n2" 2>&1
	ok=$(awk '/^Thread / { n = 0 } /^#[0-9]/ { n++ } /^# stopped: frame limit \(-n 2\)$/ { if (n == 2) ok++ } END { print ok + 0 }' "$TMP/n2")
	# (the last frame was not unwound: its source may differ)
	[ "$ok" -eq 3 ] && [ "$(awk '/^#[0-9]/ { print $1, $2, $3 }' "$TMP/n2")" = \
		"$(awk '/^Thread / { n = 0 } /^#[0-9]/ && n++ < 2 { print $1, $2, $3 }' "$TMP/all")" ]
	tap_result $? "-n 2: the first two frames of each of the 3 threads, then 'frame limit (-n 2)'"
	# (the output as without it, but for the last line)
	"$UWIND" stack --core "$C" --check-walk >"$TMP/cw" 2>&1
	[ $? -eq 0 ] &&
		[ "$(grep -v '^# check-walk:' "$TMP/cw")" = "$(cat "$TMP/all")" ] &&
		grep -q '^# check-walk: the 12 walks (4 a thread) agree with the plain walks; ' "$TMP/cw"
	tap_result $? "--check-walk, 3 threads: their 12 walks with a cache and without the fast loops agree, exit 0"
	tail -n 1 "$TMP/cw"
else
	for d in "-t" "-t missing" "-n" "--check-walk"; do
		tap_skip "$d" "no gdb, or target did not stop"
	done
fi

# The program gone: the frames in it unnamed, and a hint.
if tap_have gdb && core gone segv 10; then
	rm -f "$TMP/gone"
	"$UWIND" stack --core "$TMP/gone.core" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^uwind: $TMP/gone.core: the program $TMP/gone cannot be read.*--exe" "$TMP/err"
	tap_result $? "a core whose program is gone: walked, with a hint to name it with --exe"
	sed 's/^/# /' "$TMP/err"
else
	tap_skip "the program gone: hint" "no gdb core"
fi

if tap_have gdb && core badret badret; then
	"$UWIND" stack --core "$TMP/badret.core" >"$TMP/out" 2>&1
	last=$(awk '/^#[0-9]/ { pc = $2 } END { print pc }' "$TMP/out")
	grep -q "^# stopped: .*outside every mapping" "$TMP/out" &&
		! grep -q '^# stopped: .*success' "$TMP/out" &&
		[ "$last" = 0x0000000000001234 ]
	tap_result $? "a walk ending cleanly at return address 0x1234, outside every mapping: not success"
	sed 's/^/# /' "$TMP/out"
else
	tap_skip "a walk ending outside every mapping" "no gdb, or no core"
fi

# qemu-aarch64 cores: no NT_FILE, no text, but an auxiliary vector.
if tap_have qemu-aarch64 && [ -x "$A64/stack/chain-a64" ]; then
	mkdir -p "$TMP/q/core"
	(cd "$TMP/q" && ulimit -c unlimited &&
	 qemu-aarch64 "$A64/stack/chain-a64" crash >/dev/null 2>&1; :) 2>/dev/null
	QCORE=$(ls "$TMP/q"/qemu_*.core 2>/dev/null | head -n 1)
	"$UWIND" stack --core "$QCORE" --exe "$A64/sfconv/crash-a64" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ -n "$QCORE" ] && [ $rc -eq 1 ] &&
		grep -q "not the program .*auxiliary vector" "$TMP/err"
	tap_result $? "qemu core, --exe another static program: refused (entry, program headers), exit 1"
	sed 's/^/# /' "$TMP/err"
	"$UWIND" stack --core "$QCORE" --exe "$A64/stack/chain-a64" >"$TMP/out" 2>"$TMP/err"
	[ $? -eq 0 ] && grep -q ' leaf+0x' "$TMP/out" && ! grep -q 'not the' "$TMP/err"
	tap_result $? "qemu core, --exe its own program: accepted"
	"$UWIND" stack --core "$QCORE" >/dev/null 2>"$TMP/err"
	grep -q -- '--exe' "$TMP/err"
	tap_result $? "qemu core without --exe: the message says to name it with --exe"
	# No NT_SIGINFO: the signal is pr_cursig's.
	g=$(gdb-multiarch -nx -batch "$A64/stack/chain-a64" "$QCORE" 2>/dev/null |
	    sed -n 's/^Program terminated with signal \(SIG[A-Z]*\),.*/\1/p')
	"$UWIND" stack --core "$QCORE" --exe "$A64/stack/chain-a64" 2>/dev/null |
		grep -q "^Signal [0-9]* ($g, .*) in LWP [0-9]*\$"
	tap_result $? "qemu core: the signal ($g, as gdb-multiarch says), without a code (no NT_SIGINFO)"
	"$UWIND" stack --core "$QCORE" --exe "$A64/stack/chain-a64" \
		--check-walk >"$TMP/cw" 2>&1
	[ $? -eq 0 ] && grep -q ' leaf+0x' "$TMP/cw" &&
		grep -q '^# check-walk: the 4 walks (4 a thread) agree with the plain walks; ' "$TMP/cw"
	tap_result $? "qemu core: --check-walk: the AArch64 walks agree, exit 0"
	tail -n 1 "$TMP/cw"
else
	for d in refused accepted hint signal check-walk; do
		tap_skip "qemu core: $d" "no qemu-aarch64 or no chain-a64"
	done
fi
tap_end
