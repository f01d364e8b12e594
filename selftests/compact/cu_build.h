/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Hand-built __unwind_info tables for the compact unwind tests
 * (test_compact.c, test_cu_check.c): a header, first-level index
 * entries, regular and compressed pages, little-endian as the format is.
 */
#ifndef UWIND_SELFTESTS_CU_BUILD_H
#define UWIND_SELFTESTS_CU_BUILD_H

#include <string.h>
#include <uwind/uwind.h>

struct tb {
	uint8_t b[4096];
	size_t n;
};

static inline void put32(struct tb *t, size_t off, uint32_t v)
{
	t->b[off] = (uint8_t)v;
	t->b[off + 1] = (uint8_t)(v >> 8);
	t->b[off + 2] = (uint8_t)(v >> 16);
	t->b[off + 3] = (uint8_t)(v >> 24);
	if (off + 4 > t->n)
		t->n = off + 4;
}

static inline void put16(struct tb *t, size_t off, uint16_t v)
{
	t->b[off] = (uint8_t)v;
	t->b[off + 1] = (uint8_t)(v >> 8);
	if (off + 2 > t->n)
		t->n = off + 2;
}

/*
 * Header with ncommon common encodings at 28, no personalities, nidx
 * index entries after them; returns the offset where pages may start.
 */
static inline size_t header(struct tb *t, const uint32_t *common,
			    uint32_t ncommon, uint32_t nidx)
{
	uint32_t i, idx = 28 + 4 * ncommon;

	memset(t, 0, sizeof(*t));
	put32(t, 0, 1);
	put32(t, 4, 28);
	put32(t, 8, ncommon);
	put32(t, 12, idx);
	put32(t, 16, 0);
	put32(t, 20, idx);
	put32(t, 24, nidx);
	for (i = 0; i < ncommon; i++)
		put32(t, 28 + 4 * i, common[i]);
	for (i = 0; i < nidx; i++)
		put32(t, idx + 12 * i + 8, 0);
	return idx + 12 * nidx;
}

static inline void index_entry(struct tb *t, uint32_t i, uint32_t fo,
			       uint32_t page)
{
	uint32_t idx = t->b[20] | t->b[21] << 8 | t->b[22] << 16 |
		       (uint32_t)t->b[23] << 24;

	put32(t, idx + 12 * i, fo);
	put32(t, idx + 12 * i + 4, page);
}

/* A regular page at off: n {fo, encoding} pairs; returns its end. */
static inline size_t regular(struct tb *t, size_t off,
			     const uint32_t (*e)[2], uint16_t n)
{
	uint16_t i;

	put32(t, off, 2);
	put16(t, off + 4, 8);
	put16(t, off + 6, n);
	for (i = 0; i < n; i++) {
		put32(t, off + 8 + 8 * i, e[i][0]);
		put32(t, off + 12 + 8 * i, e[i][1]);
	}
	return off + 8 + 8 * n;
}

/* A compressed page: n entries (24-bit offset, index), then the palette. */
static inline size_t compressed(struct tb *t, size_t off,
				const uint32_t (*e)[2], uint16_t n,
				const uint32_t *local, uint16_t nlocal)
{
	uint16_t i;

	put32(t, off, 3);
	put16(t, off + 4, 12);
	put16(t, off + 6, n);
	put16(t, off + 8, (uint16_t)(12 + 4 * n));
	put16(t, off + 10, nlocal);
	for (i = 0; i < n; i++)
		put32(t, off + 12 + 4 * i,
		      e[i][1] << 24 | (e[i][0] & 0xffffff));
	for (i = 0; i < nlocal; i++)
		put32(t, off + 12 + 4 * n + 4 * i, local[i]);
	return off + 12 + 4 * n + 4 * nlocal;
}

static inline int init(struct uw_cu *cu, const struct tb *t, uint64_t base,
		       enum uw_arch arch)
{
	struct uw_span s = { t->b, t->n, 0 };

	return uw_cu_init(cu, &s, base, arch);
}

#endif
