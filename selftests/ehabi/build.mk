# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/ehabi: ARM EHABI unit vectors and hostile tables built in
# memory (test_ehabi), and `uwind dump`/`uwind lookup` on ARM ELF files
# against arm-linux-gnueabihf-readelf -u (readelf-diff.sh).

EHT_DIR := $(O)/selftests/ehabi

$(EHT_DIR)/test_ehabi: selftests/ehabi/test_ehabi.c selftests/common/tap.h \
		$(LIBUWIND) $(LIB_HDRS) selftests/common/cachewalk.h \
		selftests/common/directwalk.h selftests/common/walkcmp.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND)

$(call uw_test,$(EHT_DIR)/test_ehabi,unit san,$(EHT_DIR)/test_ehabi)
$(call uw_test,sh selftests/ehabi/readelf-diff.sh $(O),san,$(TOOL))
