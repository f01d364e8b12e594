// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Linux signal frames.
 *
 * A signal handler returns into a sigreturn trampoline (glibc's
 * __restore_rt on x86-64, the vDSO's __kernel_rt_sigreturn on AArch64;
 * qemu-user installs the same instruction sequences).  When the pc sits
 * exactly on one, the interrupted context lies on the stack in the
 * kernel's rt_sigframe layout, and every register is restored from it.
 * The code bytes are read through the accessor like any program memory.
 */
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

static bool code_matches(const struct uw_walk_cfg *cfg, uint64_t pc,
			 const uint8_t *want, unsigned int n)
{
	uint8_t buf[16];
	unsigned int i;

	if (n > sizeof(buf) || !cfg->mem.read ||
	    cfg->mem.read(cfg->mem.ctx, pc, buf, n))
		return false;
	for (i = 0; i < n; i++)
		if (buf[i] != want[i])
			return false;
	return true;
}

/*
 * Restore n consecutive stack words at base into the cursor: word i goes
 * to DWARF register map[i], or to register i when map is NULL.  Restoring
 * goes straight into the cursor (a struct uw_regs on the stack would cost
 * 280 bytes, over the core's stack budget): pass 0 only checks that every
 * slot reads, pass 1 installs them.  Should the memory change between the
 * passes, the error leaves only the restored registers valid.
 */
static int restore_regs(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			uint64_t base, const uint8_t *map, unsigned int n)
{
	uint64_t v;
	unsigned int i, pass;
	int err;

	for (pass = 0; pass < 2; pass++) {
		if (pass)
			cur->regs.valid = 0;
		for (i = 0; i < n; i++) {
			err = uw_read_word(cfg, 8, base + 8 * i, &v);
			if (err)
				return err;
			if (pass)
				uw_reg_set(&cur->regs, map ? map[i] : i, v);
		}
	}
	return 1;
}

int uw_sigframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		     const struct uw_arch_info *ai, uint64_t pc, uint64_t sp)
{
	(void)ai;
	switch (cfg->arch) {
	case UW_ARCH_X86_64:
		if (!code_matches(cfg, pc, x86_64_tramp, sizeof(x86_64_tramp)))
			return 0;
		return restore_regs(cur, cfg, sp + X86_64_MCTX,
				    x86_64_greg_dwarf, sizeof(x86_64_greg_dwarf));
	case UW_ARCH_AARCH64:
		if (!code_matches(cfg, pc, aarch64_tramp, sizeof(aarch64_tramp)))
			return 0;
		/* x0..x30, then sp and pc: DWARF 0..32 in order. */
		return restore_regs(cur, cfg, sp + AARCH64_REGS, NULL,
				    UW_AARCH64_PC + 1);
	default:
		return 0;
	}
}
