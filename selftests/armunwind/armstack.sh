#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack --core` on 32-bit ARM cores: the ones qemu-arm writes for
# selftests/armunwind/crash.c, built in ARM state and in Thumb-2 (static,
# -funwind-tables -g).  qemu-arm writes NT_PRSTATUS (r0-r15, cpsr),
# NT_PRPSINFO and NT_AUXV but no NT_FILE, and leaves the text out of the
# core: --exe places the executable and supplies its tables.
#
# Oracles: the call chain the program's source fixes, and gdb-multiarch's
# `bt` from the DWARF CFI in .debug_frame (function names and pcs, frame
# by frame, up to main).  Then malformed 32-bit cores: truncated and
# corrupted copies give an error or a walk, never a crash.  Every core's
# walk, from EHABI and from a Chrome table, again with --check-walk: with
# a cache (cold, then warm: the ARM fast loop runs from the cached rows)
# and with the fast loops off, each the same frames, sources and stop.
#
# usage: armstack.sh UWIND BUILD_DIR   (BUILD_DIR holds crash-arm, crash-thumb)
set -u

UWIND=$1
BIN=$(cd "$2" && pwd)
. "$(dirname "$0")/../common/tap.sh"
tap_scratch

CHAIN="ac_leaf ac_noret ac_big_frame ac_alloca ac_recurse ac_recurse ac_recurse ac_recurse ac_run main"

# "NAME PC" per frame up to main, from uwind stack's output.
uw_frames()
{
	awk '/^#[0-9]/ { f = $3; sub(/\+0x[0-9a-f]+$/, "", f); pc = $2;
		sub(/^0x0*/, "0x", pc); print f, pc; if (f == "main") exit }' "$1"
}

# The same from gdb's bt ("#N  0xPC in NAME (...)", or "#0  NAME (...)"
# when the pc starts a line: then the pc is left out).  gdb prints frame 0
# once when it loads the core, then the whole backtrace: the last #0 starts
# the list.
gdb_frames()
{
	awk '/^#0 / { done = 0; out = "" }
	/^#[0-9]/ && !done {
		if (match($0, / in [^ ]+ \(/)) {
			f = substr($0, RSTART + 4, RLENGTH - 6); pc = $2
		} else {
			f = $2; pc = "-"
		}
		sub(/^0x0*/, "0x", pc)
		out = out f " " pc "\n"; if (f == "main") done = 1 }
	END { printf "%s", out }' "$1"
}

qemu_core()
{
	mkdir -p "$TMP/q.$1/core"
	(cd "$TMP/q.$1" && ulimit -c unlimited &&
	 qemu-arm "$BIN/crash-$1" >/dev/null 2>&1; :) 2>/dev/null
	ls "$TMP/q.$1"/qemu_*.core 2>/dev/null | head -n 1
}

# check_walk PLAIN OUT ERR RC: `uwind stack ... --check-walk` (OUT, ERR,
# its exit status RC) printed the frames and stop lines of PLAIN, then
# that its walks agree, the warm one all from the cache.
check_walk()
{
	sed 's/^/# check-walk: /' "$3"
	[ "$4" -eq 0 ] && [ ! -s "$3" ] &&
	[ "$(grep '^#' "$1")" = "$(grep '^#' "$2" | grep -v '^# check-walk:')" ] &&
	tail -n 1 "$2" | grep -q '^# check-walk: the [0-9]* walks (4 a thread) agree with the plain walks; warm cache: [1-9][0-9]* hits, 0 misses$'
}

tap_begin 39

for mode in arm thumb; do
	if ! tap_have qemu-arm || [ ! -f "$BIN/crash-$mode" ]; then
		for d in core chain ehabi chrome gdb pcs check-walk \
			 check-walk-chrome; do
			tap_skip "$mode: $d" "no qemu-arm or no crash-$mode"
		done
		continue
	fi
	CORE=$(qemu_core "$mode")
	[ -n "$CORE" ] && [ "$(od -An -tx1 -j4 -N1 "$CORE" | tr -d ' ')" = 01 ]
	tap_result $? "$mode: qemu-arm wrote a 32-bit core for the crash"
	[ -n "$CORE" ] && cp "$CORE" "$TMP/core.$mode"
	"$UWIND" stack --core "$CORE" --exe "$BIN/crash-$mode" \
		>"$TMP/uw.$mode" 2>"$TMP/uw.$mode.err"
	rc=$?
	sed 's/^/# /' "$TMP/uw.$mode"
	uw_frames "$TMP/uw.$mode" >"$TMP/uwf.$mode"
	[ $rc -eq 0 ] && [ "$(cut -d' ' -f1 "$TMP/uwf.$mode" | tr '\n' ' ')" = \
			   "$CHAIN " ]
	tap_result $? "$mode core: uwind stack --core --exe gives the source's chain"
	out=$(awk '/^#[0-9]/ { print $5; if ($3 ~ /^main\+/) exit }' \
	      "$TMP/uw.$mode" | sort -u)
	[ "$out" = "[ehabi]" ]
	tap_result $? "$mode core: frames up to main unwound by [ehabi]"
	# The same core from a Chrome table made from the program's DWARF.
	"$UWIND" convert --breakpad "$BIN/crash-$mode" >"$TMP/sym.$mode" &&
	"$UWIND" convert --chrome "$TMP/sym.$mode" -o "$TMP/chrome.$mode" &&
	"$UWIND" stack --core "$CORE" --exe "$BIN/crash-$mode" \
		--chrome "$TMP/chrome.$mode" >"$TMP/uwc.$mode" 2>&1
	rc=$?
	sed 's/^/# chrome: /' "$TMP/uwc.$mode"
	uw_frames "$TMP/uwc.$mode" >"$TMP/uwcf.$mode"
	out=$(awk '/^#[0-9]/ { print $5; if ($3 ~ /^main\+/) exit }' \
	      "$TMP/uwc.$mode" | sort -u)
	[ $rc -eq 0 ] && [ "$(cut -d' ' -f1 "$TMP/uwcf.$mode" | tr '\n' ' ')" = \
			   "$CHAIN " ] && [ "$out" = "[chrome]" ]
	tap_result $? "$mode core: --chrome TABLE gives the same chain, all [chrome]"
	"$UWIND" stack --core "$CORE" --exe "$BIN/crash-$mode" --check-walk \
		>"$TMP/cw.$mode" 2>"$TMP/cw.$mode.err"
	check_walk "$TMP/uw.$mode" "$TMP/cw.$mode" "$TMP/cw.$mode.err" $?
	tap_result $? "$mode core: --check-walk: cached (cold, warm) and no-fast walks agree with the plain walk, exit 0"
	tail -n 1 "$TMP/cw.$mode"
	"$UWIND" stack --core "$CORE" --exe "$BIN/crash-$mode" \
		--chrome "$TMP/chrome.$mode" --check-walk \
		>"$TMP/cwc.$mode" 2>"$TMP/cwc.$mode.err"
	check_walk "$TMP/uwc.$mode" "$TMP/cwc.$mode" "$TMP/cwc.$mode.err" $?
	tap_result $? "$mode core: --chrome TABLE --check-walk: the walks agree, exit 0"
	if tap_have gdb-multiarch; then
		gdb-multiarch -nx -batch -ex bt "$BIN/crash-$mode" "$CORE" \
			>"$TMP/gdb.$mode" 2>/dev/null
		gdb_frames "$TMP/gdb.$mode" >"$TMP/gdbf.$mode"
		[ -s "$TMP/gdbf.$mode" ] &&
		[ "$(cut -d' ' -f1 "$TMP/gdbf.$mode")" = \
		  "$(cut -d' ' -f1 "$TMP/uwf.$mode")" ]
		tap_result $? "$mode core: same functions as gdb-multiarch bt"
		# Frame by frame, the pcs gdb prints (it leaves out a pc that
		# starts a source line) equal uwind's.
		bad=0
		paste -d' ' "$TMP/gdbf.$mode" "$TMP/uwf.$mode" >"$TMP/pair"
		while read -r gf gpc uf upc; do
			if [ "$gpc" != - ] && [ "$gpc" != "$upc" ]; then
				echo "# $gf: gdb pc $gpc, uwind $upc"
				bad=1
			fi
		done <"$TMP/pair"
		[ -s "$TMP/pair" ]
		[ $? -eq 0 ] && [ $bad -eq 0 ]
		tap_result $? "$mode core: same pcs as gdb-multiarch bt"
	else
		tap_skip "$mode core: same functions as gdb-multiarch" "no gdb-multiarch"
		tap_skip "$mode core: same pcs as gdb-multiarch" "no gdb-multiarch"
	fi
done

# ---- Across a signal frame: sigcrash.c traps (SIGILL) in sc_spin, its
# handler stores through NULL.  Three trampolines: glibc's restorer
# (argument libc; it has an EHABI entry, but the walker must still take it
# for a signal frame), and qemu's copy of the kernel's sigpage code with a
# struct sigframe (frame) and a struct rt_sigframe (rtframe).  Oracles:
# the chain the source fixes, and the address of the trap instruction in
# sc_spin from objdump, which the interrupted frame's pc must equal.
# (gdb-multiarch stops at these signal frames in qemu's cores.)
sig_core()
{
	rm -rf "$TMP/s.$1.$2" && mkdir -p "$TMP/s.$1.$2"
	(cd "$TMP/s.$1.$2" && ulimit -c unlimited &&
	 qemu-arm "$BIN/sigcrash-$1" "$2" >/dev/null 2>&1; :) 2>/dev/null
	ls "$TMP/s.$1.$2"/qemu_*.core 2>/dev/null | head -n 1
}

for mode in arm thumb; do
	for how in libc frame rtframe; do
		if ! tap_have qemu-arm || [ ! -f "$BIN/sigcrash-$mode" ]; then
			tap_skip "$mode $how: signal frame chain" "no qemu-arm or sigcrash-$mode"
			tap_skip "$mode $how: interrupted pc" "no qemu-arm or sigcrash-$mode"
			tap_skip "$mode $how: check-walk" "no qemu-arm or sigcrash-$mode"
			continue
		fi
		tramp="??"
		[ "$how" = libc ] && tramp=__default_sa_restorer
		CORE=$(sig_core "$mode" "$how")
		out=$TMP/sig.$mode.$how
		"$UWIND" stack --core "$CORE" --exe "$BIN/sigcrash-$mode" >"$out" 2>&1
		rc=$?
		sed 's/^/# /' "$out"
		chain=$(uw_frames "$out" | cut -d' ' -f1 | tr '\n' ' ')
		[ $rc -eq 0 ] && [ "$chain" = \
			"sc_leaf sc_handler $tramp sc_spin sc_outer main " ]
		tap_result $? "$mode $how: chain from the handler through the signal frame to main"
		# The trap: udf in sc_spin (ARM "udf", Thumb "udf" too).
		trap_pc=$(arm-linux-gnueabihf-objdump -d "$BIN/sigcrash-$mode" 2>/dev/null |
			  awk '/<sc_spin>:/ { f = 1; next } /^$/ { f = 0 }
			       f && /udf/ { sub(":", "", $1); print "0x" $1; exit }')
		got=$(awk '/^#3 / && $5 == "[ehabi]" && / signal/ { pc = $2;
			   sub(/^0x0*/, "0x", pc); print pc }' "$out")
		sig=$(awk '/^#2 / { print $5 }' "$out")
		[ -n "$trap_pc" ] && [ "$got" = "$trap_pc" ] && [ "$sig" = "[sigframe]" ]
		tap_result $? "$mode $how: trampoline unwound as [sigframe], interrupted pc = the trap ($trap_pc)"
		"$UWIND" stack --core "$CORE" --exe "$BIN/sigcrash-$mode" \
			--check-walk >"$out.cw" 2>"$out.cw.err"
		check_walk "$out" "$out.cw" "$out.cw.err" $?
		tap_result $? "$mode $how: --check-walk across the signal frame: the walks agree, exit 0"
	done
done

# Frame 0's Thumb state comes from CPSR.T (the others' from bit 0 of
# their return addresses): every frame up to main is marked thumb in the
# Thumb core, none in the ARM core.
if [ -s "$TMP/uw.thumb" ] && [ -s "$TMP/uw.arm" ]; then
	t=$(awk '/^#[0-9]/ { print $NF; if ($3 ~ /^main\+/) exit }' \
	    "$TMP/uw.thumb" | sort -u)
	a=$(awk '/^#[0-9]/ { print $NF; if ($3 ~ /^main\+/) exit }' \
	    "$TMP/uw.arm" | sort -u)
	[ "$t" = thumb ] && [ "$a" = "[ehabi]" ]
	tap_result $? "Thumb state: thumb frames in the Thumb core, none in the ARM core"
else
	tap_skip "Thumb state" "no cores"
fi

# Without --exe: no text, no tables; a message names --exe.
if [ -s "$TMP/core.arm" ]; then
	"$UWIND" stack --core "$TMP/core.arm" >/dev/null 2>"$TMP/err"
	[ $? -eq 0 ] && grep -q -- '--exe' "$TMP/err"
	tap_result $? "arm core without --exe: still walks, says to use --exe"
else
	tap_skip "arm core without --exe" "no core"
fi

# ---- Malformed 32-bit cores: an error message or a walk, never a crash.
crashed()
{
	[ "$1" -ge 128 ] || grep -q -e Sanitizer -e 'runtime error' "$2"
}

SRC=$TMP/core.thumb
if [ -s "$SRC" ]; then
	size=$(wc -c <"$SRC")
	bad=0
	for cut in 51 52 84 200 340 400 500 $((size / 3)) $((size / 2)) \
		   $((size - 4096)) $((size - 1)); do
		head -c "$cut" "$SRC" >"$TMP/trunc"
		"$UWIND" stack --core "$TMP/trunc" --exe "$BIN/crash-thumb" \
			>/dev/null 2>"$TMP/err"
		rc=$?
		if crashed $rc "$TMP/err" ||
		   { [ $rc -ne 0 ] && ! grep -q '^uwind: ' "$TMP/err"; }; then
			echo "# truncated at $cut: rc $rc"
			bad=1
		fi
	done
	tap_result $bad "truncated 32-bit cores: error messages, no crash"

	# Program headers (52 + 32 * i), the note headers and descriptors,
	# among them pr_pid, the registers and cpsr of NT_PRSTATUS.
	noff=$(readelf -lW "$SRC" 2>/dev/null |
	       awk '$1 == "NOTE" { print $2; exit }')
	noff=$((noff))
	bad=0
	for off in 4 5 28 44 48 56 60 68 88 96 $((noff)) $((noff + 4)) \
		   $((noff + 8)) $((noff + 20 + 24)) $((noff + 20 + 72)) \
		   $((noff + 20 + 72 + 52)) $((noff + 20 + 72 + 60)) \
		   $((noff + 20 + 72 + 64)) \
		   $((noff + 20 + 136)) $((noff + 168)) $((noff + 300)) \
		   $((noff + 320)) $((noff + 400)); do
		cp "$SRC" "$TMP/corrupt"
		printf '\377\377\377\177' |
			dd of="$TMP/corrupt" bs=1 seek="$off" conv=notrunc \
			   2>/dev/null
		"$UWIND" stack --core "$TMP/corrupt" --exe "$BIN/crash-thumb" \
			>/dev/null 2>"$TMP/err"
		rc=$?
		if crashed $rc "$TMP/err" || [ $rc -gt 1 ]; then
			echo "# corrupted at $off: rc $rc"
			bad=1
		fi
	done
	tap_result $bad "corrupted 32-bit cores: no crash"
else
	tap_skip "truncated 32-bit cores" "no core"
	tap_skip "corrupted 32-bit cores" "no core"
fi

# An ARM executable as --exe of an ARM core whose text it is not:
# the walk may stop anywhere, but must not crash.
if [ -s "$TMP/core.thumb" ] && [ -f "$BIN/crash-arm" ]; then
	"$UWIND" stack --core "$TMP/core.thumb" --exe "$BIN/crash-arm" \
		>/dev/null 2>"$TMP/err"
	rc=$?
	! crashed $rc "$TMP/err" && [ $rc -le 1 ]
	tap_result $? "thumb core with the ARM build as --exe: no crash"
else
	tap_skip "thumb core with the ARM build as --exe" "no core"
fi
tap_end
