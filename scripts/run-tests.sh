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
set -u
. "$(dirname "$0")/../selftests/common/tap.sh"
pass=0 fail=0 skip=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$@"; do
	t=$(printf '%s' "$t" | tr ',' ' ')
	echo "# ==== $t"
	t0=$(date +%s)
	sh -c "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$log" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	why=$(tap_plan_error "$log")
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		f=1
	elif [ $((p + s + f)) -eq 0 ]; then
		echo "not ok - $t reported no test"
		f=1
	fi
	if [ -n "$why" ]; then
		echo "not ok - $t $why"
		f=$((f + 1))
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	echo "# $t: $p passed, $f failed, $s skipped ($(($(date +%s) - t0)) s)"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
