#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# scripts/debian-mirror.sh on made-up apt sources: the Debian archive of
# the host's release is found whatever other vendors' sources sort
# before it, in deb822 stanzas and in sources.list lines, disabled
# stanzas left out, and nothing is printed when no source names the
# release.
#
# usage: mirror.sh [BUILD_DIR]
set -u
O=${1:-build}
. "$(dirname "$0")/tap.sh"
. scripts/debian-mirror.sh
W=$O/selftests/common/mirror
export UWIND_APT_DIR=$W/apt UWIND_OS_RELEASE=$W/os-release

# setup: a fresh apt directory for the release "trixie".
setup()
{
	rm -rf "$W"
	mkdir -p "$W/apt/sources.list.d"
	echo VERSION_CODENAME=trixie > "$W/os-release"
}

# is KIND WANT DESC
is()
{
	got=$(debian_mirror "$1")
	tap_result "$([ "$got" = "$2" ] && echo 0 || echo 1)" \
		"$3 (got '$got')"
}

tap_begin 8

setup
cat > "$W/apt/sources.list.d/a-cloud.sources" <<'S'
Types: deb
URIs: https://packages.example.com/apt
Suites: cloud-sdk
Components: main
S
cat > "$W/apt/sources.list.d/debian.sources" <<'S'
Types: deb
# a snapshot once
URIs: http://mirror.example.org/debian http://other.example.org/debian
Suites: trixie trixie-updates
Components: main

Types: deb
URIs: http://mirror.example.org/debian-security
Suites: trixie-security
Components: main
S
is main http://mirror.example.org/debian \
	"deb822: the release's archive, another vendor's file sorting first"
is security http://mirror.example.org/debian-security \
	"deb822: the security archive"

setup
cat > "$W/apt/sources.list.d/debian.sources" <<'S'
Types: deb
URIs: http://off.example.org/debian
Suites: trixie
Enabled: no

Types: deb
URIs: http://on.example.org/debian
Suites: trixie-updates
S
is main http://on.example.org/debian "deb822: a disabled stanza left out"

setup
cat > "$W/apt/sources.list" <<'S'
# deb http://commented.example.org/debian trixie main
deb https://deb.nodesource.com/node_20.x nodistro main
deb [arch=amd64 signed-by=/k.gpg] http://list.example.org/debian trixie main
deb http://list.example.org/debian-security trixie-security main
S
is main http://list.example.org/debian \
	"sources.list: the release's line, options and comments skipped"
is security http://list.example.org/debian-security \
	"sources.list: the security line"

setup
echo "deb http://list.example.org/debian bookworm main" > "$W/apt/sources.list"
is main "" "another release's archive only: nothing"

setup
echo "deb http://alias.example.org/debian stable main" > "$W/apt/sources.list"
is main http://alias.example.org/debian "a suite by its alias (stable)"
is security "" "no security archive: nothing"
tap_end
