// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Unit tests (TAP) of the walk reading the stack in place
 * (UW_WALK_DIRECT_STACK, include/uwind/uwind.h):
 *
 *  - without usable stack bounds the walk is refused (UW_EINVAL);
 *  - a hand-built x86-64 stack in a mapping fenced by inaccessible pages,
 *    its frames of every kind the walker has (SFrame rows of the fast
 *    path's shapes, CFA from sp and from fp, the return address alone;
 *    a row the general path takes; a function without a row, walked by
 *    its frame pointer; an
 *    outermost function): in place, at its own address and as a copy
 *    elsewhere (stack_mem), with and without a cache, by uw_walk() and
 *    by uw_step(), the frames are those of the walk through an accessor;
 *  - frames pointing out of the bounds, below and above, and a frame
 *    record straddling the top: the walk ends there with a read fault
 *    (UW_ESTACK), as through the accessor, and reads nothing outside (a
 *    read of the fence pages would kill the test); a return address
 *    alone at the lowest word of the stack is taken;
 *  - the frame pointer through frames that do not save it: unchanged,
 *    and unknown where it was unknown, by uw_step() and uw_walk();
 *  - AArch64: signed return addresses cleared in place as through the
 *    accessor, and a big-endian stack (read in place by the general
 *    path, the fast one taking the host's byte order only).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uwind/uwind.h>
#include "../../scripts/uwind/sframe_enc.h"
#include "../common/tap.h"
#include "../common/cachewalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NW(...)		(sizeof((int32_t[]){ __VA_ARGS__ }) / sizeof(int32_t))
#define FRE(sp, ...) { .start = 0, .base_sp = (sp), \
		       .nwords = NW(__VA_ARGS__), .w = { __VA_ARGS__ } }

#define TEXT		0x401000ull
#define FN(i)		(TEXT + 0x100ull * (i))
#define PAGE		4096u
#define NPAGES		4		/* the stack, between two fences */
#define MAXF		32

/*
 * The functions: 0 CFA = sp + 16, fp saved at CFA - 16 (the fast path);
 * 1 CFA = fp + 16, the same (fast, from fp); 2 CFA = sp + 32, fp not
 * saved (fast: the return address alone); 3 CFA = sp + 32, fp saved at
 * CFA - 24, apart from the return address (the general path); 4 no row
 * (the frame pointer); 5 outermost.
 */
enum { K_SP, K_FP, K_NOFP, K_GEN, K_NOROW, K_OUTER, NK };

/* ---- a stack fenced by inaccessible pages ---- */

struct fenced {
	uint8_t *map;		/* NPAGES + 2 pages */
	uint8_t *mem;		/* the NPAGES between the fences */
};

static bool fenced_new(struct fenced *f)
{
	f->map = mmap(NULL, (NPAGES + 2) * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->map == MAP_FAILED)
		return false;
	f->mem = f->map + PAGE;
	return !mprotect(f->map, PAGE, PROT_NONE) &&
	       !mprotect(f->mem + NPAGES * PAGE, PAGE, PROT_NONE);
}

static void fenced_free(struct fenced *f)
{
	munmap(f->map, (NPAGES + 2) * PAGE);
}

/* ---- the accessor: the stack image at lo, nothing else ---- */

struct image {
	const uint8_t *mem;
	uint64_t lo;
	unsigned long reads;
};

static int image_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct image *im = ctx;

	im->reads++;
	if (addr < im->lo || addr - im->lo > NPAGES * PAGE ||
	    len > NPAGES * PAGE - (addr - im->lo))
		return -1;
	memcpy(dst, im->mem + (addr - im->lo), len);
	return 0;
}

/* ---- the table ---- */

struct table {
	struct sfe_fre fres[NK][1];
	struct sfe_fde fdes[NK];
	uint8_t *p;
	size_t len;
	struct uw_sframe sf;
};

/* x86-64 unless a64 (AArch64, big-endian when be; signed when pac). */
static bool table_build(struct table *t, bool a64, bool be, bool pac)
{
	struct sfe_table st = {
		.version = 2, .flags = SFE_F_SORTED,
		.abi = !a64 ? SFE_ABI_AMD64_LE :
		       be ? SFE_ABI_AARCH64_BE : SFE_ABI_AARCH64_LE,
		.fixed_ra = a64 ? 0 : -8, .big_endian = be,
		.addr = 0x600000,
	};
	const struct sfe_fre x86[NK] = {
		FRE(1, 16, -16), FRE(0, 16, -16), FRE(1, 32), FRE(1, 32, -24),
		FRE(1, 16, -16), { .nwords = 0 },
	};
	const struct sfe_fre arm[NK] = {
		FRE(1, 16, -8, -16), FRE(0, 16, -8, -16), FRE(1, 32, -8),
		FRE(1, 32, -8, -24), FRE(1, 16, -8, -16), { .nwords = 0 },
	};
	struct uw_span span;
	int i, n = 0;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < NK; i++) {
		if (i == K_NOROW)
			continue;
		t->fres[n][0] = a64 ? arm[i] : x86[i];
		t->fres[n][0].ra_mangled = pac && i != K_OUTER;
		t->fdes[n].func_start = FN(i);
		t->fdes[n].func_size = 0x100;
		t->fdes[n].nfres = 1;
		t->fdes[n].fres = t->fres[n];
		n++;
	}
	st.nfdes = n;
	st.fdes = t->fdes;
	if (sfe_encode(&st, &t->p, &t->len, NULL, NULL, 0))
		return false;
	span.data = t->p;
	span.size = t->len;
	span.addr = st.addr;
	return uw_sframe_init(&t->sf, &span) == 0;
}

/* ---- the stack ---- */

static const int seq[] = {
	K_SP, K_FP, K_SP, K_NOFP, K_GEN, K_NOROW, K_FP, K_SP, K_NOFP, K_SP,
	K_FP, K_OUTER,
};
#define DEPTH	ARRAY_SIZE(seq)

struct stack {
	bool a64, be;
	uint64_t pac;			/* bits set in signed return addresses */
	uint64_t lo;			/* the stack's address */
	uint8_t *mem;			/* its bytes */
	uint64_t pc[DEPTH], sp[DEPTH];	/* the frames built */
	struct uw_regs regs;		/* the first's */
};

static void put(struct stack *s, uint64_t addr, uint64_t v)
{
	sfe_put(s->mem + (addr - s->lo), 8, v, s->be);
}

/* What a frame running function k needs its fp to be, given its sp. */
static uint64_t fp_for(int k, uint64_t sp, uint64_t other)
{
	return k == K_FP ? sp + 16 : k == K_NOROW ? sp + 8 : other;
}

static void stack_build(struct stack *s)
{
	const unsigned int pc_reg = s->a64 ? UW_AARCH64_PC : UW_X86_64_RIP;
	const unsigned int sp_reg = s->a64 ? UW_AARCH64_SP : UW_X86_64_RSP;
	const unsigned int fp_reg = s->a64 ? UW_AARCH64_X29 : UW_X86_64_RBP;
	uint64_t sp = s->lo + 0x40, fp, cfa, ra, nfp;
	size_t k;

	memset(s->mem, 0, NPAGES * PAGE);
	fp = fp_for(seq[0], sp, 0x1111);
	s->regs.valid = 0;
	uw_reg_set(&s->regs, pc_reg, FN(seq[0]) + 0x10);
	uw_reg_set(&s->regs, sp_reg, sp);
	uw_reg_set(&s->regs, fp_reg, fp);
	for (k = 0; k < DEPTH; k++) {
		s->pc[k] = k ? FN(seq[k]) + 0x40 : FN(seq[0]) + 0x10;
		s->sp[k] = sp;
		if (seq[k] == K_OUTER)
			break;
		cfa = seq[k] == K_FP ? fp + 16 : seq[k] == K_NOROW ? fp + 16 :
		      seq[k] == K_NOFP || seq[k] == K_GEN ? sp + 32 : sp + 16;
		ra = FN(seq[k + 1]) + 0x40;
		nfp = seq[k] == K_NOFP ? fp : fp_for(seq[k + 1], cfa, 0x2000 + k);
		put(s, cfa - 8, ra | (seq[k] != K_NOROW ? s->pac : 0));
		if (seq[k] != K_NOFP)
			put(s, cfa - (seq[k] == K_GEN ? 24 : 16), nfp);
		sp = cfa;
		fp = nfp;
	}
}

/* ---- walks ---- */

static struct uw_cursor g_cur;
static struct uw_cache_entry g_slots[256];

struct walk {
	struct uw_frame fr[MAXF];
	struct uw_walk_result res;
	size_t n;
};

static void cfg_for(struct uw_walk_cfg *cfg, const struct uw_module *mod,
		    struct image *im, const struct stack *s, bool direct,
		    const void *stack_mem)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = s->a64 ? UW_ARCH_AARCH64 : UW_ARCH_X86_64;
	cfg->big_endian = s->be;
	cfg->mods = mod;
	cfg->nmods = 1;
	cfg->mem.read = image_read;
	cfg->mem.ctx = im;
	cfg->stack_lo = s->lo;
	cfg->stack_hi = s->lo + NPAGES * PAGE;
	cfg->pac_mask = s->pac;
	if (direct) {
		cfg->flags = UW_WALK_DIRECT_STACK;
		cfg->stack_mem = stack_mem;
	}
}

static void walk(const struct uw_walk_cfg *cfg, const struct uw_regs *regs,
		 struct walk *w)
{
	w->n = uw_walk(&g_cur, cfg, regs, w->fr, MAXF, &w->res);
}

static bool same(const struct walk *a, const struct walk *b)
{
	return uwt_frames_same(a->fr, a->n, &a->res, b->fr, b->n, &b->res);
}

/* The frames built, each unwound by the source its function has. */
static bool as_built(const struct walk *w, const struct stack *s)
{
	size_t k;

	if (w->n != DEPTH || w->res.stop != UW_STOP_OUTERMOST)
		return false;
	for (k = 0; k < DEPTH; k++) {
		uint8_t src = seq[k] == K_OUTER ? UW_SRC_NONE :
			      seq[k] == K_NOROW ? UW_SRC_FP : UW_SRC_SFRAME;

		if (w->fr[k].pc != s->pc[k] || w->fr[k].sp != s->sp[k] ||
		    w->fr[k].source != src)
			return false;
	}
	return true;
}

/* The walk by uw_step(): the frames' pcs and sps, and its stop. */
static bool stepped_same(const struct uw_walk_cfg *cfg,
			 const struct uw_regs *regs, const struct walk *w)
{
	const unsigned int pc_reg = cfg->arch == UW_ARCH_AARCH64 ?
				    UW_AARCH64_PC : UW_X86_64_RIP;
	const unsigned int sp_reg = cfg->arch == UW_ARCH_AARCH64 ?
				    UW_AARCH64_SP : UW_X86_64_RSP;
	size_t n = 1;
	int ret;

	if (uw_cursor_init(&g_cur, cfg, regs))
		return false;
	while ((ret = uw_step(&g_cur, cfg)) == UW_STEP_CALLER) {
		if (n >= w->n || g_cur.regs.r[pc_reg] != w->fr[n].pc ||
		    g_cur.regs.r[sp_reg] != w->fr[n].sp)
			return false;
		n++;
	}
	return n == w->n && g_cur.stop == w->res.stop;
}

/*
 * A table and its stack in a fenced mapping, the accessor over it, the
 * module: x86-64 unless a64 (AArch64, big-endian when be, its return
 * addresses signed when pac).
 */
struct fixture {
	struct table t;
	struct fenced f;
	struct stack s;
	struct image im;
	struct uw_module mod;
};

static bool fixture_new(struct fixture *x, bool a64, bool be, bool pac)
{
	memset(x, 0, sizeof(*x));
	x->s.a64 = a64;
	x->s.be = be;
	x->s.pac = pac ? 0x007f000000000000ull : 0;
	if (!table_build(&x->t, a64, be, pac) || !fenced_new(&x->f)) {
		ok(0, "table and stack mapping");
		return false;
	}
	x->mod.start = TEXT;
	x->mod.end = TEXT + 0x1000;
	x->mod.sframe = &x->t.sf;
	x->mod.cache_id = 1;
	x->mod.cache_gen = 1;
	x->s.mem = x->f.mem;
	x->s.lo = (uintptr_t)x->f.mem;
	stack_build(&x->s);
	x->im.mem = x->s.mem;
	x->im.lo = x->s.lo;
	return true;
}

static void fixture_free(struct fixture *x)
{
	fenced_free(&x->f);
	free(x->t.p);
}

static void test_refused(void)
{
	static uint8_t buf[64];
	const struct { uint64_t lo, hi; const void *mem; const char *what; }
	cases[] = {
		{ 0, 0, buf, "no bounds" },
		{ 0x1000, 0x1000, buf, "an empty range" },
		{ 0x2000, 0x1000, buf, "lo above hi" },
		{ 0, 0x1000, NULL, "the stack at address 0" },
	};
	struct uw_walk_cfg cfg;
	struct uw_walk_result res;
	struct uw_frame fr[2];
	struct uw_regs regs = { .valid = 0 };
	bool good = true;
	size_t i;

	uw_reg_set(&regs, UW_X86_64_RIP, 0x1000);
	uw_reg_set(&regs, UW_X86_64_RSP, 0x800);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.arch = UW_ARCH_X86_64;
		cfg.flags = UW_WALK_DIRECT_STACK;
		cfg.stack_lo = cases[i].lo;
		cfg.stack_hi = cases[i].hi;
		cfg.stack_mem = cases[i].mem;
		if (uw_cursor_init(&g_cur, &cfg, &regs) != UW_EINVAL ||
		    uw_walk(&g_cur, &cfg, &regs, fr, 2, &res) != 0 ||
		    res.err != UW_EINVAL) {
			diag("%s: not refused", cases[i].what);
			good = false;
		}
	}
	cfg.stack_lo = 0x100;
	cfg.stack_hi = 0x1000;
	cfg.stack_mem = buf;
	ok(good && uw_cursor_init(&g_cur, &cfg, &regs) == 0,
	   "in place without usable bounds (none, empty, inverted, at 0 with"
	   " no stack_mem): uw_cursor_init and uw_walk say UW_EINVAL; with"
	   " them, accepted");
}

/* The x86-64 stack: in place at its own address and as a copy. */
static void test_x86_64(void)
{
	static const size_t sizes[] = { 1, 256 };
	struct fixture x;
	struct fenced g;
	struct walk acc, w;
	struct uw_walk_cfg ca, cd;
	struct uw_cache c;
	bool good = true, hits = false;
	size_t k;
	int pass;

	if (!fixture_new(&x, false, false, false))
		return;
	if (!fenced_new(&g)) {
		ok(0, "second stack mapping");
		fixture_free(&x);
		return;
	}
	cfg_for(&ca, &x.mod, &x.im, &x.s, false, NULL);
	walk(&ca, &x.s.regs, &acc);
	ok(as_built(&acc, &x.s),
	   "through the accessor: the %zu frames built (SFrame from sp and "
	   "fp, the return address alone, the general path's row, a frame "
	   "pointer, the outermost)",
	   DEPTH);

	/* In place: the stack at its own address (stack_mem NULL). */
	cfg_for(&cd, &x.mod, &x.im, &x.s, true, NULL);
	x.im.reads = 0;
	walk(&cd, &x.s.regs, &w);
	ok(same(&acc, &w), "in place at its own address: the same frames");
	ok(x.im.reads == 1,
	   "... the accessor asked only for code (%lu reads: the signal "
	   "trampoline check of the frame without a row)", x.im.reads);
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uw_cache_init(&c, g_slots, sizes[k]);
		cd.cache = &c;
		for (pass = 0; pass < 2; pass++) {
			walk(&cd, &x.s.regs, &w);
			good = good && same(&acc, &w);
		}
		hits = hits || c.hits >= DEPTH - 3;
	}
	ok(good && hits, "... with caches of 1 and 256 slots, cold and warm "
	   "(the warm walks answered by the cache)");
	cd.cache = NULL;
	ok(stepped_same(&cd, &x.s.regs, &acc),
	   "... and step by step (uw_step)");

	/* A copy elsewhere: the original overwritten, the copy read. */
	memcpy(g.mem, x.f.mem, NPAGES * PAGE);
	memset(x.f.mem, 0xee, NPAGES * PAGE);
	cfg_for(&cd, &x.mod, &x.im, &x.s, true, g.mem);
	walk(&cd, &x.s.regs, &w);
	ok(same(&acc, &w), "a copy of the stack elsewhere (stack_mem), the "
	   "stack itself overwritten: the same frames");
	fenced_free(&g);
	fixture_free(&x);
}

/*
 * Frames pointing out of the bounds: the walk through the accessor and
 * in place end alike, at the same frame, with a read fault (UW_ESTACK);
 * the fences catch any read outside.
 */
static void out_of_bounds(struct fixture *x, const char *what, size_t at)
{
	struct uw_walk_cfg ca, cd;
	struct walk acc, w;

	cfg_for(&ca, &x->mod, &x->im, &x->s, false, NULL);
	cfg_for(&cd, &x->mod, &x->im, &x->s, true, NULL);
	walk(&ca, &x->s.regs, &acc);
	walk(&cd, &x->s.regs, &w);
	ok(same(&acc, &w) && w.n == at + 1 &&
	   w.res.stop == UW_STOP_READ_FAULT && w.res.err == UW_ESTACK,
	   "%s: in place as through the accessor, a read fault at frame %zu "
	   "(%zu frames, %s, %d)", what, at, w.n, uw_stop_name(w.res.stop),
	   w.res.err);
	stack_build(&x->s);
}

static void test_bounds(void)
{
	const uint64_t hi_off = NPAGES * PAGE;
	struct fixture x;
	struct stack *s = &x.s;

	if (!fixture_new(&x, false, false, false))
		return;
	/* Frame 1 takes its CFA from fp: frame 0 saved it, pointing low. */
	put(s, s->sp[1] - 16, s->lo - 16);
	out_of_bounds(&x, "an fp below the stack (CFA from fp)", 1);
	/* ... pointing high: the frame record straddles the top. */
	put(s, s->sp[1] - 16, s->lo + hi_off - 8);
	out_of_bounds(&x, "a frame record straddling the top", 1);
	/* ... wholly above. */
	put(s, s->sp[1] - 16, s->lo + hi_off + 64);
	out_of_bounds(&x, "an fp above the stack", 1);
	/*
	 * Frame 5 has no row: its frame pointer, which frame 4 saved at its
	 * CFA - 24, is out.
	 */
	put(s, s->sp[5] - 24, s->lo + hi_off);
	out_of_bounds(&x, "a frame pointer (no row) at the top", 5);
	/* Frame 0's sp-based CFA itself above the stack. */
	uw_reg_set(&s->regs, UW_X86_64_RSP, s->lo + hi_off - 8);
	out_of_bounds(&x, "an sp whose CFA is above the stack", 0);
	/*
	 * The return address alone (function K_NOFP, CFA = sp + 32) just
	 * above the stack, and straddling its top.
	 */
	uw_reg_set(&s->regs, UW_X86_64_RIP, FN(K_NOFP) + 0x10);
	uw_reg_set(&s->regs, UW_X86_64_RSP, s->lo + hi_off - 24);
	out_of_bounds(&x, "a return address alone just above the stack", 0);
	uw_reg_set(&s->regs, UW_X86_64_RIP, FN(K_NOFP) + 0x10);
	uw_reg_set(&s->regs, UW_X86_64_RSP, s->lo + hi_off - 28);
	out_of_bounds(&x, "a return address alone straddling the top", 0);
	fixture_free(&x);
}

/*
 * A return address alone in the lowest word of the stack (CFA = lo + 8,
 * sp below the stack): inside the bounds, so taken, in place as through
 * the accessor; its caller the outermost function.
 */
static void test_lowest(void)
{
	struct uw_walk_cfg ca, cd;
	struct walk acc, w;
	struct fixture x;
	struct stack *s = &x.s;

	if (!fixture_new(&x, false, false, false))
		return;
	s->regs.valid = 0;
	uw_reg_set(&s->regs, UW_X86_64_RIP, FN(K_NOFP) + 0x10);
	uw_reg_set(&s->regs, UW_X86_64_RSP, s->lo + 8 - 32);
	put(s, s->lo, FN(K_OUTER) + 0x40);
	cfg_for(&ca, &x.mod, &x.im, s, false, NULL);
	cfg_for(&cd, &x.mod, &x.im, s, true, NULL);
	walk(&ca, &s->regs, &acc);
	walk(&cd, &s->regs, &w);
	ok(same(&acc, &w) && w.n == 2 && w.fr[1].pc == FN(K_OUTER) + 0x40 &&
	   w.res.stop == UW_STOP_OUTERMOST,
	   "a return address alone at the stack's lowest word: taken, in "
	   "place as through the accessor (%zu frames, %s)", w.n,
	   uw_stop_name(w.res.stop));
	fixture_free(&x);
}

/*
 * The cursor's fp after one step from a K_NOFP frame (frame 3 of the
 * stack, its caller a K_GEN frame), by uw_step() or by uw_walk() with
 * room for two frames: *fp and true when known, false when not.
 */
static bool fp_after(const struct uw_walk_cfg *cfg, const struct stack *s,
		     const uint64_t *fp0, bool by_walk, uint64_t *fp)
{
	struct uw_walk_result res;
	struct uw_frame fr[2];
	struct uw_regs regs = { .valid = 0 };

	uw_reg_set(&regs, UW_X86_64_RIP, s->pc[3]);
	uw_reg_set(&regs, UW_X86_64_RSP, s->sp[3]);
	if (fp0)
		uw_reg_set(&regs, UW_X86_64_RBP, *fp0);
	if (by_walk) {
		if (uw_walk(&g_cur, cfg, &regs, fr, 2, &res) != 2)
			return false;
	} else if (uw_cursor_init(&g_cur, cfg, &regs) ||
		   uw_step(&g_cur, cfg) != UW_STEP_CALLER) {
		return false;
	}
	if (g_cur.regs.r[UW_X86_64_RSP] != s->sp[4])
		return false;
	return uw_reg_get(&g_cur.regs, UW_X86_64_RBP, fp);
}

static void test_fp_kept(void)
{
	const uint64_t fp0 = 0x5555;
	struct uw_walk_cfg cfg[2];
	struct uw_cache c;
	struct fixture x;
	bool kept = true, unknown = true;
	uint64_t fp;
	int i, by_walk, cached;

	if (!fixture_new(&x, false, false, false))
		return;
	cfg_for(&cfg[0], &x.mod, &x.im, &x.s, false, NULL);
	cfg_for(&cfg[1], &x.mod, &x.im, &x.s, true, NULL);
	uw_cache_init(&c, g_slots, 256);
	for (i = 0; i < 2; i++) {
		for (cached = 0; cached < 2; cached++) {
			cfg[i].cache = cached ? &c : NULL;
			for (by_walk = 0; by_walk < 2; by_walk++) {
				fp = 0;
				kept = kept && fp_after(&cfg[i], &x.s, &fp0,
							by_walk, &fp) &&
				       fp == fp0;
				unknown = unknown &&
					  !fp_after(&cfg[i], &x.s, NULL,
						    by_walk, &fp);
			}
		}
	}
	ok(kept, "a frame that does not save fp: its caller's fp is the "
	   "frame's (through the accessor and in place, cache or none, "
	   "uw_step and uw_walk)");
	ok(unknown, "... and unknown when the frame's was unknown");
	fixture_free(&x);
}

/* AArch64: signed return addresses, and a big-endian stack. */
static void test_aarch64(bool be)
{
	struct fixture x;
	struct walk acc, w;
	struct uw_walk_cfg ca, cd;
	struct uw_cache c;

	if (!fixture_new(&x, true, be, !be))
		return;
	cfg_for(&ca, &x.mod, &x.im, &x.s, false, NULL);
	cfg_for(&cd, &x.mod, &x.im, &x.s, true, NULL);
	walk(&ca, &x.s.regs, &acc);
	walk(&cd, &x.s.regs, &w);
	uw_cache_init(&c, g_slots, 256);
	cd.cache = &c;
	ok(as_built(&acc, &x.s) && same(&acc, &w) &&
	   (walk(&cd, &x.s.regs, &w), same(&acc, &w)) &&
	   (walk(&cd, &x.s.regs, &w), same(&acc, &w)),
	   be ? "AArch64, a big-endian stack: in place (cache or none) as "
		"through the accessor" :
		"AArch64, return addresses signed (pac_mask): in place "
		"(cache or none) the bits cleared as through the accessor");
	fixture_free(&x);
}

int main(void)
{
	tap_begin(-1);
	test_refused();
	test_x86_64();
	test_bounds();
	test_lowest();
	test_fp_kept();
	test_aarch64(false);
	test_aarch64(true);
	return tap_done();
}
