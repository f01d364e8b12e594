// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker's cache: setting it up and emptying it.  The lookups and
 * fills are the walker's (lib/walk.c) and each format's step (see
 * lib/walk.h); what a format keeps, and why, is said at its step.
 *
 * An entry is empty when its key is 0: no module with cache_id 0 is
 * ever cached, so an empty slot matches nothing.
 */
#include "walk.h"

#define UWI_CACHE_MAX	((size_t)1 << 24)	/* see uwi_cache_slot() */

void uw_cache_clear(struct uw_cache *c)
{
	uint32_t i;

	/* A plain loop (no memset): the core calls no library function. */
	for (i = 0; i <= c->mask; i++) {
		c->entries[i].key = 0;
		c->entries[i].pc = 0;
		c->entries[i].src = UW_SRC_NONE;
	}
}

int uw_cache_init(struct uw_cache *c, struct uw_cache_entry *entries,
		  size_t n)
{
	if (!c || !entries || n == 0 || n > UWI_CACHE_MAX || (n & (n - 1)))
		return UW_EINVAL;
	c->entries = entries;
	c->mask = (uint32_t)(n - 1);
	c->hits = 0;
	c->misses = 0;
	uw_cache_clear(c);
	return 0;
}
