# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/chrome: Chrome's ARM unwind tables.
#   test_chrome    decoder vectors (Chromium's tests as REFERENCES.md lists
#                  them), hostile blobs, a walk, the generator's encoders
#   selfunwind.sh  ARM and Thumb-2 programs that unwind themselves under
#                  qemu-arm with the table `uwind convert` builds from
#                  their DWARF CFI (-g) and, built without -g, from their
#                  EHABI tables; plus the tool's dump/lookup/convert
#   ehabi-cfi.sh   `uwind convert --breakpad` on ARM files without DWARF
#                  CFI (STACK CFI from .ARM.exidx) against `uwind lookup`,
#                  readelf -u's opcode text and the Chrome table made of it

CHT_DIR := $(O)/selftests/chrome

$(CHT_DIR)/test_chrome.o: selftests/chrome/test_chrome.c \
		scripts/uwind/chrome_gen.h selftests/common/tap.h $(LIB_HDRS) \
		selftests/common/cachewalk.h \
		selftests/common/directwalk.h selftests/common/walkcmp.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

# The generator's object is the tool's own (scripts/uwind/chrome_gen.c).
$(CHT_DIR)/test_chrome: $(CHT_DIR)/test_chrome.o $(O)/tool/chrome_gen.o \
		$(LIBUWIND)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

$(call uw_test,$(CHT_DIR)/test_chrome,unit san,$(CHT_DIR)/test_chrome)

# The self-unwinding programs: cross-built, ARM and Thumb-2, with an ARM
# build of the core; their tables made by the tool from their own CFI.
# Not in the sanitizer build (cross programs under qemu-user).
CHT_CROSS := arm-linux-gnueabihf-gcc
ifeq ($(SAN),)
ifneq ($(shell command -v $(CHT_CROSS) 2>/dev/null),)
CHT_ARM_LIB_CFLAGS := -std=c11 -O2 -g $(WARN) -Iinclude -ffreestanding \
	-fno-tree-loop-distribute-patterns -fno-stack-protector
CHT_ARM_LIB_OBJS := $(LIB_SRCS:lib/%.c=$(CHT_DIR)/armlib/%.o)
CHT_PROG_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -static \
	-funwind-tables -fno-optimize-sibling-calls
CHT_MODES := arm thumb
CHT_CROSS_OUT := $(foreach m,$(CHT_MODES),$(CHT_DIR)/selfunwind-$(m) \
	$(CHT_DIR)/selfunwind-$(m).sym $(CHT_DIR)/selfunwind-$(m).chrome)

$(CHT_DIR)/armlib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CHT_CROSS) $(CHT_ARM_LIB_CFLAGS) -c $< -o $@

$(CHT_DIR)/selfunwind-%: selftests/chrome/selfunwind.c $(CHT_ARM_LIB_OBJS) \
		selftests/common/selfproc.h selftests/common/chain.h \
		selftests/common/tap.h selftests/common/cachewalk.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CHT_CROSS) $(CHT_PROG_CFLAGS) -m$* -o $@ $< $(CHT_ARM_LIB_OBJS)

# The table, built from the program's DWARF CFI by the tool, two steps.
$(CHT_DIR)/selfunwind-%.sym: $(CHT_DIR)/selfunwind-% $(TOOL)
	$(TOOL) convert --breakpad $< >$@.tmp && mv $@.tmp $@

$(CHT_DIR)/selfunwind-%.chrome: $(CHT_DIR)/selfunwind-%.sym $(TOOL)
	$(TOOL) convert --chrome $< -o $@

ALL_TARGETS += $(CHT_CROSS_OUT)

# Without -g, with -fasynchronous-unwind-tables: EHABI only, so `uwind
# convert --breakpad` takes the STACK CFI from .ARM.exidx.  In eh/ (the
# patterns above would take eh-arm for a mode).  The core too without
# -g, or its .debug_frame would be the program's DWARF CFI.
CHT_EH_LIB_CFLAGS := $(filter-out -g,$(CHT_ARM_LIB_CFLAGS)) \
	-fasynchronous-unwind-tables
CHT_EH_LIB_OBJS := $(LIB_SRCS:lib/%.c=$(CHT_DIR)/eh/armlib/%.o)
CHT_EH_PROG_CFLAGS := $(filter-out -g -funwind-tables,$(CHT_PROG_CFLAGS)) \
	-fasynchronous-unwind-tables -DSELFUNWIND_EHABI
CHT_EH_OUT := $(foreach m,$(CHT_MODES),$(CHT_DIR)/eh/selfunwind-$(m) \
	$(CHT_DIR)/eh/selfunwind-$(m).sym $(CHT_DIR)/eh/selfunwind-$(m).chrome \
	$(CHT_DIR)/eh/prog-$(m))

$(CHT_DIR)/eh/armlib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CHT_CROSS) $(CHT_EH_LIB_CFLAGS) -c $< -o $@

$(CHT_DIR)/eh/selfunwind-%: selftests/chrome/selfunwind.c \
		$(CHT_EH_LIB_OBJS) selftests/common/selfproc.h \
		selftests/common/cachewalk.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CHT_CROSS) $(CHT_EH_PROG_CFLAGS) -m$* -o $@ $< $(CHT_EH_LIB_OBJS)

$(CHT_DIR)/eh/selfunwind-%.sym: $(CHT_DIR)/eh/selfunwind-% $(TOOL)
	$(TOOL) convert --breakpad $< >$@.tmp && mv $@.tmp $@

$(CHT_DIR)/eh/selfunwind-%.chrome: $(CHT_DIR)/eh/selfunwind-%.sym $(TOOL)
	$(TOOL) convert --chrome $< -o $@

# selftests/ehabi's programs (locals big and small, alloca, varargs,
# callee-saved and VFP registers), dynamic, EHABI only.
$(CHT_DIR)/eh/prog-%: $(wildcard selftests/ehabi/src/*.c)
	@mkdir -p $(dir $@)
	$(CHT_CROSS) -O2 -fasynchronous-unwind-tables -mfpu=vfpv3-d16 \
		-mfloat-abi=hard -m$* -o $@ $(wildcard selftests/ehabi/src/*.c)

ALL_TARGETS += $(CHT_EH_OUT)
endif

$(call uw_test,sh selftests/chrome/selfunwind.sh $(O),,$(TOOL))
$(call uw_test,sh selftests/chrome/ehabi-cfi.sh $(O),,$(TOOL))
endif
