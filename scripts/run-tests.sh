#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Run each argument as a test command that prints TAP (kselftest style),
# after turning its commas into spaces (make splits TESTS on spaces, so
# "sh,selftests/x/t.sh,arg" stands for "sh selftests/x/t.sh arg"),
# echo its output, and count ok / not ok / skip lines over all of them.
# Each command counts one more failure when
#   - it exits non-zero without reporting a failure,
#   - it prints no test line at all,
#   - it prints no plan line ("1..N"), or more than one,
#   - its plan does not match the test lines it printed.
# Each command's summary line gives its wall time; the last line:
#   N passed, N failed, N skipped
#
# A command also named in UW_BG_TESTS (the "bg" group of uw_test: the
# kernel matrix) starts at once, in the background, and is reported after
# the others: it keeps one CPU busy while they run on the other, and
# takes both once they are done (selftests/kernel/matrix.sh reads the
# file UWIND_MATRIX_SHARE names as "one guest at a time").
set -u
. "$(dirname "$0")/../selftests/common/tap.sh"
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tally CMD LOG RC T0: LOG's output, its counts added, its summary line.
tally()
{
	cat "$2"
	p=$(grep -cE '^ok [0-9]+' "$2" | head -1)
	s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$2" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$2" | head -1)
	why=$(tap_plan_error "$2")
	p=$((p - s))
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $1 exited with status $3"
		f=1
	elif [ $((p + s + f)) -eq 0 ]; then
		echo "not ok - $1 reported no test"
		f=1
	fi
	if [ -n "$why" ]; then
		echo "not ok - $1 $why"
		f=$((f + 1))
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	echo "# $1: $p passed, $f failed, $s skipped ($(($(date +%s) - $4)) s)"
}

is_bg()
{
	for b in ${UW_BG_TESTS:-}; do
		[ "$b" = "$1" ] && return 0
	done
	return 1
}

# The background commands first, numbered in order.
UWIND_MATRIX_SHARE=$tmp/share
export UWIND_MATRIX_SHARE
: > "$UWIND_MATRIX_SHARE"
nbg=0
for t in "$@"; do
	is_bg "$t" || continue
	nbg=$((nbg + 1))
	c=$(printf '%s' "$t" | tr ',' ' ')
	echo "# ==== $c: started in the background"
	date +%s > "$tmp/bg$nbg.t0"
	printf '%s\n' "$c" > "$tmp/bg$nbg.cmd"
	(sh -c "$c" > "$tmp/bg$nbg.log" 2>&1; echo $? > "$tmp/bg$nbg.rc") &
done

for t in "$@"; do
	is_bg "$t" && continue
	t=$(printf '%s' "$t" | tr ',' ' ')
	echo "# ==== $t"
	t0=$(date +%s)
	sh -c "$t" >"$tmp/log" 2>&1
	tally "$t" "$tmp/log" $? "$t0"
done

rm -f "$UWIND_MATRIX_SHARE"
[ "$nbg" -gt 0 ] && echo "# the other stages are done: waiting for the background ones"
wait
i=0
while [ "$i" -lt "$nbg" ]; do
	i=$((i + 1))
	c=$(cat "$tmp/bg$i.cmd")
	echo "# ==== $c"
	tally "$c" "$tmp/bg$i.log" "$(cat "$tmp/bg$i.rc" 2>/dev/null || echo 1)" \
		"$(cat "$tmp/bg$i.t0")"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
