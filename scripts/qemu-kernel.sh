#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# qemu-kernel.sh [-A ARCH] -i INITRAMFS [-k VMLINUX] [-a ARGS] [-T SECONDS] [-l LOG] [-q]
#
# Boot the installed Debian kernel (uncompressed vmlinux, extracted by
# scripts/extract-vmlinux.sh when -k is not given) with qemu-system-x86_64
# and an initramfs from scripts/mkinitramfs.sh.  The serial console is
# captured in LOG (default $O/kernel/serial.log) and printed afterwards
# unless -q.  -a appends to the kernel command line (e.g. uwind_test=PATH).
#
# -A arm64 boots Debian's arm64 kernel instead (scripts/kernel-env-arm64.sh;
# its image is an uncompressed Image already) with qemu-system-aarch64 on
# the "virt" machine, console on ttyAMA0, default LOG
# $O/kernel/arm64/serial.log.  Under TCG the CPU is "max" with the cheap
# implementation-defined pointer-authentication algorithm (PAC and BTI as
# on recent hardware; the default QARMA algorithm costs about 4 s of boot).
#
# Accelerator: TCG unless KVM works.  UWIND_KVM=1 forces KVM, UWIND_KVM=0
# forces TCG; unset, a quick probe (cached in $O/kernel/kvm-probe, or
# $O/kernel/arm64/kvm-probe) boots
# the kernel under KVM for a few seconds and keeps KVM only if the kernel
# prints its banner.  Where /dev/kvm exists but cannot run the kernel (as
# on these machines) the probe fails once and TCG is used from then on.
#
# Under TCG the CPU is qemu64 with SVM, which QEMU emulates: the guest can
# load kvm-amd and run a nested guest.  Under KVM it is the host's CPU.
#
# x86-64 under TCG runs its vCPUs in one host thread (thread=single;
# UWIND_TCG_THREAD=multi for one each).  With a thread each, Debian 12's
# QEMU 7.2 does not always drop one vCPU's translated code while another
# patches it: x86 Linux patches live text with text_poke_bp() (an int3
# first, taken out again), and twice in the 6.12 and 7.2 guests a vCPU
# later executed such an int3 ("Oops: int3" in __schedule() at the
# perf_sched_events static branch; a third guest died with a kernel
# report right after the module's ftrace hooks came off, very likely the
# same).  One thread translates and runs everything in turn, so a patch
# is seen by all.  It cost 6% of a forky guest's time (96 -> 102 s, leaf,
# lib and defer parts).  arm64's kernel patches text under
# stop_machine(): its guests keep a thread a vCPU.
#
# Prints the boot time (guest uptime when /init started, host wall time)
# on stderr.  Exit status: the guest test's status when it reported one
# ("UWIND-EXIT N"), 124 on timeout, 125 when the guest ended without one.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
initrd="" vmlinux="" extra="" tmo=${UWIND_QEMU_TIMEOUT:-300} log="" quiet=0
arch=x86_64
while getopts A:i:k:a:T:l:q opt; do
	case $opt in
	A) arch=$OPTARG ;;
	i) initrd=$OPTARG ;;
	k) vmlinux=$OPTARG ;;
	a) extra=$OPTARG ;;
	T) tmo=$OPTARG ;;
	l) log=$OPTARG ;;
	q) quiet=1 ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
[ -n "$initrd" ] || { echo "qemu-kernel: -i INITRAMFS is required" >&2; exit 2; }
# Per architecture: the QEMU program, its machine and CPU under TCG and
# under KVM, the console, and the directory for the log and probe cache.
case $arch in
x86_64 | amd64)
	[ -n "$vmlinux" ] || vmlinux=$(O=$O sh "$top/scripts/extract-vmlinux.sh")
	# TCG emulates AMD SVM: the x86-64 guest can run KVM guests of its own
	# (the test of samples taken while a guest runs).
	qemu=qemu-system-x86_64 tcg_args="-cpu qemu64,+svm" kvm_args="-cpu host"
	tcg_thread=${UWIND_TCG_THREAD:-single}
	console=ttyS0 kdir=$O/kernel
	;;
arm64 | aarch64)
	if [ -z "$vmlinux" ]; then
		. "$top/scripts/kernel-env-arm64.sh"
		vmlinux=$UWIND_VMLINUZ
	fi
	qemu=qemu-system-aarch64 tcg_args="-M virt -cpu max,pauth-impdef=on"
	kvm_args="-M virt,gic-version=max -cpu host"
	tcg_thread=${UWIND_TCG_THREAD:-multi}
	console=ttyAMA0 kdir=$O/kernel/arm64
	;;
*) echo "qemu-kernel: unknown architecture $arch" >&2; exit 2 ;;
esac
[ -n "$log" ] || log=$kdir/serial.log
mkdir -p "$kdir" "$(dirname "$log")"
command -v $qemu >/dev/null 2>&1 ||
	{ echo "qemu-kernel: $qemu missing (make deps)" >&2; exit 2; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Does KVM boot this kernel?  Boot it without an initramfs, and watch the
# serial port for the kernel's banner for a few seconds.
kvm_probe()
{
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	plog=$kdir/kvm-probe.log
	: > "$plog"
	# shellcheck disable=SC2086
	$qemu -enable-kvm $kvm_args -display none -no-reboot \
		-m 256M -nic none -monitor none -serial "file:$plog" \
		-kernel "$vmlinux" \
		-append "console=$console earlyprintk=$console panic=-1" \
		</dev/null >/dev/null 2>&1 &
	ppid_=$!
	ok=1 n=0
	while [ $n -lt "${UWIND_KVM_PROBE_TICKS:-25}" ]; do
		if grep -aq 'Linux version' "$plog" 2>/dev/null; then
			ok=0
			break
		fi
		kill -0 "$ppid_" 2>/dev/null || break
		sleep 0.2
		n=$((n + 1))
	done
	kill "$ppid_" 2>/dev/null || :
	wait "$ppid_" 2>/dev/null || :
	return $ok
}

case ${UWIND_KVM:-} in
1) accel=kvm ;;
0) accel=tcg ;;
*)
	cache=$kdir/kvm-probe
	if [ ! -f "$cache" ]; then
		if kvm_probe; then echo yes; else echo no; fi > "$cache"
	fi
	if [ "$(cat "$cache")" = yes ]; then accel=kvm; else accel=tcg; fi
	;;
esac
if [ $accel = kvm ]; then
	accel_args="-enable-kvm $kvm_args"
else
	accel_args="-accel tcg,thread=$tcg_thread $tcg_args"
fi

t0=$(now)
rc=0
# shellcheck disable=SC2086
timeout -k 5 "$tmo" $qemu $accel_args -nographic -no-reboot \
	-m 2G -smp 2 -nic none -kernel "$vmlinux" -initrd "$initrd" \
	-append "console=$console panic=-1 quiet uwind_accel=$accel $extra" \
	</dev/null >"$log" 2>&1 || rc=$?
t1=$(now)

[ "$quiet" -eq 1 ] || tr -d '\r' < "$log"

init_up=$(sed -n 's/.*UWIND-INIT \([0-9.]*\).*/\1/p' "$log" | head -n 1)
exit_line=$(grep -a 'UWIND-EXIT ' "$log" | tail -n 1 | tr -d '\r' || :)
echo "qemu-kernel: $accel: /init at ${init_up:-?} s guest uptime," \
	"test done at $(echo "$exit_line" | awk '{ print $3 }') s," \
	"$(elapsed "$t0" "$t1") s wall" >&2

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "qemu-kernel: timed out after $tmo s" >&2
	exit 124
fi
if [ -z "$exit_line" ]; then
	echo "qemu-kernel: the guest ended without reporting (qemu status $rc)" >&2
	exit 125
fi
exit "$(echo "$exit_line" | sed 's/.*UWIND-EXIT \([0-9]*\).*/\1/')"
