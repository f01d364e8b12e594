# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# For objfile.sh: which function of an object is where in the program it
# was linked into.  Needs hex.awk.  Files:
#   1. the object's FDEs, "START SIZE" (hex start, decimal size)
#   2. nm -S --defined-only of the object
#   3. nm --defined-only of the program
# Prints "OBJ_START PROG_START SIZE NAME" (decimal) for each FDE that
# overlaps no other (other text sections of an object also start at 0)
# and whose function symbol the program holds once; "# skipped: ..." for
# the others.
FILENAME == ARGV[1] { lo[++n] = hex($1); len[n] = $2; next }
FILENAME == ARGV[2] {
	if (NF == 4 && $3 ~ /^[tTW]$/)
		name[hex($1) " " hex($2)] = $4
	next
}
NF == 3 { cnt[$3]++; at[$3] = hex($1) }
END {
	for (i = 1; i <= n; i++) {
		over = 0
		for (j = 1; j <= n; j++)
			if (j != i && lo[j] < lo[i] + len[i] &&
			    lo[i] < lo[j] + len[j])
				over = 1
		f = name[lo[i] " " len[i]]
		if (over || f == "" || cnt[f] != 1) {
			print "# skipped:", f == "" ? "?" : f,
				over ? "(overlaps)" : "(not in the program once)"
			continue
		}
		print lo[i], at[f], len[i], f
	}
}
