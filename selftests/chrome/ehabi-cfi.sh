#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind convert --breakpad` on 32-bit ARM files with EHABI tables and no
# DWARF CFI (built with -fasynchronous-unwind-tables, no -g): the STACK
# CFI records come from .ARM.exidx.  Per file, in TAP:
#  1. the conversion succeeds, the file has no FDE (readelf -wF), every
#     record is well-formed Breakpad text (INIT records ".cfa: sp 0 +
#     .ra: lr", rules in std::map order, nothing after the first body row);
#  2. the state each function's records give for its body (INIT plus the
#     body row) equals `uwind lookup` at the body row's address and at the
#     function's last halfword, in Thumb (ADDR|1, fp = r7) and, at the
#     body row's address, in the mode of the function's FUNC symbol;
#  3. the same state equals what selftests/ehabi/rules.awk derives on its
#     own from `readelf -u`'s opcode text for every entry, and exactly the
#     entries readelf shows as cantunwind or "refuse to unwind" have no
#     records, and no records are for anything else;
#  4. the Chrome table `uwind convert --chrome` makes of the records gives
#     the same CFA and return address rules (`uwind lookup --chrome`) at
#     the body row addresses (or refuses, where the CFA is loaded from the
#     stack).
# Files: selftests/ehabi's programs built -O2 -fasynchronous-unwind-tables
# in ARM and Thumb-2, the static selfunwind programs of the same build
# (with libc.a's functions), and Debian's armhf libc.so.6 if installed.
#
# usage: ehabi-cfi.sh [O]
set -u
O=${1:-build}
D=$O/selftests/chrome/eh
U=$O/uwind
RE=arm-linux-gnueabihf-readelf
RULES=selftests/ehabi/rules.awk
. "$(dirname "$0")/../common/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_begin

# The records as one line per function:
#   START SIZE BODY|- CFA RA FP7 FP11
# (vaddrs in hex with 0x; rules in `uwind lookup`'s words), after checking
# the records' form; a line "BAD text" for each malformed record.
# shellcheck disable=SC2016
STATE_AWK='
function hex(s,    i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function rule(t, cfa,    k, m) {	# t: the tokens of one rule
	m = split(t, k, " ")
	if (m == 3 && k[3] == "+")
		return sprintf("%s%+d", k[1], k[2])
	if (m == 4 && k[1] == ".cfa" && k[3] == "+" && k[4] == "^")
		return sprintf("c%+d", k[2])
	if (m == 4 && k[3] == "+" && k[4] == "^")
		return sprintf("[%s%+d]", k[1], k[2])
	if (m == 6 && k[3] == "+" && k[4] == "^" && k[6] == "+")
		return sprintf("[%s%+d]%+d", k[1], k[2], k[5])
	if (m == 1 && !cfa)
		return k[1]
	return "BAD(" t ")"
}
function flush() {
	if (start != "")
		printf "0x%x %d %s cfa=%s ra=%s %s %s\n", start + load, size,
			body, cfa, ra, fp7, fp11
	start = ""
}
BEGIN { load = hex(load) }
/^STACK CFI / {
	if ($3 == "INIT") {
		flush()
		if ($0 !~ /^STACK CFI INIT [0-9a-f]+ [0-9a-f]+ \.cfa: sp 0 \+ \.ra: lr$/)
			print "BAD " $0
		start = hex($4); size = hex($5); body = "-"
		cfa = "sp+0"; ra = "lr"; fp7 = "fp=u"; fp11 = "fp=u"
		next
	}
	if (start == "" || body != "-") {
		print "BAD " $0
		next
	}
	a = hex($3)
	if (a <= start || a >= start + size)
		print "BAD " $0
	body = sprintf("0x%x", a + load)
	prev = ""
	name = ""
	for (i = 4; i <= NF + 1; i++) {
		if (i <= NF && $i !~ /:$/) {
			t = t " " $i
			continue
		}
		if (name != "") {
			r = rule(substr(t, 2), name == ".cfa")
			if (r ~ /^BAD/ || (prev != "" && name <= prev))
				print "BAD " $0
			prev = name
			if (name == ".cfa") cfa = r
			else if (name == ".ra") ra = r
			else if (name == "r7") fp7 = "fp=" r
			else if (name == "r11") fp11 = "fp=" r
		}
		if (i <= NF) {
			name = substr($i, 1, length($i) - 1)
			t = ""
		}
	}
}
END { flush() }
'

check_file() {	# name file chrome-check(0|1)
	name=$1
	f=$2
	chrome=$3
	if [ ! -r "$f" ] || ! command -v "$RE" >/dev/null 2>&1 ||
	   [ ! -x "$U" ]; then
		tap_skip "$name: EHABI to STACK CFI" "no $f, $RE or $U"
		return
	fi
	b=$tmp/$(basename "$f")
	load=$("$RE" -lW "$f" | awk '$1 == "LOAD" { print $3; exit }')
	load=${load:-0}
	fdes=$("$RE" -wF "$f" 2>/dev/null | grep -c ' FDE ')
	if ! "$U" convert --breakpad "$f" >"$b.sym" 2>"$b.err"; then
		sed 's/^/# /' "$b.err"
		tap_not_ok "$name: convert --breakpad from .ARM.exidx (failed)"
		return
	fi
	sed 's/^/# /' "$b.err"
	awk -v load="$load" "$STATE_AWK" "$b.sym" >"$b.st"
	funcs=$(grep -vc '^BAD' "$b.st")
	bad=$(grep -c '^BAD' "$b.st")
	if [ "$fdes" -eq 0 ] && [ "$funcs" -gt 0 ] && [ "$bad" -eq 0 ] &&
	   head -1 "$b.sym" | grep -q '^MODULE Linux arm '; then
		tap_ok "$name: convert --breakpad from .ARM.exidx ($funcs functions, well-formed)"
	else
		grep '^BAD' "$b.st" | head -5 | sed 's/^/# /'
		tap_not_ok "$name: convert --breakpad from .ARM.exidx ($fdes FDEs, $funcs functions, $bad malformed)"
	fi
	grep -v '^BAD' "$b.st" >"$b.fn"

	# FUNC symbols: "ADDR A|T" (as selftests/ehabi/readelf-diff.sh).
	"$RE" -Ws "$f" 2>/dev/null | awk '
		function hex(s,  i, v) { v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$4 == "FUNC" && $7 != "UND" { v = hex($2)
			printf "0x%x %s\n", v - v % 2, v % 2 ? "T" : "A" }' |
		sort -u >"$b.modes"

	# 2. uwind lookup at the body addresses.
	awk 'function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		NR == FNR { mode[$1] = $2; next }
		{
			s = hex($1); st = $4 " " $5
			last = s + $2 - 2
			first = $3 != "-" ? hex($3) : last
			if (last < first)
				next
			split(first == last ? first : first " " last, q, " ")
			for (i in q)
				printf "0x%x %s %s\n", q[i] + 1, st, $6
			# Even: the mode of the FUNC symbol, at the second
			# instruction (the end may be a literal pool, $d).
			if ($3 != "-" && ($1 in mode))
				printf "0x%x %s %s\n", first, st,
					mode[$1] == "T" ? $6 : $7
		}' "$b.modes" "$b.fn" >"$b.want"
	# shellcheck disable=SC2046
	"$U" lookup "$f" $(cut -d' ' -f1 "$b.want") >"$b.got" 2>&1
	q=$(wc -l <"$b.want")
	if [ "$q" -gt 0 ] && cmp -s "$b.want" "$b.got"; then
		tap_ok "$name: STACK CFI body state = uwind lookup ($q queries)"
	else
		diff "$b.want" "$b.got" | head -6 | sed 's/^/# /'
		tap_not_ok "$name: STACK CFI body state = uwind lookup ($q queries)"
	fi

	# 3. readelf -u's opcodes, read by rules.awk.
	"$RE" -u "$f" >"$b.ru" 2>/dev/null
	awk -f "$RULES" "$b.modes" "$b.ru" >"$b.rules"
	res=$(awk '
		function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		FILENAME == ARGV[1] { mode[$1] = $2; next }
		FILENAME == ARGV[2] { fn[hex($1)] = $0; next }
		{
			a = hex($1); odd = a % 2; a -= odd
			seen[a] = 1
			if ($2 == "skip") { skipped++; next }
			have = a in fn
			if ($2 == "cantunwind" || $2 == "refuse" || $2 == "error") {
				if (odd) { none++; if (have) { bad++; print "# records for a " $2 " entry: " $1 } }
				next
			}
			if (!have) { if (odd) { bad++; print "# no records for " $1 } ; next }
			split(fn[a], g, " ")
			# fp: r7 for ADDR|1; for ADDR, as the FUNC symbol says.
			k = sprintf("0x%x", a)
			if (odd)
				fp = g[6]
			else if (!(k in mode))
				fp = "fp=?"
			else
				fp = mode[k] == "T" ? g[6] : g[7]
			got = g[4] " " g[5] " " fp
			want = $2 " " $3 " " $4
			if (got != want) { bad++; if (bad <= 5) print "# " $1 " readelf: " want " / records: " got }
			if (odd) checked++
		}
		END {
			for (a in fn)
				if (!(a in seen)) { bad++; print "# records for no entry: " fn[a] }
			print "RESULT", checked + 0, none + 0, skipped + 0, bad + 0
		}' \
		"$b.modes" "$b.fn" "$b.rules")
	echo "$res" | grep '^#'
	# shellcheck disable=SC2046
	set -- $(echo "$res" | grep '^RESULT')
	if [ "$5" -eq 0 ] && [ "$2" -gt 0 ]; then
		tap_ok "$name: STACK CFI = readelf -u's opcodes ($2 entries, $3 without records, $4 skipped)"
	else
		tap_not_ok "$name: STACK CFI = readelf -u's opcodes ($5 differ)"
	fi

	# 4. The Chrome table made from the records.
	[ "$chrome" = 1 ] || return
	thumb=
	case $f in *thumb*) thumb=--thumb ;; esac
	if ! "$U" convert --chrome "$b.sym" -o "$b.chrome" 2>"$b.cerr"; then
		sed 's/^/# /' "$b.cerr"
		tap_not_ok "$name: convert --chrome of the records"
		return
	fi
	# A CFA loaded from the stack has no Chrome form: refused.
	awk '$1 ~ /[02468ace]$/ {
		print $1, ($2 ~ /^cfa=\[/ ? "refuse" : $2 " " $3) }' \
		"$b.want" >"$b.cwant"
	# shellcheck disable=SC2046
	"$U" lookup --chrome "$b.chrome" --text "$load" $thumb \
		$(cut -d' ' -f1 "$b.cwant") | sed 's/ fp=.*//' >"$b.cgot"
	q=$(wc -l <"$b.cwant")
	if [ "$q" -gt 0 ] && cmp -s "$b.cwant" "$b.cgot"; then
		tap_ok "$name: Chrome table from the records = uwind lookup ($q body addresses)"
	else
		diff "$b.cwant" "$b.cgot" | head -6 | sed 's/^/# /'
		tap_not_ok "$name: Chrome table from the records = uwind lookup ($q body addresses)"
	fi
}

for m in arm thumb; do
	check_file "prog-$m" "$D/prog-$m" 1
done
for m in arm thumb; do
	check_file "selfunwind-$m (static)" "$D/selfunwind-$m" 1
done
check_file "armhf libc.so.6" /usr/arm-linux-gnueabihf/lib/libc.so.6 1

tap_end
