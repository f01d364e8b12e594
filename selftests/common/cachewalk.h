/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Every walk of a unit test, again with the walker's cache and with its
 * fast loops off: the tests' walk fixtures call uwt_walk() instead of
 * uw_walk().  It walks as asked (that walk's result is the caller's),
 * then again with every module cached (cache_id = index + 1), through a
 * 1-slot cache (every pc collides) and a 256-slot one, each cold and
 * then warm, and counts every walk whose frames or outcome differ from
 * the first in uwt_cache_diffs; each of those walks, and the first,
 * again with UW_WALK_NO_FAST (every frame through the general step), the
 * differences in uwt_nofast_diffs; and again reading the stack in place
 * (directwalk.h, fast loops on and off); and the cached walks once more
 * without the trampoline probe (uwt_nosig_walks()).  uwt_cache_report()
 * prints each as one TAP line.
 *
 * Header-only, static: each test program has its own counters.
 */
#ifndef UWIND_SELFTESTS_CACHEWALK_H
#define UWIND_SELFTESTS_CACHEWALK_H

#include <stdbool.h>
#include <string.h>
#include <uwind/uwind.h>
#include "tap.h"
#include "walkcmp.h"
#include "directwalk.h"

#define UWT_CACHE_MODS	64
#define UWT_CACHE_MAXF	256

static unsigned int uwt_cache_walks, uwt_cache_diffs;
static unsigned int uwt_nofast_walks, uwt_nofast_diffs;

/*
 * The walk again (cfg, with a cache or not) with the fast loops off: it
 * must give frames[0..n) and res exactly (frames, sources, stop, error).
 */
static inline void uwt_nofast_walk(const struct uw_walk_cfg *cfg,
				   const struct uw_regs *regs, size_t max,
				   const struct uw_frame *frames, size_t n,
				   const struct uw_walk_result *res,
				   const char *what)
{
	static struct uw_frame fr[UWT_DIRECT_MAXF];
	static struct uw_cursor cur;
	struct uw_walk_cfg cc = *cfg;
	struct uw_walk_result r2;
	size_t n2;

	if (max > UWT_DIRECT_MAXF)
		return;
	cc.flags |= UW_WALK_NO_FAST;
	n2 = uw_walk(&cur, &cc, regs, fr, max, &r2);
	uwt_nofast_walks++;
	if (!uwt_frames_same(frames, n, res, fr, n2, &r2)) {
		uwt_nofast_diffs++;
		diag("fast loops off (%s) changed a walk: %zu frames, stop %s"
		     " (%d), not %zu, %s (%d)", what, n2,
		     uw_stop_name(r2.stop), r2.err, n,
		     uw_stop_name(res->stop), res->err);
	}
}

/*
 * The walk without the trampoline probe (UW_WALK_NO_SIGFRAME), which
 * lets a cached ARM row's frames take the ARM fast loop even where the
 * test's accessor cannot read code (the probe then never says "no
 * trampoline", lib/walk_fast.c): the general step's walk without a
 * cache is the reference, and every cached walk (1 and 256 slots, cold
 * and warm, fast loops on and off) must give it exactly.
 */
static inline void uwt_nosig_walks(const struct uw_walk_cfg *cfg,
				   const struct uw_regs *regs, size_t max,
				   struct uw_module *mods, struct uw_cache *cache,
				   struct uw_cache_entry *mem)
{
	static struct uw_frame ref[UWT_CACHE_MAXF], fr[UWT_CACHE_MAXF];
	static struct uw_cursor c2;
	static const size_t sizes[] = { 1, 256 };
	struct uw_walk_result r0, r2;
	struct uw_walk_cfg c0 = *cfg, cc;
	size_t n0, n2, k;
	int pass;

	c0.flags |= UW_WALK_NO_SIGFRAME | UW_WALK_NO_FAST;
	n0 = uw_walk(&c2, &c0, regs, ref, max, &r0);
	c0.flags &= ~UW_WALK_NO_FAST;
	uwt_cached_cfg(&cc, &c0, mods, cache);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uw_cache_init(cache, mem, sizes[k]);
		for (pass = 0; pass < 2; pass++) {
			n2 = uw_walk(&c2, &cc, regs, fr, max, &r2);
			uwt_cache_walks++;
			if (!uwt_frames_same(ref, n0, &r0, fr, n2, &r2)) {
				uwt_cache_diffs++;
				diag("cache (%zu slots, %s), no trampoline probe,"
				     " changed a walk: %zu frames, stop %s, not"
				     " %zu, %s", sizes[k], pass ? "warm" : "cold",
				     n2, uw_stop_name(r2.stop), n0,
				     uw_stop_name(r0.stop));
			}
			uwt_nofast_walk(&cc, regs, max, ref, n0, &r0,
					pass ? "cache, warm, no probe" :
					       "cache, cold, no probe");
		}
	}
}

static inline size_t uwt_walk(struct uw_cursor *cur,
			      const struct uw_walk_cfg *cfg,
			      const struct uw_regs *regs,
			      struct uw_frame *frames, size_t max,
			      struct uw_walk_result *res)
{
	static struct uw_module mods[UWT_CACHE_MODS];
	static struct uw_frame fr[UWT_CACHE_MAXF];
	static struct uw_cache_entry mem[256];
	static struct uw_cursor c2;
	static const size_t sizes[] = { 1, 256 };
	struct uw_walk_result r2;
	struct uw_walk_cfg cc;
	struct uw_cache cache;
	size_t n = uw_walk(cur, cfg, regs, frames, max, res), n2, k;
	int pass;

	if (!cfg || !regs || !frames || max > UWT_CACHE_MAXF ||
	    cfg->nmods > UWT_CACHE_MODS || cfg->cache)
		return n;
	uwt_nofast_walk(cfg, regs, max, frames, n, res, "no cache");
	uwt_direct_nofast = uwt_nofast_walk;
	uwt_direct_walk(cfg, regs, max, frames, n, res);
	uwt_cached_cfg(&cc, cfg, mods, &cache);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uw_cache_init(&cache, mem, sizes[k]);
		for (pass = 0; pass < 2; pass++) {
			n2 = uw_walk(&c2, &cc, regs, fr, max, &r2);
			uwt_cache_walks++;
			if (!uwt_frames_same(frames, n, res, fr, n2, &r2)) {
				uwt_cache_diffs++;
				diag("cache (%zu slots, %s) changed a walk: "
				     "%zu frames, stop %s, not %zu, %s",
				     sizes[k], pass ? "warm" : "cold", n2,
				     uw_stop_name(r2.stop), n,
				     uw_stop_name(res->stop));
			}
			/* The same cache, its entries the fast walk's. */
			uwt_nofast_walk(&cc, regs, max, frames, n, res,
					pass ? "cache, warm" : "cache, cold");
		}
	}
	uwt_nosig_walks(cfg, regs, max, mods, &cache, mem);
	return n;
}

static inline void uwt_cache_report(void)
{
	ok(uwt_cache_walks > 0 && uwt_cache_diffs == 0,
	   "every walk the same with the cache, cold and warm, 1 and 256"
	   " slots (%u walks, %u differ)", uwt_cache_walks,
	   uwt_cache_diffs);
	ok(uwt_nofast_walks > 0 && uwt_nofast_diffs == 0,
	   "every walk the same with the fast loops off (UW_WALK_NO_FAST),"
	   " cached, uncached and in place (%u walks, %u differ)",
	   uwt_nofast_walks, uwt_nofast_diffs);
	uwt_direct_report();
}

#endif /* UWIND_SELFTESTS_CACHEWALK_H */
