#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# SFrame tables of relocatable objects (gcc -c -Wa,--gsframe): FDE starts
# left to .rela.sframe, the FDE_SORTED flag clear.  Objects for x86-64
# and AArch64 with several functions (frames.c, many.c; unsorted-*.s,
# whose FDEs gas writes out of address order) and with one (one.c).  No
# assembler here writes FDE_FUNC_START_PCREL (binutils 2.40 makes V1):
# pcrel-x86_64.s is unsorted-x86_64.s's code with hand-written V2 and V3
# PCREL tables (32- and 64-bit relocations), checked against the object
# gas makes of unsorted-x86_64.s where objdump 2.40 reads no V2 or V3.
# For each object:
#   (a) `uwind dump` = `objdump --sframe`, FRE starts counted from their
#       FDE's (objdump 2.40 does not apply the relocations: every FDE
#       starts at 0 there);
#   (b) every FDE starts where its relocation points (readelf -r: symbol
#       plus addend, in relocation order) and is a function symbol of the
#       object with the same start and size (nm -S);
#   (c) linked into a program, at every byte of each function (but those
#       overlapping another FDE: other text sections also start at 0),
#       `uwind lookup` on the object gives the rule it gives on the
#       program at the function's address there.
# For pcrel-*: (a) the dump has gas's rows, (c) the lookups gas's
# object answers.
#
# usage: objfile.sh [BUILD_DIR]
set -u
O=${1:-build}
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/dumpcmp.sh"
W=$O/selftests/diff/objfile

rm -rf "$W"
mkdir -p "$W"

# NAME ARCH SOURCE LINK COMPILE-FLAGS...: one object per line.  LINK:
# the link flags (commas for spaces), or ref:NAME for an object checked
# against object NAME (listed before it) instead of objdump and a link.
G=-Wa,--gsframe
cat >"$W/list" <<EOF
frames-x86_64-O2 x86_64 frames.c - $G -O2 -fomit-frame-pointer
frames-x86_64-O0 x86_64 frames.c - $G -O0
many-x86_64-O2 x86_64 many.c - $G -O2 -fomit-frame-pointer
unsorted-x86_64 x86_64 unsorted-x86_64.s -nostdlib,-static,-e,uns_a $G
one-x86_64 x86_64 one.c -nostdlib,-static,-e,one $G -O2
pcrel-v2-x86_64 x86_64 pcrel-x86_64.s ref:unsorted-x86_64 -I$SRC
pcrel-v3-x86_64 x86_64 pcrel-x86_64.s ref:unsorted-x86_64 -I$SRC -Wa,--defsym,V3=1
frames-aarch64-O2 aarch64 frames.c - $G -O2
frames-aarch64-O2-pac aarch64 frames.c - $G -O2 -mbranch-protection=standard
many-aarch64-O2 aarch64 many.c - $G -O2
unsorted-aarch64 aarch64 unsorted-aarch64.s -nostdlib,-static,-e,uns_a $G
one-aarch64 aarch64 one.c -nostdlib,-static,-e,one $G -O2
EOF

tap_begin $((3 * $(wc -l <"$W/list")))

# uwind's FDEs as "START SIZE", in table order.
fde_list()
{
	awk '/func idx \[/ { pc = $6; sub(/,$/, "", pc);
		sub(/^0x0*/, "", pc); print (pc == "" ? "0" : pc), $9 }' "$b.uw"
}

# (b) FDE starts against the relocations and the symbol table.
start_test()
{
	fde_list >"$b.fdes"
	# "Offset Info Type Sym.Value Sym.Name + Addend": target = value +
	# addend, in offset order (the FDE index is in table order).
	"$re" -rW "$obj" | awk '/^Relocation section .\.rela\.sframe/ { on = 1; next }
		/^Relocation section/ { on = 0 } on && $1 ~ /^[0-9a-f]+$/ {
		add = $(NF - 1) ~ /^[-+]$/ ? $(NF - 1) " " $NF : "+ 0"
		print $1, $4, add }' | sort >"$b.rel"
	while read -r off value sign addend; do
		printf '%x\n' $((0x$value $sign 0x$addend))
	done <"$b.rel" >"$b.targets"
	"$nm" -S --defined-only "$obj" | awk 'NF == 4 && $3 ~ /^[tTW]$/ {
		v = $1; sub(/^0*/, "", v); s = $2; sub(/^0*/, "", s)
		print (v == "" ? "0" : v), s }' | sort -u >"$b.syms"
	bad=0
	if ! cut -d' ' -f1 "$b.fdes" | cmp -s - "$b.targets"; then
		echo "# FDE starts: $(cut -d' ' -f1 "$b.fdes" | tr '\n' ' ')"
		echo "# relocation targets: $(tr '\n' ' ' <"$b.targets")"
		bad=1
	fi
	# Sizes are decimal in the dump, hex in nm.
	while read -r start size; do
		grep -qx "$start $(printf '%x' "$size")" "$b.syms" || {
			echo "# FDE 0x$start, $size bytes: no such function symbol"
			bad=1; }
	done <"$b.fdes"
	n=$(wc -l <"$b.fdes")
	tap_result $bad "$name: the $n FDE starts are the relocations' targets and function symbols"
}

# (a) for a hand-written table: its PCREL flag, and gas's rows.
ref_dump_test()
{
	"$TOOL" dump "$obj" >"$b.uw" 2>"$b.uw.err"
	rc=$?
	"$TOOL" dump "$ref" >"$b.ref.uw" 2>&1
	for f in "$b.uw" "$b.ref.uw"; do
		awk -v src=uwind -v arch="$arch" -v rel=1 -f "$HERE/hex.awk" \
			-f "$HERE/sframe_norm.awk" "$f" >"$f.n"
	done
	if [ "$rc" -ne 0 ] ||
	   ! grep -q '^    Flags: SFRAME_F_FDE_FUNC_START_PCREL$' "$b.uw"; then
		sed 's/^/# /' "$b.uw.err" "$b.uw" | head -10
		tap_not_ok "$name: uwind dump shows a PCREL table"
	elif cmp -s "$b.uw.n" "$b.ref.uw.n"; then
		tap_ok "$name: uwind dump of the PCREL table = gas's V1 rows ($(grep -c '^R ' "$b.uw.n") FREs)"
	else
		diff "$b.ref.uw.n" "$b.uw.n" | head -20 | sed 's/^/# /'
		tap_not_ok "$name: uwind dump differs from gas's V1 rows"
	fi
}

# (c) lookups on the object against lookups on the linked program (or on
# the reference object).
lookup_test()
{
	link=$(echo "$lflags" | tr ',' ' ')
	[ "$link" = - ] && link=
	against="the program"
	# shellcheck disable=SC2086
	if [ -n "$ref" ]; then
		against="gas's object"
		cp "$ref" "$b.prog"
	elif ! "$cc" $link -o "$b.prog" "$obj" >"$b.ld.err" 2>&1; then
		sed 's/^/# /' "$b.ld.err" | head -5
		tap_not_ok "$name: link the object"
		return
	fi
	"$nm" -S --defined-only "$obj" >"$b.osyms"
	"$nm" --defined-only "$b.prog" >"$b.psyms"
	awk -f "$HERE/hex.awk" -f "$HERE/objmap.awk" "$b.fdes" "$b.osyms" \
		"$b.psyms" >"$b.map"
	grep '^#' "$b.map"
	grep -v '^#' "$b.map" >"$b.funcs"
	nf=$(wc -l <"$b.funcs")
	: >"$b.oaddr"
	: >"$b.paddr"
	awk -v o="$b.oaddr" -v p="$b.paddr" '{ for (k = 0; k < $3; k++) {
		printf "0x%x\n", $1 + k >o; printf "0x%x\n", $2 + k >p } }' \
		"$b.funcs"
	xargs "$TOOL" lookup "$obj" <"$b.oaddr" >"$b.ol" 2>"$b.ol.err"
	xargs "$TOOL" lookup "$b.prog" <"$b.paddr" >"$b.pl" 2>"$b.pl.err"
	cut -d' ' -f2- "$b.ol" >"$b.or"
	cut -d' ' -f2- "$b.pl" >"$b.pr"
	q=$(wc -l <"$b.oaddr")
	if [ "$nf" -lt 1 ] || [ "$q" -eq 0 ]; then
		tap_not_ok "$name: no function to look up"
	elif [ "$(wc -l <"$b.or")" -ne "$q" ] || grep -q 'none\|error' "$b.or"; then
		grep 'none\|error' "$b.ol" | head -5 | sed 's/^/# /'
		sed 's/^/# /' "$b.ol.err" | head -5
		tap_not_ok "$name: uwind lookup on the object answers every byte of its functions"
	elif cmp -s "$b.or" "$b.pr"; then
		tap_ok "$name: lookup on the object = on $against ($nf functions, $q addresses)"
	else
		paste "$b.ol" "$b.pl" | awk -F'\t' '{ o = $1; p = $2
			sub(/^[^ ]+ /, "", o); sub(/^[^ ]+ /, "", p)
			if (o != p) print "# " $1 " | " $2 }' | head -10
		tap_not_ok "$name: lookup on the object differs from the program"
	fi
}

while read -r name arch src lflags flags; do
	case $arch in
	x86_64) cc=gcc re=readelf nm=nm ;;
	aarch64) cc=aarch64-linux-gnu-gcc re=aarch64-linux-gnu-readelf
		nm=aarch64-linux-gnu-nm ;;
	esac
	b=$W/$name
	obj=$b.o
	ref=
	case $lflags in ref:*) ref=$W/${lflags#ref:}.o ;; esac
	# shellcheck disable=SC2086
	if ! command -v "$cc" >/dev/null 2>&1 ||
	   ! "$cc" -c $flags -o "$obj" "$SRC/$src" >"$b.cc.err" 2>&1; then
		sed 's/^/# /' "$b.cc.err" 2>/dev/null | head -5
		tap_not_ok "$name: dump (no object: $cc)"
		tap_not_ok "$name: FDE starts (no object)"
		tap_not_ok "$name: lookups (no object)"
		continue
	fi
	if [ -n "$ref" ]; then
		ref_dump_test
	else
		sframe_dump_test "$b" "$name" "$arch" "$obj" rel
	fi
	start_test
	lookup_test
done <"$W/list"
tap_end
