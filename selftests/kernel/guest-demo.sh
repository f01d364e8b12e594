#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Runs in the guest for scripts/demo-kernel.sh: leaf-sf (built without
# frame pointers, with SFrame) under `perf record -g`, first without
# uwind.ko, then with it, and the two `perf report --stdio` call graphs
# between "UWDEMO-BEGIN <name>" and "UWDEMO-END" lines.

. /root/guest-lib.sh

show()
{
	# show NAME DATA
	echo "UWDEMO-BEGIN $1"
	perf report -i "$2" --stdio --no-children --percent-limit 3 \
		--comm leaf-sf 2>/dev/null | grep -v '^#' | grep -v '^ *$'
	pscript "$2" | chains leaf-sf c,b,a,main | {
		read -r _ inc full
		echo "samples in c(): $inc, with c <- b <- a <- main: $full ($(pct "$full" "$inc"))"
	}
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
