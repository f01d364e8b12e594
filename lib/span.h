/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Bounds-checked, unaligned-safe, endian-aware reads from a table span.
 *
 * Every table byte the core looks at goes through these.  A read that
 * would leave the span returns UW_EBOUNDS and leaves *v untouched; bytes
 * are assembled one by one, so alignment and host byte order never matter.
 */
#ifndef UWIND_LIB_SPAN_H
#define UWIND_LIB_SPAN_H

#include <uwind/types.h>
#include "compiler.h"

/* off + len <= size, without overflow. */
static inline bool uwi_span_has(const struct uw_span *s, uint64_t off,
			       uint64_t len)
{
	return off <= s->size && len <= s->size - off;
}

/* An 8-byte word, always inline (the walker's fast loop: one load). */
static uwi_always_inline uint64_t uwi_load64(const uint8_t *p, bool be)
{
	if (be)
		return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 |
		       (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
		       (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
		       (uint64_t)p[6] << 8 | p[7];
	return (uint64_t)p[7] << 56 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[1] << 8 | p[0];
}

/* A 4-byte word, always inline (a search's probes). */
static uwi_always_inline uint32_t uwi_load32(const uint8_t *p, bool be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t uwi_load(const uint8_t *p, unsigned int n, bool be)
{
	uint64_t v = 0;
	unsigned int i;

	/* The common sizes spelt out: compilers merge them into one load. */
	switch (n) {
	case 1:
		return p[0];
	case 2:
		return be ? (uint64_t)p[0] << 8 | p[1] :
			    (uint64_t)p[1] << 8 | p[0];
	case 4:
		return be ? (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 |
			    (uint64_t)p[2] << 8 | p[3] :
			    (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16 |
			    (uint64_t)p[1] << 8 | p[0];
	case 8:
		return uwi_load64(p, be);
	}
	if (be) {
		for (i = 0; i < n; i++)
			v = (v << 8) | p[i];
	} else {
		for (i = n; i > 0; i--)
			v = (v << 8) | p[i - 1];
	}
	return v;
}

/* Unsigned n-byte (1..8) read at off. */
static inline uwi_must_check int uwi_rd(const struct uw_span *s, uint64_t off,
				       unsigned int n, bool be, uint64_t *v)
{
	if (uwi_unlikely(!uwi_span_has(s, off, n)))
		return UW_EBOUNDS;
	*v = uwi_load(s->data + off, n, be);
	return 0;
}

static inline uwi_must_check int uwi_rd8(const struct uw_span *s,
					uint64_t off, uint8_t *v)
{
	if (uwi_unlikely(off >= s->size))
		return UW_EBOUNDS;
	*v = s->data[off];
	return 0;
}

static inline uwi_must_check int uwi_rd16(const struct uw_span *s,
					 uint64_t off, bool be, uint16_t *v)
{
	uint64_t t;
	int err = uwi_rd(s, off, 2, be, &t);

	if (!err)
		*v = (uint16_t)t;
	return err;
}

static inline uwi_must_check int uwi_rd32(const struct uw_span *s,
					 uint64_t off, bool be, uint32_t *v)
{
	uint64_t t;
	int err = uwi_rd(s, off, 4, be, &t);

	if (!err)
		*v = (uint32_t)t;
	return err;
}

static inline uwi_must_check int uwi_rd64(const struct uw_span *s,
					 uint64_t off, bool be, uint64_t *v)
{
	return uwi_rd(s, off, 8, be, v);
}

/* Sign-extend the low n bytes (1..8) of v, no implementation-defined shift. */
static inline int64_t uwi_sext(uint64_t v, unsigned int n)
{
	uint64_t m;

	if (n >= 8)
		return (int64_t)v;
	m = (uint64_t)1 << (8 * n - 1);
	v &= (m << 1) - 1;
	return (int64_t)(v ^ m) - (int64_t)m;
}

/* a + b for an address and a signed offset, failing on wrap-around. */
static inline uwi_must_check int uwi_add_off(uint64_t a, int64_t b,
					    uint64_t *out)
{
	uint64_t r = a + (uint64_t)b;

	if (b >= 0 ? r < a : r > a)
		return UW_EOVERFLOW;
	*out = r;
	return 0;
}

#endif /* UWIND_LIB_SPAN_H */
