/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ARMv7-M and ARMv8-M (Cortex-M) exception frames, for panic handlers.
 *
 * On exception entry the core pushes r0 r1 r2 r3 r12 lr pc xPSR (0x20
 * bytes; 0x68 with the FP context s0-s15, FPSCR and a reserved word) on
 * the stack in use, and puts an EXC_RETURN value in lr: 0xfffffff1
 * (return to handler mode, MSP), 0xfffffff9 (thread mode, MSP),
 * 0xfffffffd (thread mode, PSP), and 0xffffffe1/e9/ed for the same with
 * an FP frame (bit 4 clear).  Stacked xPSR bit 9 set: the core aligned sp
 * by 4 more bytes.  The stacked pc is the interrupted instruction itself.
 *
 * ARMv8-M (Cortex-M23/M33/M55/M85) widens EXC_RETURN: bits 31-7 set,
 * bit 1 clear, and
 *   bit 6 S      the frame is on a Secure stack (else Non-secure)
 *   bit 5 DCRS   clear: r4-r11 were stacked too, below the basic frame,
 *                behind an integrity signature (0xfefa125a/b) and a
 *                reserved word: 0x28 more bytes
 *   bit 4 FType  clear: the FP context is there: s0-s15, FPSCR and a
 *                reserved word, and on a Secure stack (bit 6 set) with
 *                FPCCR_S.TS set also s16-s31 above them (0xa8 bytes in
 *                all).  The frame does not say which: a Secure handler
 *                reads FPCCR_S (0xe000ef34, TS is bit 26) and sets
 *                UW_WALK_CM_FPCCR_TS in uw_walk_cfg.flags to say so
 *   bit 3 Mode   thread mode (else handler)
 *   bit 2 SPSEL  the process stack (else main)
 *   bit 0 ES     the exception went to Secure state (else Non-secure)
 * ARMv7-M's six values are those with S, DCRS and ES set, which is also
 * what an ARMv8-M core without the Security Extension produces.  A frame
 * on the other security state's stack (S != ES) cannot be reached from
 * the handler's registers: the walk stops there with UW_EREG.
 *
 * With UW_WALK_CORTEX_M in uw_walk_cfg.flags the walker treats an
 * EXC_RETURN value met as a return address as an exception boundary: the
 * next frame is the interrupted one, restored from the exception frame on
 * the stack EXC_RETURN names (the current sp, or uw_walk_cfg.cm_psp).
 */
#ifndef UWIND_CORTEXM_H
#define UWIND_CORTEXM_H

#include "uwind.h"

/**
 * enum uw_cortexm_const - exception frame sizes and EXC_RETURN bits
 * @UW_CORTEXM_FRAME: bytes in the basic frame
 * @UW_CORTEXM_FRAME_FP: with the FP context
 * @UW_CORTEXM_FRAME_FP_TS: with s16-s31 too (FPCCR_S.TS)
 * @UW_CORTEXM_CALLEE: ARMv8-M additional state context: signature,
 *	reserved word, r4-r11
 * @UW_CORTEXM_EXC_ES: EXC_RETURN.ES
 * @UW_CORTEXM_EXC_SPSEL: EXC_RETURN.SPSEL
 * @UW_CORTEXM_EXC_MODE: EXC_RETURN.Mode
 * @UW_CORTEXM_EXC_FTYPE: EXC_RETURN.FType
 * @UW_CORTEXM_EXC_DCRS: EXC_RETURN.DCRS
 * @UW_CORTEXM_EXC_S: EXC_RETURN.S
 */
enum uw_cortexm_const {
	UW_CORTEXM_FRAME	= 0x20,
	UW_CORTEXM_FRAME_FP	= 0x68,
	UW_CORTEXM_FRAME_FP_TS	= 0xa8,
	UW_CORTEXM_CALLEE	= 0x28,
	UW_CORTEXM_EXC_ES	= 0x01,
	UW_CORTEXM_EXC_SPSEL	= 0x04,
	UW_CORTEXM_EXC_MODE	= 0x08,
	UW_CORTEXM_EXC_FTYPE	= 0x10,
	UW_CORTEXM_EXC_DCRS	= 0x20,
	UW_CORTEXM_EXC_S	= 0x40,
};

/**
 * uw_cortexm_is_exc_return() - whether a value is an EXC_RETURN value
 * @v: the value
 *
 * Return: true when bits 31-7 are set, bit 1 is clear, and it is not
 * handler mode on the process stack (which does not exist).
 */
static inline bool uw_cortexm_is_exc_return(uint64_t v)
{
	if ((v & ~(uint64_t)0x7d) != 0xffffff80u)
		return false;
	return (v & (UW_CORTEXM_EXC_MODE | UW_CORTEXM_EXC_SPSEL)) !=
	       UW_CORTEXM_EXC_SPSEL;
}

/**
 * uw_cortexm_exc_regs() - restore the registers an exception stacked
 * @cfg: the walk's configuration: memory accessor, stack bounds, and
 *	UW_WALK_CM_FPCCR_TS in its flags for the frame's size
 * @exc_return: the frame's EXC_RETURN value
 * @frame: the stack pointer after exception entry
 * @regs: where the registers go
 *
 * Restores r0-r3, r12, lr, pc (the Thumb bit from xPSR.T) and the
 * interrupted sp, and r4-r11 when ARMv8-M stacked them too (DCRS clear).
 * Other registers are left as they are: a panic handler sets r4-r11
 * itself when they were not stacked.  Needs UW_HAS_CORTEXM.
 *
 * Return: 0, or UW_EINVAL (a NULL argument, an architecture other than
 * ARM, not an EXC_RETURN value, no memory accessor), UW_EALIGN (frame misaligned),
 * UW_EOVERFLOW (the frame passes 4 GiB), UW_EBADDATA (a bad integrity
 * signature), UW_EREAD or UW_ESTACK (a stack read failed).  On an error
 * nothing is written.
 */
int uw_cortexm_exc_regs(const struct uw_walk_cfg *cfg, uint32_t exc_return,
			uint64_t frame, struct uw_regs *regs);

#endif /* UWIND_CORTEXM_H */
