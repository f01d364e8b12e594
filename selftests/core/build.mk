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
