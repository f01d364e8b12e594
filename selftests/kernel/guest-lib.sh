# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Helpers for the scripts that run inside the test guest (busybox sh),
# sourced from /root/guest-lib.sh.  Checks print "UWTAP: ok - ..." or
# "UWTAP: not ok - ..." (the host numbers them), diagnostics "# ...".

UW_DBG=/sys/kernel/debug/uwind
UW_KO=/root/uwind.ko
uw_fails=0

# perf 7 looks source lines and inline frames up with the addr2line
# program (perf trace --call-graph and perf script stop early when the
# guest has none): have it use libdw, in process.
case $(perf version 2>/dev/null) in
"perf version "[0-6].*) ;;
*)
	[ -f "$HOME/.perfconfig" ] ||
		printf '[addr2line]\n\tstyle = libdw\n' > "$HOME/.perfconfig"
	;;
esac

# An awk function for the scripts' awk programs: hex(X), the value of
# the hexadecimal digits X (busybox awk has no strtonum).
UW_AWK_HEX='
function hex(x,   i, v) {
	v = 0
	x = tolower(x)
	for (i = 1; i <= length(x); i++)
		v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
	return v
}'

ok()
{
	# ok STATUS DESCRIPTION: passes when STATUS is 0.
	if [ "$1" -eq 0 ]; then
		echo "UWTAP: ok - $2"
	else
		echo "UWTAP: not ok - $2"
		uw_fails=$((uw_fails + 1))
	fi
}

skip() { echo "UWTAP: ok - $1 # SKIP $2"; }

diag() { sed 's/^/# /'; }

# uw_show NAME: the module's "stats" or "tables": debugfs's file, or
# where debugfs is not mounted (the agent's tests: nothing a production
# install needs reads it) that section of the device's status text.
UW_DEV=/dev/uwind
uw_show()
{
	if [ -r "$UW_DBG/$1" ]; then
		cat "$UW_DBG/$1"
	else
		awk -v s="[$1]" '/^\[/ { on = ($0 == s); next } on' "$UW_DEV"
	fi 2>/dev/null
}

# The value of counter $1 in the module's stats (empty if absent).
stat_val()
{
	uw_show stats | awk -v k="$1" '$1 == k { print $2 }'
}

loaded() { grep -q '^uwind ' /proc/modules; }

# The walk's time limit in the tests.  Its default (max_walk_us=50) is
# meant for hardware; under TCG the guest's CPU is emulated, one to two
# orders of magnitude slower, and on a loaded host a vCPU can lose its
# host CPU in the middle of a walk: walks the tests expect whole would be
# cut.  So under TCG (the host says so on the kernel command line,
# uwind_accel=tcg) every insmod gets max_walk_us=$UW_WALK_US (2000)
# unless it names max_walk_us itself, and the deferred walk's limit
# (default 10 times the other) scaled alike, max_defer_walk_us=
# $UW_DEFER_WALK_US; under KVM, the defaults.  The limit's own tests set
# theirs (t_walktime).
UW_WALK_US= UW_DEFER_WALK_US=
for a in $(cat /proc/cmdline); do
	case $a in
	uwind_accel=tcg)
		UW_WALK_US=${UW_TCG_WALK_US:-2000}
		UW_DEFER_WALK_US=$((UW_WALK_US * 10))
		;;
	esac
done

insmod()
{
	_a=
	case " $* " in
	*" max_walk_us="*) ;;
	*) _a=${UW_WALK_US:+max_walk_us=$UW_WALK_US} ;;
	esac
	case " $* " in
	*" max_defer_walk_us="*) ;;
	*) _a="$_a${UW_DEFER_WALK_US:+ max_defer_walk_us=$UW_DEFER_WALK_US}" ;;
	esac
	# shellcheck disable=SC2086
	command insmod "$@" $_a
}

load() { loaded || insmod "$UW_KO" "$@"; }

unload() { ! loaded || rmmod uwind; }

# ms N: N milliseconds of running or sampling, times UW_SLOW (default
# 1; the arm64 guest samples at a quarter of the rate and sets 2).
ms() { echo $(($1 * ${UW_SLOW:-1})); }

# at_least PCT PART WHOLE: PART is at least PCT percent of WHOLE (> 0).
at_least() { [ "$3" -gt 0 ] && [ $(($2 * 100)) -ge $(($3 * $1)) ]; }

# at_most PCT PART WHOLE
at_most() { [ $(($2 * 100)) -le $(($3 * $1)) ]; }

# pct PART WHOLE: "12.3%" for messages.
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }

# rec OUT [PERF RECORD OPTIONS] -- COMMAND...: perf record -g on the
# event UW_EVENT (default cpu-clock, the only one without a PMU), quietly,
# without build-ids (-B: faster), output to OUT.
# Frequency from UW_FREQ (default 2000).  The module's counters before
# the run are kept in OUT.stats (see sdelta).  UW_CALLGRAPH replaces -g
# (e.g. "--call-graph fp,defer").
rec()
{
	_o=$1
	shift
	snap "$_o.stats"
	# shellcheck disable=SC2086
	perf record -q -B -e "${UW_EVENT:-cpu-clock}" -F "${UW_FREQ:-2000}" \
		${UW_CALLGRAPH:--g} -o "$_o" "$@" > "$_o.log" 2>&1
}

# pscript DATA: the samples as `perf script -F comm,tid,ip,sym,dso`.
# --no-inline: perf 7.2 looks inline frames up with addr2line, and stops
# after about 100 samples when there is none (as in the guest).
pscript()
{
	perf script --no-inline -i "$1" -F comm,tid,ip,sym,dso \
		2>"$1.script.err"
}

# chains COMM CHAIN [tid]: read `perf script -F comm,tid,ip,sym,dso` on
# stdin.  CHAIN is the expected call chain, innermost first, comma
# separated (e.g. leaf_c,leaf_b,leaf_a,main); "@NAME" stands for any function of the
# file NAME (a stripped library's local functions).  Among the samples
# of COMM, count those with any user frame (USER), those whose innermost
# user frame is CHAIN's first function (INC), and of those the ones whose
# next user frames are exactly the rest of CHAIN (FULL).  Kernel frames (addresses in the upper half)
# are skipped.  Prints "USER INC FULL", or with "tid" one line
# "TID USER INC FULL" per thread.
#
# On arm64, perf record -g also samples the user link register, and perf
# script (6.1) inserts after the leaf the caller it finds from it (where
# the leaf's CFI says the return address is still in lr), as lr - 1,
# unless the next entry of the kernel's chain equals that value.  No
# kernel chain holds lr - 1 (return addresses are lr's values), so when
# the kernel's walker found the caller too, perf shows it twice, at lr - 1
# and at lr: "c <- b <- b <- a".  The entry perf inserted, one below the
# next one (no two return addresses are a byte apart), is not counted
# here: it is not the kernel's.  perf prints an address it resolved
# relative to its file, and leaves lr's pointer-authentication code in
# (a leaf that signed its return address): such an entry, a user address
# above 48 bits, cannot be resolved, and is perf's too (both walkers
# clear the code from every entry they store), so it is not counted
# either.  perf 6.12 inserts lr for a 32-bit task's leaf that is not a
# leaf (sig_c calls the clock, and lr still points into it): an entry in
# the same function as the leaf, which no test chain has, is dropped too.
# seen() shows the chains as perf prints them.
chains()
{
	awk -v comm="$1" -v chain="$2" -v bytid="${3:-}" "$UW_AWK_HEX"'
	function is(j, w) { return w ~ /^@/ ? d[j] == substr(w, 2) : s[j] == w }
	BEGIN { RS = ""; FS = "\n"; k = split(chain, want, ",") }
	{
		nh = split($1, h, " ")
		if (h[1] != comm)
			next
		key = bytid == "" ? "all" : h[2]
		n = 0
		for (i = 2; i <= NF; i++) {
			nf = split($i, f, " ")
			if (nf < 2)
				continue
			if (length(f[1]) == 16 && f[1] ~ /^ffff/)
				continue
			sym = f[2]
			sub(/\+0x[0-9a-f]+$/, "", sym)
			s[++n] = sym
			d[n] = f[nf]
			gsub(/[()]/, "", d[n])
			sub(/.*\//, "", d[n])
			ip[n] = hex(f[1])
			pac[n] = length(f[1]) > 12
		}
		if (n >= 3 && (ip[2] + 1 == ip[3] || pac[2] || s[2] == s[1])) {
			for (i = 2; i < n; i++) {
				s[i] = s[i + 1]
				d[i] = d[i + 1]
			}
			n--
		}
		if (n == 0)
			next
		keys[key] = 1
		user[key]++
		if (!is(1, want[1]))
			next
		inc[key]++
		if (n < k)
			next
		for (j = 2; j <= k; j++)
			if (!is(j, want[j]))
				next
		full[key]++
	}
	END {
		if (bytid == "") {
			printf "%d %d %d\n", user["all"], inc["all"], full["all"]
			exit
		}
		for (t in keys)
			printf "%s %d %d %d\n", t, user[t], inc[t], full[t]
	}'
}

# seen COMM FIRST [N]: the most frequent user call chains (first N=5
# frames, innermost first) of COMM's samples whose innermost user frame is
# FIRST, with their counts: what the unwinder actually gave.
seen()
{
	awk -v comm="$1" -v first="$2" -v depth="${3:-5}" '
	BEGIN { RS = ""; FS = "\n" }
	{
		split($1, h, " ")
		if (h[1] != comm)
			next
		n = 0
		c = ""
		for (i = 2; i <= NF && n < depth; i++) {
			nf = split($i, f, " ")
			if (nf < 2 || (length(f[1]) == 16 && f[1] ~ /^ffff/))
				continue
			sym = f[2]
			sub(/\+0x[0-9a-f]+$/, "", sym)
			dso = f[nf]
			gsub(/[()]/, "", dso)
			sub(/.*\//, "", dso)
			if (n == 0 && sym != first && "@" dso != first)
				next
			c = n ? c " <- " sym : sym
			n++
		}
		if (n)
			cnt[c]++
	}
	END { for (c in cnt) printf "%6d  %s\n", cnt[c], c }' |
		sort -rn | head -n 4
}

# grew COUNTER BEFORE: the module's COUNTER rose by at least m_full (the
# full chains report() last counted) since it read BEFORE.
grew()
{
	_d=$(($(stat_val "$1") - $2))
	[ "$_d" -ge "$m_full" ]
	ok $? "stats: $1 +$_d >= $m_full"
}

# snap FILE: keep the module's counters (nothing if it is not loaded).
snap() { uw_show stats > "$1" 2>/dev/null || : > "$1"; }

# sdelta FILE: the counters that changed since snap FILE, "key +N ...".
sdelta()
{
	loaded || return 0
	uw_show stats | awk 'NR == FNR { v[$1] = $2; next }
	($1 in v) && $2 != v[$1] { printf "%s %+d ", $1, $2 - v[$1] }
	END { print "" }' "$1" -
}

# Measuring a recorded run.  The thresholds UW_GOOD, UW_BROKEN (percent)
# and UW_MIN (leaf samples a run must have) are the calling script's.

# measure DATA COMM CHAIN: sets m_user, m_inc, m_full from DATA's samples.
measure()
{
	pscript "$1" > "$1.txt"
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(chains "$2" "$3" < "$1.txt")
	m_user=${4:-0} m_inc=${5:-0} m_full=${6:-0}
}

# report WHAT DATA COMM CHAIN: measure and print the numbers and what the
# samples in the leaf actually looked like.
report()
{
	measure "$2" "$3" "$4"
	echo "# $1: $3: $m_user samples with user frames, $m_inc in" \
		"${4%%,*}(), $m_full of them with the chain $4" \
		"($(pct "$m_full" "$m_inc"))"
	seen "$3" "${4%%,*}" < "$2.txt" | diag
	[ -s "$2.stats" ] && echo "# counters: $(sdelta "$2.stats")"
	[ -s "$2.script.err" ] && head -n 5 "$2.script.err" | diag
	[ -s "$2.log" ] && grep -v '^\[ perf record' "$2.log" | head -n 5 | diag
	return 0
}

# expect_full DESC DATA COMM CHAIN: at least UW_GOOD% full chains (and
# UW_MIN samples in the leaf).
expect_full()
{
	report "$1" "$2" "$3" "$4"
	[ "$m_inc" -ge "$UW_MIN" ] && at_least "$UW_GOOD" "$m_full" "$m_inc"
	ok $? "$1: $m_full of $m_inc samples in ${4%%,*}() show $4 ($(pct "$m_full" "$m_inc") >= $UW_GOOD%, of >= $UW_MIN samples)"
}

# expect_at PCT DESC DATA COMM CHAIN: expect_full with UW_GOOD at PCT.
expect_at()
{
	_g=$UW_GOOD
	UW_GOOD=$1
	shift
	expect_full "$@"
	UW_GOOD=$_g
}

# expect_broken DESC DATA COMM CHAIN: at most UW_BROKEN% full chains.
expect_broken()
{
	report "$1" "$2" "$3" "$4"
	[ "$m_inc" -ge "$UW_MIN" ] && at_most "$UW_BROKEN" "$m_full" "$m_inc"
	ok $? "$1: $m_full of $m_inc samples in ${4%%,*}() show $4 ($(pct "$m_full" "$m_inc") <= $UW_BROKEN%, of >= $UW_MIN samples)"
}

# tables_of PID: the module's tables for one process (debugfs "tables").
tables_of()
{
	uw_show tables | awk -v p="$1" '
	$1 == "pid" { on = ($2 == p) }
	on'
}

# table_state PID FILE: the state (sframe, ehabi, none, rejected...) of
# FILE's mappings in PID's tables; one word, or several if they differ.
# The file matches by path or by its last component.  A process that has
# exited has no tables: say so rather than an empty state (the programs
# run far longer than a test needs, and are killed after it).
table_state()
{
	if ! kill -0 "$1" 2>/dev/null; then
		printf 'process %s exited' "$1"
		return
	fi
	tables_of "$1" | awk -v f="$2" '
	function base(p) { sub(/.*\//, "", p); return p }
	$1 != "pid" && ($2 == f || $2 == base(f)) && !seen[$3]++ {
		printf "%s%s", n++ ? " " : "", $3
	}'
}

# bg_prog NAME ARGS...: start /root/NAME in the background (output in
# $T/NAME.out), pid in bg.
# wait_comm PID COMM: until PID runs COMM (has made its exec), 5 s at most.
wait_comm()
{
	_i=0
	while [ "$(cat "/proc/$1/comm" 2>/dev/null)" != "$2" ] &&
		[ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}

bg_prog()
{
	_p=$1
	shift
	"/root/$_p" "$@" > "$T/$_p.out" 2>&1 &
	bg=$!
}
