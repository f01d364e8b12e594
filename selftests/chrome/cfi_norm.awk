# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Normalise CFI tables to one line per FDE row, "FDE ADDR STATE", where
# STATE is the CFA (base+offset) and every register saved at CFA+N
# (name=c+N), names sorted, with consecutive equal states merged.
#
#   mode=readelf sec=.debug_frame|.eh_frame   readelf -wF output
#   mode=breakpad load=HEX                    uwind convert --breakpad
#
# Both sides name registers alike: readelf's r13 and Breakpad's sp are
# "sp", the return address column is "ra", Breakpad's '$' prefixes and
# "unnamed_register" become nothing and "r".  FDEs whose CFA is ever a
# DWARF expression are left out (Breakpad cannot express them).

function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}

function emit_fde(    i) {
	if (fde != "" && !bad)
		for (i = 1; i <= nrow; i++)
			print row[i]
	nrow = 0
	bad = 0
	last = ""
}

function add_row(addr, state) {
	if (state == last)
		return
	last = state
	row[++nrow] = sprintf("%x %x %s", fde, addr, state)
}

function sorted_state(cfa, n, arr,    i, j, t, s) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && arr[j - 1] > arr[j]; j--) {
			t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t
		}
	s = "cfa=" cfa
	for (i = 1; i <= n; i++)
		s = s " " arr[i]
	return s
}

function rname(r) {
	sub(/^\$/, "", r)
	sub(/^unnamed_register/, "r", r)
	if (r ~ /^s[0-9]+$/)			# ARM legacy VFP s0-s31
		r = "r" (substr(r, 2) + 64)
	if (r == "r13" || r == "r31" && arch == "arm64")
		r = "sp"
	return r
}

mode == "readelf" && /^Contents of the / {
	emit_fde()
	fde = ""
	insec = ($4 == sec)
	next
}
mode == "readelf" && insec && / FDE / {
	emit_fde()
	match($0, /pc=[0-9a-f]+/)
	fde = hex(substr($0, RSTART + 3, RLENGTH - 3))
	if (fde == 0)
		fde = ""
	next
}
mode == "readelf" && insec && fde != "" && $1 == "LOC" {
	ncol = NF
	for (i = 3; i <= NF; i++)
		col[i] = ($i == "ra") ? "ra" : rname($i)
	next
}
mode == "readelf" && insec && fde != "" && $1 ~ /^[0-9a-f]+$/ && NF >= 2 {
	gsub(/ \([^)]*\)/, "")	# "r10 (r10)": register rules, named twice
	$0 = $0
	if ($2 == "exp" || $2 !~ /\+/) {
		bad = 1
		next
	}
	split($2, c, "+")
	cfa = rname(c[1]) "+" c[2]
	n = 0
	for (i = 3; i <= NF; i++)
		if ($i ~ /^c[-+][0-9]+$/)
			st[++n] = col[i] "=" $i
	add_row(hex($1), sorted_state(cfa, n, st))
	next
}
mode == "readelf" && /^$/ { emit_fde(); fde = "" }

# Breakpad: INIT starts an FDE, every record updates the state.
mode == "breakpad" && /^STACK CFI / {
	if ($3 == "INIT") {
		emit_fde()
		fde = hex($4) + hex(load)
		delete rule
		first = 6
		addr = fde
	} else {
		addr = hex($3) + hex(load)
		first = 4
	}
	name = ""
	expr = ""
	for (i = first; i <= NF + 1; i++) {
		if (i > NF || $i ~ /:$/) {
			if (name != "")
				rule[name] = expr
			if (i <= NF) {
				name = substr($i, 1, length($i) - 1)
				expr = ""
			}
		} else {
			expr = expr (expr == "" ? "" : " ") $i
		}
	}
	split(rule[".cfa"], c, " ")
	cfa = rname(c[1]) "+" c[2]
	n = 0
	for (r in rule) {
		if (r == ".cfa")
			continue
		if (split(rule[r], e, " ") == 4 && e[1] == ".cfa" &&
		    e[3] == "+" && e[4] == "^")
			st[++n] = (r == ".ra" ? "ra" : rname(r)) "=c" \
				  (e[2] < 0 ? e[2] : "+" e[2])
	}
	add_row(addr, sorted_state(cfa, n, st))
}

END { emit_fde() }
