#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# version.sh: the version of the packages and of the DKMS source tree
# (/usr/src/uwind-VERSION), from `git describe`, as a Debian version (a
# native package's: digits first, then [A-Za-z0-9.+~], no hyphen), which
# grows with every commit so that an upgrade installs over the last:
#
#   at a tag vX.Y.Z                    X.Y.Z
#   N commits past vX.Y.Z              X.Y.Z+N.gHASH
#   no tag yet                         R+gitN.gHASH: R the release the
#                                      Makefile names (UWIND_VERSION), N
#                                      the commits in HEAD
#   uncommitted changes                the same, then .dirty
#   no git (a chroot without it, a     R, with a note on stderr
#   tree without .git)
#
# UWIND_PKG_VERSION, when set, is taken as it is (checked): what a build
# where git cannot run is given, e.g. the version the host computed.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
valid='^[0-9][A-Za-z0-9.+~]*$'

if [ -n "${UWIND_PKG_VERSION:-}" ]; then
	v=$UWIND_PKG_VERSION
else
	rel=$(sed -n 's/^UWIND_VERSION := *//p' "$top/Makefile")
	d=$(git -C "$top" describe --tags --long --always --dirty \
		--match 'v[0-9]*' 2>/dev/null) || d=""
	dirty=""
	case $d in
	*-dirty) dirty=.dirty d=${d%-dirty} ;;
	esac
	case $d in
	"")
		echo "version.sh: no git here: version $rel" >&2
		v=$rel
		;;
	v[0-9]*-*-g*)
		# vX.Y.Z-N-gHASH
		hash=${d##*-}
		rest=${d%-*}
		n=${rest##*-}
		tag=${rest%-*}
		v=${tag#v}
		[ "$n" -eq 0 ] || v=$v+$n.$hash
		;;
	*)
		# No tag: the abbreviated commit alone.
		n=$(git -C "$top" rev-list --count HEAD)
		v=$rel+git$n.g$d
		;;
	esac
	v=$v$dirty
fi
if ! printf '%s\n' "$v" | grep -Eq "$valid"; then
	echo "version.sh: '$v' is not a Debian version of a native package" >&2
	exit 1
fi
echo "$v"
