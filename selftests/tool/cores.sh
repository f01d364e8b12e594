#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack --core` on what can go wrong around a core: --exe naming
# another program than the one that dumped it (refused: its build-id
# note is not the core's, or, in a qemu-user core that holds no text,
# its entry and program headers are not where the core's auxiliary
# vector has them), a program rebuilt since at the core's path (left
# out, with a hint), and a walk that ends cleanly on a return address no
# mapping holds (not "success").  Cores of target come from gdb (gcore at
# the signal), AArch64 ones from qemu-aarch64.
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

tap_begin 8

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
else
	for d in refused accepted hint; do
		tap_skip "qemu core: $d" "no qemu-aarch64 or no chain-a64"
	done
fi
tap_end
