#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# kernel.sh [O [SUITE [PARTS]]]: the kernel module's tests on the x86-64
# kernel of a Debian SUITE (default: the host's, bookworm, Linux 6.1).
# Checks the guest programs on the host (SFrame where expected), boots the
# suite's kernel under QEMU with them, uwind.ko and perf
# (scripts/kernel-guest.sh), runs selftests/kernel/guest-tests.sh there,
# and re-prints the guest's "UWTAP:" lines from the serial log as
# numbered TAP.
#
# bookworm: the installed Debian kernel, the programs and module of "make
# kernel-module kernel-progs" (selftests/kernel/build.mk).  Another suite
# (trixie: 6.12, forky: 7.2): its chroot (scripts/suite-root.sh, made on
# first use), in which the module is built with that suite's compiler
# through the kernel's external-module interface (no warning allowed) and
# the programs with its gcc, into $O/kernel/SUITE-x86_64; the guest runs
# that suite's perf, busybox and libraries.
#
# trixie-rt: Debian 13's PREEMPT_RT kernel (the rt-amd64 flavour), the
# module and programs built as for trixie, into $O/kernel/trixie-rt-x86_64.
# debug: the debug kernel (scripts/debug-kernel.sh: Debian 13's source
# with lockdep, KASAN, UBSAN, kmemleak...), the same, into
# $O/kernel/debug-x86_64.
#
# PARTS (comma separated) are the parts of guest-tests.sh to run, default
# all; UWIND_ONLY=part,part overrides them.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
suite=${2:-bookworm}
flavour="" tname=$suite
case $suite in
trixie-rt) suite=trixie flavour=rt-amd64 ;;
debug) suite=trixie flavour=debug ;;
esac
parts=${UWIND_ONLY:-${3:-}}
export O
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
. "$top/selftests/common/tap.sh"
. "$top/selftests/kernel/host-lib.sh"

tap_begin
if [ "$suite" = "$host" ]; then
	kt=$O/selftests/kernel
	ko=$O/kernel/mod/uwind.ko
	name=kernel-tests
	. "$top/scripts/kernel-env.sh"
	kver=$UWIND_KVER
else
	td=$O/kernel/$tname-x86_64
	kt=$td/progs
	ko=$td/mod/uwind.ko
	name=$tname-x86_64
	build_suite "$suite" x86_64 "$td" "$flavour" || { tap_end; exit 1; }
fi
echo "# kernel: Debian $suite${flavour:+ ($flavour)}, $kver${parts:+; parts: $parts}"

if [ "$(uname -m)" != x86_64 ]; then
	tap_skip "kernel tests" "host is not x86-64"
	tap_end
	exit
fi
missing=""
for f in "$ko" "$kt/leaf-sf" "$kt/leaf-fp" "$kt/chain" "$kt/chain-dl" \
    "$kt/chain-fp" "$kt/threads" "$kt/tiny" "$kt/tiny-dyn" \
    "$kt/lib/libuwchain.so" "$kt/lib/libuwfp.so" "$kt/bad-garbage" \
    "$kt/swap" "$kt/lib/libuwswapa.so" "$kt/lib/libuwswapb.so" \
    "$kt/sframe-grow" "$kt/uwspawn" "$kt/fpjunk" "$kt/memloop" \
    "$kt/kvmspin" "$kt/leaf-sys" "$kt/leaf-st" "$kt/leaf-st.syms" \
    "$kt/bpfstack" "$kt/hot.ret" "$kt/uwgen" "$kt/hot-plug" \
    "$kt/lib/libuwplug.so" "$O/selftests/kernel/hot-ct" "$O/uwind"; do
	[ -f "$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
check $? "$suite: module and guest programs are built${missing:+ (missing:$missing)}"
[ -z "$missing" ] || { tap_end; exit 1; }
if [ "$flavour" = rt-amd64 ]; then
	_v=$(strings "$kt/vmlinux" | grep -m 1 '^Linux version ')
	case $_v in
	*" PREEMPT_RT "*) _r=0 ;;
	*) _r=1 ;;
	esac
	check $_r "$tname: the kernel booted is a PREEMPT_RT one (${_v:-no version string})"
fi

# The fixtures themselves: SFrame (a PT_GNU_SFRAME segment) exactly where
# the tests expect it, and no frame pointer setup in the leaf of leaf-sf.
has_sframe() { readelf -lW "$1" 2>/dev/null | grep -q GNU_SFRAME; }
r=0
for f in leaf-sf chain chain-dl chain-fp threads tiny tiny-dyn \
    lib/libuwchain.so swap lib/libuwswapa.so lib/libuwswapb.so fpjunk \
    memloop kvmspin leaf-sys leaf-st; do
	has_sframe "$kt/$f" || { r=1; echo "# $f has no PT_GNU_SFRAME"; }
done
for f in leaf-fp lib/libuwfp.so; do
	! has_sframe "$kt/$f" || { r=1; echo "# $f has PT_GNU_SFRAME"; }
done
objdump -d "$kt/leaf-sf" | awk '/^[0-9a-f]+ <leaf_c>:/, /^$/' |
	grep -q 'push.*%rbp' && { r=1; echo "# leaf_c() of leaf-sf saves %rbp"; }
# The stock-built programs (plain -O2): neither SFrame nor frame pointers
# (but in the C runtime's crtbegin.o, which is built with them).
for f in "$kt"/hot-*; do
	has_sframe "$f" && { r=1; echo "# $f has PT_GNU_SFRAME"; }
	objdump -d "$f" | awk '/^[0-9a-f]+ </ { fn = $2 }
		/mov *%rsp,%rbp/ && fn !~ /^<(__do_global_dtors_aux|frame_dummy|(de)?register_tm_clones)>:$/ { print fn }' |
		grep -q . && { r=1; echo "# $f sets up frame pointers"; }
done
check $r "$suite fixtures: SFrame in the -Wa,--gsframe builds only, leaf-sf and the hot-* programs without frame pointers"

# The build refuses a kernel that is neither x86-64 nor arm64, saying so
# (here: the installed headers with CONFIG_X86_64 unset and
# SRCARCH=riscv), rather than failing somewhere in the compile or
# building a module that cannot work.  Once, on the host's suite.
if [ "$suite" = "$host" ]; then
	out=$(KMAKEFLAGS="CONFIG_X86_64= SRCARCH=riscv" \
		sh "$top/scripts/build-module.sh" -t "$O/kernel/mod-noarch" 2>&1)
	r=$?
	rm -rf "$O/kernel/mod-noarch"
	[ "$r" -ne 0 ] && echo "$out" |
		grep -q 'uwind: the kernel module supports x86-64 and arm64 only, and this kernel is riscv'
	check $? "the module build refuses a kernel that is neither x86-64 nor arm64, with a clear message"
	[ "$r" -ne 0 ] || echo "$out" | tail -n 5 | sed 's/^/# /'
fi

# The agent's container (guest-agent.sh): hot-ct, built here with the
# oldest C library of the matrix, and another Debian release's loader and
# C library (Debian 13's for Debian 12's kernel, Debian 12's for the
# others), which it finds under /ctr; their call sites as the guest sees
# them.
ct=$O/kernel/$name.ct
rm -rf "$ct"
mkdir -p "$ct"
if [ "$suite" = "$host" ]; then
	ctrel=trixie
	ctroot=$(sh "$top/scripts/suite-root.sh" -q trixie 2>"$ct/root.log")
else
	ctrel=$host ctroot=""
fi
r=$?
[ $r -eq 0 ] && cp "$O/selftests/kernel/hot-ct" "$ct/hot-ct" &&
	cp -L "$ctroot/lib/x86_64-linux-gnu/libc.so.6" "$ct/libc.so.6" &&
	cp -L "$ctroot/lib64/ld-linux-x86-64.so.2" "$ct/ld-linux-x86-64.so.2" &&
	echo "$ctrel" > "$ct/release" &&
	sh "$top/selftests/kernel/retaddrs.sh" -f "$ct/hot-ct=/ctr/hot-ct" \
		-f "$ct/libc.so.6=/ctr/libc.so.6" \
		-i "$ct/ld-linux-x86-64.so.2=/ctr/ld-linux-x86-64.so.2" \
		> "$ct/ct.ret"
check $? "the agent's container: hot-ct with Debian $ctrel's ld.so and libc, and their call sites"
# One archive, which the guest unpacks: the initramfs builder would look
# for hot-ct's loader and libraries, which are nowhere but in it.
ctfiles=""
(cd "$ct" && tar -cf ctr.tar hot-ct libc.so.6 ld-linux-x86-64.so.2 release ct.ret) 2>/dev/null &&
	ctfiles="$ct/ctr.tar:/root/ctr.tar"
if [ "$suite" = "$host" ]; then
	set --
else
	set -- -s "$suite" ${flavour:+-f "$flavour"} -d "$kt" -m "$ko"
fi
# The whole suite takes 8-10 min of a TCG guest on a loaded 2-core host
# (7.2's with the deferred parts); the limit is for a hung guest only,
# as the arm64 guest's.
# The debug kernel's checkers make every part several times slower.
tmo=1200
[ "$flavour" = debug ] && tmo=3600
log=$(sh "$top/scripts/kernel-guest.sh" -n "$name" "$@" \
	-T "${UWIND_QEMU_TIMEOUT:-$tmo}" \
	-a "${parts:+uwind_only=$parts}" \
	-t "$top/selftests/kernel/guest-tests.sh" $ctfiles)
rc=$?
guest_results "${log:-$O/kernel/$name.serial.log}" "$rc"
tap_end
