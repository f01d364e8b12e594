# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced by scripts/deps-arm64.sh, scripts/suite-root.sh and
# selftests/uboot/fetch.sh:
#
#   debian_mirror main|security
#
# prints the Debian archive the host's apt sources name for this
# release: the first URI of a deb822 stanza (/etc/apt/sources.list.d/
# *.sources) or a "deb" line (/etc/apt/sources.list) whose suite is this
# host's codename (main: CODENAME or CODENAME-updates; security:
# CODENAME-security; a suite named by its alias, stable or testing, counts
# too), or nothing.  Sources of other vendors (a cloud
# SDK, nodesource) are skipped by their suite, whatever their file's
# name sorts as.  UWIND_DEBIAN_MIRROR / UWIND_DEBIAN_SECURITY, where set,
# are the callers' to prefer.  UWIND_APT_DIR (default /etc/apt) and
# UWIND_OS_RELEASE (default /etc/os-release) are for the tests
# (selftests/common/mirror.sh).

debian_mirror()
{
	_dm_apt=${UWIND_APT_DIR:-/etc/apt}
	_dm_code=$(. "${UWIND_OS_RELEASE:-/etc/os-release}" &&
		echo "${VERSION_CODENAME:-}")
	[ -n "$_dm_code" ] || return 0
	{
		for _dm_f in "$_dm_apt"/sources.list.d/*.sources; do
			[ -f "$_dm_f" ] || continue
			# One "URI SUITE..." line a stanza, stanzas apart by
			# blank lines; disabled ones (Enabled: no) left out.
			awk '
			function flush() {
				if (uris != "" && on)
					print uris "\t" suites
				uris = suites = ""; on = 1
			}
			BEGIN { on = 1 }
			/^[[:space:]]*$/ { flush(); next }
			/^#/ { next }
			tolower($1) == "uris:" { $1 = ""; uris = $0 }
			tolower($1) == "suites:" { $1 = ""; suites = $0 }
			tolower($1) == "enabled:" && tolower($2) == "no" { on = 0 }
			END { flush() }' "$_dm_f"
		done
		[ -f "$_dm_apt/sources.list" ] &&
			sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]\{1,\}\)[[:space:]]\{1,\}\([^[:space:]]\{1,\}\).*/\2\t\3/p' \
				"$_dm_apt/sources.list"
	} | awk -F '\t' -v code="$_dm_code" -v kind="$1" '
	{
		n = split($2, s, " ")
		for (i = 1; i <= n; i++) {
			r = s[i]
			sub(/^(old)*stable|^testing|^unstable|^sid/, code, r)
			if (kind == "security")
				ok = r == (code "-security")
			else
				ok = r == code || r == (code "-updates")
			if (ok) {
				split($1, u, " ")
				print u[1]
				exit
			}
		}
	}'
}
