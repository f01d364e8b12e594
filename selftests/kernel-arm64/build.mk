# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The arm64 guest: Debian 12's arm64 kernel under qemu-system-aarch64,
# with the arm64 perf, uwind.ko cross-built for it, AArch64 and 32-bit
# ARM programs.  The kernel, its headers and the guest's packages come
# from scripts/deps-arm64.sh.
#
#   make module-arm64        uwind.ko for the arm64 guest's kernel
#                            ($(KMOD_ARM64))
#   make kernel-arm64-tests  run this stage alone
#
# The guest runs the kernel tests (selftests/kernel/guest-tests.sh, the
# parts that apply) on their own programs built for AArch64 into
# $(KA_A64) by a make of their own (selftests/kernel/build.mk's rules,
# with KT_OUT and KT_CC given), and this directory's tests of what is
# arm64's: 32-bit ARM tasks, pointer authentication, signal frames.
# selftests/kernel/build.mk's flags (KT_FP, KT_SF, KT_WARN) are used as
# they are, so both architectures build alike.  That file is included
# after this one ("kernel-arm64" sorts before "kernel/"): its variables
# are used in recipes and "=" definitions only.

ifeq ($(SAN),)

KA_OUT := $(O)/selftests/kernel-arm64
KA_A64 := $(KA_OUT)/a64
KA_CC := aarch64-linux-gnu-gcc
KA_CXX := aarch64-linux-gnu-g++
KA_ARM := arm-linux-gnueabihf-
KA_CC32 := $(KA_ARM)gcc
KMOD_ARM64 := $(O)/kernel/arm64/mod/uwind.ko
KA_ENV := scripts/build-module.sh scripts/kernel-env-arm64.sh \
	scripts/deps-arm64.sh

.PHONY: module-arm64 kernel-arm64-tests kernel-arm64-progs ka-a64-progs
module-arm64: $(KMOD_ARM64)

$(KMOD_ARM64): Kbuild $(wildcard kernel/*.c kernel/*.h) $(LIB_SRCS) \
		$(wildcard lib/*.h include/uwind/*.h) $(KA_ENV)
	O=$(O) sh scripts/build-module.sh -a arm64 $(dir $@) >/dev/null

# The kernel tests' programs for AArch64: the stamp is touched after a
# make that builds whatever is out of date there.
$(KA_A64)/.built: ka-a64-progs
	@mkdir -p $(dir $@)
	@touch $@
ka-a64-progs:
	@$(MAKE) --no-print-directory O=$(O) KT_OUT=$(KA_A64) KT_CC=$(KA_CC) \
		kernel-progs

# AArch64 with pointer authentication (the guest CPU signs return
# addresses): SFrame rows marked signed, and frame records holding signed
# return addresses.
KA_PAC := -mbranch-protection=standard
$(KA_OUT)/leaf-pac: selftests/kernel/leaf.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC) $(KT_SF) $(KA_PAC) -o $@ $<

$(KA_OUT)/leaf-fppac: selftests/kernel/leaf.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC) $(KT_FP) $(KA_PAC) -o $@ $<

# A handler's chain through the vDSO's sigreturn trampoline.
$(KA_OUT)/sig-a64: selftests/kernel/sigleaf.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC) $(KT_SF) -o $@ $<

# 32-bit ARM, dynamic (armhf libc from the cross packages): Thumb-2, no
# frame pointer, EHABI unwind tables for every function; with leaf_b() in ARM
# state (leaf-mix); a handler's chain through the kernel's sigpage.
KA_T32 = $(KT_WARN) -mthumb -funwind-tables -fomit-frame-pointer \
	-fno-optimize-sibling-calls
$(KA_OUT)/leaf-t32: selftests/kernel/leaf.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC32) $(KA_T32) -o $@ $<

# leaf-t32 with a broken index: its first entry's second word points
# (prel31, 0x3fffff00) a gigabyte past .ARM.extab.  The module must
# refuse the table once, counted, and walk with frame records.
$(KA_OUT)/leaf-t32bad: $(KA_OUT)/leaf-t32
	cp $< $@.tmp
	off=$$($(KA_ARM)readelf -SW $@.tmp | sed 's/^ *\[ *[0-9]*\]//' | \
		awk '$$1 == ".ARM.exidx" { print $$4 }') && [ -n "$$off" ] && \
	printf '\000\377\377\077' | \
		dd of=$@.tmp bs=1 seek=$$((0x$$off + 4)) conv=notrunc 2>/dev/null
	mv $@.tmp $@

$(KA_OUT)/leaf-mix: selftests/kernel/leaf.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC32) $(KA_T32) -DLEAF_ARM_B -o $@ $<

$(KA_OUT)/sig-t32: selftests/kernel/sigleaf.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC32) $(KA_T32) -o $@ $<

# main -> fp_lib_func (libuwfp32.so: ARM state, frame pointers, no unwind
# tables) -> chain_cb -> chain_leaf (Thumb, EHABI): the frame-pointer
# fallback in the middle of a chain.  The guest has the library in
# /root/lib32.
$(KA_OUT)/lib32/libuwfp32.so: selftests/kernel/uwlib.c
	@mkdir -p $(dir $@)
	$(KA_CC32) $(KT_WARN) -marm -fno-omit-frame-pointer -fno-unwind-tables \
		-fno-asynchronous-unwind-tables -fPIC -shared \
		-Wl,-soname,libuwfp32.so -DLIB_FUNC=fp_lib_func -o $@ $<

$(KA_OUT)/chain-t32fp: selftests/kernel/chain.c selftests/kernel/now.h \
		$(KA_OUT)/lib32/libuwfp32.so
	$(KA_CC32) $(KA_T32) -DLIB_FUNC=fp_lib_func -o $@ $< \
		-L$(KA_OUT)/lib32 -luwfp32 -Wl,-rpath,/root/lib32

# A stock AArch64 C++ program (plain -O2) hot in libstdc++'s
# ostringstream, for the installed-table test.
$(KA_OUT)/hot-oss: selftests/kernel/hotxx.cc selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CXX) -O2 -g -Wall -Wextra -Werror -DHOT_OSS -o $@ $<

# A stock armhf program (-O2, Debian's defaults: Thumb-2, no unwind
# tables) whose hot loop is in libc's memcpy.
$(KA_OUT)/memloop32: selftests/kernel/memloop.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC32) $(KT_WARN) -o $@ $<

# The uwind tool for AArch64, for the guest's own conversions (uwind
# agent, uwind sframe): the tool's and the core's sources built as the
# Makefile builds $(TOOL), linked with the arm64 libdw and libelf of
# scripts/deps-arm64.sh's sysroot, which the guest loads.  elfutils'
# headers are the host's (libelf-dev, libdw-dev: they hold nothing
# architecture-specific), copied alone into a directory of their own so
# that the cross compiler never reads the rest of /usr/include; they may
# not be newer than the sysroot's libraries.  KA_SYSROOT names another
# arm64 userland with libdw and libelf (a suite's, in its chroot:
# /uwind/arm64/sysroot, scripts/suite-root.sh).  Built here once, against
# Debian 12's (the oldest), it runs in every arm64 guest of the matrix,
# as the x86-64 tool does in the x86-64 ones: kernel-arm64.sh puts it at
# /usr/bin/uwind.
KA_TOOL := $(KA_OUT)/uwind
KA_TD := $(KA_OUT)/tool
KA_TINC := $(KA_TD)/include
KA_EU_HDRS := libelf.h gelf.h nlist.h dwarf.h elfutils
KA_TOOL_OBJS := $(TOOL_SRCS:scripts/uwind/%.c=$(KA_TD)/%.o)
KA_TLIB_OBJS := $(LIB_SRCS:lib/%.c=$(KA_TD)/lib/%.o)
KA_TLIB := $(KA_TD)/libuwind.a
KA_SYSROOT ?=

$(KA_TINC)/.copied: $(KA_EU_HDRS:%=/usr/include/%)
	@rm -rf $(dir $@)
	@mkdir -p $(dir $@)
	cp -R $^ $(dir $@)
	@touch $@

$(KA_TD)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(KA_CC) $(LIB_CFLAGS) -c $< -o $@

$(KA_TLIB): $(KA_TLIB_OBJS)
	@rm -f $@
	aarch64-linux-gnu-ar rcs $@ $^

$(KA_TD)/%.o: scripts/uwind/%.c $(wildcard scripts/uwind/*.h) $(LIB_HDRS) \
		$(KA_TINC)/.copied
	@mkdir -p $(dir $@)
	$(KA_CC) $(HOST_CFLAGS) -isystem $(KA_TINC) -c $< -o $@

$(KA_TD)/main.o: HOST_CFLAGS += -DUWIND_VERSION='"$(UWIND_VERSION)"'
$(KA_TD)/main.o: Makefile

$(KA_TOOL): $(KA_TOOL_OBJS) $(KA_TLIB) scripts/deps-arm64.sh
	@mkdir -p $(dir $@)
	r=$(or $(KA_SYSROOT),$$(sh scripts/deps-arm64.sh -q)) && \
	l=$$r/usr/lib/aarch64-linux-gnu && \
	v=$$(ls $$l/libdw-0.*.so | sed -n 's/.*libdw-0\.\([0-9]*\)\.so$$/\1/p') && \
	h=$$(sed -n 's/^#define _ELFUTILS_VERSION[	 ][	 ]*\([0-9][0-9]*\)$$/\1/p' \
		$(KA_TINC)/elfutils/version.h) && \
	if [ -z "$$v" ] || [ -z "$$h" ] || [ "$$h" -gt "$$v" ]; then \
		echo "$@: elfutils headers $$h, $$l's libdw 0.$${v:-?}:" \
			"the headers may not be newer" >&2; \
		exit 1; \
	fi && \
	$(KA_CC) -o $@ $(KA_TOOL_OBJS) $(KA_TLIB) -L$$l \
		-Wl,-rpath-link,$$r/lib/aarch64-linux-gnu:$$l \
		-l:libelf.so.1 -l:libdw.so.1

# hot-qsort for the agent's container, with its loader and C library
# under /ctr: kernel-arm64.sh brings another Debian release's (as
# selftests/kernel/build.mk's hot-ct for x86-64).  Built here only, with
# the oldest C library of the matrix, so that it runs with any release's.
KA_CT := $(KA_OUT)/hot-ct
$(KA_CT): selftests/kernel/hot.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KA_CC) $(KT_WARN) -DHOT_QSORT -o $@ $< \
		-Wl,--dynamic-linker=/ctr/ld-linux-aarch64.so.1 -Wl,-rpath,/ctr

KA_PROGS := $(KA_A64)/.built $(KA_OUT)/leaf-pac $(KA_OUT)/leaf-fppac \
	$(KA_OUT)/sig-a64 $(KA_OUT)/leaf-t32 $(KA_OUT)/leaf-t32bad \
	$(KA_OUT)/leaf-mix $(KA_OUT)/sig-t32 $(KA_OUT)/chain-t32fp \
	$(KA_OUT)/memloop32 $(KA_OUT)/hot-oss
kernel-arm64-progs: $(KA_PROGS)

KA_TEST := sh selftests/kernel-arm64/kernel-arm64.sh $(O)

kernel-arm64-tests: $(KMOD_ARM64) $(KA_PROGS) $(KA_TOOL) $(KA_CT) $(TOOL)
	@sh scripts/run-tests.sh "$(KA_TEST)"

# make check runs it as a target of the kernel matrix
# (selftests/kernel/matrix.sh, registered by selftests/kernel/build.mk).

endif
