#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# ASan + UBSan stage (see selftests/asan/build.mk for the SAN_TESTS
# convention).  Builds the tree with SAN=1 into O/asan, lists the
# sanitizer-safe tests with `make print-san-tests` and runs each from
# the repository root.  Prints TAP: test 1 is the sanitized build, then
# one line per inner test line ("ok N - asan: <desc>"), plus a failure
# for a command that crashed, printed no test line or no plan that fits
# its test lines, or whose output holds a sanitizer report.  The plan
# comes last (selftests/common/tap.sh).
#
# Usage: run.sh [O]   (default build; the sanitized tree is O/asan)
set -u

cd "$(dirname "$0")/../.." || exit 1
. selftests/common/tap.sh
O=${1:-build}
AO=$O/asan
MAKE=${MAKE:-make}
# A fresh make: no O=/SAN= overrides or jobserver from a calling make.
unset MAKEFLAGS MFLAGS MAKELEVEL
JOBS=${JOBS:-2}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# ASan would otherwise stop at the first leak in a test that is fine
# under it; UBSan reports carry a stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

tap_begin
if ! $MAKE --no-print-directory -j"$JOBS" O="$AO" SAN=1 build-all >"$log" 2>&1; then
	tail -40 "$log" | sed 's/^/# /'
	tap_not_ok "asan: make O=$AO SAN=1 build-all"
	tests=""
else
	tap_ok "asan: make O=$AO SAN=1 build-all"
	tests=$($MAKE --no-print-directory -s O="$AO" SAN=1 print-san-tests \
		2>"$log") || { sed 's/^/# /' "$log"; \
			       tap_not_ok "asan: make print-san-tests"; }
fi

for t in $tests; do
	t=$(printf '%s' "$t" | tr ',' ' ')
	sh -c "$t" >"$log" 2>&1
	rc=$?
	before=$TAP_N
	# Renumber the inner test lines; keep descriptions and directives.
	while IFS= read -r line; do
		case "$line" in
		"ok "[0-9]*|"not ok "[0-9]*)
			desc=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ *-? *//')
			case "$line" in
			ok*) tap_ok "asan: $desc" ;;
			*) tap_not_ok "asan: $desc" ;;
			esac
			;;
		esac
	done <"$log"
	bad=""
	if grep -qE '(ERROR|WARNING): (Address|Leak|Memory|Thread|Undefined)Sanitizer|runtime error:' "$log"; then
		bad="sanitizer report"
	elif [ "$TAP_N" -eq "$before" ]; then
		bad="no test line (exit status $rc)"
	elif [ "$rc" -ne 0 ] && ! grep -qE '^not ok [0-9]+' "$log"; then
		bad="exit status $rc"
	else
		bad=$(tap_plan_error "$log")
	fi
	if [ -n "$bad" ]; then
		sed 's/^/# /' "$log" | tail -60
		tap_not_ok "asan: $t: $bad"
	elif grep -qE '^not ok [0-9]+' "$log"; then
		sed 's/^/# /' "$log" | tail -60
	fi
	tap_diag "asan: ran $t (exit $rc)"
done
tap_end
