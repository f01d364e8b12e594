// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM EHABI: .ARM.exidx lookup, entries, opcode words and the
 * whole-index check.  The opcodes are interpreted by lib/arm_exec.c.
 *
 * Facts from the ARM "Exception Handling ABI for the Arm Architecture"
 * (ehabi32): prel31 fields are 31-bit signed offsets from the field's own
 * address; opcodes are read most significant byte first from each word.
 */
#include "span.h"
#include "walk.h"
#include "arm_exec.h"

/*
 * A prel31 field at address at, as a target address: a 31-bit signed
 * offset from the field, in 32-bit arithmetic (ARM addresses wrap at
 * 4 GiB, so a table near address 0 may point at the top of memory).
 */
static uint64_t prel31(uint64_t at, uint32_t w)
{
	/* Bit 30 is the sign: copy it into bit 31. */
	uint32_t off = (w & 0x7fffffff) | ((w & 0x40000000) << 1);

	return (uint32_t)((uint32_t)at + off);
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

/*
 * The function start index entry i's first word w says (bit 31 set: no
 * start, UW_EBADDATA), Thumb bit included: prel31 from the entry, in the
 * 32 bits of ARM addresses.
 */
static uwi_always_inline int word_start(const struct uw_ehabi *eh, uint32_t i,
					 uint32_t w, uint32_t *start)
{
	if (w & 0x80000000)
		return UW_EBADDATA;
	*start = (uint32_t)prel31(eh->exidx.addr + (uint64_t)i * 8, w);
	return 0;
}

static int fn_start(const struct uw_ehabi *eh, uint32_t i, uint64_t *start)
{
	uint32_t w, s;
	int err = uwi_rd32(&eh->exidx, (uint64_t)i * 8, eh->big_endian, &w);

	if (!err)
		err = word_start(eh, i, w, &s);
	if (!err)
		*start = s;
	return err;
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
	err = uwi_rd32(&eh->extab, off, eh->big_endian, &w);
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
		e->personality = prel31(at, w);
		err = uwi_rd32(&eh->extab, off + 4, eh->big_endian, &w);
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
	if (err)
		return err;
	err = uwi_rd32(&eh->exidx, off + 4, eh->big_endian, &w);
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
	at = prel31(eh->exidx.addr + off + 4, w);
	return extab_entry(eh, at, e);
}

/*
 * The search reads each probed index word in place: one bounds check for
 * the whole index (uw_ehabi_init() made count its size / 8), and 32-bit
 * arithmetic, the width of ARM addresses (a pc past 4 GiB lies after
 * every function).  A probed word that is no function start is an error
 * (word_start(), as for fn_start()).
 */
int uw_ehabi_find(const struct uw_ehabi *eh, uint64_t pc,
		  struct uw_ehabi_entry *e)
{
	const uint8_t *idx = eh->exidx.data;
	const uint32_t pc32 = pc > 0xffffffffu ? 0xffffffffu :
			      (uint32_t)pc & ~1u;
	uint32_t lo = 0, hi = eh->count, mid, start;
	int err;

	if (!uwi_span_has(&eh->exidx, 0, (uint64_t)hi * 8))
		return UW_EBOUNDS;
	/* The last entry whose function starts at or before pc. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		err = word_start(eh, mid, uwi_load32(idx + (uint64_t)mid * 8,
						     eh->big_endian), &start);
		if (err)
			return err;
		if ((start & ~1u) <= pc32)
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
			return UW_EHABI_OPS_END;
		o->off += 4;
		o->pos = 4;
		o->words--;
	}
	err = uwi_rd32(s, o->off, eh->big_endian, &w);
	if (err)
		return err;
	o->pos--;
	*b = (uint8_t)(w >> (8 * o->pos));
	return 0;
}

int uw_ehabi_exec(const struct uw_ehabi *eh, struct uw_ehabi_ops *ops,
		  const struct uw_walk_cfg *cfg, struct uw_regs *regs)
{
	struct uwi_arm_vrs v;

	uwi_arm_vrs_ehabi(&v, regs, eh, ops);
	return uwi_arm_exec(&v, cfg);
}

int uw_ehabi_check(const struct uw_ehabi *eh, struct uw_check *c)
{
	struct uw_ehabi_entry e;
	struct uwi_arm_vrs v;
	uint64_t units = 0;
	int err;

	if (!eh || !c)
		return UW_EINVAL;
	for (; c->item < eh->count; c->item++) {
		if (c->limit && units >= c->limit)
			return UW_CHECK_MORE;
		units++;
		err = uw_ehabi_entry(eh, c->item, &e);
		if (err)
			return err;
		/* The lookup searches by halves: starts never decrease. */
		if (c->item && e.fn_start < c->last)
			return UW_EUNSORTED;
		c->last = e.fn_start;
		if (e.kind == UW_EHABI_KIND_CANTUNWIND)
			continue;
		/* What uw_ehabi_exec() will decode, up to its finish. */
		uwi_arm_vrs_ehabi(&v, NULL, eh, &e.ops);
		err = uwi_arm_check_ops(&v, &units);
		if (err)
			return err;
	}
	return UW_CHECK_DONE;
}
