// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARMv7-M exception frames: restoring the interrupted registers, and the
 * walker's step across an exception boundary (an EXC_RETURN value found
 * where a return address should be).
 */
#include <uwind/cortexm.h>
#include "walk.h"

/* Stacked words, in order. */
static const uint8_t exc_regs_map[8] = { 0, 1, 2, 3, 12, UW_ARM_LR,
					 UW_ARM_PC, 0xff /* xPSR */ };

#define XPSR_ALIGN	(1u << 9)	/* sp was 4 bytes off 8-alignment */
#define XPSR_T		(1u << 24)	/* Thumb state */

int uw_cortexm_exc_regs(const struct uw_walk_cfg *cfg, uint32_t exc_return,
			uint64_t frame, struct uw_regs *regs)
{
	uint64_t v, size, xpsr = 0;
	unsigned int i, pass;
	int err;

	if (!cfg || !regs || cfg->arch != UW_ARCH_ARM ||
	    !uw_cortexm_is_exc_return(exc_return))
		return UW_EINVAL;
	if (frame & 3)
		return UW_EALIGN;
	size = (exc_return & 0x10) ? UW_CORTEXM_FRAME : UW_CORTEXM_FRAME_FP;
	if (frame > 0xffffffffu - size - 4)
		return UW_EOVERFLOW;
	/*
	 * Pass 0 only checks that every word reads (no copy of the frame on
	 * the stack: the walker's budget is tight), pass 1 installs them.
	 * Should the memory change between the passes, an error leaves the
	 * registers restored so far.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 8; i++) {
			err = uw_read_word(cfg, 4, frame + 4 * i, &v);
			if (err)
				return err;
			if (i == 7)
				xpsr = v;
			else if (pass)
				uw_reg_set(regs, exc_regs_map[i], v);
		}
	}
	if (xpsr & XPSR_T)
		regs->r[UW_ARM_PC] |= 1;
	uw_reg_set(regs, UW_ARM_SP,
		   frame + size + ((xpsr & XPSR_ALIGN) ? 4 : 0));
	return 0;
}

int uw_cortexm_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    uint64_t pc, uint64_t sp)
{
	uint64_t frame = sp;
	int err;

	/* Thread mode is the bottom: nothing there returns from an exception. */
	if (cur->cm_thread)
		return UW_EBADDATA;
	if (pc & 4) {
		/* PSP: the one thread stack, named by the caller. */
		if (!cfg->cm_psp)
			return UW_EREG;
		frame = cfg->cm_psp;
	}
	err = uw_cortexm_exc_regs(cfg, (uint32_t)pc, frame, &cur->regs);
	if (err)
		return err;
	if (pc & 8)
		cur->cm_thread = 1;
	cur->cfa = cur->regs.r[UW_ARM_SP];
	return 1;
}
