# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The arm64 guest: Debian 12's arm64 kernel under qemu-system-aarch64,
# with the arm64 perf, AArch64 and 32-bit ARM programs.  The kernel, its
# headers and the guest's packages come from scripts/deps-arm64.sh.
#
#   make module ARCH=arm64   uwind.ko for arm64 ($(KMOD_ARM64)); the same as
#                            make module-arm64
#   make kernel-arm64-tests  run this stage alone
#
# Until kernel/ builds for arm64, the stage proves the cross-build and the
# guest with a throwaway module (uwhello/), and measures what the kernel's
# own walker gives: the baselines the module will be compared with.
# Programs go to $(KA_OUT); selftests/kernel/build.mk's flags (KT_FP,
# KT_SF, KT_WARN) are used as they are, so both architectures build alike.
# That file is included after this one ("kernel-arm64" sorts before
# "kernel/"): its variables are used in recipes and "=" definitions only.

ifeq ($(SAN),)

KA_OUT := $(O)/selftests/kernel-arm64
KA_CC := aarch64-linux-gnu-gcc
KA_CC32 := arm-linux-gnueabihf-gcc
KMOD_ARM64 := $(O)/kernel/arm64/mod/uwind.ko
KA_HELLO := $(O)/kernel/arm64/uwhello/uwhello.ko
KA_ENV := scripts/build-module.sh scripts/kernel-env-arm64.sh \
	scripts/deps-arm64.sh

.PHONY: module-arm64 kernel-arm64-tests kernel-arm64-progs
module-arm64: $(KMOD_ARM64)

$(KMOD_ARM64): Kbuild $(wildcard kernel/*.c kernel/*.h) $(LIB_SRCS) \
		$(wildcard lib/*.h include/uwind/*.h) $(KA_ENV)
	O=$(O) sh scripts/build-module.sh -a arm64 $(dir $@) >/dev/null

$(KA_HELLO): $(wildcard selftests/kernel-arm64/uwhello/*) $(KA_ENV)
	O=$(O) sh scripts/build-module.sh -a arm64 \
		-m selftests/kernel-arm64/uwhello $(dir $@) >/dev/null

# AArch64, dynamic: frame pointers everywhere (the kernel walks them) ...
$(KA_OUT)/leaf-fp: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KA_CC) $(KT_FP) -o $@ $<

# ... and none, with SFrame (binutils 2.40: SFrame V1).
$(KA_OUT)/leaf-sf: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KA_CC) $(KT_SF) -o $@ $<

# 32-bit ARM, dynamic (armhf libc from the cross packages): Thumb-2, no
# frame pointer, EHABI unwind tables for every function.
KA_T32 = $(KT_WARN) -mthumb -funwind-tables -fomit-frame-pointer \
	-fno-optimize-sibling-calls
$(KA_OUT)/leaf-t32: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KA_CC32) $(KA_T32) -o $@ $<

KA_PROGS := $(KA_OUT)/leaf-fp $(KA_OUT)/leaf-sf $(KA_OUT)/leaf-t32
kernel-arm64-progs: $(KA_PROGS)

KA_TEST := sh selftests/kernel-arm64/kernel-arm64.sh $(O)

kernel-arm64-tests: $(KA_HELLO) $(KA_PROGS)
	@sh scripts/run-tests.sh "$(KA_TEST)"

$(call uw_test,$(KA_TEST),,$(KA_HELLO) $(KA_PROGS))

endif
