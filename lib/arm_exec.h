/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The ARM unwind opcode interpreter, shared by EHABI (opcodes packed in
 * .ARM.exidx/.ARM.extab words) and Chrome's tables (a plain byte table).
 *
 * Decoding and executing are apart: decode() turns the next
 * opcode bytes into one instruction, checking everything that does not
 * depend on the stack; uwi_arm_exec() runs instructions on a register
 * set; the whole-table checks decode every sequence once with
 * uwi_arm_check_ops(), so a checked table never fails a walk on its
 * encoding.
 */
#ifndef UWIND_LIB_ARM_EXEC_H
#define UWIND_LIB_ARM_EXEC_H

#include <uwind/config.h>
#include <uwind/uwind.h>
#include "compiler.h"

/* What an instruction does. */
enum uwi_arm_op {
	UWI_ARM_VSP_ADD,	/* vsp += n (also skipped VFP/iWMMXt/PAC slots) */
	UWI_ARM_VSP_SUB,	/* vsp -= n */
	UWI_ARM_POP,		/* pop the core registers in mask */
	UWI_ARM_VSP_REG,	/* vsp = r[reg] */
	UWI_ARM_NOP,		/* nothing the walk needs */
	UWI_ARM_FINISH,		/* the sequence ends (n 1: no bytes were
				 * left, EHABI's implicit finish) */
	UWI_ARM_REFUSE,		/* the frame cannot be unwound */
};

/* One decoded instruction. */
struct uwi_arm_insn {
	uint64_t n;
	uint16_t mask;
	uint8_t reg;
	uint8_t op;		/* enum uwi_arm_op */
};

/* Run opcodes from v's source on v->regs (see uw_ehabi_exec). */
int uwi_arm_exec(struct uwi_arm_vrs *v, const struct uw_walk_cfg *cfg);

/*
 * Decode v's sequence up to its finish (or refuse, or its end): 0 or the
 * first decoding error; *units grows by the instructions decoded.
 */
int uwi_arm_check_ops(struct uwi_arm_vrs *v, uint64_t *units);

/* Set v up for an EHABI entry's opcodes or a Chrome sequence. */
static inline void uwi_arm_vrs_ehabi(struct uwi_arm_vrs *v,
				     struct uw_regs *regs,
				     const struct uw_ehabi *eh,
				     struct uw_ehabi_ops *ops)
{
	v->regs = regs;
	v->eh = eh;
	v->ops = ops;
	v->bytes = 0;
	v->nbytes = 0;
	v->off = 0;
	v->vsp = 0;
	v->pc_set = false;
	v->chrome = false;
}

static inline void uwi_arm_vrs_bytes(struct uwi_arm_vrs *v,
				     struct uw_regs *regs,
				     const uint8_t *bytes, uint32_t nbytes,
				     uint32_t off)
{
	v->regs = regs;
	v->eh = 0;
	v->ops = 0;
	v->bytes = bytes;
	v->nbytes = nbytes;
	v->off = off;
	v->vsp = 0;
	v->pc_set = false;
	v->chrome = true;
}

#endif /* UWIND_LIB_ARM_EXEC_H */
