# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sourced by diff.sh and objfile.sh, after selftests/common/tap.sh: the
# test that `uwind dump` agrees with `objdump --sframe`, both normalised
# by sframe_norm.awk.
#
#   sframe_dump_test PREFIX NAME ARCH FILE [rel]
#
# Writes PREFIX.od and PREFIX.uw and their normal forms PREFIX.od.n (the
# FDE list diff.sh's lookup test reads) and PREFIX.uw.n; "rel" compares
# FRE starts relative to their FDE (object files: see sframe_norm.awk).
# Source it with O set (the build directory): it sets TOOL, HERE and SRC.
TOOL=$O/uwind
HERE=selftests/diff
SRC=$HERE/src

sframe_dump_test()
{
	dt_b=$1 dt_name=$2 dt_arch=$3 dt_f=$4 dt_rel=${5:+1}
	objdump --sframe "$dt_f" >"$dt_b.od" 2>"$dt_b.od.err"
	"$TOOL" dump "$dt_f" >"$dt_b.uw" 2>"$dt_b.uw.err"
	dt_rc=$?
	for dt_s in od uw; do
		awk -v src="$([ $dt_s = od ] && echo objdump || echo uwind)" \
			-v arch="$dt_arch" -v rel="$dt_rel" -f "$HERE/hex.awk" \
			-f "$HERE/sframe_norm.awk" "$dt_b.$dt_s" >"$dt_b.$dt_s.n"
	done
	dt_fdes=$(grep -c '^F ' "$dt_b.od.n")
	dt_fres=$(grep -c '^R ' "$dt_b.od.n")
	tap_diag "$dt_name: objdump lists $dt_fdes FDEs, $dt_fres FREs"
	if [ "$dt_rc" -ne 0 ]; then
		sed 's/^/# /' "$dt_b.uw.err" | head -5
		tap_not_ok "$dt_name: uwind dump exits $dt_rc"
	elif [ "$dt_fdes" -eq 0 ]; then
		tap_not_ok "$dt_name: objdump shows no SFrame FDE"
	elif cmp -s "$dt_b.od.n" "$dt_b.uw.n"; then
		tap_ok "$dt_name: uwind dump = objdump --sframe ($dt_fdes FDEs, $dt_fres FREs)"
	else
		diff "$dt_b.od.n" "$dt_b.uw.n" | head -20 | sed 's/^/# /'
		tap_not_ok "$dt_name: uwind dump differs from objdump --sframe"
	fi
}
