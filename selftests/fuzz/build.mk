# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# libFuzzer target for SFrame init/lookup/iteration and the walker
# (clang-14, ASan + UBSan), its seed corpus (generated here from real
# tables, plus the hand-written seeds/*.hex), and the ~30 s run in
# `make check`.  The target is sanitized already, so the SAN=1 build
# leaves it out.

FUZZ_CC ?= clang-14
FUZZ_DIR := $(O)/selftests/fuzz
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Iinclude \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_LIB_OBJS := $(LIB_SRCS:lib/%.c=$(FUZZ_DIR)/lib/%.o)
FUZZ_BIN := $(FUZZ_DIR)/fuzz_sframe
FUZZ_CORPUS := $(FUZZ_DIR)/corpus/.stamp

$(FUZZ_DIR)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BIN): selftests/fuzz/fuzz_sframe.c $(FUZZ_LIB_OBJS) $(LIB_HDRS) \
		selftests/common/check.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS)

# The ARM decoders (EHABI, Chrome) and the ARM walk: no seed corpus.
FUZZ_ARM_BIN := $(FUZZ_DIR)/fuzz_arm

$(FUZZ_ARM_BIN): selftests/fuzz/fuzz_arm.c $(FUZZ_LIB_OBJS) $(LIB_HDRS) \
		selftests/common/check.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS)

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
endif
