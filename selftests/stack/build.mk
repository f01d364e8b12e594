# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind stack` tests: the chain program, built without frame pointers and
# with SFrame, natively and for AArch64 (static, run under qemu-aarch64).
# Always GNU as (gcc): --gsframe is a gas option.

STACK_DIR := $(O)/selftests/stack
STACK_CFLAGS := -Wall -O2 -fomit-frame-pointer -fno-optimize-sibling-calls \
	-Wa,--gsframe -pthread

$(STACK_DIR)/chain: selftests/stack/chain.c
	@mkdir -p $(dir $@)
	gcc $(STACK_CFLAGS) -o $@ $<

$(STACK_DIR)/chain-a64: selftests/stack/chain.c
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc -static $(STACK_CFLAGS) -o $@ $<

$(call uw_test,sh selftests/stack/stack.sh $(TOOL) $(STACK_DIR),,$(TOOL) \
	$(STACK_DIR)/chain $(STACK_DIR)/chain-a64)
