# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `readelf -u` / `uwind dump` text of an ARM file -> one line per
# .ARM.exidx entry: "FN KIND [OPCODE BYTES...]", where KIND is
# cantunwind, inline:WORD, pr<N>@EXTAB or pers:ADDR@EXTAB (generic
# model).  Function names and opcode descriptions are dropped.

function flush() {
	if (fn != "")
		print fn, kind ops
	fn = ""
}

# "0x490 <main>: 0x80aab0b0", "0x640: @0x8f0", "0x514: 0x1 [cantunwind]"
/^0x[0-9a-f]+( <.*>)?: / {
	flush()
	fn = $1
	sub(/:$/, "", fn)
	w = $NF
	if ($0 ~ /\[cantunwind\]$/)
		kind = "cantunwind"
	else if (w ~ /^@/)
		kind = w
	else
		kind = "inline:" w
	ops = ""
	next
}

fn != "" && /^  Compact model index: / {
	if (kind ~ /^@/)
		kind = "pr" $4 kind
	next
}

fn != "" && /^  Personality routine: / {
	p = $3
	sub(/^0x/, "", p)
	kind = "pers:" p kind
	next
}

# opcode lines: "  0xb2 0xe1 0x08 vsp = vsp + 5000"
fn != "" && /^  0x[0-9a-f][0-9a-f] / {
	for (i = 1; i <= NF && $i ~ /^0x[0-9a-f][0-9a-f]$/; i++)
		ops = ops " " substr($i, 3)
	next
}

/^$/ { flush() }

END { flush() }
