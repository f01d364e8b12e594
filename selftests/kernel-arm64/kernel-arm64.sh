#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# kernel-arm64.sh [O [SUITE [PARTS]]]: the arm64 guest, on the arm64
# kernel of Debian SUITE (default: the host's, bookworm, Linux 6.1).
# Checks the cross-built module and the guest programs on the host,
# reports the EHABI coverage of the armhf libraries the stock 32-bit
# program maps, boots the kernel under qemu-system-aarch64 with them and
# perf (scripts/kernel-guest-arm64.sh), runs selftests/kernel-arm64/
# guest-tests.sh there (which runs selftests/kernel/guest-tests.sh too),
# and re-prints the guest's "UWTAP:" lines as numbered TAP.
#
# bookworm: the programs and module of "make module-arm64
# kernel-arm64-progs" (selftests/kernel-arm64/build.mk), the kernel and
# userland of scripts/deps-arm64.sh.  Another suite (trixie: 6.12, forky:
# 7.2): module, programs (its cross compilers) and the guest's userland
# from its chroot, as selftests/kernel/kernel.sh makes them, in
# $O/kernel/SUITE-arm64.  PARTS: uwind_only for the guest (see its
# guest-tests.sh); UWIND_ONLY overrides them.
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
	ka=$O/selftests/kernel-arm64
	ko=$O/kernel/arm64/mod/uwind.ko
	name=kernel-arm64
	armhf=/usr/arm-linux-gnueabihf
else
	td=$O/kernel/$suite-arm64
	ka=$td/progs
	ko=$td/mod/uwind.ko
	name=$suite-arm64
	build_suite "$suite" arm64 "$td" || { tap_end; exit 1; }
	armhf=$root/usr/arm-linux-gnueabihf
	UWIND_SYSROOT=$root/uwind/arm64/sysroot
	UWIND_VMLINUZ=$root/uwind/arm64/vmlinuz
	UWIND_ARMHF=$armhf
	UWIND_KVER=$kver
	export UWIND_SYSROOT UWIND_VMLINUZ UWIND_ARMHF UWIND_KVER
fi
a64=$ka/a64
echo "# kernel: Debian $suite, arm64${parts:+; parts: $parts}"
progs32="leaf-t32 leaf-t32bad leaf-mix sig-t32 chain-t32fp memloop32"
progs64="leaf-pac leaf-fppac sig-a64 hot-oss"
missing=""
for f in "$ko" "$a64/.built" "$a64/leaf-sf" "$a64/leaf-fp" "$a64/lib" \
    "$ka/lib32/libuwfp32.so" "$O/selftests/kernel-arm64/uwind" \
    "$O/selftests/kernel-arm64/hot-ct"; do
	[ -e "$f" ] || missing="$missing $f"
done
for p in $progs32 $progs64; do
	[ -f "$ka/$p" ] || missing="$missing $ka/$p"
done
[ -z "$missing" ]
check $? "module and guest programs are built${missing:+ (missing:$missing)}"
[ -z "$missing" ] || { tap_end; exit 1; }

# The module: AArch64, for the extracted kernel's release.
if [ "$suite" = "$host" ]; then
	. "$top/scripts/kernel-env-arm64.sh" || { tap_end; exit 1; }
fi
vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
case $vm in
"$UWIND_KVER "*aarch64*) r=0 ;;
*) r=1 ;;
esac
check $r "uwind.ko: vermagic '$vm' is $UWIND_KVER, aarch64"

# The fixtures.  AArch64: SFrame in leaf-sf and leaf-pac only, their c()
# keeps no frame record, leaf-fp's does; leaf-pac and leaf-fppac sign
# return addresses (paciasp) and leaf-pac's SFrame marks rows signed.
a='aarch64-linux-gnu-'
has_sframe() { ${a}readelf -lW "$1" 2>/dev/null | grep -q GNU_SFRAME; }
fn() { ${a}objdump -d "$1" | awk -v f="<$2>:" '$2 == f, /^$/'; }
r=0
for f in "$a64/leaf-sf" "$ka/leaf-pac" "$ka/sig-a64"; do
	has_sframe "$f" || { r=1; echo "# $f has no PT_GNU_SFRAME"; }
done
for f in "$a64/leaf-fp" "$ka/leaf-fppac"; do
	! has_sframe "$f" || { r=1; echo "# $f has PT_GNU_SFRAME"; }
done
fn "$a64/leaf-sf" leaf_c | grep -q 'x29' && { r=1; echo "# leaf_c() of leaf-sf uses x29"; }
fn "$a64/leaf-fp" leaf_c | grep -q 'mov	x29, sp' ||
	{ r=1; echo "# leaf_c() of leaf-fp sets no frame pointer"; }
for f in leaf-pac leaf-fppac; do
	fn "$ka/$f" leaf_b | grep -q paciasp ||
		{ r=1; echo "# leaf_b() of $f does not sign its return address"; }
done
"$O/uwind" dump "$ka/leaf-pac" 2>/dev/null | grep -q '\[s\]' ||
	{ r=1; echo "# leaf-pac's SFrame has no signed row"; }
check $r "AArch64 fixtures: SFrame where expected, frame records in leaf-fp's leaf_c(), return addresses signed in leaf-pac and leaf-fppac"

# 32-bit: Thumb-2 with EHABI entries for the chain and no frame pointer in
# leaf_c(); leaf-mix's leaf_b() in ARM state; libuwfp32.so ARM code with frame
# pointers and no unwind tables; memloop32 built as Debian builds C.
arm='arm-linux-gnueabihf-'
# sym FILE NAME: the symbol's value (Thumb functions' are odd).
sym() { ${arm}readelf -sW "$1" | awk -v s="$2" '$8 == s && $4 == "FUNC" { print $2; exit }'; }
thumb() { case $(sym "$1" "$2") in *[13579bdf]) return 0 ;; *) return 1 ;; esac; }
r=0
for p in $progs32; do
	${arm}readelf -hW "$ka/$p" | grep -q 'Machine: *ARM$' &&
		${arm}readelf -lW "$ka/$p" | grep -q 'ld-linux-armhf.so.3' ||
		{ r=1; echo "# $p is not dynamic armhf"; }
done
for s in leaf_c leaf_b leaf_a main; do
	thumb "$ka/leaf-t32" "$s" || { r=1; echo "# $s of leaf-t32 is not Thumb code"; }
	${arm}readelf -u "$ka/leaf-t32" | grep -q "^0x[0-9a-f]* <$s>: " ||
		{ r=1; echo "# no EHABI entry for $s in leaf-t32"; }
done
${arm}objdump -d "$ka/leaf-t32" | awk '$2 == "<leaf_c>:", /^$/' |
	grep -qE '(mov|add)[.w]*	r7, sp' && { r=1; echo "# leaf_c() of leaf-t32 sets r7 up"; }
! thumb "$ka/leaf-mix" leaf_b && thumb "$ka/leaf-mix" leaf_c &&
	thumb "$ka/leaf-mix" leaf_a ||
	{ r=1; echo "# leaf-mix: leaf_b() is not ARM code between Thumb leaf_c() and leaf_a()"; }
! ${arm}readelf -lW "$ka/lib32/libuwfp32.so" | grep -q EXIDX &&
	! thumb "$ka/lib32/libuwfp32.so" fp_lib_func ||
	{ r=1; echo "# libuwfp32.so has unwind tables or Thumb code"; }
${arm}readelf -u "$ka/memloop32" | grep -q "<copy>: " &&
	{ r=1; echo "# memloop32 has an EHABI entry for copy()"; }
"$O/uwind" verify "$ka/leaf-t32" > /dev/null ||
	{ r=1; echo "# uwind verify refuses leaf-t32's index"; }
"$O/uwind" verify "$ka/leaf-t32bad" 2>&1 | grep -q 'entry 0: .*out of bounds' ||
	{ r=1; echo "# uwind verify does not refuse leaf-t32bad's entry 0"; }
check $r "32-bit fixtures: dynamic armhf; leaf-t32 Thumb-2 with EHABI and no frame pointer (leaf-t32bad: its index broken); leaf-mix's leaf_b() in ARM state; libuwfp32.so without tables; memloop32 without"

# The EHABI coverage of the armhf libraries memloop32 maps: the share of
# .text whose index entry can be unwound (not EXIDX_CANTUNWIND), each
# entry covering up to the next one (Thumb bit cleared), the last to the
# end of .text, as arm-linux-gnueabihf-readelf reads them.
coverage()
{
	_text=$(${arm}readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 == ".text" { print $3, $5 }')
	${arm}readelf -u "$1" | awk -v text="$_text" '
	function hex(x,   i, v) {
		v = 0
		x = tolower(x)
		sub(/^0x/, "", x)
		sub(/:$/, "", x)
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	# the bytes of [a, b) inside .text
	function part(a, b) {
		a = a > lo ? a : lo
		b = b < hi ? b : hi
		return b > a ? b - a : 0
	}
	BEGIN { split(text, t, " "); lo = hex(t[1]); hi = lo + hex(t[2]) }
	/^0x[0-9a-f]+(:| <)/ {
		a = hex($1) - hex($1) % 2
		if (n && can)
			good += part(prev, a)
		prev = a
		can = $0 !~ /cantunwind/
		n++
	}
	END {
		if (n && can)
			good += part(prev, hi)
		printf "%d %d %d\n", n, good, hi - lo
	}'
}
r=0
for lib in $(${arm}readelf -dW "$ka/memloop32" |
    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p') ld-linux-armhf.so.3; do
	f=$armhf/lib/$lib
	[ -f "$f" ] || { r=1; echo "# no $f"; continue; }
	set -- $(coverage "$f")
	[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] ||
		{ r=1; echo "# $lib: no EHABI coverage measured ($*)"; continue; }
	echo "# EHABI $lib: $1 index entries, $2 of $3 bytes of .text unwindable ($(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.1f%%", 100 * a / b }'))"
done
check $r "EHABI coverage of the armhf libraries memloop32 maps, measured (readelf -u)"

# Installed tables for hot-mem and hot-oss, stock AArch64 programs (plain
# -O2: no SFrame; frame records, as GCC keeps them on AArch64) whose hot
# loops are libc's memcpy and memset and libstdc++'s ostringstream, and
# for the libraries they map: made here from their DWARF CFI by `uwind
# sframe --install --dir`, at /root/inst in the guest, which installs
# them (/var/lib/uwind/build-id) for its test only.  The guest maps these
# very files (the arm64 sysroot's), so their build-ids match.
inst=$ka/inst
rm -rf "$inst"
set -- "$a64/hot-mem" "$ka/hot-oss" "$UWIND_SYSROOT$(${a}readelf -lW "$a64/hot-mem" |
	sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')"
for l in $(${a}readelf -dW "$a64/hot-mem" "$ka/hot-oss" |
    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort -u); do
	for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
		[ -f "$UWIND_SYSROOT/$d/$l" ] || continue
		set -- "$@" "$UWIND_SYSROOT/$d/$l"
		break
	done
done
out=$("$O/uwind" sframe --install --dir "$inst" "$@" 2>&1)
r=$?
echo "$out" | sed 's/^/# /'
for p in "$a64/hot-mem" "$ka/hot-oss"; do
	! ${a}readelf -lW "$p" | grep -q GNU_SFRAME &&
		fn "$p" main | grep -q 'mov	x29, sp' || r=1
done
[ $r -eq 0 ] && echo "$out" | grep -q "^uwind: $# installed"
check $? "uwind sframe --install --dir: tables for hot-mem, hot-oss (plain -O2, no SFrame) and their $(($# - 2)) libraries"

# The agent's part (selftests/kernel/guest-agent.sh): the AArch64 uwind
# (built here against Debian 12's libraries, run with the guest's), the
# call sites of the programs it runs (hot.ret: the guest's libraries and
# vDSO too), and its container: hot-ct with another Debian release's
# loader and C library (Debian 13's for Debian 12's kernel, Debian 12's
# for the others) and their call sites, in one archive the guest unpacks.
ha=$O/selftests/kernel-arm64
ct=$ka/ct
rm -rf "$ct"
mkdir -p "$ct"
if [ "$suite" = "$host" ]; then
	ctrel=trixie
	ctroot=$(sh "$top/scripts/suite-root.sh" -q trixie 2>"$ka/ct-root.log") &&
		ctroot=$ctroot/uwind/arm64/sysroot
else
	ctrel=$host
	ctroot=$(sh "$top/scripts/deps-arm64.sh" -q 2>"$ka/ct-root.log")
fi
r=$?
[ $r -eq 0 ] &&
	sh "$top/selftests/kernel/retaddrs.sh" -a aarch64 -r "$UWIND_SYSROOT" \
		-k "$UWIND_VMLINUZ" "$a64/hot-qsort" "$a64/hot-plug" \
		"$a64/lib/libuwplug.so" > "$ka/hot.ret" &&
	cp "$ha/hot-ct" "$ct/hot-ct" &&
	cp "$(in_root "$ctroot" /lib/aarch64-linux-gnu/libc.so.6)" "$ct/libc.so.6" &&
	cp "$(in_root "$ctroot" /lib/ld-linux-aarch64.so.1)" "$ct/ld-linux-aarch64.so.1" &&
	echo "$ctrel" > "$ct/release" &&
	sh "$top/selftests/kernel/retaddrs.sh" -a aarch64 \
		-f "$ct/hot-ct=/ctr/hot-ct" -f "$ct/libc.so.6=/ctr/libc.so.6" \
		-i "$ct/ld-linux-aarch64.so.1=/ctr/ld-linux-aarch64.so.1" \
		> "$ct/ct.ret" &&
	(cd "$ct" && tar -cf ctr.tar hot-ct libc.so.6 ld-linux-aarch64.so.1 \
		release ct.ret) &&
	[ -x "$ha/uwind" ] && grep -q '^VDSO ' "$ka/hot.ret"
check $? "the agent's files: uwind for AArch64, the call sites of its programs, its libraries and vDSO, and its container (hot-ct with Debian $ctrel's ld.so and libc)"

# Everything for the guest: the AArch64 builds of the kernel tests'
# programs at /root (their libraries at /root/lib), this stage's, the
# installed tables, and the kernel tests' scripts.
set -- "$ha/uwind:/usr/bin/uwind" "$ka/hot.ret:/root/hot.ret" \
	"$ct/ctr.tar:/root/ctr.tar" \
	"$top/selftests/kernel/inst-chains.awk:/root/inst-chains.awk"
for f in "$a64"/*; do
	case ${f##*/} in
	lib | sframe-corrupt | *.tmp) continue ;;
	esac
	set -- "$@" "$f:/root/${f##*/}"
done
for p in $progs32 $progs64; do
	set -- "$@" "$ka/$p:/root/$p"
done
# The size of leaf-sf's .sframe section, which the memory test bounds a
# table's cost by (the guest has no readelf).
sz=$(${a}readelf -SW "$a64/leaf-sf" 2>/dev/null | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".sframe" { print $5; exit }')
printf '%d\n' "0x${sz:-0}" > "$ka/leaf-sf.sframe-size"
set -- "$@" "$ka/leaf-sf.sframe-size:/root/leaf-sf.sframe-size"
# Every section takes about 18 min of a TCG guest on a loaded 2-core host
# (Debian 13's, the agent's part included); the limit is for a hung guest
# only.
log=$(sh "$top/scripts/kernel-guest-arm64.sh" -n "$name" \
	-T "${UWIND_QEMU_TIMEOUT:-2100}" \
	-a "${parts:+uwind_only=$parts}" \
	-t "$top/selftests/kernel-arm64/guest-tests.sh" \
	"$ko:/root/uwind.ko" "$a64/lib:/root/lib" "$ka/lib32:/root/lib32" \
	"$top/selftests/kernel/guest-tests.sh:/root/kernel-guest-tests.sh" \
	"$top/selftests/kernel/guest-inst.sh:/root/guest-inst.sh" \
	"$top/selftests/kernel/guest-agent.sh:/root/guest-agent.sh" \
	"$top/selftests/kernel/guest-debug.sh:/root/guest-debug.sh" \
	"$inst:/root/inst" \
	"$@")
rc=$?
guest_results "${log:-$O/kernel/arm64/$name.serial.log}" "$rc"
tap_end
