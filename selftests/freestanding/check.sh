#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Freestanding gate for the core (lib/): for x86-64, AArch64 and Cortex-M3
# Thumb, at -O2 and -Os, and the ARMv8-M Cortex-M33 (hard float) at -Os,
# compile every lib/*.c with -ffreestanding -nostdlib -Werror and check
# that
#   - the objects linked together (ld -r) leave no undefined symbol, so a
#     firmware can link the core alone (no memcpy/memset, no libgcc
#     helpers such as __aeabi_uldivmod or __udivdi3);
#   - no object has a non-empty .data, .bss or .data.rel* section;
#   - the worst-case stack of every public function (each non-static
#     function declared in include/uwind/*.h), from -fcallgraph-info=su,
#     stays under STACK_LIMIT bytes, with no recursion and no dynamic
#     frame.  A call through a pointer (the caller's memory accessor
#     cfg->mem.read) counts 0 bytes: the accessor's frame is the caller's.
# and, once, that lib/ and include/uwind/ include nothing but uwind's own
# headers and, in env.h only, <stdint.h> <stddef.h> <stdbool.h> (or the
# kernel's equivalents).
#
# Usage: check.sh [OUTDIR]   (default build/selftests/freestanding)
# Prints TAP.
set -u

cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-build}/selftests/freestanding
STACK_LIMIT=${STACK_LIMIT:-512}
# Functions allowed more than STACK_LIMIT, as "name=bytes": none.  The
# walker keeps its register set and decoder scratch in the caller's
# struct uw_cursor, so every entry point fits.
STACK_EXCEPT=${STACK_EXCEPT-""}
AWK=selftests/freestanding/stack.awk

# name  compiler-prefix  flags
TARGETS="
x86-64-O2	|	-O2
x86-64-Os	|	-Os
aarch64-O2	aarch64-linux-gnu-	-O2
aarch64-Os	aarch64-linux-gnu-	-Os
cortex-m3-O2	arm-none-eabi-	-O2 -mcpu=cortex-m3 -mthumb
cortex-m3-Os	arm-none-eabi-	-Os -mcpu=cortex-m3 -mthumb
cortex-m33-Os	arm-none-eabi-	-Os -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16
"
CFLAGS="-std=c11 -ffreestanding -nostdlib -Wall -Wextra -Werror -Iinclude
	-fno-tree-loop-distribute-patterns -fno-stack-protector
	-fstack-usage -fcallgraph-info=su"

srcs=$(ls lib/*.c)
ntargets=$(echo "$TARGETS" | grep -c .)
. selftests/common/tap.sh
tap_begin $((1 + 4 * ntargets))

# Public entry points: non-static functions declared in the API headers.
entries=$(cat include/uwind/*.h |
	grep -vE '^[[:space:]]*(static|typedef|#)' |
	grep -oE '^[A-Za-z_][A-Za-z0-9_ *]*[ *]uw_[a-z0-9_]+\(' |
	grep -oE 'uw_[a-z0-9_]+\($' | tr -d '(' | sort -u)

# --- includes ---------------------------------------------------------
bad=$(grep -nE '^[[:space:]]*#[[:space:]]*include' lib/*.c lib/*.h \
	include/uwind/*.h | while IFS= read -r line; do
	file=${line%%:*}
	inc=$(echo "$line" | sed -E 's/^[^#]*#[[:space:]]*include[[:space:]]*//')
	case "$inc" in
	'<uwind/'*'.h>')
		f=${inc#<}; f=${f%>}
		[ -f "include/$f" ] && continue ;;
	'"'*'.h"')
		f=${inc#\"}; f=${f%\"}
		[ -f "$(dirname "$file")/$f" ] && continue ;;
	'<stdint.h>'|'<stddef.h>'|'<stdbool.h>'|'<linux/types.h>'|'<linux/stddef.h>')
		[ "$file" = include/uwind/env.h ] && continue ;;
	esac
	echo "$line"
done)
if [ -z "$bad" ]; then
	tap_ok "lib/ and include/uwind/ include only uwind headers and, via env.h, stdint/stddef/stdbool"
else
	echo "$bad" | sed 's/^/# forbidden include: /'
	tap_not_ok "lib/ and include/uwind/ include only uwind headers and, via env.h, stdint/stddef/stdbool"
fi

# --- per target -------------------------------------------------------
echo "$TARGETS" | grep . | while IFS='	' read -r name prefix flags; do
	[ "$prefix" = "|" ] && prefix=
	cc=${prefix}gcc
	dir=$OUT/$name
	rm -rf "$dir"
	mkdir -p "$dir"

	# 1. compile
	cfail=0
	for s in $srcs; do
		o=$dir/$(basename "$s" .c).o
		# shellcheck disable=SC2086
		if ! "$cc" $CFLAGS $flags -c "$s" -o "$o" >"$dir/cc.log" 2>&1; then
			sed 's/^/# /' "$dir/cc.log"
			cfail=1
		fi
	done
	if [ $cfail -ne 0 ]; then
		tap_not_ok "$name: lib/*.c compile freestanding with $cc $flags"
		tap_not_ok "$name: no undefined symbols # not compiled"
		tap_not_ok "$name: no .data/.bss # not compiled"
		tap_not_ok "$name: worst-case stack < $STACK_LIMIT # not compiled"
		continue
	fi
	tap_ok "$name: lib/*.c compile freestanding with $cc $flags"
	objs=$(ls "$dir"/*.o)

	# 2. undefined symbols: the whole core, and per object those that
	# no other core object defines (the same set, shown per object).
	# shellcheck disable=SC2086
	if ! "${prefix}ld" -r -o "$dir/core.o" $objs 2>"$dir/ld.log"; then
		sed 's/^/# /' "$dir/ld.log"
		tap_not_ok "$name: ld -r of lib objects, nm -u empty # link failed"
	else
		und=$("${prefix}nm" -u "$dir/core.o")
		# shellcheck disable=SC2086
		defs=$("${prefix}nm" --defined-only $objs | awk 'NF == 3 { print $3 }')
		for o in $objs; do
			"${prefix}nm" -u "$o" | awk '{ print $2 }' | while read -r sym; do
				echo "$defs" | grep -qx "$sym" ||
					echo "# $(basename "$o"): undefined $sym"
			done
		done
		if [ -z "$und" ]; then
			tap_ok "$name: ld -r of lib objects, nm -u empty"
		else
			echo "$und" | sed 's/^/# core.o: /'
			tap_not_ok "$name: ld -r of lib objects, nm -u empty"
		fi
	fi

	# 3. writable data
	# shellcheck disable=SC2086
	data=$(for o in $objs; do
		"${prefix}readelf" -SW "$o" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk -v o="$(basename "$o")" '
			$1 ~ /^\.(data|bss|tdata|tbss)/ && $5 !~ /^0+$/ {
				print "# " o ": " $1 " size 0x" $5
			}'
	done)
	if [ -z "$data" ]; then
		tap_ok "$name: no non-empty .data/.bss/.data.rel* section"
	else
		echo "$data"
		tap_not_ok "$name: no non-empty .data/.bss/.data.rel* section"
	fi

	# 4. stack
	# shellcheck disable=SC2086
	res=$(cat "$dir"/*.ci | awk -v entries="$(echo $entries)" -f "$AWK")
	echo "# target function bytes limit (deepest path; * = call through the memory accessor, counted 0)"
	echo "$res" | awk -v t="$name" -v lim="$STACK_LIMIT" -v exc="$STACK_EXCEPT" '
		BEGIN {
			n = split(exc, e, " ")
			for (i = 1; i <= n; i++) {
				split(e[i], kv, "=")
				limit[kv[1]] = kv[2] + 0
			}
		}
		{
			l = ($1 in limit) ? limit[$1] : lim
			st = $3 == "ok" ? "" : "  " $3
			flag = ($3 != "ok" || $2 >= l) ? "  FAIL" : ""
			printf "# %s %s %d %d  %s%s%s\n", t, $1, $2, l, $4, st, flag
		}' >"$dir/stack.txt"
	cat "$dir/stack.txt"
	nfn=$(echo "$res" | grep -c .)
	if [ "$nfn" -gt 0 ] && ! grep -q 'FAIL$' "$dir/stack.txt"; then
		tap_ok "$name: worst-case stack of $nfn public functions < $STACK_LIMIT bytes (listed exceptions: $STACK_EXCEPT)"
	else
		tap_not_ok "$name: worst-case stack of public functions < $STACK_LIMIT bytes (listed exceptions: $STACK_EXCEPT)"
	fi
done
tap_end
