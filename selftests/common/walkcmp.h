/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * What the tests that make a walk again another way share (cachewalk.h,
 * directwalk.h): whether two walks are the same, and the walk's
 * configuration with every module cached.
 */
#ifndef UWIND_SELFTESTS_WALKCMP_H
#define UWIND_SELFTESTS_WALKCMP_H

#include <stdbool.h>
#include <uwind/uwind.h>

/* As many frames, each the same, and the same stop and error. */
static inline bool uwt_frames_same(const struct uw_frame *a, size_t na,
				   const struct uw_walk_result *ra,
				   const struct uw_frame *b, size_t nb,
				   const struct uw_walk_result *rb)
{
	size_t i;

	if (na != nb || ra->nframes != rb->nframes || ra->stop != rb->stop ||
	    ra->err != rb->err)
		return false;
	for (i = 0; i < na; i++)
		if (a[i].pc != b[i].pc || a[i].sp != b[i].sp ||
		    a[i].cfa != b[i].cfa || a[i].source != b[i].source ||
		    a[i].flags != b[i].flags || a[i].module != b[i].module)
			return false;
	return true;
}

/*
 * cc = *cfg with a cache, its modules copied into mods (room for
 * cfg->nmods) with cache_id index + 1.
 */
static inline void uwt_cached_cfg(struct uw_walk_cfg *cc,
				  const struct uw_walk_cfg *cfg,
				  struct uw_module *mods, struct uw_cache *cache)
{
	size_t i;

	*cc = *cfg;
	for (i = 0; i < cfg->nmods; i++) {
		mods[i] = cfg->mods[i];
		mods[i].cache_id = (uint32_t)i + 1;
		mods[i].cache_gen = 1;
	}
	if (cfg->nmods)
		cc->mods = mods;
	cc->cache = cache;
}

#endif /* UWIND_SELFTESTS_WALKCMP_H */
