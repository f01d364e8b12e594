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
#
# The cost of a frame, in the same boot: deep.c's stacks of D = 1, 5, 30
# and 120 calls below main (128 distinct functions), built with frame
# pointers (deep-fp) and with SFrame (deep-sf), each run descending to
# every depth in turn, each sample paired with its perf_callchain_user()
# call (selftests/kernel/guest-bench.sh).  Per walker and build, t(D) is
# the mean of the middle half of the durations of the samples at depth D
# and frames(D) their user frames (perf script); the fixed cost F (the
# hook, finding the process's tables, the first frame, the function_graph
# tracer's own time) is the intercept of the least-squares line through
# the (frames(D), t(D)) of every depth, and the cost of a frame at depth D
#   (t(D) - F) / frames(D)
# (the slope between two depths would amplify the noise of a few frames'
# difference: the kernel's walker spends 30-40 ns a frame under TCG, less
# than t()'s noise at depth 5).  Lines:
#   kernel.frame.kernel.dD        the kernel's walker on deep-fp, ns a frame
#   kernel.frame.sframe.dD        uwind on deep-sf (SFrame), ns a frame
#   kernel.frame.fp.dD            uwind on deep-fp (its frame-pointer
#                                 fallback), ns a frame
#   kernel.frame.sframe.ratio.dD  uwind's SFrame frame over the kernel's
#   kernel.frame.fp.ratio.dD      uwind's frame-pointer frame over the
#                                 kernel's
# And one deep stack: 10,000 calls, perf_event_max_stack 1024 (so 1024
# entries a sample), sampled at FDEEP (default 250) Hz:
#   kernel.deep.kernel            the kernel's walker on deep-fp, median ns
#   kernel.deep.uwind             uwind on deep-sf, median ns
#   kernel.deep.ratio             the two medians' ratio
#   kernel.deep.worst.ratio       the longest sample's, uwind over kernel
#   kernel.deep.fp.ratio          uwind on deep-fp, over the kernel's
# The module is loaded with MODARGS (space separated, default
# "max_walk_us=0": the time limit off, so that both walkers walk the
# whole 1024 frames; the limit's default would cut uwind's deep walk under
# TCG, see README).  MODARGS without max_walk_us get the tests' TCG value
# under TCG (2000, selftests/kernel/guest-lib.sh), not the default.
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
	"$O/selftests/kernel/leaf-fp" "$O/selftests/kernel/hot-mem" \
	"$O/selftests/kernel/deep-sf" "$O/selftests/kernel/deep-fp" "$O/uwind"
rc=0
log=$(sh scripts/kernel-guest.sh -n bench -T "${UWIND_QEMU_TIMEOUT:-900}" \
	-a "uwind_freq=${FREQ:-2000} uwind_reps=${REPS:-3} uwind_fdeep=${FDEEP:-250} uwind_modargs=$(echo "${MODARGS-max_walk_us=0}" | tr ' ' ,)" \
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
# The fixed cost of walker w: the intercept of the least-squares line
# through its (frames, time) points at every depth.
function fixed(w,   k, n, sx, sy, sxx, sxy, x, y, b) {
	for (k in med) {
		if (index(k, w ".d") != 1 || k ~ /deep/)
			continue
		x = fr[k]; y = med[k]
		n++; sx += x; sy += y; sxx += x * x; sxy += x * y
	}
	if (n < 2 || n * sxx == sx * sx)
		return 0
	b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
	return (sy - b * sx) / n
}
function per_frame(w, d,   k) {
	k = w ".d" d
	return fr[k] > 0 ? (med[k] - fixed(w)) / fr[k] : 0
}
$1 == "full" {
	printf "# uwind on leaf-fp: %d of %d samples in leaf_c() with leaf_c <- leaf_b <- leaf_a <- main\n", $4, $3
	next
}
$1 == "note" {
	$1 = "#"
	print
	next
}
$1 == "stats" {
	$1 = ""
	print "# module counters at the end:" $0
	next
}
$1 ~ /\.d[0-9]+$/ || $1 ~ /deep/ {
	sub(/\.dall$/, "", $1)
	med[$1] = $2; fr[$1] = $4; worst[$1] = $5
	printf "# %-14s %6d calls, %7.1f user frames, median %9.1f us, longest %9.1f us\n",
		$1, $3, $4, $2 / 1000, $5 / 1000
	if ($1 ~ /\.d[0-9]+$/ && $1 !~ /\.d1$/) {
		d = $1
		sub(/.*\.d/, "", d)
		depth[d] = 1
	}
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
	nd = 0
	for (d in depth)
		ds[++nd] = d + 0
	for (i = 1; i <= nd; i++)	# in order: few depths, insertion sort
		for (j = i; j > 1 && ds[j - 1] > ds[j]; j--) {
			t = ds[j]; ds[j] = ds[j - 1]; ds[j - 1] = t
		}
	for (i = 1; i <= nd; i++) {
		d = ds[i]
		k = per_frame("stock.fp", d)
		s = per_frame("uwind.sf", d)
		f = per_frame("uwind.fp", d)
		printf "BENCH kernel.frame.kernel.d%d %.1f ns\n", d, k
		printf "BENCH kernel.frame.sframe.d%d %.1f ns\n", d, s
		printf "BENCH kernel.frame.fp.d%d %.1f ns\n", d, f
		printf "BENCH kernel.frame.sframe.ratio.d%d %.2f x\n", d, (k > 0 ? s / k : 0)
		printf "BENCH kernel.frame.fp.ratio.d%d %.2f x\n", d, (k > 0 ? f / k : 0)
	}
	k = med["stock.deep"]
	if (k > 0) {
		printf "BENCH kernel.deep.kernel %d ns\n", k
		printf "BENCH kernel.deep.uwind %d ns\n", med["uwind.deep"]
		printf "BENCH kernel.deep.ratio %.2f x\n", med["uwind.deep"] / k
		printf "BENCH kernel.deep.worst.ratio %.2f x\n", (worst["stock.deep"] > 0 ? worst["uwind.deep"] / worst["stock.deep"] : 0)
		printf "BENCH kernel.deep.fp.ratio %.2f x\n", med["uwind.deep.fp"] / k
	}
}' "$log.results"
