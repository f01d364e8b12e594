#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Run the bare-metal images of one target under qemu-system and check the
# backtrace each panic handler prints over the UART.
#
# Usage: run.sh TARGET OUTDIR     (TARGET: aarch64, cortex-m3, cortex-m4f,
#                                 cortex-m33, a15-arm, a15-thumb,
#                                 a15-arm-chrome, a15-thumb-chrome)
#
# For every fault kind of TARGET the image OUTDIR/TARGET-KIND.elf runs
# (with a timeout), its "bt I PC FLAGS SOURCE" lines are symbolized with
# the ELF's own symbol table (nm: the oracle is the linker, not uwind), and
# the function list must equal the one written below from the call chain
# in chain.c and the target's start-up code, frame by frame.  Frame 0 and
# frames with flag 1 (an exact pc: the faulting instruction, or the pc an
# exception interrupted) are looked up as they are; the others are return
# addresses, looked up at pc - 1 (the call).  An EXC_RETURN value
# (0xffffffe0 and up) is the Cortex-M exception boundary, named <exc>.
# The fault itself is checked too (ESR class, CFSR bits), so a
# misbehaving image cannot pass by faulting somewhere else.
# On the Cortex-A15 images every unwound frame must also name the table
# the image is meant to use (ehabi, or chrome: no silent fallback) and
# carry the Thumb flag exactly when the code is Thumb (all but _start in
# the -thumb images, none in the -arm ones), and the pc the handler
# computed must be the address of the udf or ldr in bm_fault (objdump).
# Prints TAP: one line per image.
set -u
. "$(dirname "$0")/../common/tap.sh"

TARGET=${1:?target}
OUT=${2:-build}/selftests/baremetal
TIMEOUT=${BM_TIMEOUT:-10}

CHAIN="bm_noret bm_dispatch bm_recurse bm_recurse bm_recurse bm_recurse
	bm_varargs bm_alloca bm_big_frame bm_run"

case $TARGET in
aarch64)
	QEMU="qemu-system-aarch64 -M virt -cpu cortex-a57 -m 128M"
	NM=aarch64-linux-gnu-nm
	KINDS="undef dabort"
	BOTTOM="a64_main _start"
	STOP="end of chain"
	;;
cortex-m3|cortex-m4f|cortex-m33)
	case $TARGET in
	cortex-m3) QEMU="qemu-system-arm -M mps2-an385" ;;
	cortex-m4f) QEMU="qemu-system-arm -M mps2-an386" ;;
	*) QEMU="qemu-system-arm -M mps2-an505" ;;
	esac
	NM=arm-none-eabi-nm
	KINDS="undef div0 dabort irq"
	BOTTOM="cm_main Reset_Handler"
	STOP="end of chain"
	;;
a15-arm|a15-thumb|a15-arm-chrome|a15-thumb-chrome)
	QEMU="qemu-system-arm -M virt -cpu cortex-a15 -m 128M"
	NM=arm-none-eabi-nm
	KINDS="undef dabort"
	BOTTOM="a15_main _start"
	STOP="end of chain"
	;;
*)
	echo "run.sh: unknown target $TARGET" >&2
	exit 2
	;;
esac

# Expected frames and the fault line's pattern, per kind.  The M4F's and
# M33's thread code has an FP context: its exceptions stack the extended
# frame (EXC_RETURN 0xffffffed instead of 0xfffffffd).  The M33 runs
# Secure with FPCCR_S.TS (bit 26) set, so that frame holds s16-s31 too.
expect() {
	case $TARGET in
	cortex-m4f|cortex-m33) THREAD=0xffffffed ;;
	*) THREAD=0xfffffffd ;;
	esac
	case $TARGET in
	cortex-m33) FPCCR=' fpccr 0x[0-9a-f]*[4-7cdef][0-9a-f]\{6\}$' ;;
	*) FPCCR= ;;
	esac
	case $TARGET:$1 in
	aarch64:undef)
		FAULT='ec 0x0 '
		FRAMES="bm_fault $CHAIN $BOTTOM" ;;
	aarch64:dabort)
		# EC 0x25: data abort at EL1; DFSC 0x10: synchronous external
		FAULT='esr 0x96000010 ec 0x25 far 0x50000000'
		FRAMES="bm_fault $CHAIN $BOTTOM" ;;
	a15-*:undef|a15-*:dabort)
		# SPSR: SVC mode, IRQ and FIQ masked, T set for Thumb code;
		# a data abort: DFSR.FS 0b01000, synchronous external abort
		case $TARGET in
		a15-thumb*) SPSR='f3' ;;
		*) SPSR='d3' ;;
		esac
		if [ "$1" = undef ]; then
			FAULT="und spsr 0x[0-9a-f]*$SPSR pc 0x[0-9a-f]* dfsr"
		else
			FAULT="abt spsr 0x[0-9a-f]*$SPSR pc 0x[0-9a-f]* dfsr 0x8 dfar 0x50000000\$"
		fi
		FRAMES="bm_fault $CHAIN $BOTTOM" ;;
	cortex-m*:undef)
		# UsageFault (exception 6), CFSR.UNDEFINSTR; thread on PSP
		FAULT="exc 0x6 exc_return $THREAD cfsr 0x10000 "
		FRAMES="bm_fault $CHAIN $BOTTOM" ;;
	cortex-m*:div0)
		FAULT="exc 0x6 exc_return $THREAD cfsr 0x2000000 "
		FRAMES="bm_fault $CHAIN $BOTTOM" ;;
	cortex-m*:dabort)
		# BusFault disabled: escalated to HardFault (3), FORCED;
		# CFSR.PRECISERR|BFARVALID
		FAULT="exc 0x3 exc_return $THREAD cfsr 0x8200 hfsr 0x40000000 bfar 0x60000000"
		FRAMES="bm_fault $CHAIN $BOTTOM" ;;
	cortex-m*:irq)
		# udf in PendSV (handler mode, MSP), which interrupted bm_fault
		# in thread mode on the PSP
		FAULT="exc 0x6 exc_return 0xfffffff1 cfsr 0x10000 "
		FRAMES="cm_isr_fault cm_isr_mid PendSV_Handler <exc> bm_fault
			$CHAIN $BOTTOM" ;;
	esac
}

set -- $KINDS
tap_begin $#

qemu=${QEMU%% *}
for kind in $KINDS; do
	elf=$OUT/$TARGET-$kind.elf
	desc="$TARGET $kind: backtrace from the fault to the reset handler"
	if ! command -v "$qemu" >/dev/null 2>&1; then
		tap_skip "$desc" "no $qemu"
		continue
	fi
	if [ ! -f "$elf" ]; then
		tap_not_ok "$desc # no $elf"
		continue
	fi
	expect "$kind"
	log=$(timeout "$TIMEOUT" $QEMU -nographic -semihosting \
		-monitor none -serial stdio -kernel "$elf" </dev/null 2>&1 |
		tr -d '\r')
	rc=$?
	echo "$log" | sed 's/^/# /'
	got=$(echo "$log" | awk -v nm="$NM" -v elf="$elf" '
		function hex(s,    i, c, v) {
			sub(/^0x/, "", s)
			v = 0
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", tolower(substr(s, i, 1)))
				v = v * 16 + c - 1
			}
			return v
		}
		BEGIN {
			ns = 0
			cmd = nm " --defined-only " elf
			while ((cmd | getline l) > 0) {
				split(l, f, " ")
				if (f[2] !~ /^[Tt]$/ || f[3] ~ /^(\$|__)/)
					continue
				# Thumb symbols carry bit 0
				a = hex(f[1])
				a -= a % 2
				addr[ns] = a; name[ns] = f[3]; ns++
			}
			close(cmd)
		}
		$1 == "bt" {
			pc = hex($3)
			if (pc >= 4294967264 && pc <= 4294967295) {
				printf "%s ", "<exc>"
				next
			}
			if ($2 != 0 && int($4) % 2 == 0)
				pc--
			best = -1
			for (i = 0; i < ns; i++)
				if (addr[i] <= pc && (best < 0 || addr[i] > addr[best]))
					best = i
			printf "%s ", best < 0 ? "?" : name[best]
		}')
	got=$(echo $got)
	want=$(echo $FRAMES)
	bad=""
	echo "$log" | grep -q "^fault .*$FAULT" || bad="$bad fault-line"
	[ -z "$FPCCR" ] || echo "$log" | grep -q "^fault .*$FPCCR" ||
		bad="$bad fpccr-ts"
	echo "$log" | grep -q "^bt-end [0-9]* $STOP ok$" || bad="$bad stop"
	[ "$got" = "$want" ] || bad="$bad frames"
	case $TARGET in
	a15-*)
		case $TARGET in
		*-chrome) src=chrome ;;
		*) src=ehabi ;;
		esac
		case $TARGET in
		a15-thumb*) thumb=1 ;;
		*) thumb=0 ;;
		esac
		# all frames but the last (_start, ARM code, not unwound)
		echo "$log" | awk -v src="$src" -v thumb="$thumb" '
			$1 == "bt" { n++; s[n] = $5; t[n] = int(int($4) / 2) % 2 }
			END {
				if (n < 2 || s[n] != "none" || t[n] != 0)
					exit 1
				for (i = 1; i < n; i++)
					if (s[i] != src || t[i] != thumb)
						exit 1
			}' || bad="$bad source-or-thumb"
		# the pc the handler derived from LR_und/LR_abt is the
		# faulting instruction itself, as the disassembly says
		pc=$(echo "$log" | sed -n 's/^fault .* pc 0x\([0-9a-f]*\) .*/\1/p')
		case $kind in
		undef) insn=udf ;;
		*) insn=ldr ;;
		esac
		arm-none-eabi-objdump -d --disassemble=bm_fault "$elf" |
			awk -v pc="${pc:-none}" -v insn="$insn" '
			$1 == pc ":" { for (i = 2; i <= NF; i++)
				if ($i == insn) found = 1 }
			END { exit !found }' || bad="$bad fault-pc"
		;;
	esac
	if [ -z "$bad" ]; then
		tap_ok "$desc"
	else
		echo "# want: $want"
		echo "# got:  $got"
		tap_not_ok "$desc # wrong:$bad"
	fi
done
tap_end
