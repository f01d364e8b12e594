# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# 32-bit ARM: self-unwinding with EHABI under qemu-arm (armunwind.c, in ARM
# and in Thumb-2 builds, static, the core compiled in), and `uwind stack
# --core` on the cores qemu-arm writes for crashing ARM and Thumb-2
# programs (crash.c), compared with gdb-multiarch (armstack.sh).
# The chain is selftests/common/chain.h; its fpmid.c is ARM code with
# frame pointers and no unwind tables in both builds: the walker crosses
# it by the r11 frame-record fallback.
# sigcrash.c crashes in a signal handler: `uwind stack --core` across the
# signal frame, through three kinds of sigreturn trampoline.

AW_SRC := selftests/armunwind
AW_OUT := $(O)/selftests/armunwind
AW_CC ?= arm-linux-gnueabihf-gcc
AW_QEMU ?= qemu-arm

AW_CHAIN_FLAGS := -O2 -g -funwind-tables -fno-optimize-sibling-calls \
	-fno-tree-loop-distribute-patterns -fomit-frame-pointer \
	-falign-functions=1 -fno-reorder-functions -fno-toplevel-reorder
AW_FP_FLAGS := -O2 -marm -fno-omit-frame-pointer -fno-unwind-tables \
	-fno-asynchronous-unwind-tables -fno-optimize-sibling-calls
AW_NOSAN = $(filter-out -fsanitize=% -fno-sanitize-recover=% -fno-omit-frame-pointer,$(1))
AW_CFLAGS := $(call AW_NOSAN,$(HOST_CFLAGS))
AW_LIB_CFLAGS := $(call AW_NOSAN,$(LIB_CFLAGS))

AW_MODES := arm thumb
AW_CRASH := $(AW_MODES:%=$(AW_OUT)/crash-%) $(AW_MODES:%=$(AW_OUT)/sigcrash-%)

# The core, compiled for each mode.
define AW_MODE_RULES
$(AW_OUT)/$(1)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$(AW_CC) -m$(1) $(AW_LIB_CFLAGS) -c $$< -o $$@

$(AW_OUT)/$(1)/armunwind.o: $(AW_SRC)/armunwind.c selftests/common/selfproc.h \
		selftests/common/chain.h selftests/common/tap.h \
		selftests/common/cachewalk.h $(LIB_HDRS) \
		$(AW_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(AW_CC) -m$(1) $(AW_CFLAGS) $(AW_CHAIN_FLAGS) -c $$< -o $$@

$(AW_OUT)/$(1)/fpmid.o: selftests/common/fpmid.c $(AW_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(AW_CC) $(AW_CFLAGS) $(AW_FP_FLAGS) -c $$< -o $$@

$(AW_OUT)/armunwind-$(1): $(AW_OUT)/$(1)/armunwind.o $(AW_OUT)/$(1)/fpmid.o \
		$(LIB_SRCS:lib/%.c=$(AW_OUT)/$(1)/lib/%.o)
	$(AW_CC) -m$(1) -static -o $$@ $$^

$(AW_OUT)/crash-$(1): $(AW_SRC)/crash.c $(AW_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(AW_CC) -m$(1) -static $(AW_CFLAGS) $(AW_CHAIN_FLAGS) -o $$@ $$<

$(AW_OUT)/sigcrash-$(1): $(AW_SRC)/sigcrash.c $(AW_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(AW_CC) -m$(1) -static $(AW_CFLAGS) $(AW_CHAIN_FLAGS) -o $$@ $$<
endef
$(foreach m,$(AW_MODES),$(eval $(call AW_MODE_RULES,$(m))))

# In the sanitizer build too: the stack test drives $(TOOL), which the
# SAN=1 build sanitizes (the cross programs it runs are not).
$(call uw_test,sh $(AW_SRC)/armstack.sh $(TOOL) $(AW_OUT),san,$(TOOL) $(AW_CRASH))
ifeq ($(SAN),)
$(foreach m,$(AW_MODES),$(call uw_test,sh selftests/common/qemu-user.sh \
	$(AW_QEMU) $(m) $(AW_OUT)/armunwind-$(m),,$(AW_OUT)/armunwind-$(m)))
endif
