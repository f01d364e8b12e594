#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# vendor.sh UBOOT_TREE [-n]
#
# Take the uwind core into a U-Boot 2023.01 tree the way a firmware
# maintainer would: copy the core's sources for the switches U-Boot's
# Kconfig can select (SFrame for arm64; ARM and EHABI for 32-bit ARM)
# into lib/uwind/, the public headers into include/uwind/, lib/uwind.mk
# beside them (U-Boot's lib/uwind/Makefile picks each configuration's
# sources and -DUW_HAS_*=0 switches from it), then apply
# u-boot-2023.01.patch: the Kconfig options, the hooks, the linker-script,
# objcopy and link changes.  -n copies the core only.
#
# Which sources: lib/uwind.mk's uw_srcs of those switches, asked of make
# itself, so no list is written twice.  The copy is byte for byte (files
# already the same are left alone, so make builds only what changed); the
# core needs no change to build in U-Boot (env.h's __KERNEL__ branch
# takes U-Boot's <linux/types.h> and <linux/stddef.h>).
# A second run refreshes the copy and leaves an applied patch alone.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/selftests/uboot
tree=${1:?usage: vendor.sh UBOOT_TREE [-n]}
patch_too=1
[ "${2:-}" = -n ] && patch_too=0
[ -f "$tree/Kconfig" ] && [ -d "$tree/arch/arm" ] ||
	{ echo "vendor.sh: $tree is not a U-Boot tree" >&2; exit 1; }

# Every switch a U-Boot configuration of the patch can turn on.
SWITCHES="SFRAME ARM EHABI"
srcs=$(printf 'include %s\nall:\n\t@echo $(call uw_srcs,%s)\n' \
	"$top/lib/uwind.mk" "$SWITCHES" | make -s --no-print-directory -f -)
[ -n "$srcs" ] || { echo "vendor.sh: no sources from lib/uwind.mk" >&2; exit 1; }

# copy FILE... DIR: each file that differs (an unchanged copy keeps its
# time, and make does not build it again).
copy()
{
	for f in "$@"; do
		d=$f
	done
	for f in "$@"; do
		[ "$f" = "$d" ] && break
		cmp -s "$f" "$d/${f##*/}" || cp "$f" "$d/" || exit 1
	done
}

mkdir -p "$tree/lib/uwind" "$tree/include/uwind"
# shellcheck disable=SC2046
copy $(for f in $srcs; do echo "$top/lib/$f"; done) "$top"/lib/*.h \
	"$top/lib/uwind.mk" "$tree/lib/uwind"
copy "$top"/include/uwind/*.h "$tree/include/uwind"
echo "vendor.sh: $(echo $srcs | wc -w) sources, $(ls "$top"/lib/*.h | wc -l)" \
	"private and $(ls "$top"/include/uwind/*.h | wc -l) public headers" \
	"in $tree/lib/uwind and include/uwind" >&2

[ "$patch_too" -eq 1 ] || exit 0
if patch -d "$tree" -p1 -R -s -f --dry-run <"$here/u-boot-2023.01.patch" \
    >/dev/null 2>&1; then
	echo "vendor.sh: the patch is already applied" >&2
else
	patch -d "$tree" -p1 -s -N <"$here/u-boot-2023.01.patch"
fi
