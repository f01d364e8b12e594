#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The converter's memory on a huge library: libLLVM-14 (4.8 MB of
# .eh_frame, some 95,000 FDEs), installed the way `uwind agent` and
# `uwind sframe --install` make a table (sg_convert's SG_TABLE_ONLY, one
# FDE's rows at a time).  Its peak resident size (GNU time's maximum RSS:
# heap, libraries and the pages of the file it reads) stays within a small
# multiple of the table made, and the table is keyed to the file:
# libLLVM's .eh_frame has the x86-64 psABI's section type
# SHT_X86_64_UNWIND, not SHT_PROGBITS, and its check range is the one
# readelf shows.  The report mode (uwind sframe FILE -o) makes the same
# section.
#
# usage: memory.sh BUILD_DIR
set -u
O=${1:-build}
UWIND=$(cd "$O" && pwd)/uwind
. selftests/common/tap.sh
tap_scratch
D=$TMP/tables
LLVM=/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
MULT=8		# the bound: peak RSS <= MULT x the table

u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }

tap_begin 4

if [ "$(uname -m)" != x86_64 ] || [ ! -f "$LLVM" ] || [ ! -x /usr/bin/time ]; then
	for i in 1 2 3 4; do
		tap_result 1 "libLLVM-14 and GNU time (scripts/deps.sh installs llvm-14 and time) on an x86-64 host"
	done
	exit 0
fi

set -- $(readelf -SW "$LLVM" | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".eh_frame" { print $2, $4, $5 }')
type=${1:-?} off=$((0x${2:-0})) size=$((0x${3:-0}))
/usr/bin/time -f '%M' -o "$TMP/rss" \
	"$UWIND" sframe --install --dir "$D" "$LLVM" > "$TMP/out" 2>&1
rc=$?
t=$(awk '$1 == "installed" { print $3 }' "$TMP/out")
[ $rc -eq 0 ] && [ -n "$t" ] && [ -f "$t" ]
tap_result $? "libLLVM-14 installed (.eh_frame: $type, $size bytes)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out"
[ -f "${t:-/}" ] || t=/dev/null

[ "$type" = X86_64_UNWIND ] && [ "$(u64 "$t" 48)" = "$off" ] &&
	[ "$(u32 "$t" 56)" = "$size" ]
tap_result $? "its table is checked against the SHT_X86_64_UNWIND .eh_frame readelf shows (offset $off, $size bytes; the header says $(u64 "$t" 48), $(u32 "$t" 56))"

rss=$(tail -n 1 "$TMP/rss")
tb=$(wc -c < "$t")
[ "${rss:-0}" -gt 0 ] && [ "$tb" -gt 0 ] &&
	[ $((rss * 1024)) -le $((MULT * tb)) ]
tap_result $? "converting it: peak RSS ${rss:-?} kB for a table of $tb bytes ($(awk -v a="${rss:-0}" -v b="$tb" 'BEGIN { if (b) printf "%.1f", a * 1024 / b }')x, <= ${MULT}x)"

"$UWIND" sframe "$LLVM" -o "$TMP/report.uwsf" > /dev/null 2>&1 &&
	cmp -s "$TMP/report.uwsf" "$t"
tap_result $? "uwind sframe -o (which also measures coverage) makes the same table"
