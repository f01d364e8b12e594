// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker: step a register set from a frame to its caller, phase by
 * phase in the order the architecture table gives (see walk.h): an
 * exception boundary, the tables of the frame's module (format by
 * format, lib/formats.h), a signal frame, the frame pointer; then the
 * commit.
 *
 * Safety rules every step obeys: program memory is read only through the
 * caller's accessor; a caller's stack pointer must lie above the callee's
 * (equal only when the return address came from a register, as in an
 * AArch64 leaf), and a step that changes neither the pc nor the stack
 * pointer is no progress; register-based rules are trusted only where
 * registers are really known (the first frame, or a frame restored from
 * a signal context); the number of steps is bounded by the caller's
 * frame array and max_depth.
 */
#include <uwind/cortexm.h>
#include "span.h"
#include "walk.h"

int uwi_read_word(const struct uw_walk_cfg *cfg, unsigned int size,
		  uint64_t addr, uint64_t *v)
{
	uint8_t buf[8];

	if (size > sizeof(buf) || !cfg->mem.read)
		return UW_EINVAL;
	if (cfg->stack_hi &&
	    (addr < cfg->stack_lo || addr > cfg->stack_hi - size ||
	     cfg->stack_hi < size))
		return UW_ESTACK;
	if (cfg->mem.read(cfg->mem.ctx, addr, buf, size))
		return UW_EREAD;
	*v = uwi_load(buf, size, cfg->big_endian);
	return 0;
}

/* Index of the module whose text holds pc, or UW_NO_MODULE. */
static uint16_t find_module(const struct uw_walk_cfg *cfg, uint64_t pc)
{
	size_t lo = 0, hi = cfg->nmods, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pc < cfg->mods[mid].start)
			hi = mid;
		else if (pc >= cfg->mods[mid].end)
			lo = mid + 1;
		else
			return mid < UW_NO_MODULE ? (uint16_t)mid : UW_NO_MODULE;
	}
	return UW_NO_MODULE;
}

/*
 * Value of a saved register under rule r: 0 with *v set, RULE_SAME when
 * the rule says "unchanged", or an error.
 */
enum { RULE_SAME = 1 };

static int rule_value(const struct uw_walk_cfg *cfg, const struct uw_regs *regs,
		      unsigned int size, const struct uw_rule *r, uint64_t cfa,
		      uint64_t *v)
{
	uint64_t base, addr;
	int err;

	switch (r->kind) {
	case UW_RULE_SAME:
		return RULE_SAME;
	case UW_RULE_CFA_OFF:
		err = uwi_add_off(cfa, r->off, &addr);
		return err ? err : uwi_read_word(cfg, size, addr, v);
	case UW_RULE_REG:
		return uw_reg_get(regs, r->reg, v) ? 0 : UW_EREG;
	case UW_RULE_REG_OFF:
		if (!uw_reg_get(regs, r->reg, &base))
			return UW_EREG;
		return uwi_add_off(base, r->off, v);
	case UW_RULE_REG_DEREF:
		if (!uw_reg_get(regs, r->reg, &base))
			return UW_EREG;
		err = uwi_add_off(base, r->off, &addr);
		return err ? err : uwi_read_word(cfg, size, addr, v);
	default:
		return UW_EBADDATA;
	}
}

static int stop_for(int err)
{
	switch (err) {
	case UW_EREAD:
	case UW_ESTACK:
		return UW_STOP_READ_FAULT;
	case UW_ENOPROGRESS:
	case UW_EALIGN:
		return UW_STOP_NO_PROGRESS;
	case UW_EDEPTH:
		return UW_STOP_DEPTH;
	case UW_ENOENT:
	case UW_EREG:
	case UW_EARCH:
	case UW_EREFUSE:	/* the table says: no unwind info here */
		return UW_STOP_NO_INFO;
	default:
		return UW_STOP_BAD_DATA;
	}
}

/*
 * The stop reason for err in the step just tried.  A frame pointer that
 * gives a misaligned or non-rising frame, where no table had a row, is
 * no usable frame pointer: the walk has run out of unwind information
 * (typically past main, into code built without either).  A table whose
 * rule does that is another matter: no progress.
 */
static int stop_kind(const struct uw_cursor *cur, int err)
{
	if (cur->source == UW_SRC_FP &&
	    (err == UW_ENOPROGRESS || err == UW_EALIGN || err == UW_EOVERFLOW))
		return UW_STOP_NO_INFO;
	return stop_for(err);
}

/*
 * Install the caller: pc, sp and fp known, every other register unknown
 * (a table row says nothing about them).
 */
static void set_caller(struct uw_cursor *cur, const struct uw_arch_info *ai,
		       uint64_t pc, uint64_t sp, uint64_t fp, bool fp_known)
{
	cur->regs.valid = 0;
	uw_reg_set(&cur->regs, ai->pc, pc);
	uw_reg_set(&cur->regs, ai->sp, sp);
	if (fp_known)
		uw_reg_set(&cur->regs, ai->fp, fp);
}

int uwi_apply_row(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		  const struct uwi_arch *a, const struct uw_row *row)
{
	const struct uw_arch_info *ai = &a->info;
	uint64_t cfa, ra, fp = 0, sp;
	bool fp_known;
	int ret;

	if ((row->flags & UW_ROW_OUTERMOST) || row->ra.kind == UW_RULE_UNDEF)
		return UWI_OUTERMOST;
	if (row->cfa.kind != UW_RULE_REG_OFF &&
	    row->cfa.kind != UW_RULE_REG_DEREF)
		return UW_EBADDATA;
	ret = rule_value(cfg, &cur->regs, ai->ptr_size, &row->cfa, 0, &cfa);
	if (ret)
		return ret;
	ret = rule_value(cfg, &cur->regs, ai->ptr_size, &row->ra, cfa, &ra);
	if (ret == RULE_SAME)
		ret = uw_reg_get(&cur->regs, ai->ra, &ra) ? 0 : UW_EREG;
	if (ret)
		return ret;
	if ((row->flags & UW_ROW_RA_MANGLED) && cfg->arch == UW_ARCH_AARCH64)
		ra &= ~cfg->pac_mask;
	ret = rule_value(cfg, &cur->regs, ai->ptr_size, &row->fp, cfa, &fp);
	if (ret < 0)
		return ret;
	fp_known = ret == 0 || uw_reg_get(&cur->regs, ai->fp, &fp);
	ret = uwi_add_off(cfa, a->sp_from_cfa, &sp);
	if (ret)
		return ret;
	cur->step.ra_in_reg = row->ra.kind == UW_RULE_REG ||
			      row->ra.kind == UW_RULE_SAME;
	cur->cfa = cfa;
	set_caller(cur, ai, ra, sp, fp, fp_known);
	return UWI_STEPPED;
}

/* Frame records: [fp] = caller's fp, [fp + word] = return address. */
static int fp_pair_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uw_arch_info *ai)
{
	unsigned int w = ai->ptr_size;
	uint64_t fp, ra, caller_fp;
	int err;

	if (!uw_reg_get(&cur->regs, ai->fp, &fp))
		return UW_EREG;
	if (fp == 0)
		return UWI_CHAIN_END;
	if (fp & (w - 1))
		return UW_EALIGN;
	if (fp > ~(uint64_t)0 - 2 * w)
		return UW_EOVERFLOW;
	err = uwi_read_word(cfg, w, fp, &caller_fp);
	err = err ? err : uwi_read_word(cfg, w, fp + w, &ra);
	if (err)
		return err;
	cur->cfa = fp + 2 * w;
	set_caller(cur, ai, ra, cur->cfa, caller_fp, true);
	return UWI_STEPPED;
}

/* ---- the phases ---- */

/* Cortex-M: a handler "returned" to an EXC_RETURN value. */
static int phase_excframe(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	int ret;

	if (!UW_HAS_CORTEXM || !(cfg->flags & UW_WALK_CORTEX_M) ||
	    !uw_cortexm_is_exc_return(cur->step.pc))
		return UWI_NEXT;
	cur->source = UW_SRC_EXCFRAME;
	ret = uwi_cortexm_step(cur, cfg);
	if (ret == UWI_RESTORED)
		cur->flags = UW_FRAME_SIGNAL;
	return ret;
}

/*
 * A Linux signal frame.  Never on Cortex-M: M-profile has no Linux
 * signals, and probing code there would read firmware memory for no
 * reason.
 */
static int phase_sigframe(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	int ret;

	if (!UW_HAS_SIGFRAME ||
	    (cfg->flags & (UW_WALK_NO_SIGFRAME | UW_WALK_CORTEX_M)))
		return UWI_NEXT;
	ret = uwi_sigframe_step(cur, cfg);
	if (ret == UWI_RESTORED) {
		cur->source = UW_SRC_SIGFRAME;
		cur->flags = UW_FRAME_SIGNAL;
	}
	return ret;
}

/*
 * The tables of the frame's module (found once, by the previous step's
 * commit or uw_cursor_init), format by format.
 */
static int phase_tables(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uwi_arch *a)
{
	const struct uw_module *mod;
	uint64_t pc;
	int ret = UWI_NEXT;

	if (cur->module >= cfg->nmods)
		return UWI_NEXT;
	mod = &cfg->mods[cur->module];
	pc = cur->step.lookup - mod->bias;
#define UWI_TRY_FORMAT(SRC, name, on, arches)				\
	if ((on) && ret == UWI_NEXT && mod->name &&			\
	    ((arches) & UWI_ARCH_BIT(cfg->arch))) {			\
		cur->source = UW_SRC_##SRC;				\
		ret = uwi_##name##_step(cur, cfg, a, mod->name, pc);		\
	}
	UWI_FORMATS(UWI_TRY_FORMAT)
#undef UWI_TRY_FORMAT
	return ret;
}

static int phase_fp(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a)
{
	if (cfg->flags & UW_WALK_NO_FP)
		return UWI_NEXT;
	cur->source = UW_SRC_FP;
	switch (a->fp_kind) {
	case UWI_FP_PAIR:
		return fp_pair_step(cur, cfg, &a->info);
	case UWI_FP_ARM:
		return UW_HAS_ARM ? uwi_arm_fp_step(cur, cfg) : UW_EARCH;
	default:
		return UW_EARCH;
	}
}

static int run_phase(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		     const struct uwi_arch *a, unsigned int phase)
{
	switch (phase) {
	case UWI_PHASE_EXCFRAME:
		return phase_excframe(cur, cfg);
	case UWI_PHASE_SIGFRAME:
		return phase_sigframe(cur, cfg);
	case UWI_PHASE_TABLES:
		return phase_tables(cur, cfg, a);
	case UWI_PHASE_FP:
		return phase_fp(cur, cfg, a);
	default:
		return UWI_NEXT;
	}
}

int uw_cursor_init(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_regs *regs)
{
	const struct uwi_arch *a;
	uint64_t pc, sp;

	if (!cur || !cfg || !regs)
		return UW_EINVAL;
	a = uwi_arch_get(cfg->arch);
	if (!a)
		return UW_EARCH;
	if (!uw_reg_get(regs, a->info.pc, &pc) ||
	    !uw_reg_get(regs, a->info.sp, &sp))
		return UW_EREG;
	uwi_regs_copy(&cur->regs, regs);
	cur->cfa = 0;
	cur->depth = 0;
	cur->flags = 0;
	cur->source = UW_SRC_NONE;
	cur->stop = UW_STOP_NONE;
	cur->cm_thread = 0;
	cur->step.bp_depth = 0;
	cur->module = find_module(cfg, uwi_code_addr(a, pc));
	return 0;
}

static int end_walk(struct uw_cursor *cur, int stop, int ret)
{
	cur->stop = (uint8_t)stop;
	return ret;
}

/*
 * Begin a step: the frame's pc and sp, and the address its tables are
 * searched for: the pc itself in the first frame and in one interrupted
 * by a signal or exception, else pc - 1, inside the call rather than
 * after it (a call may be the last instruction of a function).
 */
static int step_begin(struct uw_cursor *cur, const struct uwi_arch *a)
{
	struct uwi_step *st = &cur->step;
	bool exact;

	if (!uw_reg_get(&cur->regs, a->info.pc, &st->pc) ||
	    !uw_reg_get(&cur->regs, a->info.sp, &st->sp))
		return UW_EREG;
	exact = cur->depth == 0 || (cur->flags & UW_FRAME_SIGNAL);
	cur->flags = 0;
	cur->source = UW_SRC_NONE;
	st->ra_in_reg = false;
	st->lookup = uwi_code_addr(a, st->pc);
	if (!exact && st->lookup)
		st->lookup--;
	return 0;
}

/*
 * Commit the outcome of the phases: end the walk, or check that the
 * caller the cursor now holds is progress, count it and find its module.
 */
static int commit(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		  const struct uwi_arch *a, int ret)
{
	const struct uwi_step *st = &cur->step;
	uint64_t pc, sp, lookup;

	switch (ret) {
	case UWI_STEPPED:
	case UWI_RESTORED:
		break;
	case UWI_NEXT:
		return end_walk(cur, UW_STOP_NO_INFO, UW_ENOENT);
	case UWI_OUTERMOST:
		return end_walk(cur, UW_STOP_OUTERMOST, UW_STEP_END);
	case UWI_CHAIN_END:
		return end_walk(cur, UW_STOP_END, UW_STEP_END);
	default:
		return end_walk(cur, stop_kind(cur, ret), ret);
	}
	if (!uw_reg_get(&cur->regs, a->info.pc, &pc) ||
	    !uw_reg_get(&cur->regs, a->info.sp, &sp))
		return end_walk(cur, UW_STOP_NO_INFO, UW_EREG);
	/*
	 * A call's caller lies above it.  A frame restored from a signal
	 * or exception context may be on another stack: no such check.
	 */
	if (ret == UWI_STEPPED) {
		if (sp < st->sp || (sp == st->sp && !st->ra_in_reg))
			return end_walk(cur, stop_kind(cur, UW_ENOPROGRESS),
					UW_ENOPROGRESS);
		if (sp & (a->info.ptr_size - 1))
			return end_walk(cur, stop_kind(cur, UW_EALIGN),
					UW_EALIGN);
	}
	/* The same pc on the same stack would be the same frame again. */
	if (pc == st->pc && sp == st->sp)
		return end_walk(cur, stop_kind(cur, UW_ENOPROGRESS),
				UW_ENOPROGRESS);
	cur->depth++;
	if (pc == 0)
		return end_walk(cur, UW_STOP_END, UW_STEP_END);
	lookup = uwi_code_addr(a, pc);
	if (!(cur->flags & UW_FRAME_SIGNAL) && lookup)
		lookup--;
	cur->module = find_module(cfg, lookup);
	return UW_STEP_CALLER;
}

int uw_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	const struct uwi_arch *a;
	unsigned int i;
	int ret;

	if (cur->stop != UW_STOP_NONE)
		return UW_STEP_END;
	a = uwi_arch_get(cfg->arch);
	if (!a)
		return end_walk(cur, UW_STOP_BAD_DATA, UW_EARCH);
	if (cfg->max_depth && cur->depth + 1 >= cfg->max_depth)
		return end_walk(cur, UW_STOP_DEPTH, UW_EDEPTH);
	ret = step_begin(cur, a);
	if (ret)
		return end_walk(cur, UW_STOP_NO_INFO, ret);
	for (i = 0; ret == UWI_NEXT && i < UWI_NPHASES; i++)
		ret = run_phase(cur, cfg, a, a->phases[i]);
	return commit(cur, cfg, a, ret);
}

static void record(struct uw_frame *f, const struct uw_cursor *cur,
		   const struct uwi_arch *a)
{
	uint64_t pc = cur->regs.r[a->info.pc];

	f->pc = uwi_code_addr(a, pc);
	f->sp = cur->regs.r[a->info.sp];
	f->cfa = 0;
	f->source = UW_SRC_NONE;
	f->flags = cur->flags;
	if (a->thumb && (pc & 1))
		f->flags |= UW_FRAME_THUMB;
	f->module = cur->module;
}

size_t uw_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
	       const struct uw_regs *regs, struct uw_frame *frames, size_t max,
	       struct uw_walk_result *res)
{
	const struct uwi_arch *a;
	size_t n = 0;
	int ret;

	res->nframes = 0;
	res->stop = UW_STOP_NONE;
	res->err = 0;
	ret = uw_cursor_init(cur, cfg, regs);
	if (ret || !frames || max == 0) {
		res->stop = ret ? UW_STOP_NO_INFO : UW_STOP_DEPTH;
		res->err = ret ? ret : UW_EDEPTH;
		return 0;
	}
	a = uwi_arch_get(cfg->arch);	/* valid: uw_cursor_init checked */
	record(&frames[n++], cur, a);
	for (;;) {
		if (n >= max) {
			res->stop = UW_STOP_DEPTH;
			res->err = UW_EDEPTH;
			break;
		}
		ret = uw_step(cur, cfg);
		/* The rule just used (or tried) belongs to the previous frame. */
		frames[n - 1].source = ret > 0 ? cur->source : UW_SRC_NONE;
		frames[n - 1].cfa = ret > 0 ? cur->cfa : 0;
		if (ret <= 0) {
			res->stop = cur->stop;
			res->err = ret;
			break;
		}
		record(&frames[n++], cur, a);
	}
	res->nframes = n;
	return n;
}
