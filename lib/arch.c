// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Per-architecture register roles (DWARF numbering), word sizes, frame
 * records and the order of the walker's phases.
 *
 * The phase order is where architectures differ: on 32-bit ARM a
 * Cortex-M exception boundary comes first, and a Linux signal
 * trampoline is looked for before the tables (glibc's restorers carry
 * EHABI entries describing the signal frame, which would restore the
 * registers as an ordinary frame: the interrupted one would be looked up
 * at pc - 1 and lose lr).  Elsewhere the tables come first and the
 * trampoline only where no table covers the pc (trampolines carry no
 * SFrame, and checking only there spares every covered frame a read of
 * its code, costly in a kernel NMI).
 */
#include "walk.h"

#define CALL_PHASES	{ UWI_PHASE_TABLES, UWI_PHASE_SIGFRAME, UWI_PHASE_FP }

/* The pc, sp and fp bits of a register set (struct uwi_arch.frame_regs). */
#define FRAME_REGS(pc, sp, fp)	((uint64_t)1 << (pc) | (uint64_t)1 << (sp) | \
				 (uint64_t)1 << (fp))

static const struct uwi_arch arch_table[UW_ARCH_COUNT] = {
	[UW_ARCH_X86_64] = {
		.info = { .pc = UW_X86_64_RIP, .sp = UW_X86_64_RSP,
			  .fp = UW_X86_64_RBP, .ra = UW_X86_64_RIP,
			  .ptr_size = 8, .has_lr = 0 },
		.fp_kind = UWI_FP_PAIR, .phases = CALL_PHASES,
		.frame_regs = FRAME_REGS(UW_X86_64_RIP, UW_X86_64_RSP,
					 UW_X86_64_RBP),
	},
	[UW_ARCH_AARCH64] = {
		.info = { .pc = UW_AARCH64_PC, .sp = UW_AARCH64_SP,
			  .fp = UW_AARCH64_X29, .ra = UW_AARCH64_X30,
			  .ptr_size = 8, .has_lr = 1 },
		.fp_kind = UWI_FP_PAIR, .phases = CALL_PHASES,
		.frame_regs = FRAME_REGS(UW_AARCH64_PC, UW_AARCH64_SP,
					 UW_AARCH64_X29),
	},
	/* s390x's CFA sits 160 bytes above the caller's stack pointer. */
	[UW_ARCH_S390X] = {
		.info = { .pc = UW_S390X_PC, .sp = UW_S390X_R15,
			  .fp = UW_S390X_R11, .ra = UW_S390X_R14,
			  .ptr_size = 8, .has_lr = 1 },
		.fp_kind = UWI_FP_NONE, .sp_from_cfa = -160,
		.phases = CALL_PHASES,
		.frame_regs = FRAME_REGS(UW_S390X_PC, UW_S390X_R15,
					 UW_S390X_R11),
	},
	[UW_ARCH_ARM] = {
		.info = { .pc = UW_ARM_PC, .sp = UW_ARM_SP,
			  .fp = UW_ARM_R11, .ra = UW_ARM_LR,
			  .ptr_size = 4, .has_lr = 1 },
		.fp_kind = UWI_FP_ARM, .thumb = 1,
		.phases = { UWI_PHASE_EXCFRAME, UWI_PHASE_SIGFRAME,
			    UWI_PHASE_TABLES, UWI_PHASE_FP },
		.frame_regs = FRAME_REGS(UW_ARM_PC, UW_ARM_SP, UW_ARM_R11),
	},
	[UW_ARCH_X86] = {
		.info = { .pc = UW_X86_EIP, .sp = UW_X86_ESP,
			  .fp = UW_X86_EBP, .ra = UW_X86_EIP,
			  .ptr_size = 4, .has_lr = 0 },
		.fp_kind = UWI_FP_PAIR, .phases = CALL_PHASES,
		.frame_regs = FRAME_REGS(UW_X86_EIP, UW_X86_ESP, UW_X86_EBP),
	},
};

const struct uwi_arch *uwi_arch_get(enum uw_arch arch)
{
	if (arch == UW_ARCH_NONE || (unsigned int)arch >= UW_ARCH_COUNT)
		return NULL;
	/* A build without 32-bit ARM walks no ARM stack. */
	if (!UW_HAS_ARM && arch == UW_ARCH_ARM)
		return NULL;
	return &arch_table[arch];
}

int uw_arch_info(enum uw_arch arch, struct uw_arch_info *info)
{
	const struct uwi_arch *a = uwi_arch_get(arch);

	if (!a)
		return UW_EARCH;
	*info = a->info;
	return 0;
}
