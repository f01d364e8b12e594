# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The agent's tests, sourced by guest-tests.sh (part "agent"): tables
# made on demand by `uwind agent`, as a production install runs it:
# debugfs not mounted, the kernel locked down for integrity after insmod
# (as every Secure Boot machine runs Debian's kernels), an empty table
# store, and nothing run by hand but insmod and the agent.  It is the last
# part before dmesg: lockdown lasts until the next boot, and after it no
# unsigned module loads again.
#
# Every program here is a file no table was ever made for (uwgen newid: a
# stock-built program or library with a build-id of its own), and each
# must have its first whole chain within AG_FIRST_MS (2000) of its first
# sample, and at least AG_GOOD% (95) whole chains after that
# (inst-chains.awk, with every caller frame a call site):
#   (a) a process started before the agent;
#   (b) a program that appears after the agent started;
#   (c) a plugin dlopen'ed from /tmp;
#   (d) a process in another mount namespace, whose files nothing outside
#       sees, running another Debian release's ld.so and libc;
#   (e) a program whose file was deleted while it ran (and another file
#       put at its path);
#   (f) on 7.x, deferred callchains (--call-graph fp,defer).
# Then: uwind status through the device (covered, and a file that cannot
# be converted); one user flooding the agent while another starts a
# program (the bounds); the agent killed mid-conversion and restarted;
# rmmod with requests queued.

AG_FIRST_MS=${AG_FIRST_MS:-2000}
# The same for uid 1001's program while uid 1000 floods the agent: the
# guest's two emulated CPUs are then busy with uid 1000's 192 execs, the
# scans they ask for and its conversions (2.3 s measured; the bound the
# README states).
AG_FLOOD_FIRST_MS=${AG_FLOOD_FIRST_MS:-5000}
AG_GOOD=${AG_GOOD:-95}
AG_MS=${AG_MS:-$((1500 * ${UW_SLOW:-1}))}	# each program's run (UW_SLOW: arm64)
AG_LOG=$T/agent.log
AG_STORE=/var/lib/uwind/build-id
AG=/tmp/ag
ag=""
ag_seed=$$

# ag_start [ARG...]: uwind agent in the background (pid in ag), its
# output appended to AG_LOG; ag_ready_ms: how long until it said "ready".
ag_start()
{
	: >> "$AG_LOG"
	_n0=$(grep -c 'uwind agent: ready' "$AG_LOG")
	read -r _t0 _ < /proc/uptime
	uwind agent "$@" >> "$AG_LOG" 2>&1 &
	ag=$!
	_i=0
	while [ "$(grep -c 'uwind agent: ready' "$AG_LOG")" -le "$_n0" ] &&
	    [ $_i -lt 100 ] && kill -0 "$ag" 2>/dev/null; do
		sleep 0.02
		_i=$((_i + 1))
	done
	read -r _t1 _ < /proc/uptime
	ag_ready_ms=$(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
}

# ag_stop: SIGTERM, its exit status in ag_rc.
ag_stop()
{
	kill -TERM "$ag" 2>/dev/null
	wait "$ag"
	ag_rc=$?
	ag=""
}

# ag_idle [S]: wait (at most S seconds, 20) until no request is pending.
ag_idle()
{
	_i=0
	while [ "$(stat_val requests_pending)" != 0 ] && [ $_i -lt $((${1:-20} * 10)) ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# ag_said PATTERN: the agent's lines matching PATTERN, as diagnostics.
ag_said() { grep -E "$1" "$AG_LOG" | tail -n "${2:-5}" | diag; }

# fresh SRC DST: DST a copy of SRC with a build-id no table has.
fresh()
{
	mkdir -p "$(dirname "$2")"
	ag_seed=$((ag_seed + 1))
	/root/uwgen newid "$1" "$2" "$ag_seed"
}

# ag_ret FROM=TO...: the call sites of hot.ret (and the container's) with
# each file FROM named TO, as the copies here are, into INST_RET.
ag_ret()
{
	INST_RET=$T/ag.ret
	{
		cat /root/hot.ret /root/ctr-src/ct.ret 2>/dev/null
		for _m; do
			awk -v f="${_m%%=*}" -v t="${_m#*=}" '
			$1 == f { print t, $2 }
			($1 == "PLT" || $1 == "ENTRY") && $2 == f { print $1, t, $3 }' /root/hot.ret
		done
	} > "$INST_RET"
}

# ag_judge WHAT DATA PROG SPINE [FIRST_MS]: the samples of PROG (a path;
# its comm, the last component) in DATA judged with SPINE, and checked:
# the first whole chain within FIRST_MS (AG_FIRST_MS) of the first
# sample, AG_GOOD% of the samples after it whole.
ag_judge()
{
	_first=${5:-$AG_FIRST_MS}
	_c=$(basename "$3")
	_sp=$HOT_SPINES
	HOT_SPINES="$3:$4"
	hot_chains -e "$2"
	HOT_SPINES=$_sp
	set -- "$1" "$2" "$3" "$4" $(awk -v c="$_c" '$1 == c { print $2, $3, $4, $7, $8 }' "$2.n")
	grep '^# bad' "$2.n"
	awk -v c="$_c" '$1 == c { print "# first sample of " c " at " $3; exit }' "$2.txt"
	[ "$#" -eq 9 ] && [ "$5" -ge $((UW_INST_MIN / 2)) ] &&
		at_least "$AG_GOOD" "$7" "$5" && [ "$9" -le "$_first" ]
	_r=$?
	# What the first samples looked like, when it fails.
	[ $_r -eq 0 ] || awk -v c="$_c" 'BEGIN { RS = "" } $1 == c && n++ < 2' "$2.txt" |
		head -n 24 | diag
	[ $_r -eq 0 ] || echo "# counters during it: $(sdelta "$2.stats")"
	[ $_r -eq 0 ]
	ok $? "(ag) $1: first whole chain ${9:-?} ms after the first sample (<= $_first), then ${7:-?} of ${5:-?} whole ($(pct "${7:-0}" "${5:-0}") >= $AG_GOOD%; ${8:-?} cut short before, ${6:-?} in start-up)"
}

# The production set-up: the module, no debugfs, lockdown, an empty store,
# the agent.
t_agent_setup()
{
	# A module just loaded: none of the earlier parts' tables in it.
	unload
	load
	set -- $(ls -ln /dev/uwind 2>/dev/null)
	[ "${1:-}" = "crw-------" ] && [ "${3:-}" = 0 ]
	ok $? "(ag) /dev/uwind: a character device, root's alone (${1:-none} ${3:-})"
	umount /sys/kernel/debug 2>/dev/null
	! grep -q ' /sys/kernel/debug ' /proc/mounts && [ ! -r "$UW_DBG/stats" ]
	ok $? "(ag) debugfs is not mounted"
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	echo integrity > /sys/kernel/security/lockdown
	_ld=$(cat /sys/kernel/security/lockdown 2>/dev/null)
	case $_ld in *"[integrity]"*) _r=0 ;; *) _r=1 ;; esac
	ok $_r "(ag) the kernel locked down for integrity ($_ld)"
	rm -rf /var/lib/uwind
	: > "$AG_LOG"
	mkdir -p "$AG" /ctr /root/ctr-src
	tar -xf /root/ctr.tar -C /root/ctr-src
	ag_ret
}

# (a) A process started before the agent.
t_agent_before()
{
	fresh /root/hot-qsort "$AG/before/hot-qsort"
	"$AG/before/hot-qsort" 600000 > /dev/null &
	before=$!
	sleep 0.3
	ag_start
	[ "$ag_ready_ms" -le 1000 ] && kill -0 "$ag" 2>/dev/null
	ok $? "(ag) the agent is ready $ag_ready_ms ms after its start (<= 1000)"
	rec "$T/ag-a.data" -p "$before" -- sleep "$(awk -v m="$AG_MS" 'BEGIN { print m / 1000 }')"
	ag_ret "/root/hot-qsort=$AG/before/hot-qsort"
	ag_judge "a process started before the agent" "$T/ag-a.data" \
		"$AG/before/hot-qsort" cmp,sort_once
}

# (b) A program that appears after the agent started.
t_agent_new()
{
	fresh /root/hot-qsort "$AG/new/hot-qsort"
	rec "$T/ag-b.data" -- "$AG/new/hot-qsort" "$AG_MS"
	ag_ret "/root/hot-qsort=$AG/new/hot-qsort"
	ag_judge "a program that appeared after the agent started" \
		"$T/ag-b.data" "$AG/new/hot-qsort" cmp,sort_once
}

# (c) A plugin dlopen'ed from /tmp (the program's own table too).
t_agent_plugin()
{
	fresh /root/hot-plug "$AG/plug/hot-plug"
	fresh /root/lib/libuwplug.so "$AG/plug/lib/libuwplug.so"
	rec "$T/ag-c.data" -- "$AG/plug/hot-plug" "$AG_MS" "$AG/plug/lib/libuwplug.so"
	ag_ret "/root/hot-plug=$AG/plug/hot-plug" \
		"/root/libuwplug.so=$AG/plug/lib/libuwplug.so"
	INST_NEED=$AG/plug/lib/libuwplug.so
	ag_judge "a plugin dlopen'ed from /tmp (its first whole chain: one through the plugin)" \
		"$T/ag-c.data" "$AG/plug/hot-plug" plugged
	INST_NEED=
}

# (d) Another mount namespace: a tmpfs of its own at /ctr with hot-ct and
# another Debian release's ld.so and libc; the same bytes are at /ctr
# outside too, for perf's symbols, but not the same files (the agent has
# only the mapping to go by).
t_agent_container()
{
	# hot-ct, libc.so.6 and the machine's loader (ld-linux-*.so.*).
	_ctf=$(ls /root/ctr-src/hot-ct /root/ctr-src/*.so.*)
	cp $_ctf /ctr/
	rec "$T/ag-d.data" -- unshare -m sh -c "mount -t tmpfs tmpfs /ctr &&
		cp $(echo $_ctf) /ctr/ &&
		exec /ctr/hot-ct $AG_MS"
	ag_ret
	ag_judge "a process in another mount namespace, with Debian $(cat /root/ctr-src/release)'s ld.so and libc" \
		"$T/ag-d.data" /ctr/hot-ct cmp,sort_once
	grep -E '^(installed|[a-z-]+) uid=0 pid=[0-9]+ .*(libc\.so\.6|ld-linux|hot-ct)' "$AG_LOG" |
		tail -n 3 | diag
}

# (e) A program deleted while it runs, another file at its path since.
t_agent_deleted()
{
	fresh /root/hot-qsort "$AG/del/hot-qsort"
	cp "$AG/del/hot-qsort" "$T/del.copy"
	"$AG/del/hot-qsort" 600000 > /dev/null &
	del=$!
	sleep 0.2
	rm "$AG/del/hot-qsort"
	# perf reads the symbols of a deleted file from the path the kernel
	# names it by, " (deleted)" and all: a copy there, for the names.
	cp "$T/del.copy" "$AG/del/hot-qsort (deleted)"
	rec "$T/ag-e.data" -p "$del" -- sleep "$(awk -v m="$AG_MS" 'BEGIN { print m / 1000 }')"
	ag_ret "/root/hot-qsort=$AG/del/hot-qsort"
	ag_judge "a program deleted while it runs" "$T/ag-e.data" \
		"$AG/del/hot-qsort" cmp,sort_once
	grep -q "^.*$AG/del/hot-qsort (deleted)" /proc/"$del"/maps
	ok $? "(ag) its mapping is of the deleted file"
	[ $_r -eq 0 ] || { grep "$AG/del/" "$AG_LOG"; uwind status -p "$del"; } | diag
	kill "$del" 2>/dev/null
	wait "$del" 2>/dev/null
}

# (f) Deferred callchains, where the kernel has them (7.x).
t_agent_defer()
{
	if ! awk '/^\[/ { on = ($0 == "[hooks]"); next } on' "$UW_DEV" |
	    grep -q '^unwind_user on'; then
		skip "(ag) deferred callchains" "this kernel has no deferred user unwinding (CONFIG_UNWIND_USER)"
		return
	fi
	fresh /root/hot-qsort "$AG/defer/hot-qsort"
	UW_CALLGRAPH="--call-graph fp,defer"
	rec "$T/ag-f.data" -- "$AG/defer/hot-qsort" "$AG_MS"
	UW_CALLGRAPH=
	ag_ret "/root/hot-qsort=$AG/defer/hot-qsort"
	ag_judge "perf --call-graph fp,defer (deferred callchains)" \
		"$T/ag-f.data" "$AG/defer/hot-qsort" cmp,sort_once
}

# uwind status through the device: every mapping of process (a) covered
# but a vDSO without CFI (arm64's: the kernel builds it without), which
# is not coverable, with the reason; a file with no CFI at all not
# coverable, and why.
t_agent_status()
{
	uwind status -p "$before" --json > "$T/ag-st.json" 2> "$T/ag-st.err"
	_r=$?
	_cov=$(tr ',' '\n' < "$T/ag-st.json" | grep -c '"state": *"covered"')
	_all=$(tr ',' '\n' < "$T/ag-st.json" | grep -c '"state":')
	_dev=$(tr ',' '\n' < "$T/ag-st.json" | grep -c '"device": *true')
	# One object a mapping: those not covered.
	tr -d '\n' < "$T/ag-st.json" | tr '}' '\n' | grep '"state":' |
		grep -v '"state": *"covered"' > "$T/ag-st.not"
	_vd=$(grep -c '"path": *"\[vdso\]".*"reason": *"[^"]' "$T/ag-st.not")
	_why=$(sed -n 's/.*"path": *"\[vdso\]".*"reason": *"\([^"]*\)".*/\1/p' "$T/ag-st.not")
	[ $_r -eq 0 ] && [ "$_dev" -eq 1 ] && [ "$_all" -ge 4 ] &&
		[ $((_cov + _vd)) -eq "$_all" ] && [ "$_vd" -le 1 ] &&
		! grep -v '"state": *"not-coverable"' "$T/ag-st.not" | grep -q .
	ok $? "(ag) uwind status --json, from /dev/uwind: $_cov of $_all mappings of process (a) covered$([ "$_vd" -eq 0 ] || echo ", and the vDSO not coverable ($_why)")"
	diag < "$T/ag-st.not"
	[ $_r -eq 0 ] || diag < "$T/ag-st.err"
	kill "$before" 2>/dev/null
	wait "$before" 2>/dev/null

	/root/uwgen junk "$AG/nocfi.so" 0 1
	/root/uwgen map 600 "$AG/nocfi.so" &
	_p=$!
	perf record -q -e cpu-clock -F 500 -g -p "$_p" -o /dev/null -- sleep 1 > /dev/null 2>&1
	ag_idle 10
	uwind status -p "$_p" > "$T/ag-st2.txt" 2>&1
	grep -q "^  fp  *$AG/nocfi.so (no DWARF CFI)" "$T/ag-st2.txt" &&
		grep -q "^no-cfi uid=0 pid=$_p $AG/nocfi.so" "$AG_LOG"
	ok $? "(ag) a file without CFI: the agent says no-cfi, uwind status says it cannot have a table and why"
	grep "nocfi" "$T/ag-st2.txt" | diag
	ag_said nocfi
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
}

# One user (uid 1000) floods the agent while another (uid 1001) starts a
# program: files of 16 MiB of malformed CFI (each takes a worker for
# seconds), one file rewritten while it is converted, then 192 distinct
# programs started at once; uid 1000's conversion time budget small.  The
# other user's program must still have its first whole chain within
# AG_FIRST_MS; the agent's and the module's memory stay within their
# bounds, uid 1000 is held to its budget.
AG_FLOOD=192		# distinct programs of uid 1000: 3 x 64 (uwspawn's most)
t_agent_flood()
{
	ag_stop
	ag_start -v --user-cpu 3 --time-limit 30 --mem-limit 256
	mkdir -p "$AG/a/0" "$AG/a/1" "$AG/a/2" "$AG/b"
	for b in 0 1 2; do
		/root/uwgen newid /root/uwgen "$AG/a/$b/u%d" \
			$((ag_seed + 1000 + b * 100)) 64
	done
	for i in 0 1 2; do
		/root/uwgen junk "$AG/a/junk$i.so" 16 "$((ag_seed + i))"
	done
	fresh /usr/bin/perf "$AG/a/big"
	chown -R 1000:1000 "$AG/a"
	fresh /root/hot-qsort "$AG/b/hot-qsort"
	p0=$(stat_val requests_dropped)
	# Everything sampled, so that the mappings of uid 1000's processes
	# are seen.
	perf record -q -a -e cpu-clock -F 200 -g -o /dev/null -- sleep 20 \
		> /dev/null 2>&1 &
	_all=$!
	/root/uwspawn 1000 1 /root/uwgen map 60 "$AG/a/big" > /dev/null 2>&1 &
	# Rewritten in place while the agent converts it.
	_i=0
	while ! grep -q "^converting uid=1000 .*$AG/a/big" "$AG_LOG" && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	sleep 0.2
	cat "$AG/a/junk0.so" > "$AG/a/big"
	/root/uwspawn 1000 1 /root/uwgen map 60 "$AG/a/junk0.so" "$AG/a/junk1.so" \
		"$AG/a/junk2.so" > /dev/null 2>&1 &
	sleep 2
	for b in 0 1 2; do
		/root/uwspawn 1000 64 "$AG/a/$b/u%d" sleep 20 > /dev/null 2>&1 &
	done
	sleep 1
	# Longer than the others: its share of the CPUs is small meanwhile,
	# and its exit (libc and ld.so, no frame of its own) a fixed cost.
	rec "$T/ag-g.data" -- /root/uwspawn 1001 1 "$AG/b/hot-qsort" $((AG_MS * 4))
	ag_ret "/root/hot-qsort=$AG/b/hot-qsort"
	ag_judge "uid 1001's new program while uid 1000 floods the agent ($AG_FLOOD programs, 3 files of 16 MiB of malformed CFI, one rewritten while converted)" \
		"$T/ag-g.data" "$AG/b/hot-qsort" cmp,sort_once "$AG_FLOOD_FIRST_MS"
	ag_said "uid=1001 "
	# Its conversion began at once: the time from the agent's reading of
	# the request to its answer, less the conversion's own.
	_w=$(awk '$1 == "installed" && $2 == "uid=1001" {
		gsub(/[(,]/, ""); print int(($(NF - 4) - $(NF - 6)) * 1000) }' "$AG_LOG" | head -n 1)
	[ -n "$_w" ] && [ "$_w" -le 500 ]
	ok $? "(ag) uid 1001's conversion started ${_w:-?} ms after the agent read its request (<= 500: a worker of another uid's is stopped for it within 250 ms), uid 1000's workers and root's notwithstanding"
	echo "# counters during it: $(sdelta "$T/ag-g.data.stats")"
	wait "$_all" 2>/dev/null
	ag_idle 60
	_hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$ag/status")
	_upend=$(stat_val requests_user_pending_max)
	_pend=$(stat_val requests_pending_max)
	_drop=$(($(stat_val requests_dropped) - p0))
	# Past its budget by now (the junk alone takes seconds): a new
	# program of uid 1000's is refused whenever it comes.
	fresh /root/hot-qsort "$AG/a/late"
	chown 1000:1000 "$AG/a/late"
	perf record -q -e cpu-clock -F 500 -g -o /dev/null -- \
		/root/uwspawn 1000 1 "$AG/a/late" 300 > /dev/null 2>&1
	ag_idle 10
	_late=$(grep -c "^user-budget uid=1000 .*$AG/a/late" "$AG_LOG")
	_bud=$(grep -c '^user-budget uid=1000 ' "$AG_LOG")
	_b=$(grep -cE '^(user-budget|store-full) uid=1001 ' "$AG_LOG")
	ag_said '^[a-z-]+ uid=1000 .*(junk|big)' 8
	awk '$2 ~ /^uid=/ { print $1, $2 }' "$AG_LOG" | sort | uniq -c | diag
	echo "# agent VmHWM $_hwm kB, most pending ${_pend} (one uid: $_upend), $_drop dropped, uid 1000: $_bud over its CPU budget"
	kill -0 "$ag" 2>/dev/null
	ok $? "(ag) the agent still runs after the flood"
	[ "${_hwm:-999999}" -le 65536 ]
	ok $? "(ag) the agent's memory: VmHWM ${_hwm:-?} kB (<= 64 MiB; its workers are limited apart)"
	grep -qE "^(gone|failed|too-big|installed|refused) uid=1000 [^ ]* $AG/a/big" "$AG_LOG"
	ok $? "(ag) the file rewritten while converted: answered ($(grep -E "^[a-z-]+ uid=1000 [^ ]* $AG/a/big" "$AG_LOG" | head -n 1 | cut -d: -f2-))"
	[ "$_late" -ge 1 ] && [ "$_b" -eq 0 ]
	ok $? "(ag) uid 1000 held to its conversion time ($_bud requests answered user-budget, its program after the flood among them: $_late), uid 1001 never"
	ag_said "^[a-z-]+ uid=1000 .*$AG/a/late" 2
	[ "$_upend" -le 64 ] && [ "$_pend" -le 512 ] && [ "$_drop" -ge 1 ]
	ok $? "(ag) the module's requests: at most $_upend of one uid pending (<= 64), $_pend in all (<= 512); $_drop dropped and counted"
	killall uwgen 2>/dev/null
}

# The store: one uid's tables within --user-store, all of them within
# --store-max; root's not counted in a share.  Two users (1000, 1002)
# each start 48 programs no table exists for (each table 562 bytes or so).
# What the tables found by find ARGS cost the store, as the agent counts:
# each its blocks on disk, at least its size in whole blocks.
ag_cost()
{
	find "$AG_STORE" -name '*.uwsf' "$@" -exec stat -c '%s %b %B %o' {} + |
		awk '{ n = int(($1 + $4 - 1) / $4) * $4; u = $2 * $3
		       s += u > n ? u : n } END { print s + 0 }'
}

t_agent_share()
{
	ag_stop
	_base=$(ag_cost)
	ag_start --user-store 0.02 --store-max "$(awk -v b="$_base" 'BEGIN { printf "%.6f", (b + 30 * 1024) / 1048576 }')"
	mkdir -p "$AG/s/1000" "$AG/s/1002"
	for u in 1000 1002; do
		/root/uwgen newid /root/uwgen "$AG/s/$u/u%d" $((ag_seed + u * 100)) 48
		chown -R "$u:$u" "$AG/s/$u"
	done
	: > "$T/share.mark"
	for u in 1000 1002; do
		/root/uwspawn "$u" 48 "$AG/s/$u/u%d" sleep 15 > /dev/null 2>&1 &
	done
	sleep 2
	ag_idle 30
	_t=$(find "$AG_STORE" -name '*.uwsf' -newer "$T/share.mark" | head -n 1)
	_sz=$(stat -c %s "$_t" 2>/dev/null || echo 0)
	_new=$(ag_cost -newer "$T/share.mark")
	_i1=$(grep -c "^installed uid=1000 .*$AG/s/1000/" "$AG_LOG")
	_i2=$(grep -c "^installed uid=1002 .*$AG/s/1002/" "$AG_LOG")
	_f1=$(grep -c "^store-full uid=1000 " "$AG_LOG")
	_f2=$(grep -c "^store-full uid=1002 " "$AG_LOG")
	ag_said "uid=100[02] .*$AG/s/" 4
	# A table's cost, in blocks: the same for each (the same generator).
	_one=$(ag_cost -path "$_t")
	echo "# tables of $_sz bytes ($_one on disk): uid 1000 $_i1 installed, $_f1 refused; uid 1002 $_i2 installed, $_f2 refused; $_new bytes new in all"
	[ "$_one" -gt 0 ] && [ $((_i1 * _one)) -le 20972 ] &&
		[ $((_i2 * _one)) -le 20972 ] &&
		[ "$_f1" -ge 1 ] && [ "$_f2" -ge 1 ]
	ok $? "(ag) each uid's tables within --user-store 20 KiB: uid 1000 $((_i1 * _one)) bytes, uid 1002 $((_i2 * _one)) bytes on disk, the rest refused (store-full)"
	[ "$_new" -le $((30 * 1024)) ] && [ "$_new" -gt 0 ]
	ok $? "(ag) the store within --store-max: $_new bytes of tables made on disk (<= 30 KiB of room)"
	killall uwgen 2>/dev/null
}

# The agent killed (SIGKILL) in the middle of a conversion, and started
# again: no table from the one killed (the table it was making is not
# there), its worker gone with it, no temporary file left once it is
# back, the file converted then.
t_agent_kill()
{
	ag_stop
	ag_start
	fresh /usr/bin/perf "$AG/kill/big"
	/root/uwgen map 600 "$AG/kill/big" &
	_p=$!
	sleep 0.1
	# Where its table goes, as uwind status says from the file.
	_t=$(uwind status -p "$_p" --json | tr -d ' ' | tr ',' '\n' |
		awk -v f="\"path\":\"$AG/kill/big\"" '$0 == f { on = 1 }
		on && /^"table":/ { gsub(/"/, "", $0); sub(/^table:/, ""); print; exit }')
	perf record -q -e cpu-clock -F 500 -g -p "$_p" -o /dev/null -- sleep 0.5 > /dev/null 2>&1 &
	_i=0
	while ! ls "$AG_STORE"/.agent.*.tmp > /dev/null 2>&1 && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	_old=$ag
	kill -KILL "$ag"
	wait "$ag" 2>/dev/null
	sleep 0.3
	_tmp=$(ls "$AG_STORE"/.agent.$_old.*.tmp 2>/dev/null | wc -l)
	_left=$(ps | grep -c '[u]wind agent')
	ps | grep '[u]wind' | diag
	[ -n "$_t" ] && [ ! -e "$_t" ] && [ "$_i" -lt 200 ] && [ "$_left" -eq 0 ]
	ok $? "(ag) the agent killed mid-conversion: no table at ${_t:-?}, its worker gone with it ($_tmp temporary file left, $_left agent processes)"
	ag_start
	_tmp=$(ls "$AG_STORE"/.agent.$_old.*.tmp 2>/dev/null | wc -l)
	_i=0
	while [ ! -f "$_t" ] && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -n "$_t" ] && [ -f "$_t" ] && [ "$_tmp" -eq 0 ] &&
		grep -q "^installed uid=0 pid=$_p $AG/kill/big" "$AG_LOG"
	ok $? "(ag) started again: the temporary file removed ($_tmp left), the request given back and the table made"
	ag_said "kill/big"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
}

# rmmod while the module holds requests (no agent running).
t_agent_rmmod()
{
	ag_stop
	[ "$ag_rc" -eq 0 ] && grep -q '^uwind agent: stopped' "$AG_LOG"
	ok $? "(ag) SIGTERM: the agent ends with status 0 ($ag_rc)"
	fresh /root/hot-qsort "$AG/q/hot-qsort"
	"$AG/q/hot-qsort" 3000 > /dev/null &
	_p=$!
	perf record -q -e cpu-clock -F 500 -g -p "$_p" -o /dev/null -- sleep 0.5 > /dev/null 2>&1
	_w=$(stat_val requests_waiting)
	rmmod uwind
	_r=$?
	! loaded && [ "${_w:-0}" -ge 1 ] && [ $_r -eq 0 ]
	ok $? "(ag) rmmod with ${_w:-0} requests queued: unloaded"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
}

t_agent()
{
	for _a in setup before new plugin container deleted defer status \
	    flood share kill rmmod; do
		sec "agent $_a"
		"t_agent_$_a"
	done
	echo "# the agent: $(grep -c '^installed ' "$AG_LOG") tables installed; its last lines:"
	tail -n 12 "$AG_LOG" | diag
}
