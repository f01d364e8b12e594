/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The core's whole-table checks through one signature, and a check run
 * in one call next to the same check in chunks, for the tests and fuzz
 * targets that compare them.  Header-only.
 */
#ifndef UWIND_SELFTESTS_CHECK_H
#define UWIND_SELFTESTS_CHECK_H

#include <stdbool.h>
#include <uwind/uwind.h>

typedef int (*uwt_check_fn)(const void *table, struct uw_check *c);

static inline int uwt_sframe_check(const void *t, struct uw_check *c)
{
	return uw_sframe_check(t, c);
}

static inline int uwt_ehabi_check(const void *t, struct uw_check *c)
{
	return uw_ehabi_check(t, c);
}

static inline int uwt_chrome_check(const void *t, struct uw_check *c)
{
	return uw_chrome_check(t, c);
}

static inline int uwt_cu_check(const void *t, struct uw_check *c)
{
	return uw_cu_check(t, c);
}

static inline int uwt_bp_check(const void *t, struct uw_check *c)
{
	return uw_bp_check(t, c);
}

/*
 * Check table t in one call, then again in chunks of limit units.
 * Returns the one-shot verdict, *item its entry; *same is whether the
 * chunked check gave the same verdict at the same entry, *calls how many
 * calls it took.  Each call checks at least one unit, so the loop ends.
 */
static inline int uwt_check_twice(uwt_check_fn fn, const void *t,
				  uint32_t limit, uint32_t *item, bool *same,
				  unsigned int *calls)
{
	struct uw_check c;
	int one, ret;

	uw_check_start(&c, 0);
	one = fn(t, &c);
	*item = c.item;
	uw_check_start(&c, limit);
	*calls = 0;
	do {
		ret = fn(t, &c);
		(*calls)++;
	} while (ret == UW_CHECK_MORE);
	*same = one != UW_CHECK_MORE && ret == one &&
		(one == UW_CHECK_DONE || c.item == *item);
	return one;
}

/* A format error: what a checked table never gives again. */
static inline bool uwt_format_error(int err)
{
	return err == UW_EBOUNDS || err == UW_EMAGIC || err == UW_EVERSION ||
	       err == UW_EHEADER || err == UW_EUNSORTED || err == UW_EBADDATA;
}

#endif /* UWIND_SELFTESTS_CHECK_H */
