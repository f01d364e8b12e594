# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind sframe` (SFrame made from DWARF CFI): the per-pc verifier
# against libdw, readelf and the assembler's .sframe, the coverage
# report, `uwind stack` on cores of stock-built programs, and
# `uwind sframe --install` into a scratch directory (also from a build
# directory only its owner may enter: private.sh).

SFC_DIR := $(O)/selftests/sfconv

$(SFC_DIR)/sfverify: selftests/sfconv/sfverify.c selftests/common/dwarf_ops.h \
		selftests/common/elfscn.h \
		$(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND) -ldw -lelf

ALL_TARGETS += $(SFC_DIR)/sfverify

# Stock builds: plain -O2, as distributions build (no frame pointers, no
# SFrame).  The AArch64 one is static, for qemu-aarch64's cores.
$(SFC_DIR)/crash: selftests/sfconv/src/crash.c
	@mkdir -p $(dir $@)
	gcc -O2 -o $@ $<

$(SFC_DIR)/crash-a64: selftests/sfconv/src/crash.c
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc -O2 -static -o $@ $<

ALL_TARGETS += $(SFC_DIR)/crash $(SFC_DIR)/crash-a64

$(SFC_DIR)/sfmutate: selftests/sfconv/sfmutate.c selftests/common/elfscn.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< -lelf

ALL_TARGETS += $(SFC_DIR)/sfmutate

# Under ASan (SAN=1) the mutation run is shorter and sfconv.sh runs
# "quick".
$(call uw_test,sh selftests/sfconv/sfconv.sh $(O) $(if $(SAN),quick),san,\
	$(TOOL) $(SFC_DIR)/sfverify)
$(call uw_test,sh selftests/sfconv/stock.sh $(O),san,$(TOOL) \
	$(SFC_DIR)/crash $(SFC_DIR)/crash-a64)
$(call uw_test,sh selftests/sfconv/mutate.sh $(O) $(if $(SAN),30),san,\
	$(TOOL) $(SFC_DIR)/sfmutate)
$(call uw_test,sh selftests/sfconv/install.sh $(O),san,$(TOOL) $(SFC_DIR)/crash)
# Not under ASan, which makes the memory it measures.
$(call uw_test,sh selftests/sfconv/memory.sh $(O),,$(TOOL))
# The same from a build directory under a 0700 directory (a private clone).
$(call uw_test,sh selftests/sfconv/private.sh $(O),,$(TOOL) $(SFC_DIR)/crash)

# The converter alone, timed in-process, for `make bench`.
$(SFC_DIR)/sfconv_bench: selftests/sfconv/sfconv_bench.c \
		$(filter-out $(O)/tool/main.o,$(TOOL_OBJS)) $(LIBUWIND)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Iscripts/uwind $(HOST_LDFLAGS) -o $@ $^ -lelf -ldw

ALL_TARGETS += $(SFC_DIR)/sfconv_bench
