#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# pkg.sh [O [SUITE]]: the packages as a user installs them, on Debian
# SUITE (default trixie: Debian 13, x86-64).  In an overlay of the suite's
# chroot (scripts/suite-root.sh; the cached chroot itself is never
# changed): `make deb` with the suite's compiler, `dpkg -i` of uwind-dkms
# and uwind (DKMS builds the module for the suite's kernel headers), a
# library package upgraded to a build with another build-id (the dpkg
# trigger must leave no table for the old file; with UWIND_SYSTEM_TABLES
# "yes" in /etc/uwind.conf, one for the new file and the system's).
# Then the suite's stock kernel boots under QEMU with the module DKMS
# built, the packaged uwind tool and the tables the trigger installed, and
# selftests/kernel/guest-pkg.sh checks the chains, that a short-lived
# program run 1,000 times reads libc's table once, and `uwind status
# --json`, which this script checks (json.loads) against the processes the
# guest listed.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-${O:-build}}
suite=${2:-trixie}
export O
. "$top/selftests/common/tap.sh"
. "$top/selftests/kernel/host-lib.sh"

tap_begin
td=$O/kernel/$suite-pkg
mkdir -p "$td"
td=$(cd "$td" && pwd)
# The guest programs: build_suite's, in a directory of this stage's (the
# matrix may run the suite's own stage at the same time).
build_suite "$suite" x86_64 "$td" || { tap_end; exit 1; }
echo "# kernel: Debian $suite, $kver"

ver=$(sh "$top/scripts/pkg/version.sh")
out=$(UWIND_PKG_VERSION=$ver sh "$top/scripts/suite-run.sh" "$suite" \
	make -s --no-print-directory O="$td/build" deb 2>&1)
r=$?
dkms_deb=$td/build/deb/uwind-dkms_${ver}_all.deb
tool_deb=$td/build/deb/uwind_${ver}_amd64.deb
[ $r -eq 0 ] && [ -f "$dkms_deb" ] && [ -f "$tool_deb" ]
check $? "make deb with Debian $suite's compiler: uwind-dkms and uwind $ver"
[ $r -eq 0 ] || { echo "$out" | tail -n 20 | sed 's/^/# /'; tap_end; exit 1; }

# libuwtest1: one shared library, version 1 and version 2 built from other
# code (so another build-id), as a distribution's library upgrade.
lib=/usr/lib/x86_64-linux-gnu/libuwtest.so.1
for v in 1 2; do
	d=$td/libuwtest-$v
	rm -rf "$d"
	mkdir -p "$d/DEBIAN" "$d$(dirname "$lib")"
	printf 'int uwtest_f(int x)\n{\n\treturn x * %d + %d;\n}\n' $((v + 6)) "$v" \
		> "$td/uwtest-$v.c"
	sh "$top/scripts/suite-run.sh" "$suite" gcc -O2 -fPIC -shared \
		-Wl,-soname,libuwtest.so.1 -o "$d$lib" "$td/uwtest-$v.c" ||
		break
	cat > "$d/DEBIAN/control" <<EOF
Package: libuwtest1
Version: $v
Architecture: amd64
Maintainer: uwind tests <uwind@localhost>
Description: uwind's test library
 A library whose upgrade changes its build-id.
EOF
	dpkg-deb --root-owner-group -b "$d" "$td/libuwtest1_${v}_amd64.deb" \
		> /dev/null || break
done
id_of() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3 }'; }
id1=$(id_of "$td/libuwtest-1$lib") id2=$(id_of "$td/libuwtest-2$lib")
[ -f "$td/libuwtest1_2_amd64.deb" ] && [ -n "$id1" ] && [ -n "$id2" ] &&
	[ "$id1" != "$id2" ]
check $? "libuwtest1 1 and 2 packaged, build-ids $id1 and $id2"

# In an overlay of the chroot (upper layer in $td/ov): install, upgrade,
# and make the guest's initramfs from what is installed there.
root=$(sh "$top/scripts/suite-root.sh" -q "$suite")
ov=$td/ov
rm -rf "$ov"
mkdir -p "$ov/up" "$ov/work" "$ov/root"
cp "$dkms_deb" "$tool_deb" "$td"/libuwtest1_*_amd64.deb "$ov/up/" 2>/dev/null
mkdir -p "$ov/up/tmp"
cp "$dkms_deb" "$tool_deb" "$td"/libuwtest1_*_amd64.deb "$ov/up/tmp/"
cat > "$ov/up/tmp/install.sh" <<EOF
#!/bin/sh
# Run in the overlay's chroot.
set -u
export DEBIAN_FRONTEND=noninteractive
cd /tmp
echo "== dpkg -i uwind-dkms uwind"
dpkg -i ${dkms_deb##*/} ${tool_deb##*/} 2>&1
echo "dpkg-status \$?"
echo "== dkms status"
dkms status 2>&1
tables()
{
	find /var/lib/uwind/build-id -name '*.uwsf' 2>/dev/null |
		sed 's|.*/build-id/||; s|/||; s|\\.uwsf\$||' | sort
}
echo "== libuwtest1 1, its table, then 2 (tables on demand: the trigger collects)"
dpkg -i libuwtest1_1_amd64.deb 2>&1
uwind sframe --install $lib 2>&1
dpkg -i libuwtest1_2_amd64.deb 2>&1
echo "upgrade-status \$?"
echo "== tables-on-demand"
tables
echo "== UWIND_SYSTEM_TABLES=yes: libuwtest1 1, then 2"
sed -i 's/^UWIND_SYSTEM_TABLES=.*/UWIND_SYSTEM_TABLES="yes"/' /etc/uwind.conf
dpkg -i libuwtest1_1_amd64.deb 2>&1
echo "downgrade-status \$?"
echo "== tables-v1"
tables
dpkg -i libuwtest1_2_amd64.deb 2>&1
echo "upgrade-status \$?"
echo "== tables"
tables
EOF
# shellcheck disable=SC2016
unshare -m --propagation private sh -c '
	set -e
	root=$1 ov=$2 kver=$3
	mount -t overlay overlay \
		-o "lowerdir=$root,upperdir=$ov/up,workdir=$ov/work" "$ov/root"
	mount -t proc proc "$ov/root/proc"
	chroot "$ov/root" sh /tmp/install.sh > "$ov/install.log" 2>&1
	# What the guest takes from the installed system: the module DKMS
	# built for the kernel the guest boots (DKMS builds one for every
	# kernel whose headers are installed; xz, which busybox insmod does
	# not read), the packaged tool, the tables, the service unit.
	mkdir -p "$ov/guest"
	for k in "$ov/root/lib/modules/$kver"/updates/dkms/uwind.ko*; do
		case $k in
		*.xz) xz -dc "$k" > "$ov/guest/uwind.ko" ;;
		*.zst) zstd -qdc "$k" > "$ov/guest/uwind.ko" ;;
		*) cp "$k" "$ov/guest/uwind.ko" ;;
		esac
	done
	cp "$ov/root/usr/bin/uwind" "$ov/guest/uwind" 2>/dev/null || :
	cp "$ov/root/usr/lib/systemd/system/uwind.service" "$ov/root/etc/uwind.conf" \
		"$ov/guest/" 2>/dev/null || :
	cp -a "$ov/root/var/lib/uwind" "$ov/guest/var-lib-uwind" 2>/dev/null || :
	' sh "$root" "$ov" "$kver" > "$ov/unshare.log" 2>&1
sed 's/^/# /' "$ov/unshare.log"
log=$ov/install.log
grep -E '^(==|dpkg-status|upgrade-status|uwind:)' "$log" | sed 's/^/# /'
grep -q '^dpkg-status 0$' "$log" &&
	grep -q "^uwind/$ver, $kver, x86_64: installed" "$log" &&
	[ -f "$ov/guest/uwind.ko" ]
check $? "dpkg -i uwind-dkms uwind: DKMS built and installed uwind $ver for $kver"
grep -A3 '== dkms status' "$log" | sed 's/^/# /'
vm=$(modinfo -F vermagic "$ov/guest/uwind.ko" 2>/dev/null)
v=$(modinfo -F version "$ov/guest/uwind.ko" 2>/dev/null)
[ "${vm%% *}" = "$kver" ] && [ "$v" = "$ver" ]
check $? "the DKMS module: vermagic '$vm', version '$v'"
# tables_at NAME: the tables listed after "== NAME".
tables_at()
{
	sed -n "/^== $1\$/,/^==/p" "$log" | sed '1d;/^==/d;/-status /d'
}
t0=$(tables_at tables-on-demand) t1=$(tables_at tables-v1) tables=$(tables_at tables)
! echo "$t0" | grep -q "^$id1\$" && ! echo "$t0" | grep -q "^$id2\$" &&
	[ "$(grep -c '^upgrade-status 0$' "$log")" -eq 2 ]
check $? "library upgrade, tables on demand (the default): the trigger removed the old libuwtest.so.1's table ($id1) and made none ($(echo "$t0" | grep -c .) tables in all)"
echo "$t1" | grep -q "^$id1\$" && echo "$tables" | grep -q "^$id2\$" &&
	! echo "$tables" | grep -q "^$id1\$" && grep -q '^downgrade-status 0$' "$log" &&
	[ "$(echo "$tables" | grep -c .)" -gt 20 ]
check $? "library upgrade with UWIND_SYSTEM_TABLES=\"yes\": the trigger made the system's tables, one for the new libuwtest.so.1 ($id2) and none left for the old one ($id1); $(echo "$tables" | grep -c .) tables in all"
[ -f "$ov/guest/uwind" ] && [ -d "$ov/guest/var-lib-uwind/build-id" ]
check $? "the packaged uwind and the installed tables, for the guest"

set -- "$top/selftests/kernel/guest-tests.sh:/root/guest-tests.sh" \
	"$ov/guest/var-lib-uwind:/var/lib/uwind" \
	"$ov/guest/uwind.service:/root/uwind.service" "$ov/guest/uwind.conf:/root/uwind.conf"
glog=$(sh "$top/scripts/kernel-guest.sh" -n "$suite-pkg" -s "$suite" \
	-d "$td/progs" -m "$ov/guest/uwind.ko" -u "$ov/guest/uwind" \
	-T "${UWIND_QEMU_TIMEOUT:-600}" -a "uwind_pkg_version=$ver" \
	-t "$top/selftests/kernel/guest-pkg.sh" "$@")
rc=$?
glog=${glog:-$O/kernel/$suite-pkg.serial.log}
guest_results "$glog" "$rc"

# uwind status --json as the guest printed it, against the processes the
# guest listed at the same moment.
tr -d '\r' < "$glog" | sed -n '/^UWSTATUS-BEGIN$/,/^UWSTATUS-END$/p' |
	sed '1d;$d' > "$td/status.json"
tr -d '\r' < "$glog" | sed -n 's/^UWPIDS //p' > "$td/status.pids"
python3 - "$td/status.json" "$td/status.pids" <<'EOF'
import json, sys
try:
    st = json.load(open(sys.argv[1]))
except Exception as e:
    print("# not JSON: %s" % e)
    sys.exit(1)
want = {}
for l in open(sys.argv[2]):
    w = l.split()
    if len(w) >= 2:
        want[int(w[0])] = w[1]
procs = {p.get("pid"): p for p in st.get("processes", [])}
bad = [p for p in want if p not in procs]
for pid, p in procs.items():
    maps = p.get("mappings", [])
    if pid in want and (not maps or "coverage" not in p or
                        any("source" not in m for m in maps)):
        bad.append(pid)
loaded = st.get("module", {}).get("loaded")
leaf = [p for p in procs.values() if p.get("comm") == "leaf-sf" or
        str(p.get("exe") or "").endswith("/leaf-sf")]
maps = [m for p in leaf for m in p.get("mappings", [])]
leaf_ok = any(m.get("source") == "sframe" and
              str(m.get("path")).endswith("/leaf-sf") for m in maps)
libc_ok = any(m.get("source") == "installed" and
              "libc.so" in str(m.get("path")) for m in maps)
print("# %d processes in uwind status, %d listed by the guest, missing or without coverage: %s; module loaded: %s; leaf-sf's own table sframe: %s, libc installed: %s"
      % (len(procs), len(want), bad[:10], loaded, leaf_ok, libc_ok))
sys.exit(0 if not bad and want and loaded and leaf_ok and libc_ok else 1)
EOF
check $? "uwind status --json in the guest: every process with its coverage, the module loaded, leaf-sf 'sframe', its libc 'installed'"
tap_end
