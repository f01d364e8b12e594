#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# kernel-guest-arm64.sh -t SCRIPT -n NAME [-T SECONDS] [-a ARGS] [SRC[:DEST]]...
#
# Boot Debian's arm64 kernel (scripts/kernel-env-arm64.sh; or the image
# UWIND_VMLINUZ with the userland UWIND_SYSROOT and the armhf libraries in
# UWIND_ARMHF, when set: another suite's, scripts/suite-root.sh) under
# qemu-system-aarch64 with an initramfs holding the arm64 perf, the
# helpers selftests/kernel/guest-lib.sh at /root/guest-lib.sh, and the
# files given (SRC[:DEST], DEST defaulting to /root/<name>: programs,
# modules, directories of libraries), and run SCRIPT there (busybox sh, in
# /root).  The dynamic linker and libraries of every AArch64 or 32-bit ARM
# program given are added (scripts/mkinitramfs.sh -a arm64).  Nothing is
# loaded at boot: the script loads what it needs.  -a appends ARGS to the
# kernel command line.
# The initramfs is $O/kernel/arm64/NAME.cpio, the serial console's log
# $O/kernel/arm64/NAME.serial.log (its path on stdout).  Exit status: that
# of scripts/qemu-kernel.sh (the guest script's status, 124 on timeout,
# 125 when the guest did not report).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
export O
script="" name="" tmo=${UWIND_QEMU_TIMEOUT:-300} args=""
while getopts t:n:T:a: opt; do
	case $opt in
	t) script=$OPTARG ;;
	n) name=$OPTARG ;;
	T) tmo=$OPTARG ;;
	a) args=$OPTARG ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$script" ] && [ -n "$name" ] ||
	{ echo "kernel-guest-arm64: -t SCRIPT and -n NAME are required" >&2; exit 2; }

kdir=$O/kernel/arm64
log=$kdir/$name.serial.log
mkdir -p "$kdir"

initrd=$(sh "$top/scripts/mkinitramfs.sh" -a arm64 -o "$kdir/$name.cpio" \
	${UWIND_SYSROOT:+-r "$UWIND_SYSROOT"} ${UWIND_ARMHF:+-H "$UWIND_ARMHF"} \
	-t "$script" "$@" \
	"$top/selftests/kernel/guest-lib.sh:/root/guest-lib.sh") || exit 1

rc=0
sh "$top/scripts/qemu-kernel.sh" -A arm64 -q -T "$tmo" -a "$args" \
	${UWIND_VMLINUZ:+-k "$UWIND_VMLINUZ"} -i "$initrd" -l "$log" || rc=$?
echo "$log"
exit $rc
