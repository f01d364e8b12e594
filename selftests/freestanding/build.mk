# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Freestanding gate: lib/ built for x86-64, AArch64 and Cortex-M3 with
# -ffreestanding -nostdlib; no undefined symbols, no .data/.bss, bounded
# stack per public function (see check.sh).  Not a sanitizer test: it
# compiles the core itself, so it stays out of SAN_TESTS.

FS_DIR := $(O)/selftests/freestanding

# run-tests.sh word-splits TESTS, so the command is a one-word wrapper.
$(FS_DIR)/check: selftests/freestanding/build.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh selftests/freestanding/check.sh %s\n' '$(O)' >$@
	chmod +x $@

ifeq ($(SAN),)
ALL_TARGETS += $(FS_DIR)/check
TESTS += $(FS_DIR)/check
endif
