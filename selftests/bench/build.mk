# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The SFrame lookup benchmark (`make bench`, not a test).  The bench
# binary is built with everything else; the generated table program is
# built only by scripts/bench.sh (make bench-table), since it takes a while.

BENCH_DIR := $(O)/bench
BENCH_FUNCS ?= 12000
BENCH_PARTS := 0 1 2 3
BENCH_SRCS := $(BENCH_PARTS:%=$(BENCH_DIR)/gen%.c)
BENCH_OBJS := $(BENCH_PARTS:%=$(BENCH_DIR)/gen%.o)

$(BENCH_DIR)/sframe_bench: selftests/bench/sframe_bench.c $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND) -l:libsframe.so.0

$(BENCH_DIR)/gen%.c: selftests/bench/gen.sh
	@mkdir -p $(dir $@)
	sh selftests/bench/gen.sh $(BENCH_FUNCS) $(words $(BENCH_PARTS)) $* >$@

$(BENCH_DIR)/gen%.o: $(BENCH_DIR)/gen%.c
	gcc -O2 -fomit-frame-pointer -Wa,--gsframe -w -c $< -o $@

$(BENCH_DIR)/gen: $(BENCH_OBJS)
	gcc -o $@ $^

$(BENCH_DIR)/gen.sframe: $(BENCH_DIR)/gen
	objcopy -O binary --only-section=.sframe $< $@

.PHONY: bench-table
bench-table: $(BENCH_DIR)/gen.sframe

ALL_TARGETS += $(BENCH_DIR)/sframe_bench
