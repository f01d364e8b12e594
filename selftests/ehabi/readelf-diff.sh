#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind dump` and `uwind lookup` on ARM ELF files against binutils'
# `arm-linux-gnueabihf-readelf -u`.
#
# Files: ARM and Thumb-2 programs built here from src/ (big locals,
# alloca, recursion, varargs, all callee-saved registers, VFP registers,
# a cleanup that gets a generic-model entry) in six flavours, and
# Debian's armhf libc.so.6, libm.so.6 and libstdc++.so.6.
#
# 1. dump: both outputs normalised by norm.awk to one line per entry
#    (function address, entry kind with personality or extab address,
#    opcode bytes) must be equal.  readelf only decodes generic-model
#    opcodes when the personality routine has a __gcc/__gxx_personality_v0
#    symbol; stripped libraries do not, so readelf reads a copy with such
#    symbols added (objcopy --add-symbol) at every unnamed personality.
# 2. lookup: rules.awk reads readelf's opcode text on its own and derives
#    the rule at each entry's first instruction; `uwind lookup` at ADDR|1
#    and at ADDR must print it.
#
#   sh selftests/ehabi/readelf-diff.sh [O]
set -u
. "$(dirname "$0")/../common/tap.sh"

O=${1:-build}
TOOL=$O/uwind
HERE=selftests/ehabi
W=$O/selftests/ehabi/work
LIBDIR=/usr/arm-linux-gnueabihf/lib
CC=arm-linux-gnueabihf-gcc
READELF=arm-linux-gnueabihf-readelf
OBJCOPY=arm-linux-gnueabihf-objcopy


tap_begin
if ! command -v $CC >/dev/null || ! command -v $READELF >/dev/null ||
   [ ! -x "$TOOL" ]; then
	tap_skip "readelf differential" "no $CC, $READELF or $TOOL"
	tap_end
	exit 0
fi
rm -rf "$W"
mkdir -p "$W"

FLAVOURS="arm:-marm thumb:-mthumb arm-fp:-marm,-fno-omit-frame-pointer
thumb-fp:-mthumb,-fno-omit-frame-pointer arm-O0:-marm,-O0 thumb-Os:-mthumb,-Os"
files=""
for fl in $FLAVOURS; do
	name=${fl%%:*}
	flags=$(echo "${fl#*:}" | tr , ' ')
	# shellcheck disable=SC2086
	if $CC -O2 -funwind-tables -fexceptions -mfpu=vfpv3-d16 \
	       -mfloat-abi=hard $flags -o "$W/prog-$name" $HERE/src/*.c \
	       2>"$W/prog-$name.err"; then
		files="$files $W/prog-$name"
	else
		tap_not_ok "build prog-$name ($flags)"
		sed 's/^/# /' "$W/prog-$name.err"
	fi
done
for lib in libc.so.6 libm.so.6 libstdc++.so.6; do
	if [ -f "$LIBDIR/$lib" ]; then
		files="$files $LIBDIR/$lib"
	else
		tap_skip "$lib" "$LIBDIR/$lib not installed"
	fi
done

total_entries=0
total_queries=0
total_skipped=0
for f in $files; do
	b=$W/$(basename "$f")
	$READELF -u "$f" >"$b.ru" 2>"$b.rerr"
	# Unnamed (or misnamed) personality routines get a symbol readelf knows.
	syms=$(awk '/^  Personality routine: / && $0 !~ /<__(gcc|gxx)_personality_v0>$/ {
		print $3 }' "$b.ru" | sort -u)
	src=$f
	if [ -n "$syms" ]; then
		args=""
		i=0
		for s in $syms; do
			v=$(printf '0x%x' $(($s & ~1)))
			args="$args --add-symbol __gxx_personality_v0_uwind$i=$v,function,global"
			i=$((i + 1))
		done
		# shellcheck disable=SC2086
		if $OBJCOPY $args "$f" "$b.pers" 2>>"$b.rerr"; then
			src=$b.pers
			$READELF -u "$src" >"$b.ru" 2>>"$b.rerr"
		fi
	fi
	awk -f $HERE/norm.awk "$b.ru" >"$b.rn"
	"$TOOL" dump "$f" >"$b.ud" 2>"$b.uerr"
	rc=$?
	awk -f $HERE/norm.awk "$b.ud" >"$b.un"
	cnt=$(wc -l <"$b.rn")
	ops=$(awk '{ n += NF - 2 } END { print n + 0 }' "$b.rn")
	name=$(basename "$f")
	if [ "$cnt" -eq 0 ] && grep -q "no unwind sections" "$b.ru"; then
		# readelf finds no table: uwind must say the same.
		if [ ! -s "$b.un" ] && grep -q "no .ARM.exidx" "$b.uerr"; then
			tap_ok "$name: no unwind tables, for readelf and uwind"
		else
			tap_not_ok "$name: readelf finds no unwind table, uwind dump does"
		fi
		continue
	fi
	if [ "$rc" -eq 0 ] && cmp -s "$b.rn" "$b.un"; then
		tap_ok "$name: dump equals readelf -u ($cnt entries, $ops opcode bytes)"
	else
		tap_not_ok "$name: dump differs from readelf -u (rc $rc)"
		diff "$b.rn" "$b.un" | head -10 | sed 's/^/# /'
	fi
	total_entries=$((total_entries + cnt))

	# FUNC symbols: "ADDR A|T" (Thumb bit in the value).
	$READELF -Ws "$f" 2>/dev/null | awk '
		function hex(s,  i, v) { v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		$4 == "FUNC" && $7 != "UND" { v = hex($2)
			printf "0x%x %s\n", v - v % 2, v % 2 ? "T" : "A" }' >"$b.modes"
	awk -f $HERE/rules.awk "$b.modes" "$b.ru" >"$b.want"
	# shellcheck disable=SC2046
	"$TOOL" lookup "$f" $(awk '{ print $1 }' "$b.want") >"$b.got" 2>"$b.lerr"
	res=$(awk '
		FNR == NR { want[FNR] = $0; nw = FNR; next }
		{
			w = want[FNR]
			if (w ~ / skip$/) { skipped++; next }
			q++
			g = $0
			if (w ~ / fp=\?$/) { sub(/ fp=\?$/, "", w); sub(/ fp=.*/, "", g) }
			if (w ~ / error$/) sub(/ error .*/, " error", g)
			if (g != w) { bad++; if (bad <= 5) print "# want: " w "\n# got:  " $0 }
		}
		END {
			if (FNR != nw) { bad++; print "# " nw " queries, " FNR " answers" }
			print "RESULT", q + 0, skipped + 0, bad + 0
		}' "$b.want" "$b.got")
	echo "$res" | grep '^#'
	set -- $(echo "$res" | grep '^RESULT')
	total_queries=$(($total_queries + $2))
	total_skipped=$(($total_skipped + $3))
	if [ "$4" -eq 0 ] && [ "$2" -gt 0 ]; then
		tap_ok "$name: lookup gives the rule readelf's opcodes imply ($2 queries, $3 skipped)"
	else
		tap_not_ok "$name: lookup: $4 of $2 queries differ"
	fi
done
echo "# $total_entries entries compared, $total_queries lookups checked, $total_skipped skipped"
tap_end
