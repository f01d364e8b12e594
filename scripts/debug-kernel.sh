#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# debug-kernel.sh [-q]
#
# The test bed's debug kernel: Debian 13's own kernel source
# (linux-source-6.12 in trixie's chroot, scripts/suite-root.sh),
# configured with x86_64_defconfig, kvm_guest.config and
# selftests/kernel/debug.config (lockdep, KASAN, UBSAN, kmemleak, debug
# objects, fault injection) and built in that chroot by its gcc.  Made
# once and cached beside the chroots, in DIR (CACHE/suites/debug-kernel):
#   DIR/src/           the source tree
#   DIR/build/         the build (O=): external modules are built with
#                      make -C DIR/build M=<dir> (in trixie's chroot, with
#                      DIR mounted: UWIND_SUITE_MOUNTS=DIR suite-run.sh)
#   DIR/vmlinuz        its bzImage
#   DIR/complete       what it was made from: the source package's
#                      version and the fragment's checksum
# A change to either makes it again.  Prints DIR; the log of a build is
# DIR.log.  About 20 minutes of two CPUs under load; a second run while
# one builds waits for it.  -q: nothing but DIR on standard output.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
quiet=0
[ "${1:-}" = -q ] && quiet=1
say() { [ "$quiet" -eq 1 ] || echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: $*" >&2; exit 1; }

frag=$top/selftests/kernel/debug.config
cache=${UWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uwind}/suites
dir=$cache/debug-kernel
root=$(sh "$top/scripts/suite-root.sh" -q trixie) || die "no trixie chroot"
tarball=$root/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball is missing (scripts/suite-root.sh trixie)"
srcver=$(chroot "$root" dpkg-query -W -f '${Version}' linux-source-6.12)
want="$srcver $(sha256sum < "$frag" | cut -d' ' -f1)"

current()
{
	[ -f "$dir/complete" ] && [ "$(cat "$dir/complete")" = "$want" ]
}
if current; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
exec 8>"$dir.lock"
flock 8
if current; then
	echo "$dir"
	exit 0
fi

say "building Debian's linux-source $srcver with $frag (log: $dir.log)"
rm -rf "$dir"
mkdir -p "$dir/src"
cp "$frag" "$dir/debug.config"
# In the chroot, DIR mounted at the same path; nothing stays mounted.
unshare -m --propagation private sh -c '
	root=$1 dir=$2 tarball=$3
	mkdir -p "$root$dir"
	mount --bind "$dir" "$root$dir" || exit 125
	mount -t proc proc "$root/proc" || exit 125
	exec chroot "$root" sh -c "
		set -e
		cd $dir
		tar -xJf /usr/src/${tarball##*/} -C src --strip-components=1
		make -C src O=$dir/build -s x86_64_defconfig
		cd build
		../src/scripts/kconfig/merge_config.sh -m .config \
			../src/kernel/configs/kvm_guest.config ../debug.config
		make -C ../src O=$dir/build -s olddefconfig
		make -C ../src O=$dir/build -j\$(nproc) bzImage modules
	"' sh "$root" "$dir" "$tarball" > "$dir.log" 2>&1 ||
	{ tail -n 30 "$dir.log" >&2; die "the build failed"; }

# Every option of the fragment as asked: one Kconfig dropped (a
# dependency not met) would be a checker silently off.
missing=""
while IFS= read -r l; do
	case $l in
	CONFIG_*=n)
		! grep -q "^${l%=n}=" "$dir/build/.config" || missing="$missing $l" ;;
	CONFIG_*)
		grep -qxF "$l" "$dir/build/.config" || missing="$missing $l" ;;
	esac
done < "$frag"
[ -z "$missing" ] || die "the configuration lacks:$missing"
cp "$dir/build/arch/x86/boot/bzImage" "$dir/vmlinuz"
echo "$want" > "$dir/complete"
say "built $(cat "$dir/build/include/config/kernel.release")"
echo "$dir"
