# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# selftests/compact: Apple compact unwind (__unwind_info).
#   test_compact  hand-built tables (regular pages, x86 encodings, palette
#                 edges, malformed tables), every encoding form, the
#                 frameless register permutation, walks on synthetic stacks
#   test_cu_check uw_cu_check: each error it names on a broken table, and
#                 on mutated tables that checked ones never fail a lookup
#   macho.sh      Mach-O programs built here with clang-14 and
#                 ld64.lld-14: `uwind dump` entry by entry against
#                 llvm-objdump-14 --macho --unwind-info, `uwind lookup`
#                 against the rule each encoding implies, fat files and
#                 --arch, convert --breakpad, hostile files

CU_DIR := $(O)/selftests/compact

$(CU_DIR)/test_compact $(CU_DIR)/test_cu_check: $(CU_DIR)/%: \
		selftests/compact/%.c selftests/compact/cu_build.h \
		selftests/common/tap.h selftests/common/check.h \
		selftests/common/cachewalk.h $(LIBUWIND) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) -o $@ $< $(LIBUWIND)

$(call uw_test,$(CU_DIR)/test_compact,unit san,$(CU_DIR)/test_compact)
$(call uw_test,$(CU_DIR)/test_cu_check,unit san,$(CU_DIR)/test_cu_check)

# The Mach-O programs (never run: compiled and linked for macOS here).
CU_MACHO_CC := clang-14 -O2 -fno-stack-protector
CU_LD := ld64.lld-14 -dylib -platform_version macos 11.0 11.0 \
	-undefined dynamic_lookup
CU_DYLIBS := $(foreach a,x86_64 arm64,$(foreach v,fp nofp, \
	$(CU_DIR)/m/funcs-$(a)-$(v).dylib)) $(CU_DIR)/m/gen-x86_64.dylib \
	$(CU_DIR)/m/gen-arm64.dylib $(CU_DIR)/m/fat.dylib

$(CU_DIR)/m/funcs-%-fp.o: selftests/compact/src/funcs.c
	@mkdir -p $(dir $@)
	$(CU_MACHO_CC) -target $*-apple-macos11 -fno-omit-frame-pointer -c $< -o $@

$(CU_DIR)/m/funcs-%-nofp.o: selftests/compact/src/funcs.c
	@mkdir -p $(dir $@)
	$(CU_MACHO_CC) -target $*-apple-macos11 -fomit-frame-pointer -c $< -o $@

$(CU_DIR)/m/gen.c: selftests/compact/gen.sh
	@mkdir -p $(dir $@)
	sh $< 2200 >$@.tmp && mv $@.tmp $@

# x86-64 without frame pointers (frameless forms, permutations), arm64
# with them (frames with register pairs; without, clang-14 writes DWARF).
$(CU_DIR)/m/gen-x86_64.o: $(CU_DIR)/m/gen.c
	$(CU_MACHO_CC) -target x86_64-apple-macos11 -fomit-frame-pointer -c $< -o $@

$(CU_DIR)/m/gen-arm64.o: $(CU_DIR)/m/gen.c
	$(CU_MACHO_CC) -target arm64-apple-macos11 -fno-omit-frame-pointer -c $< -o $@

$(CU_DIR)/m/%.dylib: $(CU_DIR)/m/%.o
	$(CU_LD) -arch $(if $(findstring arm64,$*),arm64,x86_64) $< -o $@

$(CU_DIR)/m/fat.dylib: $(CU_DIR)/m/funcs-x86_64-nofp.dylib \
		$(CU_DIR)/m/funcs-arm64-fp.dylib
	llvm-lipo-14 -create $^ -output $@

$(call uw_test,sh selftests/compact/macho.sh $(TOOL) $(CU_DIR)/m,san,$(TOOL) \
	$(CU_DYLIBS))
