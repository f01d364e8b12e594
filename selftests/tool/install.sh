#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The build and installation as a user meets them: plain `make` builds
# the library and the tool and nothing else (no test), in under 30 s;
# `make install DESTDIR=... PREFIX=...` puts the tool, its man page, the
# public headers, libuwind.a and uwind.pc there, and `pkg-config --cflags
# --libs uwind` on the installed uwind.pc builds a program that walks its
# own stack (src/selfwalk.c, the documentation's example); `make
# uninstall` takes it all away again.
#
# usage: install.sh BUILD_DIR
. selftests/tool/lib.sh
D=$TMP/dest
PREFIX=/opt/uw

tap_begin 8

# What plain make would do from scratch: the core and the tool only.
make -n O="$TMP/fresh" >"$TMP/plan" 2>&1
cc=$(grep -c ' -c ' "$TMP/plan")
ncore=$(ls lib/*.c | wc -l)
ntool=$(ls scripts/uwind/*.c | wc -l)
! grep -q 'selftests' "$TMP/plan" && grep -q 'ar rcs .*libuwind.a' "$TMP/plan" &&
	grep -q -- '-o [^ ]*/uwind ' "$TMP/plan" && [ "$cc" -le $((ncore + ntool)) ]
tap_result $? "make: builds libuwind.a and uwind ($cc compiles), nothing from selftests/"

start=$(date +%s)
make -s O="$TMP/fresh" >"$TMP/build.log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
[ $rc -eq 0 ] && [ -x "$TMP/fresh/uwind" ] && [ -f "$TMP/fresh/libuwind.a" ] &&
	[ "$secs" -le 30 ] && [ ! -d "$TMP/fresh/selftests" ]
tap_result $? "make from scratch: the library and the tool in $secs s (at most 30)"

make -s install O="$O" DESTDIR="$D" PREFIX="$PREFIX" >"$TMP/inst.log" 2>&1
rc=$?
bad=0
for f in bin/uwind share/man/man1/uwind.1 lib/libuwind.a lib/pkgconfig/uwind.pc; do
	[ -f "$D$PREFIX/$f" ] || { echo "# missing $PREFIX/$f"; bad=1; }
done
for h in include/uwind/*.h; do
	cmp -s "$h" "$D$PREFIX/$h" || { echo "# missing $PREFIX/$h"; bad=1; }
done
[ $rc -eq 0 ] && [ $bad -eq 0 ] && [ -x "$D$PREFIX/bin/uwind" ] &&
	"$D$PREFIX/bin/uwind" --version >/dev/null
tap_result $? "make install DESTDIR PREFIX=$PREFIX: the tool, uwind.1, $(ls include/uwind/*.h | wc -l) headers, libuwind.a, uwind.pc"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/inst.log"

if tap_have pkg-config; then
	export PKG_CONFIG_PATH="$D$PREFIX/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
	flags=$(echo $(pkg-config --cflags --libs uwind 2>&1))
	v=$(pkg-config --modversion uwind 2>&1)
	[ "$flags" = "-I$D$PREFIX/include -L$D$PREFIX/lib -luwind" ] &&
		[ "uwind $v" = "$("$D$PREFIX/bin/uwind" --version)" ]
	tap_result $? "pkg-config --cflags --libs uwind: $flags; --modversion $v, as uwind --version"

	# The example, against the installed headers and library only.
	# shellcheck disable=SC2086
	gcc -O2 -Wall -Wextra -Werror -Wa,--gsframe -rdynamic \
		-o "$TMP/selfwalk" selftests/tool/src/selfwalk.c $flags \
		2>"$TMP/cc.log" && "$TMP/selfwalk" >"$TMP/walk" 2>&1
	rc=$?
	names=$(awk '/^#[0-9]/ { print $3 }' "$TMP/walk" | head -n 4 | tr '\n' ' ')
	srcs=$(awk '/^#[0-9]/ { print $4 }' "$TMP/walk" | head -n 4 | sort -u)
	[ $rc -eq 0 ] && [ "$names" = "print_stack inner outer main " ] &&
		[ "$srcs" = "[sframe]" ]
	tap_result $? "a program built with those flags walks its own stack: $names(SFrame)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/cc.log" "$TMP/walk"
else
	tap_skip "pkg-config --cflags --libs uwind" "pkg-config is not installed"
	tap_skip "a program built with pkg-config's flags" "pkg-config is not installed"
fi

if tap_have man && tap_have groff; then
	LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$D$PREFIX/share/man/man1/uwind.1" \
		>"$TMP/man" 2>&1 && grep -q '^NAME' "$TMP/man" &&
		! groff -man -ww -z "$D$PREFIX/share/man/man1/uwind.1" 2>&1 | grep -q .
	tap_result $? "the installed man page renders, without groff warnings"
else
	tap_skip "the installed man page renders" "man or groff is not installed"
fi

make -s uninstall O="$O" DESTDIR="$D" PREFIX="$PREFIX" >/dev/null 2>&1
left=$(find "$D" -type f | wc -l)
[ "$left" -eq 0 ] && [ ! -d "$D$PREFIX/include/uwind" ]
tap_result $? "make uninstall: no file left ($left)"

# A second tree, to be sure install takes PREFIX each time.
make -s install O="$O" DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1 &&
	grep -qx 'libdir=/usr/lib' "$D/usr/lib/pkgconfig/uwind.pc" &&
	grep -qx 'includedir=/usr/include' "$D/usr/lib/pkgconfig/uwind.pc"
tap_result $? "make install PREFIX=/usr: uwind.pc says /usr"
tap_end
