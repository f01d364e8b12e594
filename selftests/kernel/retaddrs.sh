#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# retaddrs.sh [-a aarch64 -r SYSROOT] [-k VMLINUX] [-f HOST=GUEST]...
# [-i HOST=GUEST] [PROGRAM]...: every return address of the
# programs, of the libraries they load (ldd) and of the guest kernel's
# vDSO, as "PATH OFFSET" lines (OFFSET: the file vaddr, in hex, of the
# instruction after a call: the address perf script prints), with PATH as
# the test guest sees the file: /root/NAME for a program, the library's
# own path, [vdso]; then "PLT PATH ADDR", every address in the PLT
# sections of each program (a sample in a stub: perf names it NAME@plt,
# or after the section before it), "ENTRY PATH ADDR", the first 64
# addresses from the dynamic linker's entry point (PATH its path), where
# start-up chains end, and "VDSO BUILD-ID".
# -f: a file the guest has at GUEST (as a program, its PLT too), -i: the
# dynamic linker at GUEST (its entry too), both read here from HOST: the
# files of a container, whose paths no ldd here knows.
# The guest checks with it that every caller frame of a sample is a call
# site (selftests/kernel/guest-inst.sh): a frame an unwinder made up from
# a stale stack slot or a wrong rule almost never is.
#
# The vDSO is the image built into VMLINUX (the kernel the guest boots,
# scripts/extract-vmlinux.sh): the one x86-64 ELF shared object in it,
# found by its header and cut at its section headers' end.
#
# -a aarch64: the files are AArch64 (the arm64 guest's): read with the
# cross binutils, a call is bl or blr (blraa, blrab, their z forms:
# pointer authentication) and returns 4 bytes on; the libraries are found
# by their DT_NEEDED names in SYSROOT (-r: the guest's userland), and
# named by where the guest has them (scripts/mkinitramfs.sh puts them
# there: /lib/aarch64-linux-gnu, else /usr/lib/aarch64-linux-gnu; the
# dynamic linker at the path programs ask for); the vDSO is the one
# AArch64 shared object in the kernel's Image.
set -eu
. "$(dirname "$0")/host-lib.sh"	# in_root

vmlinux="" files="" interp="" arch=x86_64 sysroot=""
while [ $# -gt 1 ]; do
	case $1 in
	-a) arch=$2 ;;
	-r) sysroot=$2 ;;
	-k) vmlinux=$2 ;;
	-f) files="$files $2" ;;
	-i) interp=$2 ;;
	*) break ;;
	esac
	shift 2
done
case $arch in
x86_64) tp="" em='\x3e' ;;
aarch64) tp=aarch64-linux-gnu- em='\xb7' ;;
*) echo "retaddrs: no such architecture: $arch" >&2; exit 1 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# An awk function: the value of hex digits x (mawk has no strtonum).
HEX='function hex(x,   i, v) {
	v = 0
	for (i = 1; i <= length(x); i++)
		v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
	return v
}'

# calls FILE GUESTPATH: objdump's instructions, one a line with all
# their bytes (-w, --insn-width): the address after each call.
calls()
{
	${tp}objdump -d -w --insn-width=16 "$1" |
	awk -v path="$2" -v arch="$arch" "$HEX"'
	/^ *[0-9a-f]+:\t/ {
		split($0, p, "\t")
		if (arch == "aarch64") {
			if (p[3] !~ /^(bl|blr|blraaz?|blrabz?)$/)
				next
			n = 4
		} else {
			if (p[3] !~ /^(call|callq|bnd call|notrack call)/)
				next
			n = split(p[2], b, " ")
		}
		a = p[1]
		sub(/^ */, "", a)
		sub(/:$/, "", a)
		printf "%s %x\n", path, hex(a) + n
	}'
}

# needed FILE...: "HOST GUEST" for each library the files load, and
# theirs, by DT_NEEDED in SYSROOT (AArch64).
needed()
{
	_todo="$*" _seen=" "
	while [ -n "$_todo" ]; do
		set -- $_todo
		_f=$1
		shift
		_todo=$*
		for _n in $(${tp}readelf -dW "$_f" |
		    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case $_seen in *" $_n "*) continue ;; esac
			_seen="$_seen$_n "
			for _d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu; do
				[ -e "$sysroot$_d/$_n" ] || continue
				_h=$(in_root "$sysroot" "$_d/$_n")
				echo "$_h $_d/$_n"
				_todo="$_todo $_h"
				break
			done
		done
	done
}

# plts FILE GUESTPATH: "PLT GUESTPATH ADDR" for every byte of each PLT
# section (the guest looks addresses up; its busybox awk is slow at
# arithmetic).
plts()
{
	${tp}readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk -v path="$2" "$HEX"'
	$1 ~ /^\.plt(\.got|\.sec)?$/ {
		for (a = hex($3); a < hex($3) + hex($5); a++)
			printf "PLT %s %x\n", path, a
	}'
}

# vdso VMLINUX OUT: the vDSO image in VMLINUX, to OUT.
vdso()
{
	off=$(LC_ALL=C grep -obUaP \
		"\\x7fELF\\x02\\x01\\x01\\x00{9}\\x03\\x00$em\\x00" "$1" | cut -d: -f1)
	[ "$(echo "$off" | wc -w)" -eq 1 ] || {
		echo "retaddrs: not one $arch shared object in $1: $off" >&2
		return 1
	}
	shoff=$(od -An -tu8 -j $((off + 40)) -N8 "$1" | tr -d ' ')
	set -- "$1" "$2" $(od -An -tu2 -j $((off + 58)) -N4 "$1")
	tail -c +$((off + 1)) "$1" | head -c $((shoff + $3 * $4)) > "$2"
}

libs=""
for f in $files; do
	calls "${f%%=*}" "${f#*=}"
	plts "${f%%=*}" "${f#*=}"
done
if [ -n "$interp" ]; then
	calls "${interp%%=*}" "${interp#*=}"
else
	for p; do
		i=$(${tp}readelf -lW "$p" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
		[ -z "$i" ] || interp=$i=$i
		[ -z "$i" ] || [ "$arch" = x86_64 ] || interp=$(in_root "$sysroot" "$i")=$i
	done
fi
for p; do
	calls "$p" "/root/${p##*/}"
	plts "$p" "/root/${p##*/}"
	[ "$arch" = x86_64 ] || continue
	libs="$libs $(ldd "$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')"
done
if [ "$arch" = x86_64 ]; then
	for l in $(echo "$libs" | tr ' ' '\n' | sort -u); do
		calls "$l" "$l"
	done
else
	: > "$tmp/libs"
	[ $# -eq 0 ] || needed "$@" | sort -u -k2,2 > "$tmp/libs"
	while read -r h g; do
		calls "$h" "$g"
	done < "${tmp}/libs"
	# The dynamic linker, where programs ask for it (ldd's line for x86).
	[ -z "$interp" ] || [ $# -eq 0 ] || calls "${interp%%=*}" "${interp#*=}"
fi
[ -n "$interp" ] && ${tp}readelf -hW "${interp%%=*}" | awk -v path="${interp#*=}" "$HEX"'
	/Entry point address:/ {
		sub(/^0x/, "", $4)
		for (a = hex($4); a < hex($4) + 64; a++)
			printf "ENTRY %s %x\n", path, a
	}'
if [ -n "$vmlinux" ]; then
	vdso "$vmlinux" "$tmp/vdso.so"
	calls "$tmp/vdso.so" "[vdso]"
	echo "VDSO $(${tp}readelf -nW "$tmp/vdso.so" | awk '/Build ID:/ { print $NF }')"
fi
