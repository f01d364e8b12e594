/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The fuzz targets' walk, again through the walker's cache: once with a
 * cache it fills (the frames must be the uncached walk's), then with
 * every slot's contents but its tag overwritten by bytes of the fuzz
 * input, so that the walker takes garbage entries as its own.  That walk
 * may give any frames; it must end, within its frame array, and never
 * crash or read outside what it is given (ASan watches the tables; the
 * accessor reads only the image).
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
 * Every target's walk: uw_walk, the same walk through the cache (above),
 * and what holds for any walk: at least the first frame, within max,
 * counted in res, ended for a known reason.  Returns the frame count.
 */
static size_t fuzz_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			const struct uw_regs *regs, struct uw_frame *frames,
			size_t max, struct uw_walk_result *res,
			const uint8_t *bytes, size_t nbytes)
{
	size_t n = uw_walk(cur, cfg, regs, frames, max, res);

	fuzz_cache_walks(cfg, regs, max, frames, n, res, bytes, nbytes);
	CHECK(n >= 1 && n <= max && n == res->nframes);
	CHECK(res->stop > UW_STOP_NONE && res->stop < UW_STOP_COUNT);
	return n;
}

#endif /* UWIND_FUZZ_FUZZCACHE_H */
