// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker's general step: a register set from a frame to its caller,
 * phase by phase in the order the architecture table gives (see
 * walk.h): an exception boundary, the tables of the frame's module
 * (format by format, lib/formats.h), a signal frame, the frame pointer;
 * then the commit.  And uw_walk()/uw_walk_more(), which record the
 * frames and hand each one to the fast loops first (lib/walk_fast.c),
 * then, for the frame they stop at, to the general step.
 *
 * Every rule a step obeys is one function in walk.h, shared with the
 * fast loops: program memory is read only through the caller's accessor
 * (or in place within the stack bounds the caller vouched for); a
 * caller's stack pointer must lie above the callee's (equal only when
 * the return address came from a register, as in an AArch64 leaf), and
 * a step that changes neither the pc nor the stack pointer is no
 * progress; register-based rules are trusted only where registers are
 * really known (the first frame, or a frame restored from a signal
 * context); the number of steps is bounded by the caller's frame array
 * and max_depth.
 */
#include <uwind/cortexm.h>
#include "span.h"
#include "walk.h"

/*
 * len bytes of the program's stack at addr: in place under
 * UW_WALK_DIRECT_STACK (within the bounds the caller vouched for), else
 * read with one call of the accessor into buf.  *p where they are, or
 * an error.
 */
static uwi_always_inline int stack_bytes(const struct uw_walk_cfg *cfg,
					 uint64_t addr, unsigned int len,
					 uint8_t *buf, const uint8_t **p)
{
	*p = buf;
	if (cfg->flags & UW_WALK_DIRECT_STACK) {
		*p = uwi_direct(cfg, addr, len);
		return *p ? 0 : UW_ESTACK;
	}
	if (!cfg->mem.read)
		return UW_EINVAL;
	if (uwi_unlikely(!uwi_in_stack(cfg, addr, len)))
		return UW_ESTACK;
	if (uwi_mem_read(cfg->mem.read, cfg->mem.ctx, addr, buf, len))
		return UW_EREAD;
	return 0;
}

/*
 * n (1 or 2) consecutive size-byte words of the program's stack at addr,
 * in the program's byte order, with one call of the accessor (into buf),
 * or in place under UW_WALK_DIRECT_STACK.
 */
static uwi_always_inline int read_words(const struct uw_walk_cfg *cfg,
					unsigned int size, uint64_t addr,
					unsigned int n, uint64_t *v,
					uint8_t *buf)
{
	const uint8_t *p;
	int err;

	if (size > 8)
		return UW_EINVAL;
	err = stack_bytes(cfg, addr, n * size, buf, &p);
	if (err)
		return err;
	v[0] = uwi_load(p, size, cfg->big_endian);
	if (n > 1)
		v[1] = uwi_load(p + size, size, cfg->big_endian);
	return 0;
}

const uint8_t *uwi_read_block(const struct uw_walk_cfg *cfg, uint64_t addr,
			      unsigned int len, uint8_t *buf)
{
	const uint8_t *p;

	/* ARM's rows and pops read blocks: no code without either. */
	if (!UW_HAS_ARM_ROWS && !(UW_HAS_FAST && UW_HAS_ARM))
		return NULL;
	return stack_bytes(cfg, addr, len, buf, &p) ? NULL : p;
}

int uwi_read_word(const struct uw_walk_cfg *cfg, unsigned int size,
		  uint64_t addr, uint64_t *v)
{
	uint8_t buf[8];

	return read_words(cfg, size, addr, 1, v, buf);
}

uint16_t uwi_find_module(const struct uw_walk_cfg *cfg, uint64_t pc)
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
 * The same, trying the module of the frame just unwound first: a caller
 * is mostly in its callee's module.  Modules do not overlap, so the
 * answer is the search's.
 */
static uwi_always_inline uint16_t next_module(const struct uw_walk_cfg *cfg,
					      uint16_t last, uint64_t pc)
{
	const struct uw_module *m;

	if (last < cfg->nmods) {
		m = &cfg->mods[last];
		if (uwi_in_module(m->start, m->end, pc))
			return last;
	}
	return uwi_find_module(cfg, pc);
}

/*
 * The value a rule r gives, into *v: 0 or an error.  A CFA-relative rule
 * needs cfa.  UW_RULE_SAME ("the register keeps its value") is its
 * caller's to read: which register, and whether unknown is an error.
 * Six arguments: none on the stack.
 */
static int rule_value(const struct uw_walk_cfg *cfg, const struct uw_regs *regs,
		      unsigned int size, const struct uw_rule *r, uint64_t cfa,
		      uint64_t *v)
{
	uint64_t base, addr;
	int err;

	switch (r->kind) {
	case UW_RULE_CFA_OFF:
		base = cfa;
		break;
	case UW_RULE_REG:
		return uw_reg_get(regs, r->reg, v) ? 0 : UW_EREG;
	case UW_RULE_REG_OFF:
		if (!uw_reg_get(regs, r->reg, &base))
			return UW_EREG;
		return uwi_add_off(base, r->off, v);
	case UW_RULE_REG_DEREF:
		if (!uw_reg_get(regs, r->reg, &base))
			return UW_EREG;
		break;
	default:
		return UW_EBADDATA;
	}
	err = uwi_add_off(base, r->off, &addr);
	if (err)
		return err;
	return uwi_read_word(cfg, size, addr, v);
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

static uwi_always_inline int end_walk(struct uw_cursor *cur, int stop,
				      int ret)
{
	cur->stop = (uint8_t)stop;
	return ret;
}

/*
 * Whether rules ra and fp save the return address and the frame pointer
 * at the CFA side by side, w bytes apart (every x86-64 and AArch64 frame
 * record): read_pair() reads both at once.
 */
static uwi_always_inline bool rules_paired(const struct uw_rule *ra,
					   const struct uw_rule *fp,
					   unsigned int w)
{
	int64_t d = (int64_t)ra->off - fp->off;

	return ra->kind == UW_RULE_CFA_OFF && fp->kind == UW_RULE_CFA_OFF &&
	       (d == (int64_t)w || d == -(int64_t)w);
}

static uwi_always_inline int read_pair(const struct uw_walk_cfg *cfg,
				       unsigned int w, const struct uw_rule *ra,
				       const struct uw_rule *fp, uint64_t cfa,
				       uint64_t *rv, uint64_t *fv, uint8_t *buf)
{
	int64_t lo = ra->off < fp->off ? ra->off : fp->off;
	bool ra_above = ra->off > fp->off;
	uint64_t addr, v[2];
	int err;

	err = uwi_add_off(cfa, lo, &addr);
	if (err)
		return err;
	/* The second word's address must not wrap either. */
	if (addr > ~(uint64_t)0 - w)
		return UW_EOVERFLOW;
	err = read_words(cfg, w, addr, 2, v, buf);
	if (err)
		return err;
	*rv = ra_above ? v[1] : v[0];
	*fv = ra_above ? v[0] : v[1];
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
	struct uwi_state *s = uwi_state(cur);
	unsigned int w = ai->ptr_size;
	uint64_t cfa, ra, fp = 0, sp;
	bool fp_known = true;
	int ret;

	if ((flags & UW_ROW_OUTERMOST) || rr->kind == UW_RULE_UNDEF)
		return UWI_OUTERMOST;
	if (rc->kind != UW_RULE_REG_OFF && rc->kind != UW_RULE_REG_DEREF)
		return UW_EBADDATA;
	ret = rule_value(cfg, &cur->regs, w, rc, 0, &cfa);
	if (ret)
		return ret;
	if (rules_paired(rr, rf, w)) {
		ret = read_pair(cfg, w, rr, rf, cfa, &ra, &fp,
				s->scratch.fast.buf);
		if (ret)
			return ret;
	} else {
		/* An unchanged return address is the one in its register. */
		if (rr->kind == UW_RULE_SAME)
			ret = uw_reg_get(&cur->regs, ai->ra, &ra) ? 0 : UW_EREG;
		else
			ret = rule_value(cfg, &cur->regs, w, rr, cfa, &ra);
		if (ret)
			return ret;
		/* An unchanged fp the callee does not know stays unknown. */
		if (rf->kind == UW_RULE_SAME)
			fp_known = uw_reg_get(&cur->regs, ai->fp, &fp);
		else
			ret = rule_value(cfg, &cur->regs, w, rf, cfa, &fp);
		if (ret)
			return ret;
	}
	if (flags & UW_ROW_RA_MANGLED)
		ra = uwi_strip_pac(ra, uwi_pac_bits(cfg));
	ret = uwi_add_off(cfa, a->sp_from_cfa, &sp);
	if (ret)
		return ret;
	s->step.ra_in_reg = rr->kind == UW_RULE_REG ||
			    rr->kind == UW_RULE_SAME;
	cur->cfa = cfa;
	uwi_set_caller(&cur->regs, a, ra, sp, fp, fp_known);
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
 * with one call of the accessor; the caller's sp fp + 2 words (on
 * AArch64 a guess: uwi_sp_guessed()).
 */
static int fp_pair_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uwi_arch *a)
{
	const struct uw_arch_info *ai = &a->info;
	unsigned int w = ai->ptr_size;
	uint64_t fp, v[2];
	uint8_t buf[16];
	int err;

	if (!uw_reg_get(&cur->regs, ai->fp, &fp))
		return UW_EREG;
	err = uwi_fp_record(fp, w);
	if (err)
		return err;	/* UWI_CHAIN_END, or an error */
	err = read_words(cfg, w, fp, 2, v, buf);
	if (err)
		return err;
	cur->cfa = fp + 2 * w;
	uwi_set_caller(&cur->regs, a, uwi_strip_pac(v[1], uwi_pac_bits(cfg)),
		       cur->cfa, v[0], true);
	return UWI_STEPPED;
}

/* ---- the phases ---- */

/* Cortex-M: a handler "returned" to an EXC_RETURN value. */
static int phase_excframe(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	int ret;

	if (!UW_HAS_CORTEXM || !(cfg->flags & UW_WALK_CORTEX_M) ||
	    !uw_cortexm_is_exc_return(uwi_state(cur)->step.pc))
		return UWI_NEXT;
	cur->source = UW_SRC_EXCFRAME;
	ret = uwi_cortexm_step(cur, cfg);
	if (ret == UWI_RESTORED)
		cur->flags = UW_FRAME_SIGNAL;
	return ret;
}

/*
 * ARM: the cache's row entry (UWI_CACHE_ARM_ROW) for this step's lookup
 * in the frame's module, or NULL.
 */
static uwi_always_inline struct uw_cache_entry *
arm_row_slot(const struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	const struct uwi_step *st = &uwi_cstate(cur)->step;
	const struct uw_module *mod;
	struct uw_cache_entry *e;

	if (!cfg->cache || cur->module >= cfg->nmods)
		return NULL;
	mod = &cfg->mods[cur->module];
	if (!mod->cache_id)
		return NULL;
	e = uwi_cache_slot(cfg->cache, st->lookup);
	if (!uwi_cache_is(e, st->lookup, uwi_cache_key(mod)) ||
	    e->src == UW_SRC_NONE || !(e->flags & UWI_CACHE_ARM_ROW))
		return NULL;
	return e;
}

/*
 * A Linux signal frame.  Never on Cortex-M: M-profile has no Linux
 * signals, and probing code there would read firmware memory for no
 * reason.  A return address that the cache says has no table row and
 * no trampoline is not read again (uwi_cache_no_sigframe()): the frames
 * the frame-pointer fallback takes would each pay for a read of their
 * code, the costliest read a kernel walk makes.
 */
static int phase_sigframe(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	struct uwi_step *st = &uwi_state(cur)->step;
	struct uw_cache_entry *none = UW_HAS_CACHE ? st->none : NULL;
	struct uw_cache_entry *row = NULL;
	bool other = false;
	int ret;

	if (!UW_HAS_SIGFRAME ||
	    (cfg->flags & (UW_WALK_NO_SIGFRAME | UW_WALK_CORTEX_M)))
		return UWI_NEXT;
	/* The entry's pc is the lookup: pc - 1 for a return address. */
	if (none && st->lookup + 1 != st->pc)
		none = NULL;
	if (none && uwi_cache_no_sigframe(none, st->lookup, st->pc))
		return UWI_NEXT;
	/* ARM probes before the tables: a row may know the answer. */
	if (UW_HAS_ARM_ROWS && cfg->arch == UW_ARCH_ARM) {
		row = arm_row_slot(cur, cfg);
		if (row && uwi_cache_arm_nosig(row, st->lookup, st->pc))
			return UWI_NEXT;
	}
	ret = uwi_sigframe_step(cur, cfg, &other);
	st->sig_other = ret == UWI_NEXT && other;
	if (none && st->sig_other)
		none->flags |= UWI_CACHE_NO_SIGFRAME;
	if (row && st->sig_other && st->lookup + 1 == (st->pc & ~(uint64_t)1))
		row->flags = (uint8_t)((row->flags & ~UWI_CACHE_ARM_THUMB) |
				       UWI_CACHE_NO_SIGFRAME |
				       (st->pc & 1 ? UWI_CACHE_ARM_THUMB : 0));
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
 * The cache's slot for this step (step.fill, step.hit NULL on entry).
 * On a hit, the answer: a row, applied here, or "no table covers pc"
 * (UWI_NEXT, the slot in step.none); or the entry for a format to take
 * (step.hit).  On a miss, the slot the tables' answer goes to, emptied
 * first.  Whenever the tables are to be looked up (a miss, an entry of
 * another format, an entry a format refuses: it looks pc up and fills
 * it), UWI_NEXT with the slot in step.fill.  Out of line: its frame is
 * not under the formats' lookups.
 */
static uwi_noinline int cache_probe(struct uw_cursor *cur,
				    const struct uw_walk_cfg *cfg,
				    const struct uwi_arch *a,
				    const struct uw_module *mod)
{
	struct uwi_step *st = &uwi_state(cur)->step;
	struct uw_cache *c = cfg->cache;
	struct uw_cache_entry *e;
	int ret;

	st->key = uwi_cache_key(mod);
	e = uwi_cache_slot(c, st->lookup);
	if (!uwi_cache_is(e, st->lookup, st->key)) {
		c->misses++;
		e->key = 0;
		st->fill = e;
		return UWI_NEXT;
	}
	c->hits++;
	if (e->src == UW_SRC_SFRAME) {
		ret = cached_row(cur, cfg, a, mod, e);
		if (ret != UWI_NEXT)
			return ret;
	} else if (e->src == UW_SRC_NONE) {
		st->none = e;
		return UWI_NEXT;
	} else {
		/* An ARM row: applied without the opcodes, if it will do. */
		if (UW_HAS_ARM_ROWS && cfg->arch == UW_ARCH_ARM &&
		    (e->flags & UWI_CACHE_ARM_ROW)) {
			ret = uwi_arm_row_step(cur, cfg, mod, e);
			if (ret != UWI_NEXT)
				return ret;
		}
		st->hit = e;
	}
	st->fill = e;
	return UWI_NEXT;
}

/*
 * After an ARM format's step: the row of the opcodes it ran, if asked
 * (walk_arm.c), not under the step's frame (decoding them again is as
 * deep as running them).  Returns ret.
 */
static uwi_always_inline int keep_row(struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg, int ret)
{
	if (UW_HAS_ARM_ROWS && uwi_state(cur)->step.arm_keep)
		uwi_arm_keep_row(cur, cfg);
	return ret;
}

/*
 * The tables of the frame's module (found once, by the previous step's
 * commit or uw_cursor_init), format by format (lib/formats.h); with a
 * cache, the cache first.
 */
static int phase_tables(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uwi_arch *a)
{
	struct uwi_step *st = &uwi_state(cur)->step;
	const struct uw_module *mod;
	uint64_t pc;
	int ret;

	if (cur->module >= cfg->nmods)
		return UWI_NEXT;
	mod = &cfg->mods[cur->module];
	st->hit = NULL;
	st->fill = NULL;
	/* uwi_sp_guessed(): the table's row, for uwi_row_at_record(). */
	if (UW_HAS_CACHE && cfg->cache && mod->cache_id && !st->sp_guess) {
		ret = cache_probe(cur, cfg, a, mod);
		if (ret != UWI_NEXT || !st->fill)
			return ret;	/* the cache's answer */
	}
	/*
	 * Each format whose switch is on, whose table the module has, on
	 * its architectures; the first that takes the frame answers.
	 */
	pc = st->lookup - mod->bias;
	if (UW_HAS_CHROME && mod->chrome && cfg->arch == UW_ARCH_ARM) {
		cur->source = UW_SRC_CHROME;
		ret = uwi_chrome_step(cur, cfg, a, mod->chrome, pc);
		if (ret != UWI_NEXT)
			return keep_row(cur, cfg, ret);
	}
	if (UW_HAS_EHABI && mod->ehabi && cfg->arch == UW_ARCH_ARM) {
		cur->source = UW_SRC_EHABI;
		ret = uwi_ehabi_step(cur, cfg, a, mod->ehabi, pc);
		if (ret != UWI_NEXT)
			return keep_row(cur, cfg, ret);
	}
	if (UW_HAS_SFRAME && mod->sframe &&
	    (UWI_ARCH_BIT(cfg->arch) & UWI_ARCHES_SFRAME)) {
		cur->source = UW_SRC_SFRAME;
		ret = uwi_sframe_step(cur, cfg, a, mod->sframe, pc);
		if (ret != UWI_NEXT)
			return ret;
	}
	if (UW_HAS_BREAKPAD && mod->bp &&
	    (UWI_ARCH_BIT(cfg->arch) & UWI_ARCHES_BREAKPAD)) {
		cur->source = UW_SRC_BREAKPAD;
		ret = uwi_bp_step(cur, cfg, a, mod->bp, pc);
		if (ret != UWI_NEXT)
			return ret;
	}
	if (UW_HAS_COMPACT && mod->cu &&
	    (UWI_ARCH_BIT(cfg->arch) & UWI_ARCHES_COMPACT)) {
		cur->source = UW_SRC_COMPACT;
		ret = uwi_cu_step(cur, cfg, a, mod->cu, pc);
		if (ret != UWI_NEXT)
			return ret;
	}
	/* No table row here: remembered too, for the later phases. */
	if (UW_HAS_CACHE && st->fill) {
		st->none = st->fill;
		uwi_cache_tag(cur, st->none, UW_SRC_NONE, 0);
	}
	return UWI_NEXT;
}

static int phase_fp(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a)
{
	if (cfg->flags & UW_WALK_NO_FP)
		return UWI_NEXT;
	cur->source = UW_SRC_FP;
	switch (a->fp_kind) {
	case UWI_FP_PAIR:
		return fp_pair_step(cur, cfg, a);
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
 * when its fast loop does not take the first frame from the caller's;
 * a is the walk's architecture (uwi_arch_get(cfg->arch), NULL when cfg
 * is).  Out of line: uw_walk()'s frame lies under every step.
 */
static uwi_noinline int cursor_begin(struct uw_cursor *cur,
				     const struct uw_walk_cfg *cfg,
				     const struct uw_regs *regs,
				     const struct uwi_arch *a)
{
	struct uwi_step *st;
	uint64_t pc, sp;

	if (!cur || !cfg || !regs)
		return UW_EINVAL;
	if ((cfg->flags & UW_WALK_DIRECT_STACK) && !uwi_direct_ok(cfg))
		return UW_EINVAL;
	if (!a)
		return UW_EARCH;
	if (!uw_reg_get(regs, a->info.pc, &pc) ||
	    !uw_reg_get(regs, a->info.sp, &sp))
		return UW_EREG;
	st = &uwi_state(cur)->step;
	cur->cfa = 0;
	cur->depth = 0;
	cur->flags = 0;
	cur->source = UW_SRC_NONE;
	cur->stop = UW_STOP_NONE;
	st->cm_thread = 0;
	st->bp_depth = 0;
	st->row_sf = NULL;
	cur->module = uwi_find_module(cfg, uwi_code_addr(a, pc));
	return 0;
}

int uw_cursor_init(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_regs *regs)
{
	int ret = cursor_begin(cur, cfg, regs,
			       cfg ? uwi_arch_get(cfg->arch) : NULL);

	if (!ret)
		uwi_regs_copy(&cur->regs, regs);
	return ret;
}

/*
 * Begin a step: the frame's pc and sp, and the address its tables are
 * searched for (uwi_lookup_pc()).
 */
static int step_begin(struct uw_cursor *cur, const struct uwi_arch *a)
{
	struct uwi_step *st = &uwi_state(cur)->step;
	bool exact;

	if (!uw_reg_get(&cur->regs, a->info.pc, &st->pc) ||
	    !uw_reg_get(&cur->regs, a->info.sp, &st->sp))
		return UW_EREG;
	exact = uwi_pc_exact(cur->depth, cur->flags);
	st->sp_guess = uwi_sp_guessed(cur, a);
	cur->flags = 0;
	cur->source = UW_SRC_NONE;
	st->ra_in_reg = false;
	st->sig_other = false;
	st->arm_keep = false;
	st->none = NULL;
	st->lookup = uwi_lookup_pc(uwi_code_addr(a, st->pc), exact);
	return 0;
}

/*
 * Commit the outcome of the phases: end the walk, or check that the
 * caller the cursor now holds is progress, count it and find its module.
 */
static int commit(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		  const struct uwi_arch *a, int ret)
{
	const struct uwi_step *st = &uwi_state(cur)->step;
	uint64_t pc, sp, lookup;
	uint32_t depth;
	int err;

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
	if (ret == UWI_STEPPED) {
		err = !uwi_caller_above(st->sp, sp, st->ra_in_reg) ?
		      UW_ENOPROGRESS :
		      !uwi_sp_aligned(sp, a->info.ptr_size) ? UW_EALIGN : 0;
		if (err)
			return end_walk(cur, stop_kind(cur, err), err);
	}
	if (uwi_same_frame(st->pc, st->sp, pc, sp))
		return end_walk(cur, stop_kind(cur, UW_ENOPROGRESS),
				UW_ENOPROGRESS);
	depth = cur->depth + 1;
	cur->depth = depth;
	if (uwi_ra_ends(pc))
		return end_walk(cur, UW_STOP_END, UW_STEP_END);
	uwi_assume(depth != 0);		/* below the depth limit */
	lookup = uwi_lookup_pc(uwi_code_addr(a, pc),
			       uwi_pc_exact(depth, cur->flags));
	cur->module = next_module(cfg, cur->module, lookup);
	return UW_STEP_CALLER;
}

/*
 * The general step: the phases, then the commit.  Out of line, as are
 * the fast loops: neither's frame is on the stack under the other's.
 */
static uwi_noinline int step_general(struct uw_cursor *cur,
				     const struct uw_walk_cfg *cfg,
				     const struct uwi_arch *a)
{
	unsigned int i;
	int ret;

	if (cur->depth >= uwi_depth_limit(cfg))
		return end_walk(cur, UW_STOP_DEPTH, UW_EDEPTH);
	ret = step_begin(cur, a);
	if (ret)
		return end_walk(cur, UW_STOP_NO_INFO, ret);
	for (i = 0; ret == UWI_NEXT && i < UWI_NPHASES; i++)
		ret = run_phase(cur, cfg, a, a->phases[i]);
	/* The fast loop's row (uwi_sframe_step()) served this step only. */
	uwi_state(cur)->step.row_sf = NULL;
	return commit(cur, cfg, a, ret);
}

/* uw_step() takes the general step for every frame. */
int uw_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	const struct uwi_arch *a;

	if (cur->stop != UW_STOP_NONE)
		return UW_STEP_END;
	a = uwi_arch_get(cfg->arch);
	if (!a)
		return end_walk(cur, UW_STOP_BAD_DATA, UW_EARCH);
	return step_general(cur, cfg, a);
}

/* The cursor's frame, its registers regs (the cursor's, or the first's). */
static uwi_always_inline void record(struct uw_frame *f,
				     const struct uw_regs *regs,
				     const struct uw_cursor *cur,
				     const struct uwi_arch *a)
{
	uint64_t pc = regs->r[a->info.pc];
	uint8_t flags = cur->flags;

	if (a->thumb && (pc & 1))
		flags |= UW_FRAME_THUMB;
	uwi_frame_new(f, uwi_code_addr(a, pc), regs->r[a->info.sp], flags,
		      cur->module);
}

/* Whether the walk runs the fast loops (lib/walk_fast.c). */
static uwi_always_inline bool fast_walk(const struct uw_walk_cfg *cfg)
{
	return UW_HAS_FAST && !(cfg->flags & UW_WALK_NO_FAST);
}

/*
 * The walk from frames[n - 1], the cursor's frame, recorded: its callers
 * into frames[n..max).  Each frame goes to a fast loop first: the SFrame
 * loop for a frame in a module with an SFrame table, the frame-pointer
 * loop for the others (each takes frames while they have its shape);
 * the frame a loop stops at takes the general step.  uw_walk() and
 * uw_walk_more(); inlined in both, so that neither has a frame more on
 * its stack than before it.
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
		/* Each loop checks UW_WALK_NO_FAST with its other conditions. */
		sf = cur->module < cfg->nmods && cfg->mods[cur->module].sframe;
		if (UW_HAS_FAST && sf)
			n = uwi_fast_sframe(cur, cfg, a, from, frames, n, max);
		/*
		 * uw_walk()'s first frame's registers are the caller's: taken,
		 * the fast loop leaves the cursor its caller's; else the
		 * cursor needs them.
		 */
		if (from != &cur->regs) {
			if (n == 1)
				uwi_regs_copy(&cur->regs, regs);
			from = &cur->regs;
		}
		if (UW_HAS_FAST && !sf) {
			n = uwi_fast_arm(cur, cfg, frames, n, max);
			n = uwi_fast_fp(cur, cfg, a, frames, n, max);
		}
		if (n >= max) {
			res->stop = UW_STOP_DEPTH;
			res->err = UW_EDEPTH;
			break;
		}
		ret = UW_STEP_END;
		if (cur->stop == UW_STOP_NONE)
			ret = step_general(cur, cfg, a);
		/* The rule just used (or tried) belongs to the previous frame. */
		uwi_frame_unwound(&frames[n - 1], ret > 0 ? cur->cfa : 0,
				  ret > 0 ? cur->source : UW_SRC_NONE);
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
	a = cfg ? uwi_arch_get(cfg->arch) : NULL;
	ret = cursor_begin(cur, cfg, regs, a);
	if (ret || !frames || max == 0) {
		res->stop = ret ? UW_STOP_NO_INFO : UW_STOP_DEPTH;
		res->err = ret ? ret : UW_EDEPTH;
		return 0;
	}
	record(&frames[0], regs, cur, a);
	/* Without the fast loops, the cursor needs the registers at once. */
	if (!fast_walk(cfg)) {
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
