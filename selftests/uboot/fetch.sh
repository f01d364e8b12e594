#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# fetch.sh: the pinned U-Boot source, Debian 12's u-boot source package
# (upstream 2023.01 with Debian's patches applied), fetched with apt-get
# source and kept in a cache; prints the tree's path.
#
# apt-get runs on a private state (its own lists and caches, a sources
# list naming bookworm's deb-src alone), so the host's apt setup is read,
# never changed.  The archive is the host's own mirror, read from its apt
# sources at run time (UWIND_DEBIAN_MIRROR overrides it).
#
# Cached: $UWIND_CACHE/u-boot (default ${XDG_CACHE_HOME:-$HOME/.cache}/uwind,
# like scripts/deps-arm64.sh; locked while it is written).  Once the tree is
# there a run costs one file test and no network.
set -eu

VERSION=2023.01+dfsg-2+deb12u3
cache=${UWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uwind}/u-boot
tree=$cache/$VERSION
die() { echo "fetch.sh: $*" >&2; exit 1; }

done_already()
{
	[ -f "$tree/.uwind-complete" ] && [ -f "$tree/Kconfig" ]
}
if done_already; then
	echo "$tree"
	exit 0
fi
for t in apt-get dpkg-source flock; do
	command -v "$t" >/dev/null 2>&1 || die "$t is missing (make deps)"
done
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
if done_already; then
	echo "$tree"
	exit 0
fi

# The host's Debian mirror (scripts/debian-mirror.sh, as the kernel
# matrix's chroots take it).
. "$(dirname "$0")/../../scripts/debian-mirror.sh"
mirror=${UWIND_DEBIAN_MIRROR:-$(debian_mirror main)}
[ -n "$mirror" ] || die "no Debian mirror in the host's apt sources"

st=$cache/apt
rm -rf "$st" "$tree.new"
mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$tree.new"
echo "deb-src $mirror bookworm main" > "$st/sources.list"
set -- -q -o Dir::Etc::SourceList="$st/sources.list" \
	-o Dir::Etc::SourceParts=- -o Dir::State::Lists="$st/lists" \
	-o Dir::Cache="$st/cache" -o Acquire::Languages=none
# As root, apt drops to the _apt user to download, which cannot write here.
[ "$(id -u)" -ne 0 ] || set -- "$@" -o APT::Sandbox::User=root
apt-get "$@" update >&2 || apt-get "$@" update >&2 ||
	die "apt-get update failed"
(cd "$tree.new" && apt-get "$@" source "u-boot=$VERSION" >&2) ||
	die "apt-get source u-boot=$VERSION failed"
src=$(ls -d "$tree.new"/u-boot-*/ 2>/dev/null | head -n 1)
[ -n "$src" ] && [ -f "$src/Kconfig" ] || die "no U-Boot tree was unpacked"
rm -rf "$tree"
mv "$src" "$tree"
echo "$VERSION" > "$tree/.uwind-complete"
rm -rf "$tree.new" "$st"
echo "$tree"
