#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# make demo (kernel): boot the installed Debian kernel under QEMU, run the
# leaf program (main -> a -> b -> c, built -O2 -fomit-frame-pointer
# -Wa,--gsframe) under `perf record -g` without and then with uwind.ko,
# and print the two `perf report --stdio` call graphs side by side; then
# a stock-built program (hot-qsort: plain -O2, no SFrame, its comparator
# called from libc's qsort) without the module, with the module alone,
# and with `uwind agent` running (as the package's service runs it),
# which makes the tables of the program, libc and ld.so at their first
# sample, with no install step.
# DEMO_WIDTH sets the width of one column (default 60).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
O=${O:-build}
export O
W=${DEMO_WIDTH:-60}

if [ "$(uname -m)" != x86_64 ]; then
	echo "demo-kernel: needs an x86-64 host" >&2
	exit 1
fi
make -s --no-print-directory O="$O" kernel-module "$O/uwind" \
	"$O/selftests/kernel/leaf-sf" "$O/selftests/kernel/hot-qsort" \
	"$O/selftests/kernel/hot.ret"
echo "== booting the guest (QEMU, about half a minute under TCG)..."
rc=0
log=$(sh scripts/kernel-guest.sh -n demo -T "${UWIND_QEMU_TIMEOUT:-300}" \
	-t selftests/kernel/guest-demo.sh) || rc=$?
[ -n "$log" ] || log=$O/kernel/demo.serial.log
tr -d '\r' < "$log" > "$log.txt"

# part NAME: the lines the guest printed between the markers.
part()
{
	awk -v n="$1" '
	$0 ~ "^UWDEMO-BEGIN " n "$" { on = 1; next }
	/^UWDEMO-END/ { on = 0 }
	on' "$log.txt"
}
part without > "$log.without"
part with > "$log.with"
if [ "$rc" -ne 0 ] || [ ! -s "$log.without" ] || [ ! -s "$log.with" ]; then
	echo "demo-kernel: the guest failed (status $rc); its console:" >&2
	tail -n 40 "$log.txt" >&2
	exit 1
fi

echo
echo "== perf record -e cpu-clock -g ./leaf-sf  (main -> a -> b -> c; no frame pointers, SFrame)"
echo "== perf report --stdio --no-children, on Debian's 6.1 kernel:"
echo
awk -v w="$W" '
	function cut(s) { return length(s) > w - 1 ? substr(s, 1, w - 2) ">" : s }
	FNR == 1 { f++ }
	f == 1 { l[++nl] = $0 }
	f == 2 { r[++nr] = $0 }
	END {
		printf "%-" w "s%s\n", "WITHOUT uwind.ko (stock kernel walker)", "WITH uwind.ko (SFrame)"
		printf "%-" w "s%s\n", "--------------------------------------", "----------------------"
		n = nl > nr ? nl : nr
		for (i = 1; i <= n; i++)
			printf "%-" w "s%s\n", cut(l[i]), r[i]
	}' "$log.without" "$log.with"
echo
echo "== uwind stats after the second run:"
part stats | grep -E '^(samples|frames_[a-z]+|tables_[a-z]+|stop_[a-z_]+|end_[a-z_]+|scans|lazy_requests) ' |
	tr '\n' ' ' | fold -s -w 100
echo

echo
echo "== A stock program: hot-qsort, built plain -O2 as Debian builds (neither"
echo "== frame pointers nor SFrame), main -> sort_once -> qsort (libc) -> ... -> cmp."
echo "== perf record -e cpu-clock -g ./hot-qsort; the most frequent chains in perf script,"
echo "== innermost first (?FILE: a function perf cannot name; xN: several frames of one"
echo "== function, libc's merge sort recursing):"
for p in "stock-without:WITHOUT uwind.ko (stock kernel walker)" \
    "stock-module:WITH uwind.ko alone (libc has no tables: the chain breaks in it)" \
    "stock-agent:uwind agent (started beside the module; nothing installed by hand) said" \
    "stock-installed:WITH uwind.ko and uwind agent: the tables it made on demand" \
    "stock-tables:uwind status -p of a hot-qsort process"; do
	echo
	echo "-- ${p#*:}:"
	part "${p%%:*}"
done
echo
echo "== uwind stats after the stock runs:"
part stock-stats | grep -E '^(samples|frames_[a-z]+|tables_[a-z]+|installed_[a-z]+|end_[a-z_]+) ' |
	tr '\n' ' ' | fold -s -w 100
echo
