#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The documentation cannot go stale: README.md stays a front door (at
# most 250 lines); every document has a table of contents that lists its
# sections; every relative link reaches its file and heading; the code
# in the documents is the code that is tested (the panic-handler excerpt
# lines come from the bare-metal image's sources, the self-walking
# program is src/selfwalk.c, which install.sh builds and runs); every
# `uwind` command line in them uses a command and options the tool has;
# the crash example, run, names the frames the README shows; the man
# page has every command and option, and the tool's version; the tool's
# README lists every source file.
#
# usage: docs.sh BUILD_DIR
. selftests/tool/lib.sh
DOCS="README.md kernel/README.md lib/README.md scripts/uwind/README.md selftests/README.md"

# py SCRIPT ARG...: a python3 check; its output is diagnostics.
py()
{
	s=$1
	shift
	python3 -c "
import os, re, sys
def text(p):
    return open(p, encoding='utf-8').read()
def slug(h):
    h = re.sub(r'[^\w\- ]', '', h.strip().lower())
    return h.replace(' ', '-')
def headings(p):
    out, fence = [], False
    for l in text(p).split('\n'):
        if l.startswith('\`\`\`'):
            fence = not fence
        elif not fence and re.match(r'#{1,6} ', l):
            out.append((len(l) - len(l.lstrip('#')), l.lstrip('#').strip()))
    return out
def blocks(p):
    # code blocks: fenced, or indented four spaces after a blank line
    out, cur, fence, prev = [], [], False, ''
    for l in text(p).split('\n'):
        if l.startswith('\`\`\`'):
            if fence:
                out.append(cur)
                cur = []
            fence = not fence
        elif fence or (l.startswith('    ') and (cur or prev.strip() == '')):
            cur.append(l[0 if fence else 4:])
        elif cur:
            out.append(cur)
            cur = []
        prev = l
    if cur:
        out.append(cur)
    return out
$s" "$@"
}

tap_begin 10

n=$(wc -l <README.md)
[ "$n" -le 250 ]
tap_result $? "README.md is a front door: $n lines (at most 250)"

# shellcheck disable=SC2086
py '
bad = 0
for p in sys.argv[1:]:
    hs = headings(p)
    body = text(p)
    toc = body[body.find("## Contents"):].split("\n## ")[0]
    if "## Contents" not in body:
        print("#", p, "has no ## Contents"); bad = 1; continue
    for lvl, h in hs:
        if lvl in (2, 3) and h != "Contents" and "(#%s)" % slug(h) not in toc:
            print("#", p, ": the contents lack", h); bad = 1
sys.exit(bad)' $DOCS
tap_result $? "each of README.md, kernel/, lib/, scripts/uwind/, selftests/README.md lists every section in its contents"

# shellcheck disable=SC2086
py '
bad = n = 0
for p in sys.argv[1:]:
    for m in re.finditer(r"\]\(([^)\s]+)\)", text(p)):
        link = m.group(1)
        if re.match(r"[a-z]+:", link):
            continue
        n += 1
        f, _, anchor = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(p), f)) if f else p
        if not os.path.exists(target):
            print("#", p, ": no file", link); bad = 1
        elif anchor and target.endswith(".md") and anchor not in [slug(h) for _, h in headings(target)]:
            print("#", p, ": no heading", link); bad = 1
print("# %d links" % n)
sys.exit(bad)' $DOCS
tap_result $? "every relative link in the documents reaches its file and heading"

py '
b = [x for x in blocks("lib/README.md") if x and x[0].startswith("// SPDX")]
ok = len(b) == 1 and "\n".join(b[0]) + "\n" == text("selftests/tool/src/selfwalk.c")
sys.exit(0 if ok else 1)'
tap_result $? "lib/README.md shows selftests/tool/src/selfwalk.c (which install.sh builds and runs) as it is"

py '
def lines(t):
    t = re.sub(r"/\*.*?\*/", "", t, flags=re.S)
    return [l.strip() for l in t.split("\n") if l.strip()]
src = set(lines(text("selftests/baremetal/aarch64/a64.c")) + lines(text("selftests/baremetal/panic.c")))
b = [x for x in blocks("README.md") if any("uw_walk" in l for l in x)]
code = lines("\n".join(b[0])) if b else []
missing = [l for l in code if l not in src]
for l in missing:
    print("# not in the bare-metal sources:", l)
print("# %d lines" % len(code))
sys.exit(1 if missing or len(code) < 10 else 0)'
tap_result $? "README.md's panic-handler code: every line is the bare-metal AArch64 image's (a64.c, panic.c), which make check runs"

# Every command line: its command exists, its options are in its usage.
# The commands: those uwind --help lists.
cmds=$("$UWIND" --help | awk '/^  [a-z]+ / { print $1 }')
for c in $cmds; do
	"$UWIND" "$c" --help >"$TMP/usage.$c"
done
echo "$cmds" > "$TMP/cmds"
# shellcheck disable=SC2086
py '
cmds = text(os.path.join(sys.argv[1], "cmds")).split()
usage = {c: text(os.path.join(sys.argv[1], "usage." + c)) for c in cmds}
bad = n = 0
for p in sys.argv[2:]:
    src = [l for b in blocks(p) for l in b] if p.endswith(".md") else \
        [l for l in text(p).split("\n") if l.startswith("uwind ")]
    for l in src:
        l = l.replace(chr(92) + "-", "-")
        m = re.search(r"(?:^|[ /])uwind ([a-z|]+)(.*)", l)
        if not m:
            continue
        words = m.group(2).split("#")[0].split()
        for c in m.group(1).split("|"):
            n += 1
            if c not in cmds:
                print("#", p, ": no command", c, "in", l.strip()); bad = 1
                continue
            for w in words:
                o = re.match(r"(--?[a-z][-a-z]*)", w)
                if o and o.group(1) not in usage[c]:
                    print("#", p, ": uwind", c, "has no", o.group(1)); bad = 1
print("# %d command lines" % n)
sys.exit(bad)' "$TMP" $DOCS scripts/uwind/uwind.1
tap_result $? "every uwind command line in the documents and the man page uses a command and options the tool has"

# The crash example of README.md, run: the program's frames as shown.
if tap_have gdb; then
	gcc -O2 -o "$TMP/crash" scripts/demo/crash.c &&
		gdb -nx -batch -iex 'set debuginfod enabled off' -ex run \
			-ex "gcore $TMP/core" "$TMP/crash" >/dev/null 2>&1
	"$UWIND" stack --core "$TMP/core" >"$TMP/out" 2>&1
	for d in README.md scripts/uwind/README.md; do
		awk '/^    #[0-9]/ && /\/crash\) / { n = $3; sub(/\+0x.*/, "", n); print n }' \
			"$d" >"$TMP/doc.names"
		awk '/^#[0-9]/ && /\/crash\) / { n = $3; sub(/\+0x.*/, "", n); print n }' \
			"$TMP/out" >"$TMP/real.names"
		grep -q "^    Signal 11 (SIGSEGV, Segmentation fault) in LWP [0-9]*: SEGV_MAPERR, fault address 0x0$" "$d" &&
			grep -q "^Signal 11 (SIGSEGV, Segmentation fault) in LWP [0-9]*: SEGV_MAPERR, fault address 0x0$" "$TMP/out" &&
			[ -s "$TMP/real.names" ] && cmp -s "$TMP/doc.names" "$TMP/real.names" ||
			{ echo "# $d: $(tr '\n' ' ' <"$TMP/doc.names") / uwind: $(tr '\n' ' ' <"$TMP/real.names")"; false; } ||
			break
	done
	tap_result $? "the crash example, run: its signal line and the program's frames ($(tr '\n' ' ' <"$TMP/real.names")) as README.md and scripts/uwind/README.md show them"
else
	tap_skip "the crash example, run" "no gdb"
fi

"$UWIND" --help >"$TMP/help"
py '
man = text("scripts/uwind/uwind.1").replace(chr(92) + "-", "-")
bad = 0
for c in re.findall(r"^  ([a-z]+) ", text(sys.argv[1] + "/help"), re.M):
    if not re.search(r"^\.SS %s$" % c, man, re.M):
        print("# no section for", c); bad = 1
    for o in set(re.findall(r"(?<![\w-])(--?[a-z][-a-z]*)", text(sys.argv[1] + "/usage." + c))):
        if o not in man:
            print("# the man page lacks", c, o); bad = 1
sys.exit(bad)' "$TMP"
tap_result $? "the man page has a section for every command of uwind --help, and every option of their usage"

v=$("$UWIND" --version | cut -d' ' -f2)
grep -q "^\.TH UWIND 1 .* \"uwind $v\"" scripts/uwind/uwind.1
tap_result $? "the man page is for uwind $v, as uwind --version says"

py '
doc = text("scripts/uwind/README.md")
sources = doc[doc.find("## Sources"):]
missing = [f for f in sorted(os.listdir("scripts/uwind")) if f.endswith(".c") and "`%s`" % f not in sources]
for f in missing:
    print("# not in the sources table:", f)
sys.exit(1 if missing else 0)'
tap_result $? "scripts/uwind/README.md's sources table has every scripts/uwind/*.c"
tap_end
