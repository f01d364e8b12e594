# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# TAP output for the shell tests (kselftest style), the shell twin of
# tap.h.  Source it, then:
#
#   tap_begin [N]        "TAP version 13", and the plan "1..N" now when
#                        the count is known up front
#   tap_ok DESC          "ok K - DESC"
#   tap_not_ok DESC      "not ok K - DESC"
#   tap_result RC DESC   ok when RC is 0, else not ok
#   tap_skip DESC WHY    "ok K - DESC # SKIP WHY"
#   tap_diag TEXT        "# TEXT"
#   tap_bail TEXT        "Bail out! TEXT", then the plan as tap_end
#   tap_end              the plan "1..K" unless tap_begin printed one;
#                        returns 1 if a test failed: end the script with it
#
# Results made where the counters cannot follow (subshells running in
# parallel, each into its own file): tap_later_ok DESC and
# tap_later_not_ok DESC print unnumbered "ok - DESC" lines, and
# tap_number <FILE, in the script's own shell, numbers and counts them,
# passing every other line through.
#
# Not TAP, but what the shell tests also share: tap_have CMD (is CMD
# installed?), tap_scratch, which makes a scratch directory $TMP,
# removed at exit with every process whose pid the script adds to $PIDS,
# tap_wait_stopped PID (wait, 10 s at most, until the process is
# stopped, as a program that raises SIGSTOP for a test does; status 0
# when it is), and tap_start_stopped CMD [ARG...] (run it in the
# background, its output discarded, its pid in $pid and $PIDS, then
# tap_wait_stopped).
#
# For runners: tap_plan_error FILE prints why the TAP in FILE has no
# plan that fits its test lines (none, two, or another count), or
# nothing when it fits.
#
# scripts/run-tests.sh checks the plan against the test lines printed, so
# a script that dies early, or plans one count and prints another, fails.
# Counters: TAP_N (tests so far), TAP_FAILS.  Emit results from the
# script's own shell, not from a pipeline's subshell, or the counts are
# lost.

TAP_N=0
TAP_FAILS=0
TAP_PLAN=

tap_begin()
{
	echo "TAP version 13"
	if [ $# -gt 0 ]; then
		TAP_PLAN=$1
		echo "1..$1"
	fi
}

tap_ok()
{
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}

tap_not_ok()
{
	TAP_N=$((TAP_N + 1))
	TAP_FAILS=$((TAP_FAILS + 1))
	echo "not ok $TAP_N - $*"
}

tap_result()
{
	tap_rc=$1
	shift
	if [ "$tap_rc" -eq 0 ]; then
		tap_ok "$@"
	else
		tap_not_ok "$@"
	fi
}

tap_skip()
{
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

tap_diag()
{
	echo "# $*"
}

tap_later_ok()
{
	echo "ok - $*"
}

tap_later_not_ok()
{
	echo "not ok - $*"
}

tap_number()
{
	while IFS= read -r tap_line; do
		case $tap_line in
		"ok - "*) tap_ok "${tap_line#ok - }" ;;
		"not ok - "*) tap_not_ok "${tap_line#not ok - }" ;;
		*) printf '%s\n' "$tap_line" ;;
		esac
	done
}

tap_end()
{
	[ -n "$TAP_PLAN" ] || echo "1..$TAP_N"
	[ "$TAP_FAILS" -eq 0 ]
}

tap_bail()
{
	echo "Bail out! $*"
	TAP_FAILS=$((TAP_FAILS + 1))
	tap_end
}

tap_plan_error()
{
	tap_plans=$(grep -cE '^1\.\.[0-9]+' "$1")
	tap_lines=$(grep -cE '^(not )?ok [0-9]+' "$1")
	if [ "$tap_plans" -eq 0 ]; then
		echo "printed no plan (1..N)"
	elif [ "$tap_plans" -gt 1 ]; then
		echo "printed $tap_plans plans"
	else
		tap_planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$1")
		[ "$tap_planned" -eq "$tap_lines" ] ||
			echo "planned $tap_planned tests but printed $tap_lines"
	fi
}

tap_have()
{
	command -v "$1" >/dev/null 2>&1
}

tap_cleanup()
{
	for tap_pid in $PIDS; do
		kill -9 "$tap_pid" 2>/dev/null
	done
	rm -rf "$TMP"
}

tap_wait_stopped()
{
	tap_i=0
	while [ $tap_i -lt 100 ]; do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] &&
			return 0
		sleep 0.1
		tap_i=$((tap_i + 1))
	done
	return 1
}

tap_start_stopped()
{
	"$@" >/dev/null &
	pid=$!
	PIDS="${PIDS:-} $pid"
	tap_wait_stopped "$pid"
}

tap_scratch()
{
	TMP=$(mktemp -d)
	PIDS=""
	trap tap_cleanup EXIT
}
