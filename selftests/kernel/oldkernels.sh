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
if ! suite_root "$suite" "$O/kernel/$suite"; then
	tap_end
	exit 1
fi
for arch in x86_64 arm64; do
	build_module "$suite" "$arch" "$O/kernel/$suite-$arch/mod" \
		"$(suite_kver "$arch")"
done
tap_end
