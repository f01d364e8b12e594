# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# An independent reading of `readelf -u` opcode text: for each .ARM.exidx
# entry, the unwind rule at the function's first instruction, as
# `uwind lookup` prints it.  Two queries per entry: ADDR|1 (Thumb: fp is
# r7) and ADDR (fp is r11 or r7 as the FUNC symbol at ADDR says, from
# the "ADDR A|T" lines of the first input; "fp=?" when no symbol says).
# A register saved off the CFA's base (the sp or an rN loaded from the
# stack, or saved before a `vsp = rN`) is "[BASE+N]"; so is the CFA when
# r13 or the vsp = rN register was popped.  Entries with text this
# reading does not know print "skip".
#
#   awk -f rules.awk MODES READELF_U_TEXT

function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			return -1
		v = v * 16 + c - 1
	}
	return v
}

function slot(r) {
	return "[" sbase[r] sprintf("%+d", saved[r]) "]"
}

function rel(r) {
	if (!(r in saved))
		return ""
	if (sbase[r] != base)
		return slot(r)
	return sprintf("c%+d", saved[r] - off)
}

function flush(    ra, f11, f7, q, mode, odd) {
	if (fn == "")
		return
	if (kind == "generic" && !nops)
		res = "skip"
	if (res == "") {
		ra = rel(15)
		if (ra == "")
			ra = rel(14)
		if (ra == "")
			ra = "lr"
		f11 = rel(11)
		f7 = rel(7)
		if (f11 == "")
			f11 = "u"
		if (f7 == "")
			f7 = "u"
	}
	a = hex(fn)
	odd = sprintf("0x%x", a + 1)
	if (res != "") {
		print odd, res
		print fn, res
	} else {
		if (base ~ /^\[/ && !off)
			q = sprintf("cfa=%s ra=%s", base, ra)
		else
			q = sprintf("cfa=%s%+d ra=%s", base, off, ra)
		print odd, q, "fp=" f7
		mode = (fn in modes) ? modes[fn] : ""
		print fn, q, "fp=" (mode == "T" ? f7 : mode == "A" ? f11 : "?")
	}
	fn = ""
}

FNR == NR { modes[$1] = $2; next }

/^0x[0-9a-f]+( <.*>)?: / {
	flush()
	fn = $1
	sub(/:$/, "", fn)
	split("", saved)
	split("", sbase)
	base = "sp"
	off = 0
	done = 0
	nops = 0
	res = ""
	kind = "compact"
	if ($0 ~ /\[cantunwind\]$/)
		res = "cantunwind"
	next
}

fn == "" { next }

/^  Personality routine: / { kind = "generic"; next }

/^  0x[0-9a-f][0-9a-f] / {
	nops++
	if (done || res != "")
		next
	op = hex($1)
	t = $0
	sub(/^ *(0x[0-9a-f][0-9a-f] +)+/, "", t)
	if (t ~ /^vsp = vsp \+ [0-9]+$/) {
		off += $NF
	} else if (t ~ /^vsp = vsp - [0-9]+$/) {
		off -= $NF
	} else if (t ~ /^vsp = r[0-9]+$/) {
		r = substr(t, 8) + 0
		base = (r in saved) ? slot(r) : "r" r
		off = 0
	} else if (t == "finish") {
		done = 1
	} else if (tolower(t) ~ /^refuse to unwind/) {
		res = "refuse"
	} else if (t ~ /^\[(Reserved|Spare|unsupported|Truncated)/ ||
		   t ~ /\[(Reserved|Spare)\]/) {
		res = "error"
	} else if (t ~ /^pop \{r[0-9]/) {
		s = t
		gsub(/[{},]/, " ", s)
		n = split(s, regs, " ")
		sp13 = 0
		for (i = 2; i <= n; i++) {
			r = substr(regs[i], 2) + 0
			saved[r] = off
			sbase[r] = base
			off += 4
			if (r == 13)
				sp13 = 1
		}
		if (sp13) {		# vsp = the popped sp, after the pop
			base = slot(13)
			off = 0
		}
	} else if (t ~ /^pop \{D[0-9]+(-D[0-9]+)?\}$/) {
		s = t
		gsub(/[^0-9-]/, " ", s)
		n = split(s, d, "-")
		cnt = n == 2 ? d[2] - d[1] + 1 : 1
		off += 8 * cnt
		if (op == 179 || (op >= 184 && op <= 191))	# b3, b8-bf
			off += 4
	} else if (t ~ /^pop \{wR[0-9]+(-wR[0-9]+)?\}$/) {
		s = t
		gsub(/[^0-9-]/, " ", s)
		n = split(s, d, "-")
		off += 8 * (n == 2 ? d[2] - d[1] + 1 : 1)
	} else if (t ~ /^pop \{wCGR/) {
		off += 4 * split(t, d, ",")
	} else {
		res = "skip"
	}
	next
}

/^$/ { flush() }

END { flush() }
