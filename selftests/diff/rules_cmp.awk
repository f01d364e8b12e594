# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Compare `uwind lookup` lines (second file) with dwarf_rules lines
# (third file), one address per line in the same order.  The first file
# is objdump's FDE list (sframe_norm.awk "F" tuples): an address inside
# one of its functions must have an SFrame row, an address outside none.
# -v arch=x86_64|aarch64 -v name=LABEL; needs hex.awk (-f hex.awk first)
#
# Where DWARF gives a rule SFrame can express, the two must agree:
#   CFA  DWARF reg+off with reg sp (7 / 31) or fp (6 / 29): same base, off
#        (dwarf_rules reduces a PLT's CFA expression to sp+off when it can)
#   RA   DWARF saved at CFA+N: SFrame c+N (x86-64 fixed RA included);
#        AArch64 DWARF same value for x30: SFrame lr
#   FP   DWARF same value: SFrame u; saved at CFA+N: SFrame c+N
# Anything else (CFA expression or other register, val_offset, register
# and expression rules) is skipped and counted.  Prints "#" diagnostics
# and a summary, exits 1 on any mismatch.
function field(line, key,   n, i, a) {
	n = split(line, a, " ")
	for (i = 2; i <= n; i++)
		if (index(a[i], key "=") == 1)
			return substr(a[i], length(key) + 2)
	return ""
}
function in_fde(a,   i) {
	for (i = 0; i < nfde; i++)
		if (a >= fs[i] && a < fe[i])
			return 1
	return 0
}
function bad(msg) {
	mismatch++
	if (mismatch <= 30)
		printf "# %s: %s: %s\n#   sframe: %s\n#   dwarf:  %s\n", name, addr, msg, sl, dl
}
BEGIN {
	nfde = 0
	if (arch == "x86_64") { SP = 7; FP = 6 } else { SP = 31; FP = 29 }
}
FILENAME == ARGV[1] {
	if ($1 == "F") {
		fs[nfde] = hex($3)
		fe[nfde] = fs[nfde] + $4
		nfde++
	}
	next
}
FILENAME == ARGV[2] { s[FNR] = $0; n = FNR; next }
{
	dl = $0
	sl = s[FNR]
	addr = $1
	split(sl, sa, " ")
	if (sa[1] != addr) {
		bad("address order differs")
		next
	}
	total++
	snone = (sa[2] == "none")
	dnone = ($2 == "none")
	if (sa[2] == "error") {
		bad("uwind lookup error")
		next
	}
	if (in_fde(hex(addr)) == snone) {
		if (snone)
			bad("no SFrame row inside an objdump FDE")
		else
			bad("SFrame row outside every objdump FDE")
		next
	}
	if (snone && dnone) { outside++; next }
	if (snone) { no_sframe++; next }
	if (dnone) { no_dwarf++; next }

	dcfa = field(dl, "cfa")
	scfa = field(sl, "cfa")
	if (dcfa == "expr") { cfa_skip++; next }
	if (!match(dcfa, /[-+]/)) { cfa_skip++; next }
	reg = substr(dcfa, 1, RSTART - 1) + 0
	off = substr(dcfa, RSTART) + 0
	if (reg == SP) base = "sp"
	else if (reg == FP) base = "fp"
	else { cfa_skip++; next }
	want = sprintf("%s%+d", base, off)
	compared++
	if (field(dl, "via") == "expr")
		via_expr++
	if (scfa != want)
		bad("CFA " scfa " != DWARF " want)

	dra = field(dl, "ra")
	sra = field(sl, "ra")
	if (dra ~ /^c[-+][0-9]+$/) {
		ra_cmp++
		if (sra != dra)
			bad("RA " sra " != DWARF " dra)
	} else if (dra == "same" && arch == "aarch64") {
		ra_cmp++
		if (sra != "lr")
			bad("RA " sra " != DWARF same value (lr)")
	} else {
		ra_skip++
	}

	dfp = field(dl, "fp")
	sfp = field(sl, "fp")
	if (dfp ~ /^c[-+][0-9]+$/) {
		fp_cmp++
		if (sfp != dfp)
			bad("FP " sfp " != DWARF " dfp)
	} else if (dfp == "same") {
		fp_cmp++
		if (sfp != "u")
			bad("FP " sfp " != DWARF same value (u)")
	} else {
		fp_skip++
	}
}
END {
	if (FNR != n && !mismatch) {
		mismatch++
		printf "# %s: line counts differ (%d vs %d)\n", name, n, FNR
	}
	printf "# %s: %d addresses, %d compared (CFA; %d from an evaluated DWARF expression), RA %d, FP %d; skipped: CFA not expressible %d, RA rule %d, FP rule %d, no SFrame %d, no DWARF %d, neither %d; mismatches %d\n", \
		name, total, compared, via_expr + 0, ra_cmp, fp_cmp, cfa_skip, ra_skip, fp_skip, no_sframe, no_dwarf, outside, mismatch + 0
	exit mismatch ? 1 : 0
}
