# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/sframe: SFrame unit vectors (built with a test encoder),
# hostile tables, walker tests on a synthetic stack, and V1 -> V2/V3/BE
# re-encoding of real .sframe sections.  The encoder is the uwind tool's
# (scripts/uwind/sframe_enc.c, which `uwind sframe` writes tables with).

SFT_DIR := $(O)/selftests/sframe
SFT_HDRS := scripts/uwind/sframe_enc.h selftests/sframe/testutil.h \
	selftests/common/tap.h $(LIB_HDRS) selftests/common/cachewalk.h \
	selftests/common/directwalk.h selftests/common/walkcmp.h
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

.PHONY: sframe-tests
sframe-tests: $(SFT_BINS)

$(call uw_test,$(SFT_DIR)/test_sframe,unit san,$(SFT_DIR)/test_sframe)
$(call uw_test,sh selftests/sframe/reencode.sh $(O),san,$(SFT_BINS) $(TOOL))
