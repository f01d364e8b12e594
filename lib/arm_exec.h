/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The ARM unwind opcode interpreter, shared by EHABI (opcodes packed in
 * .ARM.exidx/.ARM.extab words) and Chrome's tables (a plain byte table).
 */
#ifndef UWIND_LIB_ARM_EXEC_H
#define UWIND_LIB_ARM_EXEC_H

#include <uwind/ehabi.h>


/* Run opcodes from v's source on v->regs (see uw_ehabi_exec). */
int uw_arm_exec(struct uw_arm_vrs *v, const struct uw_walk_cfg *cfg);

/* Set v up for an EHABI entry's opcodes or a Chrome sequence. */
static inline void uw_arm_vrs_ehabi(struct uw_arm_vrs *v, struct uw_regs *regs,
				    const struct uw_ehabi *eh,
				    struct uw_ehabi_ops *ops)
{
	v->regs = regs;
	v->eh = eh;
	v->ops = ops;
	v->bytes = 0;
	v->nbytes = 0;
	v->off = 0;
	v->chrome = false;
}

static inline void uw_arm_vrs_bytes(struct uw_arm_vrs *v, struct uw_regs *regs,
				    const uint8_t *bytes, uint32_t nbytes,
				    uint32_t off)
{
	v->regs = regs;
	v->eh = 0;
	v->ops = 0;
	v->bytes = bytes;
	v->nbytes = nbytes;
	v->off = off;
	v->chrome = true;
}

#endif /* UWIND_LIB_ARM_EXEC_H */
