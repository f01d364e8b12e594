#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Install the Debian packages uwind's build, tests and demo need.
# Idempotent: packages already installed are not touched, and apt-get is
# only run when something is missing.  Nothing is fetched from anywhere
# but the Debian archive.
set -eu

PKGS="
make gcc libc6-dev python3
clang-14 llvm-14 lld-14 libclang-rt-14-dev
libelf-dev libdw-dev elfutils
gdb gdb-multiarch valgrind libunwind8
binutils binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
debootstrap
pkg-config libc6-dbg man-db groff-base
gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi
gcc-arm-linux-gnueabihf binutils-arm-linux-gnueabihf libc6-dev-armhf-cross libstdc++6-armhf-cross
qemu-user qemu-system-arm
linux-image-amd64 linux-headers-amd64 linux-perf linux-kbuild-6.1 perl
busybox-static qemu-system-x86 cpio kmod
xz-utils zstd lz4 bzip2 gzip
dpkg-dev lintian systemd
bison flex bc libssl-dev
"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

# The arm64 guest's kernel, headers, perf and busybox: downloaded from the
# Debian archive into a cache and extracted, never installed (apt-get and
# dpkg-deb only; nothing to do once cached).
sh "$(dirname "$0")/deps-arm64.sh" >/dev/null

[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# An update is needed on a fresh machine; retry once on a transient failure.
$SUDO apt-get update -qq || $SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
