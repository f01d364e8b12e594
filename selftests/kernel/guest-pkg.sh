#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The packages' guest (selftests/kernel/pkg.sh): the module DKMS built in
# the suite's chroot at /root/uwind.ko, the packaged uwind at
# /usr/bin/uwind, and the tables the package's trigger installed there at
# /var/lib/uwind, on the suite's stock kernel.  Checks the module's
# version, the chains of the kernel tests (guest-tests.sh's parts), that
# a short-lived program run 1,000 times reads the installed tables once,
# prints `uwind status --json` between UWSTATUS-BEGIN and UWSTATUS-END,
# with "UWPIDS PID COMM" for each process that has executable mappings at
# that moment, for the host to check; then runs the agent as the packaged
# uwind.service does (/root/uwind.service, /root/uwind.conf) and checks
# that a program built after it started has whole chains.

. /root/guest-lib.sh
. /root/guest-inst.sh
. /root/guest-agent.sh

UW_MIN=${UW_MIN:-200}
UW_GOOD=${UW_GOOD:-99}
UW_INST_GOOD=${UW_INST_GOOD:-95}
T=/tmp

ver=""
for a in $(cat /proc/cmdline); do
	case $a in
	uwind_pkg_version=*) ver=${a#uwind_pkg_version=} ;;
	esac
done

load
ok $? "insmod of the module DKMS built"
v=$(cat /sys/module/uwind/version 2>/dev/null)
[ -n "$ver" ] && [ "$v" = "$ver" ]
ok $? "/sys/module/uwind/version is the package's ($v, $ver)"

# The kernel tests' chains, with this module.
UW_PARTS="progs leaf lib signal" sh /root/guest-tests.sh ||
	uw_fails=$((uw_fails + 1))

# The trigger's tables are there: libc has one.
load
uwind sframe --install /root/hot-mem > "$T/inst.out" 2>&1
ok $? "uwind sframe --install /root/hot-mem (the packaged tool)"
echo 1 > "$UW_DBG/installed"
t_inst_keep

# uwind status while a program of each kind runs: leaf-sf (its own
# SFrame, libc's installed table).
bg_prog leaf-sf 60000
sleep 1
uwind status --json > "$T/status.json" 2> "$T/status.err"
r=$?
for d in /proc/[0-9]*; do
	# (proc files have no size: read them.)
	grep -q ' ..x. ' "$d/maps" 2>/dev/null || continue
	read -r c < "$d/comm" 2>/dev/null || continue
	echo "UWPIDS ${d#/proc/} $c"
done
echo UWSTATUS-BEGIN
cat "$T/status.json"
echo
echo UWSTATUS-END
kill "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
[ $r -eq 0 ]
ok $? "uwind status --json exits 0"
diag < "$T/status.err"
uwind status | head -n 30 | diag

# The agent as the packaged uwind.service runs it (its ExecStart, with
# the packaged /etc/uwind.conf's variables): a program built after it
# started has whole chains with no install step.
_cmd=$(sed -n 's/^ExecStart=//p' /root/uwind.service)
# shellcheck disable=SC1091 # the package's conffile, NAME="value" lines
. /root/uwind.conf
eval "set -- $_cmd"
[ "${1:-} ${2:-}" = "/usr/bin/uwind agent" ]
ok $? "uwind.service's ExecStart runs the packaged uwind agent ($_cmd)"
shift 2
ag_start "$@"
[ "$ag_ready_ms" -le 1000 ] && kill -0 "$ag" 2>/dev/null
ok $? "uwind agent $* (the service's, UWIND_AGENT_OPTIONS=\"$UWIND_AGENT_OPTIONS\") ready in $ag_ready_ms ms"
t_agent_new
ag_stop
[ "$ag_rc" -eq 0 ]
ok $? "the service's agent: SIGTERM, exit 0"
ag_said '^(installed|failed|timeout|store-full|user-budget)'

unload
ok $? "rmmod uwind"
exit "$uw_fails"
