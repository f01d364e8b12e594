#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# What every subcommand does with a file that is not what it reads: a
# directory, /dev/zero, a FIFO (no whole-file reads: it is refused
# before anything is read, and nothing blocks), an empty file, random
# bytes, a truncated ELF file, a program without tables.  Each is an
# input error: exit 1, one line on stderr, "uwind: FILE: why", the why
# naming the real cause.  And a large file costs what the tool reads of
# it, not its size: a program padded to 1 GiB is read with little memory.
#
# usage: files.sh BUILD_DIR
. selftests/tool/lib.sh

# The commands, FILE standing for the input.
ELF_CMDS="dump@FILE
lookup@FILE@0x10
verify@FILE
sframe@FILE@-o@OUT
sframe@--check@FILE
convert@--breakpad@FILE"
RAW_CMDS="dump@--sframe@FILE@--vaddr@0
lookup@--sframe@FILE@--vaddr@0@10
verify@--sframe@FILE@--vaddr@0
dump@--chrome@FILE@--text@0
lookup@--chrome@FILE@--text@0@10
verify@--chrome@FILE
lookup@--breakpad@FILE@10
verify@--breakpad@FILE
convert@--chrome@FILE@-o@OUT
stack@--core@FILE"

# run FILE CMD: the command (@ between words) on FILE, 10 s at most;
# rc, out and err in $TMP.
run()
{
	set -f
	# shellcheck disable=SC2046
	set -- "$1" $(echo "$2" | sed "s|FILE|$1|; s|OUT|$TMP/out.bin|" | tr '@' ' ')
	set +f
	shift
	rm -f "$TMP/out.bin"
	timeout 10 "$UWIND" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# refused FILE WHY CMDS: every command refuses FILE, exit 1, with one
# line "uwind: FILE: ...WHY..." on stderr and nothing on stdout.
refused()
{
	bad=0
	for c in $3; do
		run "$1" "$c"
		if [ $rc -ne 1 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ] ||
		   ! grep -q "^uwind: $1: .*$2" "$TMP/err" || [ -s "$TMP/out" ]; then
			echo "# $(echo "$c" | tr '@' ' '): exit $rc: $(head -c 300 "$TMP/err")"
			bad=1
		fi
	done
	return $bad
}

tap_begin 11

mkdir "$TMP/dir"
refused "$TMP/dir" "is a directory" "$ELF_CMDS $RAW_CMDS"
tap_result $? "a directory: every command says it is a directory, exit 1"

refused /dev/zero "not a regular file" "$ELF_CMDS $RAW_CMDS"
tap_result $? "/dev/zero: every command refuses it at once (not a regular file), exit 1"

mkfifo "$TMP/fifo"
refused "$TMP/fifo" "not a regular file" "$ELF_CMDS $RAW_CMDS"
tap_result $? "a FIFO nobody writes: refused at once, nothing blocks, exit 1"

: >"$TMP/empty"
refused "$TMP/empty" "empty" "$ELF_CMDS $RAW_CMDS"
tap_result $? "an empty file: every command says it is empty, exit 1"

head -c 4096 /dev/urandom | tr '\177' x >"$TMP/random"
refused "$TMP/random" "not an ELF" "$ELF_CMDS"
tap_result $? "random bytes: not an ELF file, exit 1"
refused "$TMP/random" "not a Breakpad symbol file" \
	"lookup@--breakpad@FILE@10 verify@--breakpad@FILE"
tap_result $? "random bytes as a Breakpad file: not a Breakpad symbol file (it was 'unsupported architecture'), exit 1"

head -c 2000 "$P" >"$TMP/trunc"
refused "$TMP/trunc" "truncated" "$ELF_CMDS"
tap_result $? "the first 2000 bytes of a program: a truncated ELF file, exit 1"

printf 'int main(void) { return 0; }\n' >"$TMP/p.c"
gcc -O2 -fno-asynchronous-unwind-tables -o "$TMP/notab" "$TMP/p.c" &&
	strip -R .eh_frame -R .eh_frame_hdr "$TMP/notab" 2>/dev/null
refused "$TMP/notab" "no .*\(SFrame\|CFI\|unwind\)" "dump@FILE lookup@FILE@10 verify@FILE"
tap_result $? "a program without any table: 'no ... tables', exit 1"

refused "$P" "not an ELF core" "stack@--core@FILE"
tap_result $? "a program given as a core: not an ELF core file, exit 1"

# A program padded to 1 GiB with a hole: the tool maps it and reads the
# pages it needs.  ru_maxrss (KiB) of the command, which must stay under
# 256 MiB (the whole file read would need 1 GiB).
cp "$P" "$TMP/big" && truncate -s 1G "$TMP/big"
maxrss()
{
	python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, timeout=120)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
bad=0
for c in "dump" "lookup@@0x10" "verify" "sframe@--check" "convert@--breakpad"; do
	set -f
	# shellcheck disable=SC2046
	set -- $(echo "$c" | sed "s|@@|@$TMP/big@|" | tr '@' ' ')
	set +f
	[ $# -eq 1 ] || [ "$1" = lookup ] || set -- "$@" "$TMP/big"
	[ $# -ne 1 ] || set -- "$1" "$TMP/big"
	kb=$(maxrss "$UWIND" "$@")
	echo "# uwind $*: $kb KiB"
	[ -n "$kb" ] && [ "$kb" -lt 262144 ] || bad=1
done
[ $bad -eq 0 ]
tap_result $? "a 1 GiB file: dump, lookup, verify, sframe --check, convert read it in under 256 MiB"
"$UWIND" dump "$TMP/big" >"$TMP/big.dump" 2>&1 && "$UWIND" dump "$P" >"$TMP/p.dump" 2>&1 &&
	cmp -s "$TMP/big.dump" "$TMP/p.dump"
tap_result $? "the padded program dumps as the program itself"
tap_end
