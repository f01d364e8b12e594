#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# One command-line convention for every command: -h and --help print
# the usage on stdout and exit 0 (wherever they stand), --version names
# the tool; a usage error exits 2 with "uwind: COMMAND: what is wrong"
# and the usage on stderr, nothing on stdout; an input error exits 1
# with "uwind: FILE: what is wrong" on stderr.
#
# usage: cli.sh BUILD_DIR
. selftests/tool/lib.sh
CMDS="dump lookup stack sframe convert verify"
C=$TMP/no.core

# run ARG...: the tool, rc, out and err in $TMP.
run()
{
	"$UWIND" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# usage_error CMD ARG...: exit 2, "uwind: CMD: ..." then its usage on
# stderr, nothing on stdout.
usage_error()
{
	c=$1
	run "$@"
	if [ $rc -ne 2 ] || [ -s "$TMP/out" ] ||
	   ! head -n 1 "$TMP/err" | grep -q "^uwind: $c: ." ||
	   ! grep -q "^usage: uwind $c " "$TMP/err"; then
		echo "# uwind $*: exit $rc: $(head -n 2 "$TMP/err" | tr '\n' '|')"
		return 1
	fi
	return 0
}

tap_begin 14

bad=0
for h in -h --help help; do
	run $h
	[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] || bad=1
	for c in $CMDS; do
		grep -q "^  $c " "$TMP/out" || bad=1
	done
done
[ $bad -eq 0 ]
tap_result $? "uwind -h, --help, help: every command listed on stdout, exit 0"

run --version
[ $rc -eq 0 ] && grep -qx 'uwind [0-9][0-9.a-z+-]*' "$TMP/out" && [ ! -s "$TMP/err" ]
tap_result $? "uwind --version: 'uwind VERSION' on stdout, exit 0 ($(cat "$TMP/out"))"

run
[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && grep -q '^usage: uwind' "$TMP/err"
tap_result $? "uwind alone: usage on stderr, exit 2"

run frobnicate
[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && grep -q "^uwind: 'frobnicate' is not a command" "$TMP/err"
tap_result $? "an unknown command: said on stderr, exit 2"

bad=0
for c in $CMDS; do
	for h in -h --help; do
		for args in "$h" "$P $h" "--bogus $h"; do
			# shellcheck disable=SC2086
			run $c $args
			if [ $rc -ne 0 ] || [ -s "$TMP/err" ] ||
			   ! head -n 1 "$TMP/out" | grep -q "^usage: uwind $c "; then
				echo "# uwind $c $args: exit $rc"
				bad=1
			fi
		done
	done
done
[ $bad -eq 0 ]
tap_result $? "every command's -h and --help (alone, after a file, after a bad option): its usage on stdout, exit 0"

run help stack
[ $rc -eq 0 ] && grep -q '^usage: uwind stack ' "$TMP/out" && grep -q -- ' -t TID' "$TMP/out"
tap_result $? "uwind help stack: the command's usage"

bad=0
usage_error dump || bad=1
usage_error dump --bogus "$P" || bad=1
usage_error dump "$P" extra || bad=1
usage_error dump --sframe "$P" || bad=1
usage_error dump --json "$P" || bad=1
[ $bad -eq 0 ]
tap_result $? "dump: usage errors (nothing, a bad option, an extra argument, --sframe without --vaddr, --json): exit 2"

bad=0
usage_error lookup || bad=1
usage_error lookup "$P" || bad=1
usage_error lookup "$P" zz || bad=1
usage_error lookup --bogus "$P" 0x10 || bad=1
usage_error lookup --breakpad || bad=1
usage_error lookup --chrome "$P" --text zz 0x10 || bad=1
[ $bad -eq 0 ]
tap_result $? "lookup: usage errors (no file, no address, a bad address, a bad option, --breakpad alone, a bad --text): exit 2"

bad=0
usage_error stack || bad=1
usage_error stack --core "$C" -p 1 || bad=1
usage_error stack -p abc || bad=1
usage_error stack -p 0 || bad=1
usage_error stack --core "$C" -n 0 || bad=1
usage_error stack --core "$C" -n x || bad=1
usage_error stack --core "$C" -t 1,,2 || bad=1
usage_error stack -p 1 --exe "$P" || bad=1
usage_error stack --core "$C" --text 10 || bad=1
usage_error stack --core "$C" --bogus || bad=1
usage_error stack --core || bad=1
[ $bad -eq 0 ]
tap_result $? "stack: usage errors (neither or both of --core and -p, bad pid, -n, -t, --exe without --core, --text without --chrome, a bad option): exit 2"

bad=0
usage_error sframe || bad=1
usage_error sframe "$P" || bad=1
usage_error sframe --check -o "$TMP/x" "$P" || bad=1
usage_error sframe --install --check "$P" || bad=1
usage_error sframe --install || bad=1
usage_error sframe --dir "$TMP" "$P" -o "$TMP/x" || bad=1
usage_error sframe --pid x --install || bad=1
usage_error sframe --json "$P" -o "$TMP/x" || bad=1
usage_error sframe --bogus "$P" || bad=1
[ $bad -eq 0 ]
tap_result $? "sframe: usage errors (no file, no -o, --check with -o, --install with --check or alone, --dir without --install, a bad --pid, --json without --check or --install, a bad option): exit 2"

bad=0
usage_error convert || bad=1
usage_error convert --bogus "$P" || bad=1
usage_error convert --chrome "$P" || bad=1
usage_error convert --breakpad "$P" --chrome "$P" -o x || bad=1
usage_error convert --chrome "$P" -o "$TMP/x" --text zz || bad=1
usage_error convert --json --breakpad "$P" || bad=1
[ $bad -eq 0 ]
tap_result $? "convert: usage errors (nothing, a bad option, --chrome without -o, both, a bad --text, --json): exit 2"

bad=0
usage_error verify || bad=1
usage_error verify --bogus "$P" || bad=1
usage_error verify --sframe "$P" || bad=1
usage_error verify --sframe "$P" --vaddr zz || bad=1
usage_error verify --chrome "$P" --sframe "$P" || bad=1
usage_error verify --breakpad || bad=1
usage_error verify --json "$P" || bad=1
[ $bad -eq 0 ]
tap_result $? "verify: usage errors (nothing, a bad option, --sframe without or with a bad --vaddr, --chrome with --sframe, --breakpad alone, --json): exit 2"

# Input errors: exit 1, "uwind: FILE: ..." (files.sh tries every kind).
bad=0
for args in "dump $TMP/none" "lookup $TMP/none 10" "verify $TMP/none" \
	    "sframe --check $TMP/none" "convert --breakpad $TMP/none" \
	    "stack --core $TMP/none" "stack --core $TMP/none --exe $P"; do
	# shellcheck disable=SC2086
	run $args
	if [ $rc -ne 1 ] || [ -s "$TMP/out" ] ||
	   ! grep -q "^uwind: $TMP/none: No such file or directory" "$TMP/err"; then
		echo "# uwind $args: exit $rc: $(cat "$TMP/err")"
		bad=1
	fi
done
[ $bad -eq 0 ]
tap_result $? "a missing file, for every command: 'uwind: FILE: No such file or directory', exit 1"

# Every message the tool writes on stderr starts "uwind: ".
bad=0
for args in "dump $P" "lookup $P 0" "verify $P" "sframe --check $P" \
	    "convert --breakpad $P" "stack -p 1"; do
	# shellcheck disable=SC2086
	run $args
	if grep -v '^uwind: \|^usage: \|^       ' "$TMP/err" | grep -q .; then
		echo "# uwind $args: $(cat "$TMP/err")"
		bad=1
	fi
done
[ $bad -eq 0 ]
tap_result $? "what the commands say on stderr starts 'uwind: '"
tap_end
