# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/core: unit tests of the core's walker fixes, load bias and
# whole-table checks (issue 12), on tables built with the SFrame test
# encoder (scripts/uwind/sframe_enc.c) and by hand.

CORE_T_DIR := $(O)/selftests/core

# test_core, test_cache (the walker's cache: collisions, generations,
# identity, fuzzed contents), test_direct (the stack read in place) and
# test_kwalk (what the kernel module's walk needs: batches, frame records,
# trampoline probes), all on the SFrame test encoder's tables.
$(CORE_T_DIR)/test_core $(CORE_T_DIR)/test_cache \
$(CORE_T_DIR)/test_direct $(CORE_T_DIR)/test_kwalk: $(CORE_T_DIR)/%: \
		selftests/core/%.c \
		$(O)/tool/sframe_enc.o $(LIBUWIND) $(LIB_HDRS) \
		scripts/uwind/sframe_enc.h selftests/common/tap.h \
		selftests/common/check.h selftests/common/cachewalk.h \
		selftests/common/directwalk.h selftests/common/walkcmp.h \
		selftests/common/sfetable.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< \
		$(O)/tool/sframe_enc.o $(LIBUWIND)

$(call uw_test,$(CORE_T_DIR)/test_core,unit san,$(CORE_T_DIR)/test_core)

# uwind verify on tables built here (x86-64 SFrame, ARM EHABI, Chrome).
$(CORE_T_DIR)/vprog-x86_64: selftests/core/vprog.c
	@mkdir -p $(dir $@)
	gcc -O2 -g -fomit-frame-pointer -Wa,--gsframe -o $@ $<

$(CORE_T_DIR)/vprog-arm: selftests/core/vprog.c
	@mkdir -p $(dir $@)
	arm-linux-gnueabihf-gcc -O2 -g -funwind-tables -o $@ $<

ifeq ($(SAN),)
$(call uw_test,sh selftests/core/verify.sh $(TOOL) $(CORE_T_DIR),,$(TOOL) \
	$(CORE_T_DIR)/vprog-x86_64 $(CORE_T_DIR)/vprog-arm)
endif

# The public headers as an API: kernel-doc clean and complete, nothing
# outside uwind's namespace, env.h replaceable (api.sh; about 2 s).
$(call uw_test,sh selftests/core/api.sh $(O))

$(call uw_test,$(CORE_T_DIR)/test_cache,unit san,$(CORE_T_DIR)/test_cache)
$(call uw_test,$(CORE_T_DIR)/test_direct,unit san,$(CORE_T_DIR)/test_direct)
$(call uw_test,$(CORE_T_DIR)/test_kwalk,unit san,$(CORE_T_DIR)/test_kwalk)

# test_kwalk again, against a core built with an environment header that
# gives it the test's accessor inline (env_read.h: UW_ENV_READ), as the
# kernel module's header gives it the module's user read.
CORE_ENV_DIR := $(CORE_T_DIR)/envread
CORE_ENV_FLAGS := -DUW_ENV_HEADER='"$(CURDIR)/selftests/core/env_read.h"'
CORE_ENV_OBJS := $(LIB_SRCS:lib/%.c=$(CORE_ENV_DIR)/%.o)

$(CORE_ENV_DIR)/%.o: lib/%.c $(LIB_HDRS) selftests/core/env_read.h
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(CORE_ENV_FLAGS) -c $< -o $@

$(CORE_T_DIR)/test_kwalk-envread: selftests/core/test_kwalk.c \
		selftests/core/env_read.h $(CORE_ENV_OBJS) \
		$(O)/tool/sframe_enc.o $(LIB_HDRS) scripts/uwind/sframe_enc.h \
		selftests/common/tap.h selftests/common/sfetable.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(CORE_ENV_FLAGS) -DUWT_ENV_READ \
		$(HOST_LDFLAGS) -o $@ $< $(O)/tool/sframe_enc.o \
		$(CORE_ENV_OBJS)

$(call uw_test,$(CORE_T_DIR)/test_kwalk-envread,unit san,$(CORE_T_DIR)/test_kwalk-envread)
