// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM EHABI: .ARM.exidx lookup and the unwind opcode interpreter.
 *
 * Facts from the ARM "Exception Handling ABI for the Arm Architecture"
 * (ehabi32): prel31 fields are 31-bit signed offsets from the field's own
 * address; opcodes are read most significant byte first from each word;
 * an exhausted sequence ends with an implicit "finish", which sets pc
 * from lr unless pc was popped.  Popping a register set puts the lowest
 * register at the lowest address, and a pop that includes r13 sets vsp
 * to the popped value after the whole instruction.
 *
 * Every spare or reserved encoding is an error, as is a register range
 * past what the architecture has.
 */
#include <uwind/ehabi.h>
#include "span.h"
#include "walk.h"
#include "arm_exec.h"

#define ARM_SP	13
#define ARM_LR	14
#define ARM_PC	15

/* A prel31 field at address at, as a target address. */
static int prel31(uint64_t at, uint32_t w, uint64_t *target)
{
	/* Sign-extend bit 30 without shifting a negative value. */
	int64_t off = (int64_t)((w & 0x7fffffff) ^ 0x40000000) - 0x40000000;

	return uw_add_off(at, off, target);
}

int uw_ehabi_init(struct uw_ehabi *eh, const struct uw_span *exidx,
		  const struct uw_span *extab, bool big_endian)
{
	if (!eh || !exidx || !exidx->data)
		return UW_EINVAL;
	if (exidx->size % 8 || exidx->size / 8 > 0xffffffffu)
		return UW_EHEADER;
	eh->exidx = *exidx;
	if (extab && extab->data) {
		eh->extab = *extab;
	} else {
		eh->extab.data = exidx->data;	/* never read: size 0 */
		eh->extab.size = 0;
		eh->extab.addr = 0;
	}
	eh->count = (uint32_t)(exidx->size / 8);
	eh->big_endian = big_endian;
	return 0;
}

static int fn_start(const struct uw_ehabi *eh, uint32_t i, uint64_t *start)
{
	uint32_t w;
	int err = uw_rd32(&eh->exidx, (uint64_t)i * 8, eh->big_endian, &w);

	if (err)
		return err;
	if (w & 0x80000000)
		return UW_EBADDATA;
	return prel31(eh->exidx.addr + (uint64_t)i * 8, w, start);
}

/* A compact model header at word w: personality index and opcode bytes. */
static int compact(struct uw_ehabi_entry *e, uint32_t w)
{
	if ((w & 0xf0000000) != 0x80000000)
		return UW_EBADDATA;
	e->pr = (w >> 24) & 0xf;
	if (e->pr == 0) {
		e->ops.pos = 3;
		e->ops.words = 0;
	} else if (e->pr <= 2) {
		e->ops.pos = 2;
		e->ops.words = (w >> 16) & 0xff;
	} else {
		return UW_EBADDATA;	/* personality indices 3-15: reserved */
	}
	return 0;
}

/* The .ARM.extab entry at address at. */
static int extab_entry(const struct uw_ehabi *eh, uint64_t at,
		       struct uw_ehabi_entry *e)
{
	uint64_t off = at - eh->extab.addr, end;
	uint32_t w;
	int err;

	if (at < eh->extab.addr || (at & 3))
		return UW_EBOUNDS;
	err = uw_rd32(&eh->extab, off, eh->big_endian, &w);
	if (err)
		return err;
	e->ops.in_extab = 1;
	e->ops.off = off;
	if (w & 0x80000000) {
		e->kind = UW_EHABI_KIND_COMPACT;
		err = compact(e, w);
	} else {
		/* Generic model: personality, then a count and opcode word. */
		e->kind = UW_EHABI_KIND_GENERIC;
		e->pr = 0xff;
		err = prel31(at, w, &e->personality);
		err = err ? err : uw_rd32(&eh->extab, off + 4, eh->big_endian,
					  &w);
		e->ops.off = off + 4;
		e->ops.pos = 3;
		e->ops.words = (uint8_t)(w >> 24);
	}
	if (err)
		return err;
	/* Every opcode word must be inside extab. */
	end = e->ops.off + 4 + 4 * (uint64_t)e->ops.words;
	if (end > eh->extab.size)
		return UW_EBOUNDS;
	e->lsda = eh->extab.addr + end;
	return 0;
}

int uw_ehabi_entry(const struct uw_ehabi *eh, uint32_t i,
		   struct uw_ehabi_entry *e)
{
	uint64_t off = (uint64_t)i * 8, at;
	uint32_t w;
	int err;

	if (i >= eh->count)
		return UW_EINVAL;
	err = fn_start(eh, i, &e->fn_start);
	err = err ? err : uw_rd32(&eh->exidx, off + 4, eh->big_endian, &w);
	if (err)
		return err;
	e->fn_start &= ~(uint64_t)1;
	e->index = i;
	e->personality = 0;
	e->lsda = 0;
	e->pr = 0;
	e->ops.in_extab = 0;
	e->ops.off = off + 4;
	e->ops.pos = 0;
	e->ops.words = 0;
	if (w == UW_EHABI_CANTUNWIND) {
		e->kind = UW_EHABI_KIND_CANTUNWIND;
		return 0;
	}
	if (w & 0x80000000) {
		e->kind = UW_EHABI_KIND_INLINE;
		/* Only personality 0 fits in the index word. */
		if ((w & 0xff000000) != 0x80000000)
			return UW_EBADDATA;
		e->ops.pos = 3;
		return 0;
	}
	err = prel31(eh->exidx.addr + off + 4, w, &at);
	return err ? err : extab_entry(eh, at, e);
}

int uw_ehabi_find(const struct uw_ehabi *eh, uint64_t pc,
		  struct uw_ehabi_entry *e)
{
	uint32_t lo = 0, hi = eh->count, mid;
	uint64_t start;
	int err;

	pc &= ~(uint64_t)1;
	/* The last entry whose function starts at or before pc. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		err = fn_start(eh, mid, &start);
		if (err)
			return err;
		if ((start & ~(uint64_t)1) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return UW_ENOENT;
	return uw_ehabi_entry(eh, lo - 1, e);
}

int uw_ehabi_next_op(const struct uw_ehabi *eh, struct uw_ehabi_ops *o,
		     uint8_t *b)
{
	const struct uw_span *s = o->in_extab ? &eh->extab : &eh->exidx;
	uint32_t w;
	int err;

	if (o->pos == 0) {
		if (o->words == 0)
			return 1;
		o->off += 4;
		o->pos = 4;
		o->words--;
	}
	err = uw_rd32(s, o->off, eh->big_endian, &w);
	if (err)
		return err;
	o->pos--;
	*b = (uint8_t)(w >> (8 * o->pos));
	return 0;
}

#define vrs uw_arm_vrs

static int vsp_add(struct vrs *v, uint64_t n)
{
	if (n > 0xffffffffu - v->vsp)
		return UW_EOVERFLOW;
	v->vsp += (uint32_t)n;
	return 0;
}

/*
 * Pop the core registers in mask (bit n: rn), lowest at lowest address.
 * A popped r13 lands in regs and becomes vsp once the pop is over.
 */
static int pop_core(struct vrs *v, const struct uw_walk_cfg *cfg,
		    uint32_t mask)
{
	uint64_t val;
	unsigned int r;
	int err;

	for (r = 0; r < 16; r++) {
		if (!(mask & (1u << r)))
			continue;
		err = uw_read_word(cfg, 4, v->vsp, &val);
		err = err ? err : vsp_add(v, 4);
		if (err)
			return err;
		uw_reg_set(v->regs, r, val);
	}
	if (mask & (1u << ARM_PC))
		v->pc_set = true;
	if (mask & (1u << ARM_SP))
		v->vsp = (uint32_t)v->regs->r[ARM_SP];	/* after the whole pop */
	return 0;
}

/* Skip n VFP/iWMMXt/PAC slots: nothing the walk needs lives there. */
static int skip(struct vrs *v, uint64_t n)
{
	return vsp_add(v, n);
}

/* The next opcode byte, from EHABI words or a plain byte table. */
static int next_op(struct vrs *v, uint8_t *b)
{
	if (!v->bytes)
		return uw_ehabi_next_op(v->eh, v->ops, b);
	if (v->off >= v->nbytes)
		return 1;
	*b = v->bytes[v->off++];
	return 0;
}

/* An instruction's further bytes: running out is an error. */
static int next(struct vrs *v, uint8_t *b)
{
	int ret = next_op(v, b);

	return ret > 0 ? UW_EBADDATA : ret;	/* truncated instruction */
}

/* b2: vsp += 0x204 + (uleb128 << 2). */
static int op_b2(struct vrs *v)
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
	return vsp_add(v, 0x204 + (val << 2));
}

/* Opcodes 0xb0-0xbf. */
static int op_b(const struct uw_walk_cfg *cfg, struct vrs *v, uint8_t op,
		bool *done)
{
	uint8_t b;
	int err;

	switch (op) {
	case 0xb0:
		*done = true;
		return 0;
	case 0xb1:
		err = next(v, &b);
		if (err)
			return err;
		if (b == 0 || (b & 0xf0))
			return UW_EBADDATA;	/* spare */
		return pop_core(v, cfg, b);
	case 0xb2:
		return op_b2(v);
	case 0xb3:
		/* D[s]..D[s+c] saved by FSTMFDX: 8 bytes each plus a pad word. */
		err = next(v, &b);
		if (err)
			return err;
		if ((b >> 4) + (b & 0xf) > 15)
			return UW_EBADDATA;
		return skip(v, 8 * ((uint64_t)(b & 0xf) + 1) + 4);
	case 0xb4:
		return skip(v, 4);		/* the PAC pseudo-register */
	case 0xb5:
		return 0;			/* vsp is the PAC modifier */
	case 0xb6:
	case 0xb7:
		return UW_EBADDATA;		/* spare */
	default:
		/* b8-bf: D8..D[8+n] saved by FSTMFDX. */
		return skip(v, 8 * ((uint64_t)(op & 7) + 1) + 4);
	}
}

/* Opcodes 0xc0-0xff. */
static int op_c(struct vrs *v, uint8_t op)
{
	uint8_t b;
	int err;

	if (op >= 0xc0 && op <= 0xc5)		/* iWMMXt wR10..wR[10+n] */
		return skip(v, 8 * ((uint64_t)(op & 7) + 1));
	if (op >= 0xd0 && op <= 0xd7)		/* VPUSH D8..D[8+n] */
		return skip(v, 8 * ((uint64_t)(op & 7) + 1));
	if (op != 0xc6 && op != 0xc7 && op != 0xc8 && op != 0xc9)
		return UW_EBADDATA;		/* spare */
	err = next(v, &b);
	if (err)
		return err;
	switch (op) {
	case 0xc6:				/* iWMMXt wR[s]..wR[s+c] */
		if ((b >> 4) + (b & 0xf) > 15)
			return UW_EBADDATA;
		return skip(v, 8 * ((uint64_t)(b & 0xf) + 1));
	case 0xc7:				/* iWMMXt wCGR under mask */
		if (b == 0 || (b & 0xf0))
			return UW_EBADDATA;
		return skip(v, 4 * (uint64_t)((b & 1) + ((b >> 1) & 1) +
					      ((b >> 2) & 1) + ((b >> 3) & 1)));
	case 0xc8:				/* VPUSH D[16+s]..D[16+s+c] */
		if (16 + (b >> 4) + (b & 0xf) > 31)
			return UW_EBADDATA;
		return skip(v, 8 * ((uint64_t)(b & 0xf) + 1));
	default:				/* c9: VPUSH D[s]..D[s+c] */
		if ((b >> 4) + (b & 0xf) > 31)
			return UW_EBADDATA;
		return skip(v, 8 * ((uint64_t)(b & 0xf) + 1));
	}
}

/* One instruction starting with byte op. */
static int exec_one(const struct uw_walk_cfg *cfg, struct vrs *v, uint8_t op,
		    bool *done)
{
	uint64_t val;
	uint8_t b;
	int err;

	if (op < 0x40)
		return vsp_add(v, ((uint64_t)(op & 0x3f) << 2) + 4);
	if (op < 0x80) {
		val = ((uint64_t)(op & 0x3f) << 2) + 4;
		if (val > v->vsp)
			return UW_EOVERFLOW;
		v->vsp -= (uint32_t)val;
		return 0;
	}
	if (op < 0x90) {
		err = next(v, &b);
		if (err)
			return err;
		if (op == 0x80 && b == 0)
			return UW_EREFUSE;
		/* 1000iiii iiiiiiii: r4..r15 under the 12-bit mask. */
		return pop_core(v, cfg, (((uint32_t)(op & 0xf) << 8) | b) << 4);
	}
	if (op < 0xa0) {
		if (op == 0x9d || op == 0x9f)
			return UW_EBADDATA;	/* reserved */
		if (!uw_reg_get(v->regs, op & 0xf, &val))
			return UW_EREG;
		v->vsp = (uint32_t)val;
		return 0;
	}
	if (op < 0xb0) {
		/* 1010Lnnn: r4..r[4+n], and r14 if L. */
		uint32_t mask = ((1u << ((op & 7) + 1)) - 1) << 4;

		if (op & 8)
			mask |= 1u << ARM_LR;
		return pop_core(v, cfg, mask);
	}
	if (op < 0xc0)
		return op_b(cfg, v, op, done);
	return op_c(v, op);
}

/*
 * Chrome's tables use only part of the opcode space: vsp adjustments,
 * the core register pops, vsp = rN, finish, b2 and refuse.
 */
static bool chrome_op(uint8_t op)
{
	return op < 0xb0 || op == 0xb0 || op == 0xb2;
}

int uw_arm_exec(struct vrs *v, const struct uw_walk_cfg *cfg)
{
	uint64_t sp, lr;
	uint32_t sp0;
	bool done = false;
	uint8_t op;
	int ret;

	if (!uw_reg_get(v->regs, ARM_SP, &sp))
		return UW_EREG;
	v->vsp = sp0 = (uint32_t)sp;
	v->pc_set = false;
	/* Each instruction takes a byte: bounded by the opcode count. */
	while (!done) {
		ret = next_op(v, &op);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			if (v->chrome)
				return UW_EBADDATA;	/* no finish */
			break;			/* EHABI: implicit finish */
		}
		if (v->chrome && !chrome_op(op))
			return UW_EBADDATA;
		ret = exec_one(cfg, v, op, &done);
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

int uw_ehabi_exec(const struct uw_ehabi *eh, struct uw_ehabi_ops *ops,
		  const struct uw_walk_cfg *cfg, struct uw_regs *regs)
{
	struct vrs v;

	uw_arm_vrs_ehabi(&v, regs, eh, ops);
	return uw_arm_exec(&v, cfg);
}
