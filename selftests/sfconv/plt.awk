# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The rows an AArch64 .plt must have, from objdump's disassembly of it
# ("ADDR<TAB>INSN OPERANDS" lines, symbols and comments cut): PLT0 opens
# with stp x16, x30, [sp, #-16]! (CFA sp+0 on it, sp+16 after it, up to
# the end of PLT0: its br x17 and nop padding), after a bti c in a PLT
# made for branch target identification (sp+0 on that too); the PLTn
# stubs leave sp, x29 and x30 alone (sp+0); a lazy TLS descriptor
# trampoline opening with stp x2, x3, [sp, #-16]! has sp+0 on that, sp+16
# after.  RA stays in x30 and FP unchanged throughout.  Prints "ADDR
# cfa=... ra=lr fp=u" lines as `uwind lookup` would; exits 1 on any
# instruction outside that shape.
function touches(i) {
	return i ~ /(^|[^a-z0-9_])(w?sp|[xw]29|[xw]30)([^a-z0-9_]|$)/
}
BEGIN { FS = "\t" }
NR == 1 && $2 ~ /^bti\tc$|^bti c$/ {
	print $1, "cfa=sp+0 ra=lr fp=u"
	bti = 1
	next
}
NR == 1 + bti {
	if ($2 !~ /^stp x16, x30, \[sp, #-16\]!$/) bad = 1
	state = "plt0"; cfa = "sp+0"
	print $1, "cfa=" cfa, "ra=lr fp=u"
	cfa = "sp+16"
	next
}
state == "plt0" && seen_br && $2 !~ /^nop/ { state = "pltn"; cfa = "sp+0" }
state == "pltn" && $2 ~ /^stp x2, x3, \[sp, #-16\]!$/ {
	print $1, "cfa=sp+0 ra=lr fp=u"
	state = "tls"; cfa = "sp+16"
	next
}
{
	if (touches($2)) bad = 1
	if ($2 ~ /^br x17/) seen_br = 1
	print $1, "cfa=" cfa, "ra=lr fp=u"
}
END { exit bad }
