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
# PARTS (comma separated) are the parts of guest-tests.sh to run, default
# all; UWIND_ONLY=part,part overrides them.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
suite=${2:-bookworm}
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
	td=$O/kernel/$suite-x86_64
	kt=$td/progs
	ko=$td/mod/uwind.ko
	name=$suite-x86_64
	build_suite "$suite" x86_64 "$td" || { tap_end; exit 1; }
fi
echo "# kernel: Debian $suite, $kver${parts:+; parts: $parts}"

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
    "$kt/bpfstack" "$kt/hot.ret" "$O/uwind"; do
	[ -f "$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
check $? "$suite: module and guest programs are built${missing:+ (missing:$missing)}"
[ -z "$missing" ] || { tap_end; exit 1; }

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

if [ "$suite" = "$host" ]; then
	set --
else
	set -- -s "$suite" -d "$kt" -m "$ko"
fi
# The whole suite takes 8-10 min of a TCG guest on a loaded 2-core host
# (7.2's with the deferred parts); the limit is for a hung guest only,
# as the arm64 guest's.
log=$(sh "$top/scripts/kernel-guest.sh" -n "$name" "$@" \
	-T "${UWIND_QEMU_TIMEOUT:-1200}" \
	-a "${parts:+uwind_only=$parts}" \
	-t "$top/selftests/kernel/guest-tests.sh")
rc=$?
guest_results "${log:-$O/kernel/$name.serial.log}" "$rc"
tap_end
