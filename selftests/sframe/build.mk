# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/sframe: SFrame unit vectors (built with a test encoder),
# hostile tables, walker tests on a synthetic stack, and V1 -> V2/V3/BE
# re-encoding of real .sframe sections.  The encoder is the uwind tool's
# (scripts/uwind/sframe_enc.c, which `uwind sframe` writes tables with).

SFT_DIR := $(O)/selftests/sframe
SFT_HDRS := scripts/uwind/sframe_enc.h selftests/sframe/testutil.h \
	selftests/common/tap.h $(LIB_HDRS)
SFT_BINS := $(SFT_DIR)/test_sframe $(SFT_DIR)/sframe_reencode \
	$(SFT_DIR)/sframe_cmp

$(SFT_DIR)/%.o: selftests/sframe/%.c $(SFT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Iscripts/uwind -c $< -o $@

$(SFT_DIR)/test_sframe: $(SFT_DIR)/test_sframe.o $(O)/tool/sframe_enc.o \
		$(SFT_DIR)/testutil.o $(LIBUWIND)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

$(SFT_DIR)/sframe_reencode: $(SFT_DIR)/sframe_reencode.o \
		$(O)/tool/sframe_enc.o $(SFT_DIR)/testutil.o $(LIBUWIND)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

$(SFT_DIR)/sframe_cmp: $(SFT_DIR)/sframe_cmp.o $(SFT_DIR)/testutil.o \
		$(LIBUWIND)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

# run-tests.sh splits TESTS on white space: the script gets a one-word
# wrapper that passes it this build's O.
$(SFT_DIR)/run-reencode: selftests/sframe/build.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh selftests/sframe/reencode.sh %s\n' '$(O)' >$@
	chmod +x $@

.PHONY: sframe-tests
sframe-tests: $(SFT_BINS) $(SFT_DIR)/run-reencode

ALL_TARGETS += $(SFT_BINS) $(SFT_DIR)/run-reencode
TESTS += $(SFT_DIR)/test_sframe $(SFT_DIR)/run-reencode
SAN_TESTS += $(SFT_DIR)/test_sframe $(SFT_DIR)/run-reencode
