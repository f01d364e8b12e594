#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# check.sh OUTDIR
#
# uwind in a real firmware: Debian 12's U-Boot 2023.01 with the core
# vendored (vendor.sh) and the patch applied, built out of tree in three
# configurations, booted under qemu, made to fault every way it can, and
# each backtrace it prints compared frame by frame with gdb's.
#
#   arm64     qemu_arm64_defconfig, SFrame (qemu-system-aarch64 -M virt)
#   arm       qemu_arm_defconfig, EHABI (qemu-system-arm -M virt, A15)
#   arm64-fp  qemu_arm64_defconfig, frame records alone, no table
#
# each with CONFIG_UWIND_BACKTRACE, CONFIG_CMD_EXCEPTION (the exception
# command) and no autoboot.  Faults: "md" of an unmapped address;
# "exception undefined", "unaligned" and "breakpoint"; and on arm64 one
# before relocation: gdb, stopped at dram_init(), hands its call of
# ofnode_path() a wild pointer (32-bit ARM U-Boot cannot report an abort
# before relocation: its vectors' stack pointer, IRQ_STACK_START_IN, is
# 0x0badc0de until interrupt_init()).
#
# The oracle (oracle.py) is gdb-multiarch on qemu's gdbstub, stopped where
# the CPU took the exception, unwinding from the ELF's DWARF.  Every
# frame gdb shows must be one uwind printed, in order: the same pc and the
# same function (gdb's name from the DWARF, uwind's from the ELF's symbol
# table by symbolize.sh).  Inlined frames are gdb's view of one machine
# frame: only its outermost counts.  Every frame but the last must come
# from the configuration's table (sframe, ehabi) or, in arm64-fp, from
# frame records, the walk must end with "end of chain", and the fault
# must be the one asked for (ESR class on arm64, the handler on arm).
# Frame records cannot know the caller of a function that keeps none (a
# leaf, or one stopped in its prologue): its return address is in x30
# only.  The expectation below names those frames, per fault; each must
# be in gdb's list and missing from uwind's.
#
# The tree is built again only where it changed (make's dependencies);
# its copy in OUTDIR/selftests/uboot/src is made again when the patch
# changes.  UWIND_UBOOT_CONFIGS="arm64 arm" picks configurations;
# UWIND_UBOOT_TIMEOUT (seconds, default 120) bounds each wait.  Prints
# TAP.
set -u
. "$(dirname "$0")/../common/tap.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/selftests/uboot
mkdir -p "${1:-build}/selftests/uboot"
work=$(cd "${1:-build}/selftests/uboot" && pwd)
TIMEOUT=${UWIND_UBOOT_TIMEOUT:-120}
# With -m 512M, RAM is 0x40000000-0x60000000 and nothing is above it.
EARLY_BAD=0x70000000

CONFIGS=${UWIND_UBOOT_CONFIGS:-arm64 arm arm64-fp}

# config CFG: its defconfig, compiler, qemu, table and faults.
config()
{
	FRAG="CONFIG_UWIND_BACKTRACE=y
CONFIG_CMD_EXCEPTION=y
CONFIG_BOOTDELAY=-1"
	case $1 in
	arm64 | arm64-fp)
		DEFCONFIG=qemu_arm64_defconfig
		CROSS=aarch64-linux-gnu-
		QEMU=qemu-system-aarch64 TCG_CPU=cortex-a57 ARCH=aarch64
		KINDS="early md undefined unaligned breakpoint"
		MD="md.q 0xffff000000000000 4"
		;;
	arm)
		DEFCONFIG=qemu_arm_defconfig
		CROSS=arm-linux-gnueabihf-
		QEMU=qemu-system-arm TCG_CPU=cortex-a15 ARCH=arm
		KINDS="md undefined unaligned breakpoint"
		MD="md 0xfffff000 4"
		;;
	esac
	case $1 in
	arm64) SRC=sframe TABLE=.sframe ;;
	arm) SRC=ehabi TABLE=.ARM.exidx ;;
	arm64-fp)
		SRC=fp TABLE=
		FRAG="$FRAG
CONFIG_UWIND_FRAME_RECORDS=y"
		;;
	esac
}

# expect CFG KIND: the fault's signature in the oracle's line, and the
# frames of gdb's list frame records cannot know.
expect()
{
	SKIP_FRAMES=
	case $ARCH:$2 in
	aarch64:early | aarch64:md) FAULT="esr 0x96" ;;	# EC 0x25: data abort
	aarch64:undefined) FAULT="esr 0x2" ;;		# EC 0x00: unknown
	aarch64:unaligned) FAULT="esr 0x96" ;;
	aarch64:breakpoint) FAULT="esr 0xf2" ;;		# EC 0x3c: BRK
	arm:md | arm:unaligned) FAULT="handler do_data_abort" ;;
	arm:undefined) FAULT="handler do_undefined_instruction" ;;
	arm:breakpoint) FAULT="handler do_prefetch_abort" ;;
	esac
	[ "$1" = arm64-fp ] || return 0
	# The faulting function keeps no frame record: strlen() is a leaf;
	# do_undefined() and do_breakpoint() are, and do_unaligned() sets up
	# its record only on the path that calls printf().  Their caller is
	# in x30 alone (cmd_call() is inlined in cmd_process()).
	case $2 in
	early) SKIP_FRAMES=fdt_path_offset ;;
	md) SKIP_FRAMES= ;;
	undefined | unaligned | breakpoint) SKIP_FRAMES=cmd_process ;;
	esac
}

command_of()
{
	case $1 in
	md) echo "$MD" ;;
	*) echo "exception $1" ;;
	esac
}

# --- the source, the core, the patch --------------------------------------
prepare()
{
	src=$(sh "$here/fetch.sh") || return 1
	stamp="$(cksum <"$here/u-boot-2023.01.patch") $(basename "$src")"
	if [ "$(cat "$work/src/.uwind-stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$work/src" "$work"/build-*
		cp -a "$src" "$work/src" || return 1
	fi
	sh "$here/vendor.sh" "$work/src" || return 1
	echo "$stamp" >"$work/src/.uwind-stamp"
}

# --- builds -----------------------------------------------------------------
build()
{
	b=$work/build-$1
	mkdir -p "$b"
	{
		make -C "$work/src" O="$b" CROSS_COMPILE=$CROSS $DEFCONFIG &&
		echo "$FRAG" >>"$b/.config" &&
		make -C "$work/src" O="$b" CROSS_COMPILE=$CROSS olddefconfig &&
		nice -n 10 make -C "$work/src" O="$b" CROSS_COMPILE=$CROSS \
			-j2 u-boot.bin
	} >"$b/build.log" 2>&1
}

# section ELF NAME: "ADDRESS SIZE" of a section, or nothing.
section()
{
	set -- $(readelf -SW "$1" 2>/dev/null | awk -v s="$2" '
		{ sub(/^ *\[ *[0-9]+\] */, "") }
		$1 == s { print $3, $5; exit }')
	[ $# -eq 2 ] && echo $((0x$1)) $((0x$2))
}

# functions BUILD: the functions of its u-boot, but for the core's and
# the hook's.
functions()
{
	"${CROSS}nm" --defined-only "$1"/lib/uwind/*.o "$1/arch/arm/lib/uwind.o" |
		awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >"$1/core.functions"
	"${CROSS}nm" "$1/u-boot" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u |
		comm -23 - "$1/core.functions"
}

# What a build must show (what is wrong is printed; diagnostics go to
# stderr): the table in the ELF and, byte for byte, in
# u-boot.bin (objcopy -j); for SFrame the functions of the first link
# (the one --gc-sections collected) and no others; without a table, the
# SFrame build's functions but the core's.
check_build()
{
	b=$work/build-$1
	elf=$b/u-boot
	bad=""
	[ -f "$b/u-boot.bin" ] || { echo " no-u-boot.bin"; return; }
	bin=$(wc -c <"$b/u-boot.bin")
	tap_diag "$1: u-boot.bin $bin B" >&2
	if [ -z "$TABLE" ]; then
		for s in .sframe .ARM.exidx; do
			[ -z "$(section "$elf" $s)" ] || bad="$bad $s-present"
		done
		# The SFrame build links what this one does, but for the
		# core's SFrame code: its table kept no dead function alive.
		if [ -f "$work/build-arm64/u-boot" ]; then
			functions "$b" >"$b/functions"
			functions "$work/build-arm64" >"$b/functions.arm64"
			cmp -s "$b/functions" "$b/functions.arm64" ||
				bad="$bad functions-differ-from-arm64"
		fi
		echo "$bad"
		return
	fi
	set -- $(section "$elf" "$TABLE")
	if [ $# -ne 2 ] || [ "$2" -eq 0 ]; then
		echo " no-$TABLE"
		return
	fi
	off=$1 size=$2
	# the image starts at CONFIG_TEXT_BASE, the ELF's first address
	base=$(section "$elf" .text | cut -d' ' -f1)
	"${CROSS}objcopy" -O binary -j "$TABLE" "$elf" "$b/table.bin"
	dd if="$b/u-boot.bin" of="$b/table.img" bs=1 skip=$((off - base)) \
		count="$size" 2>/dev/null
	cmp -s "$b/table.bin" "$b/table.img" || bad="$bad table-not-in-image"
	case $TABLE in
	.sframe)
		hole=$((0x$(readelf -sW "$elf" 2>/dev/null | awk '$8 == "__sframe_end" {
			print $2 }') - off - size))
		tap_diag "$CFG: .sframe $size B ($("${CROSS}objdump" --sframe \
			"$elf" | sed -n 's/^ *Num FDEs: *//p') FDEs), then" \
			"$hole B that ld 2.40 leaves" >&2
		"${CROSS}nm" "$b/u-boot.gc" | grep ' [Tt] ' >"$b/gc.nm"
		"${CROSS}nm" "$elf" | grep ' [Tt] ' >"$b/final.nm"
		cmp -s "$b/gc.nm" "$b/final.nm" || bad="$bad functions-differ"
		;;
	*)
		set -- $(section "$elf" .ARM.extab)
		tap_diag "$CFG: .ARM.exidx $size B ($((size / 8)) entries)," \
			".ARM.extab ${2:-0} B" >&2
		;;
	esac
	echo "$bad"
}

# --- qemu and gdb -------------------------------------------------------------
# accel: KVM where it can run the guest (an arm64 host), else TCG.
accel()
{
	ACCEL="-accel tcg -cpu $TCG_CPU"
	[ "$(uname -m)" = aarch64 ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] ||
		return 0
	case $ARCH in
	aarch64) k="-accel kvm -cpu host" ;;
	arm) k="-accel kvm -cpu host,aarch64=off" ;;
	esac
	# shellcheck disable=SC2086
	timeout 10 $QEMU -M virt $k -m 512M -display none -nic none \
		-monitor none -serial stdio -bios "$1" </dev/null 2>/dev/null |
		grep -q '^U-Boot 20' && ACCEL=$k
}

# wait_for FILE PATTERN COUNT: until FILE has COUNT lines matching, the
# machine is gone, or TIMEOUT.  A file not there yet counts 0 (the job
# writing it may not have opened it yet).
wait_for()
{
	t=0
	while :; do
		n=$(grep -c -- "$2" "$1" 2>/dev/null)
		[ "${n:-0}" -lt "$3" ] || return 0
		kill -0 "$qpid" 2>/dev/null || return 1
		[ $t -lt $((TIMEOUT * 5)) ] || return 1
		sleep 0.2
		t=$((t + 1))
	done
}

# gdb_wait PID SECONDS: until the oracle is done, SECONDS at most.
gdb_wait()
{
	t=0
	while kill -0 "$1" 2>/dev/null; do
		[ $t -lt $(($2 * 5)) ] || { kill "$1"; return 1; }
		sleep 0.2
		t=$((t + 1))
	done
}

oracle()
{
	UW_ELF=$b/u-boot UW_SOCK=$r/gdb.sock UW_ARCH=$ARCH UW_MODE=$1 \
		UW_BAD=$EARLY_BAD gdb-multiarch -nx -batch \
		-x "$here/oracle.py" >"$r/gdb-$kind.log" 2>&1 &
	gpid=$!
	PIDS="$PIDS $gpid"
}

# machine NAME [-S]: boot the image, its serial on a FIFO (fd 3) and in
# $r/NAME.log, its gdbstub on $r/gdb.sock; -S: stopped at reset.
machine()
{
	rm -f "$r/in" "$r/gdb.sock"
	mkfifo "$r/in"
	exec 3<>"$r/in"
	log=$r/$1.log
	# shellcheck disable=SC2086
	$QEMU -M virt $ACCEL -m 512M -display none -nic none -monitor none \
		-serial stdio -bios "$b/u-boot.bin" ${2:-} \
		-gdb "unix:$r/gdb.sock,server=on,wait=off" <&3 >"$log" 2>&1 &
	qpid=$!
	PIDS="$PIDS $qpid"
	faults=0 prompts=0
	t=0
	while [ ! -S "$r/gdb.sock" ] && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
}

machine_off()
{
	[ -n "$qpid" ] || return 0
	kill "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	exec 3>&-
	qpid=
}

# One machine per configuration: each fault resets it, and the next one
# is provoked at the next prompt.  The fault before relocation gets a
# machine of its own, stopped at reset for gdb; U-Boot cannot reset the
# board that early (no sysreset driver yet), so that machine is then
# switched off.
session()
{
	b=$work/build-$1 r=$work/run-$1 qpid=
	rm -rf "$r"
	mkdir -p "$r"
	accel "$b/u-boot.bin"
	tap_diag "$1: $QEMU $ACCEL"
	for kind in $KINDS; do
		if [ "$kind" = early ]; then
			machine early -S
			from=0
			oracle early
		else
			[ -n "$qpid" ] || machine boot
			prompts=$((prompts + 1))
			wait_for "$log" '^=> ' $prompts ||
				{ echo "no prompt" >"$r/fail-$kind"; continue; }
			from=$(wc -l <"$log")
			oracle fault
			wait_for "$r/gdb-$kind.log" '^oracle-armed' 1 ||
				{ echo "gdb did not attach" >"$r/fail-$kind"; continue; }
			command_of "$kind" >&3
		fi
		faults=$((faults + 1))
		# A stopped machine prints nothing: once U-Boot's backtrace
		# is out, gdb has seen the fault and let go, or missed it.
		wait_for "$log" '^uwind: stop:' $faults ||
			echo "no backtrace" >"$r/fail-$kind"
		gdb_wait "$gpid" 10 || echo "gdb did not stop" >"$r/fail-$kind"
		tail -n +$((from + 1)) "$log" | tr -d '\r' |
			sed '/^uwind: stop:/q' >"$r/serial-$kind.log"
		[ "$kind" != early ] || machine_off
	done
	machine_off
}

# verdict CFG KIND: compare uwind's frames with gdb's; prints what is wrong.
verdict()
{
	r=$work/run-$1
	[ ! -f "$r/fail-$2" ] || { echo " $(cat "$r/fail-$2")"; return; }
	sh "$here/symbolize.sh" "$work/build-$1/u-boot" "$r/serial-$2.log" \
		>"$r/named-$2.log"
	bad=""
	grep -q "^oracle-fault .*$FAULT" "$r/gdb-$2.log" || bad="$bad fault-kind"
	grep -q '^uwind: stop: end of chain, ' "$r/serial-$2.log" ||
		bad="$bad stop"
	# uwind: "NAME PC SOURCE" per frame; gdb: "NAME PC" per machine frame
	awk '$1 == "uwind:" && $2 ~ /^#/ { print $3 }' "$r/serial-$2.log" \
		>"$r/uw-pc-$2"
	awk '/^#[0-9]/ { n = $3; sub(/\+0x[0-9a-f]*$/, "", n);
		sub(/\..*/, "", n); print n, $NF }' "$r/named-$2.log" |
		paste -d ' ' - "$r/uw-pc-$2" >"$r/uw-$2"
	awk '$1 == "oracle" && $4 == "normal" { print $5, $3 }' \
		"$r/gdb-$2.log" >"$r/gdb-$2"
	awk -v skip="$SKIP_FRAMES" -v src="$SRC" '
		# the same address from gdb (0x5ff56e5c) and uwind (00005ff56e5c)
		function addr(s) {
			s = tolower(s)
			sub(/^0x/, "", s)
			sub(/^0+/, "", s)
			return s
		}
		BEGIN { ns = split(skip, sk, " ") }
		FILENAME ~ /\/gdb-/ { gn++; gname[gn] = $1; gpc[gn] = addr($2); next }
		{ un++; uname[un] = $1; usrc[un] = $2; upc[un] = addr($3) }
		END {
			# the frames frame records cannot know, out of gdb list
			for (i = 1; i <= gn; i++) {
				drop = 0
				for (k = 1; k <= ns; k++)
					if (gname[i] == sk[k] && !used[k]) {
						used[k] = drop = 1
						break
					}
				if (!drop) { en++; ename[en] = gname[i]; epc[en] = gpc[i] }
			}
			for (k = 1; k <= ns; k++)
				if (!used[k])
					printf " %s-not-in-gdb", sk[k]
			if (gn < 2)
				printf " gdb-frames"
			if (en != un)
				printf " frame-count(gdb-%d,uwind-%d)", en, un
			for (i = 1; i <= en && i <= un; i++)
				if (ename[i] != uname[i] || epc[i] != upc[i])
					printf " frame%d(%s,%s)", i - 1, ename[i], uname[i]
			for (i = 1; i < un; i++)
				if (usrc[i] != src)
					printf " source%d(%s)", i - 1, usrc[i]
			if (un > 0 && usrc[un] != "none")
				printf " last-source(%s)", usrc[un]
		}' "$r/gdb-$2" "$r/uw-$2"
	echo "$bad"
}

# --- the test -------------------------------------------------------------------
ntests=1
for CFG in $CONFIGS; do
	config "$CFG"
	ntests=$((ntests + 1 + $(echo $KINDS | wc -w)))
done
ntests=$((ntests + 1))	# arm: before relocation
tap_begin $ntests
tap_scratch

for t in gdb-multiarch qemu-system-aarch64 qemu-system-arm \
    aarch64-linux-gnu-gcc arm-linux-gnueabihf-gcc bison flex dpkg-source; do
	if ! tap_have $t; then
		tap_bail "$t is missing (make deps)"
		exit 1
	fi
done

t0=$(date +%s)
prepare >"$work/prepare.log" 2>&1
rc=$?
sed 's/^/# /' "$work/prepare.log" | grep -v 'dpkg-source: info' | tail -n 5
tap_result $rc "U-Boot 2023.01 source (Debian's, pinned): fetched, core vendored, patch applied ($(($(date +%s) - t0)) s)"
if [ $rc -ne 0 ]; then
	tap_bail "no U-Boot tree"
	exit 1
fi

for CFG in $CONFIGS; do
	config "$CFG"
	t0=$(date +%s)
	if build "$CFG"; then
		bad=$(check_build "$CFG")
	else
		tail -n 20 "$work/build-$CFG/build.log" | sed 's/^/# /'
		bad=" build-failed"
	fi
	tap_result $([ -z "$bad" ]; echo $?) "$CFG: builds ($(($(date +%s) - t0)) s)${TABLE:+, u-boot.bin carries $TABLE}${bad:+ # wrong:$bad}"
	if [ -n "$bad" ]; then
		for kind in $KINDS; do
			tap_not_ok "$CFG $kind: no image"
		done
		continue
	fi
	t0=$(date +%s)
	session "$CFG"
	tap_diag "$CFG: $(echo $KINDS | wc -w) faults in $(($(date +%s) - t0)) s"
	for kind in $KINDS; do
		expect "$CFG" "$kind"
		bad=$(verdict "$CFG" "$kind")
		r=$work/run-$CFG
		nf=$(grep -c '^uwind: #' "$r/serial-$kind.log" 2>/dev/null)
		if [ -n "$bad" ]; then
			sed 's/^/# /' "$r/serial-$kind.log" "$r/named-$kind.log" \
				2>/dev/null
			grep '^oracle' "$r/gdb-$kind.log" 2>/dev/null | sed 's/^/# /'
			tap_not_ok "$CFG $kind: backtrace as gdb's # wrong:$bad"
		else
			sed -n 's/^#/# /p' "$r/named-$kind.log"
			tap_ok "$CFG $kind: $nf frames as gdb's, from $SRC${SKIP_FRAMES:+ (frame records miss $SKIP_FRAMES)}, end of chain"
		fi
	done
done
tap_skip "arm early: a fault before relocation" \
	"U-Boot's ARM vectors cannot report it (IRQ_STACK_START_IN is 0x0badc0de until interrupt_init)"
tap_end
