# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# TAP helpers for the shell tests (kselftest style), sourced: ok STATUS
# DESC numbers a result (STATUS 0 passes), skip DESC REASON a skipped one,
# have CMD says whether a command exists.  The test prints the plan.
n=0

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
