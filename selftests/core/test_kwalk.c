// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Unit tests (TAP) of what the kernel module's walk needs from the core
 * (issue 14):
 *
 *  1. uw_walk_more(): a walk in batches of any size gives uw_walk()'s
 *     frames and stop; on a walk that has ended it gives the last frame
 *     and the stop again;
 *  2. the frame-pointer fallback reads each frame record with one call
 *     of the accessor; with the cache warm, uw_walk() takes those frames
 *     in a loop of their own, and gives the same frames;
 *  3. the cache keeps, for a return address with no table row, that no
 *     sigreturn trampoline is there: a warm walk of frame-pointer frames
 *     reads no code (a cold one reads each frame's), a trampoline is
 *     still found with the cache warm, and code that could not be read
 *     is read again next time (it may be a trampoline then).
 *  4. built with selftests/core/env_read.h (UW_ENV_READ, the way the
 *     kernel module gives the core its read inline): the walks above
 *     read through the inline body, a walk with another accessor never
 *     does, and both give the same frames, with the fast loops and
 *     without.
 *
 * The stacks are built here by hand (x86-64): module A (SFrame) and
 * module B (no table, frame pointers, a trampoline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/uwind.h>
#include "../../scripts/uwind/sframe_enc.h"
#include "../common/tap.h"
#include "../common/sfetable.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define A_TEXT		0x401000ull	/* SFrame: f(i) at A_TEXT + 0x100 i */
#define B_TEXT		0x500000ull	/* no table */
#define B_SIZE		0x1000
#define STACK		0x7ffe00000000ull
#define STACK_SIZE	0x4000

/* The stack, and B's code (zeros but a trampoline where one is put). */
struct image {
	uint8_t stack[STACK_SIZE];
	uint8_t code[B_SIZE];
	unsigned int reads, code_reads;
	bool code_fails;		/* reads of B's code fail */
};

static int image_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct image *im = ctx;

	im->reads++;
	if (addr >= B_TEXT && addr - B_TEXT < B_SIZE) {
		im->code_reads++;
		if (im->code_fails || len > B_SIZE - (addr - B_TEXT))
			return -1;
		memcpy(dst, im->code + (addr - B_TEXT), len);
		return 0;
	}
	if (addr < STACK || addr - STACK > STACK_SIZE ||
	    len > STACK_SIZE - (addr - STACK))
		return -1;
	memcpy(dst, im->stack + (addr - STACK), len);
	return 0;
}

#ifdef UWT_ENV_READ
/* The accessor the core has inline (env_read.h): image_read(). */
unsigned long uwt_env_inline_reads;

int uwt_env_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	return image_read(ctx, addr, dst, len);
}
#define UWT_READ	uwt_env_read
#else
#define UWT_READ	image_read
#endif

static void put64(struct image *im, uint64_t addr, uint64_t v)
{
	sfe_put(im->stack + (addr - STACK), 8, v, false);
}

/* mov $15, %rax; syscall: x86-64's rt_sigreturn trampoline. */
static const uint8_t tramp[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
};

/* A: four functions, CFA = sp + 16, fp saved at CFA - 16. */
struct table {
	struct sfe_fre fre;
	struct sfe_fde fdes[4];
	uint8_t *p;
	size_t len;
	struct sfe_layout lay;
	struct uw_sframe sf;
};

static bool table_build(struct table *t)
{
	struct sfe_table st = {
		.version = 2, .flags = SFE_F_SORTED, .abi = SFE_ABI_AMD64_LE,
		.fixed_ra = -8, .addr = 0x600000, .nfdes = 4,
	};
	int i;

	memset(t, 0, sizeof(*t));
	t->fre.base_sp = 1;
	t->fre.nwords = 2;
	t->fre.w[0] = 16;
	t->fre.w[1] = -16;
	for (i = 0; i < 4; i++) {
		t->fdes[i].func_start = A_TEXT + 0x100 * i;
		t->fdes[i].func_size = 0x100;
		t->fdes[i].nfres = 1;
		t->fdes[i].fres = &t->fre;
	}
	st.fdes = t->fdes;
	return uwt_sframe_build(&st, &t->p, &t->len, &t->lay, &t->sf);
}

static struct image g_im;
static struct table g_tab;
static struct uw_module g_mods[2];
static struct uw_cursor g_cur;
static struct uw_cache_entry g_mem[256];
static struct uw_cache g_cache;

static void config(struct uw_walk_cfg *cfg, struct uw_cache *cache)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = UW_ARCH_X86_64;
	cfg->mods = g_mods;
	cfg->nmods = 2;
	cfg->mem.read = UWT_READ;
	cfg->mem.ctx = &g_im;
	cfg->cache = cache;
	g_mods[0].start = A_TEXT;
	g_mods[0].end = A_TEXT + 0x400;
	g_mods[0].sframe = &g_tab.sf;
	g_mods[0].cache_id = 1;
	g_mods[0].cache_gen = 1;
	g_mods[1].start = B_TEXT;
	g_mods[1].end = B_TEXT + B_SIZE;
	g_mods[1].cache_id = 2;
	g_mods[1].cache_gen = 1;
}

/*
 * The mixed stack: NB frames of B (frame records), then 2 of A (SFrame),
 * then NB of B again, to the end of the chain (fp 0).  Frame k keeps a
 * 16-byte record (its caller's fp and its return address) at rec(k), and
 * its caller's sp is rec(k) + 16: B's frames point fp at it, 0x30 bytes
 * above their sp (locals); A's have it at their sp (CFA = sp + 16).
 */
#define NB	6
#define NFRAMES	(2 * NB + 2)

static bool is_a(int k)
{
	return k == NB || k == NB + 1;
}

static uint64_t pc_of(int k)
{
	if (is_a(k))
		return A_TEXT + 0x100 * (k - NB) + 0x40;
	return B_TEXT + 0x40 * (uint64_t)k + 0x10;
}

/* The sp of frame k, and where its record is. */
static uint64_t sp_of(int k)
{
	uint64_t sp = STACK + 0x100;
	int i;

	for (i = 0; i < k; i++)
		sp += (is_a(i) ? 0 : 0x30) + 16;
	return sp;
}

static uint64_t rec_of(int k)
{
	return sp_of(k) + (is_a(k) ? 0 : 0x30);
}

static void stack_mixed(struct uw_regs *regs)
{
	int k;

	memset(g_im.stack, 0, sizeof(g_im.stack));
	memset(g_im.code, 0, sizeof(g_im.code));
	regs->valid = 0;
	uw_reg_set(regs, UW_X86_64_RIP, pc_of(0));
	uw_reg_set(regs, UW_X86_64_RSP, sp_of(0));
	uw_reg_set(regs, UW_X86_64_RBP, rec_of(0));
	for (k = 0; k + 1 < NFRAMES; k++) {
		put64(&g_im, rec_of(k), k + 2 < NFRAMES ? rec_of(k + 1) : 0);
		put64(&g_im, rec_of(k) + 8, pc_of(k + 1));
	}
}

static size_t walk_all(struct uw_walk_cfg *cfg, const struct uw_regs *regs,
		       struct uw_frame *fr, size_t max,
		       struct uw_walk_result *res)
{
	return uw_walk(&g_cur, cfg, regs, fr, max, res);
}

static bool frame_eq(const struct uw_frame *a, const struct uw_frame *b)
{
	return a->pc == b->pc && a->sp == b->sp && a->cfa == b->cfa &&
	       a->source == b->source && a->flags == b->flags &&
	       a->module == b->module;
}

/* 1. Batches of 1 to NFRAMES + 1 frames against one uw_walk(). */
static void test_batches(void)
{
	struct uw_frame want[NFRAMES + 4], fr[NFRAMES + 4], got[NFRAMES + 4];
	struct uw_walk_result wres, res;
	struct uw_walk_cfg cfg;
	struct uw_regs regs;
	size_t n, m, total, b, bad = 0;
	int k;

	config(&cfg, NULL);
	stack_mixed(&regs);
	n = walk_all(&cfg, &regs, want, ARRAY_SIZE(want), &wres);
	for (k = 0; k < (int)n && k < NFRAMES; k++)
		if (want[k].pc != pc_of(k))
			break;
	if (!ok(n == NFRAMES && k == NFRAMES && wres.stop == UW_STOP_END &&
		want[0].source == UW_SRC_FP && want[NB].source == UW_SRC_SFRAME,
		"the mixed stack walks whole: %zu frames (%d as built), %s, frame 0 by %s, frame %d by %s",
		n, k, uw_stop_name(wres.stop), uw_source_name(want[0].source),
		NB, uw_source_name(want[NB].source)))
		return;
	for (b = 1; b <= NFRAMES + 1; b++) {
		if (uw_cursor_init(&g_cur, &cfg, &regs)) {
			bad++;
			continue;
		}
		total = 0;
		res.stop = UW_STOP_NONE;
		/* Each batch restates the cursor's frame as its frames[0]. */
		while (g_cur.stop == UW_STOP_NONE && total < ARRAY_SIZE(got)) {
			m = uw_walk_more(&g_cur, &cfg, fr, b + 1, &res);
			if (m == 0)
				break;
			if (total)
				got[total - 1] = fr[0];
			else
				got[total++] = fr[0];
			memcpy(&got[total], &fr[1], (m - 1) * sizeof(fr[0]));
			total += m - 1;
		}
		if (total != n || res.stop != wres.stop || res.err != wres.err)
			bad++;
		else
			for (m = 0; m < n; m++)
				if (!frame_eq(&got[m], &want[m])) {
					bad++;
					break;
				}
	}
	ok(bad == 0,
	   "uw_walk_more() in batches of 1 to %d frames gives uw_walk()'s %zu frames and stop (%zu batch sizes differ)",
	   NFRAMES + 1, n, bad);

	m = uw_walk_more(&g_cur, &cfg, fr, 4, &res);
	ok(m == 1 && frame_eq(&fr[0], &want[n - 1]) &&
	   res.stop == UW_STOP_END && res.err == 0,
	   "uw_walk_more() on an ended walk: its last frame again and its stop (%zu frames, %s)",
	   m, uw_stop_name(res.stop));

	/* The depth limit counts the whole walk's steps, over batches. */
	cfg.max_depth = 5;
	uw_cursor_init(&g_cur, &cfg, &regs);
	total = 1;
	while (g_cur.stop == UW_STOP_NONE) {
		m = uw_walk_more(&g_cur, &cfg, fr, 3, &res);
		if (m < 1)
			break;
		total += m - 1;
	}
	n = uw_walk(&g_cur, &cfg, &regs, want, ARRAY_SIZE(want), &wres);
	ok(total == n && n == 5 && res.stop == UW_STOP_DEPTH &&
	   wres.stop == UW_STOP_DEPTH,
	   "max_depth 5 over batches of 2 steps: %zu frames (one walk: %zu), %s",
	   total, n, uw_stop_name(res.stop));
}

/* 2, 3. What the frame-pointer fallback reads. */
static void test_fp_reads(void)
{
	struct uw_frame fr[NFRAMES + 4], want[NFRAMES + 4];
	struct uw_walk_result res, wres;
	struct uw_walk_cfg cfg;
	struct uw_regs regs;
	unsigned int cold, warm, reads;
	size_t n, n2, nw, k, same = 0;

	config(&cfg, NULL);
	stack_mixed(&regs);
	g_im.reads = g_im.code_reads = 0;
	/* Frames 0..NB-1 are B's: the first (exact) reads no code (0x10 in). */
	n = uw_walk(&g_cur, &cfg, &regs, fr, 1 + 3, &res);
	reads = g_im.reads - g_im.code_reads;
	ok(n == 4 && reads == 3,
	   "3 frame-pointer steps read their records with 3 accessor calls (%u; %zu frames)",
	   reads, n);

	nw = uw_walk(&g_cur, &cfg, &regs, want, ARRAY_SIZE(want), &wres);
	if (uw_cache_init(&g_cache, g_mem, ARRAY_SIZE(g_mem))) {
		ok(false, "uw_cache_init");
		return;
	}
	config(&cfg, &g_cache);
	g_im.code_reads = 0;
	n = uw_walk(&g_cur, &cfg, &regs, fr, ARRAY_SIZE(fr), &res);
	cold = g_im.code_reads;
	g_im.code_reads = 0;
	n2 = uw_walk(&g_cur, &cfg, &regs, fr, ARRAY_SIZE(fr), &res);
	warm = g_im.code_reads;
	for (k = 0; k < n2 && k < nw; k++)
		same += frame_eq(&fr[k], &want[k]);
	ok(n2 == nw && same == nw && res.stop == wres.stop &&
	   res.err == wres.err,
	   "the warm walk (frame records taken in uw_walk's loop for them) gives the walk without a cache's %zu frames and stop (%zu the same, %s)",
	   nw, same, uw_stop_name(res.stop));
	/* B's frames: all NB + NB - 1 return addresses, plus frame 0. */
	ok(n == NFRAMES && n2 == NFRAMES && cold == 2 * NB && warm == 1,
	   "trampoline probes of B's frames: %u in the cold walk (%d frames), %u warm (the first frame's, exact)",
	   cold, 2 * NB, warm);

	/* Code that could not be read is no answer: read again. */
	uw_cache_clear(&g_cache);
	g_im.code_fails = true;
	uw_walk(&g_cur, &cfg, &regs, fr, ARRAY_SIZE(fr), &res);
	g_im.code_fails = false;
	g_im.code_reads = 0;
	uw_walk(&g_cur, &cfg, &regs, fr, ARRAY_SIZE(fr), &res);
	ok(g_im.code_reads == 2 * NB,
	   "code unreadable in the cold walk: read again in the next (%u probes, want %d)",
	   g_im.code_reads, 2 * NB);
}

/*
 * 3. A trampoline at frame 2's return address, with a warm cache: B's
 * frames 0 and 1, then the signal frame, restoring a B frame at pc
 * B + 0x800 whose fp is 0 (the chain's end).
 */
static void test_tramp_warm(void)
{
	/* mcontext's gregs: r8-r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip */
	enum { G_RBP = 10, G_RSP = 15, G_RIP = 16 };
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_walk_cfg cfg;
	struct uw_regs regs;
	uint64_t ret = B_TEXT + 0x600, sp2 = sp_of(4), mctx;
	size_t n = 0;
	int i, w, good = 0;

	if (uw_cache_init(&g_cache, g_mem, ARRAY_SIZE(g_mem))) {
		ok(false, "uw_cache_init");
		return;
	}
	config(&cfg, &g_cache);
	for (w = 0; w < 3; w++) {
		stack_mixed(&regs);
		memcpy(g_im.code + (ret - B_TEXT), tramp, sizeof(tramp));
		/* Frame 1's caller is the trampoline, at sp rec(1) + 16. */
		put64(&g_im, rec_of(1), 0);
		put64(&g_im, rec_of(1) + 8, ret);
		mctx = rec_of(1) + 16 + 40;
		for (i = 0; i < 17; i++)
			put64(&g_im, mctx + 8 * i, 0);
		put64(&g_im, mctx + 8 * G_RSP, sp2);
		put64(&g_im, mctx + 8 * G_RIP, B_TEXT + 0x800);
		put64(&g_im, mctx + 8 * G_RBP, 0);
		n = uw_walk(&g_cur, &cfg, &regs, fr, ARRAY_SIZE(fr), &res);
		if (n == 4 && fr[2].pc == ret &&
		    fr[2].source == UW_SRC_SIGFRAME &&
		    fr[3].pc == B_TEXT + 0x800 && fr[3].sp == sp2 &&
		    res.stop == UW_STOP_END)
			good++;
	}
	ok(good == 3,
	   "a trampoline at a return address is restored cold and with the cache warm (%d of 3 walks; last: %zu frames, frame 2 by %s)",
	   good, n, uw_source_name(n > 2 ? fr[2].source : UW_SRC_NONE));
}

#ifdef UWT_ENV_READ
/* Another accessor than the inline one: read through its pointer. */
static int other_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	return image_read(ctx, addr, dst, len);
}

/* 4. The inline read (UW_ENV_READ) against the same read by pointer. */
static void test_env_read(void)
{
	struct uw_frame want[NFRAMES + 4], fr[NFRAMES + 4];
	struct uw_walk_result wres, res;
	struct uw_walk_cfg cfg;
	struct uw_regs regs;
	unsigned long inl;
	size_t n, nw, k, pass, bad = 0, reads = 0;

	if (uw_cache_init(&g_cache, g_mem, ARRAY_SIZE(g_mem))) {
		ok(false, "uw_cache_init");
		return;
	}
	for (pass = 0; pass < 4; pass++) {
		config(&cfg, &g_cache);
		if (pass & 1)
			cfg.flags |= UW_WALK_NO_FAST;
		stack_mixed(&regs);
		cfg.mem.read = other_read;
		inl = uwt_env_inline_reads;
		nw = uw_walk(&g_cur, &cfg, &regs, want, ARRAY_SIZE(want),
			     &wres);
		if (uwt_env_inline_reads != inl)
			bad++;
		cfg.mem.read = uwt_env_read;
		g_im.reads = 0;
		inl = uwt_env_inline_reads;
		n = uw_walk(&g_cur, &cfg, &regs, fr, ARRAY_SIZE(fr), &res);
		reads += g_im.reads;
		if (uwt_env_inline_reads - inl != g_im.reads || !g_im.reads ||
		    n != nw || res.stop != wres.stop || res.err != wres.err)
			bad++;
		for (k = 0; k < n && k < nw; k++)
			if (!frame_eq(&fr[k], &want[k]))
				bad++;
	}
	ok(bad == 0 && reads > 0,
	   "UW_ENV_READ: every read of a walk with that accessor inline (%zu reads), none of one with another, the same frames (fast loops on and off, cold and warm; %zu differences)",
	   reads, bad);
}
#endif

int main(void)
{
	tap_begin(-1);
	if (!table_build(&g_tab)) {
		ok(false, "table A");
		return tap_done();
	}
	test_batches();
	test_fp_reads();
	test_tramp_warm();
#ifdef UWT_ENV_READ
	test_env_read();
#endif
	free(g_tab.p);
	sfe_layout_free(&g_tab.lay);
	return tap_done();
}
