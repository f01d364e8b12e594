#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Chrome tables end to end, in TAP:
#  - the ARM and Thumb-2 selfunwind programs under qemu-arm, each with the
#    table `uwind convert` made from its own DWARF CFI, and built again
#    without -g (eh-*) with the table made from its EHABI tables (their TAP
#    lines are renumbered into this stream);
#  - `uwind convert --breakpad` against binutils: every FDE row's CFA and
#    saved registers, rebuilt from the STACK CFI records, equal what
#    `readelf -wF` says (ARM programs, the host's libc and uwind, and
#    Debian's arm64 libc if installed);
#  - `uwind lookup --chrome` at every prologue row of the programs (both
#    builds) gives the CFA and return address rule of their STACK CFI
#    records;
#  - `uwind dump --chrome` shows the frame-pointer and b2 instructions.
#
# usage: selfunwind.sh [O]
set -u
O=${1:-build}
D=$O/selftests/chrome
U=$O/uwind
AWK=selftests/chrome/cfi_norm.awk
. "$(dirname "$0")/../common/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_begin

# ---- self-unwinding under qemu-arm ----
# eh-*: built without -g, the table made from the EHABI tables.
prog_of() {	# variant -> mode and program path in $m, $prog, $tag
	case $1 in
	eh-*) m=${1#eh-}; prog=$D/eh/selfunwind-$m; tag="EHABI " ;;
	*) m=$1; prog=$D/selfunwind-$m; tag= ;;
	esac
}

for v in arm thumb eh-arm eh-thumb; do
	prog_of "$v"
	if [ ! -x "$prog" ] || ! command -v qemu-arm >/dev/null 2>&1; then
		tap_skip "selfunwind $v" "no cross build or qemu-arm"
		continue
	fi
	qemu-arm "$prog" "$prog.chrome" >"$tmp/out" 2>&1
	rc=$?
	grep '^#' "$tmp/out"
	lines=0
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			st=0
			case $line in "not ok "*) st=1 ;; esac
			tap_result "$st" "selfunwind $tag$(printf '%s' "$line" |
				sed 's/^\(not \)\{0,1\}ok [0-9]* - //')"
			lines=$((lines + 1))
			;;
		esac
	done <"$tmp/out"
	if [ "$rc" -ne 0 ] && [ "$lines" -eq 0 ]; then
		tap_not_ok "selfunwind $v ran (status $rc)"
	fi
	why=$(tap_plan_error "$tmp/out")
	[ -z "$why" ] || tap_not_ok "selfunwind $v: the program $why"
done

# ---- convert --breakpad against readelf -wF ----
# args: name binary readelf
cfi_diff() {
	bin=$2
	re=$3
	if [ ! -r "$bin" ] || ! command -v "$re" >/dev/null 2>&1; then
		tap_skip "convert --breakpad = readelf -wF: $1" "no $bin or $re"
		return
	fi
	sec=.eh_frame
	"$re" -SW "$bin" | grep -q ' \.debug_frame ' && sec=.debug_frame
	load=$("$re" -lW "$bin" | awk '$1 == "LOAD" { print $3; exit }')
	"$re" -wF "$bin" 2>/dev/null |
		awk -v mode=readelf -v sec="$sec" -f "$AWK" | sort >"$tmp/re"
	if ! "$U" convert --breakpad "$bin" >"$tmp/sym"; then
		tap_not_ok "convert --breakpad = readelf -wF: $1 (convert failed)"
		return
	fi
	# FDEs readelf shows rows for (not those whose CFA is an expression).
	awk -v mode=breakpad -v load="${load:-0}" -f "$AWK" "$tmp/sym" |
		awk 'NR == FNR { k[$1] = 1; next } k[$1]' "$tmp/re" - |
		sort >"$tmp/bp"
	rows=$(wc -l <"$tmp/re")
	diffs=$(comm -3 "$tmp/re" "$tmp/bp" | wc -l)
	# Every STACK CFI row changes something (the tool prints only what
	# differs from the row before), so a row that repeats the one before
	# it word for word is a leftover, such as a row that has nothing to
	# say (its CFA became an expression) printing a stale line.
	dups=$(awk '
		$1 == "STACK" && $2 == "CFI" && $3 == "INIT" { prev = ""; next }
		$1 == "STACK" && $2 == "CFI" {
			r = $0
			sub(/^STACK CFI [0-9a-f]+ /, "", r)
			if (r == prev) {
				n++
				print "# repeated: " $0 > "/dev/stderr"
			}
			prev = r
			next
		}
		{ prev = "" }
		END { print n + 0 }' "$tmp/sym" 2>&1 >"$tmp/dups" | head -3)
	[ -z "$dups" ] || echo "$dups"
	diffs=$((diffs + $(cat "$tmp/dups")))
	if [ "$rows" -gt 0 ] && [ "$diffs" -eq 0 ]; then
		tap_ok "convert --breakpad = readelf -wF: $1 ($rows rows, $sec)"
	else
		comm -3 "$tmp/re" "$tmp/bp" | head -5 | sed 's/^/# /'
		tap_not_ok "convert --breakpad = readelf -wF: $1 ($rows rows, $diffs differ)"
	fi
}

cfi_diff "ARM selfunwind" "$D/selfunwind-arm" arm-linux-gnueabihf-readelf
cfi_diff "Thumb-2 selfunwind" "$D/selfunwind-thumb" arm-linux-gnueabihf-readelf
cfi_diff "x86-64 uwind tool" "$U" readelf
hostlibc=$(ldd "$U" 2>/dev/null | awk '/libc\.so/ { print $3; exit }')
cfi_diff "x86-64 libc.so.6" "${hostlibc:-/nonexistent}" readelf
cfi_diff "arm64 libc.so.6" /usr/aarch64-linux-gnu/lib/libc.so.6 \
	aarch64-linux-gnu-readelf

# ---- lookup --chrome against the STACK CFI records ----
# Rows up to each function's epilogue: the CFA offset never falls and,
# once on a frame register, the CFA stays there.
for v in arm thumb eh-arm eh-thumb; do
	prog_of "$v"
	if [ ! -r "$prog.chrome" ]; then
		tap_skip "lookup --chrome = STACK CFI: $v" "no cross build"
		continue
	fi
	load=$(arm-linux-gnueabihf-readelf -lW "$prog" |
		awk '$1 == "LOAD" { sub(/^0x/, "", $3); print $3; exit }')
	thumb=
	[ "$m" = thumb ] && thumb=--thumb
	awk -v load="$load" '
	function hex(s,    i, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	# A function with a CFA loaded from the stack (from EHABI: the sp
	# popped) is refused by the table: its rows are left out.
	function flush() { if (!deref) printf "%s", rows; rows = "" }
	/^STACK CFI INIT / { flush(); f = 1; done = 0; reg = 0; off = 0
		ra = "lr"; deref = 0; addr = hex($4); first = 6 }
	/^STACK CFI [0-9a-f]/ { addr = hex($3); first = 4 }
	/^STACK CFI / && f && !done {
		for (i = first; i <= NF; i++) {
			if ($i == ".cfa:" && $(i + 4) == "^")
				deref = 1
			if ($i == ".cfa:") {
				if (reg || $(i + 2) + 0 < off) { done = 1; next }
				base = $(i + 1); off = $(i + 2) + 0
				if (base != "sp") reg = 1
			}
			if ($i == ".ra:")
				ra = ($(i + 1) == ".cfa") ? "c" $(i + 2) : $(i + 1)
		}
		rows = rows sprintf("0x%x cfa=%s+%d ra=%s\n", addr + hex(load),
				    base, off, ra)
	}
	END { flush() }' "$prog.sym" >"$tmp/want"
	cut -d' ' -f1 "$tmp/want" >"$tmp/addrs"
	# shellcheck disable=SC2046
	"$U" lookup --chrome "$prog.chrome" --text "0x$load" $thumb \
		$(cat "$tmp/addrs") | sed 's/ fp=.*//' >"$tmp/got"
	rows=$(wc -l <"$tmp/want")
	if [ "$rows" -gt 0 ] && cmp -s "$tmp/want" "$tmp/got"; then
		tap_ok "lookup --chrome = STACK CFI: $v ($rows prologue rows)"
	else
		diff "$tmp/want" "$tmp/got" | head -5 | sed 's/^/# /'
		tap_not_ok "lookup --chrome = STACK CFI: $v ($rows rows)"
	fi
	"$U" dump --chrome "$prog.chrome" --text "0x$load" >"$tmp/dump"
	fpreg=r11
	[ "$m" = thumb ] && fpreg=r7
	if grep -q "vsp = $fpreg\$" "$tmp/dump" &&
	   grep -q '^        0xb2 .*vsp = vsp + ' "$tmp/dump" &&
	   grep -q 'refuse to unwind' "$tmp/dump"; then
		tap_ok "dump --chrome: $v table shows vsp = $fpreg, b2 and refuse"
	else
		tap_not_ok "dump --chrome: $v table shows vsp = $fpreg, b2 and refuse"
	fi
done

tap_end
