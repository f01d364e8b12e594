#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind status` on this machine, without the module: a made-up module
# state under UWIND_SYSFS_ROOT (sysfs, the device's status text as a file
# at dev/uwind, EFI variables, modules.dep), and a process of ours whose
# mappings have every kind of source: a program with its own SFrame, a
# library with an installed table (in a scratch --dir), one whose table
# is stale, libc without one.  Each mapping's source, reason and
# coverage, from the files (module not loaded, or its device unreadable)
# and from the module's "[tables]", with what became of each file's
# request to the agent; the module's version, parameters, counters, the
# agent's, breaks and hooks; the summary and the files to install tables
# for; what it says of a module not loaded (modules.dep, Secure Boot);
# every process listed, no kernel thread; its errors.  The module's real
# device is read in the QEMU guest (selftests/kernel).
#
# usage: status.sh BUILD_DIR
. selftests/pkg/lib.sh
R=$TMP/root
REL=$(uname -r)

# st ROOT ARG...: uwind status with the made-up root ROOT.
st() { r=$1; shift; UWIND_SYSFS_ROOT=$r "$UWIND" status --dir "$D" "$@"; }

# json FILE PYTHON...: check the JSON document in FILE with python (d).
json()
{
	f=$1
	shift
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
$*" "$f"
}

# lines FILE [-x LINE | REGEX]...: whether FILE has each line (-x: this
# very line, else one matching the basic regex); if not, says which is
# missing and shows FILE.
lines()
{
	f=$1
	shift
	while [ $# -gt 0 ]; do
		if [ "$1" = -x ]; then
			shift
			grep -qxF -- "$1" "$f"
		else
			grep -q -- "$1" "$f"
		fi || {
			echo "# missing: $1"
			sed 's/^/# /' "$f"
			return 1
		}
		shift
	done
}

tap_begin 15

# The process: prog (own SFrame) -> libst.so (installed table) and
# libst2.so (a stale table), and libc.
mkdir -p "$TMP/lib"
# It maps an anonymous executable page too, as a JIT does.
cat > "$TMP/prog.c" <<'EOF'
#include <sys/mman.h>
void st_wait(void);
int st2(void);
int main(void)
{
	if (mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0) == MAP_FAILED)
		return 1;
	st_wait();
	return st2();
}
EOF
printf '#include <unistd.h>\nvoid st_wait(void) { for (;;) pause(); }\n' > "$TMP/st.c"
printf 'int st2(void) { return 2; }\n' > "$TMP/st2.c"
gcc -O2 -fPIC -shared -o "$TMP/lib/libst.so" "$TMP/st.c" &&
	gcc -O2 -fPIC -shared -o "$TMP/lib/libst2.so" "$TMP/st2.c" &&
	gcc -O2 -Wa,--gsframe -o "$TMP/prog" "$TMP/prog.c" -L"$TMP/lib" \
		-lst -lst2 -Wl,-rpath,"$TMP/lib" || tap_bail "cannot build the test program"
"$UWIND" sframe --install --dir "$D" "$TMP/lib/libst.so" "$TMP/lib/libst2.so" \
	>/dev/null 2>&1 || tap_bail "cannot install the tables"
t2=$(table_of "$TMP/lib/libst2.so")
# Another CRC: a table made from other CFI.
printf '\001\002\003\004' | dd of="$t2" bs=1 seek=60 conv=notrunc 2>/dev/null
"$TMP/prog" &
pid=$!
PIDS="$PIDS $pid"
i=0
while ! grep -q libst2 "/proc/$pid/maps" 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
libc=$(awk '$2 ~ /x/ && $6 ~ /\/libc\.so/ { print $6; exit }' "/proc/$pid/maps")
ldso=$(awk '$2 ~ /x/ && $6 ~ /\/ld-linux/ { print $6; exit }' "/proc/$pid/maps")

# ---- no module ----
mkdir -p "$R/none"
st "$R/none" -p "$pid" --json > "$TMP/none.json" 2>"$TMP/err"
rc=$?
json "$TMP/none.json" "
m = d['module']
assert m['loaded'] is False and m['built'] is None and m['secure_boot'] is None, m
p, = d['processes']
assert p['pid'] == $pid and p['from'] == 'files' and p['exe'] == '$TMP/prog', p
src = {x['path']: (x['source'], x['reason'], x['from']) for x in p['mappings']}
assert src['$TMP/prog'] == ('sframe', None, 'files'), src
assert src['$TMP/lib/libst.so'] == ('installed', None, 'files'), src
assert src['$TMP/lib/libst2.so'][0] == 'fp' and src['$TMP/lib/libst2.so'][1].startswith('stale table'), src
assert src['$libc'] == ('fp', 'no table', 'files'), src
assert '[vdso]' in src, src
assert src['[anon]'] == ('fp', 'anonymous: no file, no table', 'files'), src
" && [ $rc -eq 0 ]
tap_result $? "module not loaded: each mapping judged from its file: own SFrame, installed, stale table, no table; an anonymous one"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/err"

json "$TMP/none.json" "
p, = d['processes']
s = d['summary']
kinds = ('sframe', 'installed', 'ehabi', 'fp')
assert all(s[k] == p['coverage'][k] == sum(x['source'] == k for x in p['mappings']) for k in kinds), (s, p['coverage'])
assert s['processes'] == 1 and s['mappings'] == len(p['mappings']), s
w = s['without_tables']
assert '$TMP/lib/libst2.so' in w and '$libc' in w and '$TMP/prog' not in w and '$TMP/lib/libst.so' not in w, w
"
tap_result $? "--json summary: the counts by source add up; the files without a usable table listed (not the program, not the installed library)"

st "$R/none" -p "$pid" > "$TMP/none.txt" 2>&1
lines "$TMP/none.txt" -x "  sframe    $TMP/prog" \
	-x "  installed $TMP/lib/libst.so" \
	"^  fp        $TMP/lib/libst2.so (stale table" \
	-x "  fp        $libc (no table)" \
	"^1 process, [0-9]* executable mappings: 1 own SFrame, 1 installed tables, 0 EHABI, [0-9]* frame pointers only$" \
	'^[0-9]* files without tables: run `uwind sframe --install FILE...`' \
	-x "  $TMP/lib/libst2.so" \
	-x "module: not loaded, kernel $REL"
tap_result $? "the text: a line a mapping, the counts, the files to run uwind sframe --install on"

# ---- not loaded: modules.dep, Secure Boot ----
mkdir -p "$R/dep/lib/modules/$REL" "$R/sb/sys/firmware/efi/efivars" \
	"$R/nosb/sys/firmware/efi/efivars"
echo "updates/dkms/uwind.ko:" > "$R/dep/lib/modules/$REL/modules.dep"
sbvar=sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
printf '\006\000\000\000\001' > "$R/sb/$sbvar"
printf '\006\000\000\000\000' > "$R/nosb/$sbvar"
st "$R/dep" -p "$pid" > "$TMP/dep.txt" 2>&1
st "$R/dep" -p "$pid" --json > "$TMP/dep.json" 2>&1
grep -q "built for this kernel: /lib/modules/$REL/updates/dkms/uwind.ko" "$TMP/dep.txt" &&
	json "$TMP/dep.json" "assert d['module']['built'] == '/lib/modules/$REL/updates/dkms/uwind.ko'"
tap_result $? "not loaded, but modules.dep lists uwind.ko for this kernel: where it is, and how to load it"
grep -q "no uwind.ko for this kernel" "$TMP/none.txt"
tap_result $? "not loaded, none built: how to have one (uwind-dkms and the kernel's headers)"

st "$R/sb" -p "$pid" > "$TMP/sb.txt" 2>&1
st "$R/sb" -p "$pid" --json > "$TMP/sb.json" 2>&1
st "$R/nosb" -p "$pid" > "$TMP/nosb.txt" 2>&1
st "$R/nosb" -p "$pid" --json > "$TMP/nosb.json" 2>&1
grep -q "Secure Boot is on" "$TMP/sb.txt" && grep -q "unsigned uwind.ko cannot load" "$TMP/sb.txt" &&
	grep -q 'mokutil --import /var/lib/dkms/mok.pub' "$TMP/sb.txt" &&
	! grep -q "Secure Boot" "$TMP/nosb.txt" &&
	json "$TMP/sb.json" "assert d['module']['secure_boot'] is True" &&
	json "$TMP/nosb.json" "assert d['module']['secure_boot'] is False"
tap_result $? "not loaded with Secure Boot on (EFI variable SecureBoot = 1): an unsigned module cannot load, enroll DKMS's key with mokutil; nothing of it when off"

# ---- loaded ----
L=$R/loaded
mkdir -p "$L/sys/module/uwind/parameters" "$L/dev"
echo 0.1.0+test > "$L/sys/module/uwind/version"
echo 0123456789ABCDEF01234567 > "$L/sys/module/uwind/srcversion"
echo OE > "$L/sys/module/uwind/taint"
for p in enable=Y max_total_mb=256 keep_s=300 max_user_pct=25; do
	echo "${p#*=}" > "$L/sys/module/uwind/parameters/${p%%=*}"
done
# The device's status text, as kernel/dev.c prints it.
{
	echo "uwind 1"
	echo "[stats]"
	cat <<EOF
samples 1000
passed_to_kernel 3
passed_vcpu 0
frames_sframe 5000
frames_fp 20
frames_sigframe 1
tables_loaded 12
tables_rejected 1
tables_installed 7
end_past_entry 900
end_no_table 80
end_other 20
end_depth 0
end_time 0
bytes_held 123456
requests_installed 5
requests_failed 2
requests_refused 1
requests_dropped 0
requests_gone 3
requests_pending 4
requests_waiting 1
agent 1
EOF
	echo "[hooks]"
	printf 'perf_callchain_user on\nunwind_user off (no CONFIG_UNWIND_USER in this kernel)\nunlink_file_vma on\n'
	echo "[breaks]"
	printf '80 libfoo.so.1\n20 libbar.so\n'
	echo "[tables]"
	# The module's view of our process, as kernel/registry.c prints it
	# (the file's base name): every mapping but the vDSO, which it has
	# not seen; ld.so's table being made by the agent, a table the
	# module refused after the agent made it.
	echo "pid 1 init"
	echo "  1000-2000 init sframe"
	echo "pid $pid prog stale"
	awk -v prog="$TMP/prog" -v st="$TMP/lib/libst.so" -v st2="$TMP/lib/libst2.so" \
		-v libc="$libc" -v ldso="$ldso" '$2 ~ /x/ {
		state = $6 == prog ? "sframe" : $6 == st ? "installed" : \
			$6 == st2 ? "rejected failed:refused" : \
			$6 == libc ? "over-max_user_pct" : \
			$6 == ldso ? "none converting" : $6 == "" ? "none" : ""
		if ($6 == "")
			$6 = "[anon]"
		if (state == "")
			next
		n = $6
		sub(".*/", "", n)
		print "  " $1 " " n " " state
	}' "/proc/$pid/maps"
} > "$L/dev/uwind"
st "$L" -p "$pid" --json > "$TMP/loaded.json" 2>&1
json "$TMP/loaded.json" "
m = d['module']
assert m['loaded'] and m['device'] and m['version'] == '0.1.0+test' and m['taint'] == 'OE', m
assert m['srcversion'] == '0123456789ABCDEF01234567', m
assert m['parameters'] == {'enable': 'Y', 'max_total_mb': '256', 'keep_s': '300', 'max_user_pct': '25'}, m['parameters']
assert m['stats']['samples'] == 1000 and m['stats']['end_no_table'] == 80 and len(m['stats']) == 23, m['stats']
assert m['agent'] == {'running': True, 'pending': 4, 'waiting': 1, 'installed': 5, 'failed': 2, 'refused': 1, 'dropped': 0, 'gone': 3}, m['agent']
assert m['breaks'] == [{'count': 80, 'file': 'libfoo.so.1'}, {'count': 20, 'file': 'libbar.so'}], m['breaks']
assert m['hooks'] == {'perf_callchain_user': 'on', 'unwind_user': 'off (no CONFIG_UNWIND_USER in this kernel)', 'unlink_file_vma': 'on'}, m['hooks']
"
tap_result $? "loaded: version, srcversion, taint, parameters (sysfs); every counter, the agent's, the breaks and the hooks (the device)"

json "$TMP/loaded.json" "
p, = d['processes']
assert p['from'] == 'module' and p['stale'] is True, p
src = {x['path']: (x['source'], x['reason'], x['from']) for x in p['mappings']}
assert src['$TMP/prog'] == ('sframe', None, 'module'), src
assert src['$TMP/lib/libst.so'] == ('installed', None, 'module'), src
assert src['$TMP/lib/libst2.so'] == ('fp', 'the table made was refused (the file changed meanwhile)', 'module'), src
assert src['$libc'] == ('fp', 'over-max_user_pct', 'module'), src
assert src['$ldso'] == ('fp', 'pending: the agent is making it', 'module'), src
cov = {x['path']: (x['state'], x['request']) for x in p['mappings']}
assert cov['$TMP/prog'] == ('covered', None) and cov['$TMP/lib/libst.so'] == ('covered', None), cov
assert cov['$ldso'] == ('pending', 'converting'), cov
assert cov['$TMP/lib/libst2.so'] == ('not-coverable', 'failed:refused'), cov
assert cov['[anon]'] == ('not-coverable', None), cov
assert src['[vdso]'][2] == 'files', src
assert src['[anon]'] == ('fp', 'anonymous: no file, no table', 'module'), src
w = d['summary']['without_tables']
assert '$ldso' in w and '$TMP/lib/libst2.so' not in w and '$libc' not in w and '[anon]' not in w, w
"
tap_result $? "loaded: each mapping's source from the module's tables (sframe, installed, rejected, over-max_user_pct, none), one it has not seen from its file; coverage: covered, pending (being converted), not coverable (a table refused, anonymous); rejected and over-cap files not offered for an install"

st "$L" -p "$pid" > "$TMP/loaded.txt" 2>&1
lines "$TMP/loaded.txt" \
	-x "module: loaded, version 0.1.0+test, srcversion 0123456789ABCDEF01234567, taint OE, kernel $REL" \
	-x "parameters: enable=Y keep_s=300 max_total_mb=256 max_user_pct=25" \
	"^walks ended: 900 past the entry (90.0%), 80 without a table (8.0%), 20 other (2.0%)" \
	-x "walks ended for want of a table in: 80 libfoo.so.1, 20 libbar.so" \
	-x "hooks: perf_callchain_user on, unwind_user off (no CONFIG_UNWIND_USER in this kernel), unlink_file_vma on" \
	"^$pid prog ($TMP/prog) \[stale" \
	-x "  fp        $TMP/lib/libst2.so (the table made was refused (the file changed meanwhile))" \
	-x "  fp        $ldso (pending: the agent is making it)" \
	"^agent: running; tables asked for: 4 pending (1 not yet with the agent), 5 installed, 2 failed (1 of them refused), 0 dropped"
tap_result $? "loaded, the text: the module's line, parameters, where walks ended, the agent, breaks, hooks, the process marked stale, a table pending"

# Loaded, but the device cannot be read (not root, or no devtmpfs).
N=$R/nodev
mkdir -p "$N/sys/module/uwind/parameters"
st "$N" -p "$pid" > "$TMP/nodev.txt" 2>&1
st "$N" -p "$pid" --json > "$TMP/nodev.json" 2>&1
grep -q "^/dev/uwind cannot be read" "$TMP/nodev.txt" &&
	json "$TMP/nodev.json" "
m = d['module']
assert m['loaded'] and not m['device'], m
assert d['processes'][0]['from'] == 'files', d['processes'][0]"
tap_result $? "loaded without a readable device: said, and the processes judged from their files"

# ---- every process ----
# pids KTHREAD: the processes that are kernel threads (1: PF_KTHREAD in
# the flags of /proc/PID/stat) or not (0).
pids()
{
	for s in /proc/[0-9]*/stat; do
		awk -v k="$1" '{ sub(/.*\) /, "")
			if (int($7 / 2097152) % 2 == k) print FILENAME }' "$s" 2>/dev/null
	done | sed 's|/proc/||; s|/stat||' | sort -n
}
pids 0 > "$TMP/before"
st "$R/none" --json > "$TMP/all.json" 2>"$TMP/all.err"
rc=$?
pids 0 > "$TMP/after"
kthreads=$(pids 1 | tr '\n' ' ')
json "$TMP/all.json" "
def has_mm(p):
    try:
        return open('/proc/%d/maps' % p).read() != ''
    except OSError:
        return False
listed = set(p['pid'] for p in d['processes'])
both = set(map(int, open('$TMP/before').read().split())) & set(map(int, open('$TMP/after').read().split()))
missing = [p for p in both if p not in listed and has_mm(p)]
assert not missing, missing
assert not listed & set(map(int, '$kthreads'.split())), listed & set(map(int, '$kthreads'.split()))
assert $pid in listed and d['summary']['processes'] == len(d['processes'])
" && [ $rc -eq 0 ]
tap_result $? "without -p: every process with an address space listed ($(wc -l < "$TMP/before") here), no kernel thread"

st "$R/none" -p 999999999 > "$TMP/nopid" 2>&1
r1=$?
st "$R/none" --bogus > "$TMP/bogus" 2>&1
r2=$?
[ $r1 -eq 1 ] && grep -q "no process 999999999" "$TMP/nopid" && [ $r2 -eq 2 ]
tap_result $? "-p of no process: exit 1, said; an unknown option: exit 2"

kt=$(echo "$kthreads" | awk '{ print $1 }')
if [ -n "$kt" ]; then
	st "$R/none" -p "$kt" > "$TMP/kt" 2>&1
	[ $? -eq 1 ] && grep -q "no address space" "$TMP/kt"
	tap_result $? "-p of a kernel thread ($kt): exit 1, no address space"
else
	tap_skip "-p of a kernel thread" "no kernel thread visible here"
fi

"$UWIND" status --help | grep -q "^usage: uwind status \[-p PID\] \[--dir DIR\] \[--json\]$"
tap_result $? "status --help prints its usage"

# The default directory is root's: a table owned by someone else there
# is not one the module takes (here: --dir of a scratch tree owned by
# us, so ours are).
UWIND_SYSFS_ROOT=$R/none "$UWIND" status -p "$pid" --json > "$TMP/def.json" 2>&1
json "$TMP/def.json" "
src = {x['path']: x for x in d['processes'][0]['mappings']}
assert src['$TMP/lib/libst.so']['table'].startswith('/var/lib/uwind/build-id/'), src
"
tap_result $? "without --dir, the tables looked for are /var/lib/uwind/build-id's"

tap_end
