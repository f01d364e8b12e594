#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Benchmark (not a test): the time the kernel spends on the user callchain
# of one perf sample (perf_callchain_user), with its own frame-pointer
# walker and with uwind.ko, measured in the QEMU guest with the
# function_graph tracer (selftests/kernel/guest-bench.sh explains the
# method).  Prints "BENCH name value unit" lines:
#   kernel.callchain.without     stock walker, leaf-fp (frame pointers,
#                                the whole chain)
#   kernel.callchain.without.nofp stock walker, leaf-sf (no frame
#                                pointers: the chain breaks at once)
#   kernel.callchain.with        uwind, leaf-sf (SFrame, the whole chain)
#   kernel.callchain.with.fp     uwind, leaf-fp (frame-pointer fallback)
#   kernel.callchain.with.installed uwind, hot-mem (plain -O2, hot in
#                                libc) with installed tables for it, libc
#                                and ld.so (the whole chain, to _start)
# Each is the median over the samples of REPS (default 3) one-second runs
# at FREQ (default 2000) samples a second, the configurations taking
# turns.  Under TCG the guest's CPU is emulated, and slower than
# hardware by one to two orders of magnitude: compare the lines with each
# other.  UWIND_KVM=1 runs it under KVM where KVM works.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
O=${O:-build}
export O

if [ "$(uname -m)" != x86_64 ]; then
	echo "# bench-kernel: needs an x86-64 host"
	exit 0
fi
make -s --no-print-directory O="$O" module "$O/selftests/kernel/leaf-sf" \
	"$O/selftests/kernel/leaf-fp" "$O/selftests/kernel/hot-mem" "$O/uwind"
rc=0
log=$(sh scripts/kernel-guest.sh -n bench -T "${UWIND_QEMU_TIMEOUT:-300}" \
	-a "uwind_freq=${FREQ:-2000} uwind_reps=${REPS:-3}" \
	-t selftests/kernel/guest-bench.sh) ||
	rc=$?
[ -n "$log" ] || log=$O/kernel/bench.serial.log
tr -d '\r' < "$log" | sed -n 's/^RESULT //p' > "$log.results"
if [ "$rc" -ne 0 ] || ! grep -q '^uwind.fp ' "$log.results"; then
	echo "bench-kernel: the guest failed (status $rc):" >&2
	tr -d '\r' < "$log" | tail -n 30 >&2
	exit 1
fi
accel=$(cat "$O/kernel/kvm-probe" 2>/dev/null || echo no)
case ${UWIND_KVM:-} in
1) accel=KVM ;;
0) accel=TCG ;;
*) [ "$accel" = yes ] && accel=KVM || accel=TCG ;;
esac

awk -v accel="$accel" '
BEGIN { printf "# guest under %s; perf_callchain_user durations (function_graph)\n", accel }
$1 == "full" {
	printf "# uwind on leaf-fp: %d of %d samples in c() with c <- b <- a <- main\n", $4, $3
	next
}
{
	if ($1 == "stock.fp")
		name = "without"
	else if ($1 == "stock.sf")
		name = "without.nofp"
	else if ($1 == "uwind.sf")
		name = "with"
	else if ($1 == "uwind.inst")
		name = "with.installed"
	else
		name = "with.fp"
	what = $1 ~ /^stock/ ? "kernel walker" : "uwind"
	prog = $1 ~ /\.fp$/ ? "leaf-fp" : $1 ~ /inst/ ? "hot-mem" : "leaf-sf"
	printf "# %-13s on %s: %s calls, %s user frames per sample, median %.1f us\n",
		what, prog, $3, $4, $2 / 1000
	line[++n] = sprintf("BENCH kernel.callchain.%s %d ns", name, $2)
}
END {
	for (i = 1; i <= n; i++)
		print line[i]
}' "$log.results"
