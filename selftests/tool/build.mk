# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The uwind tool as people use it: its command-line convention (cli.sh),
# what it accepts as input (files.sh), table files, objects and addresses
# (tables.sh), `stack` on cores (cores.sh), frame names against eu-stack
# (names.sh), --json (json.sh); on src/target.c, a program built -O2 -g
# with SFrame, and its object file.  install.sh: plain make, make install
# and uninstall, and a program (src/selfwalk.c) built against the
# installed library with pkg-config; docs.sh: the documentation (links,
# contents, its examples run or checked against the tool and the tree).
# test_verify: `uwind stack --check-walk`'s comparison (stack_verify.c)
# finds walks that differ, on the tool's own object.

TOOL_T := $(O)/selftests/tool
TOOL_T_CFLAGS := -O2 -g -Wall -Wa,--gsframe -pthread

$(TOOL_T)/target: selftests/tool/src/target.c
	@mkdir -p $(dir $@)
	gcc $(TOOL_T_CFLAGS) -o $@ $<

$(TOOL_T)/target.o: selftests/tool/src/target.c
	@mkdir -p $(dir $@)
	gcc $(TOOL_T_CFLAGS) -c -o $@ $<

# Another program from the same source (-O1): another build-id, other
# code, for the tests that name the wrong program.
$(TOOL_T)/target-other: selftests/tool/src/target.c
	@mkdir -p $(dir $@)
	gcc $(TOOL_T_CFLAGS) -O1 -o $@ $<

TOOL_T_PROGS := $(TOOL_T)/target $(TOOL_T)/target.o $(TOOL_T)/target-other

$(TOOL_T)/test_verify.o: selftests/tool/test_verify.c scripts/uwind/stack.h \
		selftests/common/tap.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Iscripts/uwind -c $< -o $@

$(TOOL_T)/test_verify: $(TOOL_T)/test_verify.o $(O)/tool/stack_verify.o \
		$(LIBUWIND)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

$(call uw_test,$(TOOL_T)/test_verify,unit san,$(TOOL_T)/test_verify)

$(call uw_test,sh selftests/tool/cli.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
$(call uw_test,sh selftests/tool/files.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
$(call uw_test,sh selftests/tool/tables.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
# Cores: gdb's of target, qemu-aarch64's of the stack tests' programs.
$(call uw_test,sh selftests/tool/cores.sh $(O),san,$(TOOL) $(TOOL_T_PROGS) \
	$(O)/selftests/stack/chain-a64 $(O)/selftests/sfconv/crash-a64)
$(call uw_test,sh selftests/tool/names.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
$(call uw_test,sh selftests/tool/json.sh $(O),san,$(TOOL) $(TOOL_T_PROGS))
# Not under ASan: it installs and builds against the tree's own objects.
# docs.sh: the documentation against the tree and the tool.
ifeq ($(SAN),)
$(call uw_test,sh selftests/tool/install.sh $(O),,$(TOOL) $(LIBUWIND))
$(call uw_test,sh selftests/tool/docs.sh $(O),,$(TOOL))
endif
