// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Linux signal frames.
 *
 * A signal handler returns into a sigreturn trampoline (glibc's
 * __restore_rt on x86-64, the vDSO's __kernel_rt_sigreturn on AArch64,
 * the kernel's sigpage on 32-bit ARM; qemu-user installs the same
 * instruction sequences).  When the pc sits exactly on one, the
 * interrupted context lies on the stack in the kernel's sigframe or
 * rt_sigframe layout, and every register is restored from it.  The code
 * bytes are read through the accessor like any program memory.
 */
#include "span.h"
#include "walk.h"

/* x86-64: mov $15, %rax; syscall */
static const uint8_t x86_64_tramp[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
};

/* AArch64: mov x8, #139; svc #0 (instructions are always little-endian) */
static const uint8_t aarch64_tramp[] = {
	0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4
};

/*
 * x86-64: sp points at the ucontext (the handler's return popped the
 * trampoline address); uc_mcontext starts 40 bytes in, and its gregs run
 * r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip.
 */
#define X86_64_MCTX	40
static const uint8_t x86_64_greg_dwarf[17] = {
	8, 9, 10, 11, 12, 13, 14, 15, 5, 4, 6, 3, 1, 0, 2, 7, 16
};

/*
 * AArch64: sp points at the rt_sigframe: a 128-byte siginfo, then the
 * ucontext whose 16-byte aligned uc_mcontext starts 176 bytes in.  The
 * sigcontext holds fault_address, x0..x30, sp, pc.
 */
#define AARCH64_REGS	(128 + 176 + 8)

/*
 * 32-bit ARM: "mov r7, #NR" then a system call, NR 119 (sigreturn) or 173
 * (rt_sigreturn).  The kernel's sigpage has, in ARM state, mov and
 * "swi #0x900000 + NR" (good for both system call ABIs), in Thumb "movs
 * r7, #NR; svc #0"; an arm64 kernel's sigpage for its 32-bit tasks has
 * "svc #NR" in both states instead; glibc's restorers use "svc #0" and,
 * in Thumb-2, "mov.w r7, #NR" (they also carry EHABI entries, which the
 * walker uses first).  Instructions are little-endian, even on BE8.  The frame at sp
 * is a ucontext (sigframe), or a 128-byte siginfo and then one
 * (rt_sigframe); its sigcontext, 32 bytes in, holds trap_no, error_code,
 * oldmask, then r0-r15 and cpsr: r0 is 12 bytes further.
 */
#define ARM_NR_SIGRETURN	119
#define ARM_NR_RT_SIGRETURN	173
#define ARM_SIGCTX_R0		(20 + 12)
#define ARM_SIGINFO		128
#define ARM_CPSR_T		(1u << 5)

/* Whether the n code bytes at pc are want's; *other: read, and not. */
static bool code_matches(const struct uw_walk_cfg *cfg, uint64_t pc,
			 const uint8_t *want, unsigned int n, bool *other)
{
	uint8_t buf[16];
	unsigned int i;

	if (n > sizeof(buf) || !cfg->mem.read ||
	    uwi_mem_read(cfg->mem.read, cfg->mem.ctx, pc, buf, n))
		return false;
	for (i = 0; i < n; i++)
		if (buf[i] != want[i]) {
			*other = true;
			return false;
		}
	return true;
}

/*
 * Restore n consecutive stack words of wsz bytes at base into the
 * cursor: word i goes to DWARF register map[i], or to register i when map
 * is NULL.  Restoring goes straight into the cursor (a struct uw_regs on
 * the stack would cost 280 bytes, over the core's stack budget): pass 0
 * only checks that every slot reads, pass 1 installs them.  Should the
 * memory change between the passes, the error leaves only the restored
 * registers valid.  Inlined: one stack frame fewer on the walker's
 * deepest path.
 */
static uwi_always_inline int restore_regs(struct uw_cursor *cur,
					 const struct uw_walk_cfg *cfg,
					 uint64_t base, const uint8_t *map,
					 unsigned int n, unsigned int wsz)
{
	uint64_t v;
	unsigned int i, pass;
	int err;

	for (pass = 0; pass < 2; pass++) {
		if (pass)
			cur->regs.valid = 0;
		for (i = 0; i < n; i++) {
			err = uwi_read_word(cfg, wsz, base + (uint64_t)wsz * i,
					   &v);
			if (err)
				return err;
			if (pass)
				uw_reg_set(&cur->regs, map ? map[i] : i, v);
		}
	}
	return UWI_RESTORED;
}

/*
 * 32-bit ARM: the system call number a sigreturn trampoline at pc makes;
 * *other set when the code there was read and is none.
 */
static unsigned int arm_tramp_nr(const struct uw_walk_cfg *cfg, uint64_t pc,
				 bool *other)
{
	uint8_t b[8];
	uint32_t w0, w1;
	unsigned int nr;

	if (!cfg->mem.read ||
	    uwi_mem_read(cfg->mem.read, cfg->mem.ctx, pc & ~1ull, b, 8))
		return 0;
	w0 = (uint32_t)uwi_load(b, 4, false);
	w1 = (uint32_t)uwi_load(b + 4, 4, false);
	nr = w0 & 0xff;
	*other = true;		/* until it matches */
	if (!(pc & 1)) {
		/* mov r7, #nr; swi #0, swi #0x900000 + nr or svc #nr */
		if ((w0 & ~0xffu) != 0xe3a07000 ||
		    (w1 != 0xef000000 && w1 != (0xef900000 | nr) &&
		     w1 != (0xef000000 | nr)))
			return 0;
	} else if ((w0 & 0xff00ffff) == 0x0700f04f && (w1 & 0xffff) == 0xdf00) {
		nr = (w0 >> 16) & 0xff;	/* mov.w r7, #nr; svc #0 */
	} else if ((w0 & 0xff00) != 0x2700 ||
		   ((w0 >> 16) != 0xdf00 && (w0 >> 16) != (0xdf00 | nr))) {
		return 0;	/* not movs r7, #nr; svc #0 or svc #nr */
	}
	if (nr != ARM_NR_SIGRETURN && nr != ARM_NR_RT_SIGRETURN)
		return 0;
	*other = false;
	return nr;
}

/* Restore r0-r15 from the sigcontext at sp, the Thumb bit from cpsr. */
static int arm_sigframe(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			uint64_t pc, uint64_t sp, bool *other)
{
	unsigned int nr = arm_tramp_nr(cfg, pc, other);
	uint64_t regs, cpsr;
	int ret;

	if (!nr)
		return UWI_NEXT;
	regs = sp + ARM_SIGCTX_R0;
	if (nr == ARM_NR_RT_SIGRETURN)
		regs += ARM_SIGINFO;
	ret = uwi_read_word(cfg, 4, regs + 4 * 16, &cpsr);
	if (ret)
		return ret;
	ret = restore_regs(cur, cfg, regs, NULL, 16, 4);
	if (ret == UWI_RESTORED && (cpsr & ARM_CPSR_T))
		cur->regs.r[UW_ARM_PC] |= 1;
	return ret;
}

int uwi_sigframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		      bool *other)
{
	const struct uwi_step *st = &uwi_state(cur)->step;
	uint64_t pc = st->pc, sp = st->sp;

	switch (cfg->arch) {
	case UW_ARCH_X86_64:
		if (!code_matches(cfg, pc, x86_64_tramp, sizeof(x86_64_tramp),
				  other))
			return UWI_NEXT;
		return restore_regs(cur, cfg, sp + X86_64_MCTX,
				    x86_64_greg_dwarf, sizeof(x86_64_greg_dwarf),
				    8);
	case UW_ARCH_AARCH64:
		if (!code_matches(cfg, pc, aarch64_tramp, sizeof(aarch64_tramp),
				  other))
			return UWI_NEXT;
		/* x0..x30, then sp and pc: DWARF 0..32 in order. */
		return restore_regs(cur, cfg, sp + AARCH64_REGS, NULL,
				    UW_AARCH64_PC + 1, 8);
	case UW_ARCH_ARM:
		return UW_HAS_ARM ? arm_sigframe(cur, cfg, pc, sp, other) :
				    UWI_NEXT;
	default:
		return UWI_NEXT;
	}
}
