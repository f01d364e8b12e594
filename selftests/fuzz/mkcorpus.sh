#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Build the fuzz seed corpus into OUTDIR:
#   - the hand-written seeds/*.hex, converted to binary;
#   - seeds made by MKSEED from the .sframe sections of seedprog.c built
#     here for x86-64 (gcc -O2 -fomit-frame-pointer -Wa,--gsframe) and
#     AArch64 (aarch64-linux-gnu-gcc -O2 -Wa,--gsframe), extracted with
#     objcopy -O binary --only-section=.sframe.
#
# Usage: mkcorpus.sh OUTDIR MKSEED
set -eu

out=$1
mkseed=$2
src=$(dirname "$0")
tmp=$out.tmp
rm -rf "$out" "$tmp"
mkdir -p "$out" "$tmp"

# Hex text (with # comments) to bytes.
for h in "$src"/seeds/*.hex; do
	fmt=$(sed 's/#.*//' "$h" | tr -s ' \t' '\n\n' | grep . | awk '
		BEGIN { for (i = 0; i < 16; i++) d[substr("0123456789abcdef", i + 1, 1)] = i }
		{ t = tolower($0); printf "\\%03o", d[substr(t, 1, 1)] * 16 + d[substr(t, 2, 1)] }')
	# shellcheck disable=SC2059
	printf "$fmt" >"$out/$(basename "$h" .hex)"
done

# name  compiler-prefix  extra flags
for t in "x86-64||-fomit-frame-pointer" "aarch64|aarch64-linux-gnu-|"; do
	name=${t%%|*}
	rest=${t#*|}
	prefix=${rest%%|*}
	flags=${rest#*|}
	exe=$tmp/seedprog-$name
	# shellcheck disable=SC2086
	"${prefix}gcc" -O2 $flags -Wa,--gsframe -o "$exe" "$src/seedprog.c"
	"${prefix}objcopy" -O binary --only-section=.sframe "$exe" "$exe.sframe"
	[ -s "$exe.sframe" ] || { echo "$exe: no .sframe" >&2; exit 1; }
	addr=$("${prefix}readelf" -SW "$exe" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".sframe" { print "0x" $3 }')
	[ -n "$addr" ] || { echo "$exe: no .sframe address" >&2; exit 1; }
	# pcs: function starts and a few bytes in, for the text symbols
	pcs=$("${prefix}nm" "$exe" | awk '$2 ~ /^[tT]$/ { print "0x" $1 }' |
		head -8)
	pcs2=$(for p in $pcs; do printf '0x%x\n' $((p + 6)); done)
	# shellcheck disable=SC2086
	"$mkseed" "$out/real-$name" "$exe.sframe" "$addr" $pcs $pcs2
done
rm -rf "$tmp"
