/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The table formats' steps, which the walker's tables phase tries for
 * the module holding a frame's pc (lib/walk.c, phase_tables(), in this
 * order): Chrome and EHABI (32-bit ARM), SFrame, Breakpad, compact
 * unwind.  Each is tried when its build switch is on (UW_HAS_<X>,
 * uwind/config.h: off, the call folds away, and so does every call into
 * its sources), the module has its table and the walk's architecture is
 * one of the format's (UWI_ARCHES_<X>).
 *
 * A format's step looks pc up (in the table's address space: the
 * module's bias is taken off already) and unwinds the cursor's frame:
 * UWI_STEPPED, UWI_OUTERMOST, UWI_NEXT when no entry covers pc (the
 * next format, then the later phases try), or a negative error.  A
 * row-based format ends with uwi_apply_row(); an opcode-based one sets
 * the caller's registers itself.  Adding a format is its source file
 * with the step, a declaration and its arches here, a call in
 * phase_tables(), its switch in config.h and its sources in
 * lib/uwind.mk, and its table pointer in struct uw_module.
 */
#ifndef UWIND_LIB_FORMATS_H
#define UWIND_LIB_FORMATS_H

#define UWI_ARCH_BIT(a)		(1u << (a))
#define UWI_ARCHES_ARM		UWI_ARCH_BIT(UW_ARCH_ARM)
#define UWI_ARCHES_SFRAME	(UWI_ARCH_BIT(UW_ARCH_X86_64) |		\
				 UWI_ARCH_BIT(UW_ARCH_AARCH64) |	\
				 UWI_ARCH_BIT(UW_ARCH_S390X))
#define UWI_ARCHES_BREAKPAD	(UWI_ARCH_BIT(UW_ARCH_X86_64) |		\
				 UWI_ARCH_BIT(UW_ARCH_AARCH64) |	\
				 UWI_ARCH_BIT(UW_ARCH_X86) |		\
				 UWI_ARCH_BIT(UW_ARCH_ARM))
#define UWI_ARCHES_COMPACT	(UWI_ARCH_BIT(UW_ARCH_X86_64) |		\
				 UWI_ARCH_BIT(UW_ARCH_AARCH64) |	\
				 UWI_ARCH_BIT(UW_ARCH_X86))

struct uwi_arch;

/* Chrome's ARM unwind tables (lib/walk_arm.c). */
int uwi_chrome_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a, const struct uw_chrome *ct,
		    uint64_t pc);

/* ARM EHABI (lib/walk_arm.c). */
int uwi_ehabi_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uwi_arch *a, const struct uw_ehabi *eh,
		   uint64_t pc);

/* SFrame (lib/sframe.c). */
int uwi_sframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a, const struct uw_sframe *sf,
		    uint64_t pc);

/* Breakpad STACK CFI and STACK WIN (lib/breakpad_step.c). */
int uwi_bp_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uwi_arch *a, const struct uw_bp *bp, uint64_t pc);

/* Apple compact unwind (lib/compact_unwind.c). */
int uwi_cu_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uwi_arch *a, const struct uw_cu *cu, uint64_t pc);

#endif /* UWIND_LIB_FORMATS_H */
