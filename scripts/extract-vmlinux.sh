#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# extract-vmlinux.sh [IMAGE [OUT]]
#
# Get the uncompressed ELF vmlinux out of a compressed x86 bzImage.  The
# bzImage carries the kernel as one compressed payload (gzip, xz, zstd, lzma,
# bzip2, lz4 or lzo, whichever the kernel was configured with).  We look for
# each format's magic bytes, try to decompress from every place it occurs
# with the standard tool, and keep the first result that is an ELF file.
#
# IMAGE defaults to the installed Debian kernel (scripts/kernel-env.sh), OUT
# to $O/kernel/vmlinux (O defaults to build).  OUT is reused while it is newer
# than IMAGE.  Prints OUT's path on stdout.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
img=${1:-}
if [ -z "$img" ]; then
	. "$here/kernel-env.sh"
	img=$UWIND_VMLINUZ
fi
out=${2:-${O:-build}/kernel/vmlinux}

[ -r "$img" ] || { echo "extract-vmlinux: cannot read $img" >&2; exit 1; }

is_elf()
{
	[ -s "$1" ] && [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]
}

if is_elf "$out" && [ ! "$img" -nt "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM

# The image itself may already be an ELF vmlinux.
if is_elf "$img"; then
	cp "$img" "$tmp"
	mv "$tmp" "$out"
	echo "$out"
	exit 0
fi

# One line per format: magic (a grep -P byte pattern), tool, its arguments to
# decompress stdin to stdout.
formats='
\xfd7zXZ\x00 xz -dc
\x1f\x8b\x08 gzip -dc
\x28\xb5\x2f\xfd zstd -dcq
\x02\x21\x4c\x18 lz4 -dc
BZh bzip2 -dc
\x5d\x00\x00 xz -dc --format=lzma
\x89\x4c\x5a\x4f lzop -dc
'

found=""
nl='
'
set -f
IFS=$nl
for line in $formats; do
	IFS=' '
	# shellcheck disable=SC2086
	set -- $line
	magic=$1
	shift
	command -v "$1" >/dev/null 2>&1 || continue
	# Byte offsets of every occurrence of the magic in the image.
	offs=$(LC_ALL=C grep -obUaP "$magic" "$img" 2>/dev/null | cut -d: -f1) || :
	IFS=$nl
	for off in $offs; do
		# Trailing data after the stream makes the tools complain and
		# exit non-zero; what they wrote before that is all we need.
		tail -c "+$((off + 1))" "$img" | "$@" > "$tmp" 2>/dev/null || :
		if is_elf "$tmp"; then
			found="payload at offset $off ($*)"
			break 2
		fi
	done
done
set +f
unset IFS

if [ -z "$found" ]; then
	echo "extract-vmlinux: no compressed ELF payload found in $img" >&2
	exit 1
fi
echo "extract-vmlinux: $found" >&2
mv "$tmp" "$out"
trap - EXIT INT TERM
echo "$out"
