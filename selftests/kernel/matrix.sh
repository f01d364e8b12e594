#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# matrix.sh [O]: the kernel module on every kernel it is tested on, the
# stock Debian kernels of three releases on two architectures, each a
# QEMU guest with that release's compiler, perf, busybox and libraries:
#
#   target           kernel   guest parts
#   bookworm-x86_64  6.1      common
#   trixie-x86_64    6.12     common
#   forky-x86_64     7.2      all, and the deferred walk (fp,defer)
#   trixie-rt-x86_64 6.12-rt  common (PREEMPT_RT: Debian's rt-amd64)
#   debug-x86_64     6.12     stress and faults: the debug kernel
#                             (scripts/debug-kernel.sh: lockdep, KASAN,
#                             UBSAN, kmemleak, fault injection...)
#   bookworm-arm64   6.1      common
#   trixie-arm64     6.12     all
#   forky-arm64      7.2      common
#   trixie-pkg       6.12     the packages: make deb, dpkg -i, DKMS,
#                             a library upgrade, uwind status (pkg.sh)
#
# "all" is every part of selftests/kernel/guest-tests.sh (and, on arm64,
# of selftests/kernel-arm64/guest-tests.sh); "common" the parts every
# kernel must pass: load and unload under load, chains from SFrame
# tables (a program, a library linked and dlopen'ed), signal frames, the
# library swap, corrupt tables refused, the memory caps under many
# processes at once, BPF, installed tables for the stock C library (and
# C++ library on x86-64), the agent's part (guest-agent.sh: tables made on
# demand, debugfs unmounted and the kernel locked down), and on arm64 the
# 32-bit tasks.  Each target is
# selftests/kernel/kernel.sh or selftests/kernel-arm64/kernel-arm64.sh
# with the suite and its parts; a kernel whose stage cannot run fails.
#
# The guests run UWIND_JOBS at a time (default: the number of CPUs, at
# most 2): each keeps about one host CPU busy under TCG.  While the file
# UWIND_MATRIX_SHARE names exists (scripts/run-tests.sh: the other stages
# run meanwhile, on the other CPU), one at a time.  Each target's
# TAP is printed when it ends, renumbered into one plan, with its time.
# UWIND_TARGETS="name name" runs only those targets.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
export O

common_x86="progs,base,running,hooks,leaf,lib,signal,inflight,swap,corrupt,cap,conc,user,bpf,inst,reload,unload,agent,dmesg"
all_x86="progs,base,running,hooks,leaf,fp,lib,signal,inflight,swap,cache,walktime,threads,fplib,corrupt,tiny,enable,depth,cap,conc,pad,user,fpjunk,breaks,vcpu,hw,tp,trace,bpf,inst,defer,reload,unload,agent,dmesg"
# The debug kernel: for now the two parts made for its checkers
# (guest-debug.sh), the programs and the baseline; every other part on it
# is issue 31's next step.
debug_x86="progs,base,stress,faults,dmesg"
common_arm64="kernel,progs,base,running,hooks,leaf,lib,inflight,swap,corrupt,cap,conc,user,bpf,reload,arm32,signal,installed,final,agent,done"

# Each target's command, in the order they start: first two x86-64
# guests, which run while the other stages do (about as long as those
# take; an x86-64 guest's TCG is one host thread, an arm64 guest's two
# vCPUs take up to two), then the longest first.
targets="trixie-x86_64 bookworm-x86_64 trixie-arm64 forky-arm64 forky-x86_64 trixie-rt-x86_64 debug-x86_64 bookworm-arm64 trixie-pkg"
target_cmd()
{
	case $1 in
	bookworm-x86_64) echo "selftests/kernel/kernel.sh bookworm $common_x86" ;;
	trixie-x86_64) echo "selftests/kernel/kernel.sh trixie $common_x86" ;;
	trixie-rt-x86_64) echo "selftests/kernel/kernel.sh trixie-rt $common_x86" ;;
	debug-x86_64) echo "selftests/kernel/kernel.sh debug $debug_x86" ;;
	forky-x86_64) echo "selftests/kernel/kernel.sh forky $all_x86" ;;
	bookworm-arm64) echo "selftests/kernel-arm64/kernel-arm64.sh bookworm $common_arm64" ;;
	trixie-arm64) echo "selftests/kernel-arm64/kernel-arm64.sh trixie" ;;
	forky-arm64) echo "selftests/kernel-arm64/kernel-arm64.sh forky $common_arm64" ;;
	trixie-pkg) echo "selftests/kernel/pkg.sh trixie" ;;
	*) return 1 ;;
	esac
}

jobs=${UWIND_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -le 2 ] || jobs=2
[ "$jobs" -ge 1 ] || jobs=1
out=$O/kernel/matrix
rm -rf "$out"
mkdir -p "$out"

n=0 running=0
# emit NAME: its TAP, renumbered, and the lines around it.
emit()
{
	_f=$out/$1
	_t=$(($(cat "$_f.end") - $(cat "$_f.start")))
	echo "# ==== $1: $(cat "$_f.cmd") ($_t s, status $(cat "$_f.rc"))"
	_got=0
	while IFS= read -r _l; do
		case $_l in
		"TAP version"* | [0-9]*..[0-9]*) ;;
		"ok "[0-9]* | "not ok "[0-9]*)
			n=$((n + 1)) _got=1
			_s=${_l%%[0-9]*}
			_r=${_l#"$_s"}
			_r=${_r#"${_r%%[!0-9]*}"}
			echo "$_s$n$_r"
			;;
		*) echo "$_l" ;;
		esac
	done < "$_f.out"
	_bad=$_got
	if [ "$(cat "$_f.rc")" -ne 0 ] && ! grep -q '^not ok' "$_f.out"; then
		_bad=0
	fi
	if [ "$_bad" -eq 0 ]; then
		n=$((n + 1))
		echo "not ok $n - $1: ended with status $(cat "$_f.rc") without reporting a failed test"
	fi
}

# Start NAME in the background; its files: out/NAME.{cmd,out,rc,start,end}.
start()
{
	_name=$1
	_c=$(target_cmd "$_name")
	echo "$_c" > "$out/$_name.cmd"
	date +%s > "$out/$_name.start"
	(
		# shellcheck disable=SC2086
		set -- $_c
		_s=$1
		shift
		sh "$top/$_s" "$O" "$@" > "$out/$_name.out" 2>&1
		echo $? > "$out/$_name.rc"
		date +%s > "$out/$_name.end"
	) &
}

echo "TAP version 13"
queue=${UWIND_TARGETS:-$targets}
for t in $queue; do
	target_cmd "$t" > /dev/null && continue
	echo "not ok 1 - unknown target $t (known: $targets)"
	echo "1..1"
	exit 1
done
echo "# kernel matrix: $queue; $jobs at a time"
t0=$(date +%s)
pending=$queue done_=""
while [ -n "$pending" ] || [ "$running" -gt 0 ]; do
	# Start what the free slots allow.
	lanes=$jobs
	[ -n "${UWIND_MATRIX_SHARE:-}" ] && [ -e "$UWIND_MATRIX_SHARE" ] &&
		lanes=1
	while [ -n "$pending" ] && [ "$running" -lt "$lanes" ]; do
		set -- $pending
		shift
		start "${pending%% *}"
		running=$((running + 1))
		pending=$*
	done
	sleep 2
	# Report what ended.
	for t in $queue; do
		case " $done_ " in *" $t "*) continue ;; esac
		[ -f "$out/$t.end" ] || continue
		emit "$t"
		done_="$done_ $t"
		running=$((running - 1))
	done
done
wait
echo "# kernel matrix: $(($(date +%s) - t0)) s"
echo "1..$n"
