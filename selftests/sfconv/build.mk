# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# `uwind sframe` (SFrame made from DWARF CFI): the per-pc verifier
# against libdw, readelf and the assembler's .sframe, the coverage
# report, and `uwind stack` on cores of stock-built programs.

SFC_DIR := $(O)/selftests/sfconv

$(SFC_DIR)/sfverify: selftests/sfconv/sfverify.c $(LIBUWIND) $(LIB_HDRS)
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
TESTS += sh,selftests/sfconv/stock.sh,$(O)
TESTS += sh,selftests/sfconv/sfconv.sh,$(O)
