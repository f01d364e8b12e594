#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# source.sh [DIR]: rules of the module's sources (DIR, default kernel/)
# that no compiler checks:
# - every allocation is wrapped in uwk_nomem() (a failure counted in
#   alloc_failed) and asks with UWK_GFP or UWK_GFP_ATOMIC (__GFP_NOWARN:
#   a failure the user caused is not logged);
# - no bare GFP_KERNEL or GFP_ATOMIC anywhere else;
# - the module's license as declared.
# Comments are left out before the search.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/kernel}
. "$top/selftests/common/tap.sh"

# The C of FILE without its comments, each line kept with its number.
code()
{
	awk '{
		line = $0; out = ""
		while (line != "") {
			if (inc) {
				i = index(line, "*/")
				if (!i) { line = ""; break }
				line = substr(line, i + 2); inc = 0
				continue
			}
			i = index(line, "/*")
			if (!i) { out = out line; break }
			out = out substr(line, 1, i - 1)
			line = substr(line, i + 2); inc = 1
		}
		print FILENAME ":" FNR ": " out
	}' "$1"
}

allocs='k(v)?(m|z|c)alloc(_array|_node)?|kvcalloc|kstrdup|kmemdup|kasprintf|krealloc|alloc_percpu(_gfp)?|alloc_workqueue|__get_free_pages?|alloc_pages'

tap_begin
for f in "$dir"/*.c "$dir"/*.h; do
	[ -e "$f" ] && code "$f"
done > "${TMPDIR:-/tmp}/uw-src.$$"
src=${TMPDIR:-/tmp}/uw-src.$$
trap 'rm -f "$src"' EXIT

n=$(grep -cE "\\b($allocs)\\(" "$src")
bare=$(grep -E "\\b($allocs)\\(" "$src" | grep -vE "uwk_nomem\\(($allocs)\\(")
[ "$n" -gt 0 ] && [ -z "$bare" ]
tap_result $? "every one of the module's $n allocations is wrapped in uwk_nomem()"
[ -z "$bare" ] || echo "$bare" | sed 's/^/# /'

gfp=$(grep -E '\bGFP_(KERNEL|ATOMIC)\b' "$src" | grep -vE '#define UWK_GFP')
[ -z "$gfp" ]
tap_result $? "no allocation asks with bare GFP_KERNEL or GFP_ATOMIC (UWK_GFP, UWK_GFP_ATOMIC: __GFP_NOWARN)"
[ -z "$gfp" ] || echo "$gfp" | sed 's/^/# /'

grep -q 'MODULE_LICENSE("Dual MIT/GPL")' "$src"
tap_result $? 'the module declares MODULE_LICENSE("Dual MIT/GPL")'
tap_end
