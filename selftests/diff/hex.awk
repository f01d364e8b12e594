# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# hex(S): the value of the hexadecimal number S ("0x" optional), for awk
# programs that need it (mawk has no strtonum): awk -f hex.awk -f prog.awk.
# Exact up to 2^53, far above any address the tests meet.
function hex(s,   i, v) {
	s = tolower(s)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
