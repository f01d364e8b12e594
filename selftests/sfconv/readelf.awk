# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `readelf --debug-dump=frames-interp` to rows for `sfverify rows`:
#   START END CFA RA FP
# in hex and readelf's own notation (rsp+8, c-16, u, s, exp, ...), one
# line per row, END the next row's start or the FDE's end.  An FDE
# without a table of its own has its CIE's initial row.  -v fp=NAME names
# the frame-pointer column (rbp, x29); a column readelf does not show has
# no rule: "u" for the frame pointer, "s" (still in the register) for RA.
# A register rule is written with the register's name.
function hexval(s,   i, v) {
	s = tolower(s)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function flush(   i, e) {
	if (!infde)
		return
	if (nrow == 0 && (cie in ciecfa)) {
		nrow = 1
		rloc[0] = lo
		rcfa[0] = ciecfa[cie]; rra[0] = ciera[cie]; rfp[0] = ciefp[cie]
	}
	for (i = 0; i < nrow; i++) {
		e = (i + 1 < nrow) ? rloc[i + 1] : hi
		if (rloc[i] < e)
			printf "%x %x %s %s %s\n", rloc[i], e, rcfa[i], rra[i], rfp[i]
	}
	infde = 0
}
/ CIE / {
	flush()
	incie = 1; cieoff = $1; next
}
/ FDE cie=/ {
	flush()
	incie = 0; infde = 1; nrow = 0
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^cie=/) { cie = substr($i, 5) }
		if ($i ~ /^pc=/) {
			split(substr($i, 4), pr, /\.\./)
			lo = hexval(pr[1]); hi = hexval(pr[2])
		}
	}
	next
}
/^   LOC / {
	ncol = NF
	for (i = 1; i <= NF; i++) colname[i] = $i
	next
}
/^[0-9a-f]+ / && (incie || infde) && NF >= 2 {
	# "r1 (rdx)": a register rule, DWARF number then name: keep the name.
	gsub(/[a-z0-9]+ \(/, "")
	gsub(/\)/, "")
	cfa = $2; ra = "s"; fpv = "u"
	for (i = 3; i <= NF && i <= ncol; i++) {
		if (colname[i] == "ra") ra = $i
		if (colname[i] == fp) fpv = $i
	}
	if (incie) {
		ciecfa[cieoff] = cfa; ciera[cieoff] = ra; ciefp[cieoff] = fpv
		next
	}
	rloc[nrow] = hexval($1); rcfa[nrow] = cfa; rra[nrow] = ra; rfp[nrow] = fpv
	nrow++
	next
}
/^$/ { flush() }
END { flush() }
