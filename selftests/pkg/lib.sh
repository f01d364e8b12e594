# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced first by the pkg area's tests, run from the top of the tree
# with the build directory as $1: sets O and UWIND (the tool, absolute),
# sources tap.sh, makes the scratch directory $TMP (mode 0755: the runs
# as nobody read it), and D, a table directory in it for --dir.
# table_of FILE prints where FILE's table goes in D (its build-id, as
# readelf -n says it).
set -u
O=${1:-build}
UWIND=$(cd "$O" && pwd)/uwind
. selftests/common/tap.sh
tap_scratch
chmod 755 "$TMP"
D=$TMP/tables

table_of()
{
	id=$(readelf -nW "$1" | awk '/Build ID:/ { print $NF; exit }')
	echo "$D/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).uwsf"
}
