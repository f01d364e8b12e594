# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced (". scripts/kernel-env.sh") by the kernel harness scripts.  Finds
# the installed Debian kernel that has a headers build directory, and sets:
#
#   UWIND_KVER      its version (e.g. 6.1.0-56-amd64)
#   UWIND_KBUILD    its headers build directory (for make -C ... M=...)
#   UWIND_VMLINUZ   its compressed image (/boot/vmlinuz-<ver>)
#   UWIND_KMODDIR   its modules directory (/lib/modules/<ver>)
#
# The running kernel (uname -r) is deliberately not used: the machines this
# runs on boot a kernel that is not Debian's and has no headers.  Set
# UWIND_KVER beforehand to pick one version when several are installed;
# otherwise the highest version that has both headers and an image wins.
# Returns 1 (with a message on stderr) when nothing usable is installed.

uwind_kenv_build_dir()
{
	# $1 = version; prints the headers build dir or nothing.
	for _d in "/lib/modules/$1/build" "/usr/src/linux-headers-$1"; do
		if [ -f "$_d/Makefile" ] && [ -f "$_d/Module.symvers" ]; then
			(cd "$_d" && pwd -P)
			return 0
		fi
	done
	return 1
}

uwind_kenv_find()
{
	if [ -n "${UWIND_KVER:-}" ]; then
		_cands="$UWIND_KVER"
	else
		_cands=$( {
			ls /lib/modules 2>/dev/null
			ls /boot 2>/dev/null | sed -n 's/^vmlinuz-//p'
			ls /usr/src 2>/dev/null | sed -n 's/^linux-headers-//p'
		} | sort -u -V -r)
	fi
	for _v in $_cands; do
		_b=$(uwind_kenv_build_dir "$_v") || continue
		[ -f "/boot/vmlinuz-$_v" ] || continue
		UWIND_KVER=$_v
		UWIND_KBUILD=$_b
		UWIND_VMLINUZ=/boot/vmlinuz-$_v
		UWIND_KMODDIR=/lib/modules/$_v
		export UWIND_KVER UWIND_KBUILD UWIND_VMLINUZ UWIND_KMODDIR
		return 0
	done
	echo "kernel-env: no installed kernel with headers and /boot/vmlinuz-<ver>" \
		"(install linux-image-amd64 and linux-headers-amd64: make deps)" >&2
	return 1
}

uwind_kenv_find
