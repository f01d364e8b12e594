#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# suite-run.sh SUITE COMMAND [ARG...]
#
# Run COMMAND with the compilers, headers and tools of the Debian SUITE:
# for the host's own suite (bookworm) right here, for another (trixie,
# forky) in its chroot (scripts/suite-root.sh, made on first use) with
# the source tree, and $O when it lies elsewhere, mounted at the same
# paths as on the host and /proc mounted, in a mount namespace of its own
# (nothing stays mounted after it); so are the directories named in
# UWIND_SUITE_MOUNTS (space separated: the debug kernel's build, for
# one).  The working directory is kept.
# COMMAND's files land in the tree as they would on the host, owned by
# the same user.  Exit status: COMMAND's.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: suite-run.sh SUITE COMMAND [ARG...]" >&2; exit 2; }
suite=$1
shift
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "$suite" = "$host" ]; then
	exec "$@"
fi
root=$(sh "$top/scripts/suite-root.sh" -q "$suite")
mounts="$top ${UWIND_SUITE_MOUNTS:-}"
if [ -n "${O:-}" ]; then
	mkdir -p "$O"
	o=$(cd "$O" && pwd -P)
	case $o/ in
	"$top"/*) ;;
	*) mounts="$mounts $o" ;;
	esac
fi
exec unshare -m --propagation private sh -c '
	root=$1 mounts=$2 dir=$3
	shift 3
	for m in $mounts; do
		mkdir -p "$root$m"
		mount --bind "$m" "$root$m" || exit 125
	done
	mount -t proc proc "$root/proc" || exit 125
	exec chroot "$root" sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"' \
	sh "$root" "$mounts" "$(pwd -P)" "$@"
