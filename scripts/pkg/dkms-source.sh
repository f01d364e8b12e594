#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# dkms-source.sh DIR [VERSION]
#
# Write the module's source tree as DKMS takes it into DIR (normally
# /usr/src/uwind-VERSION, or a package's staging copy of it): dkms.conf
# (scripts/pkg/dkms.conf.in, VERSION filled in; default: version.sh's)
# and exactly what Kbuild builds from, at the same relative paths:
#
#   Kbuild, lib/uwind.mk          the build description
#   kernel/*.c, lib/*.c           the sources Kbuild names (uwind-y), on
#                                 x86-64 and on arm64 (the union)
#   headers                       those the sources include, and theirs,
#                                 and those Kbuild names (UW_ENV_HEADER):
#                                 "X" (beside the includer, or under
#                                 include/ or lib/, Kbuild's -I) and
#                                 <uwind/X> (include/uwind/), e.g.
#                                 scripts/uwind/uwsf.h, which the module
#                                 shares with the tool
#
# DIR is made anew.  Prints the files, relative to DIR, on stdout.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: dkms-source.sh DIR [VERSION]" >&2; exit 2; }
dir=$1
version=${2:-$(sh "$top/scripts/pkg/version.sh")}

# The objects Kbuild links, for each architecture it takes: Kbuild read
# by make with what the kernel's build would define.
objs()
{
	# shellcheck disable=SC2016 # make's $(...), not the shell's
	printf 'include Kbuild\nuw-print:\n\t@echo $(uwind-y)\n' |
		make --no-print-directory -s -C "$top" -f - src=. "$@" uw-print
}
srcs=$({
	objs CONFIG_X86_64=y SRCARCH=x86
	objs CONFIG_ARM64=y SRCARCH=arm64
} | tr ' ' '\n' | sed -n 's/\.o$/.c/p' | sort -u | tr '\n' ' ')
[ -n "$srcs" ] || { echo "dkms-source.sh: Kbuild names no source" >&2; exit 1; }

# Headers Kbuild names on the command line (-DUW_ENV_HEADER='"uwk_env.h"',
# which env.h includes by the macro), found under Kbuild's -I
# directories.
named=""
for h in $(sed -n "s/.*_HEADER='\"\([^\"]*\)\"'.*/\1/p" "$top/Kbuild"); do
	for d in kernel include lib; do
		if [ -f "$top/$d/$h" ]; then
			named="$named $d/$h"
			break
		fi
	done
done

# The headers they include, to a fixed point.
files="$srcs$named"
todo="$srcs$named"
while [ -n "$todo" ]; do
	new=""
	for f in $todo; do
		d=$(dirname "$f")
		# shellcheck disable=SC2013 # include names have no spaces
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/q:\1/p
			s/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(uwind\/[^>]*\)>.*/a:\1/p' \
			"$top/$f"); do
			name=${inc#?:}
			case $inc in
			q:*) cands="$d/$name include/$name lib/$name" ;;
			a:*) cands="include/$name" ;;
			esac
			hit=""
			for c in $cands; do
				# lib/../scripts/uwind/uwsf.h -> scripts/uwind/uwsf.h
				c=$(realpath -m --relative-to="$top" "$top/$c")
				if [ -f "$top/$c" ]; then
					hit=$c
					break
				fi
			done
			[ -n "$hit" ] || continue	# the kernel's own headers
			case " $files " in
			*" $hit "*) ;;
			*) files="$files $hit" new="$new $hit" ;;
			esac
		done
	done
	todo=$new
done

rm -rf "$dir"
mkdir -p "$dir"
for f in Kbuild lib/uwind.mk $files; do
	mkdir -p "$dir/$(dirname "$f")"
	cp "$top/$f" "$dir/$f"
	chmod 644 "$dir/$f"
done
sed "s/@VERSION@/$version/" "$top/scripts/pkg/dkms.conf.in" > "$dir/dkms.conf"
chmod 644 "$dir/dkms.conf"
(cd "$dir" && find . -type f | sed 's|^\./||' | sort)
