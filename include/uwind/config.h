/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind build configuration: which table formats and special frame kinds
 * the core carries.
 *
 * Every switch is 1 (on) unless the host says otherwise, with
 * -DUW_HAS_<X>=0 on the command line or in a header of its own named by
 * UW_CONFIG_HEADER (-DUW_CONFIG_HEADER='"uwind_config.h"', included first,
 * in the way xz-embedded's xz_config.h is).  A switched-off part folds
 * away: the walker tests "if (UW_HAS_<X> && ...)", so the compiler drops
 * the code and every call into the part's sources, and lib/uwind.mk
 * leaves those sources out of the build.  The public headers do not
 * depend on the switches: every configuration has the same API and
 * structure layouts, and a call into a switched-off part is a link error.
 *
 *   UW_HAS_SFRAME    SFrame tables (lib/sframe.c)
 *   UW_HAS_ARM       32-bit ARM walking: ARM and Thumb frame records, and
 *                    the base EHABI, Chrome and Cortex-M need
 *                    (lib/walk_arm.c); default on
 *   UW_HAS_EHABI     ARM EHABI tables (lib/ehabi.c, lib/arm_exec.c);
 *                    default UW_HAS_ARM
 *   UW_HAS_CHROME    Chrome's ARM unwind tables (lib/chrome_arm.c,
 *                    lib/arm_exec.c); default UW_HAS_ARM
 *   UW_HAS_CORTEXM   Cortex-M exception frames (lib/cortexm.c); default
 *                    UW_HAS_ARM
 *   UW_HAS_SIGFRAME  Linux signal frames (lib/sigframe.c)
 *   UW_HAS_COMPACT   Apple compact unwind, __unwind_info
 *                    (lib/compact_unwind.c)
 *   UW_HAS_BREAKPAD  Breakpad STACK CFI and STACK WIN records
 *                    (lib/breakpad.c, lib/breakpad_eval.c,
 *                    lib/breakpad_step.c)
 *   UW_HAS_CACHE     the walker's unwind cache (lib/cache.c): without
 *                    it &struct uw_walk_cfg.cache is ignored
 *
 * Frame pointers are always there: they are the fallback of every walk.
 * lib/walk.c, lib/arch.c and lib/strerror.c are always built.
 */
#ifndef UWIND_CONFIG_H
#define UWIND_CONFIG_H

#ifdef UW_CONFIG_HEADER
#include UW_CONFIG_HEADER
#endif

#ifndef UW_HAS_SFRAME
#define UW_HAS_SFRAME	1
#endif
#ifndef UW_HAS_ARM
#define UW_HAS_ARM	1
#endif
#ifndef UW_HAS_EHABI
#define UW_HAS_EHABI	UW_HAS_ARM
#endif
#ifndef UW_HAS_CHROME
#define UW_HAS_CHROME	UW_HAS_ARM
#endif
#ifndef UW_HAS_CORTEXM
#define UW_HAS_CORTEXM	UW_HAS_ARM
#endif
#ifndef UW_HAS_SIGFRAME
#define UW_HAS_SIGFRAME	1
#endif
#ifndef UW_HAS_COMPACT
#define UW_HAS_COMPACT	1
#endif
#ifndef UW_HAS_BREAKPAD
#define UW_HAS_BREAKPAD	1
#endif
#ifndef UW_HAS_CACHE
#define UW_HAS_CACHE	1
#endif

#if !UW_HAS_ARM && (UW_HAS_EHABI || UW_HAS_CHROME || UW_HAS_CORTEXM)
#error "uwind: EHABI, Chrome and Cortex-M frames need UW_HAS_ARM"
#endif

#endif /* UWIND_CONFIG_H */
