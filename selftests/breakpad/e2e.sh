#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Breakpad end to end: the chain programs of selftests/stack (x86-64,
# and AArch64 static under qemu-aarch64; no frame pointers, SFrame
# tables) get .sym files from `uwind convert --breakpad` (their DWARF
# CFI), and their cores are unwound with `uwind stack --breakpad SYM`:
#
#   - the same functions as `uwind stack` with the SFrame tables and as
#     gdb's `bt`, every frame up to main unwound by [breakpad];
#   - a signal core (x86-64): through the kernel's signal frame, as with
#     SFrame;
#   - `uwind lookup --breakpad` at every byte of the program's own
#     functions gives SFrame's rule (`uwind lookup` on the ELF file), with
#     and without the index;
#   - a .sym whose MODULE id does not match the file is refused;
#   - `uwind verify --breakpad` (uw_bp_check) passes both .sym files with
#     grep's count of INIT records, and refuses a copy with one delta's
#     rule broken at that line, where lookup --breakpad fails too.
#
# usage: e2e.sh UWIND STACK_BUILD_DIR   (holds chain and chain-a64)
set -u

UWIND=$1
BIN=$(cd "$2" && pwd)
. selftests/common/tap.sh
tap_scratch
tap_begin 16
. selftests/stack/chainlib.sh

# Frames up to main (or worker) all unwound by $2?
sources_upto_main()
{
	awk '/^#[0-9]/ { print $NF; if ($3 ~ /^(main|worker)\+/) print "END" }
	     /^Thread/ { print "THREAD" }' "$1" |
		awk -v want="$2" '/^THREAD/ { on = 1; next } /^END/ { on = 0; next }
			on && $0 != want && $0 != "signal" { bad = 1 }
			END { exit bad }'
}

# Every byte address of the program's own functions, as 0x...
own_addrs()
{
	nm -S --defined-only "$1" | while read -r a s t name; do
		case "$t:$name" in
		[Tt]:leaf|[Tt]:big_frame|[Tt]:with_alloca|[Tt]:recurse|\
		[Tt]:run|[Tt]:main|[Tt]:worker|[Tt]:worker_mid|\
		[Tt]:worker_leaf|[Tt]:handler_mid|[Tt]:on_usr1|\
		[Tt]:sig_raise|[Tt]:run_sig)
			i=0
			while [ $i -lt $((0x$s)) ]; do
				printf '0x%x\n' $((0x$a + i))
				i=$((i + 1))
			done ;;
		esac
	done
}

# verify --breakpad SYM ($3) passes, with grep's count of INIT records;
# $1 names the case, $2 the architecture as verify names it.
verify_ok()
{
	out=$("$UWIND" verify --breakpad "$3")
	rc=$?
	echo "# $out"
	inits=$(grep -c '^STACK CFI INIT' "$3")
	[ $rc -eq 0 ] &&
		echo "$out" | grep -q ": ok (Breakpad, $2, $inits STACK CFI INIT"
	tap_result $? "$1: verify --breakpad passes $(basename "$3") ($inits INIT records)"
}

# lookup --breakpad SYM (extra options $4...) against the SFrame lookup
# of ELF $2 at the addresses in file $3; $1 names the case.
same_lookups()
{
	name=$1 elf=$2 addrs=$3 sym=$4
	shift 4
	# shellcheck disable=SC2046
	"$UWIND" lookup "$elf" $(cat "$addrs") >"$TMP/lk.sf"
	# shellcheck disable=SC2046
	"$UWIND" lookup --breakpad "$sym" "$@" $(cat "$addrs") >"$TMP/lk.bp"
	cnt=$(grep -c . "$addrs")
	[ "$cnt" -gt 200 ] && cmp -s "$TMP/lk.sf" "$TMP/lk.bp"
	tap_result $? "$name: lookup --breakpad${*:+ $*} at all $cnt bytes of the program's functions = SFrame's lookup"
	[ -n "$(diff "$TMP/lk.sf" "$TMP/lk.bp" | head -3)" ] &&
		diff "$TMP/lk.sf" "$TMP/lk.bp" | head -4 | sed 's/^/# /'
}


# ---- x86-64: gcore of the stopped chain program
"$UWIND" convert --breakpad "$BIN/chain" >"$TMP/chain.sym" 2>"$TMP/err"
[ $? -eq 0 ] && grep -q '^STACK CFI INIT' "$TMP/chain.sym"
tap_result $? "x86-64: convert --breakpad writes STACK CFI for chain"
verify_ok x86-64 x86-64 "$TMP/chain.sym"
# The first delta's rules given one operator too many.
n=$(grep -n '^STACK CFI [0-9a-f]' "$TMP/chain.sym" | head -n 1 | cut -d: -f1)
addr=$(sed -n "${n}s/^STACK CFI \([0-9a-f]*\) .*/\1/p" "$TMP/chain.sym")
sed "${n}s/\$/ +/" "$TMP/chain.sym" >"$TMP/broken.sym"
out=$("$UWIND" verify --breakpad "$TMP/broken.sym")
rc=$?
echo "# $out"
[ -n "$n" ] && [ $rc -eq 1 ] &&
	echo "$out" | grep -q "broken.sym:$n: malformed table entry: STACK CFI $addr " &&
	"$UWIND" lookup --breakpad "$TMP/broken.sym" "0x$addr" | grep -q error
tap_result $? "x86-64: a delta with a leftover operator refused at its line $n (lookup at 0x$addr fails too)"
if tap_have gcore && start_stopped stop; then
	gcore -o "$TMP/core" "$pid" >/dev/null 2>&1
	CORE=$TMP/core.$pid
	"$UWIND" stack --core "$CORE" --breakpad "$TMP/chain.sym" \
		>"$TMP/bp.txt" 2>"$TMP/bp.err"
	rc=$?
	"$UWIND" stack --core "$CORE" >"$TMP/sf.txt" 2>/dev/null
	uw_names "$TMP/bp.txt" >"$TMP/bp.names"
	uw_names "$TMP/sf.txt" >"$TMP/sf.names"
	[ $rc -eq 0 ] && [ "$(thread_of "$TMP/bp.names" "$pid")" = "$MAIN_CHAIN" ] &&
		[ "$(grep -c . "$TMP/bp.names")" -eq 2 ]
	tap_result $? "x86-64 core: stack --breakpad gives the source's chain in both threads"
	cmp -s "$TMP/bp.names" "$TMP/sf.names"
	tap_result $? "x86-64 core: the same functions as with SFrame"
	same_as_gdb gdb "$BIN/chain" "$CORE" "$TMP/bp.names" \
		"x86-64 core: the same functions as gdb bt"
	sources_upto_main "$TMP/bp.txt" "[breakpad]"
	tap_result $? "x86-64 core: every frame up to main and worker unwound by [breakpad]"
	sed 's/ [0-9A-F]\{33\} / 0000000000000000000000000000000000 /' \
		"$TMP/chain.sym" >"$TMP/other.sym"
	"$UWIND" stack --core "$CORE" --breakpad "$TMP/other.sym" \
		>/dev/null 2>"$TMP/err"
	[ $? -eq 1 ] && grep -q 'matches its MODULE line' "$TMP/err"
	tap_result $? "a .sym with another module id: refused"
	kill -9 "$pid"
else
	for d in chain sframe gdb sources id; do
		tap_skip "x86-64 core: $d" "gcore missing or the program did not stop"
	done
fi

if tap_have gcore && start_stopped sigstop; then
	gcore -o "$TMP/sig" "$pid" >/dev/null 2>&1
	CORE=$TMP/sig.$pid
	kill -9 "$pid"
	"$UWIND" stack --core "$CORE" --breakpad "$TMP/chain.sym" \
		>"$TMP/sig.txt" 2>/dev/null
	"$UWIND" stack --core "$CORE" >"$TMP/sigsf.txt" 2>/dev/null
	uw_names "$TMP/sig.txt" >"$TMP/sig.names"
	uw_names "$TMP/sigsf.txt" >"$TMP/sigsf.names"
	[ "$(thread_of "$TMP/sig.names" "$pid")" = "$SIG_CHAIN" ] &&
		cmp -s "$TMP/sig.names" "$TMP/sigsf.names" &&
		grep -q '\[sigframe\]' "$TMP/sig.txt"
	tap_result $? "x86-64 signal core: through the signal frame, as with SFrame"
else
	tap_skip "x86-64 signal core" "gcore missing or no stop"
fi

# Every byte of the program's functions: Breakpad's rule = SFrame's.
own_addrs "$BIN/chain" >"$TMP/addrs"
same_lookups x86-64 "$BIN/chain" "$TMP/addrs" "$TMP/chain.sym"
same_lookups x86-64 "$BIN/chain" "$TMP/addrs" "$TMP/chain.sym" --index

# ---- AArch64: a qemu-aarch64 core of the static program
if tap_have qemu-aarch64 && [ -x "$BIN/chain-a64" ]; then
	"$UWIND" convert --breakpad "$BIN/chain-a64" >"$TMP/a64.sym" 2>/dev/null
	verify_ok aarch64 aarch64 "$TMP/a64.sym"
	CORE=$(qemu_core crash)
	"$UWIND" stack --core "$CORE" --exe "$BIN/chain-a64" \
		--breakpad "$TMP/a64.sym" >"$TMP/a64bp.txt" 2>"$TMP/err"
	rc=$?
	"$UWIND" stack --core "$CORE" --exe "$BIN/chain-a64" \
		>"$TMP/a64sf.txt" 2>/dev/null
	uw_names "$TMP/a64bp.txt" | cut -d' ' -f2- >"$TMP/a64bp.names"
	uw_names "$TMP/a64sf.txt" | cut -d' ' -f2- >"$TMP/a64sf.names"
	[ -n "$CORE" ] && [ $rc -eq 0 ] &&
		[ "$(cat "$TMP/a64bp.names")" = "$MAIN_CHAIN" ] &&
		cmp -s "$TMP/a64bp.names" "$TMP/a64sf.names"
	tap_result $? "aarch64 core: stack --breakpad gives the source's chain, as SFrame"
	same_as_gdb gdb-multiarch "$BIN/chain-a64" "$CORE" \
		"$TMP/a64bp.names" \
		"aarch64 core: the same functions as gdb-multiarch bt" nolwp
	sources_upto_main "$TMP/a64bp.txt" "[breakpad]"
	tap_result $? "aarch64 core: every frame up to main unwound by [breakpad]"
	load=$(readelf -lW "$BIN/chain-a64" | awk '$1 == "LOAD" { print $3; exit }')
	own_addrs "$BIN/chain-a64" >"$TMP/a64addrs"
	same_lookups aarch64 "$BIN/chain-a64" "$TMP/a64addrs" "$TMP/a64.sym" \
		--base "$load"
else
	for d in verify chain gdb sources lookup; do
		tap_skip "aarch64: $d" "no qemu-aarch64 or no chain-a64"
	done
fi

tap_end
