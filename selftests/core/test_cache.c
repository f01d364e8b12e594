// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Unit tests (TAP) of the walker's cache (include/uwind/cache.h):
 *
 *  - uw_cache_init()'s arguments;
 *  - a hand-built x86-64 stack (SFrame rows of the fast path's shapes
 *    and another, a frame without a row, an outermost function)
 *    walked without a cache and with caches of 1 slot (every pc
 *    collides) to 1024, cold and warm: the same frames, and the counters
 *    say the cache answered the warm walks;
 *  - invalidation: the table swapped under a warm cache (other CFA
 *    offsets, a stack built for them): with cache_gen bumped the walk
 *    gives the new table's frames; with the generation left alone it
 *    gives the old table's (the control: the cache is consulted);
 *  - identity: two modules at the same addresses with different
 *    cache_ids sharing one cache (two processes) each get their own rows;
 *  - a fuzzed cache: every slot's bytes overwritten at random while its
 *    tag still matches, many times: every walk ends, and reads only
 *    inside the stack image (the accessor counts reads outside it).
 *
 * Expected frames are those of the walk without a cache, which the
 * frames built here are checked against first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/uwind.h>
#include "../../scripts/uwind/sframe_enc.h"
#include "../common/tap.h"
#include "../common/sfetable.h"
#include "../common/cachewalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NW(...)		(sizeof((int32_t[]){ __VA_ARGS__ }) / sizeof(int32_t))
#define FS(st, ...) { .start = (st), .base_sp = 1, \
		      .nwords = NW(__VA_ARGS__), .w = { __VA_ARGS__ } }
#define F0(st)	{ .start = (st), .base_sp = 1, .nwords = 0 }

/* Functions f0..f5 at TEXT + 0x100 * i; f5 is the outermost. */
#define TEXT		0x401000ull
#define FN(i)		(TEXT + 0x100ull * (i))
#define NFN		6
#define STACK		0x7ffe00000000ull	/* above 4 GiB: the fast path */
#define STACK_SIZE	0x4000
#define DEPTH		12			/* frames on the stack */

struct image {
	uint8_t bytes[STACK_SIZE];
	unsigned long outside;		/* reads outside the image */
};

static int image_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct image *im = ctx;

	if (addr < STACK || addr - STACK > STACK_SIZE ||
	    len > STACK_SIZE - (addr - STACK)) {
		im->outside++;
		return -1;
	}
	memcpy(dst, im->bytes + (addr - STACK), len);
	return 0;
}

static void put64(struct image *im, uint64_t addr, uint64_t v)
{
	sfe_put(im->bytes + (addr - STACK), 8, v, false);
}

/*
 * A table: f0-f4 each CFA = sp + cfa_off[i]; the even ones save fp at
 * CFA - 16 (a fast path's shape), f1 does not (fp unchanged: the other
 * fast shape), f3 saves it at CFA - 24, apart from the return address
 * (the general path); f5 is outermost.  One more function, f6, has no
 * row at its pc (the frame-pointer fallback).
 */
struct table {
	struct sfe_fre fres[NFN][1];
	struct sfe_fde fdes[NFN];
	uint8_t *p;
	size_t len;
	struct sfe_layout lay;
	struct uw_sframe sf;
	int cfa_off[NFN];
};

static bool table_build(struct table *t, const int *cfa_off)
{
	struct sfe_table st = {
		.version = 2, .flags = SFE_F_SORTED, .abi = SFE_ABI_AMD64_LE,
		.fixed_ra = -8, .addr = 0x600000, .nfdes = NFN,
	};
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < NFN; i++) {
		struct sfe_fre f = FS(0, cfa_off[i], -16);
		struct sfe_fre g = FS(0, cfa_off[i]);
		struct sfe_fre h = FS(0, cfa_off[i], -24);
		struct sfe_fre o = F0(0);

		t->cfa_off[i] = cfa_off[i];
		t->fres[i][0] = i == NFN - 1 ? o : i == 1 ? g : i == 3 ? h : f;
		t->fdes[i].func_start = FN(i);
		t->fdes[i].func_size = 0x100;
		t->fdes[i].nfres = 1;
		t->fdes[i].fres = t->fres[i];
	}
	st.fdes = t->fdes;
	return uwt_sframe_build(&st, &t->p, &t->len, &t->lay, &t->sf);
}

static void table_free(struct table *t)
{
	free(t->p);
	sfe_layout_free(&t->lay);
}

/*
 * The stack for table t: frame k runs function seq[k] at pc 0x40 into
 * it (its caller's return address); a frame's fp is its CFA - 16 (24 in
 * f3) where its function saves fp, and the first frame's fp is valid.
 */
static const int seq[DEPTH] = { 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 5 };

static void stack_build(struct image *im, const struct table *t,
			struct uw_regs *regs)
{
	uint64_t sp = STACK + 0x100, cfa;
	int k;

	memset(im->bytes, 0, sizeof(im->bytes));
	im->outside = 0;
	regs->valid = 0;
	uw_reg_set(regs, UW_X86_64_RIP, FN(seq[0]) + 0x10);
	uw_reg_set(regs, UW_X86_64_RSP, sp);
	uw_reg_set(regs, UW_X86_64_RBP, 0x1111);
	for (k = 0; k + 1 < DEPTH; k++) {
		cfa = sp + t->cfa_off[seq[k]];
		put64(im, cfa - 8, FN(seq[k + 1]) + 0x40);
		put64(im, cfa - (seq[k] == 3 ? 24 : 16), 0x2000 + k);
		sp = cfa;
	}
}

/* Tables A and B: the same functions, other CFA offsets. */
static const int off_a[NFN] = { 32, 48, 64, 80, 96, 16 };
static const int off_b[NFN] = { 48, 32, 96, 64, 128, 16 };

static struct image g_im;
static struct uw_cursor g_cur;
static struct uw_cache_entry g_mem[1024];

struct walk {
	struct uw_frame fr[32];
	struct uw_walk_result res;
	size_t n;
};

static uint32_t g_flags;	/* of every walk */

static void walk(const struct uw_module *mod, size_t nmods,
		 struct uw_cache *cache, const struct uw_regs *regs,
		 struct walk *w)
{
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_X86_64, .mods = mod, .nmods = nmods,
		.mem = { image_read, &g_im },
		.stack_lo = STACK, .stack_hi = STACK + STACK_SIZE,
		.cache = cache, .flags = g_flags,
	};

	w->n = uw_walk(&g_cur, &cfg, regs, w->fr, ARRAY_SIZE(w->fr), &w->res);
}

static bool same(const struct walk *a, const struct walk *b)
{
	return uwt_frames_same(a->fr, a->n, &a->res, b->fr, b->n, &b->res);
}

static void test_init(void)
{
	struct uw_cache c;

	ok(uw_cache_init(&c, g_mem, 0) == UW_EINVAL &&
	   uw_cache_init(&c, g_mem, 3) == UW_EINVAL &&
	   uw_cache_init(&c, NULL, 4) == UW_EINVAL &&
	   uw_cache_init(NULL, g_mem, 4) == UW_EINVAL &&
	   uw_cache_init(&c, g_mem, (size_t)1 << 25) == UW_EINVAL,
	   "uw_cache_init: 0, 3, 2^25 slots and NULLs refused");
	ok(uw_cache_init(&c, g_mem, 1) == 0 && uw_cache_init(&c, g_mem, 1024) == 0
	   && c.hits == 0 && c.misses == 0,
	   "uw_cache_init: 1 and 1024 slots taken, counters zero");
}

/* The frames the table and stack give, as built. */
static bool frames_expected(const struct walk *w, const struct table *t)
{
	uint64_t sp = STACK + 0x100;
	size_t k;

	if (w->n != DEPTH || w->res.stop != UW_STOP_OUTERMOST)
		return false;
	for (k = 0; k < DEPTH; k++) {
		uint64_t pc = k ? FN(seq[k]) + 0x40 : FN(seq[0]) + 0x10;

		if (w->fr[k].pc != pc || w->fr[k].sp != sp ||
		    w->fr[k].source != (k + 1 < DEPTH ? UW_SRC_SFRAME :
						       UW_SRC_NONE))
			return false;
		if (k + 1 < DEPTH)
			sp += t->cfa_off[seq[k]];
	}
	return true;
}

static void test_walks(void)
{
	static const size_t sizes[] = { 1, 2, 16, 1024 };
	struct uw_module mod = { .start = TEXT, .end = TEXT + 0x1000,
				 .cache_id = 1, .cache_gen = 1 };
	struct walk plain, w;
	struct uw_regs regs;
	struct uw_cache c;
	struct table t;
	bool good = true, warm_hits = true;
	size_t k;
	int pass;

	if (!table_build(&t, off_a)) {
		ok(0, "table built");
		return;
	}
	mod.sframe = &t.sf;
	stack_build(&g_im, &t, &regs);
	walk(&mod, 1, NULL, &regs, &plain);
	ok(frames_expected(&plain, &t),
	   "without a cache: the %d frames built, outermost at f5 (%zu, %s)",
	   DEPTH, plain.n, uw_stop_name(plain.res.stop));
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uw_cache_init(&c, g_mem, sizes[k]);
		for (pass = 0; pass < 3; pass++) {
			uint64_t hits = c.hits, misses = c.misses;

			walk(&mod, 1, &c, &regs, &w);
			good = good && same(&plain, &w);
			/* Warm, with room for every pc: only hits. */
			if (sizes[k] == 1024 && pass > 0)
				warm_hits = warm_hits && c.misses == misses &&
					    c.hits - hits >= DEPTH - 1;
		}
	}
	ok(good, "1, 2, 16 and 1024 slots, cold and warm: the same frames");
	ok(warm_hits, "warm with 1024 slots: every step a hit, no miss");
	uw_cache_init(&c, g_mem, 1);
	walk(&mod, 1, &c, &regs, &w);
	walk(&mod, 1, &c, &regs, &w);
	ok(c.misses >= 2 * (DEPTH - 2) && same(&plain, &w),
	   "1 slot: every pc collides (%llu misses in 2 walks), frames the"
	   " same", (unsigned long long)c.misses);
	mod.cache_id = 0;
	uw_cache_init(&c, g_mem, 1024);
	walk(&mod, 1, &c, &regs, &w);
	ok(same(&plain, &w) && c.hits == 0 && c.misses == 0,
	   "cache_id 0: the module's frames are never cached");
	table_free(&t);
}

static bool tables_ab(struct table *a, struct table *b)
{
	if (table_build(a, off_a) && table_build(b, off_b))
		return true;
	ok(0, "tables built");
	return false;
}

static void test_swap(void)
{
	struct uw_module mod = { .start = TEXT, .end = TEXT + 0x1000,
				 .cache_id = 7, .cache_gen = 1 };
	struct walk plain_b, w;
	struct uw_regs regs;
	struct uw_cache c;
	struct table a, b;

	if (!tables_ab(&a, &b))
		return;
	uw_cache_init(&c, g_mem, 1024);
	/* Warm the cache with table A on A's stack. */
	mod.sframe = &a.sf;
	stack_build(&g_im, &a, &regs);
	walk(&mod, 1, &c, &regs, &w);
	walk(&mod, 1, &c, &regs, &w);
	/* Table B and B's stack, at the same addresses. */
	mod.sframe = &b.sf;
	stack_build(&g_im, &b, &regs);
	walk(&mod, 1, NULL, &regs, &plain_b);
	ok(frames_expected(&plain_b, &b), "table B's frames without a cache");
	mod.cache_gen = 1;
	walk(&mod, 1, &c, &regs, &w);
	ok(!same(&plain_b, &w),
	   "control: B under a warm cache of A with the same generation gives"
	   " A's rows (the cache is consulted)");
	mod.cache_gen = 2;
	walk(&mod, 1, &c, &regs, &w);
	ok(same(&plain_b, &w), "generation bumped: table B's frames");
	walk(&mod, 1, &c, &regs, &w);
	ok(same(&plain_b, &w), "... and again, warm");
	table_free(&a);
	table_free(&b);
}

/* Two processes: the same addresses, other tables, other cache_ids. */
static void test_identity(void)
{
	struct uw_module ma = { .start = TEXT, .end = TEXT + 0x1000,
				.cache_id = 1, .cache_gen = 5 };
	struct uw_module mb = ma;
	struct walk pa, pb, w;
	struct uw_regs ra, rb;
	struct uw_cache c;
	struct table a, b;
	bool good = true;
	int i;

	if (!tables_ab(&a, &b))
		return;
	ma.sframe = &a.sf;
	mb.sframe = &b.sf;
	mb.cache_id = 2;
	uw_cache_init(&c, g_mem, 1024);
	stack_build(&g_im, &a, &ra);
	walk(&ma, 1, NULL, &ra, &pa);
	stack_build(&g_im, &b, &rb);
	walk(&mb, 1, NULL, &rb, &pb);
	for (i = 0; i < 4; i++) {
		stack_build(&g_im, &a, &ra);
		walk(&ma, 1, &c, &ra, &w);
		good = good && same(&pa, &w);
		stack_build(&g_im, &b, &rb);
		walk(&mb, 1, &c, &rb, &w);
		good = good && same(&pb, &w);
	}
	ok(good && !same(&pa, &pb),
	   "two modules at the same addresses, cache_id 1 and 2, one cache:"
	   " each walk its own table's frames");
	table_free(&a);
	table_free(&b);
}

/* xorshift64: the fuzzed bytes, repeatable. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_fuzzed(void)
{
	struct uw_module mod = { .start = TEXT, .end = TEXT + 0x1000,
				 .cache_id = 3, .cache_gen = 1 };
	uint64_t seed = 0x9e3779b97f4a7c15ull, pcs[64], key;
	struct uw_regs regs;
	struct uw_cache c;
	struct walk w;
	struct table t;
	unsigned long outside = 0, ended = 0, runs = 0;
	size_t i, j, npcs = 0;

	if (!table_build(&t, off_a)) {
		ok(0, "table built");
		return;
	}
	mod.sframe = &t.sf;
	stack_build(&g_im, &t, &regs);
	/*
	 * Every read is then of the stack: no signal trampoline is looked
	 * for at the garbage pcs a fuzzed row gives (the probe reads code,
	 * which the accessor may or may not allow, cache or none).
	 */
	g_flags = UW_WALK_NO_SIGFRAME;
	uw_cache_init(&c, g_mem, 16);
	walk(&mod, 1, &c, &regs, &w);
	for (i = 0; i < 16 && npcs < ARRAY_SIZE(pcs); i++)
		if (g_mem[i].key)
			pcs[npcs++] = g_mem[i].pc;
	key = g_mem[0].key;
	for (i = 1; !key && i < 16; i++)
		key = g_mem[i].key;
	for (runs = 0; runs < 20000; runs++) {
		for (i = 0; i < 16; i++) {
			uint8_t *p = (uint8_t *)&g_mem[i];

			for (j = 0; j < sizeof(g_mem[i]); j++)
				p[j] = (uint8_t)rnd(&seed);
			/* Keep most tags matching: the payload is used. */
			if (npcs && rnd(&seed) % 8) {
				g_mem[i].pc = pcs[rnd(&seed) % npcs];
				g_mem[i].key = key;
			}
		}
		walk(&mod, 1, &c, &regs, &w);
		outside += g_im.outside;
		g_im.outside = 0;
		ended += w.n <= ARRAY_SIZE(w.fr) && w.res.stop != UW_STOP_NONE;
	}
	/* f0-f4's call sites and the first pc (f5 is outermost). */
	ok(npcs >= 6 && key, "the cache filled (%zu slots tagged)", npcs);
	ok(ended == runs && outside == 0,
	   "20000 walks with fuzzed cache bytes under matching tags: every"
	   " walk ended (%lu), no read outside the stack (%lu)", ended,
	   outside);
	g_flags = 0;
	table_free(&t);
}

int main(void)
{
	tap_begin(-1);
	test_init();
	test_walks();
	test_swap();
	test_identity();
	test_fuzzed();
	return tap_done();
}
