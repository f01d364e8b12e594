#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Runs inside the test guest (busybox sh), from /root, with uwind.ko and
# the leaf program (built with frame pointers, leaf included) beside it.
# Prints one "UWTAP: ok - ..." / "UWTAP: not ok - ..." line per check;
# basic.sh on the host numbers them.  Diagnostics go out as "# ..." lines.

stats=/sys/kernel/debug/uwind/stats
fails=0

ok()
{
	# ok CONDITION-STATUS DESCRIPTION
	if [ "$1" -eq 0 ]; then
		echo "UWTAP: ok - $2"
	else
		echo "UWTAP: not ok - $2"
		fails=$((fails + 1))
	fi
}

diag() { sed 's/^/# /'; }

stat_val()
{
	awk -v k="$1" '$1 == k { print $2 }' "$stats" 2>/dev/null
}

# Count, in `perf script -F comm,ip,sym,dso` output on stdin, the samples of
# the leaf program whose innermost user frame is c(), and of those the ones
# whose next user frames are exactly b, a, main.  Prints "USER INC CHAIN".
chains()
{
	awk '
	BEGIN { RS = ""; FS = "\n" }
	{
		split($1, h, " ")
		if (h[1] != "leaf")
			next
		n = 0
		for (i = 2; i <= NF; i++) {
			if ($i !~ /\/root\/leaf\)/)
				continue
			split($i, f, " ")
			sym = f[2]
			sub(/\+0x[0-9a-f]+$/, "", sym)
			s[++n] = sym
		}
		if (n == 0)
			next
		user++
		if (s[1] != "c")
			next
		inc++
		if (n >= 4 && s[2] == "b" && s[3] == "a" && s[4] == "main")
			full++
	}
	END { printf "%d %d %d\n", user, inc, full }'
}

# dmesg is checked whole at the end: boot messages included.

insmod /root/uwind.ko
ok $? "insmod uwind.ko"

[ -r "$stats" ]
ok $? "debugfs stats file exists"
cat "$stats" 2>&1 | diag

[ "$(stat_val core_selftest_failures)" = 0 ]
ok $? "the core (lib/) runs in the module: header checks pass"

before=$(stat_val hook_calls)
perf record -q -e cpu-clock -F 1000 -g -o /tmp/perf.data /root/leaf 1500 \
	> /tmp/record.out 2>&1
rc=$?
diag < /tmp/record.out
ok $rc "perf record -e cpu-clock -g with the module loaded"
after=$(stat_val hook_calls)

perf script -i /tmp/perf.data -F comm,ip,sym,dso > /tmp/script.out 2>/tmp/script.err
ok $? "perf script"
diag < /tmp/script.err
head -n 12 /tmp/script.out | diag
set -- $(chains < /tmp/script.out)
user=${1:-0} inc=${2:-0} full=${3:-0}
echo "# leaf samples with user frames: $user, in c(): $inc, with c<-b<-a<-main: $full"
echo "# hook_calls before perf: ${before:-?}, after: ${after:-?}"

[ "$user" -ge 100 ] && [ "$inc" -ge $((user / 2)) ]
ok $? "perf sampled the leaf program, mostly in c() ($inc of $user)"

# Frame pointers everywhere (leaf included): the stock unwinder gives the
# whole chain; the hook only counts, so it must not change that.
[ "$inc" -gt 0 ] && [ $((full * 100)) -ge $((inc * 95)) ]
ok $? "frame-pointer chains intact with the hook: $full of $inc"

# Every user callchain goes through perf_callchain_user, so the hook ran at
# least once per sample that has user frames.
[ -n "$before" ] && [ -n "$after" ] && [ "$user" -gt 0 ] &&
	[ $((after - before)) -ge "$user" ]
ok $? "hook fired for every sample ($((${after:-0} - ${before:-0})) >= $user)"

perf report -i /tmp/perf.data --stdio --no-children --percent-limit 5 \
	> /tmp/report.out 2>/dev/null
grep -v '^$' /tmp/report.out | grep -v '^#' | head -n 20 | diag
grep -qE '%  +leaf +leaf +\[\.\] c *$' /tmp/report.out
ok $? "perf report --stdio lists c() of the leaf program"

rmmod uwind
ok $? "rmmod uwind"
[ ! -e "$stats" ]
ok $? "debugfs files removed"
grep -q '^uwind ' /proc/modules
[ $? -ne 0 ]
ok $? "module gone from /proc/modules"

insmod /root/uwind.ko && rmmod uwind
ok $? "insmod + rmmod again"

dmesg > /tmp/dmesg.out
grep -E 'uwind' /tmp/dmesg.out | diag
! grep -qE 'WARNING:|BUG:|Oops|general protection|Call Trace|Kernel panic' /tmp/dmesg.out
r=$?
[ $r -eq 0 ] || diag < /tmp/dmesg.out
ok $r "dmesg has no WARN, BUG or Oops"

exit $fails
