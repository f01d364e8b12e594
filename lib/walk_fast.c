// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker's fast loops (UW_HAS_FAST), beside its general step
 * (lib/walk.c) as zlib keeps inflate_fast() beside inflate().
 *
 * uw_walk() and uw_walk_more() hand every frame to one of them before
 * the general step:
 *
 *   uwi_fast_sframe()  frames of a module with an SFrame table whose row
 *                      for the frame's pc has one of the common shapes
 *                      (uwi_fast_byte(), walk.h): the CFA at sp or fp +
 *                      offset, and a frame record, or the return address
 *                      alone with fp unchanged, or fp saved apart, or a
 *                      signed return address; the row from the cache or,
 *                      on a miss or without one, from the table;
 *   uwi_fast_fp()      frames of a module without tables, in a walk with
 *                      a cache, whose return address the cache knows is
 *                      no sigreturn trampoline: frame records;
 *   uwi_fast_arm()     32-bit ARM frames whose cache entry holds the row
 *                      their EHABI or Chrome opcodes reduce to
 *                      (UWI_CACHE_ARM_ROW, lib/arm_exec.h) and says their
 *                      return address is no trampoline: the row applied
 *                      as uwi_arm_row_step() applies it, in 32-bit
 *                      arithmetic, the popped words read as one block.
 *
 * Each takes frames in a row, the frame's registers in locals, the
 * cursor written once at the end, with the general step's rules
 * (walk.h); each stops before a frame it cannot take whole (another
 * shape, another format, no row, a check that fails, anything that
 * would end the walk), changing nothing of it, and the general step
 * takes that frame from the start.  So the frames, their sources and the
 * stop are the general step's: the tests walk every walk both ways
 * (UW_WALK_NO_FAST) and compare.
 *
 * Entry: frames[n - 1] is the cursor's frame, recorded (record(),
 * walk.c), its registers regs (the cursor's, or uw_walk()'s first
 * frame's, uwi_fast_sframe() only); cur->stop is UW_STOP_NONE; n < max.
 * The loops take frames into frames[n..max) and no step from a depth at
 * or past uwi_depth_limit().
 *
 * Return: the frames written in all: n when the loop took none (the
 * cursor untouched, but for its scratch), else n + k with the cursor
 * holding the k-th caller as the general step leaves it (fast_store())
 * and frames[n + k - 1] recorded as record() would.  uwi_fast_sframe()
 * stopped at a frame whose row it looked up leaves that row for the
 * general step (step.row_sf, step.row_pc: uwi_sframe_step() takes it
 * without a second lookup).
 *
 * Where a loop skips a check of the general step, one of these
 * conditions makes it redundant:
 *
 *   UWI_FAST_ARCH  the loops run only on architectures with 8-byte
 *     words, whose caller's sp is the CFA, whose code addresses have no
 *     Thumb bit and whose step tries the tables first (x86-64, AArch64:
 *     uwi_fast_arch(), walk.h): no uwi_code_addr(), w = 8, sp_from_cfa 0.
 *   UWI_FAST_RA  every frame a loop reaches after its first has a return
 *     address as its pc, not 0 (the loop checked uwi_ra_ends()), not
 *     exact: its lookup is pc - 1 (uwi_lookup_pc()).  The fp loop starts
 *     only at such a frame too.
 *   UWI_FAST_FP_KNOWN  the SFrame loop runs only with fp known
 *     (uwi_sframe_on()), so each frame's fp is known: the unchanged fp of a
 *     row that does not save it is known.
 *   UWI_FAST_NO_WRAP  the SFrame loop computes a CFA and the address of
 *     what it reads as a base (sp or fp) plus two 32-bit offsets without
 *     overflow checks (uwi_add_off()).  Through the accessor, each base
 *     lies in [2^32, 2^64 - 2^33) (fast_base_ok()), so neither can wrap.
 *     In place, the stack bounds lie there (checked once, sf_init()), and
 *     a read must fall within them: the sum of two 32-bit offsets cannot
 *     bring a base that wrapped back into them.  Any other base takes the
 *     general step's checked arithmetic.  The fp loop's record address
 *     is checked by uwi_fp_record() itself.
 *   UWI_FAST_BOUNDS  a loop finds the stack bounds' last offsets for its
 *     reads once (uwi_stack_last()); each read checks its offset alone
 *     (uwi_stack_in()).
 *   UWI_FAST_HIT  a cache hit needs no module range check: its entry was
 *     made for a pc of the module's range (a miss checks the range before
 *     it asks the table), and the range stays while cache_gen does.
 *   UWI_FAST_NO_SIGFRAME  a frame of a module without tables whose cache
 *     entry says "no table row, no trampoline" (uwi_cache_no_sigframe())
 *     is one the general step's phases pass on to the frame record: the
 *     fp loop goes straight there.
 *   UWI_FAST_HOST_ORDER  the fp loop runs only on a stack in the host's
 *     byte order (the in-place copies need it anyway): its words are
 *     plain loads.
 *   UWI_FAST_ARM_NOT_M  the ARM loop does not run for a Cortex-M walk
 *     (uwi_arm_on()): no frame it takes can be an exception return, so
 *     the excframe phase has nothing to take.
 *   UWI_FAST_ARM_32  the ARM loop runs only when every register known
 *     holds a 32-bit value, the stack bounds lie below 4 GiB and each
 *     module it takes ends there (arm_init(), arm_module()): the
 *     opcodes' 32-bit words are the registers, and the cursor's 64-bit
 *     ones are written back from them.
 *   UWI_FAST_ARM_NO_LR  the ARM loop starts only at a frame whose lr is
 *     unknown (the general step drops it after every ARM frame), so it
 *     takes only rows that pop pc or lr (the last word of the block),
 *     and no return address comes from a register: ra_in_reg is false,
 *     uwi_caller_above() needs the sp to rise, and the same frame
 *     (uwi_same_frame()) cannot come again.
 *   UWI_FAST_ARM_LEN  the ARM loop takes the block's length and where
 *     r4-r11 end in it from the entry (uwi_arm_row_put() works them out
 *     from the mask, which uwi_arm_row_ok() checks against the row for
 *     the general step): an entry overwritten with anything may give
 *     other frames than the general step's, never a read outside the
 *     stack bounds or the block.
 *   UWI_FAST_HIT for ARM too: a hit is an entry of the module's own
 *     tables (EHABI or Chrome), so the loop checks only that its source
 *     is one of the two, not which tables the module has.
 *
 * Tried, and slower (callgrind instructions a frame of
 * scripts/bench-walk.sh's 38-frame stack, x86-64, GCC 12; qemu-arm's
 * trace for 32-bit ARM), so that nobody tries them again unmeasured:
 *   - the SFrame loop's three copies in one function with their
 *     dispatch (one call less a walk): the cached loop took 46
 *     instructions a frame instead of 45, the walk through the accessor
 *     83 instead of 81 (the registers allocated across three loops);
 *   - the cache's slots and mask read from the loop's state as memory
 *     operands, to free two registers for the spilled ones: 57.6 a frame
 *     instead of 56.7;
 *   - the hit test as one hint over both compares,
 *     uwi_likely(e->pc == lookup && e->key == key): GCC laid the hit's
 *     path out of line, 56.4 a frame instead of 55.4 (uwi_cache_is()
 *     hints each compare);
 *   - the module range as two compares, pc >= start && pc < end, in the
 *     uncached loop (every frame checks it): 440.8 a frame instead of
 *     439.9 with one subtraction against the module's length;
 *   - a rule that returns its error code for the caller to test
 *     (uwi_caller_above() as 0, UW_ENOPROGRESS or UW_EALIGN) rather than
 *     a predicate the caller branches on: +5 a frame on 32-bit ARM;
 *   - the end of an ARM opcode sequence through a bool out-parameter of
 *     next_op() rather than UW_ENOENT: +10 a frame on ARM (arm_exec.c).
 *   - fast_pair() and fast_word() as one reader returning where the
 *     bytes are: 56.5 a cached frame instead of 55.6.
 *   - the ARM loop's pops as a loop over all 16 register bits, lowest
 *     first, counting the words: 313 a cached EHABI frame (qemu-arm)
 *     instead of 222 with one clz a popped register, highest first
 *     (and 216 with one ctz a word, their count kept in the entry, the
 *     loop's one test); and the return address's word found by
 *     counting the bits below pc or lr (it is always the block's last
 *     word);
 *   - the interpreter's in-place block read as a branch inside
 *     pop_core() (arm_exec.c): through the accessor, +7 (EHABI) and +14
 *     (Chrome) instructions an uncached frame; run() now chooses
 *     between pop_block() and pop_core() instead.
 */
#include "span.h"
#include "walk.h"
#include "arm_exec.h"

/* UWI_FAST_NO_WRAP: through the accessor, a base in [2^32, 2^64 - 2^33). */
#define FAST_BASE_MIN	((uint64_t)1 << 32)
#define FAST_BASE_SPAN	(~(uint64_t)0 - ((uint64_t)3 << 32) + 1)

static uwi_always_inline bool fast_base_ok(uint64_t base)
{
	return base - FAST_BASE_MIN < FAST_BASE_SPAN;
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
 * The cursor as the general step leaves it after frames steps by source
 * (UWI_FAST_ARCH: the caller's sp is the CFA).
 */
static uwi_always_inline void fast_store(struct uw_cursor *cur,
					 const struct uwi_arch *a,
					 uint64_t pc, uint64_t sp, uint64_t fp,
					 uint16_t module, uint32_t frames,
					 uint8_t source)
{
	uwi_set_caller(&cur->regs, a, pc, sp, fp, true);
	cur->cfa = sp;
	cur->depth += frames;
	cur->module = module;
	cur->flags = 0;
	cur->source = source;
	uwi_state(cur)->step.ra_in_reg = false;
}

/*
 * The stack as a loop reads it (UWI_FAST_BOUNDS): v->lo, v->last16 and
 * v->last8 from the bounds (none: every offset), and the way to it: in
 * place from v->mem, or through the accessor.  false when no 16-byte
 * read fits.
 */
static uwi_always_inline bool fast_stack(struct uwi_fast *v,
					 const struct uw_walk_cfg *cfg,
					 bool direct)
{
	uint64_t last16 = ~(uint64_t)0 - 8, lo = 0;

	if (cfg->stack_hi) {
		if (!uwi_stack_last(cfg, 16, &last16))
			return false;
		lo = cfg->stack_lo;
	}
	v->lo = lo;
	v->last16 = last16;
	/* A word has 8 bytes more room (without bounds: any offset). */
	v->last8 = last16 + 8;
	if (direct) {
		v->mem = uwi_direct_base(cfg);
	} else {
		v->read = cfg->mem.read;
		v->ctx = cfg->mem.ctx;
	}
	return true;
}

/*
 * The frame record at v->lo + t (t = addr - lo): the return address *ra
 * and the caller's fp *fp; false when out of bounds or unreadable.
 * fast_word(): one word there, into *w.  Two functions, not one reader
 * for both (see "Tried, and slower").
 */
static uwi_always_inline bool fast_pair(struct uw_cursor *cur,
					const struct uwi_fast *v, uint64_t t,
					bool direct, bool be, uint64_t *ra,
					uint64_t *fp)
{
	uint8_t *buf = uwi_state(cur)->scratch.fast.buf;
	const uint8_t *p = buf;

	if (!uwi_stack_in(t, v->last16))
		return false;
	if (direct)
		p = v->mem + (size_t)t;
	else if (uwi_mem_read(v->read, v->ctx, t + v->lo, buf, 16))
		return false;
	*ra = uwi_load64(p + 8, be);
	*fp = uwi_load64(p, be);
	return true;
}

static uwi_always_inline bool fast_word(struct uw_cursor *cur,
					const struct uwi_fast *v, uint64_t t,
					bool direct, bool be, uint64_t *w)
{
	uint8_t *buf = uwi_state(cur)->scratch.fast.buf;
	const uint8_t *p = buf;

	if (!uwi_stack_in(t, v->last8))
		return false;
	if (direct)
		p = v->mem + (size_t)t;
	else if (uwi_mem_read(v->read, v->ctx, t + v->lo, buf, 8))
		return false;
	*w = uwi_load64(p, be);
	return true;
}

/* ---- SFrame frames ---- */

/*
 * The module's part of the loop's state, when the frame changes modules;
 * false for no module, or one without SFrame.  An uncached module (no
 * cache, or cache_id 0) gets the cursor's own entry, whose key (0) no
 * module's key matches here: every frame misses, and sf_fill() fills
 * that entry instead of a slot.
 */
static uwi_always_inline bool sf_module(struct uwi_fast *v,
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
	v->mlen = mod->end - mod->start;	/* it holds the frame's pc */
	if (c && mod->cache_id) {
		v->ents = (const uint8_t *)c->entries;
		v->mask16 = (uint64_t)c->mask << 4;
		v->key = uwi_cache_key(mod);
	} else {
		v->ents = (const uint8_t *)&uwi_state(cur)->scratch.fast.e;
		v->mask16 = 0;
		v->key = uwi_cache_key(mod) | 1;
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
sf_fill(struct uw_cursor *cur, uint64_t lookup, struct uw_cache_entry *e,
	struct uw_frame *fr)
{
	struct uwi_fast *v = &uwi_state(cur)->scratch.fast.v;

	uwi_cache_row(e, &uwi_state(cur)->scratch.fast.row, &v->a->info,
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
 * The loop's view of the walk and of the cursor's frame's module; false
 * when the loop cannot take the frame at all.  direct: reading in place,
 * which needs the stack bounds in [2^32, 2^64 - 2^33)
 * (UWI_FAST_NO_WRAP) and the host's byte order (the words are plain
 * loads).
 */
static uwi_always_inline bool sf_init(struct uwi_fast *v,
				      struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg,
				      const struct uwi_arch *a, bool direct)
{
	struct uwi_state *s = uwi_state(cur);

	if (direct && (!uwi_direct_ok(cfg) || cfg->big_endian != host_be() ||
		       !fast_base_ok(cfg->stack_lo) ||
		       cfg->stack_hi - FAST_BASE_MIN > FAST_BASE_SPAN))
		return false;
	if (!fast_stack(v, cfg, direct))
		return false;
	v->cfg = cfg;
	v->a = a;
	v->pac = uwi_pac_bits(cfg);
	v->fills = 0;
	v->fill_fr = NULL;
	v->want = UWI_FAST_ON | (uint8_t)cfg->arch;
	s->scratch.fast.e.key = 0;
	s->step.row_sf = NULL;
	return sf_module(v, cur, cur->module);
}

/*
 * The CFA of a fast shape, base plus cfa_off (UWI_FAST_NO_WRAP), and
 * whether the caller it gives lies above the frame (uwi_caller_above():
 * its sp is the CFA, UWI_FAST_ARCH).
 */
static uwi_always_inline bool sf_cfa(uint8_t shape, uint64_t sp,
				     uint64_t fp, int64_t cfa_off,
				     bool direct, uint64_t *cfa)
{
	const uint64_t base = shape & UWI_SHAPE_FP ? fp : sp;

	if (!direct && !fast_base_ok(base))
		return false;
	*cfa = base + cfa_off;
	return uwi_caller_above(sp, *cfa, false) && uwi_sp_aligned(*cfa, 8);
}

/*
 * A frame of another shape than a plain frame record or a return
 * address alone (see uwi_fast_byte(): fp saved apart, or a signed return
 * address): its return address, PAC bits cleared, into v->ra and its
 * caller's fp into v->fp (the frame's on entry), from the CFA and
 * pair_off; false to leave the frame to the general step.  Out of line:
 * the loop's registers are better spent on the common shapes.
 */
static uwi_always_inline bool sf_other(struct uw_cursor *cur,
				       const struct uw_cache_entry *slot,
				       uint8_t shape, uint64_t cfa,
				       int64_t pair_off, bool direct)
{
	struct uwi_state *s = uwi_state(cur);
	struct uwi_fast *v = &s->scratch.fast.v;
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
		off = slot == &s->scratch.fast.e ? s->scratch.fast.row.fp.off :
						   slot->u.rule[2].off;
		if (!fast_word(cur, v, t, direct, be, &v->ra) ||
		    !fast_word(cur, v, cfa + off - v->lo, direct, be, &v->fp))
			return false;
	} else if (!fast_pair(cur, v, t, direct, be, &v->ra, &v->fp)) {
		return false;
	}
	if (shape & UWI_SHAPE_PAC) {
		uwi_opaque(v->ra);
		v->ra = uwi_strip_pac(v->ra, v->pac);
	}
	return true;
}

static uwi_noinline bool sf_other_direct(struct uw_cursor *cur,
					 const struct uw_cache_entry *slot,
					 uint8_t shape, uint64_t cfa,
					 int64_t pair_off)
{
	return UW_HAS_FAST_DIRECT &&
	       sf_other(cur, slot, shape, cfa, pair_off, true);
}

static uwi_noinline bool sf_other_mem(struct uw_cursor *cur,
				      const struct uw_cache_entry *slot,
				      uint8_t shape, uint64_t cfa,
				      int64_t pair_off)
{
	return sf_other(cur, slot, shape, cfa, pair_off, false);
}

/*
 * A miss: the table's row for lookup (in the frame's module, which the
 * caller checked), into the cache's slot, or without one (the cursor's
 * own entry) only what the loop reads.  false to stop (no row, or an
 * error: the general step says which).
 */
static uwi_always_inline bool sf_lookup(struct uw_cursor *cur,
					struct uwi_fast *v, uint64_t lookup,
					struct uw_cache_entry *slot,
					struct uw_frame *fr, bool cached,
					uint8_t *fast, uint8_t *shape,
					int64_t *cfa_off, int64_t *pair_off)
{
	struct uwi_state *s = uwi_state(cur);
	struct uw_row *row = &s->scratch.fast.row;
	const struct uw_cache_entry *e;
	int32_t off;

	if (uw_sframe_find(v->mod->sframe, lookup - v->mod->bias, row))
		return false;
	if (slot != &s->scratch.fast.e) {
		e = sf_fill(cur, lookup, slot, fr);
		*fast = e->fast;
		*shape = e->shape;
		*pair_off = e->pair_off;
	} else {
		/*
		 * Counted for a cache's hits (a walk with a cache, of a
		 * module it keeps out), which a copy without a cache has
		 * none of.
		 */
		*fast = uwi_fast_byte(row, &v->a->info, (uint8_t)v->cfg->arch,
				      shape, &off);
		*pair_off = off;
		if (cached)
			v->fills++;
		v->fill_fr = fr;
	}
	*cfa_off = row->cfa.off;
	return true;
}

/*
 * The caller of a frame (sp, fp) whose entry's fast byte is fast: its
 * CFA, return address and fp into *cfa, *ra and *nfp; false to leave the
 * frame to the general step.  Only a fast entry of this architecture,
 * and only for what it says: want itself for a plain frame record, with
 * UWI_FAST_SAMEFP or UWI_FAST_OTHER for the other shapes; anything else
 * stops (a slot other formats fill has fast 0: uwi_cache_tag()).
 */
static uwi_always_inline bool sf_caller(struct uw_cursor *cur,
					struct uwi_fast *v,
					const struct uw_cache_entry *slot,
					unsigned int fast, unsigned int want,
					uint8_t shape, int64_t cfa_off,
					int64_t pair_off, uint64_t sp,
					uint64_t fp, bool direct, bool be,
					uint64_t *cfa, uint64_t *ra,
					uint64_t *nfp)
{
	if (uwi_likely(fast == want))
		return sf_cfa(shape, sp, fp, cfa_off, direct, cfa) &&
		       fast_pair(cur, v, *cfa + pair_off - v->lo, direct, be,
				 ra, nfp);
	if (fast == (want | UWI_FAST_SAMEFP)) {
		*nfp = fp;	/* UWI_FAST_FP_KNOWN */
		return sf_cfa(shape, sp, fp, cfa_off, direct, cfa) &&
		       fast_word(cur, v, *cfa + pair_off - v->lo, direct, be,
				 ra);
	}
	if (fast != (want | UWI_FAST_OTHER))
		return false;
	v->fp = fp;
	if (!sf_cfa(shape, sp, fp, cfa_off, direct, cfa) ||
	    !(direct ? sf_other_direct(cur, slot, shape, *cfa, pair_off) :
		       sf_other_mem(cur, slot, shape, *cfa, pair_off)))
		return false;
	*ra = v->ra;
	*nfp = v->fp;
	return true;
}

/*
 * After the loop, which stopped at frame fr (lookup its lookup address;
 * sp and fp the last frame's taken, flags0 the first's flags): the row it
 * may hand the general step, the cache's hits, the last frame's record
 * and the cursor.  Returns the frames taken.
 */
static uwi_always_inline size_t sf_end(struct uw_cursor *cur,
				       struct uw_frame *fr, uint64_t lookup,
				       uint64_t sp, uint64_t fp, uint8_t flags0)
{
	struct uwi_state *s = uwi_state(cur);
	struct uwi_fast *v = &s->scratch.fast.v;
	size_t taken = (size_t)(fr - v->fr0);
	uint16_t module;

	/*
	 * Stopped at a frame it looked up: the general step takes the row
	 * without a second lookup (uwi_sframe_step()).
	 */
	if (v->fill_fr == fr) {
		s->step.row_sf = v->mod->sframe;
		s->step.row_pc = lookup - v->mod->bias;
	}
	/*
	 * Every frame taken was a hit but those filled (the last fill may
	 * be the frame the loop stopped at).  A hit the loop stops at is
	 * the general step's, which counts it.
	 */
	if (UW_HAS_CACHE && v->cfg->cache)
		v->cfg->cache->hits += taken - v->fills + (v->fill_fr == fr);
	if (!taken)
		return 0;
	/* The last frame's module, unless the loop found it. */
	module = v->module;
	if (!v->mod || !uwi_in_module(v->mstart, v->mstart + v->mlen, lookup))
		module = uwi_find_module(v->cfg, lookup);
	/* The first frame's flags are record()'s, the last its own. */
	v->fr0[-1].flags = flags0;
	uwi_frame_step(fr - 1, 0, uwi_frame_tag(UW_SRC_NONE, 0, module));
	fast_store(cur, v->a, fr[-1].pc, sp, fp, module, (uint32_t)taken,
		   UW_SRC_SFRAME);
	return taken;
}

/*
 * The SFrame loop, for uwi_fast_sframe() (see the head comment; fr is
 * frames + n, fend frames + max, regs the cursor's frame's registers).
 * direct and cached are constants at each call, one copy of the loop per
 * mode: in place or through the accessor; without cached, the walk has
 * no cache and no slot is looked at (every frame is looked up, into the
 * cursor's own entry).  Returns the frames taken.
 */
static uwi_always_inline size_t sframe_loop(struct uw_cursor *cur,
					    const struct uw_walk_cfg *cfg,
					    const struct uwi_arch *a,
					    const struct uw_regs *regs,
					    struct uw_frame *fr,
					    struct uw_frame *fend,
					    bool direct, bool cached)
{
	const bool be = direct ? host_be() : cfg->big_endian;
	struct uwi_state *s = uwi_state(cur);
	struct uwi_fast *v = &s->scratch.fast.v;
	struct uw_cache_entry *slot;
	uint64_t sp, fp, lookup, cfa, ra, nfp, key, mask16;
	const uint8_t *ents;
	unsigned int want;
	uint8_t fast, shape, flags0;
	int64_t cfa_off, pair_off;
	uint32_t tag;

	/* uwi_sp_guessed(): the general step takes the frame. */
	if (fr >= fend || uwi_sp_guessed(cur, a) ||
	    !sf_init(v, cur, cfg, a, direct))
		return 0;
	sp = regs->r[a->info.sp];
	fp = regs->r[a->info.fp];
	lookup = uwi_lookup_pc(regs->r[a->info.pc],
			       uwi_pc_exact(cur->depth, cur->flags));
	/*
	 * From here on cfg, a and the first frame are read from v: none
	 * holds a register through the loop, which needs every one.
	 */
	v->fr0 = fr;
	flags0 = fr[-1].flags;
	/* The module's part, and the walk's want, in registers. */
	ents = v->ents;
	mask16 = v->mask16;
	key = v->key;
	want = v->want;
	tag = uwi_frame_tag(UW_SRC_SFRAME, 0, v->module);
	for (;;) {
		slot = cached ? uwi_cache_slot_at(ents, mask16, lookup) :
				&s->scratch.fast.e;
		if (cached && uwi_cache_is(slot, lookup, key)) {
			/* UWI_FAST_HIT: no range check. */
			fast = slot->fast;
			shape = slot->shape;
			cfa_off = slot->u.rule[0].off;
			pair_off = slot->pair_off;
		} else {
			if (uwi_unlikely(!uwi_in_module(v->mstart,
							v->mstart + v->mlen,
							lookup))) {
				if (!sf_module(v, cur,
					       uwi_find_module(v->cfg, lookup)))
					break;
				ents = v->ents;
				mask16 = v->mask16;
				key = v->key;
				tag = uwi_frame_tag(UW_SRC_SFRAME, 0,
						    v->module);
				continue;
			}
			if (!sf_lookup(cur, v, lookup, slot, fr, cached, &fast,
				       &shape, &cfa_off, &pair_off))
				break;
			/* Read again rather than kept across the calls. */
			ents = v->ents;
			mask16 = v->mask16;
			key = v->key;
			want = v->want;
		}
		if (!sf_caller(cur, v, slot, fast, want, shape, cfa_off,
			       pair_off, sp, fp, direct, be, &cfa, &ra, &nfp))
			break;
		/* Its return address, below, must be other than 0. */
		if (uwi_ra_ends(ra))
			break;
		fp = nfp;
		sp = cfa;
		uwi_frame_step(fr - 1, cfa, tag);
		uwi_frame_set(fr, ra, cfa);
		lookup = uwi_lookup_pc(ra, false);	/* UWI_FAST_RA */
		if (++fr == fend)
			break;
	}
	return sf_end(cur, fr, lookup, sp, fp, flags0);
}

/*
 * The SFrame loop's copies, one per mode (six arguments: no stack), for
 * uwi_fast_sframe() (walk.h), which checks uwi_sframe_on() first and bounds
 * fend by the depth limit: in place with a cache and without, and
 * through the accessor (through it, a walk without a cache takes this
 * copy too, with the cursor's own entry: the accessor's call costs more
 * than a slot's look).  Each returns the frames it took.
 */
size_t uwi_fast_sframe_direct(struct uw_cursor *cur,
			      const struct uw_walk_cfg *cfg,
			      const struct uwi_arch *a,
			      const struct uw_regs *regs,
			      struct uw_frame *fr, struct uw_frame *fend)
{
	return UW_HAS_FAST_DIRECT ?
	       sframe_loop(cur, cfg, a, regs, fr, fend, true, true) : 0;
}

size_t uwi_fast_sframe_direct_nocache(struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg,
				      const struct uwi_arch *a,
				      const struct uw_regs *regs,
				      struct uw_frame *fr,
				      struct uw_frame *fend)
{
	return UW_HAS_FAST_DIRECT ?
	       sframe_loop(cur, cfg, a, regs, fr, fend, true, false) : 0;
}

size_t uwi_fast_sframe_mem(struct uw_cursor *cur,
			   const struct uw_walk_cfg *cfg,
			   const struct uwi_arch *a,
			   const struct uw_regs *regs,
			   struct uw_frame *fr, struct uw_frame *fend)
{
	return sframe_loop(cur, cfg, a, regs, fr, fend, false, true);
}

/* ---- frame-pointer frames ---- */

/*
 * Whether the fp loop may take frames of module i: one without tables,
 * cached (UWI_FAST_NO_SIGFRAME needs its entries).
 */
static uwi_always_inline const struct uw_module *
fp_module(const struct uw_walk_cfg *cfg, uint16_t i)
{
	const struct uw_module *m;

	if (i >= cfg->nmods)
		return NULL;
	m = &cfg->mods[i];
	if (m->sframe || m->ehabi || m->chrome || m->cu || m->bp ||
	    !m->cache_id)
		return NULL;
	return m;
}

/*
 * The fp loop (see the head comment): direct is a constant at each call.
 * Its state is in locals, but for the stack view (the cursor's scratch).
 */
static uwi_always_inline size_t fp_loop(struct uw_cursor *cur,
					const struct uw_walk_cfg *cfg,
					const struct uwi_arch *a,
					struct uw_frame *frames, size_t n,
					size_t max, bool direct)
{
	struct uwi_fast *v = &uwi_state(cur)->scratch.fast.v;
	const struct uw_arch_info *ai = &a->info;
	const uint64_t pac = uwi_pac_bits(cfg);
	const uint32_t limit = uwi_depth_limit(cfg);
	const uint8_t *ents = (const uint8_t *)cfg->cache->entries;
	const uint64_t mask16 = (uint64_t)cfg->cache->mask << 4;
	const struct uw_module *m;
	struct uw_frame *fr = frames + n, *fend;
	const struct uw_cache_entry *e;
	uint64_t pc, sp, fp, ra, cfa, nfp, key, mstart, mend;
	uint32_t depth = cur->depth, tag;
	uint16_t module = cur->module;

	/*
	 * UWI_FAST_RA: a return address (not exact), in a module without
	 * tables; UWI_FAST_HOST_ORDER: the stack in the host's byte order.
	 */
	if (uwi_pc_exact(depth, cur->flags) || depth >= limit ||
	    cfg->big_endian != host_be() ||
	    !uw_reg_get(&cur->regs, ai->pc, &pc) ||
	    !uw_reg_get(&cur->regs, ai->sp, &sp) ||
	    !uw_reg_get(&cur->regs, ai->fp, &fp) || uwi_ra_ends(pc) ||
	    !(m = fp_module(cfg, module)) || !fast_stack(v, cfg, direct))
		return n;
	if (direct && !uwi_direct_ok(cfg))
		return n;
	/* Frame n comes with step depth + 1: none past the depth limit. */
	fend = frames + max;
	if (max - n > limit - depth)
		fend = fr + (limit - depth);
	key = uwi_cache_key(m);
	mstart = m->start;
	mend = m->end;
	tag = uwi_frame_tag(UW_SRC_FP, 0, module);
	while (fr < fend) {
		e = uwi_cache_slot_at(ents, mask16, pc - 1);
		if (!uwi_cache_is(e, pc - 1, key) ||
		    !uwi_cache_no_sigframe(e, pc - 1, pc) ||
		    uwi_fp_record(fp, 8) ||
		    !fast_pair(cur, v, fp - v->lo, direct, host_be(), &ra,
			       &nfp))
			break;
		ra = uwi_strip_pac(ra, pac);
		cfa = fp + 16;
		if (!uwi_caller_above(sp, cfa, false) ||
		    !uwi_sp_aligned(cfa, 8) || uwi_ra_ends(ra))
			break;
		sp = cfa;
		fp = nfp;
		pc = ra;
		uwi_frame_step(fr - 1, cfa, tag);
		/* Another module: one the loop takes, or the end of it. */
		if (!uwi_in_module(mstart, mend, uwi_lookup_pc(ra, false))) {
			module = uwi_find_module(cfg, uwi_lookup_pc(ra, false));
			m = fp_module(cfg, module);
			if (m) {
				key = uwi_cache_key(m);
				mstart = m->start;
				mend = m->end;
			}
			tag = uwi_frame_tag(UW_SRC_FP, 0, module);
		}
		uwi_frame_set(fr++, ra, cfa);
		if (!m)
			break;
	}
	if (fr == frames + n)
		return n;
	/* The last frame's own (the first's flags were 0: not a signal's). */
	uwi_frame_step(fr - 1, 0, uwi_frame_tag(UW_SRC_NONE, 0, module));
	cfg->cache->hits += (uint64_t)(fr - frames - n);
	fast_store(cur, a, pc, sp, fp, module, (uint32_t)(fr - frames - n),
		   UW_SRC_FP);
	return (size_t)(fr - frames);
}

/*
 * The fp loop's copies, in place and through the accessor, for
 * uwi_fast_fp() (walk.h), which checks uwi_fp_on() first.  Each returns
 * the frames written in all.
 */
size_t uwi_fast_fp_direct(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			  const struct uwi_arch *a, struct uw_frame *frames,
			  size_t n, size_t max)
{
	return UW_HAS_FAST_DIRECT ?
	       fp_loop(cur, cfg, a, frames, n, max, true) : n;
}

size_t uwi_fast_fp_mem(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		       const struct uwi_arch *a, struct uw_frame *frames,
		       size_t n, size_t max)
{
	return fp_loop(cur, cfg, a, frames, n, max, false);
}

/* ---- ARM frames (EHABI and Chrome rows) ---- */

/*
 * The module's part of the ARM loop's state; false for no module, one
 * the cache keeps out, or one without the tables rows come from.
 */
static uwi_always_inline bool arm_module(struct uwi_fast_arm *v,
					 uint16_t module)
{
	const struct uw_walk_cfg *cfg = v->cfg;
	const struct uw_module *mod;
	uint64_t key;

	v->module = module;
	if (module >= cfg->nmods)
		return false;
	mod = &cfg->mods[module];
	v->srcs = (UW_HAS_EHABI && mod->ehabi ? 1u << UW_SRC_EHABI : 0) |
		  (UW_HAS_CHROME && mod->chrome ? 1u << UW_SRC_CHROME : 0);
	/* UWI_FAST_ARM_32: a module past 4 GiB holds no ARM frame. */
	if (!mod->cache_id || !v->srcs || mod->end > ((uint64_t)1 << 32))
		return false;
	key = uwi_cache_key(mod);
	v->key_lo = (uint32_t)key;
	v->key_hi = (uint32_t)(key >> 32);
	v->mstart = (uint32_t)mod->start;
	v->mlen = (uint32_t)(mod->end - mod->start);
	return true;
}

/*
 * The ARM loop's view of the walk; false when it cannot run (see the
 * head comment: UWI_FAST_ARM_32, UWI_FAST_ARM_NO_LR, UWI_FAST_RA).
 */
static uwi_always_inline bool arm_init(struct uwi_fast_arm *v,
				       struct uw_cursor *cur,
				       const struct uw_walk_cfg *cfg,
				       bool direct)
{
	const struct uw_regs *regs = &cur->regs;
	uint32_t *r = uwi_state(cur)->scratch.arm.r;
	unsigned int i;

	if (uwi_pc_exact(cur->depth, cur->flags) ||
	    (regs->valid & ((uint64_t)1 << UW_ARM_LR)) ||
	    (~regs->valid & ((uint64_t)1 << UW_ARM_PC |
			     (uint64_t)1 << UW_ARM_SP)) ||
	    cfg->stack_hi > ((uint64_t)1 << 32) ||
	    (cfg->stack_hi && cfg->stack_lo >= cfg->stack_hi))
		return false;
	if (direct && (!uwi_direct_ok(cfg) || cfg->big_endian != host_be()))
		return false;
	/* The registers as the opcodes see them: 32-bit words. */
	for (i = 0; i < 16; i++) {
		if (uw_reg_get(regs, i, &v->tmp) && v->tmp > 0xffffffffu)
			return false;
		r[i] = (uint32_t)regs->r[i];
	}
	v->cfg = cfg;
	v->ents = (const uint8_t *)cfg->cache->entries;
	v->mask16 = cfg->cache->mask << 4;
	v->sig = UW_HAS_SIGFRAME && !(cfg->flags & UW_WALK_NO_SIGFRAME);
	v->lo = cfg->stack_hi ? (uint32_t)cfg->stack_lo : 0;
	v->last = cfg->stack_hi ? (uint32_t)(cfg->stack_hi - cfg->stack_lo - 1) :
				  0xffffffffu;
	v->hi = cfg->stack_hi > 0xffffffffu ? 0xffffffffu :
					      (uint32_t)cfg->stack_hi;
	if (direct) {
		v->mem = uwi_direct_base(cfg);
	} else {
		v->read = cfg->mem.read;
		v->ctx = cfg->mem.ctx;
	}
	return arm_module(v, cur->module);
}

/*
 * The row of entry e applied to the loop's registers r (valid their
 * valid mask, r[13] the frame's sp): the caller's pc *pc and sp *cfa,
 * and the popped block, *len bytes at *p, read; false to leave the
 * frame to the general step (uwi_arm_row_step() takes it the same way,
 * or runs the opcodes).  Nothing of the loop's state changes here.
 */
static uwi_always_inline bool arm_caller(struct uw_cursor *cur,
					 const struct uwi_fast_arm *v,
					 const struct uw_cache_entry *e,
					 const uint32_t *r, uint32_t valid,
					 bool direct, const uint8_t **p,
					 uint32_t *len, uint32_t *pc,
					 uint32_t *cfa)
{
	const bool be = direct ? host_be() : v->cfg->big_endian;
	const uint32_t w4 = e->u.w[4];
	const unsigned int reg = (w4 >> 16) & 0xf;
	uint8_t *buf = uwi_state(cur)->scratch.arm.buf;
	uint32_t addr, t;

	/* UWI_FAST_ARM_LEN: the block's length from the entry. */
	*len = e->u.w[5] & 0x7c;
	/* UWI_FAST_ARM_NO_LR: the return address popped, pc or lr. */
	if (!(valid & (1u << reg)) || !(w4 & (3u << UW_ARM_LR)) ||
	    !*len ||
	    !uwi_arm_row_span(e->u.w[2], e->u.w[3], w4, e->u.w[5], r[reg],
			      r[UW_ARM_SP], v->hi, cfa, &addr))
		return false;
	/* UWI_FAST_BOUNDS: the block's first and last byte. */
	t = addr - v->lo;
	if (!uwi_stack_in(t, v->last) || !uwi_stack_in(*len - 1, v->last - t))
		return false;
	if (direct)
		*p = v->mem + t;
	else if (uwi_mem_read(v->read, v->ctx, addr, buf, *len))
		return false;
	else
		*p = buf;
	/* pc's word, else lr's: the highest register, the last word. */
	*pc = (uint32_t)uwi_load(*p + *len - 4, 4, be);
	/* The general step's checks (walk.c, commit(); walk_arm.c). */
	return uwi_caller_above(r[UW_ARM_SP], *cfa, false) &&
	       uwi_sp_aligned(*cfa, 4) &&
	       (e->src != UW_SRC_CHROME || uwi_sp_aligned(*cfa, 8)) &&
	       !uwi_ra_ends(*pc);
}

/*
 * The words of r4-r11 a row popped (those a later row or the frame
 * pointer fallback may read: r0-r3, r12 and lr are dropped, pc is the
 * loop's), nk of them ending at p + top, into r: the lowest register
 * from the lowest word up, a set bit at a time.  UWI_FAST_ARM_LEN: nk
 * is the entry's, at most what top holds; should the mask have fewer
 * bits (an overwritten entry), the rest go to r[15], which the loop
 * sets after.
 */
static uwi_always_inline void arm_pop(uint32_t *r, uint32_t mask,
				      uint32_t nk, const uint8_t *p,
				      uint32_t top, bool be)
{
	unsigned int i;

	mask &= 0x0ff0;
	if (nk > top / 4)
		nk = top / 4;
	p += top - 4 * nk;
	/* At most 8 words. */
	for (; nk; nk--) {
		i = (unsigned int)__builtin_ctz(mask | 1u << UW_ARM_PC);
		r[i] = (uint32_t)uwi_load(p, 4, be);
		p += 4;
		mask &= mask - 1;
	}
}

/*
 * After the loop: the last frame's record and the cursor, as the general
 * step leaves it (walk_arm.c, arm_caller(): r0-r3, r12 and lr unknown,
 * the popped registers set; lr never known in the loop, so ra_in_reg
 * false).  UWI_FAST_ARM_32: every register known held a 32-bit value,
 * so r holds them all.  Returns the frames taken.
 */
static uwi_always_inline size_t arm_end(struct uw_cursor *cur,
					struct uw_frame *fr0,
					struct uw_frame *fr, uint32_t valid,
					uint8_t source)
{
	struct uwi_state *s = uwi_state(cur);
	struct uwi_fast_arm *v = &s->scratch.arm.v;
	const uint32_t *r = s->scratch.arm.r;
	size_t taken = (size_t)(fr - fr0);
	uint32_t pc = r[UW_ARM_PC], lookup = (pc & ~1u) - 1;
	uint16_t module = v->module;
	unsigned int i;

	if (!taken)
		return 0;
	v->cfg->cache->hits += taken;
	if (!uwi_in_module(v->mstart, v->mstart + v->mlen, lookup))
		module = uwi_find_module(v->cfg, lookup);
	uwi_frame_step(fr - 1, 0, uwi_frame_tag(UW_SRC_NONE,
						pc & 1 ? UW_FRAME_THUMB : 0,
						module));
	for (i = 0; i < 16; i++)
		cur->regs.r[i] = r[i];
	cur->regs.valid = (cur->regs.valid & ~(uint64_t)0xffff) | valid;
	cur->cfa = r[UW_ARM_SP];
	cur->depth += (uint32_t)taken;
	cur->module = module;
	cur->flags = 0;
	cur->source = source;
	s->step.ra_in_reg = false;
	return taken;
}

/*
 * The ARM loop, for uwi_fast_arm() (see the head comment): frames whose
 * cache entry holds a row (UWI_CACHE_ARM_ROW) the general step would
 * apply as it is (uwi_arm_row_step()), the trampoline probe answered by
 * the entry (uwi_arm_row_nosig()).  32-bit arithmetic throughout: the
 * registers are the opcodes' 32-bit words.  direct is a constant at
 * each call.  Returns the frames written in all.
 */
static uwi_always_inline size_t arm_loop(struct uw_cursor *cur,
					 const struct uw_walk_cfg *cfg,
					 struct uw_frame *frames, size_t n,
					 size_t max, bool direct)
{
	struct uwi_state *s = uwi_state(cur);
	struct uwi_fast_arm *v = &s->scratch.arm.v;
	uint32_t *r = s->scratch.arm.r;
	const bool be = direct ? host_be() : cfg->big_endian;
	const uint32_t limit = uwi_depth_limit(cfg);
	struct uw_frame *fr = frames + n, *fend = frames + max;
	const struct uw_cache_entry *e;
	uint32_t valid = (uint32_t)cur->regs.valid & 0xffff;
	uint32_t pc, lookup, cfa, len, w4, top;
	const uint8_t *p;
	uint8_t source = 0;

	if (cur->depth >= limit || !arm_init(v, cur, cfg, direct))
		return n;
	/* Frame n comes with step depth + 1: none past the depth limit. */
	if (max - n > limit - cur->depth)
		fend = fr + (limit - cur->depth);
	pc = r[UW_ARM_PC];
	while (fr < fend) {
		lookup = (uint32_t)uwi_lookup_pc(pc & ~1u, false); /* FAST_RA */
		e = uwi_cache_slot_at(v->ents, v->mask16, lookup);
		/* UWI_FAST_HIT: a hit is the module's; a miss checks. */
		if (!uwi_cache_is(e, lookup,
				  (uint64_t)v->key_hi << 32 | v->key_lo)) {
			if (uwi_in_module(v->mstart, v->mstart + v->mlen,
					  lookup) ||
			    !arm_module(v, uwi_find_module(cfg, lookup)))
				break;
			continue;
		}
		/* UWI_FAST_RA: the probe's answer is the entry's. */
		if ((uint32_t)(e->src - UW_SRC_EHABI) > 1 ||
		    !(v->sig ? uwi_arm_row_nosig(e, pc) :
			       (e->flags & UWI_CACHE_ARM_ROW)) ||
		    !arm_caller(cur, v, e, r, valid, direct, &p, &len, &pc,
				&cfa))
			break;
		/* Taken: the frame's record, then the caller's registers. */
		uwi_frame_step(fr - 1, cfa,
			       uwi_frame_tag(e->src, r[UW_ARM_PC] & 1 ?
					     UW_FRAME_THUMB : 0, v->module));
		w4 = e->u.w[4];
		/* UWI_FAST_ARM_LEN: within the block, whatever the entry. */
		top = (e->u.w[5] >> 8) & 0x7c;
		arm_pop(r, w4, (w4 >> 24) & 0xf, p, top < len ? top : len, be);
		r[UW_ARM_PC] = pc;
		r[UW_ARM_SP] = cfa;
		valid = (valid | (w4 & 0xffff) | 1u << UW_ARM_PC |
			 1u << UW_ARM_SP) & ~(0xfu | 1u << 12 | 1u << UW_ARM_LR);
		source = e->src;
		uwi_frame_set(fr++, pc & ~1u, cfa);
	}
	return n + arm_end(cur, frames + n, fr, valid, source);
}

/*
 * The ARM loop's copies, in place and through the accessor, for
 * uwi_fast_arm() (walk.h), which checks uwi_arm_on() first.  Each
 * returns the frames written in all.
 */
size_t uwi_fast_arm_direct(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			   struct uw_frame *frames, size_t n, size_t max)
{
	return UW_HAS_ARM_ROWS && UW_HAS_FAST_DIRECT ?
	       arm_loop(cur, cfg, frames, n, max, true) : n;
}

size_t uwi_fast_arm_mem(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			struct uw_frame *frames, size_t n, size_t max)
{
	return UW_HAS_ARM_ROWS ? arm_loop(cur, cfg, frames, n, max, false) : n;
}
