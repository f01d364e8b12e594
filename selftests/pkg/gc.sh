#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind sframe --gc --dir DIR` on scratch tables: a table stays while a
# file on the system has its build-id (the file it was installed from,
# a file a running process maps, a file under the directories --system
# scans) and goes once none has: a program rebuilt (another build-id),
# one deleted, a table no file ever had, a deleted program's table once
# the last process running it has exited.  Also what it tidies (notes
# without a table, old temporary files, empty XX directories), its
# output (text, -v, --json), a missing directory (nothing made), and
# that only root may collect the module's directory.
#
# usage: gc.sh BUILD_DIR
. selftests/pkg/lib.sh

# prog NAME N: a small program, other code (another build-id) for each N;
# it waits to be killed when run with an argument.
prog()
{
	cat > "$TMP/$1.c" <<EOF
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argv;
	while (argc > 1)
		pause();
	return $2;
}
EOF
	gcc -O2 -o "$TMP/$1" "$TMP/$1.c"
}

tap_begin 18

prog keep 1
prog rebuilt 2
prog gone 3
prog running 4
# A library of the system that no process maps (else the processes would
# keep its table, not the directories).
libm=""
for l in libanl.so.1 libBrokenLocale.so.1 libthread_db.so.1 libutil.so.1; do
	f=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64|AArch64/ { print $NF; exit }')
	[ -n "$f" ] || continue
	f=$(readlink -f "$f")
	grep -qF "$f" /proc/[0-9]*/maps 2>/dev/null && continue
	readelf -SW "$f" 2>/dev/null | grep -q ' \.eh_frame ' || continue
	libm=$f
	break
done
[ -n "$libm" ] || libm=$(readlink -f "$(ldd "$TMP/keep" | awk '$1 ~ /^libc\.so/ { print $3 }')")
tap_diag "the system's library: $libm"
(cd "$TMP" && "$UWIND" sframe --install --dir "$D" ./keep rebuilt gone \
	"$TMP/running" "$libm") > "$TMP/inst" 2>&1
rc=$?
t_keep=$(table_of "$TMP/keep") t_rebuilt=$(table_of "$TMP/rebuilt")
t_gone=$(table_of "$TMP/gone") t_running=$(table_of "$TMP/running")
t_libm=$(table_of "$libm")
[ $rc -eq 0 ] && [ "$(cat "${t_keep%.uwsf}.paths")" = "$TMP/keep" ] &&
	[ "$(cat "${t_libm%.uwsf}.paths")" = "$libm" ]
tap_result $? "--install notes where each table came from, as an absolute path (REST.paths)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/inst"

"$UWIND" sframe --install --dir "$D" "$TMP/keep" >/dev/null 2>&1
[ "$(wc -l < "${t_keep%.uwsf}.paths")" -eq 1 ]
tap_result $? "installed again: the note names the file once"

# The system's library, known only from the directories --system scans.
rm "${t_libm%.uwsf}.paths"
# A program rebuilt at the same path; one deleted.
prog rebuilt 5
rm "$TMP/gone"
# A table no file has: another's under a made-up build-id.
mkdir -p "$D/ff"
cp "$t_keep" "$D/ff/00000000000000000000000000000000000001.uwsf"
# A program deleted while a process still runs it.
"$TMP/running" wait &
pid=$!
PIDS="$PIDS $pid"
sleep 0.3
rm "$TMP/running"
# Leftovers: a note without its table, temporary files old and new.
echo /nowhere > "$D/ff/1111.paths"
: > "$D/ff/old.uwsf.1.tmp"
touch -d '2 days ago' "$D/ff/old.uwsf.1.tmp"
: > "${t_keep%.uwsf}.uwsf.2.tmp"

"$UWIND" sframe --gc --dir "$D" -v > "$TMP/gc1" 2>&1
rc=$?
sed 's/^/# /' "$TMP/gc1"
[ $rc -eq 0 ] && [ -f "$t_keep" ] && grep -qx "kept $t_keep $TMP/keep" "$TMP/gc1"
tap_result $? "a table whose program is still there (its note) is kept"
f=$(sed -n "s|^kept $t_libm ||p" "$TMP/gc1")
[ -f "$t_libm" ] && [ -n "$f" ] && [ "$(readlink -f "$f")" = "$libm" ] &&
	case $f in /usr/lib/* | /lib/* | /usr/lib64/* | /lib64/*) true ;; *) false ;; esac
tap_result $? "a table without a note whose library is under the --system directories ($f) is kept"
[ ! -e "$t_rebuilt" ] && [ ! -e "${t_rebuilt%.uwsf}.paths" ] &&
	grep -qx "removed $t_rebuilt" "$TMP/gc1"
tap_result $? "the table of a program rebuilt since (another build-id at its path) is removed, with its note"
[ ! -e "$t_gone" ] && grep -qx "removed $t_gone" "$TMP/gc1"
tap_result $? "the table of a program deleted since is removed"
[ ! -e "$D/ff/00000000000000000000000000000000000001.uwsf" ]
tap_result $? "a table for a build-id no file has is removed"
if [ "$(id -u)" -eq 0 ]; then
	[ -f "$t_running" ] && grep -q "^kept $t_running $TMP/running" "$TMP/gc1"
	tap_result $? "the table of a program deleted while a process runs it is kept (the process maps it)"
else
	tap_skip "a program deleted while it runs" "reading another process's map_files needs root"
fi
[ ! -e "$D/ff/1111.paths" ] && [ ! -e "$D/ff/old.uwsf.1.tmp" ] &&
	[ -e "${t_keep%.uwsf}.uwsf.2.tmp" ]
tap_result $? "a note without a table and a temporary file over a day old are removed, a fresh one is not"
tail -n 1 "$TMP/gc1" | grep -qx "uwind: 3 removed, 3 kept, 0 failed"
tap_result $? "the counts: 3 removed, 3 kept"

kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$UWIND" sframe --gc --dir "$D" --json > "$TMP/gc2.json" 2>"$TMP/gc2.err"
rc=$?
python3 - "$TMP/gc2.json" "$t_running" "$t_keep" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
st = {r["table"]: (r["status"], r["file"]) for r in d["results"]}
assert st[sys.argv[2]] == ("removed", None), st
assert st[sys.argv[3]][0] == "kept" and st[sys.argv[3]][1].endswith("/keep"), st
assert (d["removed"], d["kept"], d["failed"]) == (1, 2, 0), d
EOF
[ $? -eq 0 ] && [ $rc -eq 0 ] && [ ! -e "$t_running" ]
tap_result $? "--json, once the process has exited: its table removed; every table with its status and file, the counts"

[ ! -d "$D/ff" ] && [ -d "$(dirname "$t_keep")" ] && [ -d "$D" ]
tap_result $? "XX directories left empty are removed, the others and DIR kept"

out=$("$UWIND" sframe --gc --dir "$TMP/none" 2>&1)
[ $? -eq 0 ] && [ ! -e "$TMP/none" ] && [ "$out" = "uwind: 0 removed, 0 kept, 0 failed" ]
tap_result $? "a directory that does not exist: nothing to do, exit 0, nothing made"

"$UWIND" sframe --gc --dir "$D" "$TMP/keep" > /dev/null 2>&1
r1=$?
"$UWIND" sframe --gc --install --dir "$D" > /dev/null 2>&1
r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ]
tap_result $? "--gc with a file, or with --install: usage errors (exit 2)"

if [ "$(id -u)" -eq 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$UWIND" sframe --gc > "$TMP/nobody" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -q "only root" "$TMP/nobody"
	tap_result $? "without --dir, only root may collect (/var/lib/uwind/build-id): exit 1, said"
else
	tap_skip "only root may collect the module's directory" "not root"
fi

# --gc and --install hold the directory's lock (DIR/.lock) while they
# work: neither sees the other's half-done work.
flock "$D/.lock" sleep 2 &
sleep 0.3
t0=$(date +%s%N)
"$UWIND" sframe --gc --dir "$D" >/dev/null 2>&1
t1=$(date +%s%N)
wait
flock "$D/.lock" sleep 2 &
sleep 0.3
"$UWIND" sframe --install --dir "$D" "$TMP/keep" >/dev/null 2>&1
t2=$(date +%s%N)
wait
[ $(((t1 - t0) / 1000000)) -ge 1200 ] && [ $(((t2 - t1) / 1000000)) -ge 1200 ]
tap_result $? "--gc and --install wait for DIR/.lock ($(((t1 - t0) / 1000000)) ms, $(((t2 - t1) / 1000000)) ms behind a 2 s holder)"


# Files without a build-id: their tables (DIR/cfi/XX/REST.uwsf, named by
# the CRC, size and place of the CFI) kept while a file has that CFI.
D2=$TMP/cfi-store
# (Other CFI each: another function in n2; the same CFI is the same key.)
printf 'int main(void) { return 0; }\n' > "$TMP/n1.c"
printf 'void f(void);\nint main(void) { f(); return 0; }\n' > "$TMP/n2.c"
printf 'void f(void) { volatile char b[64]; b[0] = 0; }\n' >> "$TMP/n2.c"
for n in 1 2; do
	gcc -O2 -Wl,--build-id=none -o "$TMP/n$n" "$TMP/n$n.c"
done
"$UWIND" sframe --install --dir "$D2" "$TMP/n1" "$TMP/n2" > "$TMP/ninst" 2>&1
n1=$(awk -v f="$TMP/n1" '$1 == "installed" && $2 == f { print $3 }' "$TMP/ninst")
n2=$(awk -v f="$TMP/n2" '$1 == "installed" && $2 == f { print $3 }' "$TMP/ninst")
rm "$TMP/n2"
"$UWIND" sframe --gc --dir "$D2" -v > "$TMP/ngc1" 2>&1
rc=$?
case $n1$n2 in "$D2"/cfi/??/*.uwsf"$D2"/cfi/??/*.uwsf) k=0 ;; *) k=1 ;; esac
[ $rc -eq 0 ] && [ $k -eq 0 ] && [ "$n1" != "$n2" ] && [ -f "$n1" ] &&
	grep -qx "kept $n1 $TMP/n1" "$TMP/ngc1" && [ ! -e "$n2" ] &&
	[ ! -e "${n2%.uwsf}.paths" ] && grep -qx "removed $n2" "$TMP/ngc1"
tap_result $? "without a build-id: the table of a file still there is kept, that of a file deleted since removed"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/ninst" "$TMP/ngc1"
rm "$TMP/n1"
"$UWIND" sframe --gc --dir "$D2" > "$TMP/ngc2" 2>&1
[ $? -eq 0 ] && [ ! -e "$n1" ] && grep -qx "removed $n1" "$TMP/ngc2" &&
	[ -d "$D2/cfi" ] && [ -z "$(ls "$D2/cfi")" ]
tap_result $? "without a build-id: the last file gone, its table and its cfi/XX directory removed"

tap_end
