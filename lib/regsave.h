/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The callee-saved registers of each architecture's C ABI, as a mask of
 * DWARF numbers.  A format that says which of them a function saved (a
 * compact unwind encoding, a Breakpad rule set) implies that the others
 * keep their values in the caller; the stack and frame pointers are in
 * the mask too, the pc is not.
 */
#ifndef UWIND_LIB_REGSAVE_H
#define UWIND_LIB_REGSAVE_H

#include <uwind/uwind.h>

#define UWI_BIT(n)	((uint64_t)1 << (n))

static inline uint64_t uwi_callee_saved(enum uw_arch arch)
{
	switch (arch) {
	case UW_ARCH_X86_64:	/* rbx, rbp, rsp, r12-r15 */
		return UWI_BIT(3) | UWI_BIT(6) | UWI_BIT(7) | UWI_BIT(12) |
		       UWI_BIT(13) | UWI_BIT(14) | UWI_BIT(15);
	case UW_ARCH_X86:	/* ebx, esp, ebp, esi, edi */
		return UWI_BIT(3) | UWI_BIT(4) | UWI_BIT(5) | UWI_BIT(6) |
		       UWI_BIT(7);
	case UW_ARCH_AARCH64:	/* x19-x29, sp */
		return (UWI_BIT(30) - UWI_BIT(19)) | UWI_BIT(31);
	case UW_ARCH_ARM:	/* r4-r11, sp */
		return (UWI_BIT(12) - UWI_BIT(4)) | UWI_BIT(13);
	default:
		return 0;
	}
}

#endif /* UWIND_LIB_REGSAVE_H */
