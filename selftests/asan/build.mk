# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# ASan + UBSan stage: rebuild the whole tree with SAN=1 into $(O)/asan
# (build/asan by default) and re-run there every user-space test that is
# marked sanitizer-safe: registered with the "san" group of uw_test (see
# the Makefile), which puts it in SAN_TESTS.
#
#   - A test command that runs correctly under ASan + UBSan (a program
#     built with HOST_CFLAGS/HOST_LDFLAGS, which carry the sanitizers
#     when SAN is set, or a script driving such programs and $(TOOL))
#     names its files with $(O), never with a literal "build", so that in
#     the SAN=1 build it names the sanitized files.
#   - Leave out what is not user-space code under test or is slow twice:
#     the freestanding gate, the fuzzer (sanitized already), kernel and
#     QEMU system tests, cross programs run under qemu-user (no cross
#     sanitizer runtime).
#
#   make O=build/asan SAN=1 --no-print-directory print-san-tests
#
# prints the entries, one per line, with the asan paths.  The stage
# (selftests/asan/run.sh) runs `make O=$(O)/asan SAN=1 build-all`, then
# each printed command, and reports one TAP line per inner test line,
# renumbered and prefixed "asan:".  Output that holds a sanitizer report,
# or whose plan does not match its tests, fails even where the test
# itself printed "ok".

.PHONY: print-san-tests
print-san-tests:
	@for t in $(SAN_TESTS); do echo "$$t"; done

ifeq ($(SAN),)
$(call uw_test,sh selftests/asan/run.sh $(O))
endif
