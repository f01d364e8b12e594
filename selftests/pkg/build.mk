# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# uwind as people install and run it (scripts/pkg/): tables kept fresh,
# `uwind sframe --gc` on scratch tables (gc.sh); `uwind status` on a
# made-up module state (status.sh); the module's tree as DKMS builds it
# (dkms.sh).

$(call uw_test,sh selftests/pkg/gc.sh $(O),san,$(TOOL))
$(call uw_test,sh selftests/pkg/status.sh $(O),san,$(TOOL))

# The module's DKMS tree: not under ASan (it builds the module with the
# kernel's flags), twice (x86-64, arm64: about a minute).
ifeq ($(SAN),)
$(call uw_test,sh selftests/pkg/dkms.sh $(O),,)
endif
