# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The installed-table tests, sourced by guest-tests.sh (part "inst"):
# stock-built programs (hot.c, hotxx.cc: plain -O2, no frame pointers, no
# SFrame, their hot code in libc and libstdc++) unwound through tables
# that `uwind sframe --install` made in the guest from their DWARF CFI and
# their libraries', and the vDSO's.  A sample's chain is judged by
# inst-chains.awk: every caller frame a call site (hot.ret), the
# program's own frames exactly its chain, down to main and _start.

HOT_ALL="qsort mem malloc write vdso sort oss umap"
HOT_SPINES="hot-qsort:cmp,sort_once hot-mem:hot_c,hot_b,hot_a hot-malloc:churn
	hot-write:writer hot-vdso:timeloop hot-sort:_ZL4wordj,sort_once
	hot-oss:format_once hot-umap:_ZL4wordj,map_once"
HOT_LIBS="/lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libstdc++.so.6
	/lib/x86_64-linux-gnu/libm.so.6 /lib/x86_64-linux-gnu/libgcc_s.so.1
	/lib64/ld-linux-x86-64.so.2"
UW_INST_GOOD=${UW_INST_GOOD:-95}
UW_INST_MIN=${UW_INST_MIN:-200}		# samples a program must have (as UW_MIN)
INST_TOP=/var/lib/uwind
# The judge reads 40,000 call sites and every frame: busybox's awk takes
# 7 s where mawk takes 1.
INST_AWK=awk
command -v mawk > /dev/null && INST_AWK=mawk

# hot_chains [-e] DATA...: judge each DATA's samples (inst-chains.awk)
# into DATA.n (one awk for all: reading hot.ret is its slow part; INST_RET
# names another, HOT_SPINES the programs and their spines, INST_NEED a
# file the first whole chain must go through, for -e); -e
# leaves out each process's samples cut short before its first whole
# chain (the tables of the libraries it has just mapped were not in yet).
hot_chains()
{
	_e=0
	[ "$1" != -e ] || { _e=1; shift; }
	# perf 6.1 prints a frame's address relative to its file; later ones
	# print the process's address, and the file's in the dsoff field.
	# A yes is kept for the boot: the question is a whole pass over a
	# recording (under TCG seconds, as long as the answer's).
	_f=comm,tid,time,ip,sym,symoff,dso
	[ -n "${HOT_DSOFF:-}" ] || ! perf script -F dsoff -i "$1" > /dev/null 2>&1 ||
		HOT_DSOFF=1
	[ -z "${HOT_DSOFF:-}" ] || _f=comm,tid,time,ip,sym,symoff,dsoff
	for _d; do
		perf script --no-demangle --no-inline -i "$_d" -F "$_f" \
			> "$_d.txt" 2> "$_d.script.err"
	done
	# shellcheck disable=SC2046
	$INST_AWK -v spines="$(echo $HOT_SPINES)" -v early=$_e \
		-v need="${INST_NEED:-}" \
		-f /root/inst-chains.awk \
		"${INST_RET:-/root/hot.ret}" $(for _d; do echo "$_d.txt"; done)
}

# hot_rec DATA MS NAME...: perf record -g of hot-NAME for MS ms each, one
# after the other.
hot_rec()
{
	_d=$1 _ms=$2
	shift 2
	rec "$_d" -- sh -c "for p in $*; do /root/hot-\$p $_ms > /dev/null; done"
}

# hot_val DATA NAME: "samples startup full vdso vdso_full early
# early_ms" of hot-NAME (inst-chains.awk).
hot_val()
{
	awk -v c="hot-$2" '$1 == c { print $2, $3, $4, $5, $6, $7, $8 }' "$1.n"
}

# hot_sum DATA: samples and full chains of all the programs.
hot_sum() { awk '$1 ~ /^hot-/ { n += $2; f += $4 } END { print n + 0, f + 0 }' "$1.n"; }

# wait_state PID FILE: FILE's state in PID's tables once it is scanned
# (at most about 5 s), in st.
wait_state()
{
	_i=0 st=""
	while [ -z "$st" ] && [ $_i -lt 50 ]; do
		st=$(table_state "$1" "$2")
		[ -n "$st" ] || sleep 0.1
		_i=$((_i + 1))
	done
}

# run_state PROG FILE [sample]: start PROG (a path), FILE's state in its
# tables (st), then stop it.  The scan at exec sees the program and ld.so;
# a library is known once a sample asks for a rescan: "sample" samples it.
run_state()
{
	"$1" 20000 > /dev/null 2>&1 &
	_p=$!
	[ -z "${3:-}" ] || sample_pid "$_p"
	wait_state "$_p" "$2"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
}

# sample_pid PID: a few samples of PID's, so the module scans it.
sample_pid()
{
	perf record -q -e cpu-clock -F 1000 -g -p "$1" -o /dev/null \
		-- sleep 0.2 > /dev/null 2>&1
}

# Without the module and with the module alone, nothing is installed:
# what stock binaries give today (diagnostics, and one check that the
# module alone cannot unwind them: the tables installed below must).
t_inst_diag()
{
	rm -rf "$INST_TOP"
	unload
	hot_rec "$T/i0.data" 200 $HOT_ALL
	load
	echo 1 > "$UW_DBG/installed"
	hot_rec "$T/i1.data" 200 $HOT_ALL
	hot_chains "$T/i0.data" "$T/i1.data"
	for p in $HOT_ALL; do
		set -- $(hot_val "$T/i0.data" "$p") $(hot_val "$T/i1.data" "$p")
		echo "# hot-$p: full chains without the module $3 of $1" \
			"($(pct "$3" "$1")), with the module alone ${10} of $8" \
			"($(pct "${10}" "$8"))"
	done
	grep '^# bad' "$T/i1.data.n" | head -n 4
	set -- $(hot_sum "$T/i1.data")
	[ "$1" -ge "$UW_INST_MIN" ] && at_most "$UW_BROKEN" "$2" "$1"
	ok $? "(q) stock-built programs, the module alone (nothing installed): $2 of $1 samples have the whole chain ($(pct "$2" "$1") <= $UW_BROKEN%)"
}

# A process started before the install gets its tables: uwind sframe
# --install --pid installs its program, libc, ld.so and the vDSO, and
# tells the module, which rescans the process at its next sample.
t_inst_running()
{
	load
	bg_prog hot-qsort 30000
	sleep 0.5
	rec "$T/ir0.data" -p "$bg" -- sleep 0.5
	i0=$(stat_val tables_installed)
	uwind sframe --install --pid "$bg" > "$T/ir.out" 2>&1
	ok $? "(q) uwind sframe --install --pid of a running hot-qsort exits 0"
	diag < "$T/ir.out"
	r=0
	for f in /root/hot-qsort /lib/x86_64-linux-gnu/libc.so.6 \
	    /lib64/ld-linux-x86-64.so.2 '[vdso]'; do
		t=$(awk -v f="$f" '$1 == "installed" && $2 == f { print $3 }' "$T/ir.out")
		if [ -z "$t" ] || [ ! -f "$t" ]; then
			r=1
			echo "# no table installed for $f"
			continue
		fi
		# root's, 0644, in directories only root may write
		set -- $(ls -ln "$t")
		[ "$1" = "-rw-r--r--" ] && [ "$3" = 0 ] || { r=1; echo "# $t: $*"; }
	done
	ok $r "(q) tables installed for hot-qsort, libc, ld.so and the vDSO, root's, mode 0644"
	rec "$T/ir1.data" -p "$bg" -- sleep 1
	tables_of "$bg" | diag
	s1=$(table_state "$bg" /root/hot-qsort)
	s2=$(table_state "$bg" libc.so.6)
	s3=$(table_state "$bg" '[vdso]')
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	[ "$s1" = installed ] && [ "$s2" = installed ] && [ "$s3" = installed ] &&
		[ $(($(stat_val tables_installed) - i0)) -ge 3 ]
	ok $? "(q) debugfs tables: hot-qsort '$s1', libc.so.6 '$s2', [vdso] '$s3' (installed expected)"
	hot_chains "$T/ir0.data"
	hot_chains -e "$T/ir1.data"
	set -- $(hot_val "$T/ir0.data" qsort) $(hot_val "$T/ir1.data" qsort)
	grep '^# bad' "$T/ir1.data.n"
	at_most "$UW_BROKEN" "$3" "$1" && [ "$8" -ge "$UW_INST_MIN" ] &&
		at_least "$UW_INST_GOOD" "${10}" "$8"
	ok $? "(q) hot-qsort started before the install: whole chains $3 of $1 before ($(pct "$3" "$1")); after, ${10} of $8 ($(pct "${10}" "$8") >= $UW_INST_GOOD%) once its tables were in, ${13} samples in the ${14} ms before"
}

# Every program and its libraries installed, then each recorded: at
# least UW_INST_GOOD% of its samples have the whole chain, vDSO samples
# included.  Left out: those of ld.so's start-up, before main, and those
# cut short while the module had not yet read the tables of the
# libraries the process had just mapped (reported: a table's first load,
# the 220 KB of libstdc++'s, takes about 40 ms here under TCG).
t_inst_progs()
{
	load
	# shellcheck disable=SC2086
	uwind sframe --install $(for p in $HOT_ALL; do echo /root/hot-$p; done) \
		$HOT_LIBS > "$T/inst.out" 2>&1
	ok $? "(q) uwind sframe --install of the programs and their libraries exits 0"
	tail -n 1 "$T/inst.out" | diag
	# shellcheck disable=SC2086
	uwind sframe --install /root/hot-mem $HOT_LIBS > "$T/inst2.out" 2>&1 &&
		[ "$(grep -c '^up-to-date ' "$T/inst2.out")" -eq 6 ]
	ok $? "(q) installing them again changes nothing (6 up to date): $(tail -n 1 "$T/inst2.out")"
	uwind sframe --check --vdso > "$T/vdso.check"
	grep -E '^(build-id|described|no-cfi|table):' "$T/vdso.check" | diag
	# The vDSO's call sites (hot.ret) come from the kernel image the host
	# booted: the same vDSO as this one.
	v1=$(awk '$1 == "build-id:" { print $2 }' "$T/vdso.check")
	v2=$(awk '$1 == "VDSO" { print $2 }' /root/hot.ret)
	[ -n "$v1" ] && [ "$v1" = "$v2" ]
	ok $? "(q) the vDSO's build-id here ($v1) is the one of the image in the kernel booted ($v2)"
	hot_rec "$T/i2.data" "${UW_INST_MS:-800}" $HOT_ALL
	hot_chains -e "$T/i2.data"
	grep '^# bad' "$T/i2.data.n"
	for p in $HOT_ALL; do
		set -- $(hot_val "$T/i2.data" "$p")
		[ "$1" -ge "$UW_INST_MIN" ] &&
			at_least "$UW_INST_GOOD" "$3" "$1"
		ok $? "(q) hot-$p with installed tables: $3 of $1 samples have the whole chain ($(pct "$3" "$1") >= $UW_INST_GOOD%; left out: $2 in ld.so's start-up, $6 cut short in the $7 ms before the first whole one)"
	done
	set -- $(hot_val "$T/i2.data" vdso)
	[ "$4" -ge $((UW_INST_MIN / 3)) ] && at_least "$UW_INST_GOOD" "$5" "$4"
	ok $? "(q) hot-vdso: $5 of $4 samples in the vDSO unwind to their caller and on to main ($(pct "$5" "$4") >= $UW_INST_GOOD%)"
	uwind sframe --install --system > "$T/system.out" 2>&1
	r=$?
	grep -v '^up-to-date\|^installed\|^own-sframe' "$T/system.out" | diag
	[ $r -eq 0 ] && grep -q '^installed /usr/bin/perf ' "$T/system.out"
	ok $? "(q) uwind sframe --install --system: every program and library ($(tail -n 1 "$T/system.out"))"
}

# An installed table is for one file: the same path with other contents
# gets none, whether its build-id is new (hot-chg2, another build) or
# the same (hot-chg3: other code under hot-chg's build-id, whose CFI the
# table's CRC does not match).
t_inst_changed()
{
	load
	cp /root/hot-chg "$T/chg"
	uwind sframe --install "$T/chg" > /dev/null 2>&1
	run_state "$T/chg" chg
	s1=$st
	cat /root/hot-chg2 > "$T/chg"
	run_state "$T/chg" chg
	s2=$st
	f0=$(stat_val installed_refused)
	cat /root/hot-chg3 > "$T/chg"
	run_state "$T/chg" chg
	s3=$st f1=$(stat_val installed_refused)
	[ "$s1" = installed ] && [ "$s2" = none ] && [ "$s3" = none ] &&
		[ $((f1 - f0)) -ge 1 ]
	ok $? "(q) a changed file gets no table: '$s1' as installed, '$s2' rebuilt, '$s3' with other code under the same build-id (installed_refused +$((f1 - f0)))"
	rm -f "$T/chg"
}

# table_of PROG: the path of PROG's installed table (from inst.out).
table_of()
{
	awk -v f="$1" '($1 == "installed" || $1 == "up-to-date") && $2 == f { print $3 }' "$T/inst.out"
}

# A table file that is not whole is refused: one whose header says
# another build-id (hot-qsort's table where hot-mem's belongs), one cut
# short, one whose SFrame section is garbage past its header (refused by
# the whole-table check: "rejected", counted in tables_rejected).
t_inst_corrupt()
{
	load
	t=$(table_of /root/hot-mem)
	cp "$t" "$T/good.uwsf"
	f0=$(stat_val installed_refused) r0=$(stat_val tables_rejected)
	cp "$(table_of /root/hot-qsort)" "$t" && echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s1=$st
	head -c $(($(wc -c < "$T/good.uwsf") - 8)) "$T/good.uwsf" > "$t" &&
		echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s2=$st f1=$(stat_val installed_refused)
	# The FRE sub-section: header (128) + SFrame header (28) + auxhdr
	# + freoff; 64 bytes of 0xff there (an offset size FREs cannot have).
	set -- $(od -An -tu1 -j 135 -N1 "$T/good.uwsf") \
		$(od -An -tu4 -j 152 -N4 "$T/good.uwsf")
	cp "$T/good.uwsf" "$t"
	dd if=/dev/zero bs=64 count=1 2>/dev/null | tr '\0' '\377' |
		dd of="$t" bs=1 seek=$((128 + 28 + $1 + $2)) conv=notrunc 2>/dev/null
	echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s3=$st r1=$(stat_val tables_rejected)
	cp "$T/good.uwsf" "$t" && echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s4=$st
	[ "$s1" = none ] && [ "$s2" = none ] && [ $((f1 - f0)) -ge 2 ] &&
		[ "$s3" = rejected ] && [ $((r1 - r0)) -ge 1 ] &&
		[ "$s4" = installed ]
	ok $? "(q) installed tables not whole are refused: another build-id's '$s1', cut short '$s2' (installed_refused +$((f1 - f0))), garbage FREs '$s3' (tables_rejected +$((r1 - r0))); whole again: '$s4'"
	dmesg | grep 'uwind: .*\(not used\|refused\)' | tail -n 3 | diag
}

# Only root's tables count: a table that another user owns, or that
# others may write, is not used.
t_inst_trust()
{
	load
	t=$(table_of /root/hot-mem)
	f0=$(stat_val installed_refused)
	chown 1000 "$t" && echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s1=$st
	chown 0 "$t" && chmod 664 "$t" && echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s2=$st
	chmod 644 "$t" && chmod 777 "$(dirname "$t")" &&
		echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s3=$st f1=$(stat_val installed_refused)
	chmod 755 "$(dirname "$t")" && echo 1 > "$UW_DBG/installed"
	run_state /root/hot-mem hot-mem
	s4=$st
	[ "$s1" = none ] && [ "$s2" = none ] && [ "$s3" = none ] &&
		[ $((f1 - f0)) -ge 3 ] && [ "$s4" = installed ]
	ok $? "(q) a table owned by uid 1000, group-writable, or in a world-writable directory is not used ('$s1', '$s2', '$s3'; installed_refused +$((f1 - f0))); root's again: '$s4'"
}

# Installed tables count in the caps: over max_total_mb a file gets none,
# and they are charged to the user whose process mapped the file.
t_inst_cap()
{
	load
	_m=$(cat /sys/module/uwind/parameters/max_total_mb)
	echo 0 > /sys/module/uwind/parameters/max_total_mb
	run_state /root/hot-mem libc.so.6 sample
	s1=$st
	echo "$_m" > /sys/module/uwind/parameters/max_total_mb
	spawn_at_once 1000 1 /root/hot-mem 20000
	sample_pid "$(cat "$T/spawn.pids")"
	wait_state "$(cat "$T/spawn.pids")" libc.so.6
	s2=$st
	# libc's table, as the module holds it, is charged: to the system
	# pool (root installed it).
	len=$(awk '$2 ~ /\/libc\.so\.6$/ { print $1; exit }' "$UW_DBG/installed")
	u=$(awk '$1 == 1000 || $1 == 0 || $1 == "system" { n += $2 } END { print n + 0 }' "$UW_DBG/users")
	reap
	[ "$s1" = over-max_total_mb ] && [ "$s2" = installed ] &&
		[ "${len:-0}" -gt 0 ] && [ "$u" -ge "$len" ]
	ok $? "(q) installed tables in the caps: libc '$s1' with max_total_mb=0; '$s2' for uid 1000, its table of ${len:-?} bytes charged (uid 1000 and root hold $u bytes)"
}

# Installed tables are the system's and kept a while after their last
# user (keep_s): a short-lived program run 1,000 times in a row reads
# each installed table it maps once (hot-mem: its own, libc's, ld.so's,
# the vDSO's, which is also read once as an image), where every run used
# to read them again; the system pool holds them, the runs' uid nothing.
t_inst_keep()
{
	load
	echo 1 > "$UW_DBG/gc"		# nothing kept before
	i0=$(stat_val tables_installed) r0=$(stat_val kept_reused)
	# A first run that lives long enough for its scan to read the vDSO's
	# image; the vDSO counts start after it.  (A "hot-mem 0" may be gone
	# before its scan reads the image, which then nothing caches, and the
	# next scan reads it: once 1003 hits of 1005 scans.)
	/root/hot-mem "$(ms 300)" > /dev/null
	sleep 0.5
	v0=$(stat_val vdso_cached) s0=$(stat_val scans) g0=$(stat_val scans_gone)
	d0=$(stat_val vdso_read)
	n=1
	while [ $n -lt 1000 ] && /root/hot-mem 0 > /dev/null; do
		n=$((n + 1))
	done
	i1=$(stat_val tables_installed) r1=$(stat_val kept_reused)
	v1=$(stat_val vdso_cached) s1=$(stat_val scans) g1=$(stat_val scans_gone)
	d1=$(stat_val vdso_read)
	echo "# 1000 runs: scans +$((s1 - s0)), scans_gone +$((g1 - g0)), tables_installed +$((i1 - i0)), kept_reused +$((r1 - r0)), vdso_cached +$((v1 - v0)), vdso_read +$((d1 - d0))"
	grep '^system ' "$UW_DBG/users" | diag
	# Without keep_s the tables went when the runs' tables were
	# collected (every 100 ms), and the next run read them again.
	[ $n -eq 1000 ] && [ $((i1 - i0)) -ge 1 ] && [ $((i1 - i0)) -le 4 ]
	ok $? "(q) 1000 runs of hot-mem read its installed tables once: tables_installed +$((i1 - i0)) (<= 4) for $((s1 - s0)) scans"
	# Once no process uses them (the runs' tables collected), one more
	# run finds them kept.
	# (Tables are told apart by the read that loaded them: debugfs
	# "installed" numbers each; other programs' tables may come and go.)
	sleep 1
	mine='$2 == "/root/hot-mem" || $2 ~ /\/(ld-linux-x86-64|ld-linux-aarch64|libc)\.so/'
	awk "$mine"' { print $2, $3, $4 }' "$UW_DBG/installed" | sort > "$T/kept.1"
	r1=$(stat_val kept_reused)
	/root/hot-mem 0 > /dev/null
	sleep 0.5
	awk "$mine"' { print $2, $3 }' "$UW_DBG/installed" | sort > "$T/kept.2"
	r2=$(stat_val kept_reused)
	diag < "$T/kept.1"
	grep -q ' kept$' "$T/kept.1" &&
		[ "$(cut -d' ' -f1,2 "$T/kept.1")" = "$(cat "$T/kept.2")" ] &&
		[ $((r2 - r1)) -ge 1 ]
	ok $? "(q) a run after the last user had gone found its tables kept, none read again (kept_reused +$((r2 - r1)))"
	# Read by the first run's scan, not again.  A scan that meets a run
	# whose vDSO is not mapped (not yet, or no more) reads nothing, so
	# vdso_cached may fall a little short of the scans (1002 of 1004
	# once, in CI under load).
	[ -n "$d1" ] && [ $((d1 - d0)) -eq 0 ] && at_least 90 $((v1 - v0)) $((s1 - s0))
	ok $? "(q) the vDSO's image read once: vdso_read +$((d1 - d0)) in 1000 runs, vdso_cached +$((v1 - v0)) of $((s1 - s0)) scans"
	sys=$(awk '$1 == "system" { print $2 }' "$UW_DBG/users")
	len=$(awk '$2 ~ /\/libc\.so\.6$/ { print $1; exit }' "$UW_DBG/installed")
	[ "${sys:-0}" -ge "${len:-1}" ] && ! awk '$1 != "system" && $2 >= '"${len:-1}"' { f = 1 } END { exit !f }' "$UW_DBG/users"
	ok $? "(q) kept tables charged to the system pool (system holds ${sys:-0} bytes, libc's table ${len:-?}), to no user"
	# Only the kept ones: a table a process still maps stays (the x86
	# guests' perf stat holder, guest-lib.sh, maps libc).
	echo 1 > "$UW_DBG/gc"
	diag < "$UW_DBG/installed"
	grep -q ' kept$' "$T/kept.1" && ! grep -q ' kept$' "$UW_DBG/installed"
	ok $? "(q) debugfs gc frees the kept tables, none left kept"
}

# Installed tables persist on disk: a module loaded again finds them.
# Nothing holds them then: hot-mem's scans load them (a cold start).
t_inst_reload()
{
	unload && load
	hot_rec "$T/i3.data" 400 mem
	hot_chains -e "$T/i3.data"
	set -- $(hot_val "$T/i3.data" mem)
	[ "$1" -ge "$UW_INST_MIN" ] && at_least "$UW_INST_GOOD" "$3" "$1" &&
		[ "$(stat_val tables_installed)" -ge 2 ]
	ok $? "(q) after rmmod and insmod: hot-mem $3 of $1 samples whole ($(pct "$3" "$1")), $6 cut short in the $7 ms before the first whole one; tables_installed $(stat_val tables_installed)"
}

t_inst()
{
	for _t in diag running progs keep changed corrupt trust cap reload; do
		sec "inst_$_t"
		"t_inst_$_t"
	done
	# The parts after this one expect stock libraries without tables.
	rm -rf "$INST_TOP"
	echo 1 > "$UW_DBG/installed"
}
