#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The arm64 guest's tests, run inside it (busybox sh) by
# selftests/kernel-arm64/kernel-arm64.sh, from /root, with uwind.ko, perf,
# the kernel tests' programs built for AArch64 (/root, /root/lib), this
# directory's programs and selftests/kernel/guest-tests.sh at
# /root/kernel-guest-tests.sh.  Prints "UWTAP: ok - ..." lines
# (selftests/kernel/guest-lib.sh).
#
#  1. the kernel's own walker, before the module is loaded: the AArch64
#     program with frame pointers must show its whole chain in at least
#     UW_GOOD percent (99) of its leaf samples; the 32-bit Thumb-2 one
#     (EHABI tables, no frame pointer) is measured: the baseline;
#  2. the kernel tests (guest-tests.sh), the parts that apply to arm64
#     (KA_PARTS): all but the x86 KVM guest's and "breaks" (memloop's
#     walks do not break in AArch64 libc's memcpy: a leaf, whose frame
#     pointer fallback reads the record x29 still points to, libc's
#     start-up frame, as the kernel's walker does; the stock armhf
#     program's walks break in its libc, checked below); the hardware
#     event's runs here, on the PMU;
#  3. what is arm64's: 32-bit tasks from their EHABI tables (Thumb-2 at
#     least UW_T32_GOOD percent (95), the issue's figure; Thumb-2 and ARM
#     code mixed; a library of ARM code with frame pointers and no tables
#     in the middle of a chain), signal frames (the vDSO's trampoline,
#     the sigpage's for 32-bit tasks), pointer authentication (SFrame
#     rows and frame records with signed return addresses), and what a
#     stock armhf program whose hot loop is in libc gets (reported);
#  4. a stock AArch64 program after `uwind sframe --install`
#     (t_installed);
#  5. the agent's part of the kernel tests (selftests/kernel/guest-agent.sh):
#     tables made on demand by the AArch64 uwind at /usr/bin/uwind.
#
# Each run needs UW_MIN (200) leaf samples.  Samples come from the
# emulated PMU's cycles event (the kernel tests' from cpu-clock, see
# t_shared), at UW_FREQ (499) Hz.  Programs run and are sampled
# UW_SLOW (2) times as long as the x86-64 guest's, which samples at 2000.

. /root/guest-lib.sh

UW_GOOD=${UW_GOOD:-99}
UW_T32_GOOD=${UW_T32_GOOD:-95}
UW_MIN=${UW_MIN:-200}
UW_FREQ=${UW_FREQ:-499}
UW_SLOW=${UW_SLOW:-2}
T=/tmp
LEAF=leaf_c,leaf_b,leaf_a,main
CHAIN_FP=chain_leaf,chain_cb,fp_lib_func,main
export UW_FREQ UW_SLOW UW_MIN UW_GOOD

KA_PARTS="progs base running hooks leaf fp lib inflight swap cache walktime threads fplib corrupt tiny enable depth cap conc pad user fpjunk hw tp trace bpf reload"

sec()
{
	read -r _up _ < /proc/uptime
	echo "# [$_up] $*"
}

# The event to sample: cycles from the PMU QEMU emulates (TCG too), as on
# hardware; the hardware-event test needs it.  cpu-clock if it does not
# count, for the rest.  Under TCG a sample's interrupt takes up to a
# millisecond, and the kernel would lower perf_event_max_sample_rate
# below UW_FREQ as the run goes on ("perf: interrupt took too long", down
# to 250 Hz after four minutes), taking samples from the later tests:
# perf_cpu_time_max_percent=0 turns that off.
pick_event()
{
	UW_EVENT=cpu-clock
	if perf stat -x, -e cycles -o "$T/stat.txt" true 2>/dev/null &&
	    grep -q '^[0-9][0-9]*,' "$T/stat.txt"; then
		UW_EVENT=cycles
	fi
	export UW_EVENT
	diag < "$T/stat.txt"
	[ "$UW_EVENT" = cycles ]
	ok $? "the guest's PMU counts cycles ($(dmesg | sed -n 's/.*hw perfevents: //p' | head -n 1))"
	echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
	echo 1000 > /proc/sys/kernel/perf_event_max_sample_rate
	echo "# sampling $UW_EVENT at $UW_FREQ Hz"
}

# run NAME WHAT: perf record -g of /root/NAME for ms 1000; the program
# must have run to its end (its "NAME: N calls" line).
run()
{
	sec "$1"
	rec "$T/$1.data" -- "/root/$1" "$(ms 1000)"
	r=$?
	grep -q '^[^ ]*: [0-9]* calls' "$T/$1.data.log" || r=1
	[ $r -eq 0 ] || diag < "$T/$1.data.log"
	ok $r "perf record -e $UW_EVENT -g of $1 ($2)"
}

# baseline NAME WHAT CHAIN: the share of full chains, reported; the run
# must have UW_MIN samples in the leaf.
baseline()
{
	report "$2" "$T/$1.data" "$1" "$3"
	echo "# BASELINE kernel-walker $1 $m_full/$m_inc $(pct "$m_full" "$m_inc")"
	[ "$m_inc" -ge "$UW_MIN" ]
	ok $? "$2: $m_full of $m_inc samples in ${3%%,*}() show $3 ($(pct "$m_full" "$m_inc")), the baseline (>= $UW_MIN samples)"
}

# 1. The kernel's own walker.
t_kernel()
{
	unload
	run leaf-fp "AArch64, frame pointers"
	expect_full "AArch64 with frame pointers, the kernel's walker" \
		"$T/leaf-fp.data" leaf-fp "$LEAF"
	echo "# BASELINE kernel-walker leaf-fp $m_full/$m_inc $(pct "$m_full" "$m_inc")"
	run leaf-t32 "32-bit Thumb-2, no frame pointer, EHABI, dynamic armhf"
	baseline leaf-t32 "32-bit Thumb-2 without frame pointer (EHABI), the kernel's walker" "$LEAF"
	t32_base="$m_full of $m_inc ($(pct "$m_full" "$m_inc"))"
}

# 2. The kernel tests, on the AArch64 builds of their programs.
#
# They sample cpu-clock, as in the x86-64 guest (their "hw" part samples
# cycles).  perf's frequency mode starts a hardware event with a period of
# one and adapts it: the first samples after perf attaches come
# microseconds apart, and they fall before the module has served the
# first sample's request to scan a process that dlopen'ed a library
# while nothing sampled it (10 of 440 samples in chain-dl's (b) run
# with cycles; with cpu-clock, as with a fixed period, 1 or 2).
t_shared()
{
	UW_EVENT=cpu-clock UW_PARTS=$1 sh /root/kernel-guest-tests.sh ||
		uw_fails=$((uw_fails + 1))
}

# tables_want PROG FILE STATE: PROG's mapping of FILE has STATE in the
# module's tables, while PROG runs (in the background) and is sampled:
# the libraries ld.so maps after exec are scanned when a sample meets
# them (a scan at exec sees the program and ld.so only).  The scans run
# on a workqueue: under load they may take a while, so the state is
# polled for up to 10 s.
tables_want()
{
	bg_prog "$1" 60000
	sleep 0.5
	rec "$T/tables.data" -p "$bg" -- sleep 1
	_i=0
	while _st=$(table_state "$bg" "$2"); [ "$_st" != "$3" ] &&
	    [ $_i -lt 20 ]; do
		sleep 0.5
		_i=$((_i + 1))
	done
	if [ "$_st" != "$3" ]; then
		tables_of "$bg" | diag
		diag < "$T/$1.out"
	fi
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	[ "$_st" = "$3" ]
	ok $? "tables: $1's mapping of $2 is '$3' (got '$_st')"
}

# 3. 32-bit tasks: EHABI (Thumb-2; ARM and Thumb mixed), the frame-pointer
# fallback, the armhf libc's own index loaded and checked.
t_arm32()
{
	load
	l0=$(stat_val tables_loaded)
	run leaf-t32 "32-bit Thumb-2, with the module"
	expect_at "$UW_T32_GOOD" "32-bit Thumb-2 without frame pointer (EHABI), with the module" \
		"$T/leaf-t32.data" leaf-t32 "$LEAF"
	echo "# 32-bit Thumb-2 summary: without the module ${t32_base:-?}," \
		"with it $m_full of $m_inc ($(pct "$m_full" "$m_inc"))"
	[ "$(($(stat_val tables_loaded) - l0))" -ge 2 ]
	ok $? "tables_loaded +$(($(stat_val tables_loaded) - l0)) >= 2 (leaf-t32 and the armhf libc)"
	tables_want leaf-t32 /root/leaf-t32 ehabi
	tables_want leaf-t32 libc.so.6 ehabi
	run leaf-mix "32-bit, leaf_b() in ARM state, the rest Thumb-2"
	expect_at "$UW_T32_GOOD" "32-bit ARM and Thumb-2 mixed (EHABI), with the module" \
		"$T/leaf-mix.data" leaf-mix "$LEAF"
	p0=$(stat_val frames_fp)
	run chain-t32fp "32-bit, through an ARM library with frame pointers and no tables"
	expect_at "$UW_T32_GOOD" "32-bit through libuwfp32.so (ARM, frame pointers, no EHABI)" \
		"$T/chain-t32fp.data" chain-t32fp "$CHAIN_FP"
	grew frames_fp "$p0"
	tables_want chain-t32fp libuwfp32.so none
	t_arm32_limits
}

# EHABI tables are checked whole once and held under the same caps as
# SFrame tables: a broken index is refused once (while the file is
# mapped, however often its process is sampled and rescanned), counted;
# with max_total_mb=0 a file runs without its table.
t_arm32_limits()
{
	r0=$(stat_val tables_rejected)
	tables_want leaf-t32bad /root/leaf-t32bad rejected
	r1=$(stat_val tables_rejected)
	[ $((r1 - r0)) -eq 1 ]
	ok $? "leaf-t32bad's index refused once: tables_rejected +$((r1 - r0))"
	dmesg | grep -q 'leaf-t32bad: EHABI index refused'
	ok $? "dmesg says why leaf-t32bad's index was refused"
	dmesg | grep 'leaf-t32bad' | tail -n 1 | diag
	unload && insmod "$UW_KO" max_total_mb=0
	ok $? "insmod max_total_mb=0"
	o0=$(stat_val tables_over_max_total)
	tables_want leaf-t32 /root/leaf-t32 over-max_total_mb
	[ "$(stat_val tables_over_max_total)" -gt "$o0" ]
	ok $? "max_total_mb=0: tables_over_max_total +$(($(stat_val tables_over_max_total) - o0))"
	unload && load
}

# Signal frames: a handler's chain through the kernel's sigreturn
# trampoline (AArch64: the vDSO's; 32-bit: the sigpage's), on to the
# interrupted function.
t_signal()
{
	load
	s0=$(stat_val frames_sigframe)
	run sig-a64 "AArch64, a handler's chain through the vDSO's sigreturn"
	expect_full "AArch64 signal handler, through the vDSO" \
		"$T/sig-a64.data" sig-a64 sig_c,sig_b,handler,__kernel_rt_sigreturn,outer,main
	grew frames_sigframe "$s0"
	s0=$(stat_val frames_sigframe)
	run sig-t32 "32-bit Thumb-2, a handler's chain through the sigpage"
	expect_at "$UW_T32_GOOD" "32-bit signal handler, through the sigpage" \
		"$T/sig-t32.data" sig-t32 "sig_c,sig_b,handler,[unknown],outer,main"
	grew frames_sigframe "$s0"
	# A process's first handler calls (400 ms each, three of them): the
	# sigpage has no page table entry before the first sigreturn, and the
	# hook reads without faulting; the module's scan faults it in.
	sec sig-t32-first
	rec "$T/sigfirst.data" -- /root/sig-t32 "$(ms 500)" 400
	expect_at "$UW_T32_GOOD" "32-bit signal handler, its first calls (400 ms each)" \
		"$T/sigfirst.data" sig-t32 "sig_c,sig_b,handler,[unknown],outer,main"
}

# Pointer authentication: the guest CPU signs return addresses of code
# built with -mbranch-protection=standard; SFrame marks such rows, frame
# records hold them signed.
t_pac()
{
	load
	run leaf-pac "AArch64, SFrame, return addresses signed"
	expect_full "AArch64 with pointer authentication, SFrame" \
		"$T/leaf-pac.data" leaf-pac "$LEAF"
	p0=$(stat_val frames_fp)
	run leaf-fppac "AArch64, frame pointers, return addresses signed"
	expect_full "AArch64 with pointer authentication, frame pointers" \
		"$T/leaf-fppac.data" leaf-fppac "$LEAF"
	grew frames_fp "$p0"
}

# A stock armhf program (Debian's defaults: no unwind tables in C code)
# whose hot loop is libc's memcpy (hand-written, no index entry): what the
# module gives, reported; its walks must end for want of a table row,
# with the armhf libc first in debugfs "breaks" (the x86-64 test (n)).
t_stock32()
{
	unload && load		# breaks counted from zero
	run memloop32 "stock armhf, hot loop in libc's memcpy"
	report "stock armhf memloop32 in libc" "$T/memloop32.data" memloop32 \
		@libc.so.6,copy,mem_b,mem_a,main
	echo "# STOCK32 memloop32 $m_full/$m_inc $(pct "$m_full" "$m_inc")"
	[ "$m_inc" -ge "$UW_MIN" ]
	ok $? "stock armhf: $m_full of $m_inc samples in libc show memcpy,copy,mem_b,mem_a,main ($(pct "$m_full" "$m_inc")), reported (>= $UW_MIN samples)"
	head -n 5 "$UW_DBG/breaks" | diag
	top=$(awk 'NR == 1 { print $2 }' "$UW_DBG/breaks")
	case $top in
	*/arm-linux-gnueabihf/libc.so.6) r=0 ;;
	*) r=1 ;;
	esac
	ok $r "stock armhf: debugfs breaks lists the armhf libc first (got '$top')"
}

# A stock AArch64 program after `uwind sframe --install` of it and its
# libraries (kernel-arm64.sh made the tables on the host from their DWARF
# CFI, /root/inst; installed here, at /var/lib/uwind/build-id, for this
# test only): hot-mem, plain -O2, whose hot loop is libc's memcpy and
# memset three calls down.  Its whole chain, down to _start, in at least
# UW_INST_GOOD (95) percent of the samples in libc, its frames from the
# tables; what the kernel's walker and the module without the tables give
# is reported (GCC keeps frame records on AArch64, and perf fills in the
# leaf's caller from the link register: those chains are whole too).
HOT_CHAIN=@libc.so.6,hot_c,hot_b,hot_a,main,@libc.so.6,__libc_start_main,_start
UW_INST_GOOD=${UW_INST_GOOD:-95}

# inst_whole DATA COMM SPINE: COMM's samples whose innermost user frame
# is in the C, C++ or math library, "INC FULL EARLY": full when the frames
# above SPINE's first function are all the libraries' (or std::
# templates of the program, _Z...), then the program's SPINE (comma
# separated, down to main), and the chain ends in the program's _start.
# Samples before the first whole one are left out and counted (EARLY:
# the libraries' tables are loaded after ld.so maps them, about 40 ms for
# libstdc++'s under TCG; the x86-64 test leaves them out the same way).
# Up to 3 chains that are not whole go to DATA.bad.
inst_whole()
{
	rm -f "$1.bad"
	perf script --no-inline --no-demangle -i "$1" -F comm,tid,ip,sym,dso \
		> "$1.txt" 2> "$1.script.err"
	awk -v bad="$1.bad" -v comm="$2" -v spine="$3" '
	BEGIN { RS = ""; FS = "\n"; k = split(spine, want, ",") }
	{
		split($1, h, " ")
		if (h[1] != comm)
			next
		n = 0
		for (i = 2; i <= NF; i++) {
			nf = split($i, f, " ")
			if (nf < 2 || (length(f[1]) == 16 && f[1] ~ /^ffff/))
				continue
			s = f[2]
			sub(/\+0x[0-9a-f]+$/, "", s)
			d = f[nf]
			gsub(/[()]/, "", d)
			sub(/.*\//, "", d)
			sym[++n] = s
			dso[n] = d
		}
		# The caller perf adds after a leaf from the link register
		# (see chains() in guest-lib.sh): the next frame again.
		if (n >= 3 && sym[2] == sym[3] && dso[2] == dso[3]) {
			for (i = 2; i < n; i++) {
				sym[i] = sym[i + 1]
				dso[i] = dso[i + 1]
			}
			n--
		}
		if (n == 0 || dso[1] !~ /^lib(stdc\+\+|c|m)\.so/)
			next
		inc++
		ok = 1
		for (i = 1; i <= n && sym[i] != want[1]; i++)
			if (dso[i] !~ /^lib(stdc\+\+|c|m|gcc_s)\.so/ &&
			    !(dso[i] == comm && sym[i] ~ /^_Z/))
				ok = 0
		for (j = 1; j <= k; j++)
			if (i + j - 1 > n || sym[i + j - 1] != want[j] ||
			    dso[i + j - 1] != comm)
				ok = 0
		if (!ok || sym[n] != "_start" || dso[n] != comm) {
			if (!whole) {
				inc--
				early++
				next
			}
			if (nbad++ < 3) {
				c = ""
				for (i = 1; i <= n && i <= 12; i++)
					c = c " " sym[i] "@" dso[i]
				print "# not whole:" c > bad
			}
			next
		}
		whole = 1
		full++
	}
	END { print inc + 0, full + 0, early + 0 }' "$1.txt"
}
t_installed()
{
	unload
	run hot-mem "stock AArch64, hot in libc, the kernel's walker"
	report "hot-mem, the kernel's walker" "$T/hot-mem.data" hot-mem "$HOT_CHAIN"
	inst_base="$m_full of $m_inc ($(pct "$m_full" "$m_inc"))"
	load
	run hot-mem "stock AArch64, hot in libc, the module without installed tables"
	report "hot-mem, the module alone" "$T/hot-mem.data" hot-mem "$HOT_CHAIN"
	inst_alone="$m_full of $m_inc ($(pct "$m_full" "$m_inc"))"
	mkdir -p /var/lib/uwind && cp -a /root/inst /var/lib/uwind/build-id
	echo 1 > "$UW_DBG/installed"	# look for installed tables again
	f0=$(stat_val frames_sframe) i0=$(stat_val tables_installed)
	run hot-mem "stock AArch64, hot in libc, with installed tables"
	report "hot-mem with installed tables" "$T/hot-mem.data" hot-mem "$HOT_CHAIN"
	set -- $(inst_whole "$T/hot-mem.data" hot-mem hot_c,hot_b,hot_a,main)
	cat "$T/hot-mem.data.bad" 2>/dev/null
	echo "# INSTALLED hot-mem: the kernel's walker $inst_base," \
		"the module alone $inst_alone," \
		"with installed tables ${2:-0} of ${1:-0} ($(pct "${2:-0}" "${1:-0}"))"
	[ "${1:-0}" -ge "$UW_MIN" ] && at_least "$UW_INST_GOOD" "${2:-0}" "$1"
	ok $? "hot-mem with installed tables (hot in libc, plain -O2): ${2:-0} of ${1:-0} samples in libc whole to _start ($(pct "${2:-0}" "${1:-0}") >= $UW_INST_GOOD%; left out: ${3:-0} before the first whole one)"
	f1=$(stat_val frames_sframe) i1=$(stat_val tables_installed)
	[ $((i1 - i0)) -ge 2 ] && [ $((f1 - f0)) -ge $((5 * ${2:-0})) ]
	ok $? "installed tables read +$((i1 - i0)) >= 2, frames_sframe +$((f1 - f0)) >= 5 x ${2:-0}"
	tables_want hot-mem /root/hot-mem installed
	tables_want hot-mem libc.so.6 installed
	t_installed_cxx
	rm -rf /var/lib/uwind
	echo 1 > "$UW_DBG/installed"
}

# The same for hot-oss, hot in libstdc++ (its chain's shape varies with
# the library's inlining: inst_whole judges it).  The tables are in.
t_installed_cxx()
{
	unload
	run hot-oss "stock AArch64 C++, hot in libstdc++, the kernel's walker"
	set -- $(inst_whole "$T/hot-oss.data" hot-oss format_once,main)
	oss_base="${2:-0} of ${1:-0}"
	load
	run hot-oss "stock AArch64 C++, hot in libstdc++, with installed tables"
	set -- $(inst_whole "$T/hot-oss.data" hot-oss format_once,main)
	cat "$T/hot-oss.data.bad" 2>/dev/null
	echo "# INSTALLED hot-oss: the kernel's walker $oss_base, with installed tables ${2:-0} of ${1:-0}"
	[ "${1:-0}" -ge "$UW_MIN" ] && at_least "$UW_INST_GOOD" "${2:-0}" "$1"
	ok $? "hot-oss with installed tables (hot in libstdc++, plain -O2): ${2:-0} of ${1:-0} samples in the C++ and C libraries whole to _start ($(pct "${2:-0}" "${1:-0}") >= $UW_INST_GOOD%; left out: ${3:-0} before the first whole one)"
	tables_want hot-oss libstdc++.so.6 installed
}

# The sections, in this order; "uwind_only=NAME,NAME" on the kernel
# command line runs only those, where a NAME that is not one of these is
# a part of the kernel tests (selftests/kernel/guest-tests.sh), run
# between them in the order given.
ka_sections="kernel shared arm32 signal pac stock32 installed final agent done"
ka_only=""
for a in $(cat /proc/cmdline); do
	case $a in
	uwind_only=*) ka_only=$(echo "${a#uwind_only=}" | tr ',' ' ') ;;
	esac
done

# The agent's part after every section that loads the module (it locks
# the kernel down: no module loads after it), dmesg's check last.
t_final() { t_shared unload; }
t_agent() { t_shared agent; }
t_done() { t_shared dmesg; }

echo "# $(uname -a)"
pick_event
if [ -z "$ka_only" ]; then
	for s in $ka_sections; do
		sec "$s"
		if [ "$s" = shared ]; then
			t_shared "$KA_PARTS"
		else
			"t_$s"
		fi
	done
else
	for s in $ka_only; do
		case " $ka_sections " in
		*" $s "*) sec "$s"; "t_$s" ;;
		*) t_shared "$s" ;;
		esac
	done
fi
dmesg | grep -E 'perf: interrupt took too long' | diag
sec finished
[ "$uw_fails" -eq 0 ]
