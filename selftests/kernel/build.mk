# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Kernel module tests: the module (Kbuild, against the installed Debian
# kernel's headers), the programs run in the guest, and the QEMU test.
#
#   make module       build $(O)/module/uwind.ko for the running kernel,
#                     or KVER=<version>, or KDIR=<headers build dir>;
#                     ARCH=arm64 cross-builds (scripts/build-module.sh)
#   make kernel-module  $(O)/kernel/mod/uwind.ko, for the kernel the tests
#                     boot (the installed Debian 12 kernel)
#   make kernel-tests run the kernel tests alone
#
# The guest programs go to $(KT_OUT), their shared libraries to
# $(KT_OUT)/lib, which the guest has at /root/lib (the programs' run path).
# Always gcc: --gsframe is a GNU as option.
#
# Left out of the ASan build (SAN=1): nothing here is sanitized.

ifeq ($(SAN),)

KT_OUT := $(O)/selftests/kernel
KMOD := $(O)/kernel/mod/uwind.ko
KMOD_SRCS := Kbuild $(wildcard kernel/*.c kernel/*.h) $(LIB_SRCS) \
	$(wildcard lib/*.h include/uwind/*.h) scripts/uwind/uwsf.h

.PHONY: module kernel-module kernel-tests kernel-progs kernel-matrix
module:
	@O=$(O) sh scripts/build-module.sh \
		$(if $(filter arm64 aarch64,$(ARCH)),-a arm64) \
		$(if $(KDIR),-k $(KDIR)) $(if $(KVER),-v $(KVER)) $(O)/module

kernel-module: $(KMOD)

$(KMOD): $(KMOD_SRCS) scripts/build-module.sh scripts/kernel-env.sh
	O=$(O) sh scripts/build-module.sh -t $(O)/kernel/mod >/dev/null

KT_CC := gcc
KT_WARN := -std=gnu11 -O2 -g -Wall -Wextra -Werror
# Programs without frame pointers, with SFrame: what the module is for.
KT_SF := $(KT_WARN) -fomit-frame-pointer -fno-optimize-sibling-calls \
	-Wa,--gsframe
# Frame pointers everywhere (leaf functions too), no SFrame.
KT_FP := $(KT_WARN) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls
KT_RPATH := -Wl,-rpath,/root/lib
KT_LIB := $(KT_OUT)/lib

# The leaf program, static, with frame pointers: the stock kernel unwinder
# gives its whole chain (the reference).
$(KT_OUT)/leaf-fp: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_FP) -static -o $@ $<

# The same program as distributions build it today: dynamic, no frame
# pointers; with SFrame.
$(KT_OUT)/leaf-sf: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $<

$(KT_LIB)/libuwchain.so: selftests/kernel/uwlib.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -fPIC -shared -Wl,-soname,libuwchain.so \
		-DLIB_FUNC=lib_enter -o $@ $<

$(KT_LIB)/libuwfp.so: selftests/kernel/uwlib.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_FP) -fPIC -shared -Wl,-soname,libuwfp.so \
		-DLIB_FUNC=fp_lib_func -o $@ $<

# main -> lib_enter (libuwchain.so) -> chain_cb -> chain_leaf: linked ...
$(KT_OUT)/chain: selftests/kernel/chain.c $(KT_LIB)/libuwchain.so
	$(KT_CC) $(KT_SF) -DLIB_FUNC=lib_enter -o $@ $< \
		-L$(KT_LIB) -luwchain $(KT_RPATH)

# ... and dlopen'ed.
$(KT_OUT)/chain-dl: selftests/kernel/chain.c $(KT_LIB)/libuwchain.so
	$(KT_CC) $(KT_SF) -DLIB_FUNC=lib_enter -DCHAIN_DLOPEN -o $@ $<

# main -> fp_lib_func (libuwfp.so: frame pointers, no SFrame) -> ...
$(KT_OUT)/chain-fp: selftests/kernel/chain.c $(KT_LIB)/libuwfp.so
	$(KT_CC) $(KT_SF) -DLIB_FUNC=fp_lib_func -o $@ $< \
		-L$(KT_LIB) -luwfp $(KT_RPATH)

# swap: libuwswapa.so dlclose'd, libuwswapb.so dlopen'ed at its address.
$(KT_LIB)/libuwswap%.so: selftests/kernel/swaplib.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -fPIC -shared -Wl,-soname,libuwswap$*.so \
		-DSWAP_$(shell echo $* | tr a-z A-Z) -o $@ $<

$(KT_OUT)/swap: selftests/kernel/swap.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $< -ldl

$(KT_OUT)/threads: selftests/kernel/threads.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -pthread -o $@ $<

# A handler's chain through the signal frame (glibc's restorer on x86-64,
# the vDSO's on AArch64), and a thread whose callers' stack pages are
# dropped all the time (the deferred walk faults them in).
$(KT_OUT)/sigleaf: selftests/kernel/sigleaf.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $<

$(KT_OUT)/pagedrop: selftests/kernel/pagedrop.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -pthread -o $@ $<

# Code in a new anonymous mapping every round, as a JIT's.
$(KT_OUT)/jitloop: selftests/kernel/jitloop.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $<

# Short-lived: static (quick to start) and dynamic (maps libuwchain.so).
$(KT_OUT)/tiny: selftests/kernel/tiny.c selftests/kernel/uwlib.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -static -o $@ $^

$(KT_OUT)/tiny-dyn: selftests/kernel/tiny.c $(KT_LIB)/libuwchain.so
	$(KT_CC) $(KT_SF) -o $@ $< -L$(KT_LIB) -luwchain $(KT_RPATH)

# Copies of leaf-sf with a damaged SFrame section, one per kind.
$(KT_OUT)/sframe-corrupt: selftests/kernel/sframe-corrupt.c selftests/kernel/sframe-file.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $<

KT_BAD_KINDS := badmagic hugefdes freoob fdeoob garbage frejunk
KT_BAD := $(KT_BAD_KINDS:%=$(KT_OUT)/bad-%)
$(KT_OUT)/bad-%: $(KT_OUT)/leaf-sf $(KT_OUT)/sframe-corrupt
	$(KT_OUT)/sframe-corrupt $* $< $@.tmp && chmod +x $@.tmp && \
		mv $@.tmp $@

# Guest tools for the memory-limit tests: sparse copies of a program with
# a large table, and N processes started at once as another user.
$(KT_OUT)/sframe-grow: selftests/kernel/sframe-grow.c selftests/kernel/sframe-file.h
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -o $@ $<

$(KT_OUT)/uwspawn: selftests/kernel/uwspawn.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -o $@ $<

# A frame-pointer guess outside every mapping (fpjunk), a hot loop in
# libc's memcpy (memloop), a KVM guest that spins (kvmspin).
$(KT_OUT)/fpjunk: selftests/kernel/fpjunk.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $<

$(KT_OUT)/memloop: selftests/kernel/memloop.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $<

# The benchmark's stacks of given depths (deep.c): SFrame, frame
# pointers.  Static: the frame-pointer chain ends cleanly at _start (a
# dynamic program's runs on into the C library's registers, and the
# kernel's walker takes a fault there).
$(KT_OUT)/deep-sf: KT_DEEP = $(KT_SF)
$(KT_OUT)/deep-fp: KT_DEEP = $(KT_FP)
$(KT_OUT)/deep-sf $(KT_OUT)/deep-fp: selftests/kernel/deep.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_DEEP) -static -o $@ $<

$(KT_OUT)/kvmspin: selftests/kernel/kvmspin.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -o $@ $<

# The consumers: leaf-sys makes system calls from its leaf (tracepoint
# samples, perf trace); leaf-st is static (its addresses are its symbols',
# in leaf-st.syms) for bpfstack, a BPF loader on the bpf() system call.
$(KT_OUT)/leaf-sys: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -DLEAF_SYSCALL -o $@ $<

$(KT_OUT)/leaf-st: selftests/kernel/leaf.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_SF) -static -o $@ $<

$(KT_OUT)/leaf-st.syms: $(KT_OUT)/leaf-st
	nm -n -S --defined-only $< | awk '$$3 ~ /^[Tt]$$/' > $@

$(KT_OUT)/bpfstack: selftests/kernel/bpfstack.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -o $@ $<

# Installed tables (t_inst*): programs built plain -O2, as Debian builds
# them (no frame pointers, no SFrame), hot in libc (hot.c) and libstdc++
# (hotxx.cc); hot-chg2 is another build of hot-chg, hot-chg3 other code
# (another frame in hot_c()) under hot-chg's very build-id.
KT_HOT_C := qsort mem malloc write vdso plug
KT_HOT_XX := sort oss umap
KT_HOT := $(KT_HOT_C:%=$(KT_OUT)/hot-%) $(KT_HOT_XX:%=$(KT_OUT)/hot-%) \
	$(KT_OUT)/hot-chg $(KT_OUT)/hot-chg2 $(KT_OUT)/hot-chg3 \
	$(KT_LIB)/libuwplug.so
KT_UP = $(shell echo $(1) | tr a-z A-Z)

$(KT_HOT_C:%=$(KT_OUT)/hot-%): $(KT_OUT)/hot-%: selftests/kernel/hot.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -DHOT_$(call KT_UP,$*) -o $@ $<

# hot-plug's plugin, built as stock as the programs.
$(KT_LIB)/libuwplug.so: selftests/kernel/uwplug.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -fPIC -shared -o $@ $<

# The agent's tests (guest-agent.sh): files made in the guest (uwgen.c),
# and hot-qsort for a container of another Debian release, whose loader
# and C library it finds under /ctr (kernel.sh brings them).  hot-ct is
# built here only, with the oldest C library of the matrix, so that it
# runs with any release's.
$(KT_OUT)/uwgen: selftests/kernel/uwgen.c
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -o $@ $<

KT_CT := $(KT_OUT)/hot-ct
$(KT_CT): selftests/kernel/hot.c selftests/kernel/now.h
	@mkdir -p $(dir $@)
	$(KT_CC) $(KT_WARN) -DHOT_QSORT -o $@ $< \
		-Wl,--dynamic-linker=/ctr/ld-linux-x86-64.so.2 -Wl,-rpath,/ctr

$(KT_HOT_XX:%=$(KT_OUT)/hot-%): $(KT_OUT)/hot-%: selftests/kernel/hotxx.cc
	@mkdir -p $(dir $@)
	g++ -O2 -g -Wall -Wextra -Werror -DHOT_$(call KT_UP,$*) -o $@ $<

$(KT_OUT)/hot-chg: selftests/kernel/hot.c
	$(KT_CC) $(KT_WARN) -DHOT_CHG -DCHG_VARIANT=0 -o $@ $<

$(KT_OUT)/hot-chg2: selftests/kernel/hot.c
	$(KT_CC) $(KT_WARN) -DHOT_CHG -DCHG_VARIANT=1 -o $@ $<

$(KT_OUT)/hot-chg3: selftests/kernel/hot.c $(KT_OUT)/hot-chg
	$(KT_CC) $(KT_WARN) -DHOT_CHG -DCHG_VARIANT=2 -o $@ $< \
		-Wl,--build-id=0x$$(readelf -n $(KT_OUT)/hot-chg | \
		awk '/Build ID:/ { print $$3 }')

# Where every call in them, in their libraries and in the guest kernel's
# vDSO returns to (file offsets), for the guest's check that each frame
# is a call site.  The guest's kernel image: KT_VMLINUZ, by default the
# installed Debian kernel's.
KT_VMLINUZ ?=
$(KT_OUT)/hot.ret: selftests/kernel/retaddrs.sh selftests/kernel/host-lib.sh $(KT_HOT)
	k=$$(O=$(O) sh scripts/extract-vmlinux.sh $(if $(KT_VMLINUZ),$(KT_VMLINUZ) $(KT_OUT)/vmlinux)) && \
	sh selftests/kernel/retaddrs.sh -k "$$k" $(KT_HOT) > $@.tmp && mv $@.tmp $@

KT_PROGS := $(KT_HOT) $(KT_OUT)/hot.ret $(KT_OUT)/uwgen $(KT_OUT)/leaf-sys $(KT_OUT)/leaf-st $(KT_OUT)/leaf-st.syms \
	$(KT_OUT)/bpfstack $(KT_OUT)/fpjunk $(KT_OUT)/memloop $(KT_OUT)/kvmspin \
	$(KT_OUT)/deep-sf $(KT_OUT)/deep-fp \
	$(KT_OUT)/sframe-grow $(KT_OUT)/uwspawn $(KT_OUT)/leaf-fp $(KT_OUT)/leaf-sf $(KT_OUT)/chain \
	$(KT_OUT)/chain-dl $(KT_OUT)/chain-fp $(KT_OUT)/threads \
	$(KT_OUT)/sigleaf $(KT_OUT)/pagedrop $(KT_OUT)/jitloop \
	$(KT_OUT)/tiny $(KT_OUT)/tiny-dyn $(KT_LIB)/libuwchain.so $(KT_LIB)/libuwfp.so $(KT_BAD) \
	$(KT_OUT)/swap $(KT_LIB)/libuwswapa.so $(KT_LIB)/libuwswapb.so

# selftests/kernel-arm64/build.mk builds these for AArch64 too, with a
# make of their own given KT_OUT and KT_CC: all but kvmspin, which drives
# x86's KVM, and of the installed-table tests' programs only the C ones
# hot in libc (its own test; hot.ret reads the x86-64 kernel's vDSO).
ifneq ($(KT_CC),gcc)
KT_PROGS := $(filter-out $(KT_OUT)/kvmspin $(KT_OUT)/hot.ret \
	$(KT_HOT_XX:%=$(KT_OUT)/hot-%) $(KT_OUT)/hot-chg%,$(KT_PROGS))
endif

# The programs' clock (leaf.c and the others spin for a given time).
$(filter-out %.so %.syms %.ret $(KT_BAD) $(KT_OUT)/sframe-%,$(KT_PROGS)): \
	selftests/kernel/now.h

kernel-progs: $(KT_PROGS)

KT_TEST := sh selftests/kernel/kernel.sh $(O)

kernel-tests: $(KMOD) $(KT_PROGS) $(KT_CT)
	@sh scripts/run-tests.sh "$(KT_TEST)"

# make check runs the whole kernel matrix (matrix.sh): Debian 12's kernels
# with the programs built here, the other releases' with their own.
KT_MATRIX := sh selftests/kernel/matrix.sh $(O)

kernel-matrix: $(KMOD) $(KT_PROGS) $(KT_CT) $(KMOD_ARM64) $(KA_PROGS) \
		$(KA_TOOL) $(KA_CT) $(TOOL)
	@sh scripts/run-tests.sh "$(KT_MATRIX)"

# The module's source rules no compiler checks (every allocation counted).
$(call uw_test,sh selftests/kernel/source.sh,unit,)
# The kernels older than the matrix's, built only.
$(call uw_test,sh selftests/kernel/oldkernels.sh $(O),,$(KMOD))

$(call uw_test,$(KT_MATRIX),bg,$(KMOD) $(KT_PROGS) $(KT_CT) $(KMOD_ARM64) $(KA_PROGS) $(KA_TOOL) $(KA_CT) $(TOOL))

endif
