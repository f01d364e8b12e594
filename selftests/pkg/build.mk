# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# uwind as people install and run it (scripts/pkg/): tables kept fresh,
# `uwind sframe --gc` on scratch tables (gc.sh).

$(call uw_test,sh selftests/pkg/gc.sh $(O),san,$(TOOL))
