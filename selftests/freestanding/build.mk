# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Freestanding gate: lib/ built for x86-64, AArch64 and Cortex-M3 with
# -ffreestanding -nostdlib; no undefined symbols, no .data/.bss, bounded
# stack per public function (see check.sh).  Not a sanitizer test: it
# compiles the core itself, so it stays out of SAN_TESTS.

ifeq ($(SAN),)
$(call uw_test,sh selftests/freestanding/check.sh $(O))
endif
