#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Runs in the guest for scripts/demo-kernel.sh, each part's output
# between "UWDEMO-BEGIN <name>" and "UWDEMO-END" lines:
# - leaf-sf (built without frame pointers, with SFrame) under `perf
#   record -g`, without uwind.ko, then with it ("without", "with");
# - hot-qsort, built as Debian builds (plain -O2: neither frame pointers
#   nor SFrame), sorting with a comparator of its own that qsort calls
#   from inside libc: without the module ("stock-without"), with the
#   module alone ("stock-module": the chain breaks in libc, which has no
#   tables), and with `uwind agent` running, nothing installed by hand
#   ("stock-agent": what the agent said; "stock-installed": the chains;
#   "stock-tables": uwind status of a hot-qsort process); the stats last.

. /root/guest-lib.sh
. /root/guest-inst.sh

show()
{
	# show NAME DATA
	echo "UWDEMO-BEGIN $1"
	perf report -i "$2" --stdio --no-children --percent-limit 3 \
		--comm leaf-sf 2>/dev/null | grep -v '^#' | grep -v '^ *$'
	pscript "$2" | chains leaf-sf leaf_c,leaf_b,leaf_a,main | {
		read -r _ inc full
		echo "samples in leaf_c(): $inc, with leaf_c <- leaf_b <- leaf_a <- main: $full ($(pct "$full" "$inc"))"
	}
	echo "UWDEMO-END"
}

# show_stock NAME DATA: the most frequent call chains of hot-qsort's
# samples (innermost first; a function perf cannot name shows as its
# file, "?libc.so.6", and a run of frames of one function as "xN":
# libc's merge sort recurses), then the share of whole chains
# (inst-chains.awk: every frame a call site, cmp or sort_once, main, on
# to _start).
show_stock()
{
	echo "UWDEMO-BEGIN $1"
	perf script --no-inline -i "$2" -F comm,ip,sym,dso 2> /dev/null | awk '
	BEGIN { RS = ""; FS = "\n" }
	$1 ~ /^ *hot-qsort/ {
		c = ""; last = ""; run = 0
		for (i = 2; i <= NF; i++) {
			n = split($i, f, " ")
			if (n < 2 || (length(f[1]) == 16 && f[1] ~ /^ffff/))
				continue
			fn = f[2]
			sub(/\+0x[0-9a-f]+$/, "", fn)
			d = f[n]
			gsub(/[()]/, "", d)
			sub(/.*\//, "", d)
			if (fn == "[unknown]")
				fn = "?" d
			if (fn == last) {
				run++
				continue
			}
			c = c (last == "" ? "" : " <- ") (run > 1 ? last " xN" : last)
			last = fn
			run = 1
		}
		c = c (last == "" ? "" : " <- ") (run > 1 ? last " xN" : last)
		sub(/^ <- /, "", c)
		n_all++
		chains[c]++
	}
	END {
		for (c in chains)
			printf "%6.1f%%  %s\n", 100 * chains[c] / n_all, c
	}' | sort -rn | head -n 5
	hot_chains "$2"
	set -- $(hot_val "$2" qsort)
	echo "samples: $1, whole chain to main and _start: $3 ($(pct "$3" "$1"))"
	echo "UWDEMO-END"
}

unload
rec /tmp/without.data -- /root/leaf-sf 1000
show without /tmp/without.data

insmod "$UW_KO" || { echo "demo: insmod failed"; exit 1; }
rec /tmp/with.data -- /root/leaf-sf 1000
show with /tmp/with.data
echo "UWDEMO-BEGIN stats"
cat "$UW_DBG/stats"
echo "UWDEMO-END"
rmmod uwind

rec /tmp/s0.data -- /root/hot-qsort 1000
show_stock stock-without /tmp/s0.data
insmod "$UW_KO"
rec /tmp/s1.data -- /root/hot-qsort 1000
show_stock stock-module /tmp/s1.data
# The agent, as the package's uwind.service runs it: nothing installed
# by hand, an empty store; it makes the tables of hot-qsort, libc and
# ld.so when the module first meets them.
rm -rf /var/lib/uwind
uwind agent > /tmp/agent.log 2>&1 &
ag=$!
_i=0
while ! grep -q 'uwind agent: ready' /tmp/agent.log && [ $_i -lt 100 ]; do
	sleep 0.05
	_i=$((_i + 1))
done
rec /tmp/s2.data -- /root/hot-qsort 1000
echo "UWDEMO-BEGIN stock-agent"
cat /tmp/agent.log
echo "UWDEMO-END"
show_stock stock-installed /tmp/s2.data
echo "UWDEMO-BEGIN stock-tables"
/root/hot-qsort 20000 > /dev/null &
sleep 0.3
sample_pid $!
uwind status -p $!
kill $!
echo "UWDEMO-END"
kill -TERM "$ag"
wait "$ag"
echo "UWDEMO-BEGIN stock-stats"
cat "$UW_DBG/stats"
echo "UWDEMO-END"
rmmod uwind
