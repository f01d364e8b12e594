#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# kernel-arm64.sh [O]: the arm64 guest.  Checks the guest programs and the
# cross-built test module on the host, boots Debian's arm64 kernel under
# qemu-system-aarch64 with them and perf (scripts/kernel-guest-arm64.sh),
# runs selftests/kernel-arm64/guest-tests.sh there, and re-prints the
# guest's "UWTAP:" lines as numbered TAP.  Needs "make kernel-arm64-progs"
# and the module (selftests/kernel-arm64/build.mk) first.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
export O
ka=$O/selftests/kernel-arm64
ko=$O/kernel/arm64/uwhello/uwhello.ko
. "$top/selftests/common/tap.sh"
. "$top/selftests/kernel/host-lib.sh"

tap_begin
missing=""
for f in "$ko" "$ka/leaf-fp" "$ka/leaf-sf" "$ka/leaf-t32"; do
	[ -f "$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
check $? "test module and guest programs are built${missing:+ (missing:$missing)}"
[ -z "$missing" ] || { tap_end; exit 1; }

# The module: AArch64, for the extracted kernel's release.
. "$top/scripts/kernel-env-arm64.sh" || { tap_end; exit 1; }
vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
case $vm in
"$UWIND_KVER "*aarch64*) r=0 ;;
*) r=1 ;;
esac
check $r "uwhello.ko: vermagic '$vm' is $UWIND_KVER, aarch64"

# The fixtures: SFrame in leaf-sf only; its c() keeps no frame record;
# leaf-fp's c() does; leaf-t32 is Thumb code with an EHABI entry for each
# function of the chain and no frame pointer set up in c().
a64='aarch64-linux-gnu-'
has_sframe() { ${a64}readelf -lW "$1" 2>/dev/null | grep -q GNU_SFRAME; }
fn() { ${a64}objdump -d "$1" | awk -v f="<$2>:" '$2 == f, /^$/'; }
r=0
has_sframe "$ka/leaf-sf" || { r=1; echo "# leaf-sf has no PT_GNU_SFRAME"; }
! has_sframe "$ka/leaf-fp" || { r=1; echo "# leaf-fp has PT_GNU_SFRAME"; }
fn "$ka/leaf-sf" c | grep -q 'x29' && { r=1; echo "# c() of leaf-sf uses x29"; }
fn "$ka/leaf-fp" c | grep -q 'mov	x29, sp' ||
	{ r=1; echo "# c() of leaf-fp sets no frame pointer"; }
check $r "AArch64 fixtures: SFrame in leaf-sf only, frame records in leaf-fp's c() only"

arm='arm-linux-gnueabihf-'
r=0
${arm}readelf -hW "$ka/leaf-t32" | grep -q 'Machine: *ARM$' ||
	{ r=1; echo "# leaf-t32 is not 32-bit ARM"; }
${arm}readelf -lW "$ka/leaf-t32" | grep -q 'ld-linux-armhf.so.3' ||
	{ r=1; echo "# leaf-t32 is not linked dynamically against armhf libc"; }
for s in c b a main; do
	# Thumb functions have odd symbol values.
	v=$(${arm}readelf -sW "$ka/leaf-t32" |
		awk -v s="$s" '$8 == s && $4 == "FUNC" { print $2 }')
	case $v in
	*[13579bdf]) ;;
	*) r=1; echo "# $s of leaf-t32 is not Thumb code ($v)" ;;
	esac
	${arm}readelf -u "$ka/leaf-t32" | grep -q "^0x[0-9a-f]* <$s>: " ||
		{ r=1; echo "# no EHABI entry for $s in leaf-t32"; }
done
${arm}objdump -d "$ka/leaf-t32" | awk '$2 == "<c>:", /^$/' |
	grep -qE '(mov|add)[.w]*	r7, sp' && { r=1; echo "# c() of leaf-t32 sets r7 up"; }
check $r "32-bit fixture: leaf-t32 is dynamic armhf Thumb-2 with EHABI entries for c, b, a, main and no frame pointer"

log=$(sh "$top/scripts/kernel-guest-arm64.sh" -n kernel-arm64 \
	-T "${UWIND_QEMU_TIMEOUT:-300}" \
	-t "$top/selftests/kernel-arm64/guest-tests.sh" \
	"$ko" "$ka/leaf-fp" "$ka/leaf-sf" "$ka/leaf-t32")
rc=$?
guest_results "${log:-$O/kernel/arm64/kernel-arm64.serial.log}" "$rc"
tap_end
