// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker's 32-bit ARM glue: the EHABI and Chrome steps of the tables
 * phase (lib/formats.h) and ARM frame records for the frame-pointer
 * phase.  Built with UW_HAS_ARM; each table step folds to nothing
 * without its format's switch, so its sources need not be linked.
 */
#include "walk.h"
#include "arm_exec.h"

/*
 * Run the opcodes v is set up for on the cursor's registers; then the
 * caller's sp, whether its return address came from lr (an unchanged sp
 * is then progress), and the registers a call leaves unknown (r0-r3,
 * r12, lr) dropped.
 */
static uwi_always_inline int arm_run(struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg,
				      struct uwi_arm_vrs *v)
{
	uint64_t lr = 0, pc, sp;
	bool lr_known = uw_reg_get(&cur->regs, UW_ARM_LR, &lr);
	unsigned int r;
	int err;

	err = uwi_arm_exec(v, cfg);
	if (err)
		return err;
	if (!uw_reg_get(&cur->regs, UW_ARM_PC, &pc) ||
	    !uw_reg_get(&cur->regs, UW_ARM_SP, &sp))
		return UW_EREG;
	uwi_state(cur)->step.ra_in_reg = lr_known && pc == lr;
	cur->cfa = sp;
	for (r = 0; r <= 3; r++)
		cur->regs.valid &= ~((uint64_t)1 << r);
	cur->regs.valid &= ~((uint64_t)1 << 12 | (uint64_t)1 << UW_ARM_LR);
	return UWI_STEPPED;
}

/*
 * The EHABI entry's opcodes for pc: cached (where they start: checked
 * as the opcode reader needs, every read of it being bounds-checked
 * anyway), or looked up and cached.  UWI_NEXT: no entry, or "cannot
 * unwind".
 */
static int ehabi_ops(struct uw_cursor *cur, const struct uw_ehabi *eh,
		     uint64_t pc)
{
	const struct uw_cache_entry *h = uwi_cache_hit(cur, UW_SRC_EHABI);
	struct uw_ehabi_entry *e = &uwi_state(cur)->scratch.ehabi.e;
	struct uw_cache_entry *f;
	int err;

	if (h && h->u.w[1] <= 4 && h->u.w[2] <= 0xff && h->u.w[3] <= 1) {
		e->ops.off = h->u.w[0];
		e->ops.pos = (uint8_t)h->u.w[1];
		e->ops.words = (uint8_t)h->u.w[2];
		e->ops.in_extab = (uint8_t)h->u.w[3];
		return UWI_STEPPED;
	}
	err = uw_ehabi_find(eh, pc, e);
	if (err)
		return err == UW_ENOENT ? UWI_NEXT : err;
	/* No unwind information here: let frame pointers try. */
	if (e->kind == UW_EHABI_KIND_CANTUNWIND)
		return UWI_NEXT;
	f = uwi_cache_fill(cur);
	if (f && e->ops.off <= 0xffffffffu) {
		f->u.w[0] = (uint32_t)e->ops.off;
		f->u.w[1] = e->ops.pos;
		f->u.w[2] = e->ops.words;
		f->u.w[3] = e->ops.in_extab;
		uwi_cache_tag(cur, f, UW_SRC_EHABI, 0);
	}
	return UWI_STEPPED;
}

/* ARM: run the EHABI entry for pc on the cursor's registers. */
int uwi_ehabi_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uwi_arch *a, const struct uw_ehabi *eh,
		   uint64_t pc)
{
	struct uwi_state *s;
	int ret;

	(void)a;
	if (!UW_HAS_EHABI)
		return UWI_NEXT;
	ret = ehabi_ops(cur, eh, pc);
	if (ret != UWI_STEPPED)
		return ret;
	s = uwi_state(cur);
	uwi_arm_vrs_ehabi(&s->scratch.ehabi.vrs, &cur->regs, eh,
			  &s->scratch.ehabi.e.ops);
	return arm_run(cur, cfg, &s->scratch.ehabi.vrs);
}

/*
 * ARM: the same from Chrome's tables.  The cache keeps the instruction
 * index, checked against the instruction table on the way out.
 */
int uwi_chrome_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a, const struct uw_chrome *ct,
		    uint64_t pc)
{
	const struct uw_cache_entry *h = uwi_cache_hit(cur, UW_SRC_CHROME);
	struct uwi_state *s = uwi_state(cur);
	struct uw_chrome_loc *loc = &s->scratch.chrome.loc;
	struct uw_cache_entry *f;
	int err;

	(void)a;
	if (!UW_HAS_CHROME)
		return UWI_NEXT;
	if (h && h->u.w[0] < ct->insn_size) {
		loc->insn = h->u.w[0];
	} else {
		err = uw_chrome_find(ct, pc, loc);
		if (err)
			return err == UW_ENOENT ? UWI_NEXT : err;
		f = uwi_cache_fill(cur);
		if (f) {
			f->u.w[0] = loc->insn;
			uwi_cache_tag(cur, f, UW_SRC_CHROME, 0);
		}
	}
	uwi_arm_vrs_bytes(&s->scratch.chrome.vrs, &cur->regs,
			  ct->blob.data + ct->insn_off, ct->insn_size,
			  loc->insn);
	err = arm_run(cur, cfg, &s->scratch.chrome.vrs);
	/* Chromium's per-frame check: a caller's sp is 8-byte aligned. */
	if (err == UWI_STEPPED && (cur->cfa & 7))
		return UW_EALIGN;
	return err;
}

/*
 * ARM frame records.  ARM code (GCC): push {fp, lr}; add fp, sp, #4, so
 * fp points at the saved lr with the caller's fp below it.  Thumb code
 * keeps its frame pointer in r7, and the AAPCS frame record (as clang
 * lays it out: push {r7, lr}; mov r7, sp) has the caller's r7 at [r7] and
 * lr above it.  GCC's Thumb code points r7 below its locals instead, so
 * there the fallback finds nothing sensible and the walk stops on the
 * progress checks.
 */
int uwi_arm_fp_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	uint64_t fp, ra, caller_fp, sp, rec;
	bool thumb = uwi_state(cur)->step.pc & 1;
	unsigned int reg = thumb ? UW_ARM_R7 : UW_ARM_R11;
	int err;

	if (!uw_reg_get(&cur->regs, reg, &fp))
		return UW_EREG;
	if (fp == 0)
		return UWI_CHAIN_END;
	if ((fp & 3) || fp < 4 || fp > 0xffffffffu - 8)
		return UW_EALIGN;
	/* Thumb: [r7] = caller's r7, lr above it; ARM: lr at [fp]. */
	rec = thumb ? fp : fp - 4;
	sp = thumb ? fp + 8 : fp + 4;
	err = uwi_read_word(cfg, 4, rec, &caller_fp);
	if (err)
		return err;
	err = uwi_read_word(cfg, 4, rec + 4, &ra);
	if (err)
		return err;
	cur->cfa = sp;
	cur->regs.valid = 0;
	uw_reg_set(&cur->regs, UW_ARM_PC, ra);
	uw_reg_set(&cur->regs, UW_ARM_SP, sp);
	/*
	 * The record saved the register this frame's mode uses: an ARM
	 * function called from Thumb code saved r11, not the caller's r7.
	 */
	uw_reg_set(&cur->regs, reg, caller_fp);
	return UWI_STEPPED;
}
