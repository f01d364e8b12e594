#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Seed corpora of fuzz_compact and fuzz_breakpad:
#   compact:  the __unwind_info of every Mach-O test file (extracted
#             with llvm-objcopy-14), and seeds-compact/*.hex;
#   breakpad: the .sym files `uwind convert --breakpad` writes for the
#             chain programs and a Mach-O test file, and
#             seeds-breakpad/*.sym.
# Each input is the target's 16-byte header, the table, then an image
# (the file's first 4 KiB for Mach-O, so a frameless-indirect "sub" is
# there; 512 stack bytes for Breakpad).
#
# Usage: mkcorpus-fmt.sh OUT_COMPACT OUT_BREAKPAD UWIND DYLIB_DIR STACK_DIR
set -eu

oc=$1 ob=$2 uwind=$3 dylibs=$4 stack=$5
src=$(dirname "$0")
rm -rf "$oc" "$ob"
mkdir -p "$oc" "$ob"

# "printf" escapes of n little-endian bytes of v.
le()
{
	v=$1 i=0 s=""
	while [ $i -lt "$2" ]; do
		s="$s$(printf '\\%03o' $(((v >> (8 * i)) & 255)))"
		i=$((i + 1))
	done
	echo "$s"
}

hex2bin()
{
	fmt=$(sed 's/#.*//' "$1" | tr -s ' \t' '\n\n' | grep . | awk '
		BEGIN { for (i = 0; i < 16; i++) d[substr("0123456789abcdef", i + 1, 1)] = i }
		{ t = tolower($0); printf "\\%03o", d[substr(t, 1, 1)] * 16 + d[substr(t, 2, 1)] }')
	# shellcheck disable=SC2059
	printf "$fmt"
}

for f in "$dylibs"/*.dylib; do
	b=$(basename "$f" .dylib)
	case $b in
	*arm64*) a=2 ;;
	fat) continue ;;
	*) a=0 ;;
	esac
	llvm-objcopy-14 --dump-section "__TEXT,__unwind_info=$oc/$b.ui" "$f"
	n=$(wc -c <"$oc/$b.ui")
	[ "$n" -lt 65536 ] || continue
	# shellcheck disable=SC2059
	{ printf "$(le $a 1)$(le "$n" 2)\\000"
	  printf '\020\040\060\100\120\140\160\200\005\040\001\007'
	  cat "$oc/$b.ui"
	  head -c 4096 "$f"; } >"$oc/$b"
	rm -f "$oc/$b.ui"
done
for h in "$src"/seeds-compact/*.hex; do
	hex2bin "$h" >"$oc/$(basename "$h" .hex)"
done

sym()
{
	n=$(wc -c <"$1")
	# shellcheck disable=SC2059
	{ printf "$(le 0 1)$(le "$n" 3)"
	  printf '\010\020\030\040\050\060\070\100\110\120\001\002'
	  cat "$1"
	  head -c 512 /dev/zero | tr '\0' '\100'; } >"$2"
}

tmp=$ob.tmp
mkdir -p "$tmp"
"$uwind" convert --breakpad "$stack/chain" >"$tmp/chain.sym"
"$uwind" convert --breakpad "$stack/chain-a64" | head -c 60000 \
	>"$tmp/chain-a64.sym"
"$uwind" convert --breakpad "$dylibs/funcs-x86_64-nofp.dylib" \
	>"$tmp/macho.sym" 2>/dev/null
for s in "$tmp"/*.sym "$src"/seeds-breakpad/*.sym; do
	sym "$s" "$ob/$(basename "$s" .sym)"
done
rm -rf "$tmp"
