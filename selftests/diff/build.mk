# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Differential tests: uwind against objdump --sframe and libdw's CFI
# (diff.sh), and on relocatable objects against objdump, their
# relocations and symbols, and the programs linked from them (objfile.sh).

DIFF_DIR := $(O)/selftests/diff

$(DIFF_DIR)/dwarf_rules: selftests/diff/dwarf_rules.c selftests/common/dwarf_ops.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< -ldw -lelf

$(call uw_test,sh selftests/diff/diff.sh $(O),,$(DIFF_DIR)/dwarf_rules $(TOOL))
$(call uw_test,sh selftests/diff/objfile.sh $(O),san,$(TOOL))
