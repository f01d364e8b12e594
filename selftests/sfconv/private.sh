#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# install.sh from a build directory under a directory only its owner may
# enter, as a clone under `mktemp -d` (mode 0700) or in a Debian 12 home
# directory (0700 by default) has it: the tests that run the tool as
# another user must still pass.  The tool and the program install.sh
# needs are copied there; install.sh's own TAP is passed through, so each
# of its tests counts here.
#
# usage: private.sh BUILD_DIR
set -u
O=${1:-build}
. selftests/common/tap.sh
tap_scratch
P=$TMP/private
mkdir -p "$P/build/selftests/sfconv" && chmod 700 "$TMP" "$P" &&
	cp "$O/uwind" "$P/build/uwind" &&
	cp "$O/selftests/sfconv/crash" "$P/build/selftests/sfconv/crash" || {
	tap_bail "cannot copy the tool and the program under a 0700 directory"
	exit 1
}
sh selftests/sfconv/install.sh "$P/build"
