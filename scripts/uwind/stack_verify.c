// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack --check-walk`: each thread walked again, the other ways
 * the core can walk it, and compared with the walk the output shows
 * (stack_print.c): frame by frame (pc, sp, CFA, source, flags, module)
 * and how the walk ended (frame count, stop, error).
 *
 * The walks, after the plain one (no cache, the fast loops as the build
 * has them):
 *
 *   cold cache                 with a walker cache, emptied for the thread,
 *                              every module cached (cache_id index + 1):
 *                              the lookups fill it;
 *   warm cache                 the same again: the fast loops run from the
 *                              cached entries (on ARM the cached rows);
 *   no fast loops              UW_WALK_NO_FAST, no cache: every frame
 *                              through the general step;
 *   warm cache, no fast loops  the general step taking the cached entries.
 *
 * The core promises the same frames every way (uwind.h, UW_WALK_NO_FAST
 * and &struct uw_walk_cfg.cache); a difference is a walker bug, said on
 * stderr (the thread, the walk, the first frame that differs and both
 * walks' values there, and how each ended).
 */
#include <stdlib.h>
#include <string.h>
#include "stack.h"

#define VERIFY_SLOTS	4096	/* a power of two (uw_cache_init()) */

static const struct {
	const char *name;
	bool cache;
	uint32_t flags;
} walks[STK_VERIFY_WALKS] = {
	{ "cold cache", true, 0 },
	{ "warm cache", true, 0 },
	{ "no fast loops", false, UW_WALK_NO_FAST },
	{ "warm cache, no fast loops", true, UW_WALK_NO_FAST },
};

static bool frame_same(const struct uw_frame *a, const struct uw_frame *b)
{
	return a->pc == b->pc && a->sp == b->sp && a->cfa == b->cfa &&
	       a->source == b->source && a->flags == b->flags &&
	       a->module == b->module;
}

long stk_walk_diff(const struct stk_walk *a, const struct stk_walk *b)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++)
		if (!frame_same(&a->frames[i], &b->frames[i]))
			return (long)i;
	if (a->n != b->n)
		return (long)i;
	if (a->res.nframes != b->res.nframes || a->res.stop != b->res.stop ||
	    a->res.err != b->res.err)
		return (long)a->n;
	return -1;
}

/* One walk's frame i (or that it has none) if frame, and how it ended. */
static void report_walk(FILE *f, const char *name, const struct stk_walk *w,
			size_t i, bool frame)
{
	const struct uw_frame *fr = i < w->n ? &w->frames[i] : NULL;

	if (frame && fr)
		fprintf(f, "uwind:   %s: frame %zu: pc 0x%llx sp 0x%llx cfa"
			" 0x%llx source %s flags 0x%x module %u\n", name, i,
			(unsigned long long)fr->pc, (unsigned long long)fr->sp,
			(unsigned long long)fr->cfa,
			uw_source_name((enum uw_source)fr->source), fr->flags,
			fr->module);
	else if (frame)
		fprintf(f, "uwind:   %s: no frame %zu\n", name, i);
	fprintf(f, "uwind:   %s: %zu frames, stopped: %s (%s, %d)\n", name,
		w->n, uw_stop_name((enum uw_stop)w->res.stop),
		uw_strerror(w->res.err), w->res.err);
}

void stk_walk_report(FILE *f, size_t number, int tid, const char *what,
		     const struct stk_walk *plain, const struct stk_walk *w,
		     long at)
{
	size_t i = (size_t)at;
	bool frame = i < plain->n || i < w->n;

	fprintf(f, "uwind: --check-walk: thread %zu (LWP %d): the walk with"
		" %s differs from the plain walk ", number, tid, what);
	if (frame)
		fprintf(f, "at frame %zu (inline frames not counted)\n", i);
	else
		fputs("in how it ended\n", f);
	report_walk(f, "plain walk", plain, i, frame);
	report_walk(f, what, w, i, frame);
}

int stk_verify_begin(struct stk_verify *v, const struct uw_module *mods,
		     size_t nmods)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	v->entries = calloc(VERIFY_SLOTS, sizeof(*v->entries));
	v->mods = calloc(nmods ? nmods : 1, sizeof(*v->mods));
	if (!v->entries || !v->mods ||
	    uw_cache_init(&v->cache, v->entries, VERIFY_SLOTS)) {
		fprintf(stderr, "uwind: --check-walk: out of memory\n");
		stk_verify_end(v);
		return -1;
	}
	for (i = 0; i < nmods; i++) {
		v->mods[i] = mods[i];
		v->mods[i].cache_id = (uint32_t)i + 1;
		v->mods[i].cache_gen = 1;
	}
	return 0;
}

void stk_verify_thread(struct stk_verify *v, const struct uw_walk_cfg *cfg,
		       const struct uw_regs *regs, size_t max,
		       const struct stk_walk *plain, size_t number, int tid)
{
	static struct uw_frame frames[STK_MAX_FRAMES];
	static struct uw_cursor cur;
	struct uw_walk_cfg c;
	struct stk_walk w = { .frames = frames };
	uint64_t hits, misses;
	unsigned int k;
	long at;

	if (max > STK_MAX_FRAMES)
		max = STK_MAX_FRAMES;
	uw_cache_clear(&v->cache);
	v->threads++;
	for (k = 0; k < STK_VERIFY_WALKS; k++) {
		c = *cfg;
		c.flags |= walks[k].flags;
		if (walks[k].cache) {
			c.mods = v->mods;
			c.cache = &v->cache;
		}
		hits = v->cache.hits;
		misses = v->cache.misses;
		w.n = uw_walk(&cur, &c, regs, frames, max, &w.res);
		v->hits[k] += v->cache.hits - hits;
		v->misses[k] += v->cache.misses - misses;
		at = stk_walk_diff(plain, &w);
		if (at < 0)
			continue;
		v->differ++;
		stk_walk_report(stderr, number, tid, walks[k].name, plain, &w,
				at);
	}
}

void stk_verify_end(struct stk_verify *v)
{
	free(v->entries);
	free(v->mods);
	v->entries = NULL;
	v->mods = NULL;
}
