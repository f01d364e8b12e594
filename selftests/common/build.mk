# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/common: what every area shares (tap.sh and tap.h, the
# self-unwinding chain, the qemu-user wrapper), and the test of the test
# runner itself: scripts/run-tests.sh must fail a program whose plan is
# missing or does not match what it printed (runner.sh); the scripts'
# Debian mirror from the host's apt sources (mirror.sh).

$(call uw_test,sh selftests/common/runner.sh $(O),unit)
$(call uw_test,sh selftests/common/mirror.sh $(O),unit)
