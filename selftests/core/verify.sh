#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind verify`: the core's whole-table checks on real tables built here
# (x86-64 SFrame, ARM EHABI, and the Chrome table `uwind convert` makes),
# their sizes against binutils' own readers, and the same tables broken
# on purpose.  Prints TAP.
#
# Usage: verify.sh UWIND DIR   (DIR holds vprog-x86_64 and vprog-arm)
set -u

uwind=$1
dir=$2
work=$dir/verify
. selftests/common/tap.sh
tap_begin 9
rm -rf "$work"
mkdir -p "$work"

# 1. x86-64 SFrame: passes; its FDE count is objdump's.
out=$("$uwind" verify "$dir/vprog-x86_64")
st=$?
echo "$out" | sed 's/^/# /'
fdes=$(objdump --sframe "$dir/vprog-x86_64" | awk '/Num FDEs:/ { print $3 }')
echo "$out" | grep -q ": ok (SFrame V[0-9], $fdes FDEs" && [ $st -eq 0 ] &&
	[ -n "$fdes" ]
tap_result $? "x86-64 SFrame table passes, $fdes FDEs as objdump --sframe counts"

# 2. The same section raw, FDE 1's start pushed past FDE 2's: unsorted.
objcopy -O binary --only-section=.sframe "$dir/vprog-x86_64" "$work/raw"
vaddr=$(readelf -SW "$dir/vprog-x86_64" | awk '$2 == ".sframe" { print "0x" $4 }')
"$uwind" verify --sframe "$work/raw" --vaddr "$vaddr" >/dev/null
tap_result $? "the raw section at its address passes"
ver=$(od -An -tu1 -j2 -N1 "$work/raw" | tr -d ' ')
fdeoff=$(od -An -tu4 -j20 -N4 "$work/raw" | tr -d ' ')
fdesz=$([ "$ver" = 1 ] && echo 17 || echo 20)
cp "$work/raw" "$work/unsorted"
printf '\377\377\377\177' | dd of="$work/unsorted" bs=1 conv=notrunc \
	seek=$((28 + fdeoff + fdesz)) 2>/dev/null
out=$("$uwind" verify --sframe "$work/unsorted" --vaddr "$vaddr")
st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 1 ] && echo "$out" | grep -q ": FDE 2: table not sorted"
tap_result $? "FDE 1 moved past FDE 2: refused at FDE 2, exit 1"

# 3. The header's FRE count cut to 1: the FDEs claim more FREs.
cp "$work/raw" "$work/fres"
printf '\001\000\000\000' | dd of="$work/fres" bs=1 conv=notrunc seek=12 \
	2>/dev/null
out=$("$uwind" verify --sframe "$work/fres" --vaddr "$vaddr")
st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 1 ] && echo "$out" | grep -q ": FDE [0-9]*: malformed table entry"
tap_result $? "a header counting fewer FREs than the FDEs claim: refused, exit 1"

# 4. ARM EHABI: passes; its entry count is readelf -u's.
out=$("$uwind" verify "$dir/vprog-arm")
st=$?
echo "$out" | sed 's/^/# /'
ents=$(arm-linux-gnueabihf-readelf -u "$dir/vprog-arm" |
	sed -n "s/.*'.ARM.exidx' .* contains \([0-9]*\) entries.*/\1/p" |
	head -1)
echo "$out" | grep -q ".ARM.exidx: ok ($ents entries)" && [ $st -eq 0 ] &&
	[ -n "$ents" ]
tap_result $? "ARM EHABI index passes, $ents entries as readelf -u counts"

# 5. The Chrome table uwind makes from it: passes.
if "$uwind" convert --breakpad "$dir/vprog-arm" >"$work/arm.sym" &&
	"$uwind" convert --chrome "$work/arm.sym" -o "$work/arm.chrome"; then
	out=$("$uwind" verify --chrome "$work/arm.chrome")
	st=$?
	echo "$out" | sed 's/^/# /'
	[ $st -eq 0 ] && echo "$out" | grep -q ": ok (Chrome table"
	tap_result $? "the Chrome table made from its CFI passes"
else
	tap_result 1 "the Chrome table made from its CFI passes # convert failed"
fi

# 6. ... with its instruction table cut to nothing: every sequence is out.
cp "$work/arm.chrome" "$work/cut.chrome"
printf '\000\000\000\000' | dd of="$work/cut.chrome" bs=1 conv=notrunc \
	seek=28 2>/dev/null
out=$("$uwind" verify --chrome "$work/cut.chrome")
st=$?
echo "$out" | sed 's/^/# /'
[ $st -eq 1 ] && echo "$out" | grep -q ": function 0: malformed table entry"
tap_result $? "a Chrome table with an empty instruction table: refused at function 0"

# 7. Usage errors are status 2.
"$uwind" verify --chrome >/dev/null 2>&1
[ $? -eq 2 ]
tap_result $? "verify with a missing argument: exit 2"

# 8. A file that is no ELF: status 1.
"$uwind" verify "$work/raw" >/dev/null 2>&1
[ $? -eq 1 ]
tap_result $? "verify on a file that is no ELF: exit 1"
tap_end
