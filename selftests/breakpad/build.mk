# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/breakpad: Breakpad symbol files.
#   test_breakpad  the postfix evaluator (Breakpad's vectors, hostile
#                  expressions), the record search against a plain scan,
#                  hostile records, STACK WIN types 0 and 4, walks
#   test_bp_check  uw_bp_check: each error it names on a broken file, and
#                  on mutated files that checked ones never fail a lookup
#                  or an unwind with a format error
#   e2e.sh         .sym files `uwind convert --breakpad` writes for the
#                  x86-64 and AArch64 programs of selftests/stack: their
#                  cores unwound with `uwind stack --breakpad` to the same
#                  frames as with SFrame and as gdb; lookup --breakpad at
#                  every instruction against the SFrame lookup

BP_DIR := $(O)/selftests/breakpad

$(BP_DIR)/test_breakpad $(BP_DIR)/test_bp_check: $(BP_DIR)/%: \
		selftests/breakpad/%.c selftests/common/tap.h \
		selftests/common/check.h selftests/common/cachewalk.h \
		$(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND)

$(call uw_test,$(BP_DIR)/test_breakpad,unit san,$(BP_DIR)/test_breakpad)
$(call uw_test,$(BP_DIR)/test_bp_check,unit san,$(BP_DIR)/test_bp_check)

# The end-to-end test runs on selftests/stack's programs.
$(call uw_test,sh selftests/breakpad/e2e.sh $(TOOL) $(O)/selftests/stack,san,\
	$(TOOL) $(O)/selftests/stack/chain $(O)/selftests/stack/chain-a64)
