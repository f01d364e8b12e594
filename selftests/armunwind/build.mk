# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# 32-bit ARM: self-unwinding with EHABI under qemu-arm (armunwind.c, in ARM
# and in Thumb-2 builds, static, the core compiled in), and `uwind stack
# --core` on the cores qemu-arm writes for crashing ARM and Thumb-2
# programs (crash.c), compared with gdb-multiarch (armstack.sh).
# fpmid.c is ARM code with frame pointers and no unwind tables in both
# builds: the walker crosses it by the r11 frame-record fallback.
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
AW_BINS := $(AW_MODES:%=$(AW_OUT)/armunwind-%)
AW_RUNS := $(AW_MODES:%=$(AW_OUT)/armunwind-%.sh)
AW_CRASH := $(AW_MODES:%=$(AW_OUT)/crash-%) $(AW_MODES:%=$(AW_OUT)/sigcrash-%)

# The core, compiled for each mode.
define AW_MODE_RULES
$(AW_OUT)/$(1)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$(AW_CC) -m$(1) $(AW_LIB_CFLAGS) -c $$< -o $$@

$(AW_OUT)/$(1)/armunwind.o: $(AW_SRC)/armunwind.c selftests/common/selfproc.h \
		$(LIB_HDRS) $(AW_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(AW_CC) -m$(1) $(AW_CFLAGS) $(AW_CHAIN_FLAGS) -c $$< -o $$@

$(AW_OUT)/$(1)/fpmid.o: $(AW_SRC)/fpmid.c $(AW_SRC)/build.mk
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

# TESTS holds one-word commands: the qemu run gets a wrapper.
$(AW_OUT)/armunwind-$(1).sh: $(AW_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	@{ echo '#!/bin/sh'; \
	  echo '# SPDX-License-Identifier: GPL-2.0-only OR MIT'; \
	  echo 'command -v $(AW_QEMU) >/dev/null 2>&1 || { echo "TAP version 13";' \
	       'echo "1..1"; echo "ok 1 - $(1) # SKIP no $(AW_QEMU)"; exit 0; }'; \
	  echo 'exec $(AW_QEMU) $(abspath $(AW_OUT)/armunwind-$(1)) "$$$$@"'; } >$$@
	@chmod +x $$@
endef
$(foreach m,$(AW_MODES),$(eval $(call AW_MODE_RULES,$(m))))

# One-word command for TESTS and SAN_TESTS: the stack test drives $(TOOL),
# which the SAN=1 build sanitizes (the cross programs it runs are not).
$(AW_OUT)/armstack-run: $(AW_SRC)/build.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s %s\n' '$(AW_SRC)/armstack.sh' \
		'$(TOOL)' '$(AW_OUT)' >$@
	chmod +x $@

ALL_TARGETS += $(AW_CRASH) $(AW_OUT)/armstack-run
TESTS += $(AW_OUT)/armstack-run
SAN_TESTS += $(AW_OUT)/armstack-run
ifeq ($(SAN),)
ALL_TARGETS += $(AW_BINS) $(AW_RUNS)
TESTS += $(AW_RUNS)
endif
