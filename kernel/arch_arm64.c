// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * arm64: everything in the module that knows the machine (the interface
 * is in uwind_kmod.h).  Kbuild builds this file on arm64 kernels, with
 * the core's 32-bit ARM walker and EHABI tables for compat tasks.
 *
 * AArch64 tasks are walked from SFrame tables (ABI AArch64 little-endian)
 * and frame records, with pointer-authentication codes cleared from
 * return addresses; 32-bit (compat) tasks from their files' EHABI tables
 * (ehabi.c), ARM and Thumb frame records, and the sigpage's sigreturn
 * code.  The kernel's own compat walker follows only frame pointers,
 * which Thumb-2 code does not keep.
 */
#include <linux/elf.h>
#include <linux/mm.h>
#include <asm/compiler.h>
#include <asm/memory.h>
#include <asm/ptrace.h>
#include "uwind_kmod.h"

const struct uwk_arch uwk_arch = {
	.uw_arch = UW_ARCH_AARCH64,
	.elf_machine = EM_AARCH64,
	.compat_machine = EM_ARM,
};

/* AArch64 tasks and, with CONFIG_COMPAT, 32-bit ones: every user task. */
bool notrace uwk_arch_takes(const struct pt_regs *regs)
{
	return user_mode(regs);
}

/*
 * A compat task: r0-r14 are the low halves of x0-x14 (r13 compat_sp, r14
 * compat_lr), the pc's bit 0 says Thumb state, as the core's ARM walker
 * takes it.
 */
static void notrace uwk_arch_regs32(struct uw_regs *r,
				    const struct pt_regs *regs)
{
	unsigned int i;

	for (i = 0; i < UW_ARM_PC; i++)
		uw_reg_set(r, i, lower_32_bits(regs->regs[i]));
	uw_reg_set(r, UW_ARM_PC, lower_32_bits(regs->pc) |
		   (compat_thumb_mode(regs) ? 1 : 0));
}

/*
 * The user registers in DWARF numbering: x0-x30, sp, pc; or a compat
 * task's r0-r15.  The pointer-authentication mask is the kernel's for
 * user instruction addresses (ptrauth_user_pac_mask(), bits 54 down to
 * the virtual address size: what ptrace's NT_ARM_PAC_MASK reports); the
 * core clears it from every return address an AArch64 walk reads (the
 * guest CPU signs them when code is built with pac-ret).
 */
void notrace uwk_arch_regs(struct uw_walk_cfg *cfg, struct uw_regs *r,
			   const struct pt_regs *regs)
{
	unsigned int i;

	r->valid = 0;
	if (compat_user_mode(regs)) {
		cfg->arch = UW_ARCH_ARM;
		cfg->pac_mask = 0;
		uwk_arch_regs32(r, regs);
		return;
	}
	cfg->arch = UW_ARCH_AARCH64;
	cfg->pac_mask = ptrauth_user_pac_mask();
	for (i = 0; i <= UW_AARCH64_X30; i++)
		uw_reg_set(r, i, regs->regs[i]);
	uw_reg_set(r, UW_AARCH64_SP, regs->sp);
	uw_reg_set(r, UW_AARCH64_PC, regs->pc);
}

/*
 * The sigreturn trampolines, a compat task's sigpage and the vDSO's
 * __kernel_rt_sigreturn, have no page table entry until the task first
 * runs that code (the kernel maps those pages at the first fault), and
 * the hook's reads never fault: every sample under a process's first
 * handler call ended at the trampoline, unrecognised (all the samples of
 * one handler call in most sig-t32 runs).  A scan reads each once
 * through access_process_vm(), which faults the entry in (the vDSO's
 * code is one page on 6.1).
 */
static void uwk_arch_touch(struct task_struct *task, const void *addr)
{
	u32 insn;

	if (addr)
		access_process_vm(task, (unsigned long)addr, &insn,
				  sizeof(insn), 0);
}

void uwk_arch_scan(struct task_struct *task, struct mm_struct *mm)
{
#ifdef CONFIG_COMPAT
	uwk_arch_touch(task, READ_ONCE(mm->context.sigpage));
#endif
	uwk_arch_touch(task, READ_ONCE(mm->context.vdso));
}
