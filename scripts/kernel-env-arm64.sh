# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced (". scripts/kernel-env-arm64.sh") by the arm64 harness scripts,
# which set $top to the source tree first.  The arm64 counterpart of
# scripts/kernel-env.sh: Debian 12's arm64 kernel, extracted (never
# installed) by scripts/deps-arm64.sh, which runs first (it does nothing
# once its cache is complete).  Sets:
#
#   UWIND_SYSROOT   the extracted packages (kernel /boot, headers, kbuild,
#                   perf and its libraries, busybox)
#   UWIND_KVER      the kernel's version (e.g. 6.1.0-56-arm64)
#   UWIND_KBUILD    its headers build directory (for make -C ... M=...)
#   UWIND_VMLINUZ   its image (an uncompressed arm64 Image)
#   UWIND_KMAKE     what make -C $UWIND_KBUILD needs to cross-build
#                   (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
#
# Returns 1 (with a message on stderr) when the packages cannot be had.

# shellcheck disable=SC2154 # top: the caller's
uwind_kenv_arm64()
{
	UWIND_SYSROOT=$(sh "$top/scripts/deps-arm64.sh" -q) || return 1
	read -r UWIND_KVER _ < "$UWIND_SYSROOT/.uwind-version" || return 1
	UWIND_KBUILD=$UWIND_SYSROOT/usr/src/linux-headers-$UWIND_KVER
	UWIND_VMLINUZ=$UWIND_SYSROOT/boot/vmlinuz-$UWIND_KVER
	UWIND_KMAKE="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	export UWIND_SYSROOT UWIND_KVER UWIND_KBUILD UWIND_VMLINUZ UWIND_KMAKE
	if ! command -v aarch64-linux-gnu-gcc-12 >/dev/null 2>&1; then
		# The headers' Makefile names gcc-12 exactly.
		echo "kernel-env-arm64: aarch64-linux-gnu-gcc-12 is missing" \
			"(gcc-aarch64-linux-gnu: make deps)" >&2
		return 1
	fi
}

uwind_kenv_arm64
