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
# (names below, in t_NAME), in the order given; the default is all.

. /root/guest-lib.sh

UW_GOOD=${UW_GOOD:-99}
UW_BROKEN=${UW_BROKEN:-10}
UW_MIN=${UW_MIN:-200}		# leaf samples a run must have
UW_TINY=${UW_TINY:-1000}	# short-lived processes in (e)
T=/tmp

sec()
{
	read -r _up _ < /proc/uptime
	echo "# [$_up] $*"
}

# tables_of PID: the module's tables for one process (debugfs "tables").
tables_of()
{
	awk -v p="$1" '
	$1 == "pid" { on = ($2 == p) }
	on' "$UW_DBG/tables" 2>/dev/null
}

# table_state PID FILE: the state (sframe, none, rejected) of FILE's
# mappings in PID's tables; one word, or several if they differ.  The
# file matches by path or by its last component.
table_state()
{
	tables_of "$1" | awk -v f="$2" '
	function base(p) { sub(/.*\//, "", p); return p }
	$1 != "pid" && ($2 == f || $2 == base(f)) && !seen[$3]++ {
		printf "%s%s", n++ ? " " : "", $3
	}'
}

# bg_prog NAME ARGS...: start /root/NAME in the background, pid in bg.
bg_prog()
{
	_p=$1
	shift
	"/root/$_p" "$@" > "$T/$_p.out" 2>&1 &
	bg=$!
}

LEAF=c,b,a,main
CHAIN=chain_leaf,chain_cb,lib_enter,main
CHAIN_FP=chain_leaf,chain_cb,fp_lib_func,main
THREAD=spin,y,x,worker

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
	rec "$T/a0.data" -- /root/leaf-sf 1000
	ok $? "perf record -g of leaf-sf without the module"
	expect_broken "(a) without the module (baseline)" "$T/a0.data" \
		leaf-sf "$LEAF"
	base_full=$m_full base_inc=$m_inc
}

# insmod while a process runs: it is covered too.
t_running()
{
	unload
	bg_prog leaf-sf 8000
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
	rec "$T/run.data" -p "$bg" -- sleep 1
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

# The memory baseline for t_tiny: taken once no program of ours runs.
mem_baseline()
{
	echo 1 > "$UW_DBG/gc"
	base_mms=$(stat_val mms) base_bytes=$(stat_val bytes_held)
	base_files=$(stat_val files)
	echo "# memory baseline: mms $base_mms, files $base_files," \
		"bytes_held $base_bytes"
}

# (a) a new process, with the module.
t_leaf()
{
	load
	[ -n "${base_mms:-}" ] || mem_baseline
	s0=$(stat_val samples) f0=$(stat_val frames_sframe)
	rec "$T/a1.data" -- /root/leaf-sf 1000
	ok $? "perf record -g of leaf-sf with the module"
	s1=$(stat_val samples) f1=$(stat_val frames_sframe)
	expect_full "(a) with the module" "$T/a1.data" leaf-sf "$LEAF"
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
	rec "$T/a2.data" -- /root/leaf-sf 700
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
	rec "$T/depth.data" -- /root/leaf-sf 500
	_r=$?
	d1=$(stat_val stop_depth)
	echo "$_max" > /proc/sys/kernel/perf_event_max_stack
	measure "$T/depth.data" leaf-sf c
	[ "$_r" -eq 0 ] && [ "$m_inc" -gt 0 ] && [ $((d1 - d0)) -ge "$m_inc" ]
	ok $? "perf_event_max_stack=3: stop_depth +$((d1 - d0)) >= $m_inc samples in c()"
}

# max_total_mb: past the cap a file gets no table, and says why.
t_cap()
{
	unload && insmod "$UW_KO" max_total_mb=0
	ok $? "insmod max_total_mb=0"
	o0=$(stat_val tables_over_max_total)
	bg_prog leaf-sf 8000
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

# Frame pointers: the fallback gives what the kernel gave.
t_fp()
{
	load
	p0=$(stat_val frames_fp)
	rec "$T/fp.data" -- /root/leaf-fp 700
	expect_full "(a) static frame-pointer build, with the module" \
		"$T/fp.data" leaf-fp "$LEAF"
	p1=$(stat_val frames_fp)
	[ $((p1 - p0)) -ge "$m_full" ]
	ok $? "stats: frames_fp +$((p1 - p0)) >= $m_full"
}

# (b) through a shared library with SFrame, linked and dlopen'ed.
t_lib()
{
	load
	rec "$T/b1.data" -- /root/chain 1000
	expect_full "(b) through libuwchain.so, linked" "$T/b1.data" \
		chain "$CHAIN"

	bg_prog chain-dl 6000
	sleep 0.5
	rec "$T/b2.data" -p "$bg" -- sleep 1
	tables_of "$bg" | diag
	st_lib=$(table_state "$bg" /root/lib/libuwchain.so)
	st_exe=$(table_state "$bg" /root/chain-dl)
	st_libc=$(table_state "$bg" "$(tables_of "$bg" |
		awk '$2 ~ /libc\.so/ { print $2; exit }')")
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	expect_full "(b) through libuwchain.so, dlopen'ed" "$T/b2.data" \
		chain-dl "$CHAIN"
	[ "$st_lib" = sframe ] && [ "$st_exe" = sframe ] &&
		[ "$st_libc" = none ]
	ok $? "tables: chain-dl 'sframe', dlopen'ed libuwchain.so 'sframe', libc 'none' (got '$st_exe', '$st_lib', '$st_libc')"
}

# (c) four threads.
t_threads()
{
	load
	rec "$T/c.data" -- /root/threads 1000
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
	rec "$T/swap.data" -p "$bg" -- sleep 1
	ok $? "perf record -g -p of swap, before and after the swap"
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
}

# (d) through a library with frame pointers and no SFrame.
t_fplib()
{
	load
	bg_prog chain-fp 6000
	sleep 0.5
	rec "$T/d.data" -p "$bg" -- sleep 1
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
	bg_prog bad-garbage 3000
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
	sc0=$(stat_val scans) s0=$(stat_val samples)
	perf record -q -B -a -g -e cpu-clock -F 500 -o "$T/e.data" -- sh -c '
		i=0
		while [ $i -lt '"$UW_TINY"' ]; do
			/root/tiny || exit 1
			[ $((i % 20)) -ne 0 ] || /root/tiny-dyn || exit 1
			i=$((i + 1))
		done' > "$T/e.log" 2>&1
	ok $? "(e) $UW_TINY runs of tiny (and every 20th of tiny-dyn) under perf record -a -g"
	sec "(e) done"
	sc1=$(stat_val scans) s1=$(stat_val samples)
	echo "# during: scans +$((sc1 - sc0)), samples +$((s1 - s0))," \
		"mms $(stat_val mms), files $(stat_val files)," \
		"bytes_held $(stat_val bytes_held)"
	[ $((sc1 - sc0)) -ge "$UW_TINY" ]
	ok $? "(e) the module scanned every new process (scans +$((sc1 - sc0)) >= $UW_TINY)"
	echo 1 > "$UW_DBG/gc"
	mms=$(stat_val mms) bytes=$(stat_val bytes_held)
	files=$(stat_val files)
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
	rec "$T/f.data" -- /root/chain 4000 &
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
	pat='WARNING:|BUG:|Oops|general protection|Call Trace|Kernel panic|detected stall|UBSAN'
	if grep -qE "$pat" "$T/dmesg.out"; then
		grep -E -B2 -A30 "$pat" "$T/dmesg.out" | head -n 80 | diag
		ok 1 "(h) dmesg has no WARN, BUG, Oops or stall"
	else
		ok 0 "(h) dmesg has no WARN, BUG, Oops or stall"
	fi
}

parts="progs base running leaf fp lib swap threads fplib corrupt tiny enable depth cap reload unload dmesg"
for a in $(cat /proc/cmdline); do
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
