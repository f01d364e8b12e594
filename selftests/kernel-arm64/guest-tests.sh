#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The arm64 guest's tests, run inside it (busybox sh) by
# selftests/kernel-arm64/kernel-arm64.sh, from /root, with uwhello.ko,
# perf and the programs of selftests/kernel-arm64 beside it.  Prints
# "UWTAP: ok - ..." lines (selftests/kernel/guest-lib.sh).
#
# What the kernel's own walker gives (no uwind module yet): the AArch64
# program with frame pointers must show its whole chain c <- b <- a <-
# main in at least UW_GOOD percent (99) of its leaf samples; the AArch64
# program without frame pointers (SFrame) and the 32-bit Thumb-2 one
# (EHABI tables, no frame pointer) are measured and reported: the
# baselines for the module.  Each run needs UW_MIN (200) leaf samples.
# Samples come from the emulated PMU's cycles event when it works, else
# cpu-clock, at UW_FREQ (499) Hz: under TCG the kernel lowers the
# maximum sample rate ("perf: interrupt took too long") above that.

. /root/guest-lib.sh

UW_GOOD=${UW_GOOD:-99}
UW_MIN=${UW_MIN:-200}
UW_FREQ=${UW_FREQ:-499}
UW_MS=${UW_MS:-2000}		# how long each program runs
T=/tmp
LEAF=c,b,a,main

sec()
{
	read -r _up _ < /proc/uptime
	echo "# [$_up] $*"
}

# The cross-built module loads, takes its parameter and unloads.
t_module()
{
	tok=$(($(od -An -N2 -tu2 /dev/urandom) + 1))
	insmod /root/uwhello.ko token=$tok
	ok $? "insmod uwhello.ko token=$tok (cross-built against the extracted arm64 headers)"
	grep -q '^uwhello ' /proc/modules
	ok $? "uwhello is in /proc/modules"
	v=$(cat /sys/module/uwhello/parameters/token 2>/dev/null)
	[ "$v" = "$tok" ]
	ok $? "its parameter reads back $tok (got '$v')"
	dmesg | grep -q "uwhello: loaded, token $tok, built for $(uname -r) arm64"
	ok $? "its init ran: 'loaded, token $tok, built for $(uname -r) arm64' in dmesg"
	rmmod uwhello
	ok $? "rmmod uwhello"
	! grep -q '^uwhello ' /proc/modules &&
		dmesg | grep -q "uwhello: unloaded, token $tok"
	ok $? "uwhello is gone and its exit ran"
	dmesg | grep uwhello | diag
}

# The event to sample: cycles from the emulated PMU, if it counts.
pick_event()
{
	UW_EVENT=cpu-clock
	if perf stat -x, -e cycles -o "$T/stat.txt" true 2>/dev/null &&
	    grep -q '^[0-9][0-9]*,' "$T/stat.txt"; then
		UW_EVENT=cycles
	fi
	diag < "$T/stat.txt"
	echo "# sampling $UW_EVENT at $UW_FREQ Hz"
	dmesg | grep -i 'hw perfevents' | diag
}

# run NAME WHAT: perf record -g of /root/NAME for UW_MS ms; the program
# must have run to its end (its "leaf: N calls" line).
run()
{
	sec "$1"
	rec "$T/$1.data" -- "/root/$1" "$UW_MS"
	r=$?
	grep -q '^leaf: [0-9]* calls' "$T/$1.data.log" || r=1
	[ $r -eq 0 ] || diag < "$T/$1.data.log"
	ok $r "perf record -e $UW_EVENT -g of $1 ($2)"
}

# baseline NAME WHAT: the share of full chains, reported; the run must
# have UW_MIN samples in the leaf.
baseline()
{
	report "$2" "$T/$1.data" "$1" "$LEAF"
	echo "# BASELINE kernel-walker $1 $m_full/$m_inc $(pct "$m_full" "$m_inc")"
	[ "$m_inc" -ge "$UW_MIN" ]
	ok $? "$2: $m_full of $m_inc samples in c() show $LEAF ($(pct "$m_full" "$m_inc")), the baseline (>= $UW_MIN samples)"
}

echo "# $(uname -a)"
t_module
pick_event

run leaf-fp "AArch64, frame pointers"
expect_full "AArch64 with frame pointers, the kernel's walker" \
	"$T/leaf-fp.data" leaf-fp "$LEAF"
echo "# BASELINE kernel-walker leaf-fp $m_full/$m_inc $(pct "$m_full" "$m_inc")"

run leaf-sf "AArch64, no frame pointers, SFrame"
baseline leaf-sf "AArch64 without frame pointers (SFrame), the kernel's walker"

run leaf-t32 "32-bit Thumb-2, no frame pointer, EHABI, dynamic armhf"
baseline leaf-t32 "32-bit Thumb-2 without frame pointer (EHABI), the kernel's walker"

dmesg | grep -E 'perf: interrupt took too long' | diag
sec finished
[ "$uw_fails" -eq 0 ]
