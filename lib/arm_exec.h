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

/*
 * An entry's opcodes reduced to one fixed row: the caller's sp (vsp at
 * the end, the CFA) is base + k, base the value of r[reg] (r13, or the
 * register of a first "vsp = rN"); the registers in mask were popped, in
 * ascending order, from the contiguous words at base + k0 (k0 as a
 * signed 32-bit offset: ARM code's "vsp = fp; vsp -= 4; pop {fp, lr}"
 * pops below its base); vsp went down to base - dip at the lowest
 * (Chrome's converter writes "vsp = r7; vsp -= 8; vsp += n") and never
 * above the CFA.  chk: a
 * Chrome sequence that ran an instruction, so Chrome's vsp checks apply.
 * The opcodes are such a row when they are, in order: at most one
 * "vsp = rN" first, additions to and subtractions from vsp, core
 * register pops in ascending order with nothing between them but pops
 * (never of r13), additions, finish, with the CFA not below base.  Every value a row is applied with runs through the same
 * checks as the opcodes would (uwi_arm_row_span()), so that a row gives
 * exactly what the opcodes give whenever they succeed; on anything else
 * the caller runs the opcodes (which say what failed).
 */
struct uwi_arm_row {
	uint32_t k0, k;
	uint16_t dip;
	uint16_t mask;
	uint8_t reg;
	bool chk;
};

/* Whether v's sequence (set up as for uwi_arm_exec()) is a row, into *row. */
bool uwi_arm_row_eval(struct uwi_arm_vrs *v, struct uwi_arm_row *row);

/* The registers a row pops: at most 16, counted without a library call. */
static uwi_always_inline unsigned int uwi_arm_npop(uint32_t mask)
{
	mask = mask - ((mask >> 1) & 0x5555);
	mask = (mask & 0x3333) + ((mask >> 2) & 0x3333);
	mask = (mask + (mask >> 4)) & 0x0f0f;
	return (mask + (mask >> 8)) & 0x1f;
}

/*
 * The row in a cache entry: u.w[2] k0, u.w[3] k, u.w[4] the mask, reg
 * << 16, chk << 20 and << 24 how many of r4-r11 it pops (for the fast
 * loop); u.w[5] dip << 16, and what the fast loop reads
 * of the row, worked out once: the popped block's length, and << 8
 * where the words of r4-r11 end in it (r0-r3 lie below them, r12-r15
 * above).
 */
static inline void uwi_arm_row_put(struct uw_cache_entry *e,
				   const struct uwi_arm_row *row)
{
	e->u.w[2] = row->k0;
	e->u.w[3] = row->k;
	e->u.w[4] = (uint32_t)row->mask | (uint32_t)row->reg << 16 |
		    (uint32_t)row->chk << 20 |
		    uwi_arm_npop(row->mask & 0x0ff0) << 24;
	e->u.w[5] = 4 * uwi_arm_npop(row->mask) |
		    4 * uwi_arm_npop(row->mask & 0x0fff) << 8 |
		    (uint32_t)row->dip << 16;
}

/*
 * Whether an entry's row (k0, k, w4 as put) is one uwi_arm_row_eval()
 * can have made, its block of len bytes: below the CFA, and r13 not
 * popped.  A cache overwritten with anything fails it (or gives
 * some frame, never a read outside the stack).
 */
static uwi_always_inline bool uwi_arm_row_ok(uint32_t k0, uint32_t k,
					     uint32_t w4, uint32_t len)
{
	return (int64_t)(int32_t)k0 + len <= (int64_t)k &&
	       !(w4 & (1u << 13));
}

/*
 * What a row applied to base gives: the CFA *cfa and the popped block's
 * address *addr; false when the opcodes would fail (the caller then
 * runs them, which say how).  sp0 is the frame's sp, hi the walk's
 * stack_hi (0: none).  Every check the opcodes make on vsp, once: vsp
 * never wraps (uwi_arm_exec()'s vsp_add()), and for Chrome (chk) vsp
 * stays aligned, at or above sp0, at or below hi; vsp's lowest is
 * base - dip, its highest the CFA (k0 bounds what came before the pops,
 * which and what follows only add), so those two decide.
 */
static uwi_always_inline bool uwi_arm_row_span(uint32_t k0, uint32_t k,
					       uint32_t w4, uint32_t w5,
					       uint32_t base, uint32_t sp0,
					       uint64_t hi, uint32_t *cfa,
					       uint32_t *addr)
{
	const uint32_t dip = w5 >> 16;

	*cfa = base + k;
	*addr = base + k0;
	if (*cfa < base || base < dip)
		return false;
	return !(w4 & (1u << 20)) ||
	       (!(base & 3) && base - dip >= sp0 && (!hi || *cfa <= hi));
}

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
	v->buf = 0;
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
	v->buf = 0;
}

#endif /* UWIND_LIB_ARM_EXEC_H */
