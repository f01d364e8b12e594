#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Benchmarks (not tests) of `uwind sframe`, the DWARF CFI to SFrame
# converter, on Debian's own files: its speed in MB (10^6 bytes) of
# .eh_frame converted per second (the conversion itself, timed in one
# process on a file already open: list the FDEs, read every row with
# libdw, encode, read the table back; best of 7), a whole run of the
# tool for comparison (process start, open, convert, write; best of 5),
# and the size of the SFrame section made against the .eh_frame it came
# from.
#   BENCH sfconv.NAME.speed       MB/s, the conversion
#   BENCH sfconv.NAME.tool        ms, a whole `uwind sframe FILE -o OUT`
#   BENCH sfconv.NAME.eh_frame    bytes of DWARF CFI
#   BENCH sfconv.NAME.sframe      bytes of the SFrame section made
#   BENCH sfconv.NAME.size        SFrame / .eh_frame, percent
#   BENCH sfconv.NAME.rss         kB, peak RSS (GNU time) of
#                                 `uwind sframe --install FILE`, which
#                                 converts as `uwind agent` does
#   BENCH sfconv.NAME.rss_table   that RSS / the table installed
#   BENCH sfconv.install.first    ms, `uwind sframe --install` of libc,
#                                 libstdc++ and ld.so into an empty directory
#   BENCH sfconv.install.again    ms, the same again (all up to date)
set -eu
O=${O:-build}
UWIND=$O/uwind
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

BENCH=$O/selftests/sfconv/sfconv_bench
make -s --no-print-directory O="$O" "$UWIND" "$BENCH"

now()
{
	date +%s%N
}

for spec in libc:/lib/x86_64-linux-gnu/libc.so.6 \
	    libstdcxx:/usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
	    ldso:/lib64/ld-linux-x86-64.so.2 \
	    python3:/usr/bin/python3.11 \
	    a64-libc:/usr/aarch64-linux-gnu/lib/libc.so.6 \
	    libllvm:/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1; do
	name=${spec%%:*}
	f=${spec#*:}
	[ -r "$f" ] || { echo "# $f missing"; continue; }
	# shellcheck disable=SC2046
	set -- $("$BENCH" "$f" 7)
	cfi=$2 sf=$4 ns=$6
	best=0
	for i in 1 2 3 4 5; do
		t0=$(now)
		"$UWIND" sframe "$f" -o "$TMP/out"
		t1=$(now)
		d=$((t1 - t0))
		[ $best -eq 0 ] || [ $d -lt $best ] && best=$d
	done
	echo "BENCH sfconv.$name.speed $(awk -v b="$cfi" -v ns="$ns" \
		'BEGIN { printf "%.1f", b / (ns / 1e9) / 1e6 }') MB/s"
	echo "BENCH sfconv.$name.tool $(awk -v ns="$best" \
		'BEGIN { printf "%.1f", ns / 1e6 }') ms"
	echo "BENCH sfconv.$name.eh_frame $cfi bytes"
	echo "BENCH sfconv.$name.sframe $sf bytes"
	echo "BENCH sfconv.$name.size $(awk -v a="$sf" -v b="$cfi" \
		'BEGIN { printf "%.1f", 100 * a / b }') %"
	rm -rf "$TMP/rss"
	/usr/bin/time -f %M -o "$TMP/rss.kb" "$UWIND" sframe --install \
		--dir "$TMP/rss" "$f" > /dev/null
	kb=$(tail -n 1 "$TMP/rss.kb")
	tb=$(find "$TMP/rss" -name '*.uwsf' -exec cat {} + | wc -c)
	echo "BENCH sfconv.$name.rss $kb kB"
	echo "BENCH sfconv.$name.rss_table $(awk -v a="$kb" -v b="$tb" \
		'BEGIN { if (b) printf "%.1f", a * 1024 / b }') x"
done

# uwind sframe --install of libc, libstdc++ and ld.so into a scratch
# directory: converted and written, then again (each up to date: a CRC
# of its .eh_frame), best of 3 each.
set -- /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
	/lib64/ld-linux-x86-64.so.2
for kind in first again; do
	best=0
	for i in 1 2 3; do
		[ $kind = again ] || rm -rf "$TMP/inst"
		t0=$(now)
		"$UWIND" sframe --install --dir "$TMP/inst" "$@" > "$TMP/inst.out"
		t1=$(now)
		d=$((t1 - t0))
		[ $best -eq 0 ] || [ $d -lt $best ] && best=$d
	done
	echo "BENCH sfconv.install.$kind $(awk -v ns="$best" \
		'BEGIN { printf "%.1f", ns / 1e6 }') ms"
done
