# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/ehabi: ARM EHABI unit vectors and hostile tables built in
# memory (test_ehabi), and `uwind dump`/`uwind lookup` on ARM ELF files
# against arm-linux-gnueabihf-readelf -u (readelf-diff.sh).

EHT_DIR := $(O)/selftests/ehabi

$(EHT_DIR)/test_ehabi: selftests/ehabi/test_ehabi.c selftests/common/tap.h \
		$(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND)

# run-tests.sh splits TESTS on white space: a one-word wrapper passes O.
$(EHT_DIR)/run-readelf-diff: selftests/ehabi/build.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh selftests/ehabi/readelf-diff.sh %s\n' '$(O)' >$@
	chmod +x $@

ALL_TARGETS += $(EHT_DIR)/test_ehabi $(EHT_DIR)/run-readelf-diff
TESTS += $(EHT_DIR)/test_ehabi $(EHT_DIR)/run-readelf-diff
SAN_TESTS += $(EHT_DIR)/test_ehabi $(EHT_DIR)/run-readelf-diff
