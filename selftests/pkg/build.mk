# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# uwind as people install and run it (scripts/pkg/): tables kept fresh,
# `uwind sframe --gc` on scratch tables (gc.sh); `uwind status` on a
# made-up module state (status.sh).

$(call uw_test,sh selftests/pkg/gc.sh $(O),san,$(TOOL))
$(call uw_test,sh selftests/pkg/status.sh $(O),san,$(TOOL))
