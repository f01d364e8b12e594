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
#
# Then the cost per frame, from samples taken at several depths in the
# same stretch of time (a slower spell of the emulator lands on all of
# them alike): deep-fp (frame pointers) and deep-sf (SFrame), static,
# descending in turn to each depth of DEPTHS ("1 5 30 120") calls below
# main (deep.c), each run recorded with the clock the trace keeps
# (perf record -k mono, trace_clock mono, funcgraph-abstime), and each
# sample paired with the perf_callchain_user() call closest in time
# (within 50 us): its duration, its user frames and its depth (the
# f00..f7f frames under the leaf).  Configurations: the kernel's walker
# on deep-fp (stock.fp), uwind on deep-sf (uwind.sf) and on deep-fp
# (uwind.fp); per depth D:
#   RESULT <config>.dD <mean ns> <samples> <mean user frames> <longest ns>
# (the mean of the middle half of the durations, see presult).
# And one deep stack: perf_event_max_stack 1024, 10,000 calls deep,
# sampled at FDEEP (250) Hz: the kernel's walker on deep-fp
# (stock.deep), uwind on deep-sf (uwind.deep) and on deep-fp
# (uwind.deep.fp), the same fields.  The module is loaded with the
# parameters MODARGS (uwind_modargs=a,b on the command line).


. /root/guest-lib.sh

TR=/sys/kernel/tracing
F=${F:-2000}
MS=${MS:-1000}
REPS=${REPS:-3}
FDEEP=${FDEEP:-250}
DEPTHS=${DEPTHS:-"1 5 30 120"}
MODARGS=""
for a in $(cat /proc/cmdline); do
	case $a in
	uwind_freq=*) F=${a#*=} ;;
	uwind_fdeep=*) FDEEP=${a#*=} ;;
	uwind_depths=*) DEPTHS=$(echo "${a#*=}" | tr , ' ') ;;
	uwind_modargs=*) MODARGS=$(echo "${a#*=}" | tr , ' ') ;;
	uwind_reps=*) REPS=${a#*=} ;;
	uwind_ms=*) MS=${a#*=} ;;
	esac
done

echo 0 > $TR/tracing_on
echo perf_callchain_user > $TR/set_ftrace_filter || exit 1
echo perf_callchain_user > $TR/set_graph_function || exit 1
echo 1 > $TR/max_graph_depth
echo 4096 > $TR/buffer_size_kb
echo mono > $TR/trace_clock || exit 1
echo function_graph > $TR/current_tracer || exit 1
echo funcgraph-abstime > $TR/trace_options || exit 1

# run CONFIG PROGRAM [ARGS]: one traced run of PROGRAM ARGS (default:
# MS) at UW_FREQ (default F); the durations are added to
# /tmp/bench.CONFIG.ns, the mean user frames per sample kept in
# /tmp/bench.CONFIG.frames (in the first round only: NOFRAMES=1 after).
run()
{
	_c=$1 _p=$2
	shift 2
	[ $# -gt 0 ] || set -- "$MS"
	echo > $TR/trace
	echo 1 > $TR/tracing_on
	UW_FREQ=${UW_FREQ:-$F} rec /tmp/bench.data -- "/root/$_p" "$@"
	echo 0 > $TR/tracing_on
	set -- "$_c" "$_p"
	[ -n "${NOFRAMES:-}" ] && [ -f "/tmp/bench.$1.frames" ] ||
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
	# " 123.456789 |  0) + 12.345 us   |  perf_callchain_user();": the
	# duration in ns, for every call but the first (a cold cache).
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
	echo "RESULT $1 ${med:-0} $n $(cat "/tmp/bench.$1.frames")" \
		"$(tail -n 1 /tmp/bench.sorted)"
}

# prun CONFIG PROGRAM ARGS...: a paired run (see above) of PROGRAM ARGS
# at UW_FREQ; "depth duration frames" of each paired sample are added to
# /tmp/bench.CONFIG.pairs.
prun()
{
	_c=$1 _p=$2
	shift 2
	echo > $TR/trace
	echo 1 > $TR/tracing_on
	perf record -q -B -k mono -e cpu-clock -F "${UW_FREQ:-$F}" -g \
		-o /tmp/bench.data -- "/root/$_p" "$@" > /tmp/bench.log 2>&1
	echo 0 > $TR/tracing_on
	perf script --no-inline -i /tmp/bench.data -F comm,time,ip,sym --max-stack 4096 \
		2> /dev/null > /tmp/bench.script
	# The trace's lines, " 123.456789 |  1)   5.123 us  |  perf_...",
	# then the samples (time, user frames, f* frames under the leaf).
	awk -v comm="$_p" '
	FNR == 1 { file++ }
	file == 1 && /perf_callchain_user\(\);/ {
		for (i = 1; i <= NF; i++)
			if ($(i + 1) == "us") {
				nt++
				tt[nt] = $1 * 1000000
				td[nt] = int($i * 1000)
				break
			}
		next
	}
	file == 2 && /^[^ \t]/ {
		flush()
		on = $1 == comm
		ts = $NF
		sub(/:$/, "", ts)
		ts *= 1000000
		n = nf = 0
		inleaf = -1
		next
	}
	file == 2 && on && NF >= 2 {
		if (length($1) == 16 && $1 ~ /^ffff/)
			next
		n++
		sym = $2
		sub(/\+0x[0-9a-f]+$/, "", sym)
		if (inleaf < 0)
			inleaf = sym == "leaf"
		if (sym ~ /^f[0-7][0-9a-f]$/)
			nf++
	}
	function flush() {
		if (on && n > 0 && inleaf == 1)
			sample[++ns] = ts " " nf " " n
		on = 0
	}
	END {
		flush()
		j = 1
		for (k = 1; k <= ns; k++) {
			split(sample[k], v, " ")
			while (j < nt && tt[j + 1] <= v[1])
				j++
			if (j > 1)
				j--
			best = -1
			for (m = j; m <= j + 2 && m <= nt; m++) {
				# The call began at tt or ended there.
				d = tt[m] - v[1]
				if (d < 0)
					d = -d
				e = tt[m] - td[m] / 1000 - v[1]
				if (e < 0)
					e = -e
				if (e < d)
					d = e
				if (d <= 50 && (best < 0 || d < bd)) {
					best = m
					bd = d
				}
			}
			if (best > 0)
				print v[2], td[best], v[3]
			else
				miss++
		}
		printf "# %s: %d calls traced, %d samples in leaf(), %d unpaired\n", comm, nt, ns, miss > "/dev/stderr"
	}' $TR/trace /tmp/bench.script >> "/tmp/bench.$_c.pairs" 2>> /tmp/bench.pairlog
}

# presult CONFIG DEPTH: the RESULT line of the samples at DEPTH (all:
# every sample).  Its "median" is the interquartile mean (the mean of the
# middle half of the durations): as robust as the median against the
# emulator's slow spells, and finer than the median of durations that
# differ by a few frames' worth of nanoseconds.
presult()
{
	awk -v d="$2" 'd == "all" || $1 == d { print $2, $3 }' \
		"/tmp/bench.$1.pairs" | sort -n > /tmp/bench.sorted
	awk -v c="$1.d$2" '
		{ t[NR] = $1; f += $2 }
		END {
			if (!NR) { print "RESULT " c " 0 0 0 0"; exit }
			lo = int(NR / 4) + 1
			hi = NR - int(NR / 4)
			for (i = lo; i <= hi; i++)
				s += t[i]
			printf "RESULT %s %d %d %.1f %d\n", c, s / (hi - lo + 1),
				NR, f / NR, t[NR]
		}' /tmp/bench.sorted
}

# The stacks of DEPTHS calls, walked by whoever is loaded: the kernel's
# walker (stock) on deep-fp, or uwind on both; then the deep one.
depths()
{
	_d=$(echo $DEPTHS | tr ' ' ,)
	if [ "$1" = stock ]; then
		prun stock.fp deep-fp "$_d" "$MS"
	else
		prun uwind.sf deep-sf "$_d" "$MS"
		prun uwind.fp deep-fp "$_d" "$MS"
	fi
	_max=$(cat /proc/sys/kernel/perf_event_max_stack)
	echo 1024 > /proc/sys/kernel/perf_event_max_stack
	if [ "$1" = stock ]; then
		UW_FREQ=$FDEEP prun stock.deep deep-fp 10000 "$MS"
	else
		UW_FREQ=$FDEEP prun uwind.deep deep-sf 10000 "$MS"
		UW_FREQ=$FDEEP prun uwind.deep.fp deep-fp 10000 "$MS"
	fi
	echo "$_max" > /proc/sys/kernel/perf_event_max_stack
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
	depths stock
	# shellcheck disable=SC2086
	load $MODARGS || { echo "bench: insmod failed"; exit 1; }
	# leaf-sf once untraced: its table is loaded at its first run.
	/root/leaf-sf 200 > /dev/null
	run uwind.sf leaf-sf
	run uwind.fp leaf-fp
	cp /tmp/bench.data /tmp/bench.fp.data
	mv /tmp/uwtables/build-id "$INST/" && echo 1 > "$UW_DBG/installed"
	run uwind.inst hot-mem
	mv "$INST/build-id" /tmp/uwtables/ && echo 1 > "$UW_DBG/installed"
	depths uwind
	r=$((r + 1))
	NOFRAMES=1
done
echo "RESULT stats $(tr '\n' ' ' < "$UW_DBG/stats")"
for c in stock.fp stock.sf uwind.sf uwind.fp uwind.inst; do
	result $c
done
for d in $DEPTHS; do
	for c in stock.fp uwind.sf uwind.fp; do
		presult $c "$d"
	done
done
for c in stock.deep uwind.deep uwind.deep.fp; do
	presult $c all
done
sed 's/^# /RESULT note /' /tmp/bench.pairlog
echo "RESULT full $(pscript /tmp/bench.fp.data | chains leaf-fp leaf_c,leaf_b,leaf_a,main)"
echo 0 > $TR/tracing_on
echo nop > $TR/current_tracer
unload
