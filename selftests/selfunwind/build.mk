# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Self-unwinding programs: a known call chain that captures its registers
# and walks its own stack with the core over its own PT_GNU_SFRAME table.
# x86-64 runs natively; AArch64 is linked statically and runs under
# qemu-aarch64.  The chain is selftests/common/chain.h; its fpmid.c is
# built without --gsframe and with frame pointers, so the walker must
# cross that one frame by the fallback.

SW_SRC := selftests/selfunwind
SW_OUT := $(O)/selftests/selfunwind
SW_X86 := $(SW_OUT)/selfunwind-x86_64
SW_A64 := $(SW_OUT)/selfunwind-aarch64
SW_A64_CC ?= aarch64-linux-gnu-gcc
SW_QEMU ?= qemu-aarch64

# The shape of the chain depends on these: no frame pointers (except in
# fpmid.c), no sibling calls, no loops turned into memcpy calls.
SW_CHAIN_FLAGS := -O2 -fno-optimize-sibling-calls -fno-tree-loop-distribute-patterns
SW_SF_FLAGS := $(SW_CHAIN_FLAGS) -fomit-frame-pointer -Wa,--gsframe
SW_FP_FLAGS := $(SW_CHAIN_FLAGS) -fno-omit-frame-pointer

# Cross flags: the host's, minus the sanitizers (no cross ASan runtime).
SW_NOSAN = $(filter-out -fsanitize=% -fno-sanitize-recover=% -fno-omit-frame-pointer,$(1))
SW_A64_CFLAGS := $(call SW_NOSAN,$(HOST_CFLAGS))
SW_A64_LIB_CFLAGS := $(call SW_NOSAN,$(LIB_CFLAGS))
SW_A64_LIB_OBJS := $(LIB_SRCS:lib/%.c=$(SW_OUT)/aarch64/lib/%.o)

# x86-64: HOST_CFLAGS, so the ASan build (SAN=1) sanitizes it too.
$(SW_OUT)/x86_64/selfunwind.o: $(SW_SRC)/selfunwind.c selftests/common/selfproc.h \
		selftests/common/chain.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SW_SF_FLAGS) -c $< -o $@

$(SW_OUT)/x86_64/fpmid.o: selftests/common/fpmid.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SW_FP_FLAGS) -c $< -o $@

$(SW_X86): $(SW_OUT)/x86_64/selfunwind.o $(SW_OUT)/x86_64/fpmid.o $(LIBUWIND)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ -ldl

# AArch64: the core compiled for it (it is freestanding), linked statically.
$(SW_OUT)/aarch64/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(SW_A64_CC) $(SW_A64_LIB_CFLAGS) -c $< -o $@

$(SW_OUT)/aarch64/selfunwind.o: $(SW_SRC)/selfunwind.c selftests/common/selfproc.h \
		selftests/common/chain.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(SW_A64_CC) $(SW_A64_CFLAGS) $(SW_SF_FLAGS) -c $< -o $@

$(SW_OUT)/aarch64/fpmid.o: selftests/common/fpmid.c
	@mkdir -p $(dir $@)
	$(SW_A64_CC) $(SW_A64_CFLAGS) $(SW_FP_FLAGS) -c $< -o $@

$(SW_A64): $(SW_OUT)/aarch64/selfunwind.o $(SW_OUT)/aarch64/fpmid.o $(SW_A64_LIB_OBJS)
	$(SW_A64_CC) -static -o $@ $^

$(call uw_test,$(SW_X86),san,$(SW_X86))
ifeq ($(SAN),)
$(call uw_test,sh selftests/common/qemu-user.sh $(SW_QEMU) aarch64 $(SW_A64),,$(SW_A64))
endif
