#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# mkinitramfs.sh [options] [SRC[:DEST]]...
#
# Build a cpio (newc) initramfs for the kernel tests: static busybox with
# its applet links, an /init that mounts proc, sys, debugfs, tracefs,
# devtmpfs and a tmpfs on /tmp, loads the modules given, runs a test script
# and powers the machine off; the real perf binary from linux-perf with
# every library it needs; and any extra files.
#
#   -a ARCH    x86_64 (default: the host's busybox and perf) or arm64:
#              busybox, perf and its libraries from the arm64 sysroot
#              (scripts/kernel-env-arm64.sh, or -r), and every ELF program
#              among the extra files gets the libraries its dynamic linker
#              will load: AArch64 ones from that sysroot, 32-bit ARM
#              (armhf) ones from the host's cross libc
#              (/usr/arm-linux-gnueabihf, or -H's; installed at
#              /lib/arm-linux-gnueabihf and /lib/ld-linux-armhf.so.3, where
#              Debian's armhf loader looks).  A library found nowhere (and
#              not among the extra files) is an error.
#   -r ROOT    the guest's userland from ROOT, a Debian root of the
#              guest's architecture (a suite's chroot, scripts/
#              suite-root.sh): busybox, perf and every library the extra
#              files load, found there as for arm64 above; x86_64 too
#   -H DIR     the armhf cross libc's directory (default
#              /usr/arm-linux-gnueabihf)
#   -o OUT     output file (default $O/kernel/initramfs.cpio, or .cpio.gz
#              with -z)
#   -z         gzip the archive
#   -m KO      a module for /init to load at boot (repeatable), in order
#   -t SCRIPT  the test script, installed as /test.sh
#   -P         leave perf out
#   SRC[:DEST] an extra file (or directory, copied recursively) installed
#              at DEST, by default /root/<name of SRC>
#
# The guest's /init runs the script named by "uwind_test=PATH" on the
# kernel command line, else /test.sh, with /root as the working directory;
# everything goes to /dev/console (console=ttyS0, ttyAMA0 on arm64).  It prints
# "UWIND-INIT <uptime>" when it starts and "UWIND-EXIT <status>" when the
# script ends, then powers off.  Prints OUT's path on stdout.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out="" gz=0 mods="" test_script="" perf=1 arch=x86_64 sysroot=""
armhf=/usr/arm-linux-gnueabihf
while getopts a:o:zm:t:Pr:H: opt; do
	case $opt in
	a) arch=$OPTARG ;;
	r) sysroot=$OPTARG ;;
	H) armhf=$OPTARG ;;
	o) out=$OPTARG ;;
	z) gz=1 ;;
	m) mods="$mods
$OPTARG" ;;
	t) test_script=$OPTARG ;;
	P) perf=0 ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$out" ]; then
	out=${O:-build}/kernel/initramfs.cpio
	[ "$gz" -eq 0 ] || out=$out.gz
fi

die() { echo "mkinitramfs: $*" >&2; exit 1; }

for t in cpio ldd readelf; do
	command -v "$t" >/dev/null 2>&1 || die "$t is missing (make deps)"
done
busybox=""
case $arch in
x86_64 | amd64)
	arch=x86_64
	for b in "$sysroot/bin/busybox" "$sysroot/usr/bin/busybox"; do
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
			busybox=$b	# ldd fails on a static binary
			break
		fi
	done
	;;
arm64 | aarch64)
	arch=arm64
	if [ -z "$sysroot" ]; then
		. "$top/scripts/kernel-env-arm64.sh"
		sysroot=$UWIND_SYSROOT
	fi
	for b in "$sysroot/bin/busybox" "$sysroot/usr/bin/busybox"; do
		[ -f "$b" ] && busybox=$b && break
	done
	;;
*) die "unknown architecture $arch" ;;
esac

mkdir -p "$(dirname "$out")"
stage=$(mktemp -d "${TMPDIR:-/tmp}/uwind-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM

# A copy of $1 at $stage$2, parents created, symlinks followed.
put()
{
	mkdir -p "$stage$(dirname "$2")"
	cp -L "$1" "$stage$2"
}

# An ELF program and everything the dynamic linker will load for it: ldd's
# "name => /path" lines, and the interpreter, which it lists by path alone.
put_dynamic()
{
	put "$1" "$2"
	ldd "$1" 2>/dev/null | while read -r a b c _; do
		if [ "$b" = "=>" ]; then
			lib=$c
		else
			lib=$a
		fi
		case $lib in
		/*) ;;
		*) continue ;;	# linux-vdso.so.1: in the kernel
		esac
		[ -e "$lib" ] || die "library $lib of $1 not found"
		[ -e "$stage$lib" ] || put "$lib" "$lib"
	done
}

# elf_machine FILE: "AArch64", "ARM", "Advanced Micro Devices X86-64"...
# (empty when FILE is not ELF).
elf_machine()
{
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || return 0
	readelf -hW "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'
}

# in_root ROOT PATH: the host file that guest PATH is inside ROOT, its
# symbolic links followed inside ROOT (absolute ones too).
in_root()
{
	_p=$1$2
	_n=0
	while [ -L "$_p" ] && [ $_n -lt 16 ]; do
		_l=$(readlink "$_p")
		case $_l in
		/*) _p=$1$_l ;;
		*) _p=$(dirname "$_p")/$_l ;;
		esac
		_n=$((_n + 1))
	done
	echo "$_p"
}

# put_foreign FILE: the libraries and the dynamic linker a foreign (arm64
# or armhf) ELF program or library will load, found by their DT_NEEDED
# names, recursively: in the guest already (in the file's run path or the
# architecture's library directories: an extra file, or an earlier
# library), else in the architecture's host directories (HOSTDIR:GUESTDIR
# pairs).  Nothing is run.
put_foreign()
{
	_todo=$1
	while [ -n "$_todo" ]; do
		set -- $_todo
		_f=$1
		shift
		_todo=$*
		case $(elf_machine "$_f") in
		AArch64)
			_iroot=$sysroot
			_dirs="$_iroot/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu
			    $_iroot/usr/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu" ;;
		ARM)
			_iroot=$armhf
			_dirs="$_iroot/lib:/lib/arm-linux-gnueabihf" ;;
		"Advanced Micro Devices X86-64")
			[ -n "$sysroot" ] || continue
			_iroot=$sysroot
			_dirs="$_iroot/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu
			    $_iroot/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu" ;;
		*) continue ;;
		esac
		_interp=$(readelf -lW "$_f" |
			sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
		if [ -n "$_interp" ] && [ ! -e "$stage$_interp" ]; then
			_h=$(in_root "$_iroot" "$_interp")
			[ -e "$_h" ] || die "interpreter $_interp of $_f not found"
			put "$_h" "$_interp"
		fi
		# Where the guest's loader looks: the run path ($ORIGIN is the
		# file's own directory), then the system directories.
		_org=$(dirname "${_f#"$stage"}")
		_look=$(readelf -dW "$_f" |
			sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' |
			sed "s|\$ORIGIN|$_org|g; s|\${ORIGIN}|$_org|g" | tr ':' ' ')
		for _d in $_dirs; do
			_look="$_look ${_d#*:}"
		done
		for _n in $(readelf -dW "$_f" |
		    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			_found=""
			for _g in $_look; do
				[ -e "$stage$_g/$_n" ] && _found=1 && break
			done
			[ -z "$_found" ] || continue
			for _d in $_dirs; do
				[ -e "${_d%%:*}/$_n" ] || continue
				_found=${_d#*:}/$_n
				put "${_d%%:*}/$_n" "$_found"
				break
			done
			[ -n "$_found" ] ||
				die "library $_n of ${_f#"$stage"} not found"
			_todo="$_todo $stage$_found"
		done
	done
}

# Layout.  /lib64 and /lib are real directories here, so libraries land at
# the paths ldd prints (Debian's /lib is a link to /usr/lib on the host).
for d in bin sbin usr/bin usr/sbin lib lib64 etc dev proc sys tmp root \
    run mnt var lib/modules; do
	mkdir -p "$stage/$d"
done
chmod 1777 "$stage/tmp"
# mktemp made the root 0700: the tests run programs as ordinary users too.
chmod 755 "$stage"

# busybox and an applet link for each applet, where busybox says it lives.
# A foreign busybox cannot be asked here: /init makes its links ("busybox
# --install -s") and needs only /bin/sh to start.
[ -n "$busybox" ] || die "no static busybox in ${sysroot:-/} (busybox-static)"
put "$busybox" /bin/busybox
if [ "$arch" = x86_64 ]; then
	"$busybox" --list-full | while read -r p; do
		case $p in
		*/*) ;;
		*) continue ;;	# e.g. linuxrc
		esac
		[ -e "$stage/$p" ] || ln -s /bin/busybox "$stage/$p"
	done
else
	ln -s busybox "$stage/bin/sh"
fi

# The console node, for the kernel to open before /init runs.  Without
# root it cannot be made; /init then reopens it on the devtmpfs.
mknod "$stage/dev/console" c 5 1 2>/dev/null || :

# perf: Debian's /usr/bin/perf is either the real program or a wrapper
# script that execs perf_<major.minor>; we want the real program.
if [ "$perf" -eq 1 ] && [ -n "$sysroot" ]; then
	p=$sysroot/usr/bin/perf
	if [ "$(head -c 2 "$p")" = "#!" ]; then
		p=$(ls "$sysroot"/usr/bin/perf_* 2>/dev/null | sort -V | tail -n 1)
		[ -n "$p" ] || die "$sysroot/usr/bin/perf is a wrapper and no perf_<ver> exists"
	fi
	put "$p" /usr/bin/perf
	put_foreign "$stage/usr/bin/perf"
elif [ "$perf" -eq 1 ]; then
	p=$(command -v perf 2>/dev/null) || die "perf is missing (linux-perf)"
	if [ "$(head -c 2 "$p")" = "#!" ]; then
		real=""
		if . "$top/scripts/kernel-env.sh" 2>/dev/null; then
			mm=$(echo "$UWIND_KVER" | cut -d. -f1,2)
			[ -x "/usr/bin/perf_$mm" ] && real=/usr/bin/perf_$mm
		fi
		if [ -z "$real" ]; then
			real=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -n 1)
		fi
		[ -n "$real" ] || die "$p is a wrapper and no perf_<ver> exists"
		p=$real
	fi
	put_dynamic "$p" /usr/bin/perf
fi

# Modules to load at boot.
: > "$stage/etc/uwind-modules"
printf '%s\n' "$mods" | while read -r m; do
	[ -n "$m" ] || continue
	[ -f "$m" ] || die "no module $m"
	put "$m" "/lib/modules/$(basename "$m")"
	echo "/lib/modules/$(basename "$m")" >> "$stage/etc/uwind-modules"
done

if [ -n "$test_script" ]; then
	[ -f "$test_script" ] || die "no test script $test_script"
	put "$test_script" /test.sh
	chmod +x "$stage/test.sh"
fi

for a in "$@"; do
	case $a in
	*:*) src=${a%%:*} dest=${a#*:} ;;
	*) src=$a dest=/root/$(basename "$a") ;;
	esac
	[ -e "$src" ] || die "no file $src"
	if [ -d "$src" ]; then
		mkdir -p "$stage$dest"
		cp -RL "$src/." "$stage$dest"
	else
		put "$src" "$dest"
	fi
	[ "$arch" = x86_64 ] && [ -z "$sysroot" ] ||
		foreign="${foreign:-} $stage$dest"
done
# Their libraries, once every extra file is in place.
if [ -n "${foreign:-}" ]; then
	for f in $(find $foreign -type f); do
		put_foreign "$f"
	done
fi

cat > "$stage/init" <<'INIT'
#!/bin/sh
# uwind test guest: mount, load modules, run the test, power off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
[ -e /bin/mount ] || /bin/busybox --install -s
mount -t devtmpfs devtmpfs /dev 2>/dev/null
[ -c /dev/console ] && exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
hostname uwind
read -r up _ < /proc/uptime
echo "UWIND-INIT $up"
while read -r m; do
	[ -n "$m" ] || continue
	insmod "$m" || echo "init: insmod $m failed"
done < /etc/uwind-modules
t=/test.sh
for a in $(cat /proc/cmdline); do
	case $a in
	uwind_test=*) t=${a#uwind_test=} ;;
	esac
done
rc=127
if [ -f "$t" ]; then
	cd /root
	sh "$t"
	rc=$?
else
	echo "init: no test script $t"
fi
read -r up _ < /proc/uptime
echo "UWIND-EXIT $rc $up"
sync
poweroff -f
INIT
chmod 755 "$stage/init"

# newc, every file owned by root; sorted so equal inputs give equal bytes.
tmp="$out.tmp.$$"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$tmp"
if [ "$gz" -eq 1 ]; then
	gzip -n -6 < "$tmp" > "$tmp.gz"
	mv "$tmp.gz" "$tmp"
fi
mv "$tmp" "$out"
echo "$out"
