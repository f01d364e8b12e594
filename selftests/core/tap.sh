# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# TAP for the shell tests of selftests/core (sourced):
#   tap_plan N       the header and the plan
#   ok STATUS DESC   "ok"/"not ok" DESC, by STATUS (0: passed)
#   tap_done         exit 1 if anything failed, else 0

tap_n=0
tap_fail=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_fail=1
	fi
}

tap_done() {
	exit $tap_fail
}
