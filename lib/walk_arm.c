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
 * After the opcodes (or a row) set the cursor's registers: the caller's
 * sp, whether its return address came from lr (lr_known and lr: the
 * callee's; an unchanged sp is then progress), and the registers a call
 * leaves unknown (r0-r3, r12, lr) dropped.
 */
static uwi_noinline int arm_caller(struct uw_cursor *cur, bool lr_known,
					uint64_t lr)
{
	uint64_t pc, sp;
	unsigned int r;

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

/* Chromium's per-frame check: a caller's sp is 8-byte aligned. */
static uwi_always_inline int chrome_align(const struct uw_cursor *cur,
					  int ret)
{
	return ret == UWI_STEPPED && !uwi_sp_aligned(cur->cfa, 8) ?
	       UW_EALIGN : ret;
}

/* Run the opcodes v is set up for on the cursor's registers. */
static uwi_always_inline int arm_run(struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg,
				      struct uwi_arm_vrs *v)
{
	uint64_t lr = 0;
	bool lr_known = uw_reg_get(&cur->regs, UW_ARM_LR, &lr);
	int err;

	err = uwi_arm_exec(v, cfg);
	if (err)
		return err;
	return arm_caller(cur, lr_known, lr);
}

/*
 * A step whose opcodes give a frame asks for their row (the tables
 * phase calls uwi_arm_keep_row() once the format's step returned, its
 * frame not under the step's), when the cache's entry e for this step
 * (filled, or hit) holds none yet and is not known to have none.
 * Asked before the run, withdrawn when it fails: nothing lives across
 * the run's call.
 */
static uwi_always_inline void arm_want_row(struct uw_cursor *cur,
					   const struct uw_cache_entry *e)
{
	struct uwi_step *st = &uwi_state(cur)->step;

	st->arm_keep = UW_HAS_ARM_ROWS && e &&
		       !(e->flags & (UWI_CACHE_ARM_ROW | UWI_CACHE_ARM_NOROW));
	st->keep_mod = cur->module;
}

static uwi_always_inline int arm_ran(struct uw_cursor *cur, int ret)
{
	if (ret != UWI_STEPPED)
		uwi_state(cur)->step.arm_keep = false;
	return ret;
}

void uwi_arm_keep_row(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	struct uwi_state *s = uwi_state(cur);
	const struct uw_module *mod = &cfg->mods[s->step.keep_mod];
	struct uw_cache_entry *e;
	struct uwi_arm_vrs *v;
	struct uwi_arm_row row;
	uint8_t flags = UWI_CACHE_ARM_ROW;

	s->step.arm_keep = false;
	if (!UW_HAS_ARM_ROWS)
		return;
	/* The entry the step filled or hit: the lookup's slot. */
	e = uwi_cache_slot(cfg->cache, s->step.lookup);
	if (!uwi_cache_is(e, s->step.lookup, uwi_cache_key(mod)))
		return;
	/* The opcodes again, from where they start: the run consumed them. */
	if (UW_HAS_EHABI && e->src == UW_SRC_EHABI) {
		s->scratch.ehabi.e.ops = s->scratch.ehabi.ops0;
		uwi_arm_vrs_ehabi(&s->scratch.ehabi.vrs, &cur->regs,
				  mod->ehabi, &s->scratch.ehabi.e.ops);
		v = &s->scratch.ehabi.vrs;
	} else if (UW_HAS_CHROME && e->src == UW_SRC_CHROME) {
		uwi_arm_vrs_bytes(&s->scratch.chrome.vrs, &cur->regs,
				  mod->chrome->blob.data + mod->chrome->insn_off,
				  mod->chrome->insn_size,
				  s->scratch.chrome.loc.insn);
		v = &s->scratch.chrome.vrs;
	} else {
		return;
	}
	/* Not a row: said once, so that its hits do not decode it again. */
	if (!uwi_arm_row_eval(v, &row)) {
		e->flags |= UWI_CACHE_ARM_NOROW;
		return;
	}
	uwi_arm_row_put(e, &row);
	/* The trampoline probe's answer goes with it (walk.h). */
	if (s->step.pc & 1)
		flags |= UWI_CACHE_ARM_THUMB;
	if (s->step.sig_other &&
	    s->step.lookup + 1 == (s->step.pc & ~(uint64_t)1))
		flags |= UWI_CACHE_NO_SIGFRAME;
	e->flags = flags;
}

int uwi_arm_row_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		     const struct uw_module *mod,
		     const struct uw_cache_entry *e)
{
	struct uw_regs *regs = &cur->regs;
	const uint32_t w4 = e->u.w[4], mask = w4 & 0xffff;
	uint32_t cfa, addr, len, i, r;
	uint64_t base, sp, lr = 0;
	const uint8_t *p = NULL;
	bool lr_known;
	int ret;

	if (!UW_HAS_ARM_ROWS)
		return UWI_NEXT;
	if (e->src == UW_SRC_CHROME ? !(UW_HAS_CHROME && mod->chrome) :
	    !(UW_HAS_EHABI && mod->ehabi && e->src == UW_SRC_EHABI))
		return UWI_NEXT;
	lr_known = uw_reg_get(regs, UW_ARM_LR, &lr);
	/* The return address from lr needs lr known (else UW_EREG). */
	len = 4 * uwi_arm_npop(mask);
	if (!uw_reg_get(regs, (w4 >> 16) & 0xf, &base) ||
	    !uw_reg_get(regs, UW_ARM_SP, &sp) ||
	    (!(mask & (3u << UW_ARM_LR)) && !lr_known) ||
	    !uwi_arm_row_ok(e->u.w[2], e->u.w[3], w4, len) ||
	    !uwi_arm_row_span(e->u.w[2], e->u.w[3], w4, e->u.w[5],
			      (uint32_t)base, (uint32_t)sp, cfg->stack_hi,
			      &cfa, &addr))
		return UWI_NEXT;
	if (len) {
		p = uwi_read_block(cfg, addr, len,
				   uwi_state(cur)->scratch.arm.buf);
		if (!p)
			return UWI_NEXT;
	}
	/* As the pops set them: lowest register from the lowest word. */
	for (r = 0, i = 0; r < 16; r++)
		if (mask & (1u << r))
			uw_reg_set(regs, r, uwi_load(p + 4 * i++, 4,
						    cfg->big_endian));
	if (!(mask & (1u << UW_ARM_PC)))
		uw_reg_set(regs, UW_ARM_PC, regs->r[UW_ARM_LR]);
	uw_reg_set(regs, UW_ARM_SP, cfa);
	cur->source = e->src;
	ret = arm_caller(cur, lr_known, lr);
	return e->src == UW_SRC_CHROME ? chrome_align(cur, ret) : ret;
}

/*
 * The EHABI entry's opcodes for pc: cached (where they start: checked
 * as the opcode reader needs, every read of it being bounds-checked
 * anyway), or looked up and cached; their row asked for.  UWI_NEXT:
 * no entry, or "cannot unwind".
 */
static uwi_noinline int ehabi_ops(struct uw_cursor *cur,
				  const struct uw_ehabi *eh, uint64_t pc)
{
	const struct uw_cache_entry *h = uwi_cache_hit(cur, UW_SRC_EHABI);
	struct uw_ehabi_entry *e = &uwi_state(cur)->scratch.ehabi.e;
	struct uw_cache_entry *f;
	int err;

	if (h && (h->u.w[1] & 0xff) <= 4 && (h->u.w[1] >> 16) <= 1) {
		e->ops.off = h->u.w[0];
		e->ops.pos = (uint8_t)h->u.w[1];
		e->ops.words = (uint8_t)(h->u.w[1] >> 8);
		e->ops.in_extab = (uint8_t)(h->u.w[1] >> 16);
		arm_want_row(cur, h);
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
		f->u.w[1] = e->ops.pos | (uint32_t)e->ops.words << 8 |
			    (uint32_t)e->ops.in_extab << 16;
		uwi_cache_tag(cur, f, UW_SRC_EHABI, 0);
	}
	arm_want_row(cur, f);
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
	s->scratch.ehabi.ops0 = s->scratch.ehabi.e.ops;
	uwi_arm_vrs_ehabi(&s->scratch.ehabi.vrs, &cur->regs, eh,
			  &s->scratch.ehabi.e.ops);
	s->scratch.ehabi.vrs.buf = s->scratch.ehabi.buf;
	return arm_ran(cur, arm_run(cur, cfg, &s->scratch.ehabi.vrs));
}

/*
 * Where the Chrome sequence for pc starts, into the scratch's loc: the
 * cache keeps its instruction index (checked against the instruction
 * table on the way out), or it is looked up and kept.  UWI_STEPPED, or
 * UWI_NEXT (no entry), or an error.  Apart from the run: only the run's
 * frame is under the step's.
 */
static uwi_noinline int chrome_loc(struct uw_cursor *cur,
				   const struct uw_chrome *ct, uint64_t pc)
{
	const struct uw_cache_entry *h = uwi_cache_hit(cur, UW_SRC_CHROME);
	struct uw_chrome_loc *loc = &uwi_state(cur)->scratch.chrome.loc;
	struct uw_cache_entry *slot = (struct uw_cache_entry *)h;
	int err;

	if (h && h->u.w[0] < ct->insn_size) {
		loc->insn = h->u.w[0];
	} else {
		err = uw_chrome_find(ct, pc, loc);
		if (err)
			return err == UW_ENOENT ? UWI_NEXT : err;
		slot = uwi_cache_fill(cur);
		if (slot) {
			slot->u.w[0] = loc->insn;
			uwi_cache_tag(cur, slot, UW_SRC_CHROME, 0);
		}
	}
	arm_want_row(cur, slot);
	return UWI_STEPPED;
}

/* ARM: the same from Chrome's tables. */
int uwi_chrome_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a, const struct uw_chrome *ct,
		    uint64_t pc)
{
	struct uwi_state *s = uwi_state(cur);
	int ret;

	(void)a;
	if (!UW_HAS_CHROME)
		return UWI_NEXT;
	ret = chrome_loc(cur, ct, pc);
	if (ret != UWI_STEPPED)
		return ret;
	uwi_arm_vrs_bytes(&s->scratch.chrome.vrs, &cur->regs,
			  ct->blob.data + ct->insn_off, ct->insn_size,
			  s->scratch.chrome.loc.insn);
	s->scratch.chrome.vrs.buf = s->scratch.chrome.buf;
	ret = arm_ran(cur, arm_run(cur, cfg, &s->scratch.chrome.vrs));
	return chrome_align(cur, ret);
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
