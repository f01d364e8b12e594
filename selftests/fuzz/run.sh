#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Run a fuzz target: first every seed once, then SECONDS (FUZZ_TIME
# when set) of fuzzing in one process, starting from a scratch copy of
# the seed corpus.  Any crash, sanitizer report, timeout or failed
# property is a failure; the reproducer is printed in hex with the
# command that replays it.  A comment line sums the run up:
#   # FUZZ name execs=N cov=N findings=N
# (`make fuzz` prints those).
#
# Usage: run.sh FUZZDIR [TARGET [SECONDS]]   (FUZZDIR holds the targets
# and their corpora from make: corpus/ for fuzz_sframe, corpus-TARGET/
# for the others; a target without one starts from nothing)
set -u
. "$(dirname "$0")/../common/tap.sh"

dir=${1:-build/selftests/fuzz}
name=${2:-fuzz_sframe}
bin=$dir/$name
time=${FUZZ_TIME:-${3:-30}}
work=$dir/work-$name
art=$dir/artifacts-$name/
log=$dir/$name.log
corpus=$dir/corpus-$name
[ "$name" = fuzz_sframe ] && corpus=$dir/corpus
[ -d "$corpus" ] || corpus=
# The formats whose seeds are whole sections and symbol files take more.
case $name in
fuzz_compact|fuzz_breakpad) maxlen=65536 ;;
*) maxlen=4096 ;;
esac

tap_begin 2

if [ ! -x "$bin" ] || { [ -n "$corpus" ] && [ ! -d "$corpus" ]; }; then
	tap_not_ok "$name replays the seed corpus # $bin or corpus missing (make build-all)"
	tap_not_ok "$name ${time}s without findings # not built"
	exit 0
fi

report() {
	# From the first report line (sanitizer, failed check, signal,
	# timeout) on; else the end of the log.
	first=$(grep -nE 'ERROR: |runtime error|check failed|deadly signal|ALARM|out-of-memory' \
		"$log" | head -1 | cut -d: -f1)
	if [ -n "$first" ]; then
		sed -n "$first,\$p" "$log" | head -60 | sed 's/^/# /'
	else
		tail -40 "$log" | sed 's/^/# /'
	fi
	for f in "$art"*; do
		[ -f "$f" ] || continue
		echo "# reproducer $f ($(wc -c <"$f") bytes), replay with: $bin $f"
		od -An -tx1 -v "$f" | head -64 | sed 's/^/#  /'
	done
}

rm -rf "$work" "$art"
mkdir -p "$work" "$art"
if [ -n "$corpus" ]; then
	cp "$corpus"/* "$work"/
else
	# Without a corpus: one empty and one all-zero input to start from.
	: >"$work/empty"
	head -c 64 /dev/zero >"$work/zeros"
fi
nseeds=$(ls "$work" | wc -l)

# 1: each seed once
# shellcheck disable=SC2046
if "$bin" -artifact_prefix="$art" $(ls "$work"/* | sort) >"$log" 2>&1 &&
	[ "$nseeds" -gt 0 ]; then
	tap_ok "$name replays $nseeds seeds cleanly"
else
	report
	tap_not_ok "$name replays $nseeds seeds cleanly"
fi

# 2: fuzz
rm -rf "$art"
mkdir -p "$art"
"$bin" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
	-max_len=$maxlen -print_final_stats=1 \
	-artifact_prefix="$art" "$work" >"$log" 2>&1
rc=$?
findings=$(ls "$art" | wc -l)
[ $rc -ne 0 ] && [ "$findings" -eq 0 ] && findings=1
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
echo "# FUZZ $name execs=${execs:-0} cov=${cov:-0} findings=$findings"
if [ "$findings" -eq 0 ]; then
	grep -E '^stat::(number_of_executed_units|new_units_added)|cov:' "$log" |
		tail -3 | sed 's/^/# /'
	tap_ok "$name ${time}s from $nseeds seeds without findings"
else
	report
	tap_not_ok "$name ${time}s from $nseeds seeds without findings"
fi
tap_end
