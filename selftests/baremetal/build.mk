# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Bare-metal harness: the core (lib/*.c, unchanged) linked into firmware
# images that fault on purpose and print a backtrace from their panic
# handler over the UART; run.sh runs them under qemu-system and checks the
# frames against the ELF's symbols.  No libc anywhere (-nostdlib; libgcc
# only for the harness's own helpers).
#
#   aarch64     qemu-system-aarch64 -M virt -cpu cortex-a57, .sframe from
#               as --gsframe, frame pointers as the fallback.
#               Faults: udf, load from unmapped memory.
#   cortex-m3   qemu-system-arm -M mps2-an385, EHABI (.ARM.exidx/extab).
#               Faults: udf, sdiv by zero, bus error (HardFault), udf in
#               PendSV that interrupted thread code on the PSP.
#   cortex-m4f  qemu-system-arm -M mps2-an386, the same with the FPU on and
#               an FP context active in thread code (extended frames).
#   cortex-m33  qemu-system-arm -M mps2-an505, ARMv8-M: the same running
#               Secure, with FPCCR_S.TS set, so thread code's exception
#               frames hold s16-s31 too (0xa8 bytes).
#   a15-arm     qemu-system-arm -M virt -cpu cortex-a15, A32 (-marm), and
#   a15-thumb   Thumb-2 (-mthumb): EHABI.  Faults: udf (UND), load from
#               unmapped memory (data abort).
#   a15-arm-chrome, a15-thumb-chrome
#               the same images with the Chrome unwind table that
#               `uwind convert` makes from their DWARF CFI linked in.
#
# `make baremetal` builds and runs every image.

BM_SRC := selftests/baremetal
BM_OUT := $(O)/selftests/baremetal

# The chain's shape depends on these: every call stays a call.
BM_COMMON := -g -Wall -Wextra -Werror -ffreestanding -nostdlib \
	-fno-stack-protector -fno-tree-loop-distribute-patterns \
	-fno-optimize-sibling-calls -Iinclude
BM_CORE_OPT ?= -O2
# Each image links the core configuration its target runs (lib/uwind.mk):
# AArch64 SFrame alone, Cortex-M EHABI and exception frames, Cortex-A15
# EHABI and Chrome; none of them Linux signal frames.
# $(1) configuration: its objects under $(2)/lib
bm_core_objs = $(patsubst %.c,$(2)/lib/%.o,$(call uw_srcs,$(UW_CONFIG_$(1))))
BM_HARNESS := $(BM_SRC)/chain.c $(BM_SRC)/io.c $(BM_SRC)/panic.c

# --- AArch64 -----------------------------------------------------------
BM_A64_CC ?= aarch64-linux-gnu-gcc
# MMU off: every access is Device memory, so no unaligned accesses.
BM_A64_FLAGS := $(BM_COMMON) -fno-pie -mstrict-align -Wa,--gsframe \
	$(call uw_cflags,$(UW_CONFIG_sframe))
BM_A64_KINDS := undef=1 dabort=2
BM_A64_OBJS := $(call bm_core_objs,sframe,$(BM_OUT)/aarch64) \
	$(BM_HARNESS:$(BM_SRC)/%.c=$(BM_OUT)/aarch64/%.o) \
	$(BM_OUT)/aarch64/pl011.o $(BM_OUT)/aarch64/a64.o \
	$(BM_OUT)/aarch64/start.o

$(BM_OUT)/aarch64/lib/%.o: lib/%.c $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $(dir $@)
	$(BM_A64_CC) -std=c11 $(BM_CORE_OPT) $(BM_A64_FLAGS) -c $< -o $@

$(BM_OUT)/aarch64/%.o: $(BM_SRC)/%.c $(BM_SRC)/bm.h $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $(dir $@)
	$(BM_A64_CC) -std=gnu11 -O2 $(BM_A64_FLAGS) -c $< -o $@

$(BM_OUT)/aarch64/%.o: $(BM_SRC)/aarch64/%.c $(BM_SRC)/bm.h $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $(dir $@)
	$(BM_A64_CC) -std=gnu11 -O2 $(BM_A64_FLAGS) -c $< -o $@

$(BM_OUT)/aarch64/%.o: $(BM_SRC)/aarch64/%.S $(BM_SRC)/build.mk
	@mkdir -p $(dir $@)
	$(BM_A64_CC) $(BM_A64_FLAGS) -c $< -o $@

# --- Cortex-M -----------------------------------------------------------
BM_CM_CC ?= arm-none-eabi-gcc
BM_CM_KINDS := undef=1 dabort=2 div0=3 irq=4
BM_CM3_CPU := -mcpu=cortex-m3 -mthumb
BM_CM4F_CPU := -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
BM_CM33_CPU := -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16

BM_CM_CFG := $(call uw_cflags,$(UW_CONFIG_cortex_m))

# $(1) target name, $(2) cpu flags
define BM_CM_RULES
$(BM_OUT)/$(1)/lib/%.o: lib/%.c $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_CM_CC) -std=c11 $(BM_CORE_OPT) $(BM_COMMON) $(BM_CM_CFG) $(2) -funwind-tables -c $$< -o $$@

$(BM_OUT)/$(1)/%.o: $(BM_SRC)/%.c $(BM_SRC)/bm.h $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_CM_CC) -std=gnu11 -O2 $(BM_COMMON) $(BM_CM_CFG) $(2) -funwind-tables -c $$< -o $$@

$(BM_OUT)/$(1)/%.o: $(BM_SRC)/cortexm/%.c $(BM_SRC)/bm.h $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_CM_CC) -std=gnu11 -O2 $(BM_COMMON) $(BM_CM_CFG) $(2) -funwind-tables -c $$< -o $$@

BM_OBJS_$(1) := $(call bm_core_objs,cortex_m,$(BM_OUT)/$(1)) \
	$(BM_HARNESS:$(BM_SRC)/%.c=$(BM_OUT)/$(1)/%.o) $(BM_OUT)/$(1)/cm.o
endef
$(eval $(call BM_CM_RULES,cortex-m3,$(BM_CM3_CPU)))
$(eval $(call BM_CM_RULES,cortex-m4f,$(BM_CM4F_CPU)))
$(eval $(call BM_CM_RULES,cortex-m33,$(BM_CM33_CPU)))

# --- Cortex-A15 (ARM and Thumb-2) -------------------------------------
BM_A15_CC ?= arm-none-eabi-gcc
BM_A15_NM ?= arm-none-eabi-nm
BM_A15_KINDS := undef=1 dabort=2
BM_A15_ARM_CPU := -mcpu=cortex-a15 -marm
BM_A15_THUMB_CPU := -mcpu=cortex-a15 -mthumb

BM_A15_CFG := $(call uw_cflags,$(UW_CONFIG_arm))

# $(1) target name, $(2) cpu flags
define BM_A15_RULES
$(BM_OUT)/$(1)/lib/%.o: lib/%.c $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_A15_CC) -std=c11 $(BM_CORE_OPT) $(BM_COMMON) $(BM_A15_CFG) $(2) -funwind-tables -c $$< -o $$@

$(BM_OUT)/$(1)/%.o: $(BM_SRC)/%.c $(BM_SRC)/bm.h $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_A15_CC) -std=gnu11 -O2 $(BM_COMMON) $(BM_A15_CFG) $(2) -funwind-tables -c $$< -o $$@

$(BM_OUT)/$(1)/%.o: $(BM_SRC)/arm/%.c $(BM_SRC)/bm.h $(LIB_HDRS) $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_A15_CC) -std=gnu11 -O2 $(BM_COMMON) $(BM_A15_CFG) $(2) -funwind-tables -c $$< -o $$@

$(BM_OUT)/$(1)/%.o: $(BM_SRC)/arm/%.S $(BM_SRC)/build.mk
	@mkdir -p $$(dir $$@)
	$(BM_A15_CC) $(BM_COMMON) $(2) -c $$< -o $$@

BM_OBJS_$(1) := $(call bm_core_objs,arm,$(BM_OUT)/$(1)) \
	$(BM_HARNESS:$(BM_SRC)/%.c=$(BM_OUT)/$(1)/%.o) \
	$(BM_OUT)/$(1)/pl011.o $(BM_OUT)/$(1)/a15.o $(BM_OUT)/$(1)/start.o
endef
$(eval $(call BM_A15_RULES,a15-arm,$(BM_A15_ARM_CPU)))
$(eval $(call BM_A15_RULES,a15-thumb,$(BM_A15_THUMB_CPU)))

# The Chrome images: the EHABI image's DWARF CFI through
# `uwind convert --breakpad` and `--chrome` (offsets from the first
# PT_LOAD address), linked back in as a blob after everything else, so
# no code moves: the recipe checks that every text symbol kept its
# address, or the table would describe another image.
# $(1) target (a15-arm, a15-thumb), $(2) kind=N, $(3) cpu flags
define BM_A15_CHROME
$(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).sym: $(BM_OUT)/$(1)-$(firstword $(subst =, ,$(2))).elf $(TOOL)
	$(TOOL) convert --breakpad $$< >$$@.tmp && mv $$@.tmp $$@
$(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).table: $(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).sym $(TOOL)
	$(TOOL) convert --chrome $$< -o $$@
$(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).blob.o: $(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).table $(BM_SRC)/arm/blob.S
	$(BM_A15_CC) $(3) -DBM_BLOB='"$$<"' -c $(BM_SRC)/arm/blob.S -o $$@
$(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).elf: $(BM_OBJS_$(1)) $(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).blob.o $(BM_SRC)/arm/link.ld $(BM_OUT)/$(1)-$(firstword $(subst =, ,$(2))).elf
	$(BM_A15_CC) $(3) -nostdlib -static -T $(BM_SRC)/arm/link.ld \
		-Wl,--defsym,bm_kind=$(lastword $(subst =, ,$(2))) \
		-Wl,--no-warn-rwx-segments -Wl,--build-id=none -o $$@.tmp \
		$(BM_OBJS_$(1)) $(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).blob.o -lgcc
	$(BM_A15_NM) $(BM_OUT)/$(1)-$(firstword $(subst =, ,$(2))).elf | grep ' [Tt] ' >$$@.nm1
	$(BM_A15_NM) $$@.tmp | grep ' [Tt] ' >$$@.nm2
	cmp $$@.nm1 $$@.nm2 && rm -f $$@.nm1 $$@.nm2 && mv $$@.tmp $$@
BM_IMAGES += $(BM_OUT)/$(1)-chrome-$(firstword $(subst =, ,$(2))).elf
endef

# --- images: one per target and fault kind ------------------------------
# $(1) target, $(2) kind=N, $(3) cc, $(4) objects, $(5) linker script
define BM_IMAGE
$(BM_OUT)/$(1)-$(firstword $(subst =, ,$(2))).elf: $(4) $(5)
	$(3) -nostdlib -static -T $(5) -Wl,--defsym,bm_kind=$(lastword $(subst =, ,$(2))) \
		-Wl,--no-warn-rwx-segments -Wl,--build-id=none -o $$@ $(4) -lgcc
BM_IMAGES += $(BM_OUT)/$(1)-$(firstword $(subst =, ,$(2))).elf
endef
BM_IMAGES :=
$(foreach k,$(BM_A64_KINDS),$(eval $(call BM_IMAGE,aarch64,$(k),$(BM_A64_CC) -no-pie,$(BM_A64_OBJS),$(BM_SRC)/aarch64/link.ld)))
$(foreach k,$(BM_CM_KINDS),$(eval $(call BM_IMAGE,cortex-m3,$(k),$(BM_CM_CC) $(BM_CM3_CPU),$(BM_OBJS_cortex-m3),$(BM_SRC)/cortexm/link.ld)))
$(foreach k,$(BM_CM_KINDS),$(eval $(call BM_IMAGE,cortex-m4f,$(k),$(BM_CM_CC) $(BM_CM4F_CPU),$(BM_OBJS_cortex-m4f),$(BM_SRC)/cortexm/link.ld)))
$(foreach k,$(BM_CM_KINDS),$(eval $(call BM_IMAGE,cortex-m33,$(k),$(BM_CM_CC) $(BM_CM33_CPU),$(BM_OBJS_cortex-m33),$(BM_SRC)/cortexm/link-an505.ld)))
$(filter $(BM_OUT)/cortex-m%,$(BM_IMAGES)): $(BM_SRC)/cortexm/sections.ld
$(foreach k,$(BM_A15_KINDS),$(eval $(call BM_IMAGE,a15-arm,$(k),$(BM_A15_CC) $(BM_A15_ARM_CPU),$(BM_OBJS_a15-arm),$(BM_SRC)/arm/link.ld)))
$(foreach k,$(BM_A15_KINDS),$(eval $(call BM_IMAGE,a15-thumb,$(k),$(BM_A15_CC) $(BM_A15_THUMB_CPU),$(BM_OBJS_a15-thumb),$(BM_SRC)/arm/link.ld)))
$(foreach k,$(BM_A15_KINDS),$(eval $(call BM_A15_CHROME,a15-arm,$(k),$(BM_A15_ARM_CPU))))
$(foreach k,$(BM_A15_KINDS),$(eval $(call BM_A15_CHROME,a15-thumb,$(k),$(BM_A15_THUMB_CPU))))

BM_TARGETS := aarch64 cortex-m3 cortex-m4f cortex-m33 a15-arm a15-thumb \
	a15-arm-chrome a15-thumb-chrome

.PHONY: baremetal
baremetal: $(BM_IMAGES)
	@sh scripts/run-tests.sh $(foreach t,$(BM_TARGETS),sh,$(BM_SRC)/run.sh,$(t),$(O))

ifeq ($(SAN),)
$(foreach t,$(BM_TARGETS),$(call uw_test,sh $(BM_SRC)/run.sh $(t) $(O),,$(BM_IMAGES)))
endif

# Host unit test of lib/cortexm.c and the walker's EXC_RETURN step.
$(BM_OUT)/test_cortexm: $(BM_SRC)/test_cortexm.c selftests/common/tap.h $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND)

$(call uw_test,$(BM_OUT)/test_cortexm,unit san,$(BM_OUT)/test_cortexm)
