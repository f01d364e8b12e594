#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind sframe`: SFrame tables made from DWARF CFI, checked at every pc
# of every executable section (sfverify, which looks rows up through the
# core's uw_sframe_find) against independent oracles:
#   - libdw's reading of the CFI (dwarf_cfi_addrframe), both sides
#     evaluated on made-up registers and memory: same CFA, return
#     address and frame pointer, or no table row at all where SFrame
#     cannot say the rule (and then exactly the bytes `--check` reports
#     left out);
#   - `readelf --debug-dump=frames-interp`'s rows (a second decoder);
#   - for programs built with -Wa,--gsframe, the assembler's own .sframe
#     wherever both tables have a row (RA signing included).
# Files: Debian's libc.so.6, libstdc++.so.6, ld.so and python3.11, the
# AArch64 cross libc, ld.so and libstdc++, programs built here (the diff
# stage's sources with -Wa,--gsframe, x86-64 and AArch64, with and
# without pointer authentication; the stock-built crash program), and
# hand-written CFI (src/rules-*.S) with rows SFrame cannot express, which
# must be left out, not approximated, and rows only FLEX FDEs express.
# AArch64 PLT rows (no CFI: made from the stub code) are checked against
# objdump's disassembly.  Also: the table file's header (the layout in
# scripts/uwind/README.md) against readelf's build-id and the raw section.
#
# With "quick" (the ASan stage: the sanitized tool and verifier run
# three times slower), the readelf oracle and the two largest files are
# left out; the TAP plan comes last.
#
# usage: sfconv.sh BUILD_DIR [quick]
set -u
O=${1:-build}
QUICK=${2:-}
UWIND=$O/uwind
SFV=$O/selftests/sfconv/sfverify
SRC=selftests/sfconv/src
DSRC=selftests/diff/src
A64=/usr/aarch64-linux-gnu/lib
W=$O/selftests/sfconv/work
mkdir -p "$W"
: >"$W/build.log"
. selftests/common/tap.sh

# A field of sfverify's summary line: field FILE NAME.
field()
{
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

# A number from the --check report: report FILE KEY (first number).
report()
{
	awk -v k="$2:" '$1 == k { print $2; exit }' "$1"
}

# sfverify KIND on the file $f and table $t: oracle NAME KIND LABEL.
# Prints its summary; true when it passed and compared rows.
oracle()
{
	"$SFV" "$2" "$f" "$t" >"$W/$1.$2" 2>&1
	rc=$?
	tail -1 "$W/$1.$2" | sed "s/^/# $1: $3: /"
	[ $rc -eq 0 ] && [ "$(field "$W/$1.$2" compared)" -gt 0 ] && return 0
	sed 's/^/# /' "$W/$1.$2" | head -20
	return 1
}

# The per-pc checks of one file.  verify NAME FILE FPREG [gas]
verify()
{
	name=$1 f=$2 fpreg=$3 gas=${4:-}
	t=$W/$name.uwsf
	if ! "$UWIND" sframe "$f" -o "$t" 2>"$W/$name.err" ||
	   ! "$UWIND" sframe --check "$f" >"$W/$name.check" 2>>"$W/$name.err"
	then
		sed 's/^/# /' "$W/$name.err"
		tap_result 1 "$name: uwind sframe"
		tap_result 1 "$name: = libdw at every pc"
		tap_result 1 "$name: = readelf at every pc"
		[ -n "$gas" ] && tap_result 1 "$name: = the assembler's .sframe"
		return
	fi
	grep -E '^(fdes|text-bytes|described|left-out|no-cfi|table):' \
		"$W/$name.check" | sed "s/^/# $name: /"

	left=$(report "$W/$name.check" left-out)
	oracle "$name" dwarf libdw &&
		[ "$(field "$W/$name.dwarf" dwarf-only)" = "$left" ]
	tap_result $? "$name: every table row = libdw's, no row only where $left bytes are reported left out"
	if [ -z "$QUICK" ]; then
		readelf --debug-dump=frames-interp "$f" 2>/dev/null |
			awk -v fp="$fpreg" -f selftests/sfconv/readelf.awk \
			>"$W/$name.in"
		oracle "$name" rows readelf <"$W/$name.in"
		tap_result $? "$name: every table row = readelf's frames-interp row"
	fi
	[ -n "$gas" ] || return 0
	oracle "$name" gas gas
	tap_result $? "$name: = the assembler's .sframe wherever both have a row"
}

# Build a program here and verify it: vbuild NAME FPREG GAS CC FLAGS...
# (GAS "gas": it has the assembler's .sframe, compare with it too).
vbuild()
{
	name=$1 fpreg=$2 gas=$3 cc=$4
	shift 4
	if "$cc" "$@" -o "$W/$name" >>"$W/build.log" 2>&1; then
		verify "$name" "$W/$name" "$fpreg" "$gas"
	else
		tail -5 "$W/build.log" | sed 's/^/# /'
		tap_result 1 "$name: build"
	fi
}

tap_begin

# ---- Debian's files.
BIG="/usr/bin/python3.11 $A64/libstdc++.so.6"
[ -n "$QUICK" ] && BIG=
for f in /lib/x86_64-linux-gnu/libc.so.6 \
	 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
	 /lib64/ld-linux-x86-64.so.2 $A64/libc.so.6 $A64/ld-linux-aarch64.so.1 \
	 $BIG; do
	case $f in
	$A64/*) verify "a64-$(basename "$f")" "$f" x29 ;;
	*) verify "deb-$(basename "$f")" "$f" rbp ;;
	esac
done

# The AArch64 PLT (no CFI): rows made from the stubs, checked against
# objdump's disassembly of them (plt.awk says which rows it implies).
check_plt()
{
	name=$1 f=$2
	aarch64-linux-gnu-objdump -d -j .plt "$f" |
		awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(":", "", a)
			sub(/^ */, "", a); i = $3 " " $4
			sub(/[ \t]*(<|\/\/).*$/, "", i)  # no symbols, comments
			print "0x" a "\t" i }' >"$W/$name.plt.dis"
	awk -f selftests/sfconv/plt.awk "$W/$name.plt.dis" >"$W/$name.plt.want"
	rc=$?
	cut -d' ' -f1 "$W/$name.plt.want" |
		xargs "$UWIND" lookup "$W/$name.uwsf" >"$W/$name.plt.got" 2>&1
	[ $rc -eq 0 ] && [ -s "$W/$name.plt.want" ] &&
		cmp -s "$W/$name.plt.want" "$W/$name.plt.got"
	rc=$?
	[ $rc -ne 0 ] && diff "$W/$name.plt.want" "$W/$name.plt.got" |
		head | sed 's/^/# /'
	tap_result $rc "$name: PLT rows ($(wc -l <"$W/$name.plt.want") stub instructions) = what objdump's disassembly of the stubs implies"
}
check_plt a64-libc.so.6 "$A64/libc.so.6"
[ -n "$BIG" ] && check_plt a64-libstdc++.so.6 "$A64/libstdc++.so.6"
# A PLT made for branch target identification, as Debian 13's arm64
# libraries have it (bti c before PLT0's push): a library built here.
vbuild bti-aarch64.so x29 "" aarch64-linux-gnu-gcc -O2 -fPIC -shared \
	-mbranch-protection=standard -Wl,-z,force-bti "$DSRC/lib.c"
check_plt bti-aarch64.so "$W/bti-aarch64.so"

# ---- Programs built here.
X86="-O2 -fomit-frame-pointer -Wa,--gsframe"
A64="-O2 -Wa,--gsframe"
for s in frames many; do
	vbuild "$s-x86_64-O2" rbp gas gcc $X86 "$DSRC/$s.c"
	vbuild "$s-aarch64-O2" x29 gas aarch64-linux-gnu-gcc $A64 "$DSRC/$s.c"
done
vbuild frames-x86_64-O0 rbp gas gcc -O0 -Wa,--gsframe "$DSRC/frames.c"
vbuild frames-aarch64-pac x29 gas aarch64-linux-gnu-gcc $A64 \
	-mbranch-protection=standard "$DSRC/frames.c"
vbuild lib-x86_64-O2.so rbp gas gcc $X86 -fPIC -shared "$DSRC/lib.c"
verify crash-x86_64-stock "$O/selftests/sfconv/crash" rbp
# The kernel's vDSO, as this process has it mapped.
if "$O/selftests/sfconv/crash" vdso >"$W/vdso.so"; then
	verify vdso-x86_64 "$W/vdso.so" rbp
else
	tap_result 1 "vdso-x86_64: cannot read the vDSO"
fi

# ---- Hand-written CFI: expressed, FLEX, or left out.
vbuild rules-x86_64 rbp "" gcc -O2 "$SRC/rules-main.c" "$SRC/rules-x86_64.S"
p=$W/rules-x86_64
"$UWIND" sframe --check -v "$p" >"$W/rules-x86_64.v" 2>&1
# Each left-out range lies in the function built for its reason, and the
# table has no row there.
nm "$p" | awk '$3 ~ /^r_/ { print "0x" $1, $3 }' | sort >"$W/rules-x86_64.syms"
check_gaps()
{
	awk 'NR == FNR { a[FNR] = $1; s[FNR] = $2; ns = FNR; next }
	/^left-out 0x/ { split($2, r, "-"); print r[1], $3 }' \
		"$1.syms" "$1.v" >"$1.gaps"
	# Function of each gap's start (the last symbol at or below it).
	while read -r start reason; do
		fn=$(awk -v x="$start" 'function h(s,  i, v) { s = tolower(s);
			sub(/^0x/, "", s); v = 0; for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1;
			return v }
			h($1) <= h(x) { f = $2 } END { print f }' "$1.syms")
		echo "$fn $reason $("$UWIND" lookup "$2" "$start" | cut -d' ' -f2)"
	done <"$1.gaps"
}
got=$(check_gaps "$W/rules-x86_64" "$W/rules-x86_64.uwsf" | sort | tr '\n' ' ')
want="r_fpundef fp-rule none r_loadadd cfa-rule none r_raval ra-rule none r_sigframe signal-frame none "
[ "$got" = "$want" ]
rc=$?
[ $rc -ne 0 ] && echo "# got: $got" && echo "# want: $want"
tap_result $rc "rules-x86_64: 'load then add' CFA, val_offset RA, undefined FP: left out, with no table row; a signal frame left to the walker"
"$UWIND" dump "$W/rules-x86_64.uwsf" >"$W/rules-x86_64.dump"
flex=$(grep -c 'flex' "$W/rules-x86_64.dump")
grep -q 'SFRAME_VERSION_3' "$W/rules-x86_64.dump" && [ "$flex" -ge 2 ] &&
	grep -q '\[fp-8\] *\[fp+0\]' "$W/rules-x86_64.dump" &&
	grep -q 'r10+0' "$W/rules-x86_64.dump" &&
	grep -q '\[sp+8\] *$' "$W/rules-x86_64.dump"
tap_result $? "rules-x86_64: DRAP (CFA r10+0, then [fp-8] with FP at [fp+0]) and RA at [sp+8] in V3 FLEX FDEs ($flex)"

vbuild rules-aarch64 x29 "" aarch64-linux-gnu-gcc -O2 "$SRC/rules-main.c" \
	"$SRC/rules-aarch64.S"
p=$W/rules-aarch64
"$UWIND" sframe --check -v "$p" >"$W/rules-aarch64.v" 2>&1
nm "$p" | awk '$3 ~ /^r_/ { print "0x" $1, $3 }' | sort >"$W/rules-aarch64.syms"
got=$(check_gaps "$W/rules-aarch64" "$W/rules-aarch64.uwsf" | sort | tr '\n' ' ')
"$UWIND" dump "$W/rules-aarch64.uwsf" >"$W/rules-aarch64.dump"
[ "$got" = "r_loadadd cfa-rule none " ] &&
	grep -q 'sp+16 *c-16 *lr *$' "$W/rules-aarch64.dump" &&
	grep -q 'sp+0 *u *r1 *$' "$W/rules-aarch64.dump" &&
	[ "$(grep -c 'lr\[s\]\|c-8\[s\]' "$W/rules-aarch64.dump")" -eq 3 ]
rc=$?
[ $rc -ne 0 ] && echo "# gaps: $got" && grep -A8 'pc = ' "$W/rules-aarch64.dump" | sed 's/^/# /' | head -60
tap_result $rc "rules-aarch64: 'load then add' left out; FP without RA and RA in x1 as FLEX; signed RA rows marked"

# ---- The table file.
f=/lib/x86_64-linux-gnu/libc.so.6
t=$W/deb-libc.so.6.uwsf
"$UWIND" sframe "$f" --raw -o "$W/libc.raw"
id=$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')
hdr=$(od -An -tx1 -N128 -v "$t" | tr -d ' \n')
size=$(wc -c <"$W/libc.raw")
le32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
	$((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
idlen=$(printf '%02x' $((${#id} / 2)))
[ "$(echo "$hdr" | cut -c1-16)" = "$(printf UWSFRAME | od -An -tx1 | tr -d ' \n')" ] &&
	[ "$(echo "$hdr" | cut -c17-32)" = "010080003e00${idlen}00" ] &&
	[ "$(echo "$hdr" | cut -c33-48)" = "0000000000000000" ] &&
	[ "$(echo "$hdr" | cut -c81-88)" = "$(le32 "$size")" ] &&
	[ "$(echo "$hdr" | cut -c129-$((128 + ${#id})))" = "$id" ] &&
	[ "$(wc -c <"$t")" -eq $((128 + size)) ]
tap_result $? "table file: magic, version, header size, EM_X86_64, build-id ($id) as readelf -n, vaddr 0, section size"
tail -c +129 "$t" | cmp -s - "$W/libc.raw" &&
	a=$("$UWIND" lookup "$t" 0x27280 0x27296 2>&1) &&
	b=$("$UWIND" lookup --sframe "$W/libc.raw" --vaddr 0 0x27280 0x27296 2>&1) &&
	[ "$a" = "$b" ] && [ -n "$a" ] && ! echo "$a" | grep -q none
tap_result $? "table file: its section = the --raw output; uwind lookup reads both alike"
tap_end
