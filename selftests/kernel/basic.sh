#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# basic.sh [O]: the first kernel test.  Boots the installed Debian kernel
# under QEMU with an initramfs holding uwind.ko, perf and the leaf program,
# runs guest-basic.sh inside, and re-prints the guest's "UWTAP:" lines from
# the serial log as numbered TAP.  Needs "make module" and the leaf
# program built first (selftests/kernel/build.mk).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
export O
kdir=$O/kernel
ko=$kdir/mod/uwind.ko
leaf=$O/selftests/kernel/leaf-fp
log=$kdir/basic.serial.log
n=0

echo "TAP version 13"
tap()
{
	n=$((n + 1))
	echo "$1 $n - $2"
}

if [ "$(uname -m)" != x86_64 ]; then
	echo "1..1"
	echo "ok 1 - kernel tests # SKIP host is not x86-64"
	exit 0
fi
for f in "$ko" "$leaf"; do
	if [ ! -f "$f" ]; then
		tap "not ok" "$f is built"
		echo "1..$n"
		exit 1
	fi
done

initrd=$(sh "$top/scripts/mkinitramfs.sh" -o "$kdir/basic.cpio" \
	-t "$top/selftests/kernel/guest-basic.sh" \
	"$ko:/root/uwind.ko" "$leaf:/root/leaf")
if [ -z "$initrd" ]; then
	tap "not ok" "initramfs built"
	echo "1..$n"
	exit 1
fi

sh "$top/scripts/qemu-kernel.sh" -q -T "${UWIND_QEMU_TIMEOUT:-180}" \
	-i "$initrd" -l "$log"
rc=$?

# The guest's lines, numbered; its diagnostics as they are.
tr -d '\r' < "$log" | sed -n 's/^.*UWTAP: //p; /^# /p' > "$log.tap"
while IFS= read -r line; do
	case $line in
	"ok - "*) tap ok "${line#ok - }" ;;
	"not ok - "*) tap "not ok" "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done < "$log.tap"

# The kernel's own reports, wherever they landed on the console.
oops='Kernel panic - not syncing|BUG: |Oops: |WARNING: CPU|general protection fault'
if grep -v UWTAP "$log" | grep -aqE "$oops"; then
	tap "not ok" "no kernel panic, BUG, Oops or WARN on the console"
	grep -v UWTAP "$log" | grep -aE -A20 "$oops" | sed 's/^/# /'
else
	tap ok "no kernel panic, BUG, Oops or WARN on the console"
fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 125 ]; then
	tap "not ok" "guest ran the test to the end (status $rc)"
	tail -n 40 "$log" | sed 's/^/# /'
else
	tap ok "guest ran the test to the end"
fi
echo "1..$n"
