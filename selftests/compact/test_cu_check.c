// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uw_cu_check(), the whole-table check of Apple compact unwind: a valid
 * hand-built table (regular and compressed pages, both palettes, LSDA
 * and personality arrays) passes, whole and one unit per call; every
 * error the check names is produced by one broken table each, at the
 * index entry it names, and where a lookup reads the broken part, a
 * lookup fails there too (the check is not weaker than the lookup);
 * then the property the check promises, on mutated tables: whenever the
 * check accepts one, uw_cu_find() at every address gives 0 or
 * UW_ENOENT, uw_cu_next() never fails and every encoding found decodes.
 * Prints TAP.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "../common/tap.h"
#include "../common/check.h"
#include "cu_build.h"

#define B	0x100000000ull	/* the image base of the tables here */
#define BAD	1000		/* check(): whole and stepwise differ */

/*
 * The check whole and one unit per call: both must reach the same
 * result at the same index entry, else BAD.  *calls: the stepwise calls.
 */
static int check(const struct uw_cu *cu, uint32_t *item, unsigned int *calls)
{
	unsigned int n;
	bool same;
	int ret = uwt_check_twice(uwt_cu_check, cu, 1, item, &same, &n);

	if (calls)
		*calls = n;
	return same ? ret : BAD;
}

/* xorshift32: the mutations below are the same every run. */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * A format error (or an entry that does not cover its address) from any
 * lookup the table serves: every entry iterated and decoded, every
 * address around the tables' range and, with a generator, 32 random
 * ones.
 */
static bool lookups_fail_at(const struct uw_cu *cu, uint32_t *rng)
{
	struct uw_cu_entry e;
	struct uw_cu_rule r;
	uint32_t page = 0, index = 0, n = 0, i;
	uint64_t pc;
	int err;

	while (n++ < 100000 && !(err = uw_cu_next(cu, &page, &index, &e)))
		if (uw_cu_decode(cu, e.encoding, &r))
			return true;
	if (err < 0)
		return true;
	for (i = 0; i < 0x400 + (rng ? 32 : 0); i++) {
		pc = i < 0x400 ? B + 0xf00 + i : B + rnd(rng);
		err = uw_cu_find(cu, pc, &e);
		if (err && err != UW_ENOENT)
			return true;
		if (!err && (uw_cu_decode(cu, e.encoding, &r) ||
			     e.fn_start > pc || pc >= e.fn_end))
			return true;
	}
	return false;
}

static bool lookups_fail(const struct uw_cu *cu)
{
	return lookups_fail_at(cu, NULL);
}

/*
 * test_compact.c's two pages: a regular one at p (an encoding-0 entry
 * sharing an address), a compressed one at q picking common encodings
 * 0-1 and its own 2-3; then a 2-entry LSDA array at lsda and one
 * personality.  Index entries at 36: fo 0x1000, 0x1100, sentinel 0x1180.
 */
struct two {
	struct tb t;
	size_t p, q, lsda;
};

static void two_pages(struct two *w)
{
	static const uint32_t common[2] = { 0x01000000, 0x02020000 };
	static const uint32_t local[2] = { 0x02040000, 0x53012000 };
	static const uint32_t reg[3][2] = {
		{ 0x1000, 0x02010000 }, { 0x1040, 0 }, { 0x1040, 0x01010001 },
	};
	static const uint32_t cmp[5][2] = {
		{ 0x0, 0 }, { 0x10, 1 }, { 0x20, 2 }, { 0x30, 3 }, { 0x40, 1 },
	};
	struct tb *t = &w->t;

	w->p = header(t, common, 2, 3);
	w->q = regular(t, w->p, reg, 3);
	index_entry(t, 0, 0x1000, (uint32_t)w->p);
	index_entry(t, 1, 0x1100, (uint32_t)w->q);
	index_entry(t, 2, 0x1180, 0);
	w->lsda = compressed(t, w->q, cmp, 5, local, 2);
	/* LSDA entries {function, lsda}: one for each page */
	put32(t, w->lsda, 0x1030);
	put32(t, w->lsda + 4, 0x8000);
	put32(t, w->lsda + 8, 0x1130);
	put32(t, w->lsda + 12, 0x8100);
	put32(t, 36 + 8, (uint32_t)w->lsda);
	put32(t, 36 + 12 + 8, (uint32_t)w->lsda + 8);
	put32(t, 36 + 24 + 8, (uint32_t)w->lsda + 16);
	/* one personality (a GOT offset), after the LSDAs */
	put32(t, 12, (uint32_t)w->lsda + 16);
	put32(t, 16, 1);
	put32(t, w->lsda + 16, 0x9000);
}

static void test_valid(void)
{
	struct uw_cu_entry e;
	struct two w;
	struct uw_cu cu;
	uint32_t item;
	unsigned int calls;

	two_pages(&w);
	ok(init(&cu, &w.t, B, UW_ARCH_X86_64) == 0 &&
	   check(&cu, &item, &calls) == UW_CHECK_DONE,
	   "two pages, both palettes, an LSDA array and a personality"
	   " (local encoding 3 names it, with an LSDA): passes");
	/* 2 pages + 8 entries + 2 common encodings, one unit a call */
	ok(calls == 12, "one unit a call: UW_CHECK_MORE 11 times, then done"
	   " (%u calls)", calls);
	ok(uw_cu_find(&cu, B + 0x1130, &e) == 0 && e.encoding == 0x53012000,
	   "the checked table serves lookups");
	ok(uw_cu_check(NULL, NULL) == UW_EINVAL, "no table: UW_EINVAL");
}

/* One broken table: the check's error and index entry, and the lookups. */
static void expect(const struct tb *t, int err, uint32_t at, bool lookup,
		   const char *what)
{
	struct uw_cu cu;
	uint32_t item = 0;
	int got = -100;

	if (init(&cu, t, B, UW_ARCH_X86_64) == 0)
		got = check(&cu, &item, NULL);
	ok(got == err && item == at && lookups_fail(&cu) == lookup,
	   "%s: %s at index entry %u (got %s at %u); lookups %s", what,
	   uw_strerror(err), at, uw_strerror(got), item,
	   lookup ? "fail there too" : "never read it");
}

/* Where a poke lands, and what its value counts from. */
enum { AT_P, AT_Q, AT_IDX };		/* regular page, compressed, index */
enum { V_ABS, V_LSDA, V_END };		/* 0, the LSDA array, the table's end */

/* One broken table: two_pages() with one field changed. */
static const struct poke {
	const char *what;
	uint8_t at, size, rel;
	uint16_t off;
	int32_t v;
	int err;
	uint32_t item;
	bool lookup;	/* a lookup fails on it too */
} pokes[] = {
	{ "page kind 7", AT_Q, 4, V_ABS, 0, 7, UW_EBADDATA, 1, true },
	{ "a page header past the section", AT_IDX, 4, V_END, 4, -6,
	  UW_EBOUNDS, 0, true },
	{ "page entries past the section", AT_Q, 2, V_ABS, 6, 0x4000,
	  UW_EBOUNDS, 1, true },
	{ "a page palette past the section", AT_Q, 2, V_ABS, 10, 0x4000,
	  UW_EBOUNDS, 1, true },
	{ "a regular page's entries 0xfff0 past its header", AT_P, 2, V_ABS,
	  4, 0xfff0, UW_EBOUNDS, 0, true },
	{ "compressed entry 2 at 0x1105, below entry 1 at 0x1110", AT_Q, 4,
	  V_ABS, 12 + 4 * 2, 2 << 24 | 0x05, UW_EUNSORTED, 1, true },
	{ "a regular entry before its index entry's function offset", AT_P,
	  4, V_ABS, 8, 0xff0, UW_EUNSORTED, 0, true },
	{ "entry 4 at 0x1190, past the next index entry's 0x1180", AT_Q, 4,
	  V_ABS, 12 + 4 * 4, 1 << 24 | 0x90, UW_EUNSORTED, 1, true },
	{ "encoding index 4: past 2 common + 2 local", AT_Q, 4, V_ABS,
	  12 + 4 * 4, 4 << 24 | 0x40, UW_EBADDATA, 1, true },
	{ "an entry's encoding with the reserved x86 mode 5", AT_P, 4, V_ABS,
	  12, 0x05000000, UW_EBADDATA, 0, true },
	{ "a local encoding saving register code 7", AT_Q, 4, V_ABS,
	  12 + 4 * 5, 0x01050038, UW_EBADDATA, 1, true },
	{ "an encoding naming personality 2 of 1", AT_P, 4, V_ABS, 12,
	  0x22010000, UW_EBADDATA, 0, false },
	/* index entry i's LSDA offset is at 12 i + 8 */
	{ "the LSDA array ending before it starts", AT_IDX, 4, V_LSDA,
	  24 + 8, -8, UW_EHEADER, 0, false },
	{ "the LSDA array past the section", AT_IDX, 4, V_LSDA, 24 + 8,
	  0x800, UW_EHEADER, 0, false },
	{ "the LSDA array ending in the middle of an entry", AT_IDX, 4,
	  V_LSDA, 24 + 8, 12, UW_EHEADER, 0, false },
	{ "page 1's LSDA offset in the middle of an entry", AT_IDX, 4,
	  V_LSDA, 12 + 8, 4, UW_EBOUNDS, 1, false },
	{ "page 1's LSDA offset past the array", AT_IDX, 4, V_LSDA, 12 + 8,
	  24, UW_EBOUNDS, 1, false },
	/* lld's DenseMap default: a later page back at the array's start */
	{ "page 1's LSDA offset back at the array's start, as lld writes it:"
	  " passes", AT_IDX, 4, V_LSDA, 12 + 8, 0, UW_CHECK_DONE, 2, false },
};

static void test_pokes(void)
{
	const struct poke *k;
	struct two w;
	size_t i, at;
	uint32_t v;

	for (i = 0; i < sizeof(pokes) / sizeof(pokes[0]); i++) {
		k = &pokes[i];
		two_pages(&w);
		at = k->off + (k->at == AT_P ? w.p : k->at == AT_Q ? w.q : 36);
		v = (uint32_t)k->v + (k->rel == V_LSDA ? (uint32_t)w.lsda :
				      k->rel == V_END ? (uint32_t)w.t.n : 0);
		if (k->size == 2)
			put16(&w.t, at, (uint16_t)v);
		else
			put32(&w.t, at, v);
		expect(&w.t, k->err, k->item, k->lookup, k->what);
	}
}

/* A common encoding no entry uses (regular pages use none). */
static void test_common(void)
{
	static const uint32_t bad_common[2] = { 0x0f000000, 0x01000000 };
	static const uint32_t one[1][2] = { { 0x1000, 0x02010000 } };
	struct tb t;
	size_t p;

	p = header(&t, bad_common, 2, 2);
	index_entry(&t, 0, 0x1000, (uint32_t)p);
	index_entry(&t, 1, 0x1010, 0);
	regular(&t, p, one, 1);
	expect(&t, UW_EBADDATA, 1, false, "common encoding 0 of mode 15");
}

/*
 * Index entries sharing one page: each lookup reads one page, but the
 * check would read it once per entry; the section's size bounds that.
 */
static void test_shared(void)
{
	static uint32_t ents[64][2];
	struct uw_cu_entry e;
	struct uw_cu cu;
	struct tb t;
	uint32_t i, item = 0;
	size_t p;
	int err;

	for (i = 0; i < 64; i++) {
		ents[i][0] = 0x1000;
		ents[i][1] = 0x02010000;
	}
	p = header(&t, NULL, 0, 41);
	for (i = 0; i < 40; i++)
		index_entry(&t, i, 0x1000, (uint32_t)p);
	index_entry(&t, 40, 0x1000, 0);
	regular(&t, p, ents, 64);
	err = init(&cu, &t, B, UW_ARCH_X86_64) ? -100 :
	      check(&cu, &item, NULL);
	/* (item + 1) pages of 64 entries of 4 bytes > the section */
	ok(err == UW_EBADDATA && 256 * (item + 1) > t.n && 256 * item <= t.n,
	   "40 index entries sharing a page of 64 entries: UW_EBADDATA at"
	   " the first past the section's %zu bytes (entry %u)", t.n, item);
	ok(uw_cu_find(&cu, B + 0x1000, &e) == UW_ENOENT,
	   "(a lookup reads no page there: UW_ENOENT)");
}

/* 1 to 4 random changes: bytes, bits, small 32-bit values, a cut. */
static void mutate(struct tb *t, uint32_t *s)
{
	uint32_t n = 1 + rnd(s) % 4, i, at;

	for (i = 0; i < n; i++) {
		at = rnd(s) % (uint32_t)t->n;
		switch (rnd(s) % 5) {
		case 0:
			t->b[at] = (uint8_t)rnd(s);
			break;
		case 1:
			t->b[at] ^= (uint8_t)(1u << rnd(s) % 8);
			break;
		case 2:
			if (at + 4 <= t->n)
				put32(t, at & ~3u, rnd(s) % 0x1200);
			break;
		case 3:
			t->b[at] += (uint8_t)(rnd(s) % 3) - 1;
			break;
		default:
			if (rnd(s) % 8 == 0)
				t->n -= rnd(s) % 16 % t->n;
			break;
		}
	}
}

static void test_property(void)
{
	unsigned int tries = 20000, passed = 0, broken = 0, caught = 0, i;
	uint32_t s = 0x2545f491, item;
	struct two w;
	struct uw_cu cu;
	int err;

	for (i = 0; i < tries; i++) {
		two_pages(&w);
		mutate(&w.t, &s);
		if (init(&cu, &w.t, B, i % 3 ? UW_ARCH_X86_64 : UW_ARCH_X86))
			continue;
		err = check(&cu, &item, NULL);
		if (err == UW_CHECK_DONE) {
			passed++;
			if (lookups_fail_at(&cu, &s) && broken++ < 3)
				diag("mutation %u: checked, yet a lookup fails",
				     i);
		} else if (err == BAD) {
			broken++;
		} else if (lookups_fail(&cu)) {
			caught++;
		}
	}
	ok(broken == 0 && passed > tries / 20 && caught > tries / 20,
	   "%u mutated tables: %u pass the check, and none of them fails a"
	   " lookup, an iteration or a decode (%u do); %u refused ones would"
	   " have failed a lookup", tries, passed, broken, caught);
}

int main(void)
{
	tap_begin(-1);
	test_valid();
	test_pokes();
	test_common();
	test_shared();
	test_property();
	return tap_done();
}
