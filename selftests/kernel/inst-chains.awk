# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# inst-chains.awk: whole chains in the samples of the installed-table
# tests (guest-inst.sh), from
#   awk -v spines=SPINES [-v early=1] -f inst-chains.awk hot.ret D.txt...
# hot.ret: "PATH ADDR" for every return address of the programs, their
# libraries and the vDSO, "PLT PATH ADDR" for every address in the
# programs' PLT sections and "ENTRY PATH ADDR" for the first 64 from the
# dynamic linker's entry point (retaddrs.sh); each D.txt: `perf script
# --no-demangle -F comm,tid,time,ip,sym,symoff,dso` (perf 6.1: user
# addresses are the files' own) or ...,dsoff (later perf: the files' own
# after the DSO); the results of D.txt go to D.n.  SPINES:
# "COMM:f1,f2,... COMM:..." the program's own functions from the
# innermost down to main (main left out), for each program counted; a
# program elsewhere than /root/COMM is named by its path, "PATH:f1,...".
# (COMM is the path's last component, as the kernel keeps it: at most
# 15 bytes.)
#
# A sample of COMM with user frames is
# - left out when none of its frames is in the program, a library or the
#   vDSO (the shell that is about to exec the program), or when it is a
#   "start-up" sample: each caller frame a call site and the chain ending
#   at the dynamic linker's entry (ld.so relocating, and the libraries'
#   initialisers it runs, before main exists);
# - left out as "exit" when every caller frame is a call site down to the
#   program's _start, without main, and no sample of the thread with main
#   comes after it (the exit handlers and destructors, once main has
#   returned); counted with start-up;
# - "full" when every caller frame is a call site (no frame made up from
#   a stale stack slot or a wrong rule), the program's frames are a tail
#   of its spine (the innermost ones may be missing: the sample was taken
#   in a caller), then main, and the chain ends in the program's _start;
#   std:: templates instantiated in the program (_ZSt..., _ZNSt...,
#   __gnu_cxx) and the PLT (a sample taken in a stub, whatever perf
#   names it) may sit above the spine;
# - with early=1, left out as "early" when it comes before the first full
#   one of its process (with -v need=PATH: the first full one with a
#   frame in the file PATH, a library it loads) and is cut short without
#   a wrong frame (every
#   caller frame a call site): the module had not read the tables of
#   the libraries the process has just mapped (the first load of
#   libstdc++'s table takes about 40 ms under TCG);
# - counted apart when its innermost frame is in the vDSO ("vdso").
# On arm64 the frame perf script inserts after the leaf is dropped first
# (drop_inserted()).
# Prints to D.n "COMM SAMPLES STARTUP FULL VDSO VDSO_FULL EARLY EARLY_MS"
# per COMM of SPINES (SAMPLES: those counted; EARLY_MS: from the first
# sample past start-up to the first full one, the longest over the
# processes), then "# bad COMM: CHAIN" for up to 3 (-v maxbad=N: N) of
# each COMM's chains that were not full (frames as sym@dso, innermost
# first).

BEGIN {
	n = split(spines, sp, " ")
	for (i = 1; i <= n; i++) {
		c = sp[i]
		sub(/:.*/, "", c)
		s = sp[i]
		sub(/^[^:]*:/, "", s)
		p = "/root/" c
		if (c ~ /^\//) {
			p = c
			sub(/.*\//, "", c)
			c = substr(c, 1, 15)
		}
		spine[c] = s
		path_of[c] = p
		order[i] = c
	}
	ncomm = n
}

# A file's path as one name: /usr/lib/X and /lib/X are the same file
# (merged /usr), and a suite's ldd and the guest's loader may name either.
function canon(p) {
	sub(/^\/usr\/lib\//, "/lib/", p)
	return p
}

FNR == NR && $1 == "ENTRY" { entry[canon($2) " " $3] = 1; next }
FNR == NR && $1 == "PLT" { plt[canon($2) " " $3] = 1; next }
FNR == NR && $1 == "VDSO" { next }
FNR == NR { ret[canon($1) " " $2] = 1; next }

# The results of one data file.
function report(   i, c, t) {
	if (out == "")
		return
	# The exit samples no sample with main came after: left out.
	for (t in held)
		startup[held_comm[t]] += held[t]
	split("", held)
	for (i = 1; i <= ncomm; i++) {
		c = order[i]
		printf "%s %d %d %d %d %d %d %d\n", c, total[c], startup[c],
			full[c], vtotal[c], vfull[c], nearly[c], early_ms[c] > out
		total[c] = startup[c] = full[c] = vtotal[c] = vfull[c] = 0
		nearly[c] = early_ms[c] = 0
	}
	for (i = 1; i <= ncomm; i++) {
		printf "%s", bad[order[i]] > out
		bad[order[i]] = ""
		nbad[order[i]] = 0
	}
	close(out)
	split("", ready)
	split("", first)
}

# Whether the program's own frames (std:: templates and the PLT left
# out) are a tail of its spine, then main, then _start, the last frame.
function spine_ok(prog,   i, k, nw, want, pf) {
	k = 0
	for (i = 1; i <= nfr; i++) {
		if (dso[i] != prog || sym[i] ~ /^_Z(N|NK)?(St|9__gnu_cxx)/ ||
		    ((prog " " addr[i]) in plt))
			continue
		pf[++k] = sym[i]
	}
	nw = split(spine[comm], want, ",")
	if (k < 2 || pf[k] != "_start" || pf[k - 1] != "main" ||
	    sym[nfr] != "_start" || dso[nfr] != prog || k - 2 > nw)
		return 0
	for (i = 1; i <= k - 2; i++)
		if (pf[i] != want[nw - (k - 2) + i])
			return 0
	return 1
}

# Whether a frame of the sample is the function f of the file d.
function has_sym(d, f,   i) {
	for (i = 1; i <= nfr; i++)
		if (dso[i] == d && sym[i] == f)
			return 1
	return 0
}

# Whether a frame of the sample is in the file d.
function has_dso(d,   i) {
	for (i = 1; i <= nfr; i++)
		if (dso[i] == d)
			return 1
	return 0
}

# The value of hex digits x (mawk has no strtonum).
function hexv(x,   i, v) {
	v = 0
	for (i = 1; i <= length(x); i++)
		v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
	return v
}

# hex digits x plus one.
function hexinc(x,   i, d) {
	for (i = length(x); i > 0; i--) {
		d = index("0123456789abcdef", substr(x, i, 1))
		if (d < 16)
			return substr(x, 1, i - 1) substr("123456789abcdef", d, 1) \
			    substr("0000000000000000", 1, length(x) - i)
	}
	return "1" substr("0000000000000000", 1, length(x))
}

# arm64: the entry perf script inserts after the leaf, the caller it
# found from the sampled link register (selftests/kernel/guest-lib.sh,
# chains()): lr - 1, one below a return address (no two return addresses
# are a byte apart: no kernel's entry is one), which may be the kernel's
# next entry or, when lr was stale or the kernel's walker found the
# caller elsewhere, not; or lr with its pointer-authentication code
# still in (above 48 bits).  Not the kernel's: dropped.
function drop_inserted(   i) {
	if (nfr < 3 || !(((dso[2] " " hexinc(addr[2])) in ret) ||
	    (dso[2] == dso[3] && hexv(addr[2]) + 1 == hexv(addr[3])) ||
	    length(addr[2]) > 12))
		return
	for (i = 2; i < nfr; i++) {
		addr[i] = addr[i + 1]
		sym[i] = sym[i + 1]
		dso[i] = dso[i + 1]
	}
	nfr--
}

function flush(   i, prog, d, sites, ok, chain, ours, vd, lim, bad_at, gap) {
	if (comm == "" || !(comm in spine) || nfr == 0) {
		comm = ""
		return
	}
	drop_inserted()
	prog = path_of[comm]
	sites = 1
	ours = 0
	for (i = 1; i <= nfr; i++) {
		if (dso[i] == prog || dso[i] ~ /^\/lib/ || dso[i] == "[vdso]")
			ours = 1
		if (i > 1 && !((dso[i] " " addr[i]) in ret))
			sites = 0
	}
	if (!ours || (sites && ((dso[nfr] " " addr[nfr]) in entry))) {
		startup[comm] += ours
		comm = ""
		return
	}
	ok = sites && spine_ok(prog)
	# Every frame a call site down to _start, but no main: the exit
	# handlers, once main has returned, if no sample of the thread with
	# main comes after it; held until then.
	if (!ok && sites && sym[nfr] == "_start" && dso[nfr] == prog &&
	    !has_sym(prog, "main")) {
		held[tid]++
		held_comm[tid] = comm
		comm = ""
		return
	}
	if (tid in held) {
		total[comm] += held[tid]
		delete held[tid]
	}
	if (!(tid in first))
		first[tid] = when
	if (ok && !(tid in ready) && (need == "" || has_dso(need))) {
		ready[tid] = 1
		d = int((when - first[tid]) * 1000)
		if (d > early_ms[comm])
			early_ms[comm] = d
	}
	# -v early=1: a chain cut short (every frame a call site) before
	# the process's first whole one: its tables were not in yet.
	if (early && sites && !ok && !(tid in ready)) {
		nearly[comm]++
		comm = ""
		return
	}
	total[comm]++
	vd = dso[1] == "[vdso]"
	if (vd)
		vtotal[comm]++
	if (ok) {
		full[comm]++
		if (vd)
			vfull[comm]++
	} else if (nbad[comm]++ < (maxbad ? maxbad : 3)) {
		# The first frame that is not a call site, in full; a long
		# chain as its first frames, those around that one, and its
		# last (where it ended), the others elided.
		lim = maxbad ? 40 : 12
		bad_at = 0
		for (i = 2; i <= nfr && sites == 0 && !bad_at; i++)
			if (!((dso[i] " " addr[i]) in ret))
				bad_at = i
		chain = ""
		gap = 0
		for (i = 1; i <= nfr; i++) {
			if (nfr > lim && i > lim / 2 && i <= nfr - lim / 2 &&
			    (!bad_at || i < bad_at - 1 || i > bad_at + 1)) {
				gap++
				continue
			}
			if (gap)
				chain = chain " [" gap " more]"
			gap = 0
			d = dso[i]
			sub(/.*\//, "", d)
			chain = chain (i > 1 ? " " : "") sym[i] "@" d
			if (i == bad_at)
				chain = chain "[not a call site: " dso[i] " " addr[i] "]"
		}
		bad[comm] = bad[comm] "# bad " comm " (" nfr " frames): " chain "\n"
	}
	comm = ""
}

FNR == 1 {
	flush()
	report()
	out = FILENAME
	sub(/\.txt$/, "", out)
	out = out ".n"
}

# A sample's first line: "COMM TID TIME:".
/^[^ \t]/ {
	flush()
	comm = $1
	tid = $2
	when = $3
	sub(/:$/, "", when)
	nfr = 0
	next
}

# A frame: "ADDR SYM+OFF (DSO)" or "ADDR [unknown] (DSO)" (perf 6.1:
# ADDR the file's), or with the dsoff field "(DSO+0xOFF)" (OFF the file's,
# ADDR the process's).
/^[ \t]+[0-9a-f]+ / {
	if (length($1) == 16 && $1 ~ /^ffff/)
		next				# the kernel's
	nfr++
	addr[nfr] = $1
	s = $2
	sub(/\+0x[0-9a-f]+$/, "", s)
	sym[nfr] = s
	# The DSO: the last field, or the last two for a file deleted since
	# it was mapped, "(PATH (deleted))" (perf names it so).
	d = $NF
	if (d ~ /^\(deleted\)/ && NF > 3) {
		d = $(NF - 1) substr(d, 10)
	}
	sub(/^\(/, "", d)
	sub(/\)$/, "", d)
	if (d ~ /\+0x[0-9a-f]+$/) {
		addr[nfr] = d
		sub(/.*\+0x/, "", addr[nfr])
		sub(/\+0x[0-9a-f]+$/, "", d)
		# The vDSO, as perf copied it out ("[vdso]" in the dso field).
		if (d ~ /\/perf-vdso\.so-/)
			d = "[vdso]"
	}
	sub(/^0+/, "", addr[nfr])
	dso[nfr] = canon(d)
	next
}

END {
	flush()
	report()
}
