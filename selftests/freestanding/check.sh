#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Freestanding gate for the core (lib/): for x86-64, AArch64 and Cortex-M3
# Thumb, at -O2 and -Os, the ARMv8-M Cortex-M33 (hard float) and the
# Cortex-A15 (A32) at -Os, build configurations of lib/ (lib/uwind.mk:
# the full one everywhere, and each minimal one on the targets it is
# meant for) with -ffreestanding -nostdlib -Werror, and check that
#   - the objects of a configuration linked together (ld -r) leave no
#     undefined symbol, so a firmware can link the core alone (no
#     memcpy/memset, no libgcc helpers such as __aeabi_uldivmod or
#     __udivdi3), and a switched-off part leaves no call behind;
#   - no object has a non-empty .data, .bss or .data.rel* section;
#   - the worst-case stack of every public function the configuration
#     defines (each non-static function declared in include/uwind/*.h),
#     from -fcallgraph-info=su, stays under STACK_LIMIT bytes, with no
#     recursion and no dynamic frame.  A call through a pointer (the
#     caller's memory accessor cfg->mem.read) counts 0 bytes: the
#     accessor's frame is the caller's.
# and, once, that lib/ and include/uwind/ include nothing but uwind's own
# headers, the host's replacements of env.h and config.h (UW_ENV_HEADER,
# UW_CONFIG_HEADER) and, in env.h only, <stdint.h> <stddef.h>
# <stdbool.h> (or the kernel's equivalents; lib/compiler.h may include
# the kernel's <linux/compiler.h>).  The sizes of each configuration
# (and, for the full one, of each object) are printed as comments.
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

# name  compiler-prefix  flags  configurations (lib/uwind.mk UW_CONFIG_*).
# A build that favours size leaves the walker's fast loops out through
# their switch (UW_HAS_FAST, config.h): its full core is "small".
TARGETS="
x86-64-O2	|	-O2	full linux fp
x86-64-Os	|	-Os	small
aarch64-O2	aarch64-linux-gnu-	-O2	full linux
aarch64-Os	aarch64-linux-gnu-	-Os	small sframe
cortex-m3-O2	arm-none-eabi-	-O2 -mcpu=cortex-m3 -mthumb	full
cortex-m3-Os	arm-none-eabi-	-Os -mcpu=cortex-m3 -mthumb	small cortex_m
cortex-m33-Os	arm-none-eabi-	-Os -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16	small cortex_m
cortex-a15-Os	arm-none-eabi-	-Os -mcpu=cortex-a15 -marm	arm
"
CFLAGS="-std=c11 -ffreestanding -nostdlib -Wall -Wextra -Werror -Iinclude
	-fno-tree-loop-distribute-patterns -fno-stack-protector
	-fstack-usage -fcallgraph-info=su"

# A make expression evaluated with lib/uwind.mk included.
mkval() {
	printf 'include lib/uwind.mk\nall:\n\t@echo $(%s)\n' "$1" |
		make -s --no-print-directory -f -
}

npairs=$(echo "$TARGETS" | grep . | awk -F'\t' '{ n += split($4, c, " ") } END { print n }')
JOBS=${JOBS:-2}
. selftests/common/tap.sh
tap_begin $((1 + 4 * npairs))

# Results are numbered as they are printed (tap_number): the pairs run
# JOBS at a time, each into a file of its own.
ok() {
	tap_later_ok "$1"
}

not_ok() {
	tap_later_not_ok "$1"
}

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
	'<stdint.h>'|'<stddef.h>'|'<stdbool.h>'|'<linux/types.h>'|'<linux/stddef.h>'|UW_ENV_HEADER)
		[ "$file" = include/uwind/env.h ] && continue ;;
	UW_CONFIG_HEADER)
		[ "$file" = include/uwind/config.h ] && continue ;;
	'<linux/compiler.h>')
		[ "$file" = lib/compiler.h ] && continue ;;
	esac
	echo "$line"
done)
mkdir -p "$OUT"
rm -f "$OUT"/pair-*.tap
msg="lib/ and include/uwind/ include only uwind headers, the host's env/config headers and, via env.h, stdint/stddef/stdbool"
if [ -z "$bad" ]; then
	ok "$msg"
else
	echo "$bad" | sed 's/^/# forbidden include: /'
	not_ok "$msg"
fi >"$OUT/includes.tap"

# --- per target and configuration -------------------------------------
# check_config TARGET PREFIX FLAGS CONFIG: the four checks of one pair.
check_config() {
	target=$1 prefix=$2 flags=$3 config=$4
	cc=${prefix}gcc
	name="$target $config"
	dir=$OUT/$target/$config
	rm -rf "$dir"
	mkdir -p "$dir"
	srcs=$(mkval "call uw_srcs,\$(UW_CONFIG_$config)")
	cflags=$(mkval "call uw_cflags,\$(UW_CONFIG_$config)")

	# 1. compile
	cfail=0
	for s in $srcs; do
		o=$dir/$(basename "$s" .c).o
		# shellcheck disable=SC2086
		if ! "$cc" $CFLAGS $flags $cflags -c "lib/$s" -o "$o" >"$dir/cc.log" 2>&1; then
			sed 's/^/# /' "$dir/cc.log"
			cfail=1
		fi
	done
	if [ $cfail -ne 0 ]; then
		not_ok "$name: lib/ compiles freestanding with $cc $flags $cflags"
		not_ok "$name: no undefined symbols # not compiled"
		not_ok "$name: no .data/.bss # not compiled"
		not_ok "$name: worst-case stack < $STACK_LIMIT # not compiled"
		return
	fi
	ok "$name: lib/ ($(echo $srcs)) compiles freestanding with $cc $flags $cflags"
	objs=$(ls "$dir"/*.o)
	# 2. undefined symbols: the whole core, and per object those that
	# no other core object defines (the same set, shown per object).
	# shellcheck disable=SC2086
	if ! "${prefix}ld" -r -o "$dir/core.o" $objs 2>"$dir/ld.log"; then
		sed 's/^/# /' "$dir/ld.log"
		not_ok "$name: ld -r of lib objects, nm -u empty # link failed"
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
			ok "$name: ld -r of lib objects, nm -u empty"
		else
			echo "$und" | sed 's/^/# core.o: /'
			not_ok "$name: ld -r of lib objects, nm -u empty"
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
		ok "$name: no non-empty .data/.bss/.data.rel* section"
	else
		echo "$data"
		not_ok "$name: no non-empty .data/.bss/.data.rel* section"
	fi

	# sizes: the configuration, and each object of the full one
	# shellcheck disable=SC2086
	"${prefix}size" -A $objs | awk -v n="$name" '
		$1 == ".text" || $1 ~ /^\.text\./ { t += $2 }
		$1 ~ /^\.rodata/ { r += $2 }
		END { printf "# size %s: .text %d .rodata %d\n", n, t, r }'
	if [ "$config" = full ] || [ "$config" = small ]; then
		for o in $objs; do
			"${prefix}size" -A "$o" | awk -v o="$(basename "$o")" '
				$1 == ".text" || $1 ~ /^\.text\./ { t += $2 }
				$1 ~ /^\.rodata/ { r += $2 }
				END { printf "%s %d/%d ", o, t, r }'
		done | sed "s/^/# object sizes $name (.text\/.rodata): /"
		echo
	fi

	# 4. stack, of the public functions this configuration defines
	# shellcheck disable=SC2086
	defined=$("${prefix}nm" --defined-only $objs | awk 'NF == 3 { print $3 }')
	mine=$(for e in $entries; do
		echo "$defined" | grep -qx "$e" && echo "$e"
	done)
	# shellcheck disable=SC2086
	res=$(cat "$dir"/*.ci | awk -v entries="$(echo $mine)" -f "$AWK")
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
		ok "$name: worst-case stack of $nfn public functions < $STACK_LIMIT bytes (listed exceptions: $STACK_EXCEPT)"
	else
		not_ok "$name: worst-case stack of public functions < $STACK_LIMIT bytes (listed exceptions: $STACK_EXCEPT)"
	fi
}

# The include check's line, then every pair's, in order.
{
	cat "$OUT/includes.tap"
	echo "$TARGETS" | grep . | {
		i=0
		while IFS='	' read -r target prefix flags configs; do
			[ "$prefix" = "|" ] && prefix=
			for config in $configs; do
				i=$((i + 1))
				check_config "$target" "$prefix" "$flags" \
					"$config" >"$OUT/pair-$i.tap" 2>&1 &
				[ $((i % JOBS)) -eq 0 ] && wait
			done
		done
		wait
	}
	i=0
	while [ $i -lt "$npairs" ]; do
		i=$((i + 1))
		cat "$OUT/pair-$i.tap"
	done
} >"$OUT/all.tap"
tap_number <"$OUT/all.tap"
tap_end
