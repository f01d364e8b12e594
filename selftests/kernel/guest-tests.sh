#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The kernel module's tests, run inside the test guest (busybox sh) by
# selftests/kernel/kernel.sh, from /root, with uwind.ko, perf and the
# programs of selftests/kernel beside it (libraries in /root/lib).  Nothing
# is loaded at boot.  Prints "UWTAP: ok - ..." lines (guest-lib.sh).
#
# A "full chain" sample: its innermost user frame is the program's leaf
# and the next user frames are exactly the expected callers (perf script
# output, see chains() in guest-lib.sh).  With the module at least
# UW_GOOD percent (99) of the leaf samples must be full chains; without
# it, or with it disabled, at most UW_BROKEN percent (10: the measured
# baseline is 0) of the samples of the program built without frame
# pointers are.
#
# "uwind_only=NAME,NAME" on the kernel command line runs only those parts
# (names below, in t_NAME), in the order given; the default is all.  A
# caller that sets UW_PARTS runs those instead, whatever the command line
# says (selftests/kernel-arm64/guest-tests.sh runs the parts that apply
# to arm64).  UW_SLOW (default 1) multiplies
# how long the programs run and are sampled, for a slower guest: the
# arm64 guest samples at 499 Hz, where this one samples at 2000.

. /root/guest-lib.sh
. /root/guest-inst.sh	# t_inst: installed tables
. /root/guest-agent.sh	# t_agent: tables on demand (last before dmesg)
. /root/guest-debug.sh	# t_stress, t_faults: the debug kernel's

UW_GOOD=${UW_GOOD:-99}
UW_BROKEN=${UW_BROKEN:-10}
UW_MIN=${UW_MIN:-200}		# leaf samples a run must have
UW_TINY=${UW_TINY:-1000}	# short-lived processes in (e)
UW_SLOW=${UW_SLOW:-1}
T=/tmp

sec()
{
	read -r _up _ < /proc/uptime
	echo "# [$_up] $*"
}

LEAF=leaf_c,leaf_b,leaf_a,main
CHAIN=chain_leaf,chain_cb,lib_enter,main
# glibc's restorer (__restore_rt) is not in libc's dynamic symbols.
SIGCHAIN=sig_c,sig_b,handler,@libc.so.6,outer,main
DROP=pd_c,pd_b,pd_a,pd_worker
CHAIN_FP=chain_leaf,chain_cb,fp_lib_func,main
THREAD=spin,thr_y,thr_x,worker

# The programs and their libraries are all there.
t_progs()
{
	r=0
	for p in "leaf-sf 10" "leaf-fp 10" "chain 10" "chain-dl 10" \
	    "chain-fp 10" "threads 10" "tiny" "tiny-dyn"; do
		# shellcheck disable=SC2086
		/root/$p > "$T/run.out" 2>&1 ||
			{ r=1; echo "# $p failed:"; diag < "$T/run.out"; }
	done
	ok "$r" "the guest programs run (dynamic ones find their libraries, dlopen works)"
}

# (a) the baseline: no module.
t_base()
{
	unload
	rec "$T/a0.data" -- /root/leaf-sf "$(ms 1000)"
	ok $? "perf record -g of leaf-sf without the module"
	expect_broken "(a) without the module (baseline)" "$T/a0.data" \
		leaf-sf "$LEAF"
	base_full=$m_full base_inc=$m_inc
}

# insmod while a process runs: it is covered too.
t_running()
{
	unload
	bg_prog leaf-sf 60000
	sleep 0.5
	load
	ok $? "insmod uwind.ko (no parameters)"
	for f in enable stats tables gc; do
		[ -e "$UW_DBG/$f" ] || echo "# no $UW_DBG/$f"
	done
	[ -r "$UW_DBG/stats" ] && [ -r "$UW_DBG/tables" ] &&
		[ -e "$UW_DBG/gc" ] &&
		[ "$(cat "$UW_DBG/enable" 2>/dev/null)" = Y ]
	ok $? "debugfs: enable reads Y, stats, tables and gc exist"
	diag < "$UW_DBG/stats"
	rec "$T/run.data" -p "$bg" -- sleep "$UW_SLOW"
	ok $? "perf record -g -p of a process started before insmod"
	tables_of "$bg" | diag
	st=$(table_state "$bg" /root/leaf-sf)
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	expect_full "(a) process running before insmod" "$T/run.data" \
		leaf-sf "$LEAF"
	[ "$st" = sframe ]
	ok $? "tables: the running leaf-sf's own mapping is 'sframe' (got '$st')"
}

# What the module hooked on this kernel (debugfs "hooks", compat.h), against
# what the kernel offers ftrace (available_filter_functions): unwind_user
# on where the kernel has it (7.x), off with the reason elsewhere; every
# unmap function the kernel has traced, and at least one of them.
t_hooks()
{
	load
	_ff=/sys/kernel/tracing/available_filter_functions
	[ -r "$_ff" ] || _ff=/sys/kernel/debug/tracing/available_filter_functions
	diag < "$UW_DBG/hooks"
	r=0
	if grep -q '^unwind_user$' "$_ff"; then
		grep -q '^unwind_user on$' "$UW_DBG/hooks" || r=1
	else
		grep -q '^unwind_user off (' "$UW_DBG/hooks" || r=1
	fi
	ok $r "hooks: unwind_user $(awk '$1 == "unwind_user" { $1 = ""; print }' "$UW_DBG/hooks") where the kernel $(grep -q '^unwind_user$' "$_ff" && echo has || echo "has no") unwind_user()"
	r=0 on=0
	for f in unlink_file_vma_batch_add unlink_file_vma; do
		st=$(awk -v f="$f" '$1 == f { print $2 }' "$UW_DBG/hooks")
		[ "$st" = on ] && on=$((on + 1))
		if grep -q "^$f\$" "$_ff"; then
			[ "$st" = on ] || r=1
		else
			[ "$st" = off ] || r=1
		fi
	done
	[ $on -ge 1 ] || r=1
	ok $r "hooks: every unmap function this kernel has is traced ($on)"
	grep -q '^perf_callchain_user on$' "$UW_DBG/hooks"
	ok $? "hooks: perf_callchain_user on"
}

# mem_now: mms, files and bytes_held into m_mms, m_files, m_bytes, read
# with the shell's builtins: a program run to read them (awk) would be
# scanned at its exec and counted itself, or not, as the workqueue goes.
mem_now()
{
	while read -r _k _v; do
		case $_k in
		mms) m_mms=$_v ;;
		files) m_files=$_v ;;
		bytes_held) m_bytes=$_v ;;
		esac
	done < "$UW_DBG/stats"
}

# The memory baseline for t_tiny: taken once no program of ours runs.
mem_baseline()
{
	echo 1 > "$UW_DBG/gc"
	mem_now
	base_mms=$m_mms base_bytes=$m_bytes base_files=$m_files
	echo "# memory baseline: mms $base_mms, files $base_files," \
		"bytes_held $base_bytes"
}

# (a) a new process, with the module.
t_leaf()
{
	load
	[ -n "${base_mms:-}" ] || mem_baseline
	s0=$(stat_val samples) f0=$(stat_val frames_sframe)
	rec "$T/a1.data" -- /root/leaf-sf "$(ms 1000)"
	ok $? "perf record -g of leaf-sf with the module"
	s1=$(stat_val samples) f1=$(stat_val frames_sframe)
	e1=$(($(stat_val end_past_entry) - $(awk '$1 == "end_past_entry" { print $2 }' "$T/a1.data.stats")))
	expect_full "(a) with the module" "$T/a1.data" leaf-sf "$LEAF"
	# (n) Where the walks ended: past main, not broken in libc.
	[ "$m_full" -ge "$UW_MIN" ] && at_least 99 "$e1" "$m_full"
	ok $? "(n) leaf-sf: end_past_entry +$e1, >= 99% of its $m_full full chains: they end past main, not in libc"
	echo "# stats: samples +$((s1 - s0)), frames_sframe +$((f1 - f0))"
	[ $((s1 - s0)) -ge "$m_user" ] && [ $((f1 - f0)) -ge $((3 * m_full)) ]
	ok $? "stats: samples +$((s1 - s0)) >= $m_user, frames_sframe +$((f1 - f0)) >= 3 x $m_full"
	[ -z "${base_inc:-}" ] ||
		echo "# (a) summary: without the module $base_full of" \
			"$base_inc ($(pct "$base_full" "$base_inc")), with it" \
			"$m_full of $m_inc ($(pct "$m_full" "$m_inc"))"
}

# The switch: debugfs and the module parameter.
t_enable()
{
	load
	echo 0 > "$UW_DBG/enable"
	[ "$(cat "$UW_DBG/enable")" = N ]
	ok $? "debugfs enable: writing 0 reads N"
	s0=$(stat_val samples) p0=$(stat_val passed_to_kernel)
	rec "$T/a2.data" -- /root/leaf-sf "$(ms 700)"
	s1=$(stat_val samples) p1=$(stat_val passed_to_kernel)
	expect_broken "(a) module loaded, enable=0" "$T/a2.data" leaf-sf "$LEAF"
	# Switched off, every sample goes to the kernel's own walker.
	[ "$s1" -eq "$s0" ] && [ $((p1 - p0)) -ge "$m_user" ]
	ok $? "enable=0: passed_to_kernel +$((p1 - p0)) >= $m_user, samples +$((s1 - s0)) = 0"
	echo 1 > "$UW_DBG/enable"
	[ "$(cat "$UW_DBG/enable")" = Y ]
	ok $? "debugfs enable: writing 1 reads Y"
	# The module parameter sets the state at load.
	unload && insmod "$UW_KO" enable=0 &&
		[ "$(cat "$UW_DBG/enable")" = N ] && unload && load &&
		[ "$(cat "$UW_DBG/enable")" = Y ]
	ok $? "insmod enable=0 starts switched off, without it on"
	[ -z "${base_mms:-}" ] || mem_baseline
}

# A walk cut short by the sample's depth (perf_event_max_stack) is
# counted as a depth stop, also when perf's entry fills up first.
t_depth()
{
	load
	_max=$(cat /proc/sys/kernel/perf_event_max_stack)
	echo 3 > /proc/sys/kernel/perf_event_max_stack
	d0=$(stat_val stop_depth)
	rec "$T/depth.data" -- /root/leaf-sf "$(ms 500)"
	_r=$?
	d1=$(stat_val stop_depth)
	echo "$_max" > /proc/sys/kernel/perf_event_max_stack
	measure "$T/depth.data" leaf-sf leaf_c
	[ "$_r" -eq 0 ] && [ "$m_inc" -gt 0 ] && [ $((d1 - d0)) -ge "$m_inc" ]
	ok $? "perf_event_max_stack=3: stop_depth +$((d1 - d0)) >= $m_inc samples in leaf_c()"
}

# max_total_mb: past the cap a file gets no table, and says why.
t_cap()
{
	unload && insmod "$UW_KO" max_total_mb=0
	ok $? "insmod max_total_mb=0"
	o0=$(stat_val tables_over_max_total)
	bg_prog leaf-sf 60000
	sleep 0.5
	rec "$T/cap.data" -p "$bg" -- sleep 0.5
	tables_of "$bg" | diag
	st=$(table_state "$bg" /root/leaf-sf)
	o1=$(stat_val tables_over_max_total)
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	[ "$st" = over-max_total_mb ] && [ $((o1 - o0)) -ge 1 ]
	ok $? "max_total_mb=0: leaf-sf's mapping is 'over-max_total_mb' (got '$st'), tables_over_max_total +$((o1 - o0))"
	unload && load
	ok $? "reload without parameters"
}

# meminfo KEY: a /proc/meminfo value, in kB.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# spawn_at_once UID N PROG ARGS...: start N processes of PROG (a "%d" in
# it numbers them) at once as UID (uwspawn), in the background; their
# pids in $T/spawn.pids, the spawner's in sp.
spawn_at_once()
{
	: > "$T/spawn.pids"
	/root/uwspawn "$@" > "$T/spawn.pids" &
	sp=$!
	_i=0
	while [ "$(grep -c . "$T/spawn.pids")" -lt "$2" ] && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# own_states PATTERN: the module's state for the mapping of PATTERN.K in
# the K-th process of $T/spawn.pids, for each K in order ("-" while it is
# not scanned yet), on one line.
own_states()
{
	awk -v pat="${1##*/}" '
	NR == FNR { idx[$1] = n++; next }
	$1 == "pid" { cur = ($2 in idx) ? idx[$2] : -1; next }
	cur >= 0 && $2 == pat "." cur && !(cur in st) { st[cur] = $3 }
	END { for (k = 0; k < n; k++) printf " %s", (k in st) ? st[k] : "-" }
	' "$T/spawn.pids" "$UW_DBG/tables"
}

# watch_scans PATTERN: until every process of $T/spawn.pids has a state
# for its own PATTERN.K file (at most about 60 s), follow the module's
# bytes and the guest's MemAvailable: peak_bytes (bytes_held), low_avail
# (kB); state_list: the states then (own_states).
watch_scans()
{
	peak_bytes=0 low_avail=$(meminfo MemAvailable)
	_i=0
	while [ $_i -lt 300 ]; do
		_b=$(stat_val bytes_held)
		_m=$(meminfo MemAvailable)
		[ "$_b" -gt "$peak_bytes" ] && peak_bytes=$_b
		[ "$_m" -lt "$low_avail" ] && low_avail=$_m
		state_list=$(own_states "$1")
		case "$state_list " in
		*" - "*) ;;
		*) break ;;
		esac
		sleep 0.1
		_i=$((_i + 1))
	done
	_b=$(stat_val bytes_held)
	[ "$_b" -gt "$peak_bytes" ] && peak_bytes=$_b
}

# reap: end the processes of $T/spawn.pids and their spawner.
reap()
{
	# shellcheck disable=SC2046
	kill $(cat "$T/spawn.pids") 2>/dev/null
	wait "$sp" 2>/dev/null
}

# count WORD LIST...: how many of LIST are WORD.
count() { _w=$1; shift; _c=0; for _x; do [ "$_x" = "$_w" ] && _c=$((_c + 1)); done; echo $_c; }

# (j) max_total_mb holds when tables load at once: twelve copies of a
# program whose table needs 64 MiB (a sparse file, a valid table), started
# at the same moment by an ordinary user.  The cap may be passed by at
# most one table, and the guest keeps half its memory.
t_conc()
{
	unload && insmod "$UW_KO" max_user_pct=100
	ok $? "insmod max_user_pct=100 (the global cap alone)"
	/root/sframe-grow grow 64 /root/leaf-sf "$T/big" 12
	ok $? "twelve sparse copies of leaf-sf with 64 MiB tables"
	cap=$(($(cat /sys/module/uwind/parameters/max_total_mb) << 20))
	total=$(meminfo MemTotal)
	echo 1 > "$UW_DBG/gc"
	b0=$(stat_val bytes_held) a0=$(meminfo MemAvailable)
	spawn_at_once 1000 12 "$T/big.%d" 60000
	watch_scans "$T/big"
	reap
	echo "# states:$state_list"
	echo "# bytes_held $b0 before, peak $peak_bytes (cap $cap);" \
		"MemAvailable $a0 kB before, lowest $low_avail kB of $total kB"
	nload=$(count sframe $state_list)
	nover=$(count over-max_total_mb $state_list)
	[ "$nload" -ge 1 ] && [ "$nover" -ge 1 ] &&
		[ $((nload + nover)) -eq 12 ]
	ok $? "(j) 12 at once: $nload tables loaded, $nover over max_total_mb"
	[ "$peak_bytes" -le $((cap + (64 << 20))) ]
	ok $? "(j) bytes held peaked at $((peak_bytes >> 20)) MiB <= cap $((cap >> 20)) MiB + one table"
	[ "$low_avail" -ge $((total / 2)) ]
	ok $? "(j) MemAvailable stayed above half the guest's memory (lowest $((low_avail >> 10)) MiB of $((total >> 10)) MiB)"
	rm -f "$T"/big.*
	unload && load
}

# (k) a table costs what its header says it holds: leaf-sf's table (a
# 226-byte section) in a segment declared 64 MiB is loaded at its own
# size, not copied whole.
t_pad()
{
	load
	/root/sframe-grow pad 64 /root/leaf-sf "$T/pad" 6
	# The section's size, as the linker made it (kernel-guest.sh): a
	# table costs at most that.
	read -r sfsz _ < /root/leaf-sf.sframe-size || sfsz=0
	ok $? "six sparse copies of leaf-sf whose $sfsz-byte table claims 64 MiB"
	echo 1 > "$UW_DBG/gc"
	b0=$(stat_val bytes_held) t0=$(stat_val table_bytes)
	spawn_at_once 1000 6 "$T/pad.%d" 60000
	watch_scans "$T/pad"
	t1=$(stat_val table_bytes)
	reap
	echo "# states:$state_list; bytes_held $b0 before, peak $peak_bytes;" \
		"table_bytes $t0 before, $t1 after"
	[ "$(count sframe $state_list)" -eq 6 ]
	ok $? "(k) all six have their table ('sframe')"
	[ $((peak_bytes - b0)) -lt $((1 << 20)) ] &&
		[ "$sfsz" -gt 0 ] && [ $((t1 - t0)) -le $((6 * sfsz)) ]
	ok $? "(k) they cost $((peak_bytes - b0)) bytes in all (< 1 MiB), their tables $((t1 - t0)) (<= 6 x $sfsz)"
	rm -f "$T"/pad.*
}

# (l) one uid cannot take more than its share of max_total_mb, and what it
# was refused stays open to others: with max_total_mb=64 and
# max_user_pct=25 (16 MiB a user), uid 1000 starts six programs with
# 12 MiB tables, then uid 1001 runs a copy uid 1000 was refused.
t_user()
{
	unload && insmod "$UW_KO" max_total_mb=64 max_user_pct=25
	ok $? "insmod max_total_mb=64 max_user_pct=25"
	/root/sframe-grow grow 12 /root/leaf-sf "$T/usr" 6
	spawn_at_once 1000 6 "$T/usr.%d" 60000
	sp1=$sp
	cp "$T/spawn.pids" "$T/usr.pids"
	watch_scans "$T/usr"
	s1=$state_list
	diag < "$UW_DBG/users"
	u1000=$(awk '$1 == 1000 { print $2 }' "$UW_DBG/users")
	echo "# uid 1000:$s1"
	# uid 1001 runs a file uid 1000 was refused (which one is a race).
	k=$(echo "$s1" | awk '{ for (i = 1; i <= NF; i++) if ($i == "over-max_user_pct") { print i - 1; exit } }')
	last=$(echo "$s1" | awk -v k="${k:-0}" '{ print $(k + 1) }')
	spawn_at_once 1001 1 "$T/usr.${k:-0}" 60000
	sp2=$sp
	_i=0 s2=""
	while [ -z "$s2" ] && [ $_i -lt 100 ]; do
		s2=$(table_state "$(cat "$T/spawn.pids")" "usr.${k:-0}")
		[ -n "$s2" ] || sleep 0.1
		_i=$((_i + 1))
	done
	diag < "$UW_DBG/users"
	u1001=$(awk '$1 == 1001 { print $2 }' "$UW_DBG/users")
	# shellcheck disable=SC2046
	kill $(cat "$T/usr.pids" "$T/spawn.pids") 2>/dev/null
	wait "$sp1" "$sp2" 2>/dev/null
	nload=$(count sframe $s1)
	nuser=$(count over-max_user_pct $s1)
	[ "$nload" -eq 1 ] && [ "$nuser" -eq 5 ] &&
		[ "${u1000:-0}" -le $((16 << 20)) ]
	ok $? "(l) uid 1000: $nload table loaded, $nuser over its share, it holds ${u1000:-0} bytes <= 16 MiB"
	[ "$last" = over-max_user_pct ] && [ "$s2" = sframe ] &&
		[ "${u1001:-0}" -gt 0 ]
	ok $? "(l) uid 1001 gets the table uid 1000 was refused ('$last' for uid 1000, '$s2' for uid 1001, ${u1001:-0} bytes)"
	[ "$(stat_val tables_over_max_user)" -ge 5 ]
	ok $? "(l) stats: tables_over_max_user $(stat_val tables_over_max_user) >= 5"
	rm -f "$T"/usr.*
	unload && load
}

# (m) a frame-pointer guess outside every executable mapping ends the
# walk, counted, and is not reported: fpjunk's spin_junk() has no table
# and points %rbp at a record whose return address is a stack address.
t_fpjunk()
{
	load
	# 60 s, killed after the recording: under CI's load perf's start
	# alone may take seconds (once in CI no sample of fpjunk was taken
	# at all when it ran for ms 6000; perhaps it had ended).
	bg_prog fpjunk 60000
	wait_comm "$bg" fpjunk
	sleep 0.5
	o0=$(stat_val stop_fp_outside)
	rec "$T/fpj.data" -p "$bg" -- sleep "$UW_SLOW"
	o1=$(stat_val stop_fp_outside)
	st=$(cut -d' ' -f3 "/proc/$bg/stat" 2>/dev/null)
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	report "(m) fpjunk" "$T/fpj.data" fpjunk "spin_junk,[unknown]"
	if [ "$m_inc" -lt "$UW_MIN" ]; then
		echo "# fpjunk (pid $bg, state ${st:-gone} after the recording):"
		diag < "$T/fpjunk.out"
		diag < "$T/fpj.data.log"
		pscript "$T/fpj.data" | head -n 8 | diag
	fi
	[ "$m_inc" -ge "$UW_MIN" ] && [ "$m_full" -eq 0 ]
	ok $? "(m) $m_full of $m_inc samples in spin_junk() report the guessed frame outside every mapping (0 expected)"
	at_least 90 $((o1 - o0)) "$m_inc"
	ok $? "(m) stop_fp_outside +$((o1 - o0)) >= 90% of $m_inc"
	grep -q ' /root/fpjunk$' "$UW_DBG/breaks"
	ok $? "(m) debugfs breaks lists /root/fpjunk (no row for spin_junk)"
}

# (n) where walks end: memloop's break in libc's memcpy (end_no_table),
# and "breaks" lists libc first, while leaf-sf's full chains end past
# main (end_past_entry, checked in t_leaf).  Every walk ends in exactly
# one of the end_* counters.
t_breaks()
{
	unload && load		# counts from zero
	rec "$T/n2.data" -- /root/memloop "$(ms 1000)"
	sdelta "$T/n2.data.stats" > "$T/n2.delta"
	diag < "$T/n2.delta"
	head -n 5 "$UW_DBG/breaks" | diag
	# dval FILE KEY: the change of KEY in an sdelta line.
	dval() { tr ' ' '\n' < "$1" | awk -v k="$2" '$0 == k { getline; print $0 + 0; f = 1 } END { if (!f) print 0 }'; }
	s2=$(dval "$T/n2.delta" samples) b2=$(dval "$T/n2.delta" end_no_table)
	sum=0
	for k in end_past_entry end_no_table end_other end_depth; do
		sum=$((sum + $(dval "$T/n2.delta" $k)))
	done
	at_least 50 "$b2" "$s2"
	ok $? "(n) memloop: end_no_table +$b2 of $s2 samples (>= 50%): its walks break in memcpy"
	top=$(awk 'NR == 1 { print $2 }' "$UW_DBG/breaks")
	case $top in
	*/libc.so.6) r=0 ;;
	*) r=1 ;;
	esac
	ok $r "(n) debugfs breaks lists libc first (got '$top')"
	[ "$sum" -eq "$s2" ] && [ "$s2" -gt 0 ]
	ok $? "(n) every walk ends in one end_* counter ($sum = samples +$s2)"
}

# (o) samples taken while a KVM guest runs: the kernel's walker records no
# user chain for them (perf_guest_state()); the module, which cannot call
# that, must not report the host VMM's user stack there either.  The
# guest (qemu64 with SVM under TCG) loads kvm-amd and kvmspin runs a
# vCPU that spins in guest mode; perf report -D shows each sample's
# misc bits (0x4 guest kernel, 0x5 guest user) and its raw callchain.
t_vcpu()
{
	for m in irqbypass ccp kvm kvm-amd; do
		[ -f "/root/kmod/$m.ko" ] && insmod "/root/kmod/$m.ko" 2>/dev/null
	done
	if [ ! -c /dev/kvm ]; then
		grep -qw svm /proc/cpuinfo || grep -qw vmx /proc/cpuinfo ||
			{ skip "(o) samples while a KVM guest runs" "the guest's CPU has no SVM or VMX (KVM boot without nested virtualisation)"; return; }
		ok 1 "(o) /dev/kvm appears once kvm-amd is loaded"
		dmesg | grep -iE 'kvm|svm' | tail -n 5 | diag
		return
	fi
	load
	v0=$(stat_val passed_vcpu)
	snap "$T/vcpu.data.stats"
	timeout 60 perf record -q -B -e cpu-clock -F "${UW_FREQ:-2000}" -g \
		-o "$T/vcpu.data" /root/kvmspin "$(ms 1000)" > "$T/vcpu.log" 2>&1
	ok $? "(o) perf record -g of kvmspin (a vCPU spinning in guest mode)"
	v1=$(stat_val passed_vcpu)
	diag < "$T/vcpu.log"
	timeout 60 perf report -D -i "$T/vcpu.data" 2>/dev/null | awk '
	function done_() { if (misc != "") { n[misc]++; if (nuser) u[misc]++ } }
	/PERF_RECORD_SAMPLE\(/ {
		done_()
		misc = $0
		sub(/.*PERF_RECORD_SAMPLE\(IP, /, "", misc)
		sub(/\).*/, "", misc)
		inuser = 0
		nuser = 0
		next
	}
	/^\.\.\.\.\. +[0-9]+: / {
		if ($3 == "fffffffffffffe00")
			inuser = 1
		else if (inuser)
			nuser++
		next
	}
	END {
		done_()
		for (m in n)
			printf "%s %d %d\n", m, n[m], u[m]
	}' > "$T/vcpu.misc"
	diag < "$T/vcpu.misc"
	guest=$(awk '$1 == "0x4" || $1 == "0x5" { n += $2 } END { print n + 0 }' "$T/vcpu.misc")
	guser=$(awk '$1 == "0x4" || $1 == "0x5" { n += $3 } END { print n + 0 }' "$T/vcpu.misc")
	[ "$guest" -ge $((UW_MIN / 2)) ] && [ "$guser" -eq 0 ]
	ok $? "(o) $guser of $guest guest samples carry a user chain (0 expected)"
	[ $((v1 - v0)) -ge "$guest" ]
	ok $? "(o) passed_vcpu +$((v1 - v0)) >= $guest: those samples went to the kernel's walker"
}

# (p) every consumer of the kernel's user callchain goes through the
# module: perf samples of each event type, perf trace --call-graph, and
# BPF's bpf_get_stack / bpf_get_stackid.  (ftrace's userstacktrace
# option does not call perf_callchain_user(): not a consumer.)

# Hardware events, where the guest has a PMU (the arm64 guest: QEMU
# emulates the Arm PMU).  QEMU's TCG emulates no x86 performance
# counters: that guest kernel registers no "cpu" PMU and perf's hardware
# events are "not supported".
t_hw()
{
	load
	if ! perf stat -x, -e cycles -o "$T/hw.stat" true 2>/dev/null ||
	    ! grep -q '^[0-9][0-9]*,' "$T/hw.stat"; then
		skip "(p) hardware events (cycles) with the module" "the guest has no PMU: QEMU's TCG emulates no x86 performance counters (software and tracepoint events are tested)"
		return
	fi
	s0=$(stat_val samples)
	snap "$T/hw.data.stats"
	perf record -q -B -e cycles -F "${UW_FREQ:-2000}" -g -o "$T/hw.data" \
		/root/leaf-sf "$(ms 1000)" > "$T/hw.data.log" 2>&1
	s1=$(stat_val samples)
	expect_full "(p) hardware event cycles" "$T/hw.data" leaf-sf "$LEAF"
	[ "$m_inc" -gt 0 ] && [ $((s1 - s0)) -ge "$m_inc" ]
	ok $? "(p) hardware event cycles: the module walked them (samples +$((s1 - s0)) >= $m_inc)"
}

# A tracepoint: every getppid leaf-sys makes from leaf_c() itself.
t_tp()
{
	load
	snap "$T/tp.data.stats"
	perf record -q -B -e syscalls:sys_enter_getppid -g \
		-o "$T/tp.data" /root/leaf-sys "$(ms 300)" > "$T/tp.data.log" 2>&1
	ok $? "(p) perf record -g -e syscalls:sys_enter_getppid of leaf-sys"
	expect_full "(p) tracepoint syscalls:sys_enter_getppid" "$T/tp.data" \
		leaf-sys "$LEAF"
}

# perf trace --call-graph: each getppid event is followed by its user
# chain, one "function (dso)" line a frame.  --sort-events: perf trace
# prints events in the order it reads each CPU's buffer; once in a
# clean-clone run (7.2) all 300 came out with leaf-sys's frames as
# "[0] ([unknown])" (libc's resolved, the chains' shape whole): read
# before leaf-sys's exec mapping, which the other vCPU's buffer held.
# leaf-sys runs 1 s: some 2,800 events here, and over 100 even when
# CI's load gave 60 in 300 ms.
t_trace()
{
	load
	timeout 60 perf trace --sort-events --call-graph fp -e getppid \
		-o "$T/trace.out" -- /root/leaf-sys "$(ms 1000)" > /dev/null 2>&1
	ok $? "(p) perf trace --call-graph fp -e getppid of leaf-sys"
	awk -v chain="$LEAF" '
	function flush() { if (ev) { n++; if (got == chain) full++ } }
	/getppid\(/ { flush(); ev = 1; got = ""; nf = 0; next }
	ev && NF >= 2 && $2 ~ /^\(/ && nf++ < 4 {
		got = got == "" ? $1 : got "," $1
	}
	END { flush(); printf "%d %d\n", n, full }' "$T/trace.out" > "$T/trace.n"
	read -r tn tfull < "$T/trace.n"
	head -n 7 "$T/trace.out" | diag
	[ "$tn" -ge 100 ] && at_least "$UW_GOOD" "$tfull" "$tn"
	ok $? "(p) perf trace: $tfull of $tn getppid events show $LEAF ($(pct "$tfull" "$tn") >= $UW_GOOD%)"
}

# BPF: bpfstack loads a perf-event program calling bpf_get_stack and
# bpf_get_stackid on leaf-st (static, SFrame, no frame pointers), whose
# functions' addresses are in leaf-st.syms (nm -S on the host).
t_bpf()
{
	load
	/root/bpfstack "${UW_FREQ:-2000}" /root/leaf-st "$(ms 1000)" > "$T/bpf.out" 2>&1
	ok $? "(p) bpfstack: a BPF perf-event program on leaf-st"
	awk -v chain="$LEAF" "$UW_AWK_HEX"'
	NR == FNR {
		if ($4 != "" && $3 ~ /^[Tt]$/) {
			lo[$4] = hex($1)
			hi[$4] = lo[$4] + hex($2)
		}
		next
	}
	$1 == "get_stack" || $1 == "get_stackid" {
		k = split(chain, want, ",")
		a = hex($3)
		if (a < lo[want[1]] || a >= hi[want[1]])
			next		# a sample outside the leaf
		n[$1] += $2
		if (NF < 2 + k)
			next
		for (i = 1; i <= k; i++) {
			a = hex($(2 + i))
			if (!(want[i] in lo) || a < lo[want[i]] || a >= hi[want[i]])
				next
		}
		full[$1] += $2
	}
	END {
		printf "%d %d %d %d\n", n["get_stack"], full["get_stack"],
			n["get_stackid"], full["get_stackid"]
	}' /root/leaf-st.syms "$T/bpf.out" > "$T/bpf.n"
	sort -k2 -nr "$T/bpf.out" | head -n 4 | diag
	read -r sn sf in_ if_ < "$T/bpf.n"
	[ "$sn" -ge "$UW_MIN" ] && at_least "$UW_GOOD" "$sf" "$sn"
	ok $? "(p) bpf_get_stack: $sf of $sn samples in leaf_c() show $LEAF ($(pct "$sf" "$sn") >= $UW_GOOD%)"
	[ "$in_" -ge "$UW_MIN" ] && at_least "$UW_GOOD" "$if_" "$in_"
	ok $? "(p) bpf_get_stackid: $if_ of $in_ samples in leaf_c() show $LEAF ($(pct "$if_" "$in_") >= $UW_GOOD%)"
}

# Signal frames: a handler's chain through glibc's restorer (the
# sigreturn trampoline, recognised by its code: libc has no table) on to
# the interrupted outer() and main().
t_signal()
{
	load
	s0=$(stat_val frames_sigframe)
	rec "$T/sig.data" -- /root/sigleaf "$(ms 1000)"
	ok $? "perf record -g of sigleaf (a handler's chain through a signal frame)"
	expect_full "signal handler, through glibc's __restore_rt" \
		"$T/sig.data" sigleaf "$SIGCHAIN"
	grew frames_sigframe "$s0"
}

# Deferred callchains (Linux 7.x, CONFIG_UNWIND_USER): perf --call-graph
# fp,defer has the task walk its own stack on its way back to user
# space, through unwind_user(), which the module diverts (deferred.c).
# The same chains as with -g, where the kernel's walker (frame pointers)
# gives none; a stack whose callers' pages are not present (pagedrop)
# whole, where the NMI walk, which must not fault, breaks; a library
# dlopen'ed after exec covered from the first samples (the walk scans a
# process whose mappings changed itself).
t_defer()
{
	load
	grep -q '^unwind_user on$' "$UW_DBG/hooks"
	ok $? "hooks: unwind_user on ($(tr '\n' ';' < "$UW_DBG/hooks"))"
	UW_CALLGRAPH="--call-graph fp,defer"
	unload
	rec "$T/d0.data" -- /root/leaf-sf "$(ms 1000)"
	ok $? "perf record --call-graph fp,defer of leaf-sf without the module"
	expect_broken "(defer) without the module" "$T/d0.data" leaf-sf "$LEAF"
	load
	w0=$(stat_val deferred_walks)
	rec "$T/d1.data" -- /root/leaf-sf "$(ms 1000)"
	ok $? "perf record --call-graph fp,defer of leaf-sf with the module"
	expect_full "(defer) with the module" "$T/d1.data" leaf-sf "$LEAF"
	grew deferred_walks "$w0"
	rec "$T/d2.data" -- /root/chain "$(ms 1000)"
	expect_full "(defer) through libuwchain.so, linked" "$T/d2.data" \
		chain "$CHAIN"
	rec "$T/d3.data" -- /root/sigleaf "$(ms 1000)"
	expect_full "(defer) a signal handler's chain" "$T/d3.data" sigleaf \
		"$SIGCHAIN"
	t_defer_fault
	t_defer_scan
	t_defer_time
	UW_CALLGRAPH=
}

# max_defer_walk_us, the deferred walk's own time limit: at 1 (with
# max_walk_us=0) it cuts deep-sf's deferred walks; at 0 (with
# max_walk_us=1, which would cut a walk in the sample's interrupt) they
# go to the deferred trace's end (the kernel's unwind_user() takes about
# 500 entries, whatever perf_event_max_stack says).
t_defer_time()
{
	for lim in 1 0; do
		unload && insmod "$UW_KO" max_defer_walk_us=$lim \
			max_walk_us=$((1 - lim))
		e0=$(stat_val end_time)
		rec "$T/dtime$lim.data" -- /root/deep-sf 2000 "$(ms 1000)"
		e1=$(stat_val end_time)
		deep_count "$T/dtime$lim.data" "$lim" > "$T/dtime$lim.n"
		read -r ns nmax ndeep < "$T/dtime$lim.n"
		echo "# max_defer_walk_us=$lim: $ns samples, $ndeep of more than 16 user frames, at most $nmax; end_time +$((e1 - e0))"
		if [ "$lim" = 1 ]; then
			# (Samples taken in one kernel entry share its walk:
			# end_time may count a few less than the samples.)
			[ "$ndeep" -ge "$UW_MIN" ] && [ "$nmax" -lt 400 ] &&
				at_least 95 $((e1 - e0)) "$ndeep"
			ok $? "(defer) max_defer_walk_us=1: deferred walks cut short ($nmax user frames at most, end_time +$((e1 - e0)), $ndeep samples of more than 16 frames)"
		else
			[ "$ns" -ge 20 ] && [ "$nmax" -ge 400 ] &&
				[ $((e1 - e0)) -eq 0 ]
			ok $? "(defer) max_defer_walk_us=0 under max_walk_us=1: deferred walks of $nmax user frames, end_time +$((e1 - e0))"
		fi
	done
	unload && load
}

# pagedrop: -g (NMI) cannot read the dropped pages; fp,defer faults them in.
t_defer_fault()
{
	UW_CALLGRAPH=-g
	rec "$T/p0.data" -- /root/pagedrop "$(ms 1000)"
	report "(defer) pagedrop with -g" "$T/p0.data" pagedrop "$DROP"
	p_nmi="$m_full of $m_inc"
	[ "$m_inc" -ge "$UW_MIN" ] && at_most 50 "$m_full" "$m_inc"
	ok $? "(defer) pagedrop with -g: $p_nmi samples in pd_c() whole ($(pct "$m_full" "$m_inc") <= 50%: the NMI walk cannot fault the pages in)"
	UW_CALLGRAPH="--call-graph fp,defer"
	f0=$(stat_val deferred_faults)
	rec "$T/p1.data" -- /root/pagedrop "$(ms 1000)"
	expect_at 95 "(defer) pagedrop with fp,defer" "$T/p1.data" \
		pagedrop "$DROP"
	f1=$(stat_val deferred_faults)
	# Not every walk faults: one that comes before pd_c() drops the
	# pages a previous walk faulted in finds them present (more so
	# when the guest runs slowly).
	at_least 50 $((f1 - f0)) "$m_full"
	ok $? "(defer) stats: deferred_faults +$((f1 - f0)) >= 50% of $m_full (with -g: $p_nmi)"
}

# chain-dl dlopen's its library after 200 ms in main, when the module
# knows the process (the exec scan, or a deferred walk's own): the
# deferred walks of the library's first samples meet frames no mapping
# covers and scan the process themselves.  Deferred walks ask for no
# queued scan, so without that the library's samples of the next
# rescan_ms (100) would end in it.
t_defer_scan()
{
	s0=$(stat_val sync_scans)
	rec "$T/s1.data" -- /root/chain-dl "$(ms 1000)" \
		/root/lib/libuwchain.so "$(ms 200)"
	expect_full "(defer) through libuwchain.so, dlopen'ed" "$T/s1.data" \
		chain-dl "$CHAIN"
	s1=$(stat_val sync_scans)
	[ $((s1 - s0)) -ge 1 ]
	ok $? "(defer) stats: sync_scans +$((s1 - s0)) >= 1"
}

# One sample's scan request per process in flight: two jitloop processes
# (code in a new mapping every round: every sample asks for a scan at
# once) sampled on both CPUs.  Without the mark each sample queued a
# request until the first one ran (scans_inflight_max in the tens under
# TCG); with it, the requests queued and not started (scans_queued_max)
# are at most one per process that has samples (perf, sh, the two
# jitloops) and one per exec meanwhile (the same four): 8.  Those in
# flight (scans_inflight_max) also count the scans running, one more per
# process at most, a number that depends on how fast the worker runs (9
# once with both vCPUs in one QEMU thread): printed, not checked.
t_inflight()
{
	unload && load		# scans_inflight_max counts from the load
	d0=$(stat_val lazy_dropped) q0=$(stat_val lazy_requests)
	perf record -q -B -e cpu-clock -F "${UW_FREQ:-2000}" -a -g \
		-o "$T/jit.data" -- sh -c '/root/jitloop '"$(ms 1000)"' &
			/root/jitloop '"$(ms 1000)"'; wait' > "$T/jit.log" 2>&1
	ok $? "perf record -a -g of two jitloop processes"
	d1=$(stat_val lazy_dropped) q1=$(stat_val lazy_requests)
	mx=$(stat_val scans_queued_max)
	echo "# lazy_requests +$((q1 - q0)), lazy_dropped +$((d1 - d0)), scans_inflight_max $(stat_val scans_inflight_max)"
	[ $((d1 - d0)) -gt 0 ] && [ -n "$mx" ] && [ "$mx" -le 8 ]
	ok $? "one scan request per process in flight: scans_queued_max $mx (<= 8), lazy_dropped +$((d1 - d0)) (> 0)"
}

# Frame pointers: the fallback gives what the kernel gave.
t_fp()
{
	load
	p0=$(stat_val frames_fp)
	rec "$T/fp.data" -- /root/leaf-fp "$(ms 700)"
	expect_full "(a) static frame-pointer build, with the module" \
		"$T/fp.data" leaf-fp "$LEAF"
	grew frames_fp "$p0"
}

# (b) through a shared library with SFrame, linked and dlopen'ed.
t_lib()
{
	load
	rec "$T/b1.data" -- /root/chain "$(ms 1000)"
	expect_full "(b) through libuwchain.so, linked" "$T/b1.data" \
		chain "$CHAIN"

	bg_prog chain-dl 60000
	sleep 0.5
	rec "$T/b2.data" -p "$bg" -- sleep "$UW_SLOW"
	tables_of "$bg" | diag
	st_lib=$(table_state "$bg" /root/lib/libuwchain.so)
	st_exe=$(table_state "$bg" /root/chain-dl)
	st_libc=$(table_state "$bg" "$(tables_of "$bg" |
		awk '$2 ~ /libc\.so/ { print $2; exit }')")
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	expect_full "(b) through libuwchain.so, dlopen'ed" "$T/b2.data" \
		chain-dl "$CHAIN"
	# libc: no table, or one installed (the packages' guest, where
	# the package trigger installed the system's).
	[ "$st_lib" = sframe ] && [ "$st_exe" = sframe ] &&
		{ [ "$st_libc" = none ] || { [ "$st_libc" = installed ] &&
		  [ -d /var/lib/uwind/build-id ]; }; }
	ok $? "tables: chain-dl 'sframe', dlopen'ed libuwchain.so 'sframe', libc 'none' (got '$st_exe', '$st_lib', '$st_libc')"
}

# (c) four threads.
t_threads()
{
	load
	rec "$T/c.data" -- /root/threads "$(ms 1000)"
	report "(c) 4 threads" "$T/c.data" threads "$THREAD"
	chains threads "$THREAD" tid < "$T/c.data.txt" > "$T/c.tids"
	n=0 bad=0
	while read -r tid user inc full; do
		echo "# thread $tid: $user samples with user frames, $inc in" \
			"spin(), $full with $THREAD ($(pct "$full" "$inc"))"
		[ "$inc" -lt $((UW_MIN / 4)) ] && continue
		n=$((n + 1))
		at_least "$UW_GOOD" "$full" "$inc" || bad=$((bad + 1))
	done < "$T/c.tids"
	[ "$n" -eq 4 ] && [ "$bad" -eq 0 ]
	ok $? "(c) each of the 4 threads has >= $UW_GOOD% $THREAD ($n threads with >= $((UW_MIN / 4)) samples, $bad below)"
}

# (i) a library dlclose'd and another dlopen'ed at its address, with as
# many mappings (swap.c), while nothing samples: no sample sees the
# mappings change, and A's table gives no hint that it is stale (its
# rules send B's walks past the top of the stack).  B must not be
# unwound with A's table.  The first samples after the swap may be
# walked with frame pointers while the rescan runs, hence UW_SWAP_GOOD.
t_swap()
{
	load
	bg_prog swap
	sleep 0.3
	rec "$T/swap-a.data" -p "$bg" -- sleep 0.5
	kill -USR1 "$bg"
	sleep 0.3
	h0=$(stat_val cache_hits)
	rec "$T/swap.data" -p "$bg" -- sleep "$UW_SLOW"
	ok $? "perf record -g -p of swap, before and after the swap"
	h1=$(stat_val cache_hits)
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	diag < "$T/swap.out"
	grep -q '^swap: A at \(0x[0-9a-f]*\), B at \1$' "$T/swap.out"
	ok $? "swap: libuwswapb.so mapped where libuwswapa.so was"
	_good=$UW_GOOD
	UW_GOOD=${UW_SWAP_GOOD:-95}
	expect_full "(i) after the swap" "$T/swap.data" swap \
		swapb_leaf,swapb_enter,spin,main
	UW_GOOD=$_good
	# The caches were warm with A's rows at B's addresses: B's walks
	# used them too (B's entries, under the rescan's new tags).
	[ $((h1 - h0)) -ge "$m_full" ]
	ok $? "(i) the walks after the swap used the warm cache (cache_hits +$((h1 - h0)) >= $m_full)"
}

# The expected chain of deep-sf D (deep.c): leaf, then f(D-1) .. f00,
# main (descend() is inlined into it).
deep_chain()
{
	_i=$(($1 - 1)) _c=leaf
	while [ $_i -ge 0 ]; do
		_c=$_c,$(printf 'f%02x' $_i)
		_i=$((_i - 1))
	done
	echo "$_c,main"
}

# caches N: the sum of each CPU's cache hits (debugfs "caches") in one
# line, "hits(cpu0) hits(cpu1) ...".
caches() { awk '{ printf "%s ", $3 } END { print "" }' "$UW_DBG/caches"; }

# The unwind cache of each CPU, on both vCPUs at once: two processes
# sampled system-wide, each CPU's cache answers (its hits grow), and the
# chains are whole (30 distinct return addresses below the leaf).  The
# time limit is off meanwhile: under TCG (arm64's above all) a walk of 32
# frames can take longer than its default (see t_walktime).
t_cache()
{
	load
	_chain=$(deep_chain 30)
	echo 0 > /sys/module/uwind/parameters/max_walk_us
	# shellcheck disable=SC2046
	set -- $(caches)
	h0=${1:-0} h1=${2:-0}
	# Running until killed: perf -a takes seconds to start under TCG.
	/root/deep-sf 30 60000 > "$T/deep1.out" 2>&1 &
	_p1=$!
	/root/deep-sf 30 60000 > "$T/deep2.out" 2>&1 &
	_p2=$!
	sleep 0.3
	perf record -q -B -a -g -e "${UW_EVENT:-cpu-clock}" -F "${UW_FREQ:-2000}" \
		-o "$T/cache.data" -- sleep "$UW_SLOW" > "$T/cache.log" 2>&1
	ok $? "perf record -a -g of two deep-sf 30 at once"
	# shellcheck disable=SC2046
	set -- $(caches)
	g0=${1:-0} g1=${2:-}
	kill "$_p1" "$_p2" 2>/dev/null
	wait "$_p1" "$_p2"
	echo "# cache hits by CPU: $h0 $h1 before, $g0 $g1 after"
	cat "$UW_DBG/caches" | diag
	[ -n "$g1" ] && [ $((g0 - h0)) -ge "$UW_MIN" ] &&
		[ $((g1 - h1)) -ge "$UW_MIN" ]
	ok $? "both CPUs' caches answered walks (hits +$((g0 - h0)) and +$((${g1:-0} - ${h1:-0})), each >= $UW_MIN)"
	expect_full "two deep-sf at once, system-wide" "$T/cache.data" \
		deep-sf "$_chain"
	[ "$(stat_val cache_bytes)" -gt 0 ]
	ok $? "stats: cache_bytes $(stat_val cache_bytes) counts the caches' memory"
	unload && load
}

# max_walk_us: a walk that takes longer ends, and is counted.  deep-sf
# 2000 with perf_event_max_stack 1024 under max_walk_us=1 (each walk
# looks at the clock every 16 frames: cut at the first look, or soon
# after on a fast machine), then the control with no limit: the whole
# 1024 entries (walks of a millisecond each under TCG: perf lowers the
# sample rate, hence fewer samples asked of it).
# deep_count DATA LIM: "samples most-user-frames samples-over-16" of
# deep-sf in DATA, and (LIM not 0) two walks longer than a cut one on
# stderr.
deep_count()
{
	perf script --no-inline -i "$1" \
		-F comm,tid,time,ip,sym \
		--max-stack 4096 2> /dev/null | awk -v lim="$2" '
		BEGIN { RS = ""; FS = "\n" }
		{
			split($1, h, " ")
			if (h[1] != "deep-sf")
				next
			n = 0
			for (i = 2; i <= NF; i++) {
				split($i, f, " ")
				if (!(length(f[1]) == 16 && f[1] ~ /^ffff/))
					n++
			}
			if (n == 0)
				next
			s++
			if (n > 16)
				deep++
			if (n > max)
				max = n
			# What a walk longer than a cut one looks like.
			if (lim && n > 100 && shown++ < 2)
				print "#", $1, n, "user frames:", $2, "...", $NF > "/dev/stderr"
		}
		END { print s + 0, max + 0, deep + 0 }'
}

t_walktime()
{
	unload && insmod "$UW_KO" max_walk_us=1
	ok $? "insmod max_walk_us=1"
	_max=$(cat /proc/sys/kernel/perf_event_max_stack)
	echo 1024 > /proc/sys/kernel/perf_event_max_stack
	for lim in 1 0; do
		echo "$lim" > /sys/module/uwind/parameters/max_walk_us
		e0=$(stat_val end_time) s0=$(stat_val stop_time)
		rec "$T/time$lim.data" -- /root/deep-sf 2000 "$(ms 1000)"
		e1=$(stat_val end_time) s1=$(stat_val stop_time)
		deep_count "$T/time$lim.data" "$lim" > "$T/time$lim.n"
		read -r ns nmax ndeep < "$T/time$lim.n"
		echo "# max_walk_us=$lim: $ns samples, $ndeep of more than 16 user frames, at most $nmax;" \
			"end_time +$((e1 - e0)), stop_time +$((s1 - s0))"
		echo "# counters: $(sdelta "$T/time$lim.data.stats")"
		if [ "$lim" = 1 ]; then
			# A sample of more than 16 frames was walked past the
			# first look at the clock: cut there (or soon after).
			# (With local_clock(), a few walks in a thousand saw
			# the clock stand still and went to 1024 frames.)
			[ "$ndeep" -ge "$UW_MIN" ] && [ "$nmax" -lt 1000 ] &&
				[ $((e1 - e0)) -ge "$ndeep" ] &&
				[ $((s1 - s0)) -eq $((e1 - e0)) ]
			ok $? "max_walk_us=1: every walk cut short ($nmax user frames at most; end_time +$((e1 - e0)) and stop_time +$((s1 - s0)), $ndeep samples of more than 16 frames)"
		else
			[ "$ns" -ge 20 ] && [ "$nmax" -ge 1000 ] &&
				[ $((e1 - e0)) -eq 0 ]
			ok $? "max_walk_us=0: no limit, walks of $nmax user frames, end_time +$((e1 - e0))"
		fi
	done
	echo "$_max" > /proc/sys/kernel/perf_event_max_stack
	[ "$(cat /sys/module/uwind/parameters/max_walk_us)" = 0 ]
	# The module's own default, not the tests' (see insmod()).
	unload && command insmod "$UW_KO"
	[ "$(cat /sys/module/uwind/parameters/max_walk_us)" = 50 ] &&
		[ "$(cat /sys/module/uwind/parameters/max_defer_walk_us)" = 500 ]
	ok $? "max_walk_us is writable, and 50 by default; max_defer_walk_us 500"
	unload && load
	[ "$(cat /sys/module/uwind/parameters/max_walk_us)" = "${UW_WALK_US:-50}" ] &&
		[ "$(cat /sys/module/uwind/parameters/max_defer_walk_us)" = "${UW_DEFER_WALK_US:-500}" ]
	ok $? "the tests' insmod: max_walk_us=${UW_WALK_US:-50}, max_defer_walk_us=${UW_DEFER_WALK_US:-500} (under TCG 2000 and 20000, else the defaults)"
}

# (d) through a library with frame pointers and no SFrame.
t_fplib()
{
	load
	bg_prog chain-fp 60000
	sleep 0.5
	rec "$T/d.data" -p "$bg" -- sleep "$UW_SLOW"
	st_lib=$(table_state "$bg" /root/lib/libuwfp.so)
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	expect_full "(d) through libuwfp.so (frame pointers, no SFrame)" \
		"$T/d.data" chain-fp "$CHAIN_FP"
	[ "$st_lib" = none ]
	ok $? "tables: libuwfp.so is 'none' (got '$st_lib')"
}

# (g) corrupted SFrame sections: each run under perf, the rejections
# counted after each.
t_corrupt()
{
	load
	kinds=""
	for f in /root/bad-*; do
		[ -x "$f" ] && kinds="$kinds ${f#/root/bad-}"
	done
	r0=$(stat_val tables_rejected)
	rec "$T/g.data" -- sh -c '
		for k in '"$kinds"'; do
			/root/bad-$k 300 > /dev/null
			echo "$k $?" $(awk "\$1 == \"tables_rejected\" \
			    { print \$2 }" '"$UW_DBG/stats"')
		done > '"$T/g.counts"
	ok $? "(g) perf record -g of the programs with corrupted .sframe"
	prev=$r0 n=0
	while read -r k rc rej; do
		d=$((rej - prev))
		prev=$rej
		n=$((n + 1))
		# frejunk keeps the header and FDEs and fills the FREs with
		# (fixed) random bytes: checking the rows at load finds it.
		[ "$rc" -eq 0 ] && [ "$d" -ge 1 ]
		ok $? "(g) bad-$k ran (status $rc) and its table was rejected (tables_rejected +$d)"
	done < "$T/g.counts"
	[ "$n" -ge 6 ]
	ok $? "(g) $n corrupted programs ran:$kinds"
	pscript "$T/g.data" > /dev/null
	ok $? "(g) perf script reads the samples"
	bg_prog bad-garbage 60000
	sleep 0.5
	st=$(table_state "$bg" /root/bad-garbage)
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	[ "$st" = rejected ]
	ok $? "tables: a running bad-garbage's mapping is 'rejected' (got '$st')"
	grep -E '^(stop_|frames_|tables_)' "$UW_DBG/stats" | tr '\n' ' ' |
		diag
	echo
}

# (e) a thousand short-lived processes under system-wide sampling, then
# the memory held is back to the baseline (taken after insmod, before the
# other parts: their processes are gone too).
t_tiny()
{
	load
	[ -n "${base_mms:-}" ] || mem_baseline
	sc0=$(stat_val scans) s0=$(stat_val samples) g0=$(stat_val scans_gone)
	perf record -q -B -a -g -e cpu-clock -F 500 -o "$T/e.data" -- sh -c '
		i=0
		while [ $i -lt '"$UW_TINY"' ]; do
			/root/tiny || exit 1
			[ $((i % 20)) -ne 0 ] || /root/tiny-dyn || exit 1
			i=$((i + 1))
		done' > "$T/e.log" 2>&1
	ok $? "(e) $UW_TINY runs of tiny (and every 20th of tiny-dyn) under perf record -a -g"
	sec "(e) done"
	sc1=$(stat_val scans) s1=$(stat_val samples) g1=$(stat_val scans_gone)
	echo "# during: scans +$((sc1 - sc0)) (and +$((g1 - g0)) of processes gone before their scan), samples +$((s1 - s0))," \
		"mms $(stat_val mms), files $(stat_val files)," \
		"bytes_held $(stat_val bytes_held)"
	# A process may exit before the worker gets to its scan (on a
	# loaded host, or a faster kernel): asked for, and found gone.
	[ $((sc1 - sc0 + g1 - g0)) -ge "$UW_TINY" ]
	ok $? "(e) the module scanned every new process, or found it gone (scans +$((sc1 - sc0)), scans_gone +$((g1 - g0)), >= $UW_TINY)"
	echo 1 > "$UW_DBG/gc"
	mem_now
	mms=$m_mms bytes=$m_bytes files=$m_files
	echo "# after gc: mms $mms (baseline $base_mms), files $files" \
		"(baseline $base_files), bytes_held $bytes (baseline $base_bytes)"
	[ -n "$mms" ] && [ -n "$bytes" ] && [ "$mms" -le "$base_mms" ] &&
		[ "$bytes" -le "$base_bytes" ] && [ "$files" -le "$base_files" ]
	ok $? "(e) after gc, mms, files and bytes_held are back to the baseline"
}

# (f) rmmod and insmod while perf samples.
t_reload()
{
	load
	rec "$T/f.data" -- /root/chain "$(ms 4000)" &
	pf=$!
	sleep 0.5
	r=0 i=0
	while [ $i -lt 4 ]; do
		sleep 0.3
		rmmod uwind || { r=1; echo "# rmmod failed (round $i)"; }
		sleep 0.2
		insmod "$UW_KO" || { r=1; echo "# insmod failed (round $i)"; }
		i=$((i + 1))
	done
	ok "$r" "(f) 4 x rmmod + insmod while perf record -g samples chain"
	wait "$pf"
	ok $? "(f) perf record finished normally"
	report "(f) across the reloads" "$T/f.data" chain "$CHAIN"
	[ "$m_inc" -ge "$UW_MIN" ] && [ "$m_full" -gt 0 ]
	ok $? "(f) the samples are readable and the loaded periods gave full chains ($m_full of $m_inc)"
	t_reload_hooked
}

# The module loaded last, under load, takes the samples: every later part
# relies on it (load() keeps a loaded module).
t_reload_hooked()
{
	_s0=$(stat_val samples)
	rec "$T/f2.data" -- /root/leaf-sf "$(ms 500)"
	_s=$(($(stat_val samples) - _s0))
	[ "$_s" -gt 0 ]
	ok $? "(f) the module loaded last under load takes the samples (samples +$_s)"
	if [ "$_s" -le 0 ]; then
		echo "# counters: $(sdelta "$T/f2.data.stats")"
		for _f in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -r "$_f/enabled_functions" ] || continue
			diag < "$_f/enabled_functions"
			break
		done
		dmesg | tail -n 20 | diag
	fi
}

t_unload()
{
	load
	rmmod uwind
	ok $? "rmmod uwind"
	[ ! -e "$UW_DBG" ] && ! loaded
	ok $? "module and its debugfs directory gone"
}

# (h) the kernel log, boot included.
t_dmesg()
{
	dmesg > "$T/dmesg.out"
	grep -i 'uwind' "$T/dmesg.out" | tail -n 20 | diag
	pat='WARNING:|BUG:|Oops|general protection|Call Trace|Kernel panic|detected stall|UBSAN|ODEBUG|blocked for more than'
	if grep -qE "$pat" "$T/dmesg.out"; then
		grep -E -B2 -A30 "$pat" "$T/dmesg.out" | head -n 80 | diag
		ok 1 "(h) dmesg has no WARN, BUG, Oops or stall"
	else
		ok 0 "(h) dmesg has no WARN, BUG, Oops or stall"
	fi
}

parts=${UW_PARTS:-"progs base running hooks leaf fp lib signal inflight swap cache walktime threads fplib corrupt tiny enable depth cap conc pad user fpjunk breaks vcpu hw tp trace bpf inst reload unload agent dmesg"}
[ -n "${UW_PARTS:-}" ] || for a in $(cat /proc/cmdline); do
	case $a in
	uwind_only=*) parts=$(echo "${a#uwind_only=}" | tr ',' ' ') ;;
	esac
done
for p in $parts; do
	case $p in
	progs|dmesg) ;;
	*)
		if [ ! -f "$UW_KO" ]; then
			skip "$p" "uwind.ko was not built"
			continue
		fi
		;;
	esac
	sec "$p"
	"t_$p"
done
sec "end"
exit "$uw_fails"
