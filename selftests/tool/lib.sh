# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced first by the tool's tests (selftests/tool/*.sh), run from the
# top of the tree with the build directory as $1: sets O, UWIND (the
# tool, absolute), BIN (this area's programs) and P (the target program),
# sources tap.sh and makes the scratch directory $TMP.
set -u
O=${1:-build}
UWIND=$(cd "$O" && pwd)/uwind
BIN=$(cd "$O/selftests/tool" && pwd)
P=$BIN/target
. selftests/common/tap.sh
tap_scratch
