/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind: the walker's unwind cache.
 *
 * A table lookup is most of what a step costs, and a profiler walks the
 * same return addresses over and over.  The cache remembers, per pc,
 * what the module's tables answered: the row (SFrame), the opcode
 * position (EHABI), the instruction index (Chrome), the encoding
 * (compact unwind), the records (Breakpad STACK CFI), or that no table
 * covers the pc (the frame-pointer fallback's frames).  The memory is
 * the caller's, of the size the caller picks; the core never allocates.
 *
 * An entry is tagged with the full lookup address and the module's
 * &struct uw_module.cache_id and &struct uw_module.cache_gen: an entry of
 * another module, of another generation of the same module's tables, or
 * of another pc that hashed to the same slot is never used.  What an
 * entry holds is checked as if it came from outside (a register number,
 * a rule kind, an offset into a table) before the walker acts on it: a
 * cache whose memory was overwritten with anything at all can make a
 * walk give wrong frames, never read outside its tables or crash.
 */
#ifndef UWIND_CACHE_H
#define UWIND_CACHE_H

#include "types.h"

/**
 * struct uw_cache_entry - one slot of a walker's cache
 *
 * Its layout is private to the core; a host only provides the memory
 * (an array of them) to uw_cache_init().
 */
struct uw_cache_entry {
	/* private: */
	uint64_t pc;
	uint64_t key;
	union {
		struct uw_rule rule[3];
		uint32_t w[6];
	} u;
	uint8_t src;
	uint8_t flags;
	uint8_t fast;
	uint8_t shape;
	int32_t pair_off;
};

/**
 * struct uw_cache - a walker's cache: a direct-mapped table of entries
 * @hits: steps the cache answered (wraps)
 * @misses: steps that looked the tables up, and filled their slot
 *
 * Set it up with uw_cache_init() and name it in &struct
 * uw_walk_cfg.cache.  One cache serves one walk at a time: a host that
 * walks in contexts that can interrupt each other (a signal handler, an
 * NMI and the interrupt it interrupted) gives each context its own.
 * Entries never go stale unnoticed (see &struct uw_module.cache_gen);
 * uw_cache_clear() empties it anyway, to free slots at once.
 */
struct uw_cache {
	uint64_t hits, misses;
	/* private: */
	struct uw_cache_entry *entries;
	uint32_t mask;
};

/**
 * uw_cache_init() - set up a cache over the caller's memory
 * @c: the cache
 * @entries: its slots
 * @n: how many: a power of two from 1 to 2^24
 *
 * Empties every slot and zeroes the counters.
 *
 * Return: 0, or UW_EINVAL (a NULL argument, or n not a power of two in
 * range).
 */
int uw_cache_init(struct uw_cache *c, struct uw_cache_entry *entries,
		  size_t n);

/**
 * uw_cache_clear() - empty every slot of a cache
 * @c: a cache from uw_cache_init()
 */
void uw_cache_clear(struct uw_cache *c);

#endif /* UWIND_CACHE_H */
