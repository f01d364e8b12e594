#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Differential SFrame tests against independent oracles.
#
# Builds programs with varied frames for x86-64 (gcc) and AArch64
# (aarch64-linux-gnu-gcc), all with -Wa,--gsframe, adds any binary of
# this machine that carries .sframe, and for each file checks:
#   (a) `uwind dump` agrees with `objdump --sframe` on every FDE and FRE;
#   (b) at every instruction address (from `objdump -d`), the rule from
#       `uwind lookup` agrees with the .eh_frame rule read by libdw
#       (dwarf_rules) wherever SFrame can express it.
#
# usage: diff.sh [BUILD_DIR]
set -u
O=${1:-build}
. "$(dirname "$0")/../common/tap.sh"
. "$(dirname "$0")/dumpcmp.sh"
DR=$O/selftests/diff/dwarf_rules
W=$O/selftests/diff/work

mkdir -p "$W"
: >"$W/list"
: >"$W/build.log"

# build NAME ARCH CC FLAGS... -- SRC
build()
{
	name=$1 arch=$2 cc=$3
	shift 3
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "$name $arch - $cc not installed" >>"$W/list"
		return
	fi
	if "$cc" "$@" -o "$W/$name" >>"$W/build.log" 2>&1; then
		echo "$name $arch $W/$name" >>"$W/list"
	else
		echo "$name $arch ! build failed" >>"$W/list"
	fi
}

X86="-O2 -fomit-frame-pointer -Wa,--gsframe"
A64="-O2 -Wa,--gsframe"
for s in frames many; do
	build "$s-x86_64-O2" x86_64 gcc $X86 "$SRC/$s.c"
	build "$s-x86_64-O0" x86_64 gcc -O0 -Wa,--gsframe "$SRC/$s.c"
	build "$s-aarch64-O2" aarch64 aarch64-linux-gnu-gcc $A64 "$SRC/$s.c"
	build "$s-aarch64-O0" aarch64 aarch64-linux-gnu-gcc -O0 -Wa,--gsframe \
		"$SRC/$s.c"
done
build frames-x86_64-O2-fp x86_64 gcc -O2 -fno-omit-frame-pointer \
	-Wa,--gsframe "$SRC/frames.c"
build frames-x86_64-Os x86_64 gcc -Os -fomit-frame-pointer -Wa,--gsframe \
	"$SRC/frames.c"
build frames-aarch64-O2-pac aarch64 aarch64-linux-gnu-gcc $A64 \
	-mbranch-protection=standard "$SRC/frames.c"
build lib-x86_64-O2.so x86_64 gcc $X86 -fPIC -shared "$SRC/lib.c"
build lib-x86_64-O0.so x86_64 gcc -O0 -Wa,--gsframe -fPIC -shared "$SRC/lib.c"
build lib-aarch64-O2.so aarch64 aarch64-linux-gnu-gcc $A64 -fPIC -shared \
	"$SRC/lib.c"

# This machine's own binaries that carry .sframe (usually none).  grep
# narrows the candidates cheaply; readelf confirms the section.
sys=0
for f in $(grep -lsF '.sframe' /usr/bin/* /usr/lib/*.so* \
		/usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null); do
	[ -f "$f" ] || continue
	readelf -SW "$f" 2>/dev/null | grep -q ' \.sframe ' || continue
	case $(readelf -h "$f" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
	*X86-64*) arch=x86_64 ;;
	*AArch64*) arch=aarch64 ;;
	*) continue ;;
	esac
	echo "$(basename "$f") $arch $f" >>"$W/list"
	sys=$((sys + 1))
done

n=$(wc -l <"$W/list")
tap_begin $((2 * n))
# Not a test: the system's own binaries join the list when they carry
# SFrame (none do on Debian 12).
echo "# $sys system binaries with .sframe in /usr/bin, /usr/lib"

lookup_test()
{
	name=$1 arch=$2 f=$3
	od=objdump
	[ "$arch" = aarch64 ] && od=aarch64-linux-gnu-objdump
	if ! command -v "$od" >/dev/null 2>&1; then
		tap_ok "$name: lookup = DWARF CFI # SKIP $od not installed"
		return
	fi
	"$od" -d --no-show-raw-insn "$f" |
		awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print "0x" $1 }' \
		>"$W/$name.addr"
	xargs "$TOOL" lookup "$f" <"$W/$name.addr" >"$W/$name.sf" \
		2>"$W/$name.sf.err"
	"$DR" "$f" <"$W/$name.addr" >"$W/$name.dw" 2>"$W/$name.dw.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		sed 's/^/# /' "$W/$name.dw.err" | head -5
		tap_not_ok "$name: dwarf_rules failed"
		return
	fi
	if awk -v arch="$arch" -v name="$name" -f "$HERE/hex.awk" -f "$HERE/rules_cmp.awk" \
		"$W/$name.od.n" "$W/$name.sf" "$W/$name.dw"; then
		tap_ok "$name: uwind lookup = DWARF CFI at every instruction"
	else
		tap_not_ok "$name: uwind lookup differs from DWARF CFI"
	fi
}

while read -r name arch f rest; do
	case $f in
	-)
		tap_ok "$name: dump = objdump # SKIP $rest"
		tap_ok "$name: lookup = DWARF CFI # SKIP $rest"
		continue ;;
	!)
		sed 's/^/# /' "$W/build.log" | tail -5
		tap_not_ok "$name: $rest"
		tap_not_ok "$name: $rest"
		continue ;;
	esac
	sframe_dump_test "$W/$name" "$name" "$arch" "$f"
	lookup_test "$name" "$arch" "$f"
done <"$W/list"
tap_end
