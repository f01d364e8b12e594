# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The core's sources per build switch (include/uwind/config.h), for any
# make-based build (this tree's Makefile, Kbuild, a firmware's build);
# other build systems copy the lists.  Names are relative to lib/.
#
#   UW_SRCS_<SWITCH>            the sources a switch adds
#   $(call uw_srcs,SWITCHES)    the sources of a configuration: the
#                               always-built ones and those of the
#                               switches listed (each once)
#   $(call uw_cflags,SWITCHES)  -DUW_HAS_<X>=0 for every switch left out
#   UW_CONFIG_<name>            the named configurations: the full one and
#                               the minimal ones the tree builds
#
# A switch listed needs its prerequisites listed too (EHABI, CHROME and
# CORTEXM need ARM; FAST_DIRECT needs FAST).  Example, a Cortex-M
# firmware:
#
#   include uwind/lib/uwind.mk
#   CFLAGS += $(call uw_cflags,$(UW_CONFIG_cortex_m))
#   OBJS += $(patsubst %.c,uwind/lib/%.o,$(call uw_srcs,$(UW_CONFIG_cortex_m)))

UW_SWITCHES := SFRAME SIGFRAME ARM EHABI CHROME CORTEXM COMPACT BREAKPAD CACHE \
	FAST FAST_DIRECT

UW_SRCS_CORE := arch.c strerror.c walk.c
UW_SRCS_SFRAME := sframe.c
UW_SRCS_SIGFRAME := sigframe.c
UW_SRCS_ARM := walk_arm.c
UW_SRCS_EHABI := ehabi.c arm_exec.c
UW_SRCS_CHROME := chrome_arm.c arm_exec.c
UW_SRCS_CORTEXM := cortexm.c
UW_SRCS_COMPACT := compact_unwind.c
UW_SRCS_BREAKPAD := breakpad.c breakpad_check.c breakpad_eval.c breakpad_step.c
UW_SRCS_CACHE := cache.c
UW_SRCS_FAST := walk_fast.c
UW_SRCS_FAST_DIRECT :=

uw_srcs = $(sort $(UW_SRCS_CORE) $(foreach s,$(1),$(UW_SRCS_$(s))))
uw_cflags = $(foreach s,$(filter-out $(1),$(UW_SWITCHES)),-DUW_HAS_$(s)=0)

# Everything (the default of every switch).
UW_CONFIG_full := $(UW_SWITCHES)
# A Linux kernel on x86-64 or AArch64: SFrame, signal frames, frame
# pointers, the cache, the fast loops (not those for a stack read in
# place, which a kernel never reads a user stack as).
UW_CONFIG_linux := SFRAME SIGFRAME CACHE FAST
# 64-bit firmware (the AArch64 image): SFrame and frame pointers.
UW_CONFIG_sframe := SFRAME
# Cortex-M firmware: EHABI, exception frames, frame records.
UW_CONFIG_cortex_m := ARM EHABI CORTEXM
# Cortex-A/R firmware in A32 or T32: EHABI and Chrome tables, frame records.
UW_CONFIG_arm := ARM EHABI CHROME
# The smallest: frame pointers alone.
UW_CONFIG_fp := 
# Everything but the fast loops: the full core as a build that favours
# size (-Os) takes it.
UW_CONFIG_small := $(filter-out FAST FAST_DIRECT,$(UW_SWITCHES))
UW_CONFIGS := full linux sframe cortex_m arm fp small
