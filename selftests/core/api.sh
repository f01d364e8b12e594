#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The public headers (include/uwind/) as a library's API:
#   1. kernel-doc, the Linux kernel's own script (Debian's linux-kbuild
#      package), finds nothing to warn about: every documented function's
#      parameters and return value, every struct member (but those under
#      a "private:" marker) and every enum value are described;
#   2. every function, type and enum the headers declare has a kernel-doc
#      comment, but the uwi_ ones, which are private (there for the size
#      of struct uw_cursor);
#   3. the headers declare no name outside uw_, UW_ and uwi_ (clang's AST
#      of a program including them all);
#   4. they define no macro but their include guards;
#   5. a host's own environment header (UW_ENV_HEADER) replaces env.h
#      whole: the headers compile with no system header at all.
# 3-5 build with selftests/core/env_min.h as that header, so the system's
# <stdint.h> and kin add nothing.  Prints TAP.
set -u

cd "$(dirname "$0")/../.." || exit 1
work=${1:-build}/selftests/core/api
kdoc=$(ls /usr/lib/linux-kbuild-*/scripts/kernel-doc 2>/dev/null | sort -V |
	tail -1)
. selftests/common/tap.sh
tap_begin 5
rm -rf "$work"
mkdir -p "$work"
hdrs=$(ls include/uwind/*.h)
# For eval: the macro's value keeps its double quotes.
env="-nostdinc -ffreestanding '-DUW_ENV_HEADER=\"$PWD/selftests/core/env_min.h\"'"

# 1. kernel-doc warnings (-v adds the missing "Return:" sections).
if [ -z "$kdoc" ]; then
	tap_result 1 "kernel-doc finds nothing to warn about # kernel-doc not found (linux-kbuild-6.1)"
else
	# shellcheck disable=SC2086
	perl "$kdoc" -v -none $hdrs >"$work/kdoc.log" 2>&1
	grep -v ': info: ' "$work/kdoc.log" | sed 's/^/# /'
	! grep -q -e 'warning:' -e 'error:' "$work/kdoc.log"
	tap_result $? "kernel-doc ($kdoc) finds nothing to warn about in include/uwind/"
fi

# 2, 3. Declared names: documented, and in uwind's namespace.  A program
# includes every header but config.h, which only lib/ reads (its
# UW_HAS_ switches are checked on their own below).
for h in $hdrs; do
	[ "$h" = include/uwind/config.h ] && continue
	echo "#include <uwind/$(basename "$h")>"
done >"$work/all.c"
echo '#include "'"$PWD"'/selftests/core/env_min.h"' >"$work/env.c"
decls() {
	# shellcheck disable=SC2086
	eval clang-14 -std=c11 -fsyntax-only -Iinclude $env -Xclang -ast-dump \
		-fno-color-diagnostics "$1" 2>"$work/clang.log" |
	awk '
		/^[|`]-(Function|Typedef|Var)Decl/ && !/invalid sloc/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^\x27/) { print $(i - 1); break }
		}
		/^[|`]-(Record|Enum)Decl/ && !/invalid sloc/ {
			for (i = 1; i <= NF; i++)
				if ($i == "struct" || $i == "union") { print $(i + 1); break }
			if ($1 ~ /EnumDecl/ && $NF !~ /[:>]$/) print $NF
		}
		/EnumConstantDecl/ { print $(NF - 1) }
	' | sort -u
}
decls "$work/env.c" >"$work/env.names"
decls "$work/all.c" >"$work/all.names"
! grep -q 'error' "$work/clang.log"
st_all=$?
comm -23 "$work/all.names" "$work/env.names" >"$work/names"
sed 's/^/# clang: /' "$work/clang.log"
if [ -z "$kdoc" ]; then
	tap_result 1 "every public declaration has kernel-doc # kernel-doc not found"
else
	# shellcheck disable=SC2086
	perl "$kdoc" -rst $hdrs 2>/dev/null |
		sed -n 's/^\.\. c:\(function\|type\):: //p' |
		sed -E 's/^(struct|union|enum) //; s/^.* \**(uw_[a-z0-9_]+) \(.*/\1/' |
		sort -u >"$work/documented"
	# Declared top-level names (not enum values: kernel-doc checks those
	# through their enum) lacking a comment, uwi_ aside.
	grep -v '^UW_' "$work/names" | grep -v '^uwi_' |
		comm -23 - "$work/documented" >"$work/undocumented"
	sed 's/^/# undocumented: /' "$work/undocumented"
	[ -s "$work/names" ] && [ ! -s "$work/undocumented" ]
	tap_result $? "every function, type and enum of include/uwind/ has kernel-doc ($(grep -c . "$work/documented") documented)"
fi
grep -v -e '^uw_' -e '^UW_' -e '^uwi_' "$work/names" >"$work/foreign"
sed 's/^/# outside the namespace: /' "$work/foreign"
[ "$st_all" -eq 0 ] && [ -s "$work/names" ] && [ ! -s "$work/foreign" ]
tap_result $? "the headers declare only uw_, UW_ and uwi_ names ($(grep -c . "$work/names") names)"

# 4. Macros: include guards only (config.h: its guard and the switches).
macros() {
	# shellcheck disable=SC2086
	eval gcc -std=c11 -E -dM -Iinclude $env "$1" | sort
}
echo '#include <uwind/config.h>' >"$work/config.c"
macros "$work/env.c" >"$work/env.macros"
macros "$work/all.c" >"$work/all.macros"
macros "$work/config.c" >"$work/config.macros"
comm -23 "$work/all.macros" "$work/env.macros" | awk '{ print $2 }' |
	grep -v -E '^UWIND_[A-Z]+_H$' >"$work/leaked"
comm -23 "$work/config.macros" "$work/env.macros" | awk '{ print $2 }' |
	grep -v -E '^(UWIND_CONFIG_H|UW_HAS_[A-Z_]+)$' >>"$work/leaked"
sed 's/^/# macro: /' "$work/leaked"
guards=$(comm -23 "$work/all.macros" "$work/env.macros" | grep -c .)
[ "$guards" -gt 0 ] && [ ! -s "$work/leaked" ]
tap_result $? "the headers define no macro but their $guards include guards (config.h: UW_HAS_*)"

# 5. UW_ENV_HEADER, no system header.
# shellcheck disable=SC2086
eval gcc -std=c11 -Wall -Wextra -Werror -Iinclude $env -c "$work/all.c" \
	-o "$work/all.o" 2>"$work/gcc.log"
st=$?
sed 's/^/# /' "$work/gcc.log"
tap_result $st "with UW_ENV_HEADER and -nostdinc the headers compile: env.h is replaced whole"
tap_end
