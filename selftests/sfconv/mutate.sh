#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Light fuzzing of the converter's input: programs whose .eh_frame (and
# .eh_frame_hdr) have a few bytes changed (sfmutate, deterministic
# seeds).  `uwind sframe` must exit 0 (a table, which it has read back
# whole with the core before writing it) or 1 (an error message, not an
# internal error: a table it made that reads back wrong), never crash,
# hang or exit otherwise, and `uwind dump` must read every table it
# wrote.  The ASan stage runs this again with the sanitized tool.
#
# Agreement with libdw is not asked here: on broken CFI (FDEs that
# overlap, an .eh_frame_hdr table that contradicts them) libdw's answer
# for a pc depends on the lookups made before it, so there is no one
# reading to agree with.  sfconv.sh checks agreement on real files.
#
# usage: mutate.sh BUILD_DIR [ITERATIONS]
set -u
O=${1:-build}
N=${2:-${SFCONV_MUTATIONS:-150}}
UWIND=$O/uwind
MUT=$O/selftests/sfconv/sfmutate
W=$O/selftests/sfconv/mutate
mkdir -p "$W"
. selftests/common/tap.sh

tap_begin 2
gcc -O2 -fomit-frame-pointer -o "$W/x86" selftests/diff/src/frames.c \
	2>"$W/build.log"
aarch64-linux-gnu-gcc -O2 -mbranch-protection=standard -o "$W/a64" \
	selftests/diff/src/frames.c 2>>"$W/build.log"

for arch in x86 a64; do
	i=0 made=0 refused=0 bad=0
	while [ $i -lt "$N" ]; do
		i=$((i + 1))
		"$MUT" "$i" "$W/$arch" "$W/m" || { bad=$((bad + 1)); continue; }
		timeout 20 "$UWIND" sframe "$W/m" -o "$W/m.uwsf" \
			>/dev/null 2>"$W/m.err"
		rc=$?
		if [ $rc -eq 0 ] &&
		   timeout 20 "$UWIND" dump "$W/m.uwsf" >/dev/null 2>>"$W/m.err"
		then
			made=$((made + 1))
			continue
		fi
		if [ $rc -eq 1 ] && [ -s "$W/m.err" ] &&
		   ! grep -q 'internal error' "$W/m.err"; then
			refused=$((refused + 1))
			continue
		fi
		bad=$((bad + 1))
		if [ $bad -le 3 ]; then
			echo "# $arch seed $i: exit $rc"
			sed 's/^/#   /' "$W/m.err" | head -5
			cp "$W/m" "$W/bad-$arch-$i"
		fi
	done
	echo "# $arch: $N mutations: $made tables, $refused refused with an error"
	if [ $bad -eq 0 ] && [ $made -gt 0 ]; then
		tap_ok "$arch: $N broken .eh_frame: a table or an error, never a crash"
	else
		tap_not_ok "$arch: $bad of $N broken .eh_frame crashed, hung or exited oddly"
	fi
done
tap_end
