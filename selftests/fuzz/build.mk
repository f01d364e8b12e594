# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# libFuzzer targets (clang-14, ASan + UBSan): SFrame (init, lookup,
# iteration, walk; seeds generated here from real tables plus seeds/
# *.hex), the ARM decoders, Apple compact unwind and Breakpad symbol
# files (seeds from the Mach-O test files and the .sym files the tool
# writes), with their short runs in `make check` (30, 30, 20, 20 s).
# `make fuzz FUZZ_TIME=S` runs every target S seconds (default 60) and
# prints one line each: FUZZ name execs=N cov=N findings=N.  The targets
# are sanitized already, so the SAN=1 build leaves them out.

FUZZ_CC ?= clang-14
FUZZ_DIR := $(O)/selftests/fuzz
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Iinclude \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(LIB_SWITCHES)
FUZZ_LIB_OBJS := $(LIB_SRCS:lib/%.c=$(FUZZ_DIR)/lib/%.o)
FUZZ_BIN := $(FUZZ_DIR)/fuzz_sframe
FUZZ_CORPUS := $(FUZZ_DIR)/corpus/.stamp

$(FUZZ_DIR)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BIN): selftests/fuzz/fuzz_sframe.c $(FUZZ_LIB_OBJS) $(LIB_HDRS) \
		selftests/common/check.h selftests/fuzz/fuzzcache.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS)

# The ARM decoders (EHABI, Chrome) and the ARM walk: no seed corpus.
FUZZ_ARM_BIN := $(FUZZ_DIR)/fuzz_arm

$(FUZZ_ARM_BIN): selftests/fuzz/fuzz_arm.c $(FUZZ_LIB_OBJS) $(LIB_HDRS) \
		selftests/common/check.h selftests/fuzz/fuzzcache.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS)

# Apple compact unwind and Breakpad: seeded from the Mach-O test files
# (selftests/compact) and the chain programs (selftests/stack).
FUZZ_FMT := compact breakpad
FUZZ_FMT_BINS := $(FUZZ_FMT:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_FMT_CORPUS := $(FUZZ_DIR)/corpus-fmt.stamp

$(FUZZ_DIR)/fuzz_%: selftests/fuzz/fuzz_%.c selftests/fuzz/image.h \
		selftests/common/check.h selftests/fuzz/fuzzcache.h \
		$(FUZZ_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS)

$(FUZZ_FMT_CORPUS): selftests/fuzz/mkcorpus-fmt.sh $(TOOL) $(CU_DYLIBS) \
		$(wildcard selftests/fuzz/seeds-compact/* \
			   selftests/fuzz/seeds-breakpad/*) \
		$(O)/selftests/stack/chain $(O)/selftests/stack/chain-a64
	sh selftests/fuzz/mkcorpus-fmt.sh $(FUZZ_DIR)/corpus-fuzz_compact \
		$(FUZZ_DIR)/corpus-fuzz_breakpad $(TOOL) $(CU_DIR)/m \
		$(O)/selftests/stack
	@touch $@

$(FUZZ_DIR)/mkseed: selftests/fuzz/mkseed.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(FUZZ_CORPUS): selftests/fuzz/mkcorpus.sh selftests/fuzz/seedprog.c \
		$(wildcard selftests/fuzz/seeds/*.hex) $(FUZZ_DIR)/mkseed
	sh selftests/fuzz/mkcorpus.sh $(FUZZ_DIR)/corpus $(FUZZ_DIR)/mkseed
	@touch $@

ifeq ($(SAN),)
$(call uw_test,sh selftests/fuzz/run.sh $(FUZZ_DIR),,$(FUZZ_BIN) $(FUZZ_CORPUS))
$(call uw_test,sh selftests/fuzz/run.sh $(FUZZ_DIR) fuzz_arm,,$(FUZZ_ARM_BIN))
$(foreach f,$(FUZZ_FMT),$(call uw_test,sh selftests/fuzz/run.sh $(FUZZ_DIR) \
	fuzz_$(f) 20,,$(FUZZ_DIR)/fuzz_$(f) $(FUZZ_FMT_CORPUS)))
endif

# Every target FUZZ_TIME seconds; its summary line, and a failing exit
# if anything was found.
FUZZ_TIME ?= 60
FUZZ_ALL := fuzz_sframe fuzz_arm $(FUZZ_FMT:%=fuzz_%)

.PHONY: fuzz
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN) $(FUZZ_CORPUS) \
		$(FUZZ_ARM_BIN) $(FUZZ_FMT_BINS) $(FUZZ_FMT_CORPUS)
	@bad=0; for t in $(FUZZ_ALL); do \
		FUZZ_TIME=$(FUZZ_TIME) sh selftests/fuzz/run.sh $(FUZZ_DIR) $$t \
			>$(FUZZ_DIR)/$$t.tap; \
		sed -n 's/^# \(FUZZ .*\)/\1/p' $(FUZZ_DIR)/$$t.tap; \
		grep -q '^not ok' $(FUZZ_DIR)/$$t.tap && bad=1 && \
			grep -v '^ok' $(FUZZ_DIR)/$$t.tap | sed 's/^/  /'; \
	done; exit $$bad
