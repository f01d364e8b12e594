#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Runs in the guest for scripts/bench-kernel.sh: how long the kernel spends
# in perf_callchain_user() (the user part of a perf callchain) per sample,
# with the kernel's own frame-pointer walker and with uwind.ko, which takes
# that function's place.
#
# The function_graph tracer, restricted to perf_callchain_user (its only
# traced function, depth 1), records the duration of every call.  A run is
# perf record -e cpu-clock -g -F FREQ of a leaf program for a second;
# every sample calls the function once.  The configurations take turns,
# REPS (3) rounds, so that a slow spell of the emulator does not land on
# one of them alone.  For each configuration the median duration of all
# its calls is printed, with the number of calls and the mean number of
# user frames per sample (from perf script):
#   RESULT <config> <median ns> <calls> <mean user frames>
# Configurations: stock walker on leaf-fp (frame pointers: the whole
# chain), stock walker on leaf-sf (no frame pointers: the chain breaks at
# once), uwind on leaf-sf (SFrame), uwind on leaf-fp (frame-pointer
# fallback: the program has no SFrame), and uwind on hot-mem (built plain
# -O2, hot in libc's memcpy) with the tables `uwind sframe --install`
# made for it, libc and ld.so.

. /root/guest-lib.sh

TR=/sys/kernel/tracing
F=${F:-2000}
MS=${MS:-1000}
REPS=${REPS:-3}
for a in $(cat /proc/cmdline); do
	case $a in
	uwind_freq=*) F=${a#*=} ;;
	uwind_reps=*) REPS=${a#*=} ;;
	uwind_ms=*) MS=${a#*=} ;;
	esac
done

echo 0 > $TR/tracing_on
echo perf_callchain_user > $TR/set_ftrace_filter || exit 1
echo perf_callchain_user > $TR/set_graph_function || exit 1
echo 1 > $TR/max_graph_depth
echo 4096 > $TR/buffer_size_kb
echo function_graph > $TR/current_tracer || exit 1

# run CONFIG PROGRAM: one traced run; the durations are added to
# /tmp/bench.CONFIG.ns, the mean user frames per sample kept in
# /tmp/bench.CONFIG.frames.
run()
{
	echo > $TR/trace
	echo 1 > $TR/tracing_on
	UW_FREQ=$F rec /tmp/bench.data -- "/root/$2" "$MS"
	echo 0 > $TR/tracing_on
	pscript /tmp/bench.data | awk -v comm="$2" '
		BEGIN { RS = ""; FS = "\n" }
		{
			split($1, h, " ")
			if (h[1] != comm)
				next
			for (i = 2; i <= NF; i++) {
				split($i, f, " ")
				if (!(length(f[1]) == 16 && f[1] ~ /^ffff/))
					n++
			}
			s++
		}
		END { printf "%.1f\n", s ? n / s : 0 }' > "/tmp/bench.$1.frames"
	# " 0) + 12.345 us   |  perf_callchain_user();": the duration in
	# ns, for every call but the first (a cold cache).
	awk '/perf_callchain_user\(\);/ {
		for (i = 1; i <= NF; i++)
			if ($(i + 1) == "us") { print int($i * 1000); break }
	}' $TR/trace | sed 1d >> "/tmp/bench.$1.ns"
}

result()
{
	sort -n "/tmp/bench.$1.ns" > /tmp/bench.sorted
	n=$(wc -l < /tmp/bench.sorted)
	med=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print; exit }' \
		/tmp/bench.sorted)
	echo "RESULT $1 ${med:-0} $n $(cat "/tmp/bench.$1.frames")"
}

# The tables of hot-mem (plain -O2: memcpy/memset in libc three calls
# deep), libc and ld.so, made once, and put where the module looks only
# for the uwind.inst runs (the other programs' chains would go on
# through libc too).
INST=/var/lib/uwind
uwind sframe --install --dir /tmp/uwtables/build-id /root/hot-mem \
	/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 > /dev/null
mkdir -p "$INST"

rm -f /tmp/bench.*
r=0
while [ $r -lt "$REPS" ]; do
	unload
	run stock.fp leaf-fp
	run stock.sf leaf-sf
	load || { echo "bench: insmod failed"; exit 1; }
	# leaf-sf once untraced: its table is loaded at its first run.
	/root/leaf-sf 200 > /dev/null
	run uwind.sf leaf-sf
	run uwind.fp leaf-fp
	cp /tmp/bench.data /tmp/bench.fp.data
	mv /tmp/uwtables/build-id "$INST/" && echo 1 > "$UW_DBG/installed"
	run uwind.inst hot-mem
	mv "$INST/build-id" /tmp/uwtables/ && echo 1 > "$UW_DBG/installed"
	r=$((r + 1))
done
for c in stock.fp stock.sf uwind.sf uwind.fp uwind.inst; do
	result $c
done
echo "RESULT full $(pscript /tmp/bench.fp.data | chains leaf-fp c,b,a,main)"
echo 0 > $TR/tracing_on
echo nop > $TR/current_tracer
unload
