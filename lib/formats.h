/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The table formats the walker's tables phase tries, in this order,
 * for the module holding a frame's pc.  Each line is one format:
 *
 *   X(SRC, name, on, arches)
 *
 *   SRC     its frames' source: UW_SRC_<SRC> (uwind.h)
 *   name    the struct uw_module member holding its table, a
 *           const struct uw_<name> *, and its step function
 *           uwi_<name>_step() (declared below)
 *   on      its build switch, UW_HAS_<...> (uwind/config.h): off, the
 *           line folds away, and so does every call into its sources
 *   arches  the architectures it is tried on (UWI_ARCH_BIT())
 *
 * A format's step looks pc up (in the table's address space: the
 * module's bias is taken off already) and unwinds the cursor's frame:
 * UWI_STEPPED, UWI_OUTERMOST, UWI_NEXT when no entry covers pc (the
 * next format, then the later phases try), or a negative error.  A
 * row-based format ends with uwi_apply_row(); an opcode-based one sets
 * the caller's registers itself.  Adding a format is one line here, its
 * source file with the step, its switch and its sources in lib/uwind.mk,
 * and its table pointer in struct uw_module.
 */
#ifndef UWIND_LIB_FORMATS_H
#define UWIND_LIB_FORMATS_H

#define UWI_ARCH_BIT(a)		(1u << (a))
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

#define UWI_FORMATS(X)							\
	X(CHROME, chrome, UW_HAS_CHROME, UWI_ARCH_BIT(UW_ARCH_ARM))	\
	X(EHABI, ehabi, UW_HAS_EHABI, UWI_ARCH_BIT(UW_ARCH_ARM))	\
	X(SFRAME, sframe, UW_HAS_SFRAME, UWI_ARCHES_SFRAME)		\
	X(BREAKPAD, bp, UW_HAS_BREAKPAD, UWI_ARCHES_BREAKPAD)		\
	X(COMPACT, cu, UW_HAS_COMPACT, UWI_ARCHES_COMPACT)

#define UWI_FORMAT_STEP(SRC, name, on, arches)				\
	int uwi_##name##_step(struct uw_cursor *cur,			\
			      const struct uw_walk_cfg *cfg,		\
			      const struct uwi_arch *a,			\
			      const struct uw_##name *table, uint64_t pc);
UWI_FORMATS(UWI_FORMAT_STEP)
#undef UWI_FORMAT_STEP

#endif /* UWIND_LIB_FORMATS_H */
