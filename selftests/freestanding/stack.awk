# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Worst-case stack of entry points from GCC's -fcallgraph-info=su files.
#
# Input: every .ci file (VCG graphs) of one build.  A node is a function,
# titled by its name (global) or "file:name" (static); its label ends in
# "N bytes (static|dynamic[,bounded])" in the file that defines it, so the
# graphs of all objects are merged by title.  Edges are calls, including
# those made by inlined callees.  Calls through a pointer go to the node
# "__indirect_call"; in the core the only one is the caller's memory
# accessor (cfg->mem.read), whose own frame is the caller's business, so it
# counts 0 bytes and the path is marked with "*".
#
# Variable: entries = space-separated function names.
# Output, one line per entry:  NAME BYTES STATUS PATH
#   STATUS is ok, or undefined:F (no stack size known for F: not part of
#   the build), dynamic:F (variable-sized frame in F), cycle:F (recursion
#   through F: the core must not recurse).
#   PATH is the deepest call chain "a>b>c" (static functions without
#   their file prefix).

function depth(n,    i, e, d, best, bc)
{
	if (n == "__indirect_call")
		return 0
	if (state[n] == 2)
		return deep[n]
	if (state[n] == 1) {
		if (status == "ok")
			status = "cycle:" n
		return 0
	}
	state[n] = 1
	if (!(n in size) && status == "ok")
		status = "undefined:" n
	if ((n in dyn) && status == "ok")
		status = "dynamic:" n
	best = 0
	bc = ""
	for (i = 1; i <= nout[n]; i++) {
		e = out[n, i]
		d = depth(e)
		if (bc == "" || d > best) {
			best = d
			bc = e
		}
	}
	state[n] = 2
	deep[n] = size[n] + best
	child[n] = bc
	return deep[n]
}

function field(s, key)
{
	if (!match(s, key ": \"[^\"]*\""))
		return ""
	return substr(s, RSTART + length(key) + 3, RLENGTH - length(key) - 4)
}

function path(n,    p, s, on)
{
	p = ""
	split("", on)
	while (n != "" && !(n in on)) {
		on[n] = 1
		s = n
		sub(/^.*:/, "", s)
		if (n == "__indirect_call")
			s = "*"
		p = p (p == "" ? "" : ">") s
		n = child[n]
	}
	return p
}

/^node:/ {
	t = field($0, "title")
	if (match($0, /\\n[0-9]+ bytes \([a-z,]+\)/)) {
		s = substr($0, RSTART + 2, RLENGTH - 2)
		split(s, p, " ")
		size[t] = p[1] + 0
		if (s ~ /dynamic/)
			dyn[t] = 1
	}
	next
}

/^edge:/ {
	a = field($0, "sourcename")
	b = field($0, "targetname")
	if (!((a, b) in seen)) {
		seen[a, b] = 1
		out[a, ++nout[a]] = b
	}
	next
}

END {
	n = split(entries, ent, " ")
	for (k = 1; k <= n; k++) {
		# A fresh walk per entry, so each reports its own problems.
		split("", state)
		split("", deep)
		split("", child)
		status = "ok"
		d = depth(ent[k])
		print ent[k], d, status, path(ent[k])
	}
}
