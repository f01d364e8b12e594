// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The ARM unwind opcode interpreter (EHABI's opcodes, and Chrome's
 * subset of them).
 *
 * Facts from the ARM "Exception Handling ABI for the Arm Architecture"
 * (ehabi32): opcodes are read most significant byte first from each
 * word; an exhausted sequence ends with an implicit "finish", which sets
 * pc from lr unless pc was popped.  Popping a register set puts the
 * lowest register at the lowest address, and a pop that includes r13
 * sets vsp to the popped value after the whole instruction.  Every spare
 * or reserved encoding is an error, as is a register range past what the
 * architecture has.
 */
#include "span.h"
#include "walk.h"
#include "arm_exec.h"

#define ARM_SP	13
#define ARM_LR	14
#define ARM_PC	15

/*
 * The next opcode byte, from EHABI words or a plain byte table, into *b:
 * 0, UW_ENOENT when the sequence has no more (no entry left:
 * uw_ehabi_next_op() never fails so), or another error.
 */
static uwi_always_inline int next_op(struct uwi_arm_vrs *v, uint8_t *b)
{
	int ret;

	if (!v->bytes) {
		if (!UW_HAS_EHABI)
			return UW_EINVAL;
		ret = uw_ehabi_next_op(v->eh, v->ops, b);
		return ret == UW_EHABI_OPS_END ? UW_ENOENT : ret;
	}
	if (v->off >= v->nbytes)
		return UW_ENOENT;
	*b = v->bytes[v->off++];
	return 0;
}

/* An instruction's further bytes: running out is an error. */
static uwi_always_inline int next(struct uwi_arm_vrs *v, uint8_t *b)
{
	int ret = next_op(v, b);

	return ret == UW_ENOENT ? UW_EBADDATA : ret;	/* truncated */
}

static void set(struct uwi_arm_insn *insn, uint8_t op, uint64_t n,
		uint16_t mask)
{
	insn->op = op;
	insn->n = n;
	insn->mask = mask;
	insn->reg = 0;
}

/* b2: vsp += 0x204 + (uleb128 << 2). */
static int op_b2(struct uwi_arm_vrs *v, struct uwi_arm_insn *insn)
{
	uint64_t val = 0;
	unsigned int shift = 0;
	uint8_t b;
	int err;

	do {
		err = next(v, &b);
		if (err)
			return err;
		if (shift > 28 || ((uint64_t)(b & 0x7f) << shift) > 0x3fffffff)
			return UW_EOVERFLOW;
		val |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	set(insn, UWI_ARM_VSP_ADD, 0x204 + (val << 2), 0);
	return 0;
}

/* Opcodes 0xb0-0xbf. */
static int op_b(struct uwi_arm_vrs *v, uint8_t op, struct uwi_arm_insn *insn)
{
	uint8_t b;
	int err;

	switch (op) {
	case 0xb0:
		set(insn, UWI_ARM_FINISH, 0, 0);
		return 0;
	case 0xb1:
		err = next(v, &b);
		if (err)
			return err;
		if (b == 0 || (b & 0xf0))
			return UW_EBADDATA;	/* spare */
		set(insn, UWI_ARM_POP, 0, b);
		return 0;
	case 0xb2:
		return op_b2(v, insn);
	case 0xb3:
		/* D[s]..D[s+c] saved by FSTMFDX: 8 bytes each plus a pad word. */
		err = next(v, &b);
		if (err)
			return err;
		if ((b >> 4) + (b & 0xf) > 15)
			return UW_EBADDATA;
		set(insn, UWI_ARM_VSP_ADD, 8 * ((uint64_t)(b & 0xf) + 1) + 4, 0);
		return 0;
	case 0xb4:
		set(insn, UWI_ARM_VSP_ADD, 4, 0);	/* the PAC pseudo-register */
		return 0;
	case 0xb5:
		set(insn, UWI_ARM_NOP, 0, 0);	/* vsp is the PAC modifier */
		return 0;
	case 0xb6:
	case 0xb7:
		return UW_EBADDATA;		/* spare */
	default:
		/* b8-bf: D8..D[8+n] saved by FSTMFDX. */
		set(insn, UWI_ARM_VSP_ADD, 8 * ((uint64_t)(op & 7) + 1) + 4, 0);
		return 0;
	}
}

/* Opcodes 0xc0-0xff: only ever slots to skip, or errors. */
static int op_c(struct uwi_arm_vrs *v, uint8_t op, struct uwi_arm_insn *insn)
{
	uint64_t n;
	uint8_t b;
	int err;

	if (op <= 0xc5 || (op >= 0xd0 && op <= 0xd7)) {
		/* iWMMXt wR10..wR[10+n], VPUSH D8..D[8+n] */
		set(insn, UWI_ARM_VSP_ADD, 8 * ((uint64_t)(op & 7) + 1), 0);
		return 0;
	}
	if (op != 0xc6 && op != 0xc7 && op != 0xc8 && op != 0xc9)
		return UW_EBADDATA;		/* spare */
	err = next(v, &b);
	if (err)
		return err;
	n = 8 * ((uint64_t)(b & 0xf) + 1);
	switch (op) {
	case 0xc6:				/* iWMMXt wR[s]..wR[s+c] */
		if ((b >> 4) + (b & 0xf) > 15)
			return UW_EBADDATA;
		break;
	case 0xc7:				/* iWMMXt wCGR under mask */
		if (b == 0 || (b & 0xf0))
			return UW_EBADDATA;
		n = 4 * (uint64_t)((b & 1) + ((b >> 1) & 1) + ((b >> 2) & 1) +
				   ((b >> 3) & 1));
		break;
	case 0xc8:				/* VPUSH D[16+s]..D[16+s+c] */
		if (16 + (b >> 4) + (b & 0xf) > 31)
			return UW_EBADDATA;
		break;
	default:				/* c9: VPUSH D[s]..D[s+c] */
		if ((b >> 4) + (b & 0xf) > 31)
			return UW_EBADDATA;
		break;
	}
	set(insn, UWI_ARM_VSP_ADD, n, 0);
	return 0;
}

/*
 * Chrome's tables use only part of the opcode space: vsp adjustments,
 * the core register pops, vsp = rN, finish, b2 and refuse.
 */
static bool chrome_op(uint8_t op)
{
	return op < 0xb0 || op == 0xb0 || op == 0xb2;
}

/*
 * Decode the instruction at v's source into *insn (a finish with n 1
 * when an EHABI sequence is exhausted: an implicit one): 0 or an error
 * (UW_EBADDATA: spare, reserved, truncated, or for Chrome outside its
 * subset or without a finish; UW_EOVERFLOW: a b2 operand too large;
 * UW_EBOUNDS).  Inlined in its two users: the walker's stack is tight.
 */
static uwi_always_inline int decode(struct uwi_arm_vrs *v,
				     struct uwi_arm_insn *insn)
{
	uint8_t op, b;
	int ret;

	ret = next_op(v, &op);
	if (ret == UW_ENOENT) {
		if (v->chrome)
			return UW_EBADDATA;	/* Chrome: no finish */
		set(insn, UWI_ARM_FINISH, 1, 0);
		return 0;
	}
	if (ret)
		return ret;
	if (v->chrome && !chrome_op(op))
		return UW_EBADDATA;
	if (op < 0x40) {
		set(insn, UWI_ARM_VSP_ADD, ((uint64_t)(op & 0x3f) << 2) + 4, 0);
		return 0;
	}
	if (op < 0x80) {
		set(insn, UWI_ARM_VSP_SUB, ((uint64_t)(op & 0x3f) << 2) + 4, 0);
		return 0;
	}
	if (op < 0x90) {
		ret = next(v, &b);
		if (ret)
			return ret;
		/* 1000iiii iiiiiiii: r4..r15 under the 12-bit mask; 80 00 refuses. */
		set(insn, op == 0x80 && b == 0 ? UWI_ARM_REFUSE : UWI_ARM_POP,
		    0, (uint16_t)((((uint32_t)(op & 0xf) << 8) | b) << 4));
		return 0;
	}
	if (op < 0xa0) {
		if (op == 0x9d || op == 0x9f)
			return UW_EBADDATA;	/* reserved */
		set(insn, UWI_ARM_VSP_REG, 0, 0);
		insn->reg = op & 0xf;
		return 0;
	}
	if (op < 0xb0) {
		/* 1010Lnnn: r4..r[4+n], and r14 if L. */
		uint32_t mask = ((1u << ((op & 7) + 1)) - 1) << 4;

		if (op & 8)
			mask |= 1u << ARM_LR;
		set(insn, UWI_ARM_POP, 0, (uint16_t)mask);
		return 0;
	}
	if (op < 0xc0)
		return op_b(v, op, insn);
	return op_c(v, op, insn);
}

static int vsp_add(struct uwi_arm_vrs *v, uint64_t n)
{
	if (n > 0xffffffffu - v->vsp)
		return UW_EOVERFLOW;
	v->vsp += (uint32_t)n;
	return 0;
}

/* After a pop: pc popped, or r13 (vsp then its value, after the pop). */
static uwi_always_inline int pop_done(struct uwi_arm_vrs *v, uint32_t mask)
{
	if (mask & (1u << ARM_PC))
		v->pc_set = true;
	if (mask & (1u << ARM_SP))
		v->vsp = (uint32_t)v->regs->r[ARM_SP];	/* after the whole pop */
	return 0;
}

/*
 * Pop the core registers in mask (bit n: rn), lowest at lowest address,
 * word by word through the walk's reader.  A popped r13 lands in regs
 * and becomes vsp once the pop is over.
 */
static uwi_always_inline int pop_core(struct uwi_arm_vrs *v,
				      const struct uw_walk_cfg *cfg,
				      uint32_t mask)
{
	uint64_t val;
	unsigned int r;
	int err;

	for (r = 0; r < 16; r++) {
		if (!(mask & (1u << r)))
			continue;
		err = uwi_read_word(cfg, 4, v->vsp, &val);
		if (err)
			return err;
		err = vsp_add(v, 4);
		if (err)
			return err;
		uw_reg_set(v->regs, r, val);
	}
	return pop_done(v, mask);
}

/*
 * The same with one bounds check and one read for the whole block (in
 * place, or through the accessor into v->buf): 0, or 1 when that will
 * not do (vsp would wrap, the block is not all within the bounds, the
 * accessor refuses it): the words one by one, pop_core(), then say
 * exactly what fails.  Only with UW_HAS_FAST: a build that favours size
 * reads word by word.
 */
static uwi_noinline int pop_block(struct uwi_arm_vrs *v,
				  const struct uw_walk_cfg *cfg, uint32_t mask)
{
	const uint32_t len = 4 * uwi_arm_npop(mask), vsp = v->vsp;
	struct uw_regs *regs = v->regs;
	const uint8_t *p;
	uint32_t m;

	if (len > 0xffffffffu - vsp)
		return 1;
	/* vsp moved first: only v and mask live across the read. */
	v->vsp = vsp + len;
	p = uwi_read_block(cfg, vsp, len, v->buf);
	if (!p) {
		v->vsp = vsp;
		return 1;
	}
	/* uw_reg_set() for each, their valid bits at once: a set bit a word. */
	regs->valid |= mask;
	for (m = mask; m; m &= m - 1) {
		regs->r[__builtin_ctz(m)] = uwi_load(p, 4, v->be);
		p += 4;
	}
	return pop_done(v, mask);
}

/* Run one decoded instruction. */
static int run(struct uwi_arm_vrs *v, const struct uw_walk_cfg *cfg,
	       const struct uwi_arm_insn *insn)
{
	uint64_t val;
	int err;

	switch (insn->op) {
	case UWI_ARM_VSP_ADD:
		return vsp_add(v, insn->n);
	case UWI_ARM_VSP_SUB:
		if (insn->n > v->vsp)
			return UW_EOVERFLOW;
		v->vsp -= (uint32_t)insn->n;
		return 0;
	case UWI_ARM_POP:
		if (UW_HAS_FAST && v->buf) {
			v->be = cfg->big_endian;
			err = pop_block(v, cfg, insn->mask);
			if (err <= 0)
				return err;
		}
		return pop_core(v, cfg, insn->mask);
	case UWI_ARM_VSP_REG:
		if (!uw_reg_get(v->regs, insn->reg, &val))
			return UW_EREG;
		v->vsp = (uint32_t)val;
		return 0;
	case UWI_ARM_REFUSE:
		return UW_EREFUSE;
	default:
		return 0;
	}
}

int uwi_arm_exec(struct uwi_arm_vrs *v, const struct uw_walk_cfg *cfg)
{
	struct uwi_arm_insn insn;
	uint64_t sp, lr;
	uint32_t sp0;
	int ret;

	if (!uw_reg_get(v->regs, ARM_SP, &sp))
		return UW_EREG;
	v->vsp = sp0 = (uint32_t)sp;
	v->pc_set = false;
	/* Each instruction takes a byte: bounded by the opcode count. */
	for (;;) {
		ret = decode(v, &insn);
		if (ret)
			return ret;
		if (insn.op == UWI_ARM_FINISH)
			break;
		ret = run(v, cfg, &insn);
		if (ret)
			return ret;
		/* Chrome's checks, made after every instruction. */
		if (v->chrome && ((v->vsp & 3) || v->vsp < sp0 ||
				  (cfg->stack_hi && v->vsp > cfg->stack_hi)))
			return UW_ESTACK;
	}
	if (!v->pc_set) {
		if (!uw_reg_get(v->regs, ARM_LR, &lr))
			return UW_EREG;
		uw_reg_set(v->regs, ARM_PC, lr);
	}
	uw_reg_set(v->regs, ARM_SP, v->vsp);
	return 0;
}

int uwi_arm_check_ops(struct uwi_arm_vrs *v, uint64_t *units)
{
	struct uwi_arm_insn insn;
	int ret;

	/* Each instruction takes a byte: bounded by the opcode count. */
	for (;;) {
		ret = decode(v, &insn);
		if (ret)
			return ret;
		if (insn.op == UWI_ARM_FINISH && insn.n)
			return 0;	/* implicit: no byte, no unit */
		(*units)++;
		if (insn.op == UWI_ARM_FINISH || insn.op == UWI_ARM_REFUSE)
			return 0;
	}
}

/*
 * The state of a sequence being reduced to a row (see struct
 * uwi_arm_row): k vsp's offset from the base so far (past 32 bits, or
 * 16 bits below the base, is no row), lo and hi its extremes before the
 * pops (the first pop's block may start below the base),
 * popped whether a pop ran and ended whether anything but a pop
 * followed one.
 */
struct row_walk {
	int64_t k, lo, hi;
	bool first, popped, ended;
};

/* One instruction of it: false when the sequence is no row. */
static bool row_insn(const struct uwi_arm_insn *insn, struct uwi_arm_row *row,
		     struct row_walk *w)
{
	switch (insn->op) {
	case UWI_ARM_VSP_ADD:
		w->k += (int64_t)insn->n;
		w->ended = w->popped;
		break;
	case UWI_ARM_VSP_SUB:
		if (w->popped)
			return false;
		w->k -= (int64_t)insn->n;
		break;
	case UWI_ARM_POP:
		/* One contiguous block, ascending, never r13. */
		if (w->ended || (insn->mask & (1u << ARM_SP)) ||
		    (uint32_t)(insn->mask & -insn->mask) <= row->mask)
			return false;
		if (!w->popped)		/* below base: ARM's vsp = fp - 4 */
			row->k0 = (uint32_t)(int32_t)w->k;
		w->popped = true;
		row->mask |= insn->mask;
		w->k += 4 * uwi_arm_npop(insn->mask);
		break;
	case UWI_ARM_VSP_REG:
		row->reg = insn->reg;
		return w->first;
	case UWI_ARM_NOP:
		return true;
	default:
		return false;	/* refuse */
	}
	if (!w->popped) {
		w->lo = w->k < w->lo ? w->k : w->lo;
		w->hi = w->k > w->hi ? w->k : w->hi;
	}
	return w->k <= 0xffffffff && w->k >= -0xffff;
}

bool uwi_arm_row_eval(struct uwi_arm_vrs *v, struct uwi_arm_row *row)
{
	struct row_walk w = { 0, 0, 0, true, false, false };
	struct uwi_arm_insn insn;

	if (!UW_HAS_ARM_ROWS)
		return false;
	row->k0 = 0;
	row->mask = 0;
	row->reg = ARM_SP;
	row->chk = false;
	/* Each instruction takes a byte: bounded by the opcode count. */
	for (;;) {
		if (decode(v, &insn))
			return false;
		if (insn.op == UWI_ARM_FINISH)
			break;
		if (!row_insn(&insn, row, &w))
			return false;
		row->chk = v->chrome;
		w.first = false;
	}
	if (!w.popped) {
		if (w.k < 0)
			return false;	/* the CFA below base */
		row->k0 = (uint32_t)w.k;
	}
	/* vsp's highest is the CFA: nothing before the pops above it. */
	if (w.hi > w.k)
		return false;
	row->k = (uint32_t)w.k;
	row->dip = (uint16_t)-w.lo;
	return true;
}
