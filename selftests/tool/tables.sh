#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# What the tool reads besides plain programs: the table files `uwind
# sframe -o` writes (`verify` checks them as `dump` and `lookup` read
# them), relocatable objects (their CFI is relocated only by the linker:
# `sframe` and `convert` refuse them, rather than make a table of wrong
# addresses), and addresses, which are hex as addr2line reads them,
# "0x" or not (nm's zero-padded ones included), anything else refused.
#
# usage: tables.sh BUILD_DIR
. selftests/tool/lib.sh

tap_begin 15

# ---- table files
"$UWIND" sframe "$P" -o "$TMP/t.uwsf" 2>"$TMP/err"
tail -c +129 "$TMP/t.uwsf" >"$TMP/t.raw"
"$UWIND" verify --sframe "$TMP/t.raw" --vaddr 0 >"$TMP/raw.out"
want=$(sed 's/^[^:]*: [^:]*: //' "$TMP/raw.out")
"$UWIND" verify "$TMP/t.uwsf" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ -n "$want" ] && grep -q "^$TMP/t.uwsf: .*: $want\$" "$TMP/out"
tap_result $? "verify on a table file: ok, as the same section raw ($want)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out" "$TMP/err"

# The FRE count cut to 1: the FDEs claim more (the section's own check).
cp "$TMP/t.uwsf" "$TMP/fres.uwsf"
printf '\001\000\000\000' | dd of="$TMP/fres.uwsf" bs=1 conv=notrunc \
	seek=$((128 + 12)) 2>/dev/null
"$UWIND" verify "$TMP/fres.uwsf" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q "FDE [0-9]*: malformed table entry" "$TMP/out"
tap_result $? "verify on a table file whose section counts too few FREs: refused at an FDE, exit 1"

# The header's e_machine says AArch64 (183): not what the section is for.
cp "$TMP/t.uwsf" "$TMP/mach.uwsf"
printf '\267\000' | dd of="$TMP/mach.uwsf" bs=1 conv=notrunc seek=12 2>/dev/null
"$UWIND" verify "$TMP/mach.uwsf" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -qi "machine" "$TMP/out"
tap_result $? "verify on a table file whose header names another machine: refused, exit 1"

# Cut short: the header's size is not the file's.
head -c 300 "$TMP/t.uwsf" >"$TMP/short.uwsf"
"$UWIND" verify "$TMP/short.uwsf" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q "^uwind: $TMP/short.uwsf: .*truncated" "$TMP/out"
tap_result $? "verify on a truncated table file: refused as truncated, exit 1"

# ---- relocatable objects: .rela.eh_frame
readelf -rW "$BIN/target.o" | grep -q "'.rela.eh_frame'"
tap_result $? "target.o has .rela.eh_frame (and main in .text.startup)"
for c in "sframe $BIN/target.o -o $TMP/o.uwsf" "sframe --check $BIN/target.o" \
	 "convert --breakpad $BIN/target.o"; do
	# shellcheck disable=SC2086
	"$UWIND" $c >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -e "$TMP/o.uwsf" ] &&
		grep -q "^uwind: $BIN/target.o: .*relocatable" "$TMP/err"
	tap_result $? "uwind ${c%% *} on an object file: refused (relocations), exit 1"
	[ $rc -eq 1 ] || sed 's/^/# /' "$TMP/out" "$TMP/err" | head -n 5
done

# ---- addresses: hex, as addr2line reads them
line=$(nm "$P" | awk '$3 == "cmp"')
set -- $line
nmaddr=$1
short=$(printf '%x' "0x$nmaddr")
"$UWIND" lookup "$P" "0x$short" >"$TMP/want" 2>&1
"$UWIND" lookup "$P" "$nmaddr" >"$TMP/nm" 2>&1
[ "$(cut -d' ' -f1 "$TMP/nm")" = "0x$short" ] && cmp -s "$TMP/want" "$TMP/nm"
tap_result $? "lookup of cmp at nm's address $nmaddr (zero-padded): hex, as 0x$short"
"$UWIND" lookup "$P" "$short" >"$TMP/bare" 2>&1
cmp -s "$TMP/want" "$TMP/bare"
tap_result $? "lookup of $short (no 0x): hex, as 0x$short"
"$UWIND" lookup "$P" "0X$short" "0x000$short" >"$TMP/two" 2>&1
[ "$(sort -u "$TMP/two")" = "$(cat "$TMP/want")" ]
tap_result $? "0X$short and 0x000$short: the same address"

bad=0
for a in 12g -1 +5 0x "" " 10" 0x1_0 10000000000000000 1.5 0x-1 0xx1; do
	"$UWIND" lookup "$P" "0x$short" "$a" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 2 ] || [ -s "$TMP/out" ] ||
	   ! grep -q "^uwind: lookup: .*'$a'" "$TMP/err"; then
		echo "# address '$a': exit $rc, $(cat "$TMP/out" "$TMP/err")"
		bad=1
	fi
done
[ $bad -eq 0 ]
tap_result $? "addresses that are not hex (12g, -1, +5, 0x, empty, ' 10', 17 digits...): refused before any output, exit 2"

objcopy -O binary --only-section=.sframe "$P" "$TMP/sec"
vaddr=$(readelf -SW "$P" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".sframe" { print $3 }')
"$UWIND" lookup --sframe "$TMP/sec" --vaddr "0x$vaddr" "0x$short" >"$TMP/raw1" 2>&1
"$UWIND" lookup --sframe "$TMP/sec" --vaddr "$vaddr" "$short" >"$TMP/raw2" 2>&1
[ -n "$vaddr" ] && cmp -s "$TMP/raw1" "$TMP/raw2" && cmp -s "$TMP/want" "$TMP/raw1"
tap_result $? "--vaddr $vaddr without 0x: hex too, the raw section answers as the file"

"$UWIND" convert --breakpad "$P" >"$TMP/t.sym"
load=$(readelf -lW "$P" | awk '$1 == "LOAD" { print $3; exit }')
rel=$(printf '%x' $((0x$short - load)))
"$UWIND" lookup --breakpad "$TMP/t.sym" "0x$rel" >"$TMP/bp1" 2>&1
"$UWIND" lookup --breakpad "$TMP/t.sym" "$rel" >"$TMP/bp2" 2>&1
[ "$(cut -d' ' -f1 "$TMP/bp2")" = "0x$rel" ] && cmp -s "$TMP/bp1" "$TMP/bp2" &&
	grep -q ' cfa=' "$TMP/bp1"
tap_result $? "lookup --breakpad $rel (Breakpad addresses are hex): as 0x$rel"
"$UWIND" lookup --breakpad "$TMP/t.sym" --base 1000 "$(printf '%x' $((0x$rel + 0x1000)))" >"$TMP/bp3" 2>&1
[ "$(cut -d' ' -f2- "$TMP/bp3")" = "$(cut -d' ' -f2- "$TMP/bp1")" ]
tap_result $? "--base 1000: hex too"
tap_end
