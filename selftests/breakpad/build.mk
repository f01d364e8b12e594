# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/breakpad: Breakpad symbol files.
#   test_breakpad  the postfix evaluator (Breakpad's vectors, hostile
#                  expressions), the record search against a plain scan,
#                  hostile records, STACK WIN types 0 and 4, walks
#   e2e.sh         .sym files `uwind convert --breakpad` writes for the
#                  x86-64 and AArch64 programs of selftests/stack: their
#                  cores unwound with `uwind stack --breakpad` to the same
#                  frames as with SFrame and as gdb; lookup --breakpad at
#                  every instruction against the SFrame lookup

BP_DIR := $(O)/selftests/breakpad

$(BP_DIR)/test_breakpad: selftests/breakpad/test_breakpad.c \
		selftests/common/tap.h $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND)

ALL_TARGETS += $(BP_DIR)/test_breakpad
TESTS += $(BP_DIR)/test_breakpad
SAN_TESTS += $(BP_DIR)/test_breakpad

# The end-to-end test runs on selftests/stack's programs.
$(BP_DIR)/run-e2e: selftests/breakpad/build.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh selftests/breakpad/e2e.sh %s %s\n' \
		'$(TOOL)' '$(O)/selftests/stack' >$@
	chmod +x $@

ALL_TARGETS += $(BP_DIR)/run-e2e
TESTS += $(BP_DIR)/run-e2e
SAN_TESTS += $(BP_DIR)/run-e2e
