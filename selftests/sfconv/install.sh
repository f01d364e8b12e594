#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind sframe --install` on the host, into a scratch directory (--dir):
# where a table goes (its file's GNU build-id, as readelf -n prints it),
# the header that keys it to the file (the .eh_frame's offset and size
# as readelf -S gives them, its CRC-32 as gzip computes it), the section
# (the bytes `uwind sframe --raw` makes), what a second run does, the
# files it leaves alone, a file without a build-id keyed by its CFI
# instead (DIR/cfi/XX/REST.uwsf: the CRC, size and offset of its
# .eh_frame) and one that cannot be keyed, --pid and --vdso, and that only
# root may write the module's directory.  The kernel module's side (it
# reads them) is tested in the QEMU guest (selftests/kernel).
#
# usage: install.sh BUILD_DIR
set -u
O=${1:-build}
UWIND=$(cd "$O" && pwd)/uwind
BIN=$(cd "$O/selftests/sfconv" && pwd)
. selftests/common/tap.sh
tap_scratch
chmod 755 "$TMP"	# the unprivileged runs below use it
D=$TMP/tables

# u32 FILE OFFSET, u64 FILE OFFSET: little-endian fields.
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }

# gzip's CRC-32 of COUNT bytes of FILE at OFFSET (its trailer's first
# word), an implementation other than uwind's.
gzip_crc()
{
	tail -c +$(($2 + 1)) "$1" | head -c "$3" | gzip -c > "$TMP/crc.gz"
	od -An -tu4 -j $(($(wc -c < "$TMP/crc.gz") - 8)) -N4 "$TMP/crc.gz" |
		tr -d ' '
}

# table_of ID: where the table for build-id ID goes.
table_of() { echo "$D/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-).uwsf"; }

# cfi_table_of FILE: where the table of FILE, which has no build-id, goes:
# by its .eh_frame (readelf -S) and that section's CRC-32 (gzip's).
cfi_table_of()
{
	set -- "$1" $(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 == ".eh_frame" { print $4, $5 }')
	_c=$(gzip_crc "$1" $((0x$2)) $((0x$3)))
	printf '%s/cfi/%02x/%06x%08x%016x.uwsf\n' "$D" $((_c >> 24)) \
		$((_c & 0xffffff)) $((0x$3)) $((0x$2))
}

# byte FILE OFFSET: one byte's value.
byte() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }

tap_begin 16

f=$BIN/crash
id=$(readelf -nW "$f" | awk '/Build ID:/ { print $NF }')
t=$(table_of "$id")
"$UWIND" sframe --install --dir "$D" "$f" > "$TMP/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -f "$t" ] && grep -qx "installed $f $t" "$TMP/out1"
tap_result $? "crash: installed at DIR/XX/REST.uwsf for its build-id ($id)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out1"

set -- $(readelf -SW "$f" | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".eh_frame" { print $4, $5 }')
off=$((0x$1)) size=$((0x$2))
crc=$(gzip_crc "$f" "$off" "$size")
[ "$(u64 "$t" 48)" = "$off" ] && [ "$(u32 "$t" 56)" = "$size" ] &&
	[ "$(u32 "$t" 60)" = "$crc" ]
tap_result $? "crash: the header keys the table to the .eh_frame readelf shows (offset $off, $size bytes) and its CRC-32 as gzip's ($crc)"

"$UWIND" sframe "$f" --raw -o "$TMP/raw"
tail -c +129 "$t" | cmp -s - "$TMP/raw" && [ "$(ls -ln "$t" | cut -c1-10)" = -rw-r--r-- ]
tap_result $? "crash: the section is what uwind sframe --raw makes; mode 0644"

cp -p "$t" "$TMP/before"
"$UWIND" sframe --install --dir "$D" "$f" > "$TMP/out2" 2>&1 &&
	grep -qx "up-to-date $f $t" "$TMP/out2" && cmp -s "$t" "$TMP/before"
tap_result $? "crash again: up to date, the table left as it was"

# A table whose header names other CFI (here: another CRC) is made again.
printf '\000\000\000\000' | dd of="$t" bs=1 seek=60 conv=notrunc 2>/dev/null
"$UWIND" sframe --install --dir "$D" "$f" > "$TMP/out3" 2>&1 &&
	grep -qx "installed $f $t" "$TMP/out3" && cmp -s "$t" "$TMP/before"
tap_result $? "crash with a stale table (other CRC): installed again"

# A file with its own SFrame, one without a build-id.
printf 'int main(void) { return 0; }\n' > "$TMP/p.c"
gcc -O2 -Wa,--gsframe -o "$TMP/own" "$TMP/p.c" &&
	gcc -O2 -Wl,--build-id=none -o "$TMP/noid" "$TMP/p.c" || :
"$UWIND" sframe --install --dir "$D" "$TMP/own" > "$TMP/out4" 2>&1 &&
	grep -qx "own-sframe $TMP/own" "$TMP/out4"
tap_result $? "a program with its own .sframe: left alone, exit 0"
nt=$(cfi_table_of "$TMP/noid")
"$UWIND" sframe --install --dir "$D" "$TMP/noid" "$f" > "$TMP/out5" 2>&1 &&
	grep -qx "installed $TMP/noid $nt" "$TMP/out5" &&
	grep -qx "up-to-date $f $t" "$TMP/out5" &&
	[ "$(byte "$nt" 14)" = 0 ] && [ "$(byte "$nt" 15)" = 2 ]
tap_result $? "a program without a build-id: keyed by its CFI, at $nt (id_len 0, flag 2 in the header)"
"$UWIND" sframe "$TMP/noid" --raw -o "$TMP/noid.raw" &&
	tail -c +129 "$nt" | cmp -s - "$TMP/noid.raw" &&
	"$UWIND" sframe --install --dir "$D" "$TMP/noid" > "$TMP/out5b" 2>&1 &&
	grep -qx "up-to-date $TMP/noid $nt" "$TMP/out5b"
tap_result $? "a program without a build-id: its section is uwind sframe --raw's; up to date the second time"
# The same with its .eh_frame of the x86-64 psABI's type, SHT_X86_64_UNWIND
# (as lld and gold write it; libLLVM's): keyed the same way.
cp "$TMP/noid" "$TMP/unwind"
_i=$(readelf -SW "$TMP/unwind" | sed -n 's/^ *\[ *\([0-9]*\)\] \.eh_frame .*/\1/p')
printf '\001\000\000\160' | dd of="$TMP/unwind" bs=1 conv=notrunc \
	seek=$(($(u64 "$TMP/unwind" 40) + ${_i:-0} * 64 + 4)) 2>/dev/null
"$UWIND" sframe --install --dir "$D" "$TMP/unwind" > "$TMP/out5d" 2>&1 &&
	readelf -SW "$TMP/unwind" | grep -q ' \.eh_frame  *X86_64_UNWIND' &&
	grep -qx "up-to-date $TMP/unwind $nt" "$TMP/out5d"
tap_result $? "the same program with its .eh_frame of type SHT_X86_64_UNWIND: keyed by that section, to the same table"
# Without section headers too (e_shoff, e_shnum, e_shstrndx zeroed): no key.
cp "$TMP/noid" "$TMP/nokey"
dd if=/dev/zero of="$TMP/nokey" bs=1 seek=40 count=8 conv=notrunc 2>/dev/null
dd if=/dev/zero of="$TMP/nokey" bs=1 seek=60 count=4 conv=notrunc 2>/dev/null
"$UWIND" sframe --install --dir "$D" "$TMP/nokey" "$f" > "$TMP/out5c" 2>&1
[ $? -eq 1 ] &&
	grep -qx "failed $TMP/nokey: no GNU build-id and no CFI section to key a table to" "$TMP/out5c" &&
	grep -qx "up-to-date $f $t" "$TMP/out5c"
tap_result $? "a program with neither a build-id nor section headers: failed (exit 1), the others still done"

# A live process: its program, libc, ld.so and the vDSO.
tap_start_stopped "$BIN/crash" stop
"$UWIND" sframe --install --dir "$D" --pid "$pid" > "$TMP/out6" 2>&1
rc=$?
kill -9 "$pid" 2>/dev/null
[ $rc -eq 0 ] && grep -q "^up-to-date $f " "$TMP/out6" &&
	grep -q "^installed [^ ]*libc.so.6 " "$TMP/out6" &&
	grep -q "^installed [^ ]*ld-linux-x86-64.so.2 " "$TMP/out6" &&
	grep -q '^installed \[vdso\] ' "$TMP/out6"
tap_result $? "--pid: the program (up to date), libc, ld.so and the vDSO"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out6"

# Found by --pid: a file that can have no table is skipped, not failed.
printf '#include <unistd.h>\nint main(void) { pause(); return 0; }\n' > "$TMP/w.c"
gcc -O2 -Wl,--build-id=none -o "$TMP/wait" "$TMP/w.c" || :
"$TMP/wait" &
pid=$!
PIDS="${PIDS:-} $pid"
sleep 0.2
"$UWIND" sframe --install --dir "$D" --pid "$pid" > "$TMP/out10" 2>&1 &&
	grep -qx "installed $TMP/wait $(cfi_table_of "$TMP/wait")" "$TMP/out10" &&
	grep -q "^uwind: .* 0 skipped, 0 failed$" "$TMP/out10"
tap_result $? "--pid of a program without a build-id: its table keyed by its CFI, the rest done, exit 0"
kill -9 "$pid" 2>/dev/null

# The vDSO: its image (crash vdso writes it), its build-id, its table.
"$BIN/crash" vdso > "$TMP/vdso.so"
vid=$(readelf -nW "$TMP/vdso.so" | awk '/Build ID:/ { print $NF }')
"$UWIND" sframe --install --dir "$D" --vdso > "$TMP/out7" 2>&1 &&
	[ -n "$vid" ] && [ -f "$(table_of "$vid")" ] &&
	grep -q "^[a-z-]* \[vdso\] $(table_of "$vid")$" "$TMP/out7"
tap_result $? "--vdso: the vDSO's table, for its build-id ($vid)"
"$UWIND" sframe "$TMP/vdso.so" --raw -o "$TMP/vdso.raw" &&
	tail -c +129 "$(table_of "$vid")" | cmp -s - "$TMP/vdso.raw"
tap_result $? "--vdso: the table is the one made from the image crash vdso writes"

# Only root writes the module's directory; a user may use --dir.  The
# user runs copies of the tool and the program in the scratch directory:
# the checkout may sit under a directory only its owner can enter (a
# clone under `mktemp -d`, a home directory of mode 0700).
mkdir -p "$TMP/user" && chmod 777 "$TMP/user"
cp "$UWIND" "$TMP/user/uwind" && cp "$f" "$TMP/user/crash" &&
	chmod 755 "$TMP/user/uwind" "$TMP/user/crash"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$TMP/user/uwind" sframe --install "$TMP/user/crash" > "$TMP/out8" 2>&1
[ $? -eq 1 ] && grep -q "only root" "$TMP/out8"
tap_result $? "a user without --dir: refused, exit 1"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$TMP/user/uwind" sframe --install --dir "$TMP/user/t" \
	"$TMP/user/crash" > "$TMP/out9" 2>&1 &&
	[ -f "$TMP/user/t/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).uwsf" ]
rc=$?
tap_result $rc "a user with --dir: installed there"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out9"
tap_end
