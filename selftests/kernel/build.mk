# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Kernel module tests: the module (Kbuild, against the installed Debian
# kernel's headers), the programs run in the guest, and the QEMU test.
#
#   make module       build $(O)/kernel/mod/uwind.ko
#   make kernel-tests run the kernel tests alone
#
# Left out of the ASan build (SAN=1): nothing here is sanitized.

ifeq ($(SAN),)

KT_OUT := $(O)/selftests/kernel
KMOD := $(O)/kernel/mod/uwind.ko
KMOD_SRCS := Kbuild $(wildcard kernel/*.c kernel/*.h) $(LIB_SRCS) \
	$(wildcard lib/*.h include/uwind/*.h)

.PHONY: module kernel-tests
module: $(KMOD)

$(KMOD): $(KMOD_SRCS) scripts/build-module.sh scripts/kernel-env.sh
	O=$(O) sh scripts/build-module.sh $(O)/kernel/mod >/dev/null

# The leaf program: static, frame pointers everywhere (leaf functions too),
# so the stock kernel unwinder gives the whole chain.
$(KT_OUT)/leaf-fp: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static \
		-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -o $@ $<

KT_TEST := sh,selftests/kernel/basic.sh,$(O)

kernel-tests: $(KMOD) $(KT_OUT)/leaf-fp
	@sh scripts/run-tests.sh $(KT_TEST)

ALL_TARGETS += $(KMOD) $(KT_OUT)/leaf-fp
# One word: run-tests.sh turns the commas into spaces.
TESTS += $(KT_TEST)

endif
