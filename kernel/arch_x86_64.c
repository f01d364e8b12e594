// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * x86-64: everything in the module that knows the machine (the interface
 * is in uwind_kmod.h).  Kbuild builds this file on x86-64 kernels.
 */
#include <linux/elf.h>
#include <asm/ptrace.h>
#include "uwind_kmod.h"

const struct uwk_arch uwk_arch = {
	.uw_arch = UW_ARCH_X86_64,
	.elf_machine = EM_X86_64,
};

/*
 * 64-bit tasks only: a 32-bit task (or vm86 code) has other registers,
 * other tables and another frame layout, which the kernel's walker
 * handles.
 */
bool notrace uwk_arch_takes(const struct pt_regs *regs)
{
	return user_64bit_mode((struct pt_regs *)regs) &&
	       !(regs->flags & X86_VM_MASK);
}

/* Where DWARF register n (the psABI's numbering: 16 is the pc) is saved. */
static const u8 uwk_dwarf_regs[] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
	offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
	offsetof(struct pt_regs, ip),
};

/* The user registers in DWARF numbering: all sixteen and the pc. */
void notrace uwk_arch_regs(struct uw_walk_cfg *cfg, struct uw_regs *r,
			   const struct pt_regs *regs)
{
	unsigned int i;

	cfg->arch = UW_ARCH_X86_64;
	BUILD_BUG_ON(ARRAY_SIZE(uwk_dwarf_regs) != UW_X86_64_RIP + 1);
	r->valid = 0;
	for (i = 0; i < ARRAY_SIZE(uwk_dwarf_regs); i++)
		uw_reg_set(r, i, *(const unsigned long *)
			   ((const char *)regs + uwk_dwarf_regs[i]));
}

/* Nothing to prepare: the hook reads only the stack and mapped files. */
void uwk_arch_scan(struct task_struct *task, struct mm_struct *mm)
{
}
