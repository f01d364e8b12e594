# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The parts for the debug kernel (selftests/kernel/debug.config: lockdep,
# KASAN, UBSAN, kmemleak, debug objects, fault injection), sourced by
# guest-tests.sh and named in the parts of the debug target alone:
#   stress  everything at once for the checkers: perf -a -g at a high
#           rate on both vCPUs and a BPF stack program, while processes
#           exec, exit, map and unmap, dlopen in a loop, tables are
#           installed and collected, the agent converts, and the module
#           is unloaded and loaded again under it all; then kmemleak
#   faults  the module's allocations failed on purpose (failslab and
#           fail_page_alloc, limited by the stack-trace filter to calls
#           made from module text): loads, scans, tables, installed
#           tables; the module still works once it stops, every failure
#           it met counted (alloc_failed), nothing leaks; then kmemleak
# What the checkers print is judged by the dmesg part, last: any lockdep,
# KASAN, UBSAN, atomic-sleep, RCU or debug-objects report fails it.

KML=/sys/kernel/debug/kmemleak
FI=/sys/kernel/debug

# The module area (x86-64): from the kernel image's end to MODULES_END;
# nothing but module text and BPF programs lies there.
mod_area()
{
	_end=$(awk '$3 == "_end" { print $1 }' /proc/kallsyms)
	echo "0x$_end 0xffffffffff000000"
}

# kml_start: leak reports from before forgotten.
kml_start() { echo clear > "$KML"; }

# kml_check LABEL: kmemleak scanned (twice: an object seen unreferenced
# in both), and no leak of the module's: none whose backtrace has an
# address in the module area (the module is unloaded: its addresses are
# not symbolised) or a uwk_ function.  Other reports are shown.
kml_check()
{
	sleep 2
	echo scan > "$KML"
	sleep 6
	echo scan > "$KML"
	cat "$KML" > "$T/kml.$1" 2>&1
	set -- "$1" $(mod_area)
	awk -v lo="$2" -v hi="$3" "$UW_AWK_HEX"'
	function flush() { if (obj != "" && mine) n++; obj = ""; mine = 0 }
	/^unreferenced object/ { flush(); obj = $0; total++; next }
	/uwk_|\[uwind\]/ { mine = 1 }
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^\[?<?(0x)?ffffffff[0-9a-f]+>?\]?$/) {
				a = $i; gsub(/[^0-9a-fx]/, "", a); sub(/^0x/, "", a)
				if (hex(a) >= hex(substr(lo, 3)) && hex(a) < hex(substr(hi, 3)))
					mine = 1
			}
	}
	END { flush(); printf "%d %d\n", n, total }' "$T/kml.$1" > "$T/kml.$1.n"
	read -r _mine _all < "$T/kml.$1.n"
	[ "$_mine" -eq 0 ]
	ok $? "($1) kmemleak after rmmod: $_mine leaks of the module's ($_all reports in all)"
	head -n 40 "$T/kml.$1" | diag
}

# churn SECONDS: processes that exec and exit, map and unmap, dlopen, for
# SECONDS; their pids in churn_pids.
churn()
{
	churn_pids=""
	( _e=$(($(date +%s) + $1)); while [ "$(date +%s)" -lt "$_e" ]; do
		/root/tiny-dyn; /root/tiny; done ) > /dev/null 2>&1 &
	churn_pids="$churn_pids $!"
	( _e=$(($(date +%s) + $1)); while [ "$(date +%s)" -lt "$_e" ]; do
		/root/chain-dl 200; done ) > /dev/null 2>&1 &
	churn_pids="$churn_pids $!"
	( _e=$(($(date +%s) + $1)); while [ "$(date +%s)" -lt "$_e" ]; do
		/root/hot-plug 200 /root/lib/libuwplug.so; done ) > /dev/null 2>&1 &
	churn_pids="$churn_pids $!"
	/root/pagedrop "$(($1 * 1000))" > /dev/null 2>&1 &
	churn_pids="$churn_pids $!"
	( _e=$(($(date +%s) + $1)); while [ "$(date +%s)" -lt "$_e" ]; do
		/root/uwgen map 1 /root/lib/libuwchain.so /root/lib/libuwfp.so; done ) \
		> /dev/null 2>&1 &
	churn_pids="$churn_pids $!"
}

churn_wait()
{
	for _p in $churn_pids; do
		wait "$_p" 2>/dev/null
	done
}

t_stress()
{
	if [ ! -w "$KML" ]; then
		skip "(st) everything at once under the checkers" "this kernel has no kmemleak (the debug kernel's part: scripts/debug-kernel.sh)"
		return
	fi
	unload
	kml_start
	load
	_s=${UW_STRESS_S:-20}
	mkdir -p /var/lib/uwind/build-id
	uwind agent -v > "$T/st-agent.log" 2>&1 &
	_ag=$!
	perf record -q -a -g -e cpu-clock -F 4000 -o "$T/st.data" -- sleep "$_s" \
		> "$T/st.log" 2>&1 &
	_pr=$!
	/root/bpfstack 4000 /root/leaf-st "$((_s * 1000))" > "$T/st-bpf.out" 2>&1 &
	_bp=$!
	churn "$_s"
	# Tables installed and collected while it runs: fresh copies, their
	# tables made, the copies removed, the tables collected.
	( _e=$(($(date +%s) + _s)); _i=0; while [ "$(date +%s)" -lt "$_e" ]; do
		/root/uwgen newid /root/hot-qsort "$T/st-q$_i" $((7000 + _i))
		"$T/st-q$_i" 300 > /dev/null &
		uwind sframe --install "$T/st-q$_i"
		wait
		rm -f "$T/st-q$_i"
		uwind sframe --gc
		_i=$((_i + 1))
	done ) > "$T/st-inst.log" 2>&1 &
	_in=$!
	# The agent holds /dev/uwind, so the module is reloaded as the
	# service does it: the agent stopped, rmmod, insmod, a new agent.
	_r=0
	for _i in 1 2; do
		sleep "$((_s / 3))"
		kill "$_ag" 2>/dev/null
		wait "$_ag" || { _r=1; echo "# the agent's status: $? (round $_i)"; }
		rmmod uwind || { _r=1; echo "# rmmod failed (round $_i)"; }
		insmod "$UW_KO" || { _r=1; echo "# insmod failed (round $_i)"; }
		uwind agent -v >> "$T/st-agent.log" 2>&1 &
		_ag=$!
	done
	ok "$_r" "(st) 2 x (agent stopped, rmmod, insmod, agent started) under perf -a -g at 4 kHz, BPF, exec, dlopen, mmap churn, installs"
	wait "$_pr"
	ok $? "(st) perf record -a -g finished normally"
	wait "$_bp"
	ok $? "(st) the BPF stack program finished normally"
	churn_wait
	wait "$_in"
	kill "$_ag" 2>/dev/null
	wait "$_ag"
	ok $? "(st) the agent ended with status 0 on SIGTERM"
	grep -c '^installed' "$T/st-agent.log" | sed 's/^/# agent: installed /'
	_n=$(perf script -i "$T/st.data" -F ip 2>/dev/null | wc -l)
	[ "$_n" -gt 1000 ]
	ok $? "(st) the recording is readable: $_n frames"
	echo "# counters: $(uw_show stats | awk '$2 > 0 { printf "%s %s ", $1, $2 }')"
	rmmod uwind
	kml_check st
	rm -rf /var/lib/uwind
}

# fi_set PROBABILITY TIMES: failslab and fail_page_alloc fail that share
# of the allocations made from module text, at most TIMES each; 0 0: off.
fi_set()
{
	set -- "$1" "$2" $(mod_area)
	for _d in failslab fail_page_alloc; do
		echo 0 > "$FI/$_d/probability"
		echo "$2" > "$FI/$_d/times"
		echo 1 > "$FI/$_d/interval"
		echo 0 > "$FI/$_d/verbose"
		echo N > "$FI/$_d/task-filter"
		echo N > "$FI/$_d/ignore-gfp-wait"
		echo 32 > "$FI/$_d/stacktrace-depth"
		echo "$3" > "$FI/$_d/require-start"
		echo "$4" > "$FI/$_d/require-end"
		echo "$1" > "$FI/$_d/probability"
	done
	echo 0 > "$FI/fail_page_alloc/min-order"
	echo N > "$FI/fail_page_alloc/ignore-gfp-highmem"
}

# The failures injected so far since fi_set ... TIMES.
fi_done() { echo $((2 * $1 - $(cat "$FI/failslab/times") - $(cat "$FI/fail_page_alloc/times"))); }

t_faults()
{
	if [ ! -d "$FI/failslab" ] || [ ! -w "$KML" ]; then
		skip "(fi) the module's allocations failed on purpose" "this kernel has no failslab or kmemleak (the debug kernel's part: scripts/debug-kernel.sh)"
		return
	fi
	unload
	kml_start
	_times=100000
	# Loads: each either loads or fails cleanly, until one loads.  The
	# module's init makes dozens of allocations: one in 20 fails here
	# (one in 5 would refuse nearly every load).
	fi_set "${UW_FAIL_LOAD_PCT:-5}" "$_times"
	_tries=0 _failed=0
	: > "$T/fi-insmod.err"
	while ! loaded && [ $_tries -lt 40 ]; do
		insmod "$UW_KO" 2>> "$T/fi-insmod.err" || _failed=$((_failed + 1))
		_tries=$((_tries + 1))
	done
	fi_set 0 0
	loaded
	_r=$?
	ok $_r "(fi) insmod under failing allocations: loaded at try $_tries ($_failed refused: $(sort "$T/fi-insmod.err" | uniq -c | tr -s ' \n' ' '))"
	dmesg | grep 'uwind: cannot' | sort | uniq -c | diag
	if [ $_r -ne 0 ]; then
		kml_check fi
		return
	fi
	# Scans, tables (own SFrame, dlopen'ed, installed), the walks.
	rm -rf /var/lib/uwind
	uwind sframe --install /root/hot-qsort > /dev/null 2>&1
	_a0=$(stat_val alloc_failed)
	fi_set "${UW_FAIL_PCT:-20}" "$_times"
	churn 6
	rec "$T/fi1.data" -- /root/leaf-sf "$(ms 2000)"
	rec "$T/fi2.data" -- /root/hot-qsort 2000
	churn_wait
	_inj=$(fi_done "$_times")
	fi_set 0 0
	_a1=$(stat_val alloc_failed)
	_af=$((_a1 - _a0))
	echo "# injected: $_inj failures; alloc_failed +$_af; counters: $(uw_show stats | awk '$2 > 0 { printf "%s %s ", $1, $2 }')"
	[ "$_af" -ge 1 ] && [ "$_af" -le "$_inj" ]
	ok $? "(fi) the failures the module met counted: alloc_failed +$_af (>= 1, <= the $_inj injected)"
	# Once the allocations succeed again, a new process is covered.
	rec "$T/fi3.data" -- /root/leaf-sf "$(ms 1000)"
	expect_full "(fi) after the failures stop: leaf-sf" "$T/fi3.data" leaf-sf "$LEAF"
	rm -rf /var/lib/uwind
	rmmod uwind
	ok $? "(fi) rmmod after the failures"
	kml_check fi
}
