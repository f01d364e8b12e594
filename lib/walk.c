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

/* Whether the walk's stack bounds, if it has any, allow len bytes at addr. */
static uwi_always_inline bool in_stack(const struct uw_walk_cfg *cfg,
				       uint64_t addr, unsigned int len)
{
	return !cfg->stack_hi ||
	       (addr >= cfg->stack_lo && cfg->stack_hi >= len &&
		addr <= cfg->stack_hi - len);
}

/*
 * n (1 or 2) consecutive size-byte words of program memory at addr, in
 * the program's byte order, with one call of the accessor (into buf), or
 * in place under UW_WALK_DIRECT_STACK.
 */
static uwi_always_inline int read_words(const struct uw_walk_cfg *cfg,
					unsigned int size, uint64_t addr,
					unsigned int n, uint64_t *v,
					uint8_t *buf)
{
	const uint8_t *p = buf;

	if (size > 8)
		return UW_EINVAL;
	if (cfg->flags & UW_WALK_DIRECT_STACK) {
		/* The caller vouched for [stack_lo, stack_hi). */
		p = uwi_direct(cfg, addr, n * size);
		if (!p)
			return UW_ESTACK;
	} else {
		if (!cfg->mem.read)
			return UW_EINVAL;
		if (uwi_unlikely(!in_stack(cfg, addr, n * size)))
			return UW_ESTACK;
		if (cfg->mem.read(cfg->mem.ctx, addr, buf, n * size))
			return UW_EREAD;
	}
	v[0] = uwi_load(p, size, cfg->big_endian);
	if (n > 1)
		v[1] = uwi_load(p + size, size, cfg->big_endian);
	return 0;
}

int uwi_read_word(const struct uw_walk_cfg *cfg, unsigned int size,
		  uint64_t addr, uint64_t *v)
{
	uint8_t buf[8];

	return read_words(cfg, size, addr, 1, v, buf);
}

/* Index of the module whose text holds pc, or UW_NO_MODULE. */
static uint16_t find_module_in(const struct uw_module *mods, size_t nmods,
			       uint64_t pc)
{
	size_t lo = 0, hi = nmods, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pc < mods[mid].start)
			hi = mid;
		else if (pc >= mods[mid].end)
			lo = mid + 1;
		else
			return mid < UW_NO_MODULE ? (uint16_t)mid : UW_NO_MODULE;
	}
	return UW_NO_MODULE;
}

static uint16_t find_module(const struct uw_walk_cfg *cfg, uint64_t pc)
{
	return find_module_in(cfg->mods, cfg->nmods, pc);
}

/*
 * The same, trying the module of the frame just unwound first: a caller
 * is mostly in its callee's module.  Modules do not overlap, so the
 * answer is the search's.
 */
static uwi_always_inline uint16_t next_module(const struct uw_walk_cfg *cfg,
					      uint16_t last, uint64_t pc)
{
	if (last < cfg->nmods && pc >= cfg->mods[last].start &&
	    pc < cfg->mods[last].end)
		return last;
	return find_module(cfg, pc);
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

/*
 * The return address and frame pointer under rules ra and fp, both
 * saved at the CFA side by side (every x86-64 and AArch64 frame record):
 * one read of the pair.  PAIR_NO when they are not.
 */
enum { PAIR_NO = 1 };

static uwi_always_inline int rule_pair(const struct uw_walk_cfg *cfg,
				       unsigned int w, const struct uw_rule *ra,
				       const struct uw_rule *fp, uint64_t cfa,
				       uint64_t *rv, uint64_t *fv, uint8_t *buf)
{
	int64_t lo = ra->off < fp->off ? ra->off : fp->off;
	int64_t d = (int64_t)ra->off - fp->off;
	uint64_t addr, v[2];
	int err;

	if (ra->kind != UW_RULE_CFA_OFF || fp->kind != UW_RULE_CFA_OFF ||
	    (d != (int64_t)w && d != -(int64_t)w))
		return PAIR_NO;
	err = uwi_add_off(cfa, lo, &addr);
	if (err)
		return err;
	/* The second word's address must not wrap either. */
	if (addr > ~(uint64_t)0 - w)
		return UW_EOVERFLOW;
	err = read_words(cfg, w, addr, 2, v, buf);
	if (err)
		return err;
	*rv = d > 0 ? v[1] : v[0];
	*fv = d > 0 ? v[0] : v[1];
	return 0;
}

/*
 * Apply the rules of a row (a table's, or the cache's): UWI_STEPPED,
 * UWI_OUTERMOST or an error.  Every field is checked as it is used: a
 * kind outside the enum is UW_EBADDATA, a register outside the set or
 * unknown UW_EREG (uw_reg_get).
 */
static uwi_always_inline int apply_rules(struct uw_cursor *cur,
					 const struct uw_walk_cfg *cfg,
					 const struct uwi_arch *a,
					 const struct uw_rule *rc,
					 const struct uw_rule *rr,
					 const struct uw_rule *rf,
					 uint32_t flags)
{
	const struct uw_arch_info *ai = &a->info;
	unsigned int w = ai->ptr_size;
	uint64_t cfa, ra, fp = 0, sp;
	bool fp_known;
	int ret;

	if ((flags & UW_ROW_OUTERMOST) || rr->kind == UW_RULE_UNDEF)
		return UWI_OUTERMOST;
	if (rc->kind != UW_RULE_REG_OFF && rc->kind != UW_RULE_REG_DEREF)
		return UW_EBADDATA;
	ret = rule_value(cfg, &cur->regs, w, rc, 0, &cfa);
	if (ret)
		return ret;
	ret = rule_pair(cfg, w, rr, rf, cfa, &ra, &fp, cur->scratch.fast.buf);
	if (ret == PAIR_NO) {
		ret = rule_value(cfg, &cur->regs, w, rr, cfa, &ra);
		if (ret == RULE_SAME)
			ret = uw_reg_get(&cur->regs, ai->ra, &ra) ? 0 :
							       UW_EREG;
		if (ret)
			return ret;
		ret = rule_value(cfg, &cur->regs, w, rf, cfa, &fp);
		if (ret < 0)
			return ret;
		fp_known = ret == 0 || uw_reg_get(&cur->regs, ai->fp, &fp);
	} else if (ret) {
		return ret;
	} else {
		fp_known = true;
	}
	if ((flags & UW_ROW_RA_MANGLED) && cfg->arch == UW_ARCH_AARCH64)
		ra &= ~cfg->pac_mask;
	ret = uwi_add_off(cfa, a->sp_from_cfa, &sp);
	if (ret)
		return ret;
	cur->step.ra_in_reg = rr->kind == UW_RULE_REG ||
			      rr->kind == UW_RULE_SAME;
	cur->cfa = cfa;
	set_caller(cur, ai, ra, sp, fp, fp_known);
	return UWI_STEPPED;
}

int uwi_apply_row(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		  const struct uwi_arch *a, const struct uw_row *row)
{
	return apply_rules(cur, cfg, a, &row->cfa, &row->ra, &row->fp,
			   row->flags);
}

/*
 * Frame records: [fp] = caller's fp, [fp + word] = return address, read
 * with one call of the accessor.
 */
static int fp_pair_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uw_arch_info *ai)
{
	unsigned int w = ai->ptr_size;
	uint64_t fp, v[2];
	uint8_t buf[16];
	int err;

	if (!uw_reg_get(&cur->regs, ai->fp, &fp))
		return UW_EREG;
	if (fp == 0)
		return UWI_CHAIN_END;
	if (fp & (w - 1))
		return UW_EALIGN;
	if (fp > ~(uint64_t)0 - 2 * w)
		return UW_EOVERFLOW;
	err = read_words(cfg, w, fp, 2, v, buf);
	if (err)
		return err;
	/* AArch64 code built with pac-ret keeps a signed lr in its record. */
	if (cfg->arch == UW_ARCH_AARCH64)
		v[1] &= ~cfg->pac_mask;
	cur->cfa = fp + 2 * w;
	set_caller(cur, ai, v[1], cur->cfa, v[0], true);
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
 * reason.  A return address that the cache says has no table row and
 * no trampoline is not read again (UWI_CACHE_NO_SIGFRAME): the frames
 * the frame-pointer fallback takes would each pay for a read of their
 * code, the costliest read a kernel walk makes.
 */
static int phase_sigframe(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	struct uw_cache_entry *none = UW_HAS_CACHE ? cur->step.none : NULL;
	bool other = false;
	int ret;

	if (!UW_HAS_SIGFRAME ||
	    (cfg->flags & (UW_WALK_NO_SIGFRAME | UW_WALK_CORTEX_M)))
		return UWI_NEXT;
	/* The entry's pc is the lookup: pc - 1 for a return address. */
	if (none && cur->step.lookup + 1 != cur->step.pc)
		none = NULL;
	if (none && (none->flags & UWI_CACHE_NO_SIGFRAME))
		return UWI_NEXT;
	ret = uwi_sigframe_step(cur, cfg, &other);
	if (none && ret == UWI_NEXT && other)
		none->flags |= UWI_CACHE_NO_SIGFRAME;
	if (ret == UWI_RESTORED) {
		cur->source = UW_SRC_SIGFRAME;
		cur->flags = UW_FRAME_SIGNAL;
	}
	return ret;
}

/*
 * A cached row (SFrame), applied without the table: UWI_NEXT when the
 * entry is not a valid one for this module (looked up again then).  The
 * rules are checked as they are applied (apply_rules); the entry is also
 * refused unless the module still has an SFrame table on an SFrame
 * architecture.
 */
static uwi_always_inline int cached_row(struct uw_cursor *cur,
					const struct uw_walk_cfg *cfg,
					const struct uwi_arch *a,
					const struct uw_module *mod,
					const struct uw_cache_entry *e)
{
	if (!UW_HAS_SFRAME || !mod->sframe ||
	    !(UWI_ARCHES_SFRAME & UWI_ARCH_BIT(cfg->arch)))
		return UWI_NEXT;
	cur->source = UW_SRC_SFRAME;
	return apply_rules(cur, cfg, a, &e->u.rule[0], &e->u.rule[1],
			   &e->u.rule[2], e->flags);
}

/*
 * The cache's slot for this step: on a hit, the answer (a row, applied
 * here; "no table covers pc": UWI_NEXT) or PROBE_LOOKUP with the entry
 * for the format to take (cur->step.hit); on a miss, PROBE_LOOKUP and
 * the slot its answer goes to (cur->step.fill), emptied first.  Out of
 * line: its frame is not under the formats' lookups.
 */
enum { PROBE_LOOKUP = 16 };

static uwi_noinline int cache_probe(struct uw_cursor *cur,
				    const struct uw_walk_cfg *cfg,
				    const struct uwi_arch *a,
				    const struct uw_module *mod)
{
	struct uw_cache *c = cfg->cache;
	struct uw_cache_entry *e;
	uint64_t key = uwi_cache_key(mod);
	int ret;

	cur->step.key = key;
	e = uwi_cache_slot(c, cur->step.lookup);
	if (e->pc == cur->step.lookup && e->key == key) {
		c->hits++;
		if (e->src == UW_SRC_SFRAME) {
			ret = cached_row(cur, cfg, a, mod, e);
			if (ret != UWI_NEXT)
				return ret;
		} else if (e->src == UW_SRC_NONE) {
			cur->step.none = e;
			return UWI_NEXT;
		} else {
			cur->step.hit = e;
		}
		/* A format that refuses the entry looks pc up and fills it. */
		cur->step.fill = e;
		return PROBE_LOOKUP;
	}
	c->misses++;
	e->key = 0;
	cur->step.fill = e;
	return PROBE_LOOKUP;
}

/*
 * The tables of the frame's module (found once, by the previous step's
 * commit or uw_cursor_init), format by format; with a cache, the cache
 * first.
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
	cur->step.hit = NULL;
	cur->step.fill = NULL;
	if (UW_HAS_CACHE && cfg->cache && mod->cache_id) {
		ret = cache_probe(cur, cfg, a, mod);
		if (ret != PROBE_LOOKUP)
			return ret;
		ret = UWI_NEXT;
	}
	pc = cur->step.lookup - mod->bias;
#define UWI_TRY_FORMAT(SRC, name, on, arches)				\
	if ((on) && ret == UWI_NEXT && mod->name &&			\
	    ((arches) & UWI_ARCH_BIT(cfg->arch))) {			\
		cur->source = UW_SRC_##SRC;				\
		ret = uwi_##name##_step(cur, cfg, a, mod->name, pc);		\
	}
	UWI_FORMATS(UWI_TRY_FORMAT)
#undef UWI_TRY_FORMAT
	/* No table row here: remembered too, for the later phases. */
	if (UW_HAS_CACHE && ret == UWI_NEXT && cur->step.fill) {
		cur->step.none = cur->step.fill;
		uwi_cache_tag(cur, cur->step.none, UW_SRC_NONE, 0);
	}
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

/*
 * uw_cursor_init() but for the registers, which uw_walk() copies only
 * when its fast loop does not take the first frame from the caller's.
 * Out of line: uw_walk()'s frame lies under every step.
 */
static uwi_noinline int cursor_begin(struct uw_cursor *cur,
				     const struct uw_walk_cfg *cfg,
				     const struct uw_regs *regs)
{
	const struct uwi_arch *a;
	uint64_t pc, sp;

	if (!cur || !cfg || !regs)
		return UW_EINVAL;
	if ((cfg->flags & UW_WALK_DIRECT_STACK) && !uwi_direct_ok(cfg))
		return UW_EINVAL;
	a = uwi_arch_get(cfg->arch);
	if (!a)
		return UW_EARCH;
	if (!uw_reg_get(regs, a->info.pc, &pc) ||
	    !uw_reg_get(regs, a->info.sp, &sp))
		return UW_EREG;
	cur->cfa = 0;
	cur->depth = 0;
	cur->flags = 0;
	cur->source = UW_SRC_NONE;
	cur->stop = UW_STOP_NONE;
	cur->cm_thread = 0;
	cur->step.bp_depth = 0;
	cur->step.row_sf = NULL;
	cur->module = find_module(cfg, uwi_code_addr(a, pc));
	return 0;
}

int uw_cursor_init(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_regs *regs)
{
	int ret = cursor_begin(cur, cfg, regs);

	if (!ret)
		uwi_regs_copy(&cur->regs, regs);
	return ret;
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
	st->none = NULL;
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
	cur->module = next_module(cfg, cur->module, lookup);
	return UW_STEP_CALLER;
}

/*
 * The fast path: a frame whose module has an SFrame row of a common
 * shape for its pc (CFA = sp or fp + offset; the frame pointer and,
 * above it, the return address saved side by side at the CFA, or the
 * return address with the frame pointer unchanged or saved apart; see
 * uwi_fast_byte()), from the cache or, on a miss or without one, from
 * the table.  It does what the phases and the commit do with such a row
 * (apply_rules(), commit()), every check included; on anything else
 * (another shape, another format, no row) or anything that would end the
 * walk it stops before the frame, changing nothing of it, and the
 * general path takes the step from the start.  Only on architectures
 * whose caller's sp is the CFA (x86-64, AArch64).
 *
 * Addresses: the CFA and the pair's address are base plus two 32-bit
 * offsets, computed without overflow checks, so every base must be one
 * for which neither can wrap.  Reading through the accessor, the base
 * must lie in [2^32, 2^64 - 2^33).  Reading in place
 * (UW_WALK_DIRECT_STACK), the pair must lie within stack bounds that
 * themselves lie in that range: the sum of two 32-bit offsets cannot
 * bring a base that wrapped back into it, so the bounds check alone
 * suffices.  Any other base is left to the general path's
 * overflow-checked arithmetic.  The loop runs only with fp known
 * (fast_on()).
 *
 * State: the frame's registers are the loop's locals; what the loop
 * reads of the walk and of the frame's module is in the cursor (struct
 * uwi_fast), read in place, so that the loop's own frame stays small
 * under the lookup a miss makes.
 */
#define FAST_BASE_MIN	((uint64_t)1 << 32)
#define FAST_BASE_SPAN	(~(uint64_t)0 - ((uint64_t)3 << 32) + 1)

/*
 * uwi_cache_slot() for the loop: slot (hash >> 8) & mask is at byte
 * ((hash >> 4) & (mask << 4)) * 3 of the slots, one shift fewer.
 */
_Static_assert(sizeof(struct uw_cache_entry) == 48,
	       "fast_slot() scales by 48");

static uwi_always_inline struct uw_cache_entry *
fast_slot(const uint8_t *ents, uint64_t mask16, uint64_t pc)
{
	uint64_t off = (((uint32_t)pc * 0x9e3779b1u) >> 4) & mask16;

	return (struct uw_cache_entry *)(uintptr_t)(ents + off * 3);
}

/*
 * The module's part of the state, when the frame changes modules; false
 * for no module, or one without SFrame.  An uncached module (no cache,
 * or cache_id 0) gets the cursor's own entry, whose key (0) no module's
 * key matches here: every frame misses, and fast_fill() fills that entry
 * instead of a slot.
 */
static uwi_always_inline bool fast_module(struct uwi_fast *v,
					  struct uw_cursor *cur,
					  uint16_t module)
{
	const struct uw_walk_cfg *cfg = v->cfg;
	struct uw_cache *c = UW_HAS_CACHE ? cfg->cache : NULL;
	const struct uw_module *mod;

	v->module = module;
	v->mod = NULL;
	if (module >= cfg->nmods || !cfg->mods[module].sframe)
		return false;
	mod = &cfg->mods[module];
	v->mod = mod;
	v->mstart = mod->start;
	v->mlen = mod->end - mod->start;
	v->key = uwi_cache_key(mod);
	v->ents = (const uint8_t *)&cur->scratch.fast.e;
	v->mask16 = 0;
	if (c && mod->cache_id) {
		v->ents = (const uint8_t *)c->entries;
		v->mask16 = (uint64_t)c->mask << 4;
	} else {
		v->key |= 1;
	}
	return true;
}

/*
 * A cache miss: the table's row for the frame fr, which the loop looked
 * up into the cursor, put into the cache's slot e, counted.  Out of
 * line, and not under the lookup: neither's registers nor stack are the
 * loop's.
 */
static uwi_noinline const struct uw_cache_entry *
fast_fill(struct uw_cursor *cur, uint64_t lookup, struct uw_cache_entry *e,
	  struct uw_frame *fr)
{
	struct uwi_fast *v = &cur->scratch.fast.v;

	uwi_cache_row(e, &cur->scratch.fast.row, &v->a->info,
		      (uint8_t)v->cfg->arch);
	e->src = UW_SRC_SFRAME;
	v->cfg->cache->misses++;
	e->pc = lookup;
	e->key = uwi_cache_key(v->mod);
	v->fills++;
	v->fill_fr = fr;
	return e;
}

/*
 * Whether the fast path may run for this walk at all.  Not in a build
 * that favours size (firmware, -Os): it duplicates what the general step
 * does, and folds away.
 */
#ifdef __OPTIMIZE_SIZE__
#define FAST_PATH	0
#else
#define FAST_PATH	1
#endif

/*
 * Whether it has a copy for reading the stack in place.  Not in a
 * kernel: it never reads a user stack in place (the general path still
 * honours UW_WALK_DIRECT_STACK, were a kernel walk of its own stack to
 * ask for it).
 */
#ifdef __KERNEL__
#define FAST_DIRECT	0
#else
#define FAST_DIRECT	FAST_PATH
#endif

static uwi_always_inline bool fast_on(const struct uw_regs *regs,
				      const struct uw_walk_cfg *cfg,
				      const struct uwi_arch *a)
{
	/*
	 * fp too: the loop keeps it in a register, known (a frame whose fp
	 * is unknown, rare, takes the general step, which keeps it so).
	 */
	const uint64_t need = (uint64_t)1 << a->info.pc |
			      (uint64_t)1 << a->info.sp |
			      (uint64_t)1 << a->info.fp;

	return FAST_PATH && UW_HAS_SFRAME &&
	       a->phases[0] == UWI_PHASE_TABLES &&
	       a->info.ptr_size == 8 && a->sp_from_cfa == 0 &&
	       ((cfg->flags & UW_WALK_DIRECT_STACK) ? FAST_DIRECT :
		cfg->mem.read != NULL) &&
	       (regs->valid & need) == need;
}

/* This host's byte order, a constant the compiler folds. */
static uwi_always_inline bool host_be(void)
{
	const union {
		uint16_t u;
		uint8_t b[2];
	} probe = { 1 };

	return probe.b[0] == 0;
}

/*
 * The loop's view of the walk and of the cursor's frame's module; false
 * when the loop cannot take the frame at all.  direct: reading in place,
 * which needs stack bounds in [2^32, 2^64 - 2^33) (see above) and the
 * host's byte order (the words are plain loads).
 */
static uwi_always_inline bool fast_init(struct uwi_fast *v,
					struct uw_cursor *cur,
					const struct uw_walk_cfg *cfg,
					const struct uwi_arch *a, bool direct)
{
	if (direct) {
		if (!uwi_direct_ok(cfg) || cfg->big_endian != host_be() ||
		    cfg->stack_lo < FAST_BASE_MIN ||
		    cfg->stack_hi - FAST_BASE_MIN > FAST_BASE_SPAN ||
		    cfg->stack_hi - cfg->stack_lo < 16)
			return false;
		v->mem = uwi_direct(cfg, cfg->stack_lo, 16);
	} else {
		if (cfg->stack_hi &&
		    (cfg->stack_hi < 16 || cfg->stack_lo > cfg->stack_hi - 16))
			return false;
		v->read = cfg->mem.read;
		v->ctx = cfg->mem.ctx;
	}
	v->lo = 0;
	v->span = ~(uint64_t)0;
	if (cfg->stack_hi) {
		v->lo = cfg->stack_lo;
		v->span = cfg->stack_hi - 16 - cfg->stack_lo;
	}
	v->cfg = cfg;
	v->a = a;
	v->pac = cfg->arch == UW_ARCH_AARCH64 ? cfg->pac_mask : 0;
	v->fills = 0;
	v->fill_fr = NULL;
	v->want = UWI_FAST_ON | (uint8_t)cfg->arch;
	cur->scratch.fast.e.key = 0;
	cur->step.row_sf = NULL;
	return fast_module(v, cur, cur->module);
}

/*
 * The CFA of a fast shape, and whether it is progress: the caller (its
 * sp the CFA) lies above, aligned.  Through an accessor, a base from
 * which neither the CFA nor the pair's address can wrap (see above).
 */
static uwi_always_inline bool fast_cfa(uint8_t shape, uint64_t sp,
				       uint64_t fp, int64_t cfa_off,
				       bool direct, uint64_t *cfa)
{
	const uint64_t base = shape & UWI_SHAPE_FP ? fp : sp;

	if (!direct && base - FAST_BASE_MIN >= FAST_BASE_SPAN)
		return false;
	*cfa = base + cfa_off;
	return *cfa > sp && !(*cfa & 7);
}

/*
 * The frame record at lo + t, within [lo, hi - 16] (span is hi - 16 -
 * lo): the return address *ra and the caller's fp *fp; false when out of
 * bounds or unreadable.  fast_word(): one word of the stack at lo + t,
 * within [lo, hi - 8] (span is
 * hi - 16 - lo: a t below 8 wraps and fails, and the general path takes
 * such a frame), into *w; false when out of bounds or unreadable.
 */
static uwi_always_inline bool fast_pair(struct uw_cursor *cur,
					const struct uwi_fast *v, uint64_t t,
					bool direct, bool be, uint64_t *ra,
					uint64_t *fp)
{
	const uint8_t *p = cur->scratch.fast.buf;

	if (t > v->span)
		return false;
	if (direct)
		p = v->mem + (size_t)t;
	else if (v->read(v->ctx, t + v->lo, cur->scratch.fast.buf, 16))
		return false;
	*ra = uwi_load64(p + 8, be);
	*fp = uwi_load64(p, be);
	return true;
}

static uwi_always_inline bool fast_word(struct uw_cursor *cur,
					const struct uwi_fast *v, uint64_t t,
					bool direct, bool be, uint64_t *w)
{
	const uint8_t *p = cur->scratch.fast.buf;

	if (t - 8 > v->span)
		return false;
	if (direct)
		p = v->mem + (size_t)t;
	else if (v->read(v->ctx, t + v->lo, cur->scratch.fast.buf, 8))
		return false;
	*w = uwi_load64(p, be);
	return true;
}

/*
 * A frame of another shape than a plain frame record or a return
 * address alone (see uwi_fast_byte(): fp saved apart, or a signed return
 * address): its return address, PAC bits cleared, into v->ra and its
 * caller's fp into v->fp (the frame's on entry), from the CFA and
 * pair_off; false to leave the frame to the general path.  Out of line:
 * the loop's registers are better spent on the common shapes.
 */
static uwi_always_inline bool fast_other(struct uw_cursor *cur,
					 const struct uw_cache_entry *slot,
					 uint8_t shape, uint64_t cfa,
					 int64_t pair_off, bool direct)
{
	struct uwi_fast *v = &cur->scratch.fast.v;
	const bool be = direct ? host_be() : v->cfg->big_endian;
	const uint64_t t = cfa + pair_off - v->lo;
	int64_t off;

	if (shape & UWI_SHAPE_SAMEFP) {
		if (!fast_word(cur, v, t, direct, be, &v->ra))
			return false;
	} else if (shape & UWI_SHAPE_FPAPART) {
		/*
		 * fp's offset: the entry's, or without a cache (the cursor's
		 * own entry, never a hit) the row just looked up.
		 */
		off = slot == &cur->scratch.fast.e ?
		      cur->scratch.fast.row.fp.off : slot->u.rule[2].off;
		if (!fast_word(cur, v, t, direct, be, &v->ra) ||
		    !fast_word(cur, v, cfa + off - v->lo, direct, be, &v->fp))
			return false;
	} else if (!fast_pair(cur, v, t, direct, be, &v->ra, &v->fp)) {
		return false;
	}
	if (shape & UWI_SHAPE_PAC) {
		uwi_opaque(v->ra);
		v->ra &= ~v->pac;
	}
	return true;
}

static uwi_noinline bool fast_other_direct(struct uw_cursor *cur,
					   const struct uw_cache_entry *slot,
					   uint8_t shape, uint64_t cfa,
					   int64_t pair_off)
{
	return FAST_DIRECT && fast_other(cur, slot, shape, cfa, pair_off,
					 true);
}

static uwi_noinline bool fast_other_mem(struct uw_cursor *cur,
					const struct uw_cache_entry *slot,
					uint8_t shape, uint64_t cfa,
					int64_t pair_off)
{
	return fast_other(cur, slot, shape, cfa, pair_off, false);
}

/*
 * The cursor as the general path leaves it after frames steps by source
 * (the fast loop's, fp_loop()'s): the caller's sp is the CFA.
 */
static uwi_always_inline void fast_store(struct uw_cursor *cur,
					 const struct uwi_arch *a,
					 uint64_t pc, uint64_t sp, uint64_t fp,
					 uint16_t module, uint32_t frames,
					 uint8_t source)
{
	const struct uw_arch_info *ai = &a->info;

	cur->regs.valid = (uint64_t)1 << ai->pc | (uint64_t)1 << ai->sp |
			  (uint64_t)1 << ai->fp;
	cur->regs.r[ai->pc] = pc;
	cur->regs.r[ai->sp] = sp;
	cur->regs.r[ai->fp] = fp;
	cur->cfa = sp;
	cur->depth += frames;
	cur->module = module;
	cur->flags = 0;
	cur->source = source;
	cur->step.ra_in_reg = false;
}

/*
 * A frame the loop took: its pc and sp, and the frame before's CFA,
 * source, flags and module (known now that its pc was looked up; the
 * last frame's are written once the loop ends, the first frame's flags
 * put back): tag is those three as the four bytes they fill
 * (fast_tag()), one store.
 */
_Static_assert(__builtin_offsetof(struct uw_frame, flags) ==
	       __builtin_offsetof(struct uw_frame, source) + 1 &&
	       __builtin_offsetof(struct uw_frame, module) ==
	       __builtin_offsetof(struct uw_frame, source) + 2,
	       "fast_record(): source, flags, module in four bytes");

static uwi_always_inline uint32_t fast_tag(uint16_t module)
{
	const union {
		struct {
			uint8_t source, flags;
			uint16_t module;
		} f;
		uint32_t u;
	} tag = { { UW_SRC_SFRAME, 0, module } };

	return tag.u;
}

static uwi_always_inline void fast_record(struct uw_frame *fr, uint32_t tag,
					  uint64_t pc, uint64_t cfa)
{
	fr[-1].cfa = cfa;
	__builtin_memcpy(&fr[-1].source, &tag, sizeof(tag));
	fr->pc = pc;
	fr->sp = cfa;
}

/*
 * The loop: callers of the cursor's frame, whose registers are regs (the
 * cursor's, or uw_walk()'s first), while fast frames last and fr is
 * below fend, each recorded into *fr++ as record() and uw_walk() would
 * when rec (then fr[-1] is the frame the cursor holds).  Returns the
 * frames taken; the cursor holds the last one.  direct, cached and rec
 * are constants at each call: one copy of the loop per mode.  Without
 * cached, the walk has no cache and no slot is looked at: every frame
 * is looked up, into the cursor's own entry.
 */
static uwi_always_inline size_t fast_run(struct uw_cursor *cur,
					 const struct uw_walk_cfg *cfg,
					 const struct uwi_arch *a,
					 const struct uw_regs *regs,
					 struct uw_frame *fr,
					 struct uw_frame *fend, bool direct,
					 bool cached, bool rec)
{
	const bool be = direct ? host_be() : cfg->big_endian;
	struct uwi_fast *v = &cur->scratch.fast.v;
	struct uw_cache_entry *slot;
	const struct uw_cache_entry *e;
	struct uw_row *row;
	uint64_t pc, sp, fp, lookup, cfa, ra, nfp, key, mask16;
	const uint8_t *ents;
	unsigned int want;
	uint8_t fast, shape;
	int32_t off;
	int64_t cfa_off, pair_off;
	uint16_t module;
	uint32_t tag;
	size_t taken;
	uint8_t flags0;

	if (fr >= fend || !fast_init(v, cur, cfg, a, direct))
		return 0;
	pc = regs->r[a->info.pc];
	sp = regs->r[a->info.sp];
	fp = regs->r[a->info.fp];
	lookup = pc;
	if (cur->depth && !(cur->flags & UW_FRAME_SIGNAL) && pc)
		lookup--;
	/*
	 * From here on cfg, a and the first frame are read from v: none
	 * holds a register through the loop, which needs every one.
	 */
	v->fr0 = fr;
	flags0 = rec ? fr[-1].flags : 0;
	/* The module's part, and the walk's want, in registers. */
	ents = v->ents;
	mask16 = v->mask16;
	key = v->key;
	want = v->want;
	tag = fast_tag(v->module);
	for (;;) {
		slot = cached ? fast_slot(ents, mask16, lookup) :
				&cur->scratch.fast.e;
		if (cached && uwi_likely(slot->pc == lookup &&
					 slot->key == key)) {
			fast = slot->fast;
			shape = slot->shape;
			cfa_off = slot->u.rule[0].off;
			pair_off = slot->pair_off;
		} else {
			/*
			 * Is the frame in the module?  A hit needs no check:
			 * its entry was made for a pc of the module's range
			 * (a miss checks before it asks the module's table),
			 * and the range it had then is the range it has while
			 * its cache_gen stays.
			 */
			if (uwi_unlikely(lookup - v->mstart >= v->mlen)) {
				if (!fast_module(v, cur,
						 find_module_in(v->cfg->mods,
								v->cfg->nmods,
								lookup)))
					break;
				ents = v->ents;
				mask16 = v->mask16;
				key = v->key;
				tag = fast_tag(v->module);
				continue;
			}
			row = &cur->scratch.fast.row;
			if (uw_sframe_find(v->mod->sframe, lookup - v->mod->bias,
					   row))
				break;
			if (slot != &cur->scratch.fast.e) {
				e = fast_fill(cur, lookup, slot, fr);
				fast = e->fast;
				shape = e->shape;
				pair_off = e->pair_off;
			} else {
				/* Uncached: only what the loop reads. */
				fast = uwi_fast_byte(row, &v->a->info,
						     (uint8_t)v->cfg->arch,
						     &shape, &off);
				pair_off = off;
				v->fills++;
				v->fill_fr = fr;
			}
			cfa_off = row->cfa.off;
			/* Read again rather than kept across the calls. */
			ents = v->ents;
			mask16 = v->mask16;
			key = v->key;
			want = v->want;
		}
		/*
		 * Only a fast entry of this architecture, and only for what it
		 * says: want itself for a plain frame record, with
		 * UWI_FAST_SAMEFP or UWI_FAST_OTHER for the other shapes;
		 * anything else stops (a slot other formats fill has fast 0:
		 * uwi_cache_tag()).
		 */
		if (uwi_likely(fast == want)) {
			if (!fast_cfa(shape, sp, fp, cfa_off, direct, &cfa) ||
			    !fast_pair(cur, v, cfa + pair_off - v->lo, direct,
				       be, &ra, &nfp))
				break;
		} else if (fast == (want | UWI_FAST_SAMEFP)) {
			nfp = fp;
			if (!fast_cfa(shape, sp, fp, cfa_off, direct, &cfa) ||
			    !fast_word(cur, v, cfa + pair_off - v->lo, direct,
				       be, &ra))
				break;
		} else if (fast == (want | UWI_FAST_OTHER)) {
			v->fp = fp;
			if (!fast_cfa(shape, sp, fp, cfa_off, direct, &cfa) ||
			    !(direct ? fast_other_direct(cur, slot, shape, cfa,
							 pair_off) :
				       fast_other_mem(cur, slot, shape, cfa,
						      pair_off)))
				break;
			ra = v->ra;
			nfp = v->fp;
		} else {
			break;
		}
		/* Its return address, below, must be other than 0. */
		if (ra == 0)
			break;
		fp = nfp;
		sp = cfa;
		if (rec)
			fast_record(fr, tag, ra, cfa);
		else
			pc = ra;
		lookup = ra - 1;
		if (++fr == fend)
			break;
	}
	taken = (size_t)(fr - v->fr0);
	/*
	 * Stopped at a frame it looked up: the general path takes the row
	 * without a second lookup (uwi_sframe_step()).
	 */
	if (v->fill_fr == fr) {
		cur->step.row_sf = v->mod->sframe;
		cur->step.row_pc = lookup - v->mod->bias;
	}
	/*
	 * Every frame taken was a hit but those filled (the last fill may
	 * be the frame the loop stopped at).  A hit the loop stops at is
	 * the general path's, which counts it.
	 */
	if (UW_HAS_CACHE && v->cfg->cache)
		v->cfg->cache->hits += taken - v->fills + (v->fill_fr == fr);
	if (taken) {
		/* The last frame's module, unless the loop found it. */
		module = v->module;
		if (lookup - v->mstart >= v->mlen || !v->mod)
			module = find_module_in(v->cfg->mods, v->cfg->nmods,
						lookup);
		if (rec) {
			/* The first frame's flags are record()'s. */
			v->fr0[-1].flags = flags0;
			fr[-1].source = UW_SRC_NONE;
			fr[-1].flags = 0;
			fr[-1].cfa = 0;
			fr[-1].module = module;
			pc = fr[-1].pc;
		}
		fast_store(cur, v->a, pc, sp, fp, module, (uint32_t)taken,
			   UW_SRC_SFRAME);
	}
	return taken;
}

/*
 * The general step: the phases, then the commit.  Out of line, as is
 * the fast loop: neither's frame is on the stack under the other's.
 */
static uwi_noinline int step_general(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uwi_arch *a)
{
	unsigned int i;
	int ret;

	ret = step_begin(cur, a);
	if (ret)
		return end_walk(cur, UW_STOP_NO_INFO, ret);
	for (i = 0; ret == UWI_NEXT && i < UWI_NPHASES; i++)
		ret = run_phase(cur, cfg, a, a->phases[i]);
	/* The fast loop's row (uwi_sframe_step()) served this step only. */
	cur->step.row_sf = NULL;
	return commit(cur, cfg, a, ret);
}

static bool depth_full(const struct uw_cursor *cur,
		       const struct uw_walk_cfg *cfg, uint32_t depth)
{
	(void)cur;
	return cfg->max_depth && depth + 1 >= cfg->max_depth;
}

/*
 * uw_step()'s fast path: one frame, out of line (its stack apart), in
 * either mode (one copy of the loop: uw_walk() has the fast ones).
 */
static uwi_noinline bool fast_one(struct uw_cursor *cur,
				  const struct uw_walk_cfg *cfg,
				  const struct uwi_arch *a)
{
	struct uw_frame none;

	return fast_run(cur, cfg, a, &cur->regs, &none, &none + 1,
			FAST_DIRECT && (cfg->flags & UW_WALK_DIRECT_STACK),
			true, false) == 1;
}

/* Whether the cursor's frame is in a module with an SFrame table. */
static uwi_always_inline bool sframe_module(const struct uw_cursor *cur,
					    const struct uw_walk_cfg *cfg)
{
	return cur->module < cfg->nmods && cfg->mods[cur->module].sframe;
}

/*
 * One step, the architecture known (uw_step() and uw_walk() find it).
 * The fast path only for a frame whose module has an SFrame table: the
 * frame-pointer fallback's frames would pay for setting it up.
 */
static int step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uwi_arch *a)
{
	if (depth_full(cur, cfg, cur->depth))
		return end_walk(cur, UW_STOP_DEPTH, UW_EDEPTH);
	if (sframe_module(cur, cfg) && fast_on(&cur->regs, cfg, a) &&
	    fast_one(cur, cfg, a))
		return UW_STEP_CALLER;
	return step_general(cur, cfg, a);
}

int uw_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	const struct uwi_arch *a;

	if (cur->stop != UW_STOP_NONE)
		return UW_STEP_END;
	a = uwi_arch_get(cfg->arch);
	if (!a)
		return end_walk(cur, UW_STOP_BAD_DATA, UW_EARCH);
	return step(cur, cfg, a);
}

/* The cursor's frame, its registers regs (the cursor's, or the first's). */
static uwi_always_inline void record(struct uw_frame *f,
				     const struct uw_regs *regs,
				     const struct uw_cursor *cur,
				     const struct uwi_arch *a)
{
	uint64_t pc = regs->r[a->info.pc];

	f->pc = uwi_code_addr(a, pc);
	f->sp = regs->r[a->info.sp];
	f->cfa = 0;
	f->source = UW_SRC_NONE;
	f->flags = cur->flags;
	if (a->thumb && (pc & 1))
		f->flags |= UW_FRAME_THUMB;
	f->module = cur->module;
}

/*
 * uw_walk()'s fast loops, one copy per mode (six arguments: no stack),
 * and one more for reading in place without a cache (through an
 * accessor, whose call costs more than a slot's look, a walk without a
 * cache takes the copy with one: it uses the cursor's entry).
 */
#define FAST_WALK(name, direct, cached)					\
static uwi_noinline size_t name(struct uw_cursor *cur,			\
				const struct uw_walk_cfg *cfg,		\
				const struct uwi_arch *a,		\
				const struct uw_regs *regs,		\
				struct uw_frame *fr,			\
				struct uw_frame *fend)			\
{									\
	return fast_run(cur, cfg, a, regs, fr, fend, direct, cached, true); \
}

FAST_WALK(fast_walk_direct, true, true)
FAST_WALK(fast_walk_direct_nc, true, false)
FAST_WALK(fast_walk_mem, false, true)

/*
 * uw_walk's fast loop: frames from n on while fast_run() takes them,
 * within max and the depth limit, the cursor's frame's registers regs.
 * Returns the frames written in all.
 */
static uwi_always_inline size_t fast_walk(struct uw_cursor *cur,
					  const struct uw_walk_cfg *cfg,
					  const struct uwi_arch *a,
					  const struct uw_regs *regs,
					  struct uw_frame *frames, size_t n,
					  size_t max)
{
	/* A step is allowed while depth + 1 < max_depth. */
	uint32_t dmax = cfg->max_depth ? cfg->max_depth - 1 : 0xffffffffu;

	if (!fast_on(regs, cfg, a) || cur->depth >= dmax)
		return n;
	/* Frame n comes with step depth + 1: stop where depth_full() would. */
	if (max - n > dmax - cur->depth)
		max = n + (dmax - cur->depth);
	if ((cfg->flags & UW_WALK_DIRECT_STACK) && !FAST_DIRECT)
		return n;
	if (cfg->flags & UW_WALK_DIRECT_STACK)
		return n + (UW_HAS_CACHE && cfg->cache ?
			    fast_walk_direct(cur, cfg, a, regs, frames + n,
					     frames + max) :
			    fast_walk_direct_nc(cur, cfg, a, regs, frames + n,
						frames + max));
	return n + fast_walk_mem(cur, cfg, a, regs, frames + n, frames + max);
}

/* Whether a module has no table of any format: its frames are the fallback's. */
static uwi_always_inline bool no_tables(const struct uw_module *m)
{
	return !m->sframe && !m->ehabi && !m->chrome && !m->cu && !m->bp;
}

/*
 * uw_walk's loop for the frame-pointer fallback's frames: frames of a
 * module without tables, each a return address the cache says has no
 * sigreturn trampoline (phase_sigframe() keeps that), on an architecture
 * whose frame records are pairs and whose step tries the tables, then a
 * trampoline, then the record.  It does what those phases and commit()
 * do for such a frame, every check included; on anything else (no such
 * entry, a zero, misaligned or overflowing frame pointer, a failed read,
 * no progress, a zero return address) it stops, and the general step
 * takes that frame from the start.  Returns the frames written so far;
 * the cursor holds the last one.
 */
/* Whether the fp loop may take frames of module i: one without tables. */
static uwi_always_inline const struct uw_module *
fp_module(const struct uw_walk_cfg *cfg, uint16_t i)
{
	const struct uw_module *m;

	if (i >= cfg->nmods)
		return NULL;
	m = &cfg->mods[i];
	return no_tables(m) && m->cache_id ? m : NULL;
}

static size_t fp_loop(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		      const struct uwi_arch *a, struct uw_frame *frames,
		      size_t n, size_t max);

static uwi_always_inline size_t fp_walk(struct uw_cursor *cur,
					const struct uw_walk_cfg *cfg,
					const struct uwi_arch *a,
					struct uw_frame *frames, size_t n,
					size_t max)
{
	if (!UW_HAS_CACHE || !cfg->cache || a->fp_kind != UWI_FP_PAIR ||
	    a->phases[0] != UWI_PHASE_TABLES ||
	    a->phases[1] != UWI_PHASE_SIGFRAME ||
	    a->phases[2] != UWI_PHASE_FP || (cfg->flags & UW_WALK_NO_FP))
		return n;
	return fp_loop(cur, cfg, a, frames, n, max);
}

/* fp_walk()'s loop, for the architectures and walks it serves. */
static uwi_noinline size_t fp_loop(struct uw_cursor *cur,
				   const struct uw_walk_cfg *cfg,
				   const struct uwi_arch *a,
				   struct uw_frame *frames, size_t n,
				   size_t max)
{
	const struct uw_arch_info *ai = &a->info;
	const unsigned int w = ai->ptr_size;
	const uint64_t pac = cfg->arch == UW_ARCH_AARCH64 ? cfg->pac_mask : 0;
	/* A step is allowed while depth + 1 < max_depth (depth_full()). */
	const uint32_t dlim = cfg->max_depth ? cfg->max_depth - 1 : 0xffffffffu;
	const struct uw_cache_entry *e;
	const struct uw_module *m;
	uint64_t pc, sp, fp, ra, cfa, key, v[2];
	uint32_t depth = cur->depth, taken = 0;
	uint16_t module = cur->module;

	/* A return address (not exact), in a module without tables. */
	if (!depth || (cur->flags & UW_FRAME_SIGNAL) ||
	    !uw_reg_get(&cur->regs, ai->pc, &pc) ||
	    !uw_reg_get(&cur->regs, ai->sp, &sp) ||
	    !uw_reg_get(&cur->regs, ai->fp, &fp) ||
	    !(m = fp_module(cfg, module)))
		return n;
	key = uwi_cache_key(m);
	/* The frame's registers in locals, the cursor written once after. */
	while (n < max && depth < dlim) {
		if (!pc || uwi_code_addr(a, pc) != pc)
			break;
		e = uwi_cache_slot(cfg->cache, pc - 1);
		if (e->pc != pc - 1 || e->key != key ||
		    e->src != UW_SRC_NONE ||
		    !(e->flags & UWI_CACHE_NO_SIGFRAME))
			break;
		/* fp_pair_step()'s checks, and commit()'s progress. */
		if (!fp || (fp & (w - 1)) || fp > ~(uint64_t)0 - 2 * w ||
		    read_words(cfg, w, fp, 2, v, cur->scratch.fast.buf))
			break;
		ra = v[1] & ~pac;
		cfa = fp + 2 * w;
		if (cfa <= sp || !ra)
			break;
		taken++;
		depth++;
		sp = cfa;
		fp = v[0];
		pc = ra;
		frames[n - 1].source = UW_SRC_FP;
		frames[n - 1].cfa = cfa;
		/* Another module: one the loop takes, or the end of it. */
		if (ra - 1 - m->start >= m->end - m->start) {
			module = find_module(cfg, ra - 1);
			m = fp_module(cfg, module);
			key = m ? uwi_cache_key(m) : 0;
		}
		/* record()'s frame: flags 0, no Thumb bit on these. */
		frames[n].pc = ra;
		frames[n].sp = cfa;
		frames[n].cfa = 0;
		frames[n].source = UW_SRC_NONE;
		frames[n].flags = 0;
		frames[n].module = module;
		n++;
		if (!m)
			break;
	}
	if (taken) {
		cfg->cache->hits += taken;
		fast_store(cur, a, pc, sp, fp, module, taken, UW_SRC_FP);
	}
	return n;
}

/*
 * The walk from frames[n - 1], the cursor's frame, recorded: its callers
 * into frames[n..max).  uw_walk() and uw_walk_more(); inlined in both,
 * so that neither has a frame more on its stack than before it.
 */
static uwi_always_inline size_t walk_from(struct uw_cursor *cur,
					    const struct uw_walk_cfg *cfg,
					    const struct uwi_arch *a,
					    const struct uw_regs *regs,
					    struct uw_frame *frames, size_t n,
					    size_t max,
					    struct uw_walk_result *res)
{
	const struct uw_regs *from = regs;
	bool sf;
	int ret;

	for (;;) {
		/* Not for the frame-pointer fallback's frames (see step()). */
		sf = sframe_module(cur, cfg);
		if (sf)
			n = fast_walk(cur, cfg, a, from, frames, n, max);
		/*
		 * uw_walk()'s first frame's registers are the caller's: taken,
		 * the fast loop leaves the cursor its caller's; else the
		 * cursor needs them.
		 */
		if (FAST_PATH && from != &cur->regs) {
			if (n == 1)
				uwi_regs_copy(&cur->regs, regs);
			from = &cur->regs;
		}
		if (!sf)
			n = fp_walk(cur, cfg, a, frames, n, max);
		if (n >= max) {
			res->stop = UW_STOP_DEPTH;
			res->err = UW_EDEPTH;
			break;
		}
		if (cur->stop != UW_STOP_NONE)
			ret = UW_STEP_END;
		else if (depth_full(cur, cfg, cur->depth))
			ret = end_walk(cur, UW_STOP_DEPTH, UW_EDEPTH);
		else
			ret = step_general(cur, cfg, a);
		/* The rule just used (or tried) belongs to the previous frame. */
		frames[n - 1].source = ret > 0 ? cur->source : UW_SRC_NONE;
		frames[n - 1].cfa = ret > 0 ? cur->cfa : 0;
		if (ret <= 0) {
			res->stop = cur->stop;
			res->err = ret;
			break;
		}
		record(&frames[n++], &cur->regs, cur, a);
	}
	res->nframes = n;
	return n;
}

size_t uw_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
	       const struct uw_regs *regs, struct uw_frame *frames, size_t max,
	       struct uw_walk_result *res)
{
	const struct uwi_arch *a;
	int ret;

	res->nframes = 0;
	res->stop = UW_STOP_NONE;
	res->err = 0;
	ret = cursor_begin(cur, cfg, regs);
	if (ret || !frames || max == 0) {
		res->stop = ret ? UW_STOP_NO_INFO : UW_STOP_DEPTH;
		res->err = ret ? ret : UW_EDEPTH;
		return 0;
	}
	a = uwi_arch_get(cfg->arch);	/* valid: cursor_begin() checked */
	record(&frames[0], regs, cur, a);
	/* Without the fast path, the cursor needs the registers at once. */
	if (!FAST_PATH) {
		uwi_regs_copy(&cur->regs, regs);
		regs = &cur->regs;
	}
	return walk_from(cur, cfg, a, regs, frames, 1, max, res);
}

size_t uw_walk_more(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    struct uw_frame *frames, size_t max,
		    struct uw_walk_result *res)
{
	const struct uwi_arch *a = uwi_arch_get(cfg->arch);

	res->nframes = 0;
	res->stop = UW_STOP_NONE;
	res->err = 0;
	if (!a || !frames || max == 0) {
		res->stop = a ? UW_STOP_DEPTH : UW_STOP_BAD_DATA;
		res->err = a ? UW_EDEPTH : UW_EARCH;
		return 0;
	}
	record(&frames[0], &cur->regs, cur, a);
	if (cur->stop != UW_STOP_NONE) {
		res->nframes = 1;
		res->stop = cur->stop;
		res->err = UW_STEP_END;
		return 1;
	}
	return walk_from(cur, cfg, a, &cur->regs, frames, 1, max, res);
}
