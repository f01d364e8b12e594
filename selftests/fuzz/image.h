/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * For the fuzz targets of the compact unwind and Breakpad formats: the
 * property check, their whole-table check run both ways, and program
 * memory as one fuzzed image seen at up to two addresses (the stack,
 * and the image base where code is read).
 */
#ifndef UWIND_FUZZ_IMAGE_H
#define UWIND_FUZZ_IMAGE_H

#include <stdint.h>
#include <string.h>
#include "../common/check.h"

#define CHECK(c) do { if (!(c)) { __builtin_trap(); } } while (0)

/*
 * A whole-table check in one call and in chunks of limit units: the
 * same verdict at the same entry, a valid code.  1 if the table passed.
 */
static int fuzz_checked(uwt_check_fn fn, const void *t, uint32_t limit)
{
	unsigned int calls;
	uint32_t item;
	bool same;
	int ret = uwt_check_twice(fn, t, limit, &item, &same, &calls);

	CHECK(same && ret <= 0 && ret >= UW_ERR_MIN);
	return ret == UW_CHECK_DONE;
}

struct image {
	const uint8_t *bytes;
	size_t size;
	uint64_t base[2];	/* where the image is seen; 0: unused */
};

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct image *im = ctx;
	unsigned int i;
	uint64_t at;

	for (i = 0; i < 2; i++) {
		if (!im->base[i] || addr < im->base[i])
			continue;
		at = addr - im->base[i];
		if (at > im->size || len > im->size - at)
			continue;
		memcpy(dst, im->bytes + at, len);
		return 0;
	}
	return -1;
}

#endif
