/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The fuzz targets' walk, again through the walker's cache: once with a
 * cache it fills (the frames must be the uncached walk's), then with
 * every slot's contents but its tag overwritten by bytes of the fuzz
 * input, so that the walker takes garbage entries as its own.  That walk
 * may give any frames; it must end, within its frame array, and never
 * crash or read outside what it is given (ASan watches the tables; the
 * accessor reads only the image).
 *
 * Then the walk reading the stack in place (UW_WALK_DIRECT_STACK), its
 * bounds the stack image, which is the fuzz input's own bytes (ASan
 * sees any read outside them): it must give what the walk through the
 * accessor gives within the same bounds, and so must its cached walks,
 * fuzzed slots included.
 *
 * And every walk but those over fuzzed slots again with the fast loops
 * off (UW_WALK_NO_FAST): the general step alone must give the same
 * frames, sources, stop and error exactly.  (Over fuzzed slots the two
 * may differ: a garbage entry's fast bits and its rules need not agree.)
 */
#ifndef UWIND_FUZZ_FUZZCACHE_H
#define UWIND_FUZZ_FUZZCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <uwind/uwind.h>

#ifndef CHECK
#error "fuzzcache.h: define CHECK first (image.h does)"
#endif

#define FC_SLOTS	8
#define FC_MODS		4

/* The walk cfg gave (want, nwant, want_res), again with the fast loops off. */
static void fuzz_nofast_walk(const struct uw_walk_cfg *cfg,
			     const struct uw_regs *regs, size_t max,
			     const struct uw_frame *want, size_t nwant,
			     const struct uw_walk_result *want_res)
{
	static struct uw_frame frames[64];
	static struct uw_cursor cur;
	struct uw_walk_cfg cc = *cfg;
	struct uw_walk_result res;
	size_t i, n;

	if (max > 64)
		return;
	cc.flags |= UW_WALK_NO_FAST;
	n = uw_walk(&cur, &cc, regs, frames, max, &res);
	CHECK(n == nwant && res.nframes == want_res->nframes &&
	      res.stop == want_res->stop && res.err == want_res->err);
	for (i = 0; i < n; i++)
		CHECK(frames[i].pc == want[i].pc && frames[i].sp == want[i].sp &&
		      frames[i].cfa == want[i].cfa &&
		      frames[i].source == want[i].source &&
		      frames[i].flags == want[i].flags &&
		      frames[i].module == want[i].module);
}

/*
 * Without the trampoline probe (UW_WALK_NO_SIGFRAME), where cached ARM
 * rows take the ARM fast loop whether or not the accessor reads code:
 * the walk with the cache cc (cold, then warm) and with the fast loops
 * off must give the uncached general step's walk exactly.
 */
static void fuzz_nosig_walks(const struct uw_walk_cfg *cfg,
			     const struct uw_walk_cfg *cc,
			     const struct uw_regs *regs, size_t max)
{
	static struct uw_frame ref[64], frames[64];
	static struct uw_cursor cur;
	struct uw_walk_cfg c0 = *cfg, c1 = *cc;
	struct uw_walk_result r0, res;
	size_t i, n0, n;
	int pass;

	if (max > 64)
		return;
	c0.flags |= UW_WALK_NO_SIGFRAME | UW_WALK_NO_FAST;
	c0.cache = NULL;
	n0 = uw_walk(&cur, &c0, regs, ref, max, &r0);
	c1.flags |= UW_WALK_NO_SIGFRAME;
	uw_cache_clear(c1.cache);
	for (pass = 0; pass < 2; pass++) {
		n = uw_walk(&cur, &c1, regs, frames, max, &res);
		CHECK(n == n0 && res.stop == r0.stop && res.err == r0.err);
		for (i = 0; i < n; i++)
			CHECK(frames[i].pc == ref[i].pc &&
			      frames[i].sp == ref[i].sp &&
			      frames[i].cfa == ref[i].cfa &&
			      frames[i].source == ref[i].source &&
			      frames[i].flags == ref[i].flags &&
			      frames[i].module == ref[i].module);
		fuzz_nofast_walk(&c1, regs, max, ref, n0, &r0);
	}
}

static void fuzz_cache_walks(const struct uw_walk_cfg *cfg,
			     const struct uw_regs *regs, size_t max,
			     const struct uw_frame *want, size_t nwant,
			     const struct uw_walk_result *want_res,
			     const uint8_t *bytes, size_t nbytes)
{
	static struct uw_cache_entry mem[FC_SLOTS];
	static struct uw_frame frames[64];
	static struct uw_cursor cur;
	struct uw_module mods[FC_MODS];
	struct uw_walk_result res;
	struct uw_walk_cfg cc = *cfg;
	struct uw_cache cache;
	size_t i, j, n, k = 0;
	uint8_t *p;

	if (max > 64 || cfg->nmods > FC_MODS)
		return;
	for (i = 0; i < cfg->nmods; i++) {
		mods[i] = cfg->mods[i];
		mods[i].cache_id = (uint32_t)i + 1;
		mods[i].cache_gen = 1;
	}
	cc.mods = mods;
	cc.cache = &cache;
	CHECK(uw_cache_init(&cache, mem, FC_SLOTS) == 0);
	n = uw_walk(&cur, &cc, regs, frames, max, &res);
	CHECK(n == nwant && res.stop == want_res->stop &&
	      res.err == want_res->err);
	for (i = 0; i < n; i++)
		CHECK(frames[i].pc == want[i].pc && frames[i].sp == want[i].sp &&
		      frames[i].cfa == want[i].cfa &&
		      frames[i].source == want[i].source &&
		      frames[i].module == want[i].module);
	/* The cache as the fast walk left it: the general step's answer. */
	fuzz_nofast_walk(&cc, regs, max, want, nwant, want_res);
	fuzz_nosig_walks(cfg, &cc, regs, max);
	if (!nbytes)
		return;
	/* Everything after the tag (pc, key) from the input, cycled. */
	for (i = 0; i < FC_SLOTS; i++) {
		p = (uint8_t *)&mem[i];
		for (j = 2 * sizeof(uint64_t); j < sizeof(mem[i]); j++)
			p[j] = bytes[k++ % nbytes];
	}
	n = uw_walk(&cur, &cc, regs, frames, max, &res);
	CHECK(n >= 1 && n <= max && n == res.nframes);
	CHECK(res.stop > UW_STOP_NONE && res.stop < UW_STOP_COUNT);
	CHECK(res.err <= 0 && res.err >= UW_ERR_MIN);
}

/*
 * The walk again within the bounds of the stack image (bytes, seen at
 * base), through the accessor and in place: the same walk, cached or
 * not.  Without an accessor, only the walk in place (for ASan).
 */
static void fuzz_direct_walks(const struct uw_walk_cfg *cfg,
			      const struct uw_regs *regs, size_t max,
			      uint64_t base, const uint8_t *bytes,
			      size_t nbytes)
{
	static struct uw_frame fa[64], fd[64];
	static struct uw_cursor cur;
	struct uw_walk_result ra, rd;
	struct uw_walk_cfg ca = *cfg, cd;
	size_t na, nd, i;

	if (!nbytes || max > 64 || base > ~(uint64_t)0 - nbytes)
		return;
	ca.stack_lo = base;
	ca.stack_hi = base + nbytes;
	ca.cache = NULL;
	cd = ca;
	cd.flags |= UW_WALK_DIRECT_STACK;
	cd.stack_mem = bytes;
	nd = uw_walk(&cur, &cd, regs, fd, max, &rd);
	CHECK(nd >= 1 && nd <= max && nd == rd.nframes);
	CHECK(rd.stop > UW_STOP_NONE && rd.stop < UW_STOP_COUNT);
	fuzz_nofast_walk(&cd, regs, max, fd, nd, &rd);
	if (!cfg->mem.read)
		return;
	na = uw_walk(&cur, &ca, regs, fa, max, &ra);
	CHECK(na == nd && ra.stop == rd.stop && ra.err == rd.err);
	for (i = 0; i < na; i++)
		CHECK(fa[i].pc == fd[i].pc && fa[i].sp == fd[i].sp &&
		      fa[i].cfa == fd[i].cfa && fa[i].source == fd[i].source &&
		      fa[i].flags == fd[i].flags &&
		      fa[i].module == fd[i].module);
	fuzz_cache_walks(&cd, regs, max, fd, nd, &rd, bytes, nbytes);
}

/*
 * Every target's walk: uw_walk, the same walk through the cache (above),
 * and in place over the stack image (bytes, seen at base); and what
 * holds for any walk: at least the first frame, within max, counted in
 * res, ended for a known reason.  Returns the frame count.
 */
static size_t fuzz_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uw_regs *regs, struct uw_frame *frames,
			size_t max, struct uw_walk_result *res, uint64_t base,
			const uint8_t *bytes, size_t nbytes)
{
	size_t n = uw_walk(cur, cfg, regs, frames, max, res);

	fuzz_nofast_walk(cfg, regs, max, frames, n, res);
	fuzz_cache_walks(cfg, regs, max, frames, n, res, bytes, nbytes);
	fuzz_direct_walks(cfg, regs, max, base, bytes, nbytes);
	CHECK(n >= 1 && n <= max && n == res->nframes);
	CHECK(res->stop > UW_STOP_NONE && res->stop < UW_STOP_COUNT);
	return n;
}

#endif /* UWIND_FUZZ_FUZZCACHE_H */
