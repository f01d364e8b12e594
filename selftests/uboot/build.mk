# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The core in a real firmware: Debian 12's U-Boot 2023.01, the core
# vendored into it (vendor.sh) with the patch (u-boot-2023.01.patch),
# built for qemu's arm64 (SFrame, and frame records alone) and ARM
# (EHABI) virt machines, made to fault every way it can under qemu, each
# backtrace checked frame by frame against gdb's (check.sh).  The source
# is fetched once with apt-get source into ~/.cache/uwind (fetch.sh);
# symbolize.sh names the frames of a console log from the ELF.
#
# `make check-uboot` runs it alone; `make check` runs it with the rest.

UBOOT_TEST := sh selftests/uboot/check.sh $(O)

.PHONY: check-uboot
check-uboot:
	@sh scripts/run-tests.sh $(call uw_word,$(UBOOT_TEST))

$(call uw_test,$(UBOOT_TEST),,)
