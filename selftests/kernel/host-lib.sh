# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Helpers for the host side of the QEMU kernel tests (selftests/kernel/
# kernel.sh, selftests/kernel-arm64/kernel-arm64.sh), sourced after
# selftests/common/tap.sh: numbered TAP lines, and the guest's results
# read back from its serial log.

# tap ok|"not ok" DESCRIPTION: the next numbered TAP line.
tap()
{
	if [ "$1" = ok ]; then
		tap_ok "$2"
	else
		tap_not_ok "$2"
	fi
}

check() { tap_result "$@"; }

# guest_results LOG STATUS: the guest's "UWTAP:" lines from its serial
# LOG, numbered, and its "# " diagnostics as they are; then two checks of
# our own: no kernel panic, BUG, Oops, WARN, lockup or stall anywhere on
# the console, and a guest that ran its test to the end (STATUS is that of
# scripts/qemu-kernel.sh: 124 timeout, 125 no report).  No LOG at all is
# one failure.
guest_results()
{
	if [ ! -f "$1" ]; then
		tap "not ok" "guest booted (no serial log; status $2)"
		return 1
	fi
	tr -d '\r' < "$1" | sed -n 's/^.*UWTAP: //p; /^# /p' > "$1.tap"
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap ok "${line#ok - }" ;;
		"not ok - "*) tap "not ok" "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done < "$1.tap"

	# The kernel's own reports, wherever they landed on the console.
	# (Lockups and RCU stalls show up here when the guest hangs.)
	oops='Kernel panic - not syncing|BUG: |Oops: |WARNING: CPU|general protection fault|detected stalls|soft lockup|hard LOCKUP|blocked for more than'
	if grep -av UWTAP "$1" | grep -av '^# ' | grep -aqE "$oops"; then
		tap "not ok" "no kernel panic, BUG, Oops, WARN, lockup or stall on the console"
		grep -av UWTAP "$1" | grep -av '^# ' | grep -aE -A20 "$oops" |
			head -n 60 | sed 's/^/# /'
	else
		tap ok "no kernel panic, BUG, Oops, WARN, lockup or stall on the console"
	fi
	if [ "$2" -eq 124 ] || [ "$2" -eq 125 ]; then
		tap "not ok" "guest ran the test to the end (status $2)"
		tail -n 40 "$1" | sed 's/^/# /'
	else
		tap ok "guest ran the test to the end"
	fi
}

# build_suite SUITE ARCH DIR: what the guest of Debian SUITE's kernel for
# ARCH (x86_64, arm64) needs, made with that suite's tools in its chroot
# (scripts/suite-root.sh, made on first use): uwind.ko in DIR/mod, built
# by the kernel's external-module interface (make -C <headers> M=<dir>
# modules) with the suite's compiler, which must print no warning; the
# guest programs in DIR/progs, built by the suite's gcc.  Sets root (the
# chroot) and kver (the kernel's release).  Three checks; returns 1 when
# one failed.  FLAVOUR (x86-64 only) builds for another kernel instead:
# rt-amd64, trixie's PREEMPT_RT one, or debug, the debug kernel
# (scripts/debug-kernel.sh; one check more; sets dk, its directory).
build_suite()
{
	suite_root "$1" "$3" || return 1
	_img=/uwind/${4:-amd64}/vmlinuz
	if [ "${4:-}" = debug ]; then
		debug_kernel "$3" || return 1
		_img=$dk/vmlinuz
		build_module "$1" "$2" "$3/mod" "$kver" "$dk/build" || return 1
	else
		kver=$(suite_kver "$2" "${4:-}")
		[ -n "$kver" ] || { check 1 "Debian $1 has a ${4:-$2} kernel"; return 1; }
		build_module "$1" "$2" "$3/mod" "$kver" || return 1
	fi

	if [ "$2" = x86_64 ]; then
		set -- "$1" "$2" "$3" KT_OUT="$3/progs" \
			KT_VMLINUZ="$_img" kernel-progs
	else
		set -- "$1" "$2" "$3" KA_OUT="$3/progs" kernel-arm64-progs
	fi
	_s=$1
	_d=$3
	shift 3
	_out=$(sh "$top/scripts/suite-run.sh" "$_s" make -s --no-print-directory \
		O="$O" "$@" 2>&1)
	_r=$?
	check $_r "the guest programs built by Debian $_s's gcc ($(sh "$top/scripts/suite-run.sh" "$_s" gcc -dumpfullversion 2>/dev/null))"
	[ $_r -eq 0 ] || { echo "$_out" | tail -n 20 | sed 's/^/# /'; return 1; }
	return 0
}

# suite_root SUITE DIR: Debian SUITE's chroot (scripts/suite-root.sh, made
# on first use, its log in DIR/root.log) in root.  One check; 1 when it
# could not be made.
suite_root()
{
	mkdir -p "$2"
	root=$(sh "$top/scripts/suite-root.sh" "$1" 2> "$2/root.log")
	_r=$?
	check $_r "Debian $1: its chroot, kernels and guest userland (scripts/suite-root.sh)"
	[ $_r -eq 0 ] || { tail -n 20 "$2/root.log" | sed 's/^/# /'; return 1; }
}

# debug_kernel DIR: the debug kernel, made or found cached
# (scripts/debug-kernel.sh, its messages in DIR/debug-kernel.log): its
# directory in dk, its release in kver, and UWIND_SUITE_MOUNTS naming it
# for the chroot's builds.  One check; 1 when there is none.
debug_kernel()
{
	dk=$(sh "$top/scripts/debug-kernel.sh" 2> "$1/debug-kernel.log")
	_r=$?
	kver=$(cat "$dk/build/include/config/kernel.release" 2>/dev/null)
	[ $_r -eq 0 ] && [ -n "$kver" ]
	_r=$?
	check $_r "the debug kernel ${kver:-?}: Debian 13's linux-source with selftests/kernel/debug.config (scripts/debug-kernel.sh)"
	[ $_r -eq 0 ] || { tail -n 20 "$1/debug-kernel.log" | sed 's/^/# /'; return 1; }
	UWIND_SUITE_MOUNTS=$dk
	export UWIND_SUITE_MOUNTS
}

# suite_kver ARCH [FLAVOUR]: the release of the kernel of ARCH (x86_64,
# arm64), or of FLAVOUR (rt-amd64), in the chroot suite_root made.
suite_kver()
{
	_deb=amd64
	[ "$1" = arm64 ] && _deb=arm64
	[ -z "${2:-}" ] || _deb=$(echo "$2" | tr - _)
	sed -n "s/^KVER_$_deb=//p" "$root/uwind/env"
}

# build_module SUITE ARCH DIR KVER [KDIR]: uwind.ko in DIR, built against
# Debian SUITE's kernel KVER (its headers, or the build directory KDIR)
# for ARCH with that suite's compiler by the external-module interface
# (scripts/build-module.sh), which must print no warning; one check, and
# 1 when the build failed.
build_module()
{
	_out=$(sh "$top/scripts/build-module.sh" -s "$1" -a "$2" -v "$4" \
		${5:+-k "$5"} "$3" 2>&1)
	_r=$?
	_warn=$(echo "$_out" | grep -E 'warning:|error:|WARNING:|ERROR:' || :)
	_vm=$(modinfo -F vermagic "$3/uwind.ko" 2>/dev/null)
	[ $_r -eq 0 ] && [ -z "$_warn" ] && [ "${_vm%% *}" = "$4" ]
	check $? "uwind.ko built against $4 ($2) by Debian $1's compiler with make -C <headers> M=<dir> modules: no warning, vermagic '$_vm'"
	[ -z "$_warn" ] || echo "$_warn" | head -n 20 | sed 's/^/# /'
	[ $_r -eq 0 ] || { echo "$_out" | tail -n 20 | sed 's/^/# /'; return 1; }
}

# in_root ROOT PATH: the file that PATH is inside ROOT (a sysroot), its
# symbolic links followed inside ROOT, absolute ones too
# (scripts/mkinitramfs.sh places a guest's files by the same rule).
in_root()
{
	_p=$1$2
	_n=0
	while [ -L "$_p" ] && [ $_n -lt 16 ]; do
		_l=$(readlink "$_p")
		case $_l in
		/*) _p=$1$_l ;;
		*) _p=$(dirname "$_p")/$_l ;;
		esac
		_n=$((_n + 1))
	done
	echo "$_p"
}
