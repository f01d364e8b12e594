#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The Debian packages of scripts/pkg/deb.sh (`make deb`), built into
# $O/selftests/pkg/deb: their names, fields and files; the tool's
# Depends against the libraries it links; the trigger's directories
# against those --system scans; the packaged tool (runs, stripped,
# hardened); lintian; a second build identical to the first;
# uwind.service through systemd-analyze verify, and every program it
# runs; the maintainer scripts run against a stand-in dkms (uwind-dkms's
# postinst and prerm) and a stand-in uwind in a private mount namespace
# (uwind's trigger).  Installing them for real is the lead's test in a
# Debian 13 chroot.
#
# usage: debs.sh BUILD_DIR
. selftests/pkg/lib.sh
V=$(sh scripts/pkg/version.sh 2>/dev/null)
ARCH=$(dpkg --print-architecture)
OUT=$(cd "$O" && pwd)/selftests/pkg/deb
X=$TMP/x		# the packages extracted

# field DEB NAME: a control field.
field() { dpkg-deb -f "$1" "$2"; }

# fake_cmd NAME SCRIPT: a stand-in for NAME in $TMP/bin, which logs its
# arguments to $TMP/NAME.log and then runs SCRIPT.
fake_cmd()
{
	mkdir -p "$TMP/bin"
	printf '#!/bin/sh\necho "$*" >> %s/%s.log\n%s\n' "$TMP" "$1" "$2" > "$TMP/bin/$1"
	chmod 755 "$TMP/bin/$1"
	: > "$TMP/$1.log"
}

tap_begin 17

sh scripts/pkg/deb.sh "$OUT" > "$TMP/debs" 2> "$TMP/deb.err"
rc=$?
dkms_deb=$OUT/uwind-dkms_${V}_all.deb
tool_deb=$OUT/uwind_${V}_$ARCH.deb
[ $rc -eq 0 ] && [ "$(cat "$TMP/debs")" = "$(printf '%s\n%s' "$dkms_deb" "$tool_deb")" ] &&
	[ -f "$dkms_deb" ] && [ -f "$tool_deb" ]
tap_result $? "deb.sh: uwind-dkms_${V}_all.deb and uwind_${V}_$ARCH.deb, their paths on stdout"
[ $rc -eq 0 ] || { tail -n 20 "$TMP/deb.err" | sed 's/^/# /'; tap_bail "no packages"; exit 1; }

[ "$(field "$dkms_deb" Version)" = "$V" ] && [ "$(field "$tool_deb" Version)" = "$V" ] &&
	[ "$(field "$dkms_deb" Architecture)" = all ] &&
	[ "$(field "$tool_deb" Architecture)" = "$ARCH" ] &&
	field "$dkms_deb" Depends | grep -q '^dkms ' &&
	[ "$(field "$dkms_deb" Package)" = uwind-dkms ] && [ "$(field "$tool_deb" Package)" = uwind ]
tap_result $? "fields: the version, uwind-dkms for all architectures and depending on dkms, uwind for $ARCH"

mkdir -p "$X/dkms" "$X/tool"
dpkg-deb -x "$dkms_deb" "$X/dkms"
dpkg-deb -x "$tool_deb" "$X/tool"
dpkg-deb -e "$tool_deb" "$X/tool/DEBIAN"
dpkg-deb -e "$dkms_deb" "$X/dkms/DEBIAN"

# Every library the tool links (DT_NEEDED) comes from a package in its
# Depends.
deps=$(field "$tool_deb" Depends)
bad=""
ldd "$X/tool/usr/bin/uwind" > "$TMP/ldd"
for so in $(readelf -dW "$X/tool/usr/bin/uwind" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	lib=$(awk -v so="$so" '$1 == so { print $3 }' "$TMP/ldd")
	p=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | sed -n '1s/:.*//p')
	[ -n "$p" ] || p=$(dpkg -S "$lib" 2>/dev/null | sed -n '1s/:.*//p')
	case ", $deps" in
	*", $p "* | *", $p,"* | *", $p") ;;
	*) bad="$bad $lib($p)" ;;
	esac
done
[ -z "$bad" ] && [ -n "$deps" ]
tap_result $? "uwind's Depends ($deps) holds the package of every library it links${bad:+; missing:$bad}"

sh scripts/pkg/dkms-source.sh "$TMP/src" "$V" | sed "s|^|usr/src/uwind-$V/|" > "$TMP/want"
printf '%s\n' usr/share/doc/uwind-dkms/changelog.gz usr/share/doc/uwind-dkms/copyright >> "$TMP/want"
(cd "$X/dkms" && find usr -type f | LC_ALL=C sort) > "$TMP/have"
LC_ALL=C sort -o "$TMP/want" "$TMP/want"
diff "$TMP/want" "$TMP/have" > "$TMP/diff"
rc=$?
tap_result $rc "uwind-dkms holds /usr/src/uwind-$V as dkms-source.sh makes it, and its copyright and changelog"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/diff"

(cd "$X/tool" && find etc usr -type f | LC_ALL=C sort) > "$TMP/have"
printf '%s\n' etc/uwind.conf usr/bin/uwind usr/lib/systemd/system/uwind.service \
	usr/lib/systemd/system/uwind-tables.service \
	usr/share/doc/uwind/changelog.gz usr/share/doc/uwind/copyright \
	usr/share/man/man1/uwind.1.gz | LC_ALL=C sort > "$TMP/want"
cmp -s "$TMP/want" "$TMP/have" && [ "$(cat "$X/tool/DEBIAN/conffiles")" = /etc/uwind.conf ] &&
	zcat "$X/tool/usr/share/man/man1/uwind.1.gz" | grep -q "^\.TH UWIND 1 .* \"uwind $V\""
tap_result $? "uwind holds the tool, its man page (for $V), uwind.service, uwind-tables.service, /etc/uwind.conf (a conffile), copyright and changelog"

# The trigger's directories: those --system scans that a package can
# install into (not /usr/local, and /libexec is no Debian directory).
sed -n '/^const char \*const inst_system_dirs\[\] = {/,/^};/p' scripts/uwind/install.c |
	grep -o '"/[^"]*"' | tr -d '"' | grep -v -e '^/usr/local' -e '^/libexec$' |
	sed 's/^/interest-noawait /' | sort > "$TMP/want"
grep -v '^#' "$X/tool/DEBIAN/triggers" | sort > "$TMP/have"
diff "$TMP/want" "$TMP/have" > "$TMP/diff" && [ "$(wc -l < "$TMP/have")" -ge 8 ]
rc=$?
tap_result $rc "the dpkg trigger: interest-noawait on each directory --system scans that packages install into ($(wc -l < "$TMP/have"))"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/diff"

u=$X/tool/usr/bin/uwind
[ "$("$u" --version)" = "uwind $V" ] && ! readelf -SW "$u" | grep -q ' \.symtab ' &&
	readelf -lW "$u" | grep -q GNU_RELRO && nm -D "$u" | grep -q __stack_chk_fail
tap_result $? "the packaged tool runs (uwind $V), stripped, with RELRO and the stack protector (the distribution's flags)"

if tap_have lintian; then
	lintian --pedantic --info "$dkms_deb" "$tool_deb" > "$TMP/lintian" 2>&1
	! grep -E '^[EWIPX]: ' "$TMP/lintian" | sed 's/^/# /' | grep .
	tap_result $? "lintian --pedantic: no tag on either package"
else
	tap_skip "lintian" "lintian is not installed (make deps)"
fi

mkdir -p "$TMP/first"
cp "$dkms_deb" "$tool_deb" "$TMP/first/"
sh scripts/pkg/deb.sh "$OUT" > /dev/null 2>&1
cmp -s "$dkms_deb" "$TMP/first/${dkms_deb##*/}" && cmp -s "$tool_deb" "$TMP/first/${tool_deb##*/}"
tap_result $? "built again: the same bytes (times from the last commit, SOURCE_DATE_EPOCH)"

# Without dpkg-shlibdeps (a chroot without dpkg-dev): the packages that
# hold the libraries, at least at their installed versions.
fake_cmd dpkg-shlibdeps 'exit 1'
PATH=$TMP/bin:$PATH sh scripts/pkg/deb.sh "$TMP/noshlib" > /dev/null 2>"$TMP/noshlib.err"
rc=$?
d2=$(field "$TMP/noshlib/${tool_deb##*/}" Depends 2>/dev/null)
ok=0
for p in $(echo "$deps" | sed 's/ ([^)]*)//g; s/,//g'); do
	v=$(dpkg-query -W -f '${Version}' "$p" 2>/dev/null | head -n 1)
	case ", $d2," in
	*", $p (>= $v),"*) ;;
	*) ok=1 ;;
	esac
done
[ $rc -eq 0 ] && [ $ok -eq 0 ] && [ "$(echo "$d2" | tr ',' '\n' | wc -l)" -eq "$(echo "$deps" | tr ',' '\n' | wc -l)" ]
tap_result $? "without dpkg-shlibdeps, Depends from the libraries' packages at their installed versions ($d2)"
rm -f "$TMP/bin/dpkg-shlibdeps"

# ---- the services ----
unit=$X/tool/usr/lib/systemd/system/uwind.service
tunit=$X/tool/usr/lib/systemd/system/uwind-tables.service
# (The tool is verified where the package was extracted; systemd checks
# that each program a unit runs is there.)
mkdir -p "$TMP/units"
for u in "$unit" "$tunit"; do
	sed "s|/usr/bin/uwind|$X/tool/usr/bin/uwind|g" "$u" > "$TMP/units/${u##*/}"
done
if tap_have systemd-analyze; then
	MANPATH=$X/tool/usr/share/man systemd-analyze verify "$TMP/units/uwind.service" \
		"$TMP/units/uwind-tables.service" > "$TMP/verify" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$TMP/verify" ]
	tap_result $? "systemd-analyze verify accepts uwind.service and uwind-tables.service, without a word (their man page found)"
	sed 's/^/# /' "$TMP/verify"
	sed 's|^ExecStartPre=/sbin/modprobe|ExecStartPre=/nonexistent/modprobe|' \
		"$TMP/units/uwind.service" > "$TMP/broken.service"
	MANPATH=$X/tool/usr/share/man systemd-analyze verify "$TMP/broken.service" > /dev/null 2>&1
	[ $? -ne 0 ]
	tap_result $? "systemd-analyze verify refuses a copy that runs a program that is not there"
else
	tap_skip "systemd-analyze verify" "no systemd-analyze (make deps)"
	tap_skip "systemd-analyze verify refuses a broken copy" "no systemd-analyze"
fi

# Every program the units run: in the package, or here (modprobe, sh).
bad=""
for p in $(sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$unit" "$tunit"); do
	[ -x "$X/tool$p" ] || [ -x "$p" ] || bad="$bad $p"
done
grep -qx 'EnvironmentFile=-/etc/uwind.conf' "$unit" &&
	grep -qx 'Type=simple' "$unit" &&
	grep -qx 'ExecStartPre=/sbin/modprobe uwind $UWIND_MODULE_OPTIONS' "$unit" &&
	grep -qx 'ExecStart=/usr/bin/uwind agent $UWIND_AGENT_OPTIONS' "$unit" &&
	grep -qx 'ExecStopPost=-/sbin/modprobe -r uwind' "$unit" &&
	grep -qx 'Wants=uwind-tables.service' "$unit" &&
	(. "$X/tool/etc/uwind.conf" && [ -z "$UWIND_MODULE_OPTIONS" ] &&
		[ -z "$UWIND_AGENT_OPTIONS" ] && [ "$UWIND_SYSTEM_TABLES" = no ] &&
		[ "$UWIND_REFRESH_TABLES" = yes ]) && [ -z "$bad" ]
tap_result $? "uwind.service loads the module with /etc/uwind.conf's UWIND_MODULE_OPTIONS, runs uwind agent with UWIND_AGENT_OPTIONS, unloads after; tables on demand by default; each program it runs exists${bad:+ (missing:$bad)}"

# uwind-tables.service's commands, run as systemd would (its $$ is a
# literal $ for the shell; EnvironmentFile's variables in the
# environment), against a stand-in uwind: --gc alone by default, and
# --install --system first with UWIND_SYSTEM_TABLES="yes".
fake_cmd uwind 'exit 0'
tables_unit()
{
	: > "$TMP/uwind.log"
	sed -n 's/^ExecStart=-//p' "$tunit" | while IFS= read -r cmd; do
		cmd=$(printf '%s\n' "$cmd" | sed 's|/usr/bin/uwind|uwind|g; s/\$\$/$/g')
		env UWIND_SYSTEM_TABLES="$1" PATH="$TMP/bin:$PATH" \
			sh -c "eval \"set -- \$1\"; \"\$@\"" sh "$cmd"
	done
	cat "$TMP/uwind.log"
}
[ "$(tables_unit no)" = "sframe --gc" ] &&
	[ "$(tables_unit yes | tr '\n' ,)" = "sframe --install --system,sframe --gc," ] &&
	grep -qx 'After=uwind.service' "$tunit" && grep -qx 'Nice=19' "$tunit"
tap_result $? "uwind-tables.service, after uwind.service at the lowest priority: uwind sframe --gc; with UWIND_SYSTEM_TABLES=\"yes\", uwind sframe --install --system first"
rm -f "$TMP/bin/uwind"

# ---- uwind-dkms's maintainer scripts, against a stand-in dkms ----
# In a private mount namespace (root), /lib/modules holds made-up
# kernels: this machine's architecture with headers, another
# architecture's headers, none; elsewhere the machine's own.
case $(uname -m) in
x86_64) own=CONFIG_X86_64=y other=CONFIG_ARM64=y ;;
*) own=CONFIG_ARM64=y other=CONFIG_X86_64=y ;;
esac
mkdir -p "$TMP/modules/9.0-own/build" "$TMP/modules/9.0-other/build" "$TMP/modules/9.0-none"
for k in own other; do
	: > "$TMP/modules/9.0-$k/build/Makefile"
	eval "echo \$$k" > "$TMP/modules/9.0-$k/build/.config"
done
# postinst ARG: uwind-dkms's postinst, its output in $TMP/pi.
postinst()
{
	if [ "$(id -u)" -eq 0 ] && tap_have unshare; then
		unshare -m --propagation private sh -c '
			mount --bind "$1/modules" /lib/modules &&
			PATH=$1/bin:$PATH exec sh "$2" "$3"' sh "$TMP" \
			"$X/dkms/DEBIAN/postinst" "$1"
	else
		PATH=$TMP/bin:$PATH sh "$X/dkms/DEBIAN/postinst" "$1"
	fi > "$TMP/pi" 2>&1
}
if [ "$(id -u)" -eq 0 ] && tap_have unshare; then
	kvers=9.0-own
else
	kvers=$(for b in /lib/modules/*/build; do
		[ -f "$b/Makefile" ] && [ -f "$b/.config" ] && grep -qx "$own" "$b/.config" &&
			basename "$(dirname "$b")"
	done)
fi
fake_cmd dkms 'case $1 in status) exit 0 ;; install) exit ${FAKE_RC:-0} ;; esac'
postinst configure
rc=$?
{
	echo "status -m uwind -v $V"
	echo "add -m uwind -v $V"
	for k in $kvers; do echo "install -m uwind -v $V -k $k"; done
} > "$TMP/want"
cmp -s "$TMP/want" "$TMP/dkms.log" && [ $rc -eq 0 ]
r1=$?
fake_cmd dkms 'case $1 in status) echo "uwind/'"$V"': added" ;; install) exit 77 ;; esac'
postinst configure
r2=$?
! grep -q "^add" "$TMP/dkms.log" && { [ -z "$kvers" ] || grep -q "not for kernel" "$TMP/pi"; }
r3=$?
fake_cmd dkms 'case $1 in install) exit 10 ;; esac'
postinst configure
r4=$?
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ] &&
	{ [ -z "$kvers" ] || { [ $r4 -ne 0 ] && grep -q "make.log" "$TMP/pi"; }; }
tap_result $? "uwind-dkms postinst: dkms add, then install for each kernel of this architecture with headers ($(echo $kvers); not another architecture's, not one without); one dkms.conf excludes (77) skipped; a failed build fails it, naming the log"

fake_cmd dkms 'case $1 in status) echo "uwind/'"$V"': added" ;; esac'
PATH=$TMP/bin:$PATH sh "$X/dkms/DEBIAN/prerm" remove > /dev/null 2>&1 &&
	PATH=$TMP/bin:$PATH sh "$X/dkms/DEBIAN/prerm" upgrade > /dev/null 2>&1 &&
	[ "$(grep -c "^remove -m uwind -v $V --all$" "$TMP/dkms.log")" -eq 2 ]
tap_result $? "uwind-dkms prerm (remove, upgrade): dkms remove --all of its version"

# ---- uwind's trigger, in a private mount namespace ----
# /var/lib and /etc are scratch directories there; uwind a stand-in.
if [ "$(id -u)" -eq 0 ] && tap_have unshare; then
	mkdir -p "$TMP/varlib" "$TMP/etc"
	fake_cmd uwind 'echo "uwind: summary of $*"; exit 1'
	trig()
	{
		unshare -m --propagation private sh -c '
			mount --bind "$1/varlib" /var/lib && mount --bind "$1/etc" /etc &&
			PATH=$1/bin:$PATH exec sh "$2" triggered /usr/lib' \
			sh "$TMP" "$X/tool/DEBIAN/postinst" > "$TMP/trig.out" 2>&1
	}
	trig
	r1=$?
	n1=$(wc -l < "$TMP/uwind.log")
	mkdir -p "$TMP/varlib/uwind/build-id"
	trig
	r2=$?
	printf 'sframe --gc\n' | cmp -s - "$TMP/uwind.log"
	r3=$?
	: > "$TMP/uwind.log"
	echo 'UWIND_SYSTEM_TABLES="yes"' > "$TMP/etc/uwind.conf"
	trig
	r5=$?
	printf 'sframe --install --system\nsframe --gc\n' | cmp -s - "$TMP/uwind.log"
	r6=$?
	: > "$TMP/uwind.log"
	echo 'UWIND_REFRESH_TABLES="no"' > "$TMP/etc/uwind.conf"
	trig
	r4=$?
	n4=$(wc -l < "$TMP/uwind.log")
	[ $r1 -eq 0 ] && [ "$n1" -eq 0 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ] &&
		[ $r5 -eq 0 ] && [ $r6 -eq 0 ] && [ $r4 -eq 0 ] && [ "$n4" -eq 0 ]
	tap_result $? "uwind's trigger: nothing before tables exist; then uwind sframe --gc (and --install --system before it when /etc/uwind.conf says UWIND_SYSTEM_TABLES=\"yes\"), a failure not failing it; nothing when it says UWIND_REFRESH_TABLES=\"no\""
else
	tap_skip "uwind's trigger" "needs root and unshare (a private mount namespace)"
fi

tap_end
