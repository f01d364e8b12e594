# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# uwind as people install and run it (scripts/pkg/): tables kept fresh,
# `uwind sframe --gc` on scratch tables (gc.sh); `uwind status` on a
# made-up module state (status.sh); the module's tree as DKMS builds it
# (dkms.sh); the Debian packages of `make deb`, their service and their
# maintainer scripts (debs.sh).

$(call uw_test,sh selftests/pkg/gc.sh $(O),san,$(TOOL))
$(call uw_test,sh selftests/pkg/status.sh $(O),san,$(TOOL))

# The packages and the module's DKMS tree: not under ASan (they build the
# tool and the module with their own flags).  dkms.sh builds the module
# twice (x86-64, arm64: about a minute), debs.sh the packages.
ifeq ($(SAN),)
$(call uw_test,sh selftests/pkg/dkms.sh $(O),,)
$(call uw_test,sh selftests/pkg/debs.sh $(O),,)
endif
