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
 *   UW_HAS_ARM_ROWS  the cache keeps an EHABI or Chrome entry whose
 *                    opcodes reduce to one fixed row (CFA = base + k,
 *                    registers at fixed slots) as that row: a hit then
 *                    runs no opcodes and no trampoline probe, and the
 *                    fast loops take such frames (lib/walk_arm.c,
 *                    lib/walk_fast.c); default UW_HAS_CACHE with
 *                    UW_HAS_ARM.  About 1.5 KB on a Cortex-M; a firmware
 *                    that keeps a cache but not the rows says 0
 *   UW_HAS_FAST      the walker's fast loops (lib/walk_fast.c): SFrame
 *                    frames of the common shapes and frame-pointer frames
 *                    of modules without tables, taken many at a time
 *                    with the general step's rules (lib/walk.h) and the
 *                    same frames; without it every frame takes the
 *                    general step.  About 3-5 KB of code on a 64-bit
 *                    target; the loops run only on x86-64 and AArch64
 *                    (8-byte words).  A build that favours size (-Os,
 *                    firmware) says 0 here: no heuristic chooses for it
 *   UW_HAS_FAST_DIRECT  the fast loops' copies for reading the stack in
 *                    place (UW_WALK_DIRECT_STACK); default UW_HAS_FAST.
 *                    A host that never reads a stack in place (the
 *                    kernel module) says 0 and saves their code; a walk
 *                    in place then takes the general step throughout
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
#ifndef UW_HAS_ARM_ROWS
#define UW_HAS_ARM_ROWS	(UW_HAS_CACHE && UW_HAS_ARM && \
			 (UW_HAS_EHABI || UW_HAS_CHROME))
#endif
#ifndef UW_HAS_FAST
#define UW_HAS_FAST	1
#endif
#ifndef UW_HAS_FAST_DIRECT
#define UW_HAS_FAST_DIRECT	UW_HAS_FAST
#endif

#if !UW_HAS_ARM && (UW_HAS_EHABI || UW_HAS_CHROME || UW_HAS_CORTEXM)
#error "uwind: EHABI, Chrome and Cortex-M frames need UW_HAS_ARM"
#endif
#if UW_HAS_ARM_ROWS && !(UW_HAS_CACHE && UW_HAS_ARM)
#error "uwind: UW_HAS_ARM_ROWS needs UW_HAS_CACHE and UW_HAS_ARM"
#endif
#if UW_HAS_FAST_DIRECT && !UW_HAS_FAST
#error "uwind: UW_HAS_FAST_DIRECT needs UW_HAS_FAST"
#endif

#endif /* UWIND_CONFIG_H */
