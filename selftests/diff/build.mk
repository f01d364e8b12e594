# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Differential tests: uwind against objdump --sframe and libdw's CFI.

DIFF_DIR := $(O)/selftests/diff

$(DIFF_DIR)/dwarf_rules: selftests/diff/dwarf_rules.c selftests/common/dwarf_ops.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< -ldw -lelf

ALL_TARGETS += $(DIFF_DIR)/dwarf_rules
TESTS += sh,selftests/diff/diff.sh,$(O)
