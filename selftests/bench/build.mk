# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The SFrame lookup benchmark (`make bench`, not a test).  The bench
# binary is built with everything else; the generated table program is
# built only by scripts/bench.sh (make bench-table), since it takes a while.

BENCH_DIR := $(O)/bench
BENCH_FUNCS ?= 12000
BENCH_PARTS := 0 1 2 3
BENCH_MIXES := small mixed

$(BENCH_DIR)/sframe_bench: selftests/bench/sframe_bench.c $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND) -l:libsframe.so.0

# One program per mix: $(BENCH_DIR)/MIX/gen, its raw table MIX.sframe.
$(BENCH_DIR)/small/gen%.c: selftests/bench/gen.sh
	@mkdir -p $(dir $@)
	sh selftests/bench/gen.sh $(BENCH_FUNCS) $(words $(BENCH_PARTS)) $* small >$@

$(BENCH_DIR)/mixed/gen%.c: selftests/bench/gen.sh
	@mkdir -p $(dir $@)
	sh selftests/bench/gen.sh $(BENCH_FUNCS) $(words $(BENCH_PARTS)) $* mixed >$@

$(BENCH_DIR)/%.o: $(BENCH_DIR)/%.c
	gcc -O2 -fomit-frame-pointer -Wa,--gsframe -w -c $< -o $@

$(BENCH_MIXES:%=$(BENCH_DIR)/%/gen): $(BENCH_DIR)/%/gen: \
		$(foreach p,$(BENCH_PARTS),$(BENCH_DIR)/%/gen$(p).o)
	gcc -o $@ $^

$(BENCH_DIR)/%.sframe: $(BENCH_DIR)/%/gen
	objcopy -O binary --only-section=.sframe $< $@

.PHONY: bench-table
bench-table: $(BENCH_MIXES:%=$(BENCH_DIR)/%.sframe)

ALL_TARGETS += $(BENCH_DIR)/sframe_bench

# The whole-stack benchmark (selftests/bench/walk_bench.c): frame records
# and SFrame both, so that every walker can walk the same stack.
WALK_BENCH_FLAGS := -O2 -fno-omit-frame-pointer \
	-Wa,--gsframe \
	-fno-optimize-sibling-calls -fno-inline-small-functions
$(BENCH_DIR)/walk_bench: selftests/bench/walk_bench.c $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(WALK_BENCH_FLAGS) $(HOST_LDFLAGS) -o $@ $< \
		$(LIBUWIND) -ldl -lpthread

# The same stack without frame records (-fomit-frame-pointer, the usual
# -O2 build): SFrame rows that save the return address alone.
$(BENCH_DIR)/walk_bench-nofp: selftests/bench/walk_bench.c $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(WALK_BENCH_FLAGS) -fomit-frame-pointer \
		-DWB_NOFP $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND) -ldl -lpthread

ALL_TARGETS += $(BENCH_DIR)/walk_bench $(BENCH_DIR)/walk_bench-nofp

# The same stack on 32-bit ARM (Thumb-2), for qemu-arm: EHABI from its
# own .ARM.exidx, and a Chrome table made from its DWARF CFI by the tool.
# Built with the Chrome tests' ARM core objects (selftests/chrome/build.mk).
ifeq ($(SAN),)
ifneq ($(shell command -v arm-linux-gnueabihf-gcc 2>/dev/null),)
WALK_BENCH_ARM_LIB := $(LIB_SRCS:lib/%.c=$(O)/selftests/chrome/armlib/%.o)
$(BENCH_DIR)/walk_bench-arm: selftests/bench/walk_bench.c $(WALK_BENCH_ARM_LIB) \
		$(LIB_HDRS)
	@mkdir -p $(dir $@)
	arm-linux-gnueabihf-gcc -std=gnu11 -O2 -g $(WARN) -Iinclude -static \
		-mthumb -funwind-tables -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -o $@ $< $(WALK_BENCH_ARM_LIB)

$(BENCH_DIR)/walk_bench-arm.chrome: $(BENCH_DIR)/walk_bench-arm $(TOOL)
	$(TOOL) convert --breakpad $< >$@.sym
	$(TOOL) convert --chrome $@.sym -o $@

ALL_TARGETS += $(BENCH_DIR)/walk_bench-arm $(BENCH_DIR)/walk_bench-arm.chrome
endif
endif
