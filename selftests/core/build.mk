# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/core: unit tests of the core's walker fixes, load bias and
# whole-table checks (issue 12), on tables built with the SFrame test
# encoder and by hand.

CORE_T_DIR := $(O)/selftests/core

$(CORE_T_DIR)/test_core: selftests/core/test_core.c \
		$(O)/selftests/sframe/sframe_enc.o $(LIBUWIND) $(LIB_HDRS) \
		selftests/sframe/sframe_enc.h selftests/common/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< \
		$(O)/selftests/sframe/sframe_enc.o $(LIBUWIND)

ALL_TARGETS += $(CORE_T_DIR)/test_core
TESTS += $(CORE_T_DIR)/test_core
SAN_TESTS += $(CORE_T_DIR)/test_core
