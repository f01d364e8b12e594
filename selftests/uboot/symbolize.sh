#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# symbolize.sh ELF [LOG]
#
# Name the frames of the backtraces U-Boot printed with uwind
# (CONFIG_UWIND_BACKTRACE): read the console output (LOG, or standard
# input), and for each line "uwind: #N RUNTIME reloc LINKTIME SOURCE"
# print
#
#   #N LINKTIME FUNCTION+0xOFFSET FILE:LINE SOURCE
#
# from the u-boot ELF: the function from its symbol table (its FUNC
# symbols: not labels such as crt0's relocation_return), the line from
# its DWARF (addr2line).  The firmware carries no symbols; its
# link-time addresses are the ELF's.  Frame 0 is the faulting pc, the
# others return addresses, named by the call before them (address - 1).
# Other lines pass through.  addr2line is the cross one for the ELF's
# machine (ADDR2LINE overrides it).
set -eu

elf=${1:?usage: symbolize.sh ELF [LOG]}
log=${2:--}
case $(readelf -h "$elf" | sed -n 's/^ *Machine: *//p') in
AArch64) cross=aarch64-linux-gnu- ;;
ARM) cross=arm-linux-gnueabihf- ;;
*) cross= ;;
esac
ADDR2LINE=${ADDR2LINE:-${cross}addr2line}

cat "$log" | tr -d '\r' | awk -v a2l="$ADDR2LINE" -v elf="$elf" \
	-v dir="$(cd "$(dirname "$elf")" && pwd)" '
	function hex(s,    i, v) {
		sub(/^0x/, "", s)
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef",
					   tolower(substr(s, i, 1))) - 1
		return v
	}
	BEGIN {
		cmd = "readelf -sW " elf " 2>/dev/null"
		while ((cmd | getline l) > 0) {
			split(l, f, " ")
			if (f[4] != "FUNC" || f[7] == "UND")
				continue
			# Thumb functions have bit 0 set
			at[ns] = hex(f[2]) - hex(f[2]) % 2
			name[ns++] = f[8]
		}
		close(cmd)
	}
	$1 == "uwind:" && $2 ~ /^#[0-9]+$/ && $4 == "reloc" {
		i = substr($2, 2) + 0
		pc = hex($5) - (i > 0)
		best = -1
		for (k = 0; k < ns; k++)
			if (at[k] <= pc && (best < 0 || at[k] > at[best]))
				best = k
		fn = best < 0 ? "??" : sprintf("%s+0x%x", name[best],
					       hex($5) - at[best])
		cmd = sprintf("%s -e %s 0x%x", a2l, elf, pc)
		line = "??"
		cmd | getline line
		close(cmd)
		sub(/ \(discriminator [0-9]+\)/, "", line)
		# sources are named from the build directory (O=)
		if (index(line, dir "/") == 1)
			line = substr(line, length(dir) + 2)
		printf "#%-2d %s %s %s %s\n", i, $5, fn, line, $6
		next
	}
	{ print }'
