#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# oldkernels.sh [O]: the module against the kernels older than the
# matrix's that kernel/compat.h bridges, built only (no guest boots them
# yet): Debian 11's 5.10, x86-64 and arm64, with its own gcc through
# make -C <headers> M=<dir> modules, which must print no warning, and the
# vermagic of the kernel it was built for.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
export O
. "$top/selftests/common/tap.sh"
. "$top/selftests/kernel/host-lib.sh"

tap_begin
suite=bullseye
mkdir -p "$O/kernel"
root=$(sh "$top/scripts/suite-root.sh" "$suite" 2> "$O/kernel/$suite.root.log")
r=$?
tap_result $r "Debian $suite: its chroot and kernel headers (scripts/suite-root.sh)"
if [ $r -ne 0 ]; then
	tail -n 20 "$O/kernel/$suite.root.log" | sed 's/^/# /'
	tap_end
	exit 1
fi
for arch in x86_64 arm64; do
	deb=amd64
	[ "$arch" = arm64 ] && deb=arm64
	kver=$(sed -n "s/^KVER_$deb=//p" "$root/uwind/env")
	build_module "$suite" "$arch" "$O/kernel/$suite-$arch/mod" "$kver"
done
tap_end
