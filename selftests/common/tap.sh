# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# TAP helpers for the shell test scripts (sourced from the repository's
# top): ok RC DESC prints the next numbered result (ok when RC is 0),
# skip DESC WHY a skipped one, have CMD tells whether CMD is installed.
# The caller sets n=0 first and prints the plan.  Sourcing it also makes
# a scratch directory $TMP, removed at exit with every process whose pid
# the script added to $PIDS.

ok()
{
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
	fi
}

skip()
{
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

have()
{
	command -v "$1" >/dev/null 2>&1
}

TMP=$(mktemp -d)
PIDS=""

tap_cleanup()
{
	for p in $PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap tap_cleanup EXIT
