# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Normalise `objdump --sframe` or `uwind dump` output into tuples:
#   N fdes COUNT / N fres COUNT        header counts
#   F idx start size [m]               one per FDE ([m]: PCMASK)
#   R idx start cfa fp ra              one per FRE, idx = its FDE
# -v src=objdump|uwind -v arch=x86_64|aarch64 [-v rel=1]; needs hex.awk
#
# rel=1, for object files: FDE starts are left out ("-") and FRE starts
# count from their FDE's start.  objdump 2.40 does not apply an object's
# relocations (every FDE starts at 0 there), uwind does; the starts
# themselves are checked against the relocations and symbols elsewhere.
#
# The one translation: objdump 2.40 prints the RA column as "u" whenever
# an FRE carries no RA offset.  For AMD64 that is the header's fixed RA
# offset, which uwind prints as "f"; for AArch64 it is the RA still in the
# link register, which uwind prints as "lr".  Only those are rewritten,
# keeping any "[s]" (RA signed) suffix.
/Num FDEs:/ { print "N fdes", $3 }
/Num FREs:/ { print "N fres", $3 }
/func idx \[/ {
	idx = $3
	gsub(/[^0-9]/, "", idx)
	pc = $6
	sub(/,$/, "", pc)
	size = $9
	fde_pc = pc
	fde_size = size
	fde_idx = idx
	next
}
/^ *STARTPC/ {
	pcmask = $1 ~ /\[m\]/
	print "F", fde_idx, rel ? "-" : fde_pc, fde_size, (pcmask ? "m" : "-")
	next
}
/^    [0-9a-f]+  / && NF >= 4 {
	ra = $4
	if (src == "objdump") {
		sfx = ""
		if (ra ~ /\[s\]$/) {
			sfx = "[s]"
			sub(/\[s\]$/, "", ra)
		}
		if (ra == "u" && arch == "x86_64")
			ra = "f"
		else if (ra == "u" && arch == "aarch64")
			ra = "lr"
		ra = ra sfx
	}
	start = $1
	if (rel && !pcmask)
		start = sprintf("%x", hex(start) - hex(fde_pc))
	print "R", fde_idx, start, $2, $3, ra
}
