#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Run a test program built for another architecture under qemu-user:
#
#   qemu-user.sh QEMU NAME PROGRAM [ARG...]
#
# The program prints its own TAP.  Without QEMU on the machine, one
# skipped test NAME says so instead.
set -u
qemu=$1 name=$2 prog=$3
shift 3
if ! command -v "$qemu" >/dev/null 2>&1; then
	. "$(dirname "$0")/tap.sh"
	tap_begin 1
	tap_skip "$name" "no $qemu"
	exit 0
fi
exec "$qemu" "$prog" "$@"
