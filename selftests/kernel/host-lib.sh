# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Helpers for the host side of the QEMU kernel tests (selftests/kernel/
# kernel.sh, selftests/kernel-arm64/kernel-arm64.sh), sourced after
# selftests/common/tap.sh: numbered TAP lines, and the guest's results
# read back from its serial log.

# tap ok|"not ok" DESCRIPTION: the next numbered TAP line.
tap()
{
	if [ "$1" = ok ]; then
		tap_ok "$2"
	else
		tap_not_ok "$2"
	fi
}

check() { tap_result "$@"; }

# guest_results LOG STATUS: the guest's "UWTAP:" lines from its serial
# LOG, numbered, and its "# " diagnostics as they are; then two checks of
# our own: no kernel panic, BUG, Oops, WARN, lockup or stall anywhere on
# the console, and a guest that ran its test to the end (STATUS is that of
# scripts/qemu-kernel.sh: 124 timeout, 125 no report).  No LOG at all is
# one failure.
guest_results()
{
	if [ ! -f "$1" ]; then
		tap "not ok" "guest booted (no serial log; status $2)"
		return 1
	fi
	tr -d '\r' < "$1" | sed -n 's/^.*UWTAP: //p; /^# /p' > "$1.tap"
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap ok "${line#ok - }" ;;
		"not ok - "*) tap "not ok" "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done < "$1.tap"

	# The kernel's own reports, wherever they landed on the console.
	# (Lockups and RCU stalls show up here when the guest hangs.)
	oops='Kernel panic - not syncing|BUG: |Oops: |WARNING: CPU|general protection fault|detected stalls|soft lockup|hard LOCKUP|blocked for more than'
	if grep -av UWTAP "$1" | grep -av '^# ' | grep -aqE "$oops"; then
		tap "not ok" "no kernel panic, BUG, Oops, WARN, lockup or stall on the console"
		grep -av UWTAP "$1" | grep -av '^# ' | grep -aE -A20 "$oops" |
			head -n 60 | sed 's/^/# /'
	else
		tap ok "no kernel panic, BUG, Oops, WARN, lockup or stall on the console"
	fi
	if [ "$2" -eq 124 ] || [ "$2" -eq 125 ]; then
		tap "not ok" "guest ran the test to the end (status $2)"
		tail -n 40 "$1" | sed 's/^/# /'
	else
		tap ok "guest ran the test to the end"
	fi
}
