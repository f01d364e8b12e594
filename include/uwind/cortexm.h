/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ARMv7-M (Cortex-M) exception frames, for panic handlers.
 *
 * On exception entry the core pushes r0 r1 r2 r3 r12 lr pc xPSR (0x20
 * bytes; 0x68 with the FP context s0-s15, FPSCR and a reserved word) on
 * the stack in use, and puts an EXC_RETURN value in lr: 0xfffffff1
 * (return to handler mode, MSP), 0xfffffff9 (thread mode, MSP),
 * 0xfffffffd (thread mode, PSP), and 0xffffffe1/e9/ed for the same with
 * an FP frame (bit 4 clear).  Stacked xPSR bit 9 set: the core aligned sp
 * by 4 more bytes.  The stacked pc is the interrupted instruction itself.
 *
 * With UW_WALK_CORTEX_M in uw_walk_cfg.flags the walker treats an
 * EXC_RETURN value met as a return address as an exception boundary: the
 * next frame is the interrupted one, restored from the exception frame on
 * the stack EXC_RETURN names (the current sp, or uw_walk_cfg.cm_psp).
 */
#ifndef UWIND_CORTEXM_H
#define UWIND_CORTEXM_H

#include "uwind.h"

#define UW_CORTEXM_FRAME	0x20	/* basic frame */
#define UW_CORTEXM_FRAME_FP	0x68	/* with the FP context */

/* v is one of the six ARMv7-M EXC_RETURN values. */
static inline bool uw_cortexm_is_exc_return(uint64_t v)
{
	switch (v) {
	case 0xffffffe1: case 0xffffffe9: case 0xffffffed:
	case 0xfffffff1: case 0xfffffff9: case 0xfffffffd:
		return true;
	default:
		return false;
	}
}

/*
 * Restore into regs the registers an exception stacked at frame (its
 * EXC_RETURN value exc_return): r0-r3, r12, lr, pc (Thumb bit from
 * xPSR.T) and the interrupted sp.  Other registers are left as they are:
 * a panic handler sets r4-r11 itself (they are not stacked).  Stack reads
 * go through cfg's accessor and bounds; nothing is written on an error.
 */
int uw_cortexm_exc_regs(const struct uw_walk_cfg *cfg, uint32_t exc_return,
			uint64_t frame, struct uw_regs *regs);

#endif /* UWIND_CORTEXM_H */
