// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARMv7-M and ARMv8-M exception frames: restoring the interrupted
 * registers, and the walker's step across an exception boundary (an
 * EXC_RETURN value found where a return address should be).
 */
#include <uwind/cortexm.h>
#include "walk.h"

/* Stacked words of the basic frame, in order. */
static const uint8_t exc_regs_map[8] = { 0, 1, 2, 3, 12, UW_ARM_LR,
					 UW_ARM_PC, 0xff /* xPSR */ };

#define XPSR_ALIGN	(1u << 9)	/* sp was 4 bytes off 8-alignment */
#define XPSR_T		(1u << 24)	/* Thumb state */

/* ARMv8-M additional state context: its first word, bit 0 aside. */
#define INTEGRITY_SIG	0xfefa125au

/*
 * Register number of stacked word i (the callee context first if there
 * is one), 0xfe for the integrity signature and the reserved word, 0xff
 * for xPSR.
 */
static uint8_t exc_word_reg(unsigned int i, bool callee)
{
	if (!callee)
		return exc_regs_map[i];
	if (i < 2)
		return 0xfe;
	if (i < 10)
		return (uint8_t)(4 + i - 2);	/* r4-r11 */
	return exc_regs_map[i - 10];
}

/*
 * Bytes from the basic frame to the interrupted sp, alignment word aside:
 * an FP context adds s0-s15, FPSCR and a reserved word, and s16-s31 too
 * when it was stacked from Secure state with FPCCR_S.TS set, which only
 * the handler can know (the caller's flag).
 */
static uint64_t frame_size(const struct uw_walk_cfg *cfg, uint32_t exc_return)
{
	if (exc_return & UW_CORTEXM_EXC_FTYPE)
		return UW_CORTEXM_FRAME;
	if ((exc_return & UW_CORTEXM_EXC_S) &&
	    (cfg->flags & UW_WALK_CM_FPCCR_TS))
		return UW_CORTEXM_FRAME_FP_TS;
	return UW_CORTEXM_FRAME_FP;
}

int uw_cortexm_exc_regs(const struct uw_walk_cfg *cfg, uint32_t exc_return,
			uint64_t frame, struct uw_regs *regs)
{
	bool callee = !(exc_return & UW_CORTEXM_EXC_DCRS);
	unsigned int i, n = callee ? 18 : 8, pass;
	uint64_t v, size, xpsr = 0;
	uint8_t reg;
	int err;

	if (!cfg || !regs || cfg->arch != UW_ARCH_ARM ||
	    !uw_cortexm_is_exc_return(exc_return))
		return UW_EINVAL;
	if (frame & 3)
		return UW_EALIGN;
	size = frame_size(cfg, exc_return);
	if (callee)
		size += UW_CORTEXM_CALLEE;
	if (frame > 0xffffffffu - size - 4)
		return UW_EOVERFLOW;
	/*
	 * Pass 0 only checks that every word reads (no copy of the frame on
	 * the stack: the walker's budget is tight) and the signature, pass
	 * 1 installs them.  Should the memory change between the passes, an
	 * error leaves the registers restored so far.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			err = uwi_read_word(cfg, 4, frame + 4 * i, &v);
			if (err)
				return err;
			reg = exc_word_reg(i, callee);
			if (callee && i == 0 && (v & ~1ull) != INTEGRITY_SIG)
				return UW_EBADDATA;
			if (reg == 0xff)
				xpsr = v;
			else if (pass && reg != 0xfe)
				uw_reg_set(regs, reg, v);
		}
	}
	if (xpsr & XPSR_T)
		regs->r[UW_ARM_PC] |= 1;
	uw_reg_set(regs, UW_ARM_SP,
		   frame + size + ((xpsr & XPSR_ALIGN) ? 4 : 0));
	return 0;
}

int uwi_cortexm_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	struct uwi_step *st = &uwi_state(cur)->step;
	uint64_t pc = st->pc, frame = st->sp;
	int err;

	/* Thread mode is the bottom: nothing there returns from an exception. */
	if (st->cm_thread)
		return UW_EBADDATA;
	/* The other security state's stack pointers are not ours to know. */
	if (!(pc & UW_CORTEXM_EXC_S) != !(pc & UW_CORTEXM_EXC_ES))
		return UW_EREG;
	if (pc & UW_CORTEXM_EXC_SPSEL) {
		/* PSP: the one thread stack, named by the caller. */
		if (!cfg->cm_psp)
			return UW_EREG;
		frame = cfg->cm_psp;
	}
	err = uw_cortexm_exc_regs(cfg, (uint32_t)pc, frame, &cur->regs);
	if (err)
		return err;
	if (pc & UW_CORTEXM_EXC_MODE)
		st->cm_thread = 1;
	cur->cfa = cur->regs.r[UW_ARM_SP];
	return UWI_RESTORED;
}
