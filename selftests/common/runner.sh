#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# scripts/run-tests.sh and tap.sh on made-up test programs: a program
# whose plan is missing, doubled, or not the number of tests it printed
# (one that dies early after planning up front) counts one more failure;
# a program that plans right, up front or last, does not.
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

tap_begin 8

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
tap_end
