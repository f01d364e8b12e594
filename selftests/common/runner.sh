#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# scripts/run-tests.sh and tap.sh on made-up test programs: a program
# whose plan is missing, doubled, or not the number of tests it printed
# (one that dies early after planning up front) counts one more failure;
# a program that plans right, up front or last, does not.  A background
# command (UW_BG_TESTS) runs while the others do, with the "share" file
# there until they are done, and is counted after them.
#
# usage: runner.sh [BUILD_DIR]
set -u
O=${1:-build}
. "$(dirname "$0")/tap.sh"
W=$O/selftests/common/runner
rm -rf "$W"
mkdir -p "$W"

# prog NAME BODY: a test program that sources tap.sh.
prog()
{
	printf '. selftests/common/tap.sh\n%s\n' "$2" >"$W/$1.sh"
}
prog good-last 'tap_begin; tap_ok a; tap_skip b why; tap_end'
prog good-first 'tap_begin 2; tap_ok a; tap_ok b; tap_end'
prog no-plan 'echo "ok 1 - a"'
prog two-plans 'tap_begin 1; tap_ok a; echo "1..1"'
prog early-exit 'tap_begin 3; tap_ok a; exit 0'
prog too-many 'tap_begin 1; tap_ok a; tap_ok b; tap_end'
prog bail 'tap_begin; tap_ok a; tap_bail "no table"'

tap_begin 10

# run NAME: the runner's summary line for that one program.
run()
{
	sh scripts/run-tests.sh "sh,$W/$1.sh" >"$W/$1.out" 2>&1
	echo "$?: $(tail -n 1 "$W/$1.out")"
}

check()
{
	got=$(run "$1")
	if [ "$got" = "$2" ]; then
		tap_ok "$1: $3"
	else
		sed 's/^/# /' "$W/$1.out"
		tap_not_ok "$1: $3 (got '$got', want '$2')"
	fi
}

check good-last "0: 1 passed, 0 failed, 1 skipped" "plan last, counted"
check good-first "0: 2 passed, 0 failed, 0 skipped" "plan first, counted"
check no-plan "1: 1 passed, 1 failed, 0 skipped" "no plan is a failure"
check two-plans "1: 1 passed, 1 failed, 0 skipped" "two plans are a failure"
check early-exit "1: 1 passed, 1 failed, 0 skipped" \
	"planned 3, printed 1 and exited 0: a failure"
check too-many "1: 2 passed, 1 failed, 0 skipped" "planned 1, printed 2: a failure"
check bail "1: 1 passed, 1 failed, 0 skipped" "tap_bail fails the program"
grep -q "planned 3 tests but printed 1" "$W/early-exit.out"
tap_result $? "the runner says why a plan does not fit"

# The background command waits (at most 5 s) for the foreground one's
# mark, then for the share file to go: both ran at once, and it was told.
prog bg 'tap_begin; i=0
while [ ! -e "$W/fg.mark" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$W/fg.mark" ]; tap_result $? "ran with the others"
i=0
while [ -e "$UWIND_MATRIX_SHARE" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ ! -e "$UWIND_MATRIX_SHARE" ]; tap_result $? "told when they were done"; tap_end'
prog fg ': > "$W/fg.mark"; tap_begin; tap_ok fg; tap_end'
W=$W UW_BG_TESTS="sh,$W/bg.sh" sh scripts/run-tests.sh "sh,$W/bg.sh" \
	"sh,$W/fg.sh" >"$W/bg.out" 2>&1
got="$?: $(tail -n 1 "$W/bg.out")"
[ "$got" = "0: 3 passed, 0 failed, 0 skipped" ]
tap_result $? "a background command runs beside the others, counted ($got)"
awk '/^# ==== / { print $4 }' "$W/bg.out" | tr '\n' ' ' | grep -q "bg.sh.*fg.sh.*bg.sh"
tap_result $? "its output comes after the others'"
tap_end
