#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Compact unwind on Mach-O files built here (clang-14 -target
# {x86_64,arm64}-apple-macos11, ld64.lld-14 -dylib): selftests/compact/
# src/funcs.c with and without frame pointers, and gen.sh's 2200
# functions (three second-level pages, a full common palette and local
# ones), per architecture.
#
#   - `uwind dump` lists the same entries (function offset, encoding), in
#     the same order, as llvm-objdump-14 --macho --unwind-info;
#   - `uwind lookup` in the middle of every entry gives the rule its
#     encoding implies, decoded here from the bits with shell arithmetic:
#     the CFA (x86-64 frameless-indirect: the immediate of the "subq
#     $N, %rsp" llvm-objdump -d shows at the encoded offset, plus the
#     adjustment), the return address, and how many registers are
#     restored;
#   - a universal file: --arch picks each slice (same dump as the thin
#     file), no --arch or a missing slice is an error naming the slices;
#   - `uwind convert --breakpad` on each file, then `uwind lookup
#     --breakpad` on the result gives the compact lookup's rules;
#   - `uwind verify` (uw_cu_check) passes every file, each slice of the
#     universal one, with llvm-objdump's page count; a page of the wrong
#     kind, entries out of order and a common encoding of a reserved
#     mode are refused at the page and entry at fault, and the lookup
#     fails there too;
#   - truncated and corrupted files: an error, never a crash.
#
# usage: macho.sh UWIND DIR   (DIR: the dylibs make built)
set -u

UWIND=$1
D=$2
OBJDUMP=llvm-objdump-14
. selftests/common/tap.sh
tap_scratch
tap_begin 38

FILES="funcs-x86_64-nofp funcs-x86_64-fp funcs-arm64-nofp funcs-arm64-fp
gen-x86_64 gen-arm64"

# "0xFO 0xENC" per entry, in order.
objdump_entries()
{
	$OBJDUMP --macho --unwind-info "$1" |
		sed -n 's/.*function offset=\(0x[0-9a-f]*\), encoding[^=]*=\(0x[0-9a-f]*\).*/\1 \2/p'
}

uwind_entries()
{
	sed -n 's/^    fo=\(0x[0-9a-f]*\) enc=\(0x[0-9a-f]*\) .*/\1 \2/p' "$1"
}

# x86-64: "address imm" of every subq $imm, %rsp.
subq_map()
{
	$OBJDUMP -d "$1" | awk '/subq\t\$[0-9]+, %rsp/ {
		a = $1; sub(/:$/, "", a)
		for (i = 2; i <= NF; i++)
			if ($i ~ /^\$[0-9]+,$/) { v = $i; gsub(/[$,]/, "", v) }
		print a, v }'
}

popcount()
{
	v=$1 c=0
	while [ "$v" -ne 0 ]; do
		c=$((c + (v & 1)))
		v=$((v >> 1))
	done
	echo $c
}

# The rule an encoding implies: "cfa=... ra=... NREGS" (or none, dwarf).
expect()
{
	arch=$1 fo=$2 enc=$3 map=$4
	mode=$(((enc >> 24) & 15))
	case "$arch.$mode" in
	*.0) echo "none" ;;
	x86_64.4|arm64.3) printf 'dwarf eh_frame+0x%x\n' $((enc & 0xffffff)) ;;
	x86_64.1)
		s=0 k=0
		while [ $k -lt 5 ]; do
			[ $(((enc >> (3 * k)) & 7)) -ne 0 ] && s=$((s + 1))
			k=$((k + 1))
		done
		echo "cfa=fp+16 ra=c-8 $((s + 1))" ;;
	x86_64.2)
		echo "cfa=sp+$((((enc >> 16) & 255) * 8)) ra=c-8 $(((enc >> 10) & 7))" ;;
	x86_64.3)
		at=$(printf '%x' $((fo + ((enc >> 16) & 255) - 3)))
		imm=$(awk -v a="$at" '$1 == a { print $2 }' "$map")
		[ -n "$imm" ] || imm=missing
		echo "cfa=sp+$((imm + ((enc >> 13) & 7) * 8)) ra=c-8 $(((enc >> 10) & 7))" ;;
	arm64.2)
		echo "cfa=sp+$((((enc >> 12) & 4095) * 16)) ra=lr $((2 * $(popcount $((enc & 0xf1f)))))" ;;
	arm64.4)
		echo "cfa=fp+16 ra=c-8 $((1 + 2 * $(popcount $((enc & 0xf1f)))))" ;;
	*) echo "bad mode $mode" ;;
	esac
}

# A lookup line reduced the same way: rules, and registers at CFA+N.
reduce()
{
	awk '{ if ($2 == "none" || $2 == "dwarf") { $1 = ""; sub(/^ /, ""); print; next }
		c = 0
		for (i = 4; i <= NF; i++) if ($i ~ /=c[-+]/) c++
		print $2, $3, c }'
}

for f in $FILES; do
	arch=${f#*-}
	arch=${arch%-*}
	file=$D/$f.dylib
	"$UWIND" dump "$file" >"$TMP/$f.dump" 2>"$TMP/err"
	rc=$?
	objdump_entries "$file" >"$TMP/$f.od"
	uwind_entries "$TMP/$f.dump" >"$TMP/$f.uw"
	cnt=$(wc -l <"$TMP/$f.od")
	[ $rc -eq 0 ] && [ "$cnt" -gt 0 ] && cmp -s "$TMP/$f.od" "$TMP/$f.uw"
	tap_result $? "$f: dump lists llvm-objdump's $cnt entries (function offset, encoding) in order"

	# One lookup in the middle of every entry that has bytes.
	[ "$arch" = x86_64 ] && subq_map "$file" >"$TMP/$f.subq"
	awk '/^    fo=/ { split($1, a, "="); split($3, s, "=");
		if (s[2] > 0) print a[2], s[2] }' "$TMP/$f.dump" |
		while read -r fo size; do
			printf '0x%x\n' $((fo + size / 2))
		done >"$TMP/$f.pcs"
	# shellcheck disable=SC2046
	"$UWIND" lookup "$file" $(cat "$TMP/$f.pcs") | reduce >"$TMP/$f.got"
	awk '/^    fo=/ { split($1, a, "="); split($2, e, "="); split($3, s, "=");
		if (s[2] > 0) print a[2], e[2] }' "$TMP/$f.dump" |
		while read -r fo enc; do
			expect "$arch" $((fo)) $((enc)) "$TMP/$f.subq"
		done >"$TMP/$f.want"
	bad=$(paste -d'|' "$TMP/$f.want" "$TMP/$f.got" |
	      awk -F'|' '$1 != $2' | head -3)
	[ -s "$TMP/$f.want" ] && [ -z "$bad" ] &&
		[ "$(wc -l <"$TMP/$f.want")" -eq "$(wc -l <"$TMP/$f.got")" ]
	tap_result $? "$f: lookup inside each of $(wc -l <"$TMP/$f.want") entries gives the rule its encoding implies"
	[ -n "$bad" ] && echo "$bad" | sed 's/^/# want|got: /'

	# Breakpad from the same file: the same rules, by the Breakpad path.
	"$UWIND" convert --breakpad "$file" >"$TMP/$f.sym" 2>/dev/null
	awk '/^STACK CFI INIT/ { printf "0x%s\n", $4 }' "$TMP/$f.sym" \
		>"$TMP/$f.bpcs"
	# shellcheck disable=SC2046
	"$UWIND" lookup --breakpad "$TMP/$f.sym" $(cat "$TMP/$f.bpcs") |
		awk '{ print $2, $3, $4 }' >"$TMP/$f.bp"
	# shellcheck disable=SC2046
	"$UWIND" lookup "$file" $(cat "$TMP/$f.bpcs") |
		awk '{ print $2, $3, $4 }' >"$TMP/$f.cu"
	[ -s "$TMP/$f.bp" ] && cmp -s "$TMP/$f.bp" "$TMP/$f.cu"
	tap_result $? "$f: convert --breakpad, then lookup --breakpad: the compact rules ($(wc -l <"$TMP/$f.bp") records)"
done

# What the files cover (else the comparisons above prove little).
grep -q ' 0x03' "$TMP/funcs-x86_64-nofp.od" &&
	grep -q ' 0x02' "$TMP/funcs-x86_64-nofp.od" &&
	grep -q ' 0x01' "$TMP/funcs-x86_64-fp.od" &&
	grep -q ' 0x00000000' "$TMP/funcs-x86_64-nofp.od"
tap_result $? "x86-64 files hold frame, frameless, frameless-indirect and encoding-0 entries"
grep -q ' 0x02' "$TMP/funcs-arm64-fp.od" &&
	grep -q ' 0x04' "$TMP/funcs-arm64-fp.od" &&
	grep -q ' 0x03' "$TMP/funcs-arm64-nofp.od"
tap_result $? "arm64 files hold frameless, frame and DWARF-mode entries"
for a in x86_64 arm64; do
	pages=$(grep -c '^  page ' "$TMP/gen-$a.dump")
	[ "$pages" -ge 2 ]
	tap_result $? "gen-$a: several second-level pages ($pages)"
done
$OBJDUMP --macho --unwind-info "$D/gen-x86_64.dylib" | grep -q 'Page encodings: (count = [1-9]'
tap_result $? "gen-x86_64: compressed pages with their own encodings (local palettes)"

# ---- universal file
FAT=$D/fat.dylib
"$UWIND" dump "$FAT" --arch x86_64 >"$TMP/fat64" 2>&1 &&
	cmp -s "$TMP/fat64" "$TMP/funcs-x86_64-nofp.dump"
tap_result $? "fat: dump --arch x86_64 is the x86_64 file's dump"
"$UWIND" dump --arch arm64 "$FAT" >"$TMP/fata" 2>&1 &&
	cmp -s "$TMP/fata" "$TMP/funcs-arm64-fp.dump"
tap_result $? "fat: dump --arch arm64 is the arm64 file's dump"
pc=$(head -n 1 "$TMP/funcs-arm64-fp.pcs")
[ "$("$UWIND" lookup "$FAT" --arch arm64 "$pc")" = \
  "$("$UWIND" lookup "$D/funcs-arm64-fp.dylib" "$pc")" ]
tap_result $? "fat: lookup --arch arm64 as on the thin file"
"$UWIND" dump "$FAT" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'x86_64 arm64' "$TMP/err"
tap_result $? "fat without --arch: exit 1, the slices named"
"$UWIND" dump "$FAT" --arch i386 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'no i386 slice' "$TMP/err"
tap_result $? "fat --arch i386: no such slice, exit 1"
"$UWIND" dump "$D/funcs-x86_64-fp.dylib" --arch arm64 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'not arm64' "$TMP/err"
tap_result $? "thin x86_64 file with --arch arm64: exit 1"
"$UWIND" convert --breakpad "$FAT" --arch arm64 >"$TMP/fat.sym" 2>/dev/null &&
	head -n 1 "$TMP/fat.sym" | grep -q '^MODULE mac arm64 [0-9A-F]\{33\} fat.dylib$'
tap_result $? "convert --breakpad --arch arm64: MODULE mac arm64 UUID0 fat.dylib"

# ---- uwind verify: the whole-table check
bad=0
for f in $FILES; do
	pages=$(($($OBJDUMP --macho --unwind-info "$D/$f.dylib" |
		   sed -n 's/.*Number of indices in array: *//p') - 1))
	ents=$(objdump_entries "$D/$f.dylib" | wc -l)
	out=$("$UWIND" verify "$D/$f.dylib")
	rc=$?
	echo "$out" | sed 's/^/# /'
	[ $rc -eq 0 ] && [ $pages -ge 1 ] &&
		echo "$out" | grep -q ": ok ($pages pages, $ents entries," ||
		bad=1
done
tap_result $bad "verify: every file passes, with llvm-objdump's page and entry counts"
out=$("$UWIND" verify "$FAT") &&
	[ "$(echo "$out" | grep -c ': ok (')" -eq 2 ] &&
	echo "$out" | grep -q '(arm64): ok' &&
	[ "$("$UWIND" verify --arch arm64 "$FAT" | grep -c ': ok (')" -eq 1 ]
tap_result $? "verify fat: both slices without --arch, one with --arch arm64"

# Broken copies of funcs-x86_64-nofp: one compressed page at pg, its
# entries 12 bytes in, the common encodings at 28 (section offsets).
NOFP=$D/funcs-x86_64-nofp.dylib
$OBJDUMP --macho --unwind-info "$NOFP" >"$TMP/nofp.od"
sec=$(($($OBJDUMP --macho --section-headers "$NOFP" |
	 awk '$2 == "__unwind_info" { print "0x" $4 }')))
pg=$(($(sed -n 's/.*Second level index\[0\]: offset in section=\(0x[0-9a-f]*\).*/\1/p' "$TMP/nofp.od")))
lo=$(sed -n 's/.*\[0\]: function offset=0x0*\([0-9a-f]*\), 2nd.*/\1/p' "$TMP/nofp.od")
entry() {
	sed -n "s/^ *\\[$1\\]: function offset=\\(0x[0-9a-f]*\\), enc.*/\\1/p" "$TMP/nofp.od"
}
# put FILE OFFSET OCTAL-ESCAPES: a copy of NOFP with bytes replaced
put() {
	cp "$NOFP" "$1"
	# shellcheck disable=SC2059
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# refused FILE PATTERN ADDR DESC: verify exits 1 saying PATTERN, and a
# lookup at ADDR fails too
refused() {
	out=$("$UWIND" verify "$1")
	rc=$?
	echo "# $out"
	[ $rc -eq 1 ] && echo "$out" | grep -q "$2" &&
		"$UWIND" lookup "$1" "$3" | grep -q "error"
	tap_result $? "$4"
}
put "$TMP/kind" $((sec + pg)) '\007'
refused "$TMP/kind" \
	"page 0 (functions 0x$lo-0x[0-9a-f]*), its header or entry 0: malformed table entry" \
	"$(entry 0)" "verify: page kind 7 refused at page 0 (lookup fails too)"
# entry 3 moved to the page's start + 0x10, before entry 2
put "$TMP/order" $((sec + pg + 12 + 12)) '\020\000\000'
refused "$TMP/order" "page 0 (.*), entry 2: table not sorted" "$(entry 2)" \
	"verify: compressed entries out of order refused at entry 2 (lookup at it fails too)"
# common encoding 3 (entry 6's) given the reserved mode 5
put "$TMP/mode" $((sec + 28 + 12)) '\000\000\000\005'
refused "$TMP/mode" "entry 6 (encoding 0x05000000): malformed table entry" \
	"$(entry 6)" \
	"verify: a common encoding of reserved mode 5 refused at entry 6 (lookup at it fails too)"

# ---- hostile files: an error or an answer, never a crash.
crashed()
{
	[ "$1" -ge 128 ] || grep -q -e Sanitizer -e 'runtime error' "$2"
}

SRC=$D/funcs-x86_64-nofp.dylib
size=$(wc -c <"$SRC")
bad=0
for cut in 4 31 32 100 400 1000 $((size / 2)) $((size - 1)); do
	head -c "$cut" "$SRC" >"$TMP/t"
	for cmd in dump lookup convert; do
		case $cmd in
		dump) "$UWIND" dump "$TMP/t" ;;
		lookup) "$UWIND" lookup "$TMP/t" 0x500 0x540 ;;
		convert) "$UWIND" convert --breakpad "$TMP/t" ;;
		esac >/dev/null 2>"$TMP/err"
		rc=$?
		if crashed $rc "$TMP/err"; then
			echo "# truncated at $cut: $cmd: rc $rc"
			bad=1
		fi
	done
done
tap_result $bad "truncated Mach-O files: errors, no crash"

bad=0
cp "$SRC" "$TMP/c"
uoff=$($OBJDUMP --macho --section-headers "$SRC" 2>/dev/null |
       awk '$2 == "__unwind_info" { print $4 }' | head -n 1)
for off in 16 20 36 40 64 72 100 $((0x$uoff)) $((0x$uoff + 4)) \
	   $((0x$uoff + 8)) $((0x$uoff + 20)) $((0x$uoff + 24)) \
	   $((0x$uoff + 40)) $((0x$uoff + 60)) $((0x$uoff + 64)); do
	printf '\377\377\377\177' |
		dd of="$TMP/c" bs=1 seek="$off" conv=notrunc 2>/dev/null
	"$UWIND" dump "$TMP/c" >/dev/null 2>"$TMP/err"
	rc=$?
	crashed $rc "$TMP/err" && bad=1
	"$UWIND" lookup "$TMP/c" 0x500 0x520 0x560 >/dev/null 2>"$TMP/err"
	rc=$?
	crashed $rc "$TMP/err" && bad=1
	[ $bad -eq 1 ] && { echo "# corrupted at $off: rc $rc"; break; }
done
tap_result $bad "corrupted load commands and __unwind_info: no crash"

head -c 4096 /dev/urandom >"$TMP/r"
printf '\317\372\355\376' | dd of="$TMP/r" bs=1 conv=notrunc 2>/dev/null
"$UWIND" dump "$TMP/r" >/dev/null 2>"$TMP/err"
rc=$?
! crashed $rc "$TMP/err" && [ $rc -ne 0 ]
tap_result $? "random bytes behind a Mach-O magic: an error"

tap_end
