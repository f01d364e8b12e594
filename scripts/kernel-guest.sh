#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# kernel-guest.sh -t SCRIPT -n NAME [-T SECONDS] [-a ARGS] [-M]
#                 [-s SUITE -d PROGS -m KO] [-u TOOL] [SRC[:DEST]]...
#
# Boot the installed Debian kernel under QEMU with an initramfs holding the
# guest programs of selftests/kernel (from $O/selftests/kernel, built by
# "make kernel-progs"), their shared libraries in /root/lib, the helpers
# selftests/kernel/guest-lib.sh at /root/guest-lib.sh, uwind.ko at
# /root/uwind.ko (unless -M, or when it is not built), the uwind tool at
# /usr/bin/uwind (from $O/uwind, with its libraries), mawk and perf, and run
# SCRIPT there.  Nothing is loaded at boot: the script loads the module.
# -a appends ARGS to the kernel command line (the script may read
# /proc/cmdline).
# -s SUITE boots the x86-64 kernel of another Debian suite instead
# (scripts/suite-root.sh), with that suite's busybox, perf, mawk and every
# library from its root; -d and -m name the programs' directory and the
# module built for it; -f FLAVOUR boots that suite's kernel of another
# flavour (rt-amd64: ROOT/uwind/rt-amd64/vmlinuz, no KVM modules; debug:
# scripts/debug-kernel.sh's, KVM built in).  -u
# puts TOOL at /usr/bin/uwind instead of $O/uwind (a packaged build);
# SRC[:DEST] are more files for the guest (DEST defaults to /root/NAME).
# The initramfs is $O/kernel/NAME.cpio, the serial console's log
# $O/kernel/NAME.serial.log (printed path on stdout).  Exit status: that of
# scripts/qemu-kernel.sh (the guest script's status, 124 on timeout, 125
# when the guest did not report).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
export O
script="" name="" tmo=${UWIND_QEMU_TIMEOUT:-300} nomod=0 args=""
suite="" kt="" ko="" tool="" flavour=""
while getopts t:n:T:a:Ms:f:d:m:u: opt; do
	case $opt in
	t) script=$OPTARG ;;
	n) name=$OPTARG ;;
	T) tmo=$OPTARG ;;
	a) args=$OPTARG ;;
	M) nomod=1 ;;
	s) suite=$OPTARG ;;
	f) flavour=$OPTARG ;;
	d) kt=$OPTARG ;;
	m) ko=$OPTARG ;;
	u) tool=$OPTARG ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
extra=""
for x; do
	extra="$extra
$x"
done
[ -n "$script" ] && [ -n "$name" ] ||
	{ echo "kernel-guest: -t SCRIPT and -n NAME are required" >&2; exit 2; }

[ -n "$kt" ] || kt=$O/selftests/kernel
kdir=$O/kernel
[ -n "$ko" ] || ko=$kdir/mod/uwind.ko
log=$kdir/$name.serial.log
mkdir -p "$kdir"
root="" image="" kmods=""
if [ -n "$suite" ]; then
	root=$(sh "$top/scripts/suite-root.sh" -q "$suite") || exit 1
	image=$root/uwind/amd64/vmlinuz
	kmods=$root/uwind/amd64/modules
	if [ "$flavour" = debug ]; then
		image=$(sh "$top/scripts/debug-kernel.sh" -q)/vmlinuz || exit 1
		kmods=""
	elif [ -n "$flavour" ]; then
		image=$root/uwind/$flavour/vmlinuz
		kmods=""
	fi
elif . "$top/scripts/kernel-env.sh" 2>/dev/null; then
	kmods=$UWIND_KMODDIR/kernel
fi

# Whatever the dynamic linker loads for program $1, where ldd finds it.
# Our own libraries ("not found" here: /root/lib is the guest's) are in
# the lib directory.  From a suite's root, mkinitramfs -r finds them.
libs_of()
{
	[ -z "$root" ] || return 0
	ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }'
}

set --
for f in "$kt"/leaf-fp "$kt"/leaf-sf "$kt"/chain "$kt"/chain-dl \
    "$kt"/chain-fp "$kt"/threads "$kt"/tiny "$kt"/tiny-dyn "$kt"/swap \
    "$kt"/sigleaf "$kt"/pagedrop "$kt"/jitloop \
    "$kt"/sframe-grow "$kt"/uwspawn "$kt"/fpjunk "$kt"/memloop \
    "$kt"/kvmspin "$kt"/leaf-sys "$kt"/leaf-st "$kt"/leaf-st.syms \
    "$kt"/bpfstack "$kt"/deep-sf "$kt"/deep-fp "$kt"/bad-* "$kt"/hot-* \
    "$kt"/hot.ret "$kt"/uwgen; do
	[ -f "$f" ] || continue
	# hot-ct: the agent's container program, whose loader and libraries
	# are in its own archive (selftests/kernel/kernel.sh).
	case $f in *.tmp | */hot-ct) continue ;; esac
	set -- "$@" "$f:/root/${f##*/}"
	for lib in $(libs_of "$f"); do
		set -- "$@" "$lib:$lib"
	done
done
# The uwind tool (uwind sframe --install), with libelf, libdw and theirs;
# mawk, which judges the installed-table tests' samples several times
# faster than busybox's awk.
for f in "${tool:-$O/uwind}:/usr/bin/uwind" "$root/usr/bin/mawk:/usr/bin/mawk"; do
	[ -f "${f%%:*}" ] || continue
	set -- "$@" "$f"
	for lib in $(libs_of "${f%%:*}"); do
		set -- "$@" "$lib:$lib"
	done
done
[ -d "$kt/lib" ] && set -- "$@" "$kt/lib:/root/lib"
# The size of leaf-sf's .sframe section, which the memory test bounds a
# table's cost by (the guest has no readelf).
sz=$(readelf -SW "$kt/leaf-sf" 2>/dev/null | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".sframe" { print $5; exit }')
printf '%d\n' "0x${sz:-0}" > "$kdir/$name.sframe-size"
set -- "$@" "$kdir/$name.sframe-size:/root/leaf-sf.sframe-size"
set -- "$@" "$top/selftests/kernel/guest-lib.sh:/root/guest-lib.sh" \
	"$top/selftests/kernel/guest-inst.sh:/root/guest-inst.sh" \
	"$top/selftests/kernel/guest-agent.sh:/root/guest-agent.sh" \
	"$top/selftests/kernel/guest-debug.sh:/root/guest-debug.sh" \
	"$top/selftests/kernel/inst-chains.awk:/root/inst-chains.awk"
# KVM, for the test of samples taken while a guest runs (kvmspin): the
# kernel's own modules, to load in the guest (/root/kmod).
if [ -n "$root" ]; then
	for m in irqbypass ccp kvm kvm-amd; do
		f=$kmods/$m.ko
		[ -f "$f" ] && set -- "$@" "$f:/root/kmod/$m.ko"
	done
elif [ -n "$kmods" ]; then
	for m in virt/lib/irqbypass drivers/crypto/ccp/ccp arch/x86/kvm/kvm \
	    arch/x86/kvm/kvm-amd; do
		f=$kmods/$m.ko
		[ -f "$f" ] && set -- "$@" "$f:/root/kmod/${m##*/}.ko"
	done
fi
if [ "$nomod" -eq 0 ] && [ -f "$ko" ]; then
	set -- "$@" "$ko:/root/uwind.ko"
fi
# The caller's own files (one a line: names may not hold spaces).
for x in $extra; do
	set -- "$@" "$x"
done

initrd=$(sh "$top/scripts/mkinitramfs.sh" ${root:+-r "$root"} \
	-o "$kdir/$name.cpio" -t "$script" "$@") || exit 1

rc=0
sh "$top/scripts/qemu-kernel.sh" -q -T "$tmo" -a "$args" -i "$initrd" \
	-l "$log" ${image:+-k "$image"} || rc=$?
echo "$log"
exit $rc
