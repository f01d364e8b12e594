#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Re-encode the V1 .sframe sections of sample programs built here (this
# machine's binutils emits V1) as V2, V2 PCREL, V3, V3 FLEX and, for
# AArch64, big-endian, and check that every variant answers every lookup
# like the original:
#   - sframe_cmp compares uw_sframe_find on both tables at every byte of
#     every function (and a few bytes around each);
#   - when the uwind tool supports `lookup --sframe RAW --vaddr ADDR`, its
#     output lines for the same addresses must be identical too.
#
# Usage: sh selftests/sframe/reencode.sh [BUILD_DIR]   (prints TAP)
set -u
. "$(dirname "$0")/../common/tap.sh"

O=${1:-build}
HERE=$(dirname "$0")
BIN=$O/selftests/sframe
W=$O/selftests/sframe/reencode
TOOL=$O/uwind

tap_begin

for b in sframe_reencode sframe_cmp; do
	if [ ! -x "$BIN/$b" ]; then
		tap_not_ok "$BIN/$b is built (run make first)"
		tap_end
		exit 1
	fi
done

rm -rf "$W"
mkdir -p "$W"

# Does the tool exist and support `lookup --sframe`?  Probe with a real
# table later; remember the answer here.
have_tool=no

# Print the address of section .sframe in ELF file $2, read with $1.
sframe_vaddr() {
	"$1" -SW "$2" | awk '{
		for (i = 1; i < NF; i++)
			if ($i == ".sframe") { print "0x" $(i + 2); exit }
	}'
}

# lookups FILE VADDR PCS OUT: run the tool on every address of PCS.
lookups() {
	xargs -n 2000 "$TOOL" lookup --sframe "$1" --vaddr "$2" <"$3" >"$4" \
		2>"$4.err"
}

# check NAME RAW VADDR OBJCOPY-ARCH-FLAGS VARIANTS...
check_program() {
	name=$1 raw=$2 vaddr=$3
	shift 3
	pcs=$W/$name.pcs
	"$BIN/sframe_cmp" --pcs "$raw" "$vaddr" >"$pcs" 2>"$W/$name.pcs.err"
	npcs=$(wc -l <"$pcs")
	if [ "$npcs" -lt 1000 ]; then
		tap_not_ok "$name: the V1 table yields lookup addresses ($npcs)"
		return
	fi
	if [ "$have_tool" = probe ]; then
		have_tool=no
		line=$(head -1 "$pcs" | xargs "$TOOL" lookup --sframe "$raw" \
			--vaddr "$vaddr" 2>/dev/null | head -1)
		case $line in
		0x*cfa=*|0x*" none") have_tool=yes ;;
		esac
	fi
	if [ "$have_tool" = yes ]; then
		lookups "$raw" "$vaddr" "$pcs" "$W/$name.v1.lookup"
	fi
	for v in "$@"; do
		case $v in
		be-*) form=${v#be-} flags=--be ;;
		*) form=$v flags= ;;
		esac
		out=$W/$name.$v.sframe
		# shellcheck disable=SC2086
		if ! "$BIN/sframe_reencode" $flags --vaddr "$vaddr" --to "$form" \
			"$raw" "$out" 2>"$out.err"; then
			tap_not_ok "$name: re-encode as $v ($(cat "$out.err"))"
			continue
		fi
		if "$BIN/sframe_cmp" "$raw" "$vaddr" "$out" "$vaddr" \
			>"$out.cmp" 2>&1; then
			tap_ok "$name: $v answers like V1 ($(sed -n \
				's/.*: \([0-9]*\) lookups.*/\1/p' "$out.cmp") lookups)"
		else
			sed 's/^/# /' "$out.cmp" | head -30
			tap_not_ok "$name: $v answers like V1"
		fi
		if [ "$have_tool" = yes ]; then
			lookups "$out" "$vaddr" "$pcs" "$out.lookup"
			if [ -s "$out.lookup" ] &&
			   cmp -s "$W/$name.v1.lookup" "$out.lookup"; then
				tap_ok "$name: uwind lookup --sframe on $v prints the V1 lines ($npcs addresses)"
			else
				diff "$W/$name.v1.lookup" "$out.lookup" |
					head -20 | sed 's/^/# /'
				tap_not_ok "$name: uwind lookup --sframe on $v prints the V1 lines"
			fi
		else
			tap_skip "$name: uwind lookup --sframe on $v" \
				"$TOOL lookup --sframe not available yet"
		fi
	done

	# The comparison is not vacuous: one changed data byte is noticed.
	out=$W/$name.v2.sframe
	bad=$W/$name.corrupt.sframe
	if [ -f "$out" ]; then
		size=$(wc -c <"$out")
		last=$(od -An -tu1 -j $((size - 1)) -N1 "$out" | tr -d ' ')
		new=$(( (last + 8) % 256 ))
		cp "$out" "$bad"
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' "$new")" |
			dd of="$bad" bs=1 seek=$((size - 1)) conv=notrunc \
			2>/dev/null
		if "$BIN/sframe_cmp" "$raw" "$vaddr" "$bad" "$vaddr" \
			>"$bad.cmp" 2>&1; then
			tap_not_ok "$name: a corrupted V2 table is noticed"
		else
			tap_ok "$name: a corrupted V2 table is noticed"
		fi
	fi
}

# build NAME CC OBJCOPY READELF CFLAGS...
build_program() {
	name=$1 cc=$2 objcopy=$3 readelf=$4
	shift 4
	if ! command -v "$cc" >/dev/null 2>&1; then
		tap_skip "$name: build" "$cc not installed (scripts/deps.sh)"
		return 1
	fi
	# shellcheck disable=SC2086
	if ! "$cc" "$@" -Wa,--gsframe -o "$W/$name" "$HERE"/samples/*.c \
		2>"$W/$name.build.err"; then
		sed 's/^/# /' "$W/$name.build.err" | head -20
		tap_not_ok "$name: build with $cc $*"
		return 1
	fi
	vaddr=$(sframe_vaddr "$readelf" "$W/$name")
	if [ -z "$vaddr" ] ||
	   ! "$objcopy" -O binary --only-section=.sframe "$W/$name" \
		"$W/$name.v1.sframe"; then
		tap_not_ok "$name: extract .sframe"
		return 1
	fi
	tap_ok "$name: built with $cc $*, .sframe at $vaddr"
	echo "$vaddr" >"$W/$name.vaddr"
	return 0
}

[ -x "$TOOL" ] && have_tool=probe

if build_program x86_64-omitfp gcc objcopy readelf -O2 -fomit-frame-pointer
then
	check_program x86_64-omitfp "$W/x86_64-omitfp.v1.sframe" \
		"$(cat "$W/x86_64-omitfp.vaddr")" v1 v2 v2pcrel v3 v3flex
fi
if build_program x86_64-fp gcc objcopy readelf -O2 -fno-omit-frame-pointer
then
	check_program x86_64-fp "$W/x86_64-fp.v1.sframe" \
		"$(cat "$W/x86_64-fp.vaddr")" v2 v3 v3flex
fi
if build_program aarch64 aarch64-linux-gnu-gcc aarch64-linux-gnu-objcopy \
	aarch64-linux-gnu-readelf -O2
then
	check_program aarch64 "$W/aarch64.v1.sframe" \
		"$(cat "$W/aarch64.vaddr")" v1 v2 v2pcrel v3 v3flex \
		be-v1 be-v2 be-v2pcrel be-v3 be-v3flex
fi

tap_end
