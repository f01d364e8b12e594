#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# --json: one object per run that python3's json.loads accepts, saying
# what the text says (the schema is uwind(1)'s, JSON OUTPUT): stack on
# a core and a live process (and --check-walk's result on it), lookup
# in every format it reads here,
# sframe --check with its total over the files, sframe --install; and
# the file names a user can have (quotes, backslashes, bytes that are
# not UTF-8) still make valid JSON.
#
# usage: json.sh BUILD_DIR
. selftests/tool/lib.sh

# py SCRIPT FILE: run a python3 check on the JSON in FILE (as d); its
# output (a diagnostic) and status.
py()
{
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1], 'rb'))
$1" "$2"
}

tap_begin 10

if tap_have gdb; then
	cp "$P" "$TMP/segv"
	gdb -nx -batch -iex 'set debuginfod enabled off' -ex run \
		-ex "gcore $TMP/segv.core" --args "$TMP/segv" segv 10 \
		>/dev/null 2>&1
fi
if [ -s "$TMP/segv.core" ]; then
	"$UWIND" stack --core "$TMP/segv.core" >"$TMP/t" 2>/dev/null
	"$UWIND" stack --json --core "$TMP/segv.core" >"$TMP/j" 2>/dev/null
	awk '/^#[0-9]/ { print $2 }' "$TMP/t" >"$TMP/t.pcs"
	py '
pcs = [int(f["pc"], 16) for t in d["threads"] for f in t["frames"]]
print("\n".join("0x%016x" % p for p in pcs))
s = d["signal"]
assert s["name"] == "SIGSEGV" and s["number"] == 11 and s["address"] == "0x10", s
assert d["threads"][0]["stopped"]["reason"]
f = d["threads"][0]["frames"]
assert f[0]["inline"] and f[0]["function"] == "store" and not f[1]["inline"], f[:2]
assert f[1]["function"] == "poke" and f[1]["source"] == "sframe", f[1]
assert int(f[1]["module_offset"], 16) + 0 > 0 and f[1]["module"] == sys.argv[1].replace("/j", "/segv")
' "$TMP/j" >"$TMP/j.pcs" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && cmp -s "$TMP/t.pcs" "$TMP/j.pcs"
	tap_result $? "stack --json of a core: json.loads accepts it; its frames are the text's, pc by pc; the signal, inline frame 0, poke"
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/err"
else
	tap_skip "stack --json of a core" "no gdb core"
fi

if tap_start_stopped "$P" stop; then
	"$UWIND" stack --json -p "$pid" -n 3 -t "$pid" >"$TMP/live" 2>/dev/null
	py "
assert len(d['threads']) == 1 and len(d['threads'][0]['frames']) == 3, d
assert d['threads'][0]['stopped'] == {'reason': 'frame limit', 'error': '-n 3'}
assert d['pid'] == $pid and d['threads'][0]['tid'] == $pid
" "$TMP/live" 2>"$TMP/err"
	tap_result $? "stack --json -p PID -t PID -n 3: one thread of three frames, cut by the frame limit"
	"$UWIND" stack --json --check-walk -p "$pid" >"$TMP/cw" 2>"$TMP/err"
	rc=$?
	py "
c = d['check_walk']
print(c)
assert c == {'threads': 3, 'walks': 12, 'differ': 0,
             'warm_hits': c['warm_hits'], 'warm_misses': c['warm_misses']}
assert c['warm_hits'] > 0 and len(d['threads']) == 3
" "$TMP/cw" >"$TMP/cw.py" 2>>"$TMP/err"
	prc=$?
	sed 's/^/# /' "$TMP/cw.py" "$TMP/err"
	[ $rc -eq 0 ] && [ $prc -eq 0 ]
	tap_result $? "stack --json --check-walk -p PID: check_walk says the 12 walks of its 3 threads agree, exit 0"
	kill -9 "$pid"
else
	tap_skip "stack --json -p" "target did not stop"
	tap_skip "stack --json --check-walk -p" "target did not stop"
fi

addrs=$(nm "$P" | awk '$2 ~ /^[Tt]$/ { print $1 }' | head -n 20)
# shellcheck disable=SC2086
"$UWIND" lookup "$P" $addrs 0 >"$TMP/lt" 2>&1
# shellcheck disable=SC2086
"$UWIND" lookup --json "$P" $addrs 0 >"$TMP/lj" 2>&1
py '
for r in d["results"]:
    if r["status"] == "ok":
        print(r["address"], " ".join("%s=%s" % kv for kv in r["rules"].items()))
    else:
        print(r["address"], r["status"])
assert d["format"] == "sframe"
' "$TMP/lj" >"$TMP/lj.t" 2>"$TMP/err"
n=$(($(echo $addrs | wc -w) + 1))
cmp -s "$TMP/lt" "$TMP/lj.t" && [ "$(wc -l <"$TMP/lt")" -eq $n ]
tap_result $? "lookup --json of $n addresses (SFrame): the results say what the text lines say"

"$UWIND" convert --breakpad "$P" >"$TMP/t.sym"
# shellcheck disable=SC2046
"$UWIND" lookup -v --breakpad "$TMP/t.sym" $(awk '/^STACK CFI INIT/ { print $4 }' "$TMP/t.sym") >"$TMP/bt" 2>&1
# shellcheck disable=SC2046
"$UWIND" lookup --json -v --breakpad "$TMP/t.sym" $(awk '/^STACK CFI INIT/ { print $4 }' "$TMP/t.sym") >"$TMP/bj" 2>&1
py '
for r in d["results"]:
    print(r["address"], " ".join("%s=%s" % kv for kv in r["rules"].items()), "#", r["raw"])
assert d["format"] == "breakpad"
' "$TMP/bj" >"$TMP/bj.t" 2>"$TMP/err"
cmp -s "$TMP/bt" "$TMP/bj.t" && [ -s "$TMP/bt" ]
tap_result $? "lookup --json -v --breakpad: rules and the record's raw text as the text lines"

"$UWIND" sframe --check --json "$P" "$BIN/target-other" "$TMP/none" >"$TMP/cj" 2>/dev/null
rc=$?
py '
f = d["files"]
assert len(f) == 3 and f[2]["error"], f[2]
t = d["total"]
assert t["files"] == 3 and t["failed"] == 1
for k in ("cfi_bytes", "text_bytes", "code_bytes"):
    assert t[k] == f[0][k] + f[1][k], k
for k in ("total", "whole", "dead"):
    assert t["fdes"][k] == f[0]["fdes"][k] + f[1]["fdes"][k], k
assert t["table"]["bytes"] == f[0]["table"]["bytes"] + f[1]["table"]["bytes"]
assert t["described"]["bytes"] == f[0]["described"]["bytes"] + f[1]["described"]["bytes"]
assert f[0]["build_id"] and f[0]["arch"] == "x86-64"
' "$TMP/cj" 2>"$TMP/err"
[ $? -eq 0 ] && [ $rc -eq 1 ]
tap_result $? "sframe --check --json over 3 files (one missing): each file, and a total that sums them; exit 1"
[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"

"$UWIND" sframe --check "$P" "$BIN/target-other" >"$TMP/ct" 2>/dev/null
set -- $(awk '$1 == "cfi-bytes:" { print $2 }' "$TMP/ct")
b=${3:-}
grep -q '^total: 2 files, 0 failed$' "$TMP/ct" && [ $# -eq 3 ] && [ $(($1 + $2)) -eq "$3" ]
tap_result $? "sframe --check over 2 files: a total block, its cfi-bytes the sum ($b)"

# A program without its own SFrame (the tests' programs have one).
printf 'int main(void) { return 0; }\n' >"$TMP/p.c"
gcc -O2 -o "$TMP/plain" "$TMP/p.c"
"$UWIND" sframe --install --json --dir "$TMP/inst" "$TMP/plain" "$TMP/none" >"$TMP/ij" 2>/dev/null
rc=$?
py '
r = d["results"]
assert r[0]["status"] == "installed" and r[0]["table"].startswith(d["dir"]) and r[0]["fdes"] > 0, r[0]
assert r[1]["status"] == "failed" and r[1]["reason"], r[1]
assert (d["installed"], d["failed"], d["up_to_date"]) == (1, 1, 0)
import os; assert os.path.getsize(r[0]["table"]) == r[0]["bytes"] + 128
' "$TMP/ij" 2>"$TMP/err"
[ $? -eq 0 ] && [ $rc -eq 1 ]
tap_result $? "sframe --install --json: installed (its table's size as on disk) and failed results, the counts; exit 1"
"$UWIND" sframe --install --json --dir "$TMP/inst" "$TMP/plain" >"$TMP/ij2" 2>/dev/null
py 'assert d["up_to_date"] == 1 and d["results"][0]["status"] == "up-to-date"' "$TMP/ij2"
tap_result $? "sframe --install --json again: up-to-date"

# Names JSON must carry whatever the file system allows.
odd=$(printf '%s/we"ird\\\tna\377me' "$TMP")
cp "$P" "$odd"
"$UWIND" lookup --json "$odd" 0 >"$TMP/oj" 2>"$TMP/err" &&
	"$UWIND" sframe --check --json "$odd" >"$TMP/oj2" 2>>"$TMP/err" &&
	py 'assert d["file"].endswith("we\"ird\\\tna\ufffdme"), d["file"]' "$TMP/oj" &&
	py 'assert d["files"][0]["file"].endswith("na\ufffdme")' "$TMP/oj2"
tap_result $? "a file named with a quote, a backslash, a tab and a byte that is not UTF-8: valid JSON (U+FFFD for the byte)"
tap_end
