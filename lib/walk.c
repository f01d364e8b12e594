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
 * the program's byte order, with one call of the accessor.
 */
static uwi_always_inline int read_words(const struct uw_walk_cfg *cfg,
					unsigned int size, uint64_t addr,
					unsigned int n, uint64_t *v,
					uint8_t *buf)
{
	if (size > 8 || !cfg->mem.read)
		return UW_EINVAL;
	if (uwi_unlikely(!in_stack(cfg, addr, n * size)))
		return UW_ESTACK;
	if (cfg->mem.read(cfg->mem.ctx, addr, buf, n * size))
		return UW_EREAD;
	v[0] = uwi_load(buf, size, cfg->big_endian);
	if (n > 1)
		v[1] = uwi_load(buf + size, size, cfg->big_endian);
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
 * The fast path: a frame whose module has an SFrame row of the common
 * shape for its pc (CFA = sp or fp + offset; return address and frame
 * pointer saved at the CFA side by side; see uwi_cache_row()), from the
 * cache or, on a miss or without one, from the table.  It does what the
 * phases and the commit do with such a row (apply_rules(), commit()),
 * every check included, on the registers kept in locals (struct uwi_fast);
 * on anything else (another shape, another format, no row) or anything
 * that would end the walk it changes nothing and returns false, and the
 * general path takes the step from the start.
 *
 * Addresses: the base register must lie in [2^32, 2^64 - 2^33), so that
 * the CFA and the pair's address (base plus two 32-bit offsets) and the
 * pair's end cannot wrap; any other base is left to the general path's
 * overflow-checked arithmetic.
 */
/*
 * The fast path's state (struct uwi_fast: the registers, the module's
 * part) and what it reads of the walk's configuration (struct
 * uwi_fast_env), both in the cursor's scratch rather than on the stack
 * (which they would make too deep for the lookup under them), the latter read
 * once: the accessor call in every frame would make the compiler read
 * the configuration again.  The stack bounds become one compare: addr -
 * lo <= span (no bounds: 0 and all ones; bounds too close for 16 bytes:
 * all ones and 0, which no address the fast path computes passes).
 */
#define FAST_BASE_MIN	((uint64_t)1 << 32)
#define FAST_BASE_SPAN	(~(uint64_t)0 - ((uint64_t)3 << 32) + 1)

static uwi_always_inline void fast_env_init(struct uwi_fast_env *v,
					    const struct uw_walk_cfg *cfg,
					    const struct uwi_arch *a)
{
	v->mods = cfg->mods;
	v->nmods = cfg->nmods;
	v->cache = UW_HAS_CACHE ? cfg->cache : NULL;
	v->read = cfg->mem.read;
	v->ctx = cfg->mem.ctx;
	v->lo = 0;
	v->span = ~(uint64_t)0;
	if (cfg->stack_hi) {
		v->lo = ~(uint64_t)0;
		v->span = 0;
		if (cfg->stack_hi >= 16 && cfg->stack_lo <= cfg->stack_hi - 16) {
			v->lo = cfg->stack_lo;
			v->span = cfg->stack_hi - 16 - cfg->stack_lo;
		}
	}
	v->pac = cfg->arch == UW_ARCH_AARCH64 ? cfg->pac_mask : 0;
	v->sp_from_cfa = a->sp_from_cfa;
	/* A step is allowed while depth + 1 < max_depth. */
	v->depth_max = cfg->max_depth ? cfg->max_depth - 1 : 0xffffffffu;
	v->arch = (uint8_t)cfg->arch;
	v->be = cfg->big_endian;
	v->pc = a->info.pc;
	v->sp = a->info.sp;
	v->fp = a->info.fp;
}

/* The module's part of the state, when the frame changes modules. */
static uwi_always_inline void fast_module(struct uwi_fast *f,
					  const struct uwi_fast_env *v)
{
	f->mod = f->module < v->nmods && v->mods[f->module].sframe ?
		 &v->mods[f->module] : NULL;
	f->key = f->mod ? uwi_cache_key(f->mod) : 0;
	f->cached = UW_HAS_CACHE && v->cache && f->mod && f->mod->cache_id;
}

static uwi_always_inline void fast_load(struct uwi_fast *f,
					const struct uw_cursor *cur,
					const struct uwi_fast_env *v)
{
	bool exact = cur->depth == 0 || (cur->flags & UW_FRAME_SIGNAL);

	f->pc = cur->regs.r[v->pc];
	f->sp = cur->regs.r[v->sp];
	f->fp = cur->regs.r[v->fp];
	f->fp_ok = (cur->regs.valid >> v->fp) & 1;
	f->cfa = cur->cfa;
	f->depth = cur->depth;
	f->module = cur->module;
	f->lookup = f->pc - (!exact && f->pc);
	fast_module(f, v);
}

/* The cursor as the general path leaves it after such steps. */
static uwi_always_inline void fast_store(const struct uwi_fast *f,
					 struct uw_cursor *cur,
					 const struct uwi_fast_env *v)
{
	cur->regs.valid = (uint64_t)1 << v->pc | (uint64_t)1 << v->sp |
			  (uint64_t)1 << v->fp;
	cur->regs.r[v->pc] = f->pc;
	cur->regs.r[v->sp] = f->sp;
	cur->regs.r[v->fp] = f->fp;
	cur->cfa = f->cfa;
	cur->depth = f->depth;
	cur->module = f->module;
	cur->flags = 0;
	cur->source = UW_SRC_SFRAME;
	cur->step.ra_in_reg = false;
}

/*
 * A miss (or no cache): the table's row for lookup, put into the cache's
 * slot e, or into the cursor's scratch without a cache.  NULL: no row.
 */
static uwi_always_inline const struct uw_cache_entry *
fast_fill(struct uw_cursor *cur, const struct uwi_fast_env *v,
	  const struct uwi_arch *a, const struct uw_module *mod,
	  uint64_t lookup, struct uw_cache_entry *e)
{
	if (uw_sframe_find(mod->sframe, lookup - mod->bias,
			   &cur->scratch.fast.row))
		return NULL;
	if (!e)
		e = &cur->scratch.fast.e;
	uwi_cache_row(e, &cur->scratch.fast.row, &a->info, v->arch);
	e->flags = (uint8_t)cur->scratch.fast.row.flags;
	e->src = UW_SRC_SFRAME;
	if (e != &cur->scratch.fast.e) {
		v->cache->misses++;
		e->pc = lookup;
		e->key = uwi_cache_key(mod);
	}
	return e;
}

/* The entry for the frame's lookup: the cache's, or fast_fill()'s. */
static uwi_always_inline const struct uw_cache_entry *
fast_entry(struct uw_cursor *cur, const struct uwi_fast_env *v,
	   const struct uwi_arch *a, const struct uwi_fast *f)
{
	struct uw_cache_entry *e = NULL;

	if (f->cached) {
		e = uwi_cache_slot(v->cache, f->lookup);
		if (uwi_likely(e->pc == f->lookup && e->key == f->key)) {
			v->cache->hits++;
			return e;
		}
	}
	return fast_fill(cur, v, a, f->mod, f->lookup, e);
}

/* One frame: true when taken (see above); the caller checks the depth. */
static uwi_always_inline bool fast_frame(struct uwi_fast *f,
					 struct uw_cursor *cur,
					 const struct uwi_fast_env *v,
					 const struct uwi_arch *a)
{
	const struct uw_cache_entry *e;
	uint64_t base, addr, ra, fp, sp;
	uint8_t *buf = cur->scratch.fast.buf;

	if (!f->mod)
		return false;
	e = fast_entry(cur, v, a, f);
	/*
	 * Only the fast bits are trusted, and only for what they say: a
	 * slot other formats fill has them clear (uwi_cache_tag()).
	 */
	if (!e || !(e->fast & UWI_FAST_ON) || e->arch != v->arch)
		return false;
	if (e->fast & UWI_FAST_FP) {
		if (!f->fp_ok)
			return false;
		base = f->fp;
	} else {
		base = f->sp;
	}
	if (base - FAST_BASE_MIN >= FAST_BASE_SPAN)
		return false;
	f->cfa = base + (int64_t)e->u.rule[0].off;
	addr = f->cfa + (int64_t)e->pair_off;
	if (addr - v->lo > v->span || v->read(v->ctx, addr, buf, 16))
		return false;
	ra = uwi_load(buf, 8, v->be);
	fp = uwi_load(buf + 8, 8, v->be);
	if (e->fast & UWI_FAST_RA_HI) {
		uint64_t t = ra;

		ra = fp;
		fp = t;
	}
	if (e->flags & UW_ROW_RA_MANGLED)
		ra &= ~v->pac;
	sp = f->cfa + v->sp_from_cfa;
	/* Progress: the caller lies above (its return address was saved). */
	if (sp <= f->sp || (sp & 7) || ra == 0)
		return false;
	f->pc = ra;
	f->sp = sp;
	f->fp = fp;
	f->fp_ok = true;
	f->depth++;
	f->lookup = ra - 1;
	if (uwi_unlikely(f->lookup < f->mod->start ||
			 f->lookup >= f->mod->end)) {
		f->module = find_module_in(v->mods, v->nmods, f->lookup);
		fast_module(f, v);
	}
	return true;
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

static uwi_always_inline bool fast_on(const struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg,
				      const struct uwi_arch *a)
{
	const uint64_t need = (uint64_t)1 << a->info.pc |
			      (uint64_t)1 << a->info.sp;

	return FAST_PATH && UW_HAS_SFRAME &&
	       a->phases[0] == UWI_PHASE_TABLES &&
	       a->info.ptr_size == 8 && cfg->mem.read &&
	       (cur->regs.valid & need) == need;
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
	return commit(cur, cfg, a, ret);
}

static bool depth_full(const struct uw_cursor *cur,
		       const struct uw_walk_cfg *cfg, uint32_t depth)
{
	(void)cur;
	return cfg->max_depth && depth + 1 >= cfg->max_depth;
}

/* uw_step()'s fast path: one frame, out of line (its stack apart). */
static uwi_noinline bool fast_one(struct uw_cursor *cur,
				  const struct uw_walk_cfg *cfg,
				  const struct uwi_arch *a)
{
	struct uwi_fast_env *v = &cur->scratch.fast.env;
	struct uwi_fast *f = &cur->scratch.fast.f;

	fast_env_init(v, cfg, a);
	fast_load(f, cur, v);
	if (!fast_frame(f, cur, v, a))
		return false;
	fast_store(f, cur, v);
	return true;
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
	if (cur->module < cfg->nmods && cfg->mods[cur->module].sframe &&
	    fast_on(cur, cfg, a) && fast_one(cur, cfg, a))
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

/*
 * uw_walk's fast loop: as many frames as fast_frame() takes, each
 * recorded as record() and uw_walk() would, the registers in locals.
 * Returns the frames written so far; the cursor holds the last one.
 */
static uwi_noinline size_t fast_walk(struct uw_cursor *cur,
				     const struct uw_walk_cfg *cfg,
				     const struct uwi_arch *a,
				     struct uw_frame *frames, size_t n,
				     size_t max)
{
	const size_t n0 = n;
	size_t nmax = max;
	struct uwi_fast_env *v = &cur->scratch.fast.env;
	struct uwi_fast *f = &cur->scratch.fast.f;

	if (!fast_on(cur, cfg, a))
		return n;
	fast_env_init(v, cfg, a);
	fast_load(f, cur, v);
	/* Frame n comes with step depth + 1: stop where depth_full() would. */
	if (f->depth >= v->depth_max)
		return n;
	if (nmax - n > v->depth_max - f->depth)
		nmax = n + (v->depth_max - f->depth);
	while (n < nmax && fast_frame(f, cur, v, a)) {
		frames[n - 1].source = UW_SRC_SFRAME;
		frames[n - 1].cfa = f->cfa;
		frames[n].pc = f->pc;
		frames[n].sp = f->sp;
		frames[n].cfa = 0;
		frames[n].source = UW_SRC_NONE;
		frames[n].flags = 0;
		frames[n].module = f->module;
		n++;
	}
	if (n != n0)
		fast_store(f, cur, v);
	return n;
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
static uwi_noinline size_t fp_walk(struct uw_cursor *cur,
				   const struct uw_walk_cfg *cfg,
				   const struct uwi_arch *a,
				   struct uw_frame *frames, size_t n,
				   size_t max)
{
	const struct uw_arch_info *ai = &a->info;
	const unsigned int w = ai->ptr_size;
	const struct uw_cache_entry *e;
	const struct uw_module *m;
	uint64_t pc, sp, fp, lookup, ra, cfa, v[2];
	uint8_t buf[16];

	if (!UW_HAS_CACHE || !cfg->cache || a->fp_kind != UWI_FP_PAIR ||
	    a->phases[0] != UWI_PHASE_TABLES ||
	    a->phases[1] != UWI_PHASE_SIGFRAME ||
	    a->phases[2] != UWI_PHASE_FP || (cfg->flags & UW_WALK_NO_FP))
		return n;
	while (n < max && !depth_full(cur, cfg, cur->depth)) {
		/* A return address (not exact), in a module without tables. */
		if (!cur->depth || (cur->flags & UW_FRAME_SIGNAL) ||
		    cur->module >= cfg->nmods)
			break;
		m = &cfg->mods[cur->module];
		if (!no_tables(m) || !m->cache_id ||
		    !uw_reg_get(&cur->regs, ai->pc, &pc) ||
		    !uw_reg_get(&cur->regs, ai->sp, &sp) ||
		    !uw_reg_get(&cur->regs, ai->fp, &fp))
			break;
		lookup = uwi_code_addr(a, pc);
		if (!lookup || lookup != pc)
			break;
		lookup--;
		e = uwi_cache_slot(cfg->cache, lookup);
		if (e->pc != lookup || e->key != uwi_cache_key(m) ||
		    e->src != UW_SRC_NONE ||
		    !(e->flags & UWI_CACHE_NO_SIGFRAME))
			break;
		/* fp_pair_step()'s checks, and commit()'s progress. */
		if (!fp || (fp & (w - 1)) || fp > ~(uint64_t)0 - 2 * w ||
		    read_words(cfg, w, fp, 2, v, buf))
			break;
		ra = v[1];
		if (cfg->arch == UW_ARCH_AARCH64)
			ra &= ~cfg->pac_mask;
		cfa = fp + 2 * w;
		if (cfa <= sp || !ra)
			break;
		cfg->cache->hits++;
		cur->cfa = cfa;
		set_caller(cur, ai, ra, cfa, v[0], true);
		cur->depth++;
		cur->flags = 0;
		cur->source = UW_SRC_FP;
		cur->step.ra_in_reg = false;
		cur->module = next_module(cfg, cur->module,
					  uwi_code_addr(a, ra) - 1);
		frames[n - 1].source = UW_SRC_FP;
		frames[n - 1].cfa = cfa;
		record(&frames[n++], cur, a);
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
					    struct uw_frame *frames, size_t n,
					    size_t max,
					    struct uw_walk_result *res)
{
	int ret;

	for (;;) {
		/* Not for the frame-pointer fallback's frames (see step()). */
		if (cur->module < cfg->nmods && cfg->mods[cur->module].sframe)
			n = fast_walk(cur, cfg, a, frames, n, max);
		else
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
		record(&frames[n++], cur, a);
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
	ret = uw_cursor_init(cur, cfg, regs);
	if (ret || !frames || max == 0) {
		res->stop = ret ? UW_STOP_NO_INFO : UW_STOP_DEPTH;
		res->err = ret ? ret : UW_EDEPTH;
		return 0;
	}
	a = uwi_arch_get(cfg->arch);	/* valid: uw_cursor_init checked */
	record(&frames[0], cur, a);
	return walk_from(cur, cfg, a, frames, 1, max, res);
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
	record(&frames[0], cur, a);
	if (cur->stop != UW_STOP_NONE) {
		res->nframes = 1;
		res->stop = cur->stop;
		res->err = UW_STEP_END;
		return 1;
	}
	return walk_from(cur, cfg, a, frames, 1, max, res);
}
