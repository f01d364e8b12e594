// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad rules applied to a register set: one frame unwound with the
 * STACK CFI records (any architecture) or a STACK WIN record (x86), and
 * the walker's step built on it.
 *
 * Facts from Breakpad's cfi_frame_info.cc and stackwalker_*.cc: the .cfa
 * rule sees the callee's registers, every other rule those and .cfa;
 * without a .cfa or .ra rule in force the records are not used; the
 * caller's pc is .ra, its stack pointer .cfa unless a rule names the
 * stack pointer; callee-saved registers no rule names keep their values;
 * a register rule that cannot be evaluated (".undef", or a register the
 * callee does not know) leaves that register unknown.  STACK WIN (x86,
 * stackwalker_x86.cc): the program runs with $ebp $esp $ebx (and the
 * other registers known), .cbParams .cbSavedRegs .cbLocals from the
 * record, .cbCalleeParams (the callee's .cbParams), and .raSearchStart =
 * $esp + .cbCalleeParams + .cbLocals + .cbSavedRegs, moved up by up to
 * three words to the first word that holds a code address; it must
 * assign $eip and $esp.  An FPO record without a program gets the one
 * Breakpad synthesizes for it.
 *
 * The walker's stack is tight: the step's state lives in struct
 * uw_bp_work (the cursor's scratch), and the evaluator is one flat
 * function.
 */
#include <uwind/uwind.h>
#include "bp_text.h"
#include "walk.h"
#include "regsave.h"

#define S_INIT_LEN	15	/* "STACK CFI INIT " */
#define S_CFI_LEN	10	/* "STACK CFI " */

/* Programs Breakpad writes for FPO records, with and without a bp frame. */
#define FPO_BP	"$eip .raSearchStart ^ = $ebp $esp .cbCalleeParams + " \
		".cbSavedRegs + 8 - ^ = $esp .raSearchStart 4 + ="
#define FPO_NOBP "$eip .raSearchStart ^ = $esp .raSearchStart 4 + ="

/* The rule slot of name s[0..len): .cfa 0, .ra 1, register n 2 + n. */
static int slot_of(const struct uw_bp *bp, const uint8_t *s, size_t len)
{
	int reg;

	if (len == 4 && s[0] == '.' && s[1] == 'c' && s[2] == 'f' &&
	    s[3] == 'a')
		return 0;
	if (len == 3 && s[0] == '.' && s[1] == 'r' && s[2] == 'a')
		return 1;
	reg = uw_bp_reg((enum uw_arch)bp->arch, (const char *)s, len);
	return reg >= 0 && reg < UW_NREGS ? reg + 2 : -1;
}

/* "name: expr name: expr ..." in [q, end): the last rule of each slot. */
static int rules(const struct uw_bp *bp, struct uw_bp_work *w, uint64_t q,
		 uint64_t end)
{
	uint64_t n, x;
	int k, r;

	while (!(r = bp_next_rule(&bp->text, &q, end, &n, &x))) {
		k = slot_of(bp, bp->text.data + n, x - n - 1);
		if (k >= 0)
			w->slot[k] = x;	/* names we do not hold are skipped */
	}
	return r == UW_ENOENT ? 0 : r;
}

/* The rules in force: the INIT line's, then each delta's. */
static uwi_noinline int collect(struct uw_bp_work *w)
{
	const struct uw_span *t = &w->bp->text;
	uint64_t p = w->cfi.init_off, q, end, v;
	unsigned int k;
	int err;

	for (k = 0; k < UW_BP_SLOTS; k++)
		w->slot[k] = 0;
	while (p < w->cfi.end_off) {
		end = bp_eol(t, p);
		q = p + (p == w->cfi.init_off ? S_INIT_LEN : S_CFI_LEN);
		/* The address, and an INIT record's size, before the rules. */
		err = uwi_bp_hex(t, &q, end, &v);
		if (err)
			return err;
		if (p == w->cfi.init_off) {
			err = uwi_bp_hex(t, &q, end, &v);
			if (err)
				return err;
		}
		err = rules(w->bp, w, q, end);
		if (err)
			return err;
		p = end < t->size ? end + 1 : end;
	}
	return 0;
}

/*
 * Slot k's rule: 0 with w->ev.value, UWI_OUTERMOST for ".undef" (no
 * value), or an error.
 */
static uwi_always_inline int rule(struct uw_bp_work *w, unsigned int k)
{
	const struct uw_span *t = &w->bp->text;

	return uwi_bp_run(&w->ev, (const char *)t->data + w->slot[k],
			 t->size - w->slot[k], true);
}

/* The caller's pc and, unless a rule gave it, stack pointer. */
static uwi_noinline int cfi_finish(struct uw_bp_work *w)
{
	const struct uw_arch_info *ai = &uwi_arch_get(w->ev.cfg->arch)->info;

	w->ra = uwi_strip_pac(w->ra, uwi_pac_bits(w->ev.cfg));
	if (!w->slot[2 + ai->sp])
		uw_reg_set(w->caller, ai->sp, w->cfa);
	uw_reg_set(w->caller, ai->pc, w->ra);
	return UWI_STEPPED;
}

/* The caller starts with the callee-saved registers the callee knows. */
static void carry(struct uw_bp_work *w)
{
	unsigned int i;

	for (i = 0; i < UW_NREGS; i++)
		w->caller->r[i] = w->callee->r[i];
	w->caller->valid = w->callee->valid &
			   uwi_callee_saved((enum uw_arch)w->bp->arch);
}

static uwi_noinline int cfi_unwind(struct uw_bp_work *w)
{
	const struct uw_arch_info *ai = &uwi_arch_get(w->ev.cfg->arch)->info;
	unsigned int k;
	int ret;

	ret = collect(w);
	if (ret)
		return ret;
	/* A rule for the pc stands for a missing .ra (the spec's example). */
	if (!w->slot[1])
		w->slot[1] = w->slot[2 + ai->pc];
	if (!w->slot[0] || !w->slot[1])
		return UW_ENOENT;	/* no .cfa or .ra: not usable */
	/* STACK WIN names are a STACK WIN program's (left by an earlier step). */
	w->ev.has_win = 0;
	w->ev.has_cfa = 0;
	ret = rule(w, 0);
	if (ret == UWI_OUTERMOST)
		return UW_ENOENT;	/* .cfa: .undef: not usable */
	if (ret)
		return ret;
	w->ev.has_cfa = 1;
	w->ev.cfa = w->cfa = w->ev.value;
	ret = rule(w, 1);
	if (ret)
		return ret;	/* .ra: .undef: UWI_OUTERMOST */
	if (!w->ev.derefs)
		w->flags |= UW_BP_F_RA_IN_REG;
	w->ra = w->ev.value;
	carry(w);
	/* Every other register rule, into the caller. */
	for (k = 2; k < UW_BP_SLOTS; k++) {
		if (!w->slot[k])
			continue;
		w->caller->valid &= ~((uint64_t)1 << (k - 2));
		ret = rule(w, k);
		if (!ret)
			uw_reg_set(w->caller, k - 2, w->ev.value);
		else if (ret != UWI_OUTERMOST && ret != UW_EREG)
			return ret;
	}
	return cfi_finish(w);
}

/*
 * .raSearch: the first of four words from start that holds a code
 * address (inside one of the walk's modules), else start.
 */
static uwi_noinline uint64_t ra_search(struct uw_bp_eval *ev, uint64_t start)
{
	const struct uw_walk_cfg *cfg = ev->cfg;
	unsigned int i;
	size_t m;

	for (i = 0; i < 4; i++) {
		if (uwi_bp_read(ev, start + 4 * i, &ev->opnd[0]))
			break;
		for (m = 0; m < cfg->nmods; m++)
			if (ev->opnd[0] >= cfg->mods[m].start &&
			    ev->opnd[0] < cfg->mods[m].end)
				return start + 4 * i;
	}
	return start;
}

/* STACK WIN: the program's names, and the program to run (w->prog). */
static uwi_noinline int win_setup(struct uw_bp_work *w)
{
	const struct uw_bp_win *win = &w->win;
	struct uw_bp_eval *ev = &w->ev;
	uint64_t esp;

	if (!uw_reg_get(w->callee, UW_X86_ESP, &esp))
		return UW_EREG;
	w->params = win->params;
	ev->win[UW_BP_CB_PARAMS] = win->params;
	ev->win[UW_BP_CB_SAVED_REGS] = win->saved_regs;
	ev->win[UW_BP_CB_LOCALS] = win->locals;
	ev->win[UW_BP_CB_CALLEE_PARAMS] = w->callee_params;
	ev->win[UW_BP_RA_SEARCH_START] = (esp + w->callee_params +
					  win->locals + win->saved_regs) &
					 0xffffffffu;
	ev->has_win = 1;
	ev->has_cfa = 0;
	if (win->has_program) {
		w->prog = (const char *)w->bp->text.data + win->prog_off;
		w->prog_len = win->prog_len;
	} else if (win->allocates_bp) {
		w->prog = FPO_BP;
		w->prog_len = sizeof(FPO_BP) - 1;
	} else {
		w->prog = FPO_NOBP;
		w->prog_len = sizeof(FPO_NOBP) - 1;
	}
	return 0;
}

/* STACK WIN, after the program: the registers it assigned. */
static uwi_noinline int win_finish(struct uw_bp_work *w)
{
	struct uw_bp_eval *ev = &w->ev;
	unsigned int i;
	int reg;

	if (uw_bp_eval_var(ev, "$eip", 4, &w->ra) ||
	    uw_bp_eval_var(ev, "$esp", 4, &w->cfa))
		return UW_EBADDATA;	/* the program must give both */
	carry(w);
	for (i = 0; i < ev->nvars; i++) {
		reg = uw_bp_reg(UW_ARCH_X86, ev->var[i], ev->var_len[i]);
		if (reg >= 0)
			uw_reg_set(w->caller, (unsigned int)reg,
				   ev->var_val[i]);
	}
	w->flags |= UW_BP_F_WIN;
	return UWI_STEPPED;
}

static uwi_noinline int win_unwind(struct uw_bp_work *w)
{
	struct uw_bp_eval *ev = &w->ev;
	int err = win_setup(w);

	if (err)
		return err;
	ev->win[UW_BP_RA_SEARCH_START] = ev->win[UW_BP_RA_SEARCH] =
		ra_search(ev, ev->win[UW_BP_RA_SEARCH_START]);
	err = uwi_bp_run(ev, w->prog, w->prog_len, false);
	if (err)
		return err;
	return win_finish(w);
}

/*
 * Find the records for w->pc and run them; have_cfi: w->cfi holds the
 * STACK CFI records for it already (the walker's cache).  UWI_STEPPED,
 * UWI_OUTERMOST (.ra: .undef), UW_ENOENT (no record, or no .cfa or .ra
 * rule in force) or another error.
 */
static uwi_noinline int unwind(struct uw_bp_work *w, bool have_cfi)
{
	int err;

	w->flags = 0;
	w->params = 0;
	w->cfi_found = 0;
	if (!uwi_arch_get(w->ev.cfg->arch) || w->ev.cfg->arch != w->bp->arch)
		return UW_EARCH;
	if (!have_cfi) {
		if (w->bp->arch == UW_ARCH_X86) {
			err = uw_bp_find_win(w->bp, w->pc, &w->win);
			if (!err)
				return win_unwind(w);
			if (err != UW_ENOENT)
				return err;
		}
		err = uw_bp_find_cfi(w->bp, w->pc, &w->cfi);
		if (err)
			return err;
		w->cfi_found = 1;
	}
	return cfi_unwind(w);
}

int uw_bp_unwind(const struct uw_bp *bp, uint64_t pc,
		 const struct uw_walk_cfg *cfg, struct uw_bp_work *w,
		 const struct uw_regs *callee, struct uw_regs *caller)
{
	int ret;

	w->bp = bp;
	w->callee = w->ev.regs = callee;
	w->caller = caller;
	w->ev.cfg = cfg;
	w->pc = pc;
	ret = unwind(w, false);
	if (ret == UWI_STEPPED)
		return UW_BP_CALLER;
	return ret == UWI_OUTERMOST ? UW_BP_OUTERMOST : ret;
}

/* The walker's cursor takes the caller the rules gave. */
static uwi_noinline int bp_done(struct uw_cursor *cur,
				const struct uw_arch_info *ai)
{
	struct uwi_state *s = uwi_state(cur);
	const struct uw_bp_work *w = &s->scratch.bp;

	uwi_regs_copy(&cur->regs, &w->out);
	cur->cfa = w->cfa;
	s->step.ra_in_reg = w->flags & UW_BP_F_RA_IN_REG;
	/* For the caller's step: .cbCalleeParams. */
	s->step.bp_params = w->params;
	s->step.bp_depth = cur->depth + 1;
	if (!(cur->regs.valid & ((uint64_t)1 << ai->sp)) ||
	    !(cur->regs.valid & ((uint64_t)1 << ai->pc)))
		return UW_EREG;
	return UWI_STEPPED;
}

/*
 * The cache's part: the offsets of the STACK CFI records (the INIT line,
 * the end of the last delta that applies), which spare the search; the
 * rules are parsed and run again each time.  Taken from the cache only
 * in order and inside the text (which keeps the parse bounded: see
 * collect()).  STACK WIN records (x86) are not cached: a record is 60
 * bytes of fields, its program runs anyway, and its .raSearch reads
 * the stack.
 */
static bool bp_cached(struct uw_cursor *cur, struct uw_bp_work *w)
{
	const struct uw_cache_entry *h = uwi_cache_hit(cur, UW_SRC_BREAKPAD);

	if (!h || h->u.w[0] >= h->u.w[1] || h->u.w[1] > w->bp->text.size)
		return false;
	w->cfi.init_off = h->u.w[0];
	w->cfi.end_off = h->u.w[1];
	return true;
}

static void bp_fill(struct uw_cursor *cur, const struct uw_bp_work *w)
{
	struct uw_cache_entry *f = uwi_cache_fill(cur);

	if (!f || !w->cfi_found || w->cfi.end_off > 0xffffffffu)
		return;
	f->u.w[0] = (uint32_t)w->cfi.init_off;
	f->u.w[1] = (uint32_t)w->cfi.end_off;
	uwi_cache_tag(cur, f, UW_SRC_BREAKPAD, 0);
}

int uwi_bp_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uwi_arch *a, const struct uw_bp *bp, uint64_t pc)
{
	struct uwi_state *s = uwi_state(cur);
	struct uw_bp_work *w = &s->scratch.bp;
	int ret;

	/* The callee's .cbParams, if Breakpad's STACK WIN unwound it. */
	w->callee_params = cur->depth && s->step.bp_depth == cur->depth ?
			   s->step.bp_params : 0;
	w->bp = bp;
	w->callee = w->ev.regs = &cur->regs;
	w->caller = &w->out;
	w->ev.cfg = cfg;
	w->pc = pc;
	ret = unwind(w, bp_cached(cur, w));
	bp_fill(cur, w);
	if (ret == UW_ENOENT)
		return UWI_NEXT;
	if (ret != UWI_STEPPED)
		return ret;	/* UWI_OUTERMOST, or an error */
	return bp_done(cur, &a->info);
}
