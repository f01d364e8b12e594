#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack` names frames at least as well as eu-stack (elfutils, the
# oracle here): every frame eu-stack names has the same name, in cores
# gdb wrote and in a live process, library frames included, which with
# libc's separate debug info installed (libc6-dbg: found by build-id
# under /usr/lib/debug/.build-id) are its static functions too; inline
# frames where DWARF has them, as eu-stack -i lists them, marked
# [inline]; and a frame no symbol covers is named MODULE+0xOFFSET, which
# addr2line -f turns back into the function on the unstripped program.
#
# usage: names.sh BUILD_DIR
. selftests/tool/lib.sh

# core NAME MODE [ARG...]: target (a copy at $TMP/NAME) run in MODE
# under gdb, which writes $TMP/NAME.core at the signal.
core()
{
	n=$1
	shift
	[ -e "$TMP/$n" ] || cp "$P" "$TMP/$n"
	gdb -nx -batch -iex 'set debuginfod enabled off' -ex run \
		-ex "gcore $TMP/$n.core" --args "$TMP/$n" "$@" \
		>"$TMP/$n.gdb" 2>&1
	[ -s "$TMP/$n.core" ]
}

# Frames as "TID INDEX PC NAME" lines ("-" when unnamed): uwind's
# (inline frames with -i, else left out), eu-stack's.
uw_frames()
{
	awk -v inl="${2:-}" '
	/^Thread [0-9]+ \(LWP [0-9]+\):$/ { tid = $4; sub(/\):$/, "", tid); k = 0 }
	/^#[0-9]/ {
		if ($NF == "[inline]" && inl == "") next
		name = $3; sub(/\+0x[0-9a-f]+$/, "", name)
		mod = $0; sub(/^.* \(/, "", mod); sub(/\) \[.*$/, "", mod)
		n = split(mod, parts, "/")
		if (name == "??" || name == parts[n]) name = "-"
		print tid, k++, $2, name }' "$1"
}

eu_frames()
{
	awk '/^TID [0-9]+:$/ { tid = $2; sub(/:$/, "", tid); k = 0 }
	/^#[0-9]/ { print tid, k++, $2, (NF >= 3 ? $3 : "-") }' "$1"
}

# same_names UWIND_FRAMES EU_FRAMES: every frame eu-stack names, uwind
# names the same, pcs frame by frame; 1 otherwise, the first difference
# said.  $named: how many frames each names.
same_names()
{
	paste -d' ' "$1" "$2" | awk '
	$1 != $5 || $2 != $6 || $3 != $7 { print "# frame", $2, "of", $1, ": uwind", $3, $4, "eu-stack", $7, $8; bad = 1; exit }
	$8 != "-" && $4 != $8 { print "# frame", $2, "of", $1, "at", $3, ": uwind", $4, "eu-stack", $8; bad = 1; exit }
	END { exit bad }' &&
		[ "$(wc -l <"$1")" -eq "$(wc -l <"$2")" ]
	rc=$?
	named="$(awk '$4 != "-"' "$1" | wc -l) and $(awk '$4 != "-"' "$2" | wc -l)"
	return $rc
}

libc=$(ldd "$P" | awk '$1 ~ /^libc\.so/ { print $3 }')
lid=$(readelf -nW "$libc" 2>/dev/null | awk '/Build ID:/ { print $NF }')
ldbg=/usr/lib/debug/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug

tap_begin 7

if tap_have gdb && tap_have eu-stack && core abort abort; then
	"$UWIND" stack --core "$TMP/abort.core" >"$TMP/uw" 2>"$TMP/err"
	eu-stack -r --core "$TMP/abort.core" -e "$TMP/abort" >"$TMP/eu" 2>/dev/null
	uw_frames "$TMP/uw" >"$TMP/uw.f"
	eu_frames "$TMP/eu" >"$TMP/eu.f"
	same_names "$TMP/uw.f" "$TMP/eu.f"
	tap_result $? "abort() from qsort's comparator (a gdb core): every frame eu-stack names has the same name, pc by pc ($named named)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/uw" "$TMP/eu"
	if [ -f "$ldbg" ]; then
		grep -q ' __libc_start_call_main+0x[0-9a-f]* (' "$TMP/uw" &&
			grep -q ' msort_with_tmp[.a-z0-9]*+0x[0-9a-f]* (' "$TMP/uw"
		tap_result $? "libc's static functions (__libc_start_call_main, msort_with_tmp) named from its debug file $ldbg"
	else
		tap_skip "libc's static functions named from its debug file" "libc6-dbg is not installed ($ldbg)"
	fi
else
	tap_skip "abort core: names as eu-stack's" "no gdb or eu-stack, or no core"
	tap_skip "libc's static functions named" "no gdb or eu-stack, or no core"
fi

# A live process: three threads stopped in their leaves.
if tap_have eu-stack && tap_start_stopped "$P" stop; then
	"$UWIND" stack -p "$pid" >"$TMP/live" 2>"$TMP/err"
	eu-stack -r -p "$pid" >"$TMP/eulive" 2>/dev/null
	uw_frames "$TMP/live" | sort -n -k1,1 -k2,2 >"$TMP/live.f"
	eu_frames "$TMP/eulive" | sort -n -k1,1 -k2,2 >"$TMP/eulive.f"
	same_names "$TMP/live.f" "$TMP/eulive.f" &&
		[ "$(grep -c '^Thread ' "$TMP/live")" -eq 3 ]
	tap_result $? "a live process, 3 threads: every frame eu-stack -p names has the same name ($named named)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/live" "$TMP/eulive"
	kill -9 "$pid"
else
	tap_skip "live process: names as eu-stack's" "no eu-stack, or target did not stop"
fi

# Inline frames: store() is always_inline in poke(), where target segv
# faults.
if tap_have gdb && tap_have eu-stack && core segv segv 10; then
	"$UWIND" stack --core "$TMP/segv.core" >"$TMP/segv.uw" 2>&1
	eu-stack -r -i --core "$TMP/segv.core" -e "$TMP/segv" >"$TMP/segv.eu" 2>/dev/null
	uw_frames "$TMP/segv.uw" -i | awk '{ print $3 }' >"$TMP/segv.uwpc"
	eu_frames "$TMP/segv.eu" | awk '{ print $3 }' >"$TMP/segv.eupc"
	cmp -s "$TMP/segv.uwpc" "$TMP/segv.eupc"
	tap_result $? "inline frames: the frames, pc by pc, are eu-stack -i's ($(wc -l <"$TMP/segv.eupc"))"
	l0=$(awk '/^#0 /' "$TMP/segv.uw")
	l1=$(awk '/^#1 /' "$TMP/segv.uw")
	e0=$(awk '/^#0 / { print $3 }' "$TMP/segv.eu")
	case "$l0|$l1" in
	*" store ("*"[inline]|"*" poke+0x"*) [ "$e0" = store ] ;;
	*) false ;;
	esac
	tap_result $? "frame 0: store [inline] (eu-stack -i: $e0), frame 1: poke+0x..., the same pc"
	[ $? -eq 0 ] || echo "# $l0 / $l1"

	# A stripped copy: no symbols, no DWARF; MODULE+0xOFFSET instead,
	# and addr2line on the program before strip names each frame as
	# uwind does on the unstripped program's core (the physical
	# function: the last addr2line -i gives).
	strip -o "$TMP/stripped" "$P"
	if core stripped segv 10; then
		"$UWIND" stack --core "$TMP/stripped.core" >"$TMP/str.uw" 2>&1
		uw_frames "$TMP/segv.uw" >"$TMP/segv.f"
		awk '/^#[0-9]/ && $NF != "[inline]" {
			if ($3 ~ /^stripped\+0x/) print k + 0, $3; k++ }' \
			"$TMP/str.uw" >"$TMP/str.f"
		bad=0
		while read -r k name; do
			a2l=$(addr2line -f -i -e "$P" "${name#stripped+}" |
			      awk 'NR % 2 == 1' | tail -n 1)
			want=$(awk -v k="$k" '$2 == k { print $4 }' "$TMP/segv.f")
			echo "# frame $k, $name: addr2line says $a2l, uwind on the program $want"
			[ -n "$a2l" ] && [ "$a2l" = "$want" ] || bad=1
		done <"$TMP/str.f"
		n=$(wc -l <"$TMP/str.f")
		[ "$n" -ge 2 ] && [ $bad -eq 0 ] &&
			! grep -q '^#[0-9]* *0x[0-9a-f]* ?? (/' "$TMP/str.uw"
		tap_result $? "a stripped program: its $n frames named stripped+0xOFF, each the function addr2line -f finds there"
	else
		tap_skip "stripped program: MODULE+0xOFFSET" "no core"
	fi
else
	for d in frames "frame 0" stripped; do
		tap_skip "inline frames: $d" "no gdb or eu-stack, or no core"
	done
fi

# The vDSO and files without names: never "??" inside a mapped file.
"$UWIND" stack --core "$TMP/abort.core" 2>/dev/null |
	grep '^#[0-9]' | grep -v ' ?? (??) ' | grep ' ?? (' >"$TMP/q"
[ ! -s "$TMP/q" ]
tap_result $? "no frame inside a mapped file is left '??'"
tap_end
