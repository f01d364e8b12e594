# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# ASan + UBSan stage: rebuild the whole tree with SAN=1 into $(O)/asan
# (build/asan by default) and re-run there every user-space test that is
# marked sanitizer-safe.
#
# Convention for test areas (selftests/<area>/build.mk):
#
#   TESTS     += $(O)/selftests/<area>/foo
#   SAN_TESTS += $(O)/selftests/<area>/foo
#
#   - A test command that runs correctly under ASan + UBSan (a program
#     built with HOST_CFLAGS/HOST_LDFLAGS, which carry the sanitizers
#     when SAN is set, or a script driving such programs and $(TOOL)) is
#     also appended to SAN_TESTS, written with $(O), never with a literal
#     "build", so that in the SAN=1 build it names the sanitized files.
#   - Each entry is one word (a program, or a generated wrapper script
#     that runs "sh selftests/<area>/x.sh $(O)"): the list is split on
#     white space, exactly like TESTS in run-tests.sh.
#   - Leave out what is not user-space code under test or is slow twice:
#     the freestanding gate, the fuzzer (sanitized already), kernel and
#     QEMU system tests, cross programs run under qemu-user (no cross
#     sanitizer runtime).
#   - Entries must be built by build-all (ALL_TARGETS) in the SAN=1 build.
#
#   make O=build/asan SAN=1 --no-print-directory print-san-tests
#
# prints the entries, one per line, with the asan paths.  The stage
# (selftests/asan/run.sh, in TESTS) runs `make O=$(O)/asan SAN=1
# build-all`, then each printed command, and reports one TAP line per
# inner test line, renumbered and prefixed "asan:".  Output that holds a
# sanitizer report fails even where the test itself printed "ok".

SAN_TESTS ?=
ASAN_DIR := $(O)/selftests/asan

.PHONY: print-san-tests
print-san-tests:
	@for t in $(SAN_TESTS); do echo "$$t"; done

# run-tests.sh word-splits TESTS, so the command is a one-word wrapper.
$(ASAN_DIR)/run: selftests/asan/build.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh selftests/asan/run.sh %s\n' '$(O)' >$@
	chmod +x $@

ifeq ($(SAN),)
ALL_TARGETS += $(ASAN_DIR)/run
TESTS += $(ASAN_DIR)/run
endif
