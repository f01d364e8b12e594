// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * x86-64: everything in the module that knows the machine (the interface
 * is in uwind_kmod.h).  Kbuild builds this file on x86-64 kernels and
 * refuses every other architecture until it has a file like this one.
 */
#include <linux/elf.h>
#include <linux/ftrace.h>
#include <asm/ptrace.h>
#include "uwind_kmod.h"

const struct uwk_arch uwk_arch = {
	.uw_arch = UW_ARCH_X86_64,
	.elf_machine = EM_X86_64,
	.pc = UW_X86_64_RIP,
	.sp = UW_X86_64_RSP,
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

/* The user registers in DWARF numbering: all sixteen and the pc. */
void notrace uwk_arch_regs(struct uw_regs *r, const struct pt_regs *regs)
{
	r->valid = 0;
	uw_reg_set(r, 0, regs->ax);
	uw_reg_set(r, 1, regs->dx);
	uw_reg_set(r, 2, regs->cx);
	uw_reg_set(r, 3, regs->bx);
	uw_reg_set(r, 4, regs->si);
	uw_reg_set(r, 5, regs->di);
	uw_reg_set(r, UW_X86_64_RBP, regs->bp);
	uw_reg_set(r, UW_X86_64_RSP, regs->sp);
	uw_reg_set(r, 8, regs->r8);
	uw_reg_set(r, 9, regs->r9);
	uw_reg_set(r, 10, regs->r10);
	uw_reg_set(r, 11, regs->r11);
	uw_reg_set(r, 12, regs->r12);
	uw_reg_set(r, 13, regs->r13);
	uw_reg_set(r, 14, regs->r14);
	uw_reg_set(r, 15, regs->r15);
	uw_reg_set(r, UW_X86_64_RIP, regs->ip);
}

/* The module's ftrace_ops ask for SAVE_REGS: the full pt_regs is there. */
unsigned long notrace uwk_arch_ftrace_arg(struct ftrace_regs *fregs,
					  unsigned int n)
{
	return regs_get_kernel_argument(ftrace_get_regs(fregs), n);
}

/* x86-64 has DYNAMIC_FTRACE_WITH_ARGS: the ftrace_regs accessor works. */
void notrace uwk_arch_ftrace_redirect(struct ftrace_regs *fregs,
				      unsigned long pc)
{
	ftrace_instruction_pointer_set(fregs, pc);
}
