# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The uwind tool as people use it: what it accepts as input (files.sh),
# table files, objects and addresses (tables.sh), on src/target.c, a
# program built -O2 -g with SFrame, and its object file.

TOOL_T := $(O)/selftests/tool
TOOL_T_CFLAGS := -O2 -g -Wall -Wa,--gsframe -pthread

$(TOOL_T)/target: selftests/tool/src/target.c
	@mkdir -p $(dir $@)
	gcc $(TOOL_T_CFLAGS) -o $@ $<

$(TOOL_T)/target.o: selftests/tool/src/target.c
	@mkdir -p $(dir $@)
	gcc $(TOOL_T_CFLAGS) -c -o $@ $<

TOOL_T_PROGS := $(TOOL_T)/target $(TOOL_T)/target.o

$(call uw_test,sh selftests/tool/files.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
$(call uw_test,sh selftests/tool/tables.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
