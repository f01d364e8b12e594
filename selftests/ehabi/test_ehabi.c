// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM EHABI unit tests (TAP): the .ARM.exidx/.ARM.extab decoder, the
 * lookup and the unwind opcode interpreter.
 *
 * Tables are built here in memory, word by word, in both byte orders.
 * The expected results come from the EHABI specification (ehabi32,
 * section 10.3 "Frame unwinding instructions") and from Android
 * libunwindstack's ArmExidx decode vectors (listed in REFERENCES.md),
 * worked out by hand: none is taken from uwind's own output.
 *
 * The synthetic stack: every word at address a holds MEMV(a), unless a
 * test overrides it, so a popped register shows where it was read from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/uwind.h>
#include <uwind/ehabi.h>
#include "../common/tap.h"
#include "../common/cachewalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define SP0		0x10000u	/* vsp at the start (Android's CFA) */
#define MEM_LO		0xe000u		/* readable stack [MEM_LO, MEM_HI) */
#define MEM_HI		0x12000u
#define MEMV(a)		(0x5a000000u + (uint32_t)(a))
#define REGV(n)		(0xc0de0000u + (uint32_t)(n))	/* initial rn */
#define FN		0x8000u		/* function the test entries cover */
#define PC		0x8010u
#define PERS		0x9001u		/* generic model personality (Thumb) */
#define LR		14

static void put32(uint8_t *p, uint32_t v, bool be)
{
	int i;

	for (i = 0; i < 4; i++)
		p[be ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
}

/* ---- The synthetic stack ---- */

struct mem {
	bool be;
	uint32_t lo, hi;
	unsigned int nover;
	struct { uint32_t addr, val; } over[4];
	unsigned int nreads;
	bool any_len;		/* reads of any length (else words only) */
};

static uint32_t mem_value(const struct mem *m, uint32_t a)
{
	unsigned int i;

	for (i = 0; i < m->nover; i++)
		if (m->over[i].addr == a)
			return m->over[i].val;
	return MEMV(a);
}

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct mem *m = ctx;

	size_t i;

	m->nreads++;
	if ((len != 4 && !(m->any_len && len && !(len & 3))) || (addr & 3) ||
	    addr < m->lo || addr > m->hi - len)
		return -1;
	for (i = 0; i < len; i += 4)
		put32((uint8_t *)dst + i, mem_value(m, (uint32_t)(addr + i)),
		      m->be);
	return 0;
}

static void mem_setup(struct mem *m, bool be)
{
	memset(m, 0, sizeof(*m));
	m->be = be;
	m->lo = MEM_LO;
	m->hi = MEM_HI;
}

static void cfg_setup(struct uw_walk_cfg *cfg, struct mem *m)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = UW_ARCH_ARM;
	cfg->big_endian = m->be;
	cfg->mem.read = mem_read;
	cfg->mem.ctx = m;
}

static void regs_setup(struct uw_regs *r)
{
	unsigned int n;

	memset(r, 0, sizeof(*r));
	for (n = 0; n <= 14; n++)
		uw_reg_set(r, n, REGV(n));
	uw_reg_set(r, 13, SP0);
	uw_reg_set(r, 15, PC);
}

/* ---- Table images ---- */

struct img {
	uint32_t x[512];	/* .ARM.exidx words */
	unsigned int nx;
	uint32_t t[512];	/* .ARM.extab words */
	unsigned int nt;
	uint64_t xaddr, taddr;
	bool be;
	/* Serialised, in exact-size heap buffers (ASan sees overreads). */
	uint8_t *xb, *tb;
	size_t xlen, tlen;	/* bytes given to uw_ehabi_init */
	struct uw_ehabi eh;
};

static uint32_t p31(uint64_t at, uint64_t to)
{
	return (uint32_t)(to - at) & 0x7fffffffu;
}

static void img_free(struct img *m);

/* m: zeroed or used before (its buffers are freed). */
static void img_start(struct img *m, uint64_t xaddr, uint64_t taddr, bool be)
{
	img_free(m);
	memset(m, 0, sizeof(*m));
	m->xaddr = xaddr;
	m->taddr = taddr;
	m->be = be;
}

/* An index entry whose second word is w as given. */
static void idx_raw(struct img *m, uint64_t fn, uint32_t w)
{
	m->x[m->nx] = p31(m->xaddr + 4 * m->nx, fn);
	m->x[m->nx + 1] = w;
	m->nx += 2;
}

/* An index entry pointing at extab word tw. */
static void idx_tab(struct img *m, uint64_t fn, unsigned int tw)
{
	idx_raw(m, fn, 0);
	m->x[m->nx - 1] = p31(m->xaddr + 4 * (m->nx - 1), m->taddr + 4 * tw);
}

static unsigned int tab(struct img *m, const uint32_t *w, unsigned int n)
{
	unsigned int first = m->nt, i;

	for (i = 0; i < n; i++)
		m->t[m->nt++] = w[i];
	return first;
}

static void img_free(struct img *m)
{
	free(m->xb);
	free(m->tb);
	m->xb = m->tb = NULL;
}

/* Serialise; xlen/tlen (if not 0) cut or keep the section sizes. */
static int img_init_sz(struct img *m, size_t xlen, size_t tlen)
{
	struct uw_span xs, ts;
	unsigned int i;

	img_free(m);
	m->xlen = xlen ? xlen : 4 * (size_t)m->nx;
	m->tlen = tlen ? tlen : 4 * (size_t)m->nt;
	m->xb = calloc(1, 4 * (size_t)m->nx + 4);
	m->tb = calloc(1, 4 * (size_t)m->nt + 4);
	for (i = 0; i < m->nx; i++)
		put32(m->xb + 4 * i, m->x[i], m->be);
	for (i = 0; i < m->nt; i++)
		put32(m->tb + 4 * i, m->t[i], m->be);
	/* Exact-size copies. */
	xs.data = memcpy(malloc(m->xlen + 1), m->xb, m->xlen);
	free(m->xb);
	m->xb = (uint8_t *)xs.data;
	xs.size = m->xlen;
	xs.addr = m->xaddr;
	ts.data = memcpy(malloc(m->tlen + 1), m->tb, m->tlen);
	free(m->tb);
	m->tb = (uint8_t *)ts.data;
	ts.size = m->tlen;
	ts.addr = m->taddr;
	return uw_ehabi_init(&m->eh, &xs, m->nt ? &ts : NULL, m->be);
}

static int img_init(struct img *m)
{
	return img_init_sz(m, 0, 0);
}

/* ---- Opcode sequences in every container ---- */

enum form { F_INLINE, F_PR1, F_PR2, F_GENERIC, F_COUNT };

static const char *const form_name[] = { "inline", "PR1", "PR2", "generic" };

/*
 * Put ops[0..n) in one entry covering FN, in form f, padded with b0
 * (finish).  exact: only when no padding is needed.  0 = built.
 */
static int build_ops(struct img *m, enum form f, bool be, const uint8_t *ops,
		     unsigned int n, bool exact)
{
	unsigned int hdr = f == F_GENERIC ? 3 : 2, words, i, k, p;
	uint8_t b[1100];
	uint32_t w[300];

	img_start(m, 0x20000, 0x30000, be);
	memset(b, 0xb0, sizeof(b));
	memcpy(b, ops, n);
	if (f == F_INLINE) {
		if (n > 3 || (exact && n != 3))
			return -1;
		idx_raw(m, FN, 0x80000000u | b[0] << 16 | b[1] << 8 | b[2]);
		return img_init(m);
	}
	words = n <= hdr ? 0 : (n - hdr + 3) / 4;
	if ((exact && hdr + 4 * words != n) || words > 255)
		return -1;
	i = 0;
	if (f == F_GENERIC) {
		w[i++] = p31(m->taddr, PERS);
		w[i++] = words << 24 | b[0] << 16 | b[1] << 8 | b[2];
	} else {
		w[i++] = 0x80000000u | (f == F_PR1 ? 1u : 2u) << 24 |
			 words << 16 | b[0] << 8 | b[1];
	}
	for (k = 0; k < words; k++) {
		p = hdr + 4 * k;
		w[i++] = (uint32_t)b[p] << 24 | b[p + 1] << 16 |
			 b[p + 2] << 8 | b[p + 3];
	}
	tab(m, w, i);
	idx_tab(m, FN, 0);
	return img_init(m);
}

/* The opcode bytes of the entry covering PC, as uw_ehabi_next_op gives them. */
static int entry_bytes(const struct img *m, uint8_t *out, unsigned int max,
		       unsigned int *n)
{
	struct uw_ehabi_entry e;
	int err = uw_ehabi_find(&m->eh, PC, &e);

	*n = 0;
	while (!err) {
		uint8_t b;

		err = uw_ehabi_next_op(&m->eh, &e.ops, &b);
		if (err)
			break;
		if (*n >= max)
			return -100;
		out[(*n)++] = b;
	}
	return err == 1 ? 0 : err;
}

struct reg_want {
	unsigned int reg;
	uint32_t val;
};

struct vec {
	const char *name;
	uint8_t ops[16];
	unsigned int n;
	bool exact;		/* only containers that need no padding */
	int err;		/* expected error, 0: success */
	uint32_t sp;		/* caller's sp (r13) on success */
	struct reg_want regs[16];	/* expected changes (r15: default lr) */
	unsigned int nregs;
	struct { uint32_t addr, val; } over[2];	/* stack words to override */
	unsigned int nover;
	uint32_t sp_in;		/* 0: SP0 */
};

#define OPS(...)	.ops = { __VA_ARGS__ }, \
			.n = sizeof((uint8_t[]){ __VA_ARGS__ })
#define RW(...)		.regs = { __VA_ARGS__ }, \
			.nregs = sizeof((struct reg_want[]){ __VA_ARGS__ }) / \
				 sizeof(struct reg_want)
/* rn popped from address a. */
#define P(n, a)		{ (n), MEMV(a) }

/* Run v in one container and byte order: true if all matches. */
static bool run_one(const struct vec *v, enum form f, bool be, bool *built)
{
	struct uw_ehabi_entry e;
	struct uw_walk_cfg cfg;
	struct uw_regs r;
	struct mem m;
	struct img *im = calloc(1, sizeof(*im));
	unsigned int i, n;
	uint32_t want[16];
	bool good = true;
	int err;

	*built = false;
	if (build_ops(im, f, be, v->ops, v->n, v->exact)) {
		img_free(im);
		free(im);
		return true;
	}
	*built = true;
	mem_setup(&m, be);
	for (i = 0; i < v->nover; i++) {
		m.over[i].addr = v->over[i].addr;
		m.over[i].val = v->over[i].val;
	}
	m.nover = v->nover;
	cfg_setup(&cfg, &m);
	regs_setup(&r);
	if (v->sp_in)
		uw_reg_set(&r, 13, v->sp_in);
	err = uw_ehabi_find(&im->eh, PC, &e);
	if (err) {
		diag("%s/%s: find: %s", form_name[f], be ? "BE" : "LE",
		     uw_strerror(err));
		good = false;
		goto out;
	}
	err = uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	if (err != v->err) {
		diag("%s/%s: exec returned %d (%s), want %d", form_name[f],
		     be ? "BE" : "LE", err, uw_strerror(err), v->err);
		good = false;
		goto out;
	}
	if (err)
		goto out;
	for (n = 0; n < 16; n++)
		want[n] = n == 13 ? v->sp : n == 15 ? REGV(LR) : REGV(n);
	for (i = 0; i < v->nregs; i++) {
		want[v->regs[i].reg] = v->regs[i].val;
	}
	for (n = 0; n < 16; n++) {
		uint64_t got = 0;

		if (!uw_reg_get(&r, n, &got) || got != want[n]) {
			diag("%s/%s: r%u = 0x%llx, want 0x%x", form_name[f],
			     be ? "BE" : "LE", n, (unsigned long long)got,
			     want[n]);
			good = false;
		}
	}
out:
	img_free(im);
	free(im);
	return good;
}

static void check_vec(const struct vec *v)
{
	bool good = true, built;
	unsigned int ran = 0;
	int f, be;

	for (f = 0; f < F_COUNT; f++) {
		for (be = 0; be < 2; be++) {
			good &= run_one(v, (enum form)f, be, &built);
			ran += built;
		}
	}
	if (!ran) {
		diag("no container fits the sequence");
		good = false;
	}
	ok(good, "%s (%u containers)", v->name, ran);
}

/* ---- Android libunwindstack ArmExidx decode vectors ---- */

static void test_android(void)
{
	static const struct vec vecs[] = {
		{ "android: 88 00 pop {r15}", OPS(0x88, 0x00),
		  .sp = 0x10004, RW(P(15, 0x10000)) },
		{ "android: 8f ff pop {r4-r15}, sp = popped r13",
		  OPS(0x8f, 0xff), .sp = 0x7ff0,
		  .over = { { 0x10024, 0x7ff0 } }, .nover = 1,
		  RW(P(4, 0x10000), P(5, 0x10004), P(6, 0x10008),
		     P(7, 0x1000c), P(8, 0x10010), P(9, 0x10014),
		     P(10, 0x10018), P(11, 0x1001c), P(12, 0x10020),
		     { 13, 0x7ff0 }, P(14, 0x10028), P(15, 0x1002c)) },
		{ "android: b2 7f", OPS(0xb2, 0x7f), .sp = 0x10400 },
		{ "android: b2 ff 02", OPS(0xb2, 0xff, 0x02), .sp = 0x10800 },
		{ "android: b2 ff 82 30", OPS(0xb2, 0xff, 0x82, 0x30),
		  .sp = 0x310800 },
		{ "android: b3 00", OPS(0xb3, 0x00), .sp = 0x1000c },
		{ "android: b3 48", OPS(0xb3, 0x48), .sp = 0x1004c },
		{ "android: b8", OPS(0xb8), .sp = 0x1000c },
		{ "android: bb", OPS(0xbb), .sp = 0x10024 },
		{ "android: bf", OPS(0xbf), .sp = 0x10044 },
		{ "android: c8 14", OPS(0xc8, 0x14), .sp = 0x10028 },
		/*
		 * c8 ff names D[16+15]..D[16+30], past D31.  Android
		 * accepts it (CFA 0x10080); the spec has no such
		 * registers, and uwind refuses the range.
		 */
		{ "android: c8 ff is past D31: rejected (Android accepts)",
		  OPS(0xc8, 0xff), .err = UW_EBADDATA },
		{ "android: 9d reserved", OPS(0x9d), .err = UW_EBADDATA },
		{ "android: c7 10 spare", OPS(0xc7, 0x10),
		  .err = UW_EBADDATA },
		{ "android: c7 1f spare", OPS(0xc7, 0x1f),
		  .err = UW_EBADDATA },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vecs); i++)
		check_vec(&vecs[i]);
}

static void test_extraction(void)
{
	static const uint8_t want1[] = { 0xa8, 0xb0, 0xb0 };
	static const uint8_t want2[] = { 0xf3, 0xf4, 0x10, 0x20, 0x30, 0xb0 };
	static const uint32_t ext[] = { 0x8201f3f4, 0x102030b0 };
	struct uw_ehabi_entry e;
	struct img *m = calloc(1, sizeof(*m));
	uint8_t got[16];
	unsigned int n;
	int be, err;

	for (be = 0; be < 2; be++) {
		img_start(m, 0x20000, 0x30000, be);
		idx_raw(m, FN, 0x80a8b0b0);
		err = img_init(m);
		err = err ? err : entry_bytes(m, got, sizeof(got), &n);
		ok(!err && n == 3 && !memcmp(got, want1, 3),
		   "android: inline 0x80a8b0b0 gives a8 b0 b0 (%s)",
		   be ? "BE" : "LE");
		err = uw_ehabi_find(&m->eh, PC, &e);
		ok(!err && e.kind == UW_EHABI_KIND_INLINE && e.pr == 0 &&
		   e.fn_start == FN, "inline entry: kind, pr 0, fn_start");

		img_start(m, 0x20000, 0x30000, be);
		tab(m, ext, 2);
		idx_tab(m, FN, 0);
		err = img_init(m);
		err = err ? err : entry_bytes(m, got, sizeof(got), &n);
		ok(!err && n == 6 && !memcmp(got, want2, 6),
		   "android: extab 0x8201f3f4 0x102030b0 gives f3 f4 10 20 30 b0 (%s)",
		   be ? "BE" : "LE");
		err = uw_ehabi_find(&m->eh, PC, &e);
		ok(!err && e.kind == UW_EHABI_KIND_COMPACT && e.pr == 2,
		   "extab PR2 entry: kind compact, pr 2");
	}
	img_free(m);
	free(m);
}

/* ---- The opcode table, one form at a time ---- */

static void test_vsp_ops(void)
{
	static const struct vec vecs[] = {
		{ "00: vsp += 4", OPS(0x00), .sp = SP0 + 4 },
		{ "01: vsp += 8", OPS(0x01), .sp = SP0 + 8 },
		{ "3f: vsp += 0x100", OPS(0x3f), .sp = SP0 + 0x100 },
		{ "40: vsp -= 4", OPS(0x40), .sp = SP0 - 4 },
		{ "7f: vsp -= 0x100", OPS(0x7f), .sp = SP0 - 0x100 },
		{ "3f 3f 7f: += 0x200 -= 0x100", OPS(0x3f, 0x3f, 0x7f),
		  .sp = SP0 + 0x100 },
		{ "7f at vsp 0xfc: below 0 fails", OPS(0x7f), .sp_in = 0xfc,
		  .err = UW_EOVERFLOW },
		{ "3f at vsp 0xffffff00: past 2^32 fails", OPS(0x3f),
		  .sp_in = 0xffffff00u, .err = UW_EOVERFLOW },
		{ "3e at vsp 0xfffffe04: lands on 0xffffff00",
		  OPS(0x3e), .sp_in = 0xfffffe04u, .sp = 0xffffff00u },
		{ "97: vsp = r7", OPS(0x97), .sp = REGV(7) },
		{ "90: vsp = r0", OPS(0x90), .sp = REGV(0) },
		{ "9e: vsp = r14", OPS(0x9e), .sp = REGV(14) },
		{ "9b 41: vsp = r11 - 8", OPS(0x9b, 0x41),
		  .sp = REGV(11) - 8 },
		{ "9d reserved (vsp = r13)", OPS(0x9d), .err = UW_EBADDATA },
		{ "9f reserved (vsp = r15)", OPS(0x9f), .err = UW_EBADDATA },
		{ "b0: finish", OPS(0xb0), .sp = SP0 },
		{ "b0 00: nothing after finish runs", OPS(0xb0, 0x00),
		  .sp = SP0 },
		{ "b0 9d: a reserved code after finish is not read",
		  OPS(0xb0, 0x9d), .sp = SP0 },
		/* b2: vsp += 0x204 + (uleb128 << 2), up to 5 bytes */
		{ "b2 00: 0x204", OPS(0xb2, 0x00), .sp = SP0 + 0x204 },
		{ "b2 04: 0x214", OPS(0xb2, 0x04), .sp = SP0 + 0x214 },
		{ "b2 80 01: 0x404", OPS(0xb2, 0x80, 0x01),
		  .sp = SP0 + 0x404 },
		{ "b2 80 80 80 80 00: 5 uleb bytes, value 0",
		  OPS(0xb2, 0x80, 0x80, 0x80, 0x80, 0x00), .sp = SP0 + 0x204 },
		{ "b2 80 80 80 80 01: 5 uleb bytes, value 1 << 28",
		  OPS(0xb2, 0x80, 0x80, 0x80, 0x80, 0x01),
		  .sp = SP0 + 0x204 + 0x40000000u },
		{ "b2 ff ff ff 3f: 0x7ffffff << 2 + 0x204",
		  OPS(0xb2, 0xff, 0xff, 0xff, 0x3f),
		  .sp = SP0 + 0x204 + (0x7ffffffu << 2) },
		{ "b2 80 80 80 80 80 00: 6 uleb bytes overflow",
		  OPS(0xb2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00),
		  .err = UW_EOVERFLOW },
		{ "b2 ff ff ff ff 0f: uleb past 30 bits overflows",
		  OPS(0xb2, 0xff, 0xff, 0xff, 0xff, 0x0f),
		  .err = UW_EOVERFLOW },
		{ "b2 ff ff ff ff 03: 0x3fffffff << 2 wraps vsp",
		  OPS(0xb2, 0xff, 0xff, 0xff, 0xff, 0x03),
		  .err = UW_EOVERFLOW },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vecs); i++)
		check_vec(&vecs[i]);
}

static void test_pops(void)
{
	static const struct vec vecs[] = {
		{ "80 00: refuse to unwind", OPS(0x80, 0x00),
		  .err = UW_EREFUSE },
		{ "80 01: pop {r4}", OPS(0x80, 0x01), .sp = SP0 + 4,
		  RW(P(4, SP0)) },
		{ "84 83: pop {r4, r5, r11, r14}", OPS(0x84, 0x83),
		  .sp = SP0 + 16,
		  RW(P(4, SP0), P(5, SP0 + 4), P(11, SP0 + 8),
		     P(14, SP0 + 12), P(15, SP0 + 12)) },
		{ "89 11: pop {r4, r8, r12, r15}", OPS(0x89, 0x11),
		  .sp = SP0 + 16,
		  RW(P(4, SP0), P(8, SP0 + 4), P(12, SP0 + 8),
		     P(15, SP0 + 12)) },
		{ "88 00: pop {r15}: pc popped, lr kept", OPS(0x88, 0x00),
		  .sp = SP0 + 4, RW(P(15, SP0)) },
		{ "84 00: pop {r14}: finish copies it to pc",
		  OPS(0x84, 0x00), .sp = SP0 + 4,
		  RW(P(14, SP0), P(15, SP0)) },
		/* r13 is written after the whole pop: r14 comes from the old vsp */
		{ "86 00: pop {r13, r14}", OPS(0x86, 0x00), .sp = 0x11000,
		  .over = { { SP0, 0x11000 } }, .nover = 1,
		  RW({ 13, 0x11000 }, P(14, SP0 + 4), P(15, SP0 + 4)) },
		{ "86 00 01: pop {r13, r14}; vsp += 8 from the popped sp",
		  OPS(0x86, 0x00, 0x01), .sp = 0x11008,
		  .over = { { SP0, 0x11000 } }, .nover = 1,
		  RW({ 13, 0x11008 }, P(14, SP0 + 4), P(15, SP0 + 4)) },
		{ "82 00: pop {r13}", OPS(0x82, 0x00), .sp = 0xf000,
		  .over = { { SP0, 0xf000 } }, .nover = 1 },
		{ "a0: pop {r4}", OPS(0xa0), .sp = SP0 + 4, RW(P(4, SP0)) },
		{ "a3: pop {r4-r7}", OPS(0xa3), .sp = SP0 + 16,
		  RW(P(4, SP0), P(5, SP0 + 4), P(6, SP0 + 8),
		     P(7, SP0 + 12)) },
		{ "a7: pop {r4-r11}", OPS(0xa7), .sp = SP0 + 32,
		  RW(P(4, SP0), P(5, SP0 + 4), P(6, SP0 + 8),
		     P(7, SP0 + 12), P(8, SP0 + 16), P(9, SP0 + 20),
		     P(10, SP0 + 24), P(11, SP0 + 28)) },
		{ "a8: pop {r4, r14}", OPS(0xa8), .sp = SP0 + 8,
		  RW(P(4, SP0), P(14, SP0 + 4), P(15, SP0 + 4)) },
		{ "af: pop {r4-r11, r14}", OPS(0xaf), .sp = SP0 + 36,
		  RW(P(4, SP0), P(5, SP0 + 4), P(6, SP0 + 8),
		     P(7, SP0 + 12), P(8, SP0 + 16), P(9, SP0 + 20),
		     P(10, SP0 + 24), P(11, SP0 + 28), P(14, SP0 + 32),
		     P(15, SP0 + 32)) },
		{ "01 a8: vsp += 8; pop {r4, r14}", OPS(0x01, 0xa8),
		  .sp = SP0 + 16,
		  RW(P(4, SP0 + 8), P(14, SP0 + 12), P(15, SP0 + 12)) },
		{ "b1 01: pop {r0}", OPS(0xb1, 0x01), .sp = SP0 + 4,
		  RW(P(0, SP0)) },
		{ "b1 0a: pop {r1, r3}", OPS(0xb1, 0x0a), .sp = SP0 + 8,
		  RW(P(1, SP0), P(3, SP0 + 4)) },
		{ "b1 0f: pop {r0-r3}", OPS(0xb1, 0x0f), .sp = SP0 + 16,
		  RW(P(0, SP0), P(1, SP0 + 4), P(2, SP0 + 8),
		     P(3, SP0 + 12)) },
		{ "b1 00: spare", OPS(0xb1, 0x00), .err = UW_EBADDATA },
		{ "b1 10: spare", OPS(0xb1, 0x10), .err = UW_EBADDATA },
		{ "b1 f1: spare", OPS(0xb1, 0xf1), .err = UW_EBADDATA },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vecs); i++)
		check_vec(&vecs[i]);
}

/* 97 84 0b, spelt out: r7 points into the readable stack. */
static void test_vsp_from_reg(void)
{
	static const uint8_t ops[] = { 0x97, 0x84, 0x0b };
	struct uw_ehabi_entry e;
	struct uw_walk_cfg cfg;
	struct uw_regs r;
	struct mem m;
	struct img *im = calloc(1, sizeof(*im));
	uint64_t v[16];
	int err, n;

	build_ops(im, F_INLINE, false, ops, 3, true);
	mem_setup(&m, false);
	cfg_setup(&cfg, &m);
	regs_setup(&r);
	uw_reg_set(&r, 7, 0xe100);
	err = uw_ehabi_find(&im->eh, PC, &e);
	err = err ? err : uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	for (n = 0; n < 16; n++)
		uw_reg_get(&r, n, &v[n]);
	ok(!err && v[13] == 0xe110 && v[4] == MEMV(0xe100) &&
	   v[5] == MEMV(0xe104) && v[7] == MEMV(0xe108) &&
	   v[14] == MEMV(0xe10c) && v[15] == MEMV(0xe10c),
	   "97 84 0b: vsp = r7, then the pop reads from r7");
	img_free(im);
	free(im);
}

static void test_vfp_ops(void)
{
	static const struct vec vecs[] = {
		/* FSTMFDX: 8 bytes per register plus a pad word */
		{ "b3 00: pop {D0} FSTMFDX", OPS(0xb3, 0x00), .sp = SP0 + 12 },
		{ "b3 0f: pop {D0-D15} FSTMFDX", OPS(0xb3, 0x0f),
		  .sp = SP0 + 8 * 16 + 4 },
		{ "b3 f0: pop {D15} FSTMFDX", OPS(0xb3, 0xf0), .sp = SP0 + 12 },
		{ "b3 f1: D15-D16 past FSTMFDX's D15", OPS(0xb3, 0xf1),
		  .err = UW_EBADDATA },
		{ "b3 1f: D1-D16 past D15", OPS(0xb3, 0x1f),
		  .err = UW_EBADDATA },
		{ "b8: pop {D8} FSTMFDX", OPS(0xb8), .sp = SP0 + 12 },
		{ "b9: pop {D8-D9}", OPS(0xb9), .sp = SP0 + 20 },
		{ "bc: pop {D8-D12}", OPS(0xbc), .sp = SP0 + 44 },
		{ "bf: pop {D8-D15}", OPS(0xbf), .sp = SP0 + 68 },
		/* VPUSH: 8 bytes per register */
		{ "c8 00: pop {D16}", OPS(0xc8, 0x00), .sp = SP0 + 8 },
		{ "c8 0f: pop {D16-D31}", OPS(0xc8, 0x0f), .sp = SP0 + 128 },
		{ "c8 f0: pop {D31}", OPS(0xc8, 0xf0), .sp = SP0 + 8 },
		{ "c8 f1: D31-D32 past D31", OPS(0xc8, 0xf1),
		  .err = UW_EBADDATA },
		{ "c8 1f: D17-D32 past D31", OPS(0xc8, 0x1f),
		  .err = UW_EBADDATA },
		{ "c9 00: pop {D0}", OPS(0xc9, 0x00), .sp = SP0 + 8 },
		{ "c9 81: pop {D8-D9}", OPS(0xc9, 0x81), .sp = SP0 + 16 },
		{ "c9 0f: pop {D0-D15}", OPS(0xc9, 0x0f), .sp = SP0 + 128 },
		{ "c9 ff: pop {D15-D30}", OPS(0xc9, 0xff), .sp = SP0 + 128 },
		{ "d0: pop {D8}", OPS(0xd0), .sp = SP0 + 8 },
		{ "d3: pop {D8-D11}", OPS(0xd3), .sp = SP0 + 32 },
		{ "d7: pop {D8-D15}", OPS(0xd7), .sp = SP0 + 64 },
		/* iWMMXt */
		{ "c0: pop {wR10}", OPS(0xc0), .sp = SP0 + 8 },
		{ "c5: pop {wR10-wR15}", OPS(0xc5), .sp = SP0 + 48 },
		{ "c6 00: pop {wR0}", OPS(0xc6, 0x00), .sp = SP0 + 8 },
		{ "c6 2f: wR2-wR17 past wR15", OPS(0xc6, 0x2f),
		  .err = UW_EBADDATA },
		{ "c6 0f: pop {wR0-wR15}", OPS(0xc6, 0x0f), .sp = SP0 + 128 },
		{ "c6 a5: pop {wR10-wR15}", OPS(0xc6, 0xa5), .sp = SP0 + 48 },
		{ "c7 01: pop {wCGR0}", OPS(0xc7, 0x01), .sp = SP0 + 4 },
		{ "c7 0f: pop {wCGR0-wCGR3}", OPS(0xc7, 0x0f), .sp = SP0 + 16 },
		{ "c7 0a: pop {wCGR1, wCGR3}", OPS(0xc7, 0x0a), .sp = SP0 + 8 },
		{ "c7 00: spare", OPS(0xc7, 0x00), .err = UW_EBADDATA },
		{ "c7 f0: spare", OPS(0xc7, 0xf0), .err = UW_EBADDATA },
		/* PAC */
		{ "b4: pop the PAC pseudo-register", OPS(0xb4),
		  .sp = SP0 + 4 },
		{ "b5: vsp as PAC modifier: no change", OPS(0xb5), .sp = SP0 },
		{ "b4 a8: PAC then pop {r4, r14}", OPS(0xb4, 0xa8),
		  .sp = SP0 + 12,
		  RW(P(4, SP0 + 4), P(14, SP0 + 8), P(15, SP0 + 8)) },
	};
	static const uint8_t spare[] = {
		0xb6, 0xb7, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd8, 0xd9,
		0xdf, 0xe0, 0xe7, 0xef, 0xf0, 0xff,
	};
	struct vec sv = { .n = 1, .err = UW_EBADDATA };
	char name[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vecs); i++)
		check_vec(&vecs[i]);
	for (i = 0; i < ARRAY_SIZE(spare); i++) {
		sv.ops[0] = spare[i];
		snprintf(name, sizeof(name), "%02x: spare", spare[i]);
		sv.name = name;
		check_vec(&sv);
	}
}

static void test_truncated(void)
{
	static const struct vec vecs[] = {
		/* The sequence ends inside an instruction: exact lengths only. */
		{ "00 8f: 8x without its mask byte", OPS(0x00, 0x8f),
		  .exact = true, .err = UW_EBADDATA },
		{ "00 b1: b1 without its byte", OPS(0x00, 0xb1),
		  .exact = true, .err = UW_EBADDATA },
		{ "00 b3", OPS(0x00, 0xb3), .exact = true,
		  .err = UW_EBADDATA },
		{ "00 c6", OPS(0x00, 0xc6), .exact = true,
		  .err = UW_EBADDATA },
		{ "00 c7", OPS(0x00, 0xc7), .exact = true,
		  .err = UW_EBADDATA },
		{ "00 c8", OPS(0x00, 0xc8), .exact = true,
		  .err = UW_EBADDATA },
		{ "00 c9", OPS(0x00, 0xc9), .exact = true,
		  .err = UW_EBADDATA },
		{ "00 b2: b2 without its uleb128", OPS(0x00, 0xb2),
		  .exact = true, .err = UW_EBADDATA },
		{ "b2 ff ff: uleb128 cut short", OPS(0xb2, 0xff, 0xff),
		  .exact = true, .err = UW_EBADDATA },
		{ "00 00 00: no finish: implicit finish", OPS(0, 0, 0),
		  .exact = true, .sp = SP0 + 12 },
		{ "a8 01 01 01 01 01: implicit finish after 6 bytes",
		  OPS(0xa8, 1, 1, 1, 1, 1), .exact = true, .sp = SP0 + 48,
		  RW(P(4, SP0), P(14, SP0 + 4), P(15, SP0 + 4)) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vecs); i++)
		check_vec(&vecs[i]);
}

/* Failures of the stack accessor and unknown registers. */
static void test_exec_failures(void)
{
	static const uint8_t popr4[] = { 0xa8 }, v97[] = { 0x97 };
	struct uw_ehabi_entry e;
	struct uw_walk_cfg cfg;
	struct uw_regs r;
	struct mem m;
	struct img *im = calloc(1, sizeof(*im));
	int err;

	build_ops(im, F_INLINE, false, popr4, 1, false);
	mem_setup(&m, false);
	cfg_setup(&cfg, &m);
	regs_setup(&r);
	uw_reg_set(&r, 13, MEM_HI - 4);		/* r14 would be past the end */
	err = uw_ehabi_find(&im->eh, PC, &e);
	err = err ? err : uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	ok(err == UW_EREAD, "a8 with the second word unreadable: EREAD (%d)",
	   err);

	regs_setup(&r);
	cfg.stack_lo = SP0;
	cfg.stack_hi = SP0 + 4;
	err = uw_ehabi_find(&im->eh, PC, &e);
	err = err ? err : uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	ok(err == UW_ESTACK, "a8 reading past the stack bounds: ESTACK (%d)",
	   err);
	cfg.stack_lo = cfg.stack_hi = 0;

	regs_setup(&r);
	r.valid &= ~((uint64_t)1 << LR);
	build_ops(im, F_INLINE, false, (const uint8_t[]){ 0x00 }, 1, false);
	err = uw_ehabi_find(&im->eh, PC, &e);
	err = err ? err : uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	ok(err == UW_EREG, "finish with lr unknown: EREG (%d)", err);

	regs_setup(&r);
	r.valid &= ~((uint64_t)1 << 7);
	build_ops(im, F_INLINE, false, v97, 1, false);
	err = uw_ehabi_find(&im->eh, PC, &e);
	err = err ? err : uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	ok(err == UW_EREG, "97 with r7 unknown: EREG (%d)", err);

	regs_setup(&r);
	r.valid &= ~((uint64_t)1 << 13);
	err = uw_ehabi_find(&im->eh, PC, &e);
	err = err ? err : uw_ehabi_exec(&im->eh, &e.ops, &cfg, &r);
	ok(err == UW_EREG, "sp unknown: EREG (%d)", err);
	img_free(im);
	free(im);
}

/* ---- Entries: prel31, CANTUNWIND, PR1/PR2, the generic model ---- */

static void test_entries(void)
{
	struct uw_ehabi_entry e;
	struct img *m = calloc(1, sizeof(*m));
	uint8_t got[32];
	unsigned int n;
	int be, err;

	for (be = 0; be < 2; be++) {
		const char *bo = be ? "BE" : "LE";

		/* exidx above the code: negative prel31 offsets */
		img_start(m, 0x50000, 0x60000, be);
		idx_raw(m, 0x1000, UW_EHABI_CANTUNWIND);
		idx_raw(m, 0x2000, 0x80a8b0b0);
		err = img_init(m);
		ok(!err && m->x[0] == 0x7ffb1000u,
		   "prel31 to 0x1000 from 0x50000 is 0x7ffb1000 (%s)", bo);
		err = err ? err : uw_ehabi_entry(&m->eh, 0, &e);
		ok(!err && e.fn_start == 0x1000 &&
		   e.kind == UW_EHABI_KIND_CANTUNWIND,
		   "negative prel31: fn 0x1000, CANTUNWIND (%s)", bo);
		err = uw_ehabi_entry(&m->eh, 1, &e);
		ok(!err && e.fn_start == 0x2000 &&
		   e.kind == UW_EHABI_KIND_INLINE, "entry 1 inline at 0x2000");
		ok(uw_ehabi_entry(&m->eh, 2, &e) == UW_EINVAL,
		   "entry past the count: EINVAL");

		/* prel31 extremes: +0x3fffffff and -0x40000000 */
		img_start(m, 0x40000000, 0x60000, be);
		m->x[0] = 0x40000000;	/* -2^30 */
		m->x[1] = UW_EHABI_CANTUNWIND;
		m->x[2] = 0x3fffffff;	/* +2^30 - 1, from 0x40000008 */
		m->x[3] = UW_EHABI_CANTUNWIND;
		m->nx = 4;
		err = img_init(m);
		err = err ? err : uw_ehabi_entry(&m->eh, 0, &e);
		ok(!err && e.fn_start == 0, "prel31 0x40000000 is -2^30 (%s)",
		   bo);
		err = uw_ehabi_entry(&m->eh, 1, &e);
		ok(!err && e.fn_start == 0x80000006u,
		   "prel31 0x3fffffff is +2^30-1 (Thumb bit cleared) (%s)", bo);

		/*
		 * A prel31 leading below address 0 wraps at 32 bits, as
		 * ARM addresses do: 0x10 - 0x100 is 0xffffff10.  (It was
		 * EOVERFLOW before issue 12.)
		 */
		img_start(m, 0x10, 0x60000, be);
		m->x[0] = 0x7fffff00;
		m->x[1] = UW_EHABI_CANTUNWIND;
		m->nx = 2;
		err = img_init(m);
		err = err ? err : uw_ehabi_entry(&m->eh, 0, &e);
		ok(!err && e.fn_start == 0xffffff10u,
		   "prel31 below 0 wraps at 32 bits: 0xffffff10 (%d, %#llx)",
		   err, (unsigned long long)e.fn_start);

		/* ... and past the top of memory: 0xfffffff0 + 0x100 is 0xf0. */
		img_start(m, 0xfffffff0u, 0x60000, be);
		m->x[0] = 0x100;
		m->x[1] = UW_EHABI_CANTUNWIND;
		m->nx = 2;
		err = img_init(m);
		err = err ? err : uw_ehabi_entry(&m->eh, 0, &e);
		ok(!err && e.fn_start == 0xf0,
		   "prel31 past 4 GiB wraps at 32 bits: 0xf0 (%d, %#llx)",
		   err, (unsigned long long)e.fn_start);

		/* PR1 with 2 extra words, extab below exidx (negative) */
		img_start(m, 0x50000, 0x40000, be);
		{
			static const uint32_t w[] = {
				0x81020102, 0x03040506, 0x0708a8b0,
				0xdeadbeef,	/* not part of the entry */
			};
			static const uint8_t want[] = {
				1, 2, 3, 4, 5, 6, 7, 8, 0xa8, 0xb0,
			};

			tab(m, w, 4);
			idx_tab(m, FN, 0);
			err = img_init(m);
			err = err ? err : uw_ehabi_find(&m->eh, PC, &e);
			ok(!err && e.kind == UW_EHABI_KIND_COMPACT &&
			   e.pr == 1 && e.ops.in_extab,
			   "PR1 with 2 words: compact, pr 1 (%s)", bo);
			err = err ? err : entry_bytes(m, got, sizeof(got), &n);
			ok(!err && n == sizeof(want) &&
			   !memcmp(got, want, n),
			   "PR1 with 2 words: 10 opcode bytes (%s)", bo);
		}
		/* PR2 with no extra word */
		img_start(m, 0x50000, 0x60000, be);
		{
			static const uint32_t w[] = { 0x8200a8b0 };

			tab(m, w, 1);
			idx_tab(m, FN, 0);
			err = img_init(m);
			err = err ? err : entry_bytes(m, got, sizeof(got), &n);
			ok(!err && n == 2 && got[0] == 0xa8 && got[1] == 0xb0,
			   "PR2 with 0 words: a8 b0 (%s)", bo);
		}
		/* Generic model: personality, count + 3 ops, N words, LSDA */
		img_start(m, 0x50000, 0x60000, be);
		{
			uint32_t w[] = {
				0, 0x01a9b000, 0x02b0b0b0, 0x12345678,
			};
			static const uint8_t want[] = {
				0xa9, 0xb0, 0x00, 0x02, 0xb0, 0xb0, 0xb0,
			};

			w[0] = p31(0x60000, 0x1234);	/* negative */
			tab(m, w, 4);
			idx_tab(m, FN, 0);
			err = img_init(m);
			err = err ? err : uw_ehabi_find(&m->eh, PC, &e);
			ok(!err && e.kind == UW_EHABI_KIND_GENERIC &&
			   e.personality == 0x1234 && e.lsda == 0x6000c,
			   "generic: personality 0x1234, LSDA after 2 words (%s)",
			   bo);
			err = err ? err : entry_bytes(m, got, sizeof(got), &n);
			ok(!err && n == sizeof(want) &&
			   !memcmp(got, want, n),
			   "generic: opcodes a9 b0 00 02 b0 b0 b0 (%s)", bo);
		}
		/* Generic model with the personality after extab (positive) */
		img_start(m, 0x50000, 0x60000, be);
		{
			uint32_t w[] = { 0, 0x00a8b0b0 };

			w[0] = p31(0x60000, 0x70001);
			tab(m, w, 2);
			idx_tab(m, FN, 0);
			err = img_init(m);
			err = err ? err : uw_ehabi_find(&m->eh, PC, &e);
			ok(!err && e.kind == UW_EHABI_KIND_GENERIC &&
			   e.personality == 0x70001 && e.lsda == 0x60008,
			   "generic: Thumb personality 0x70001, no extra word (%s)",
			   bo);
		}
	}
	img_free(m);
	free(m);
}

/* ---- Lookup ---- */

static void test_lookup(void)
{
	static const uint64_t fns[] = { 0x1000, 0x1100, 0x1104, 0x2000,
					0x8000 };
	struct uw_ehabi_entry e;
	struct img *m = calloc(1, sizeof(*m));
	unsigned int i, j, bad;
	int be, err;

	for (be = 0; be < 2; be++) {
		img_start(m, 0x9000, 0xa000, be);
		for (i = 0; i < ARRAY_SIZE(fns); i++)
			idx_raw(m, fns[i], i == 3 ? UW_EHABI_CANTUNWIND :
				0x80a8b0b0);
		err = img_init(m);
		ok(!err && m->eh.count == ARRAY_SIZE(fns), "lookup table: %u entries",
		   m->eh.count);
		ok(uw_ehabi_find(&m->eh, 0xfff, &e) == UW_ENOENT,
		   "pc before the first entry: ENOENT");
		ok(uw_ehabi_find(&m->eh, 0, &e) == UW_ENOENT, "pc 0: ENOENT");
		err = uw_ehabi_find(&m->eh, 0x1000, &e);
		ok(!err && e.index == 0, "first function start: entry 0");
		err = uw_ehabi_find(&m->eh, 0x10ff, &e);
		ok(!err && e.index == 0, "last byte of fn 0: entry 0");
		err = uw_ehabi_find(&m->eh, 0x1101, &e);
		ok(!err && e.index == 1, "Thumb pc 0x1101: entry 1");
		err = uw_ehabi_find(&m->eh, 0x1105, &e);
		ok(!err && e.index == 2,
		   "Thumb pc 0x1105 (bit 0 cleared: 0x1104): entry 2");
		err = uw_ehabi_find(&m->eh, 0x1103, &e);
		ok(!err && e.index == 1, "Thumb pc 0x1103: entry 1");
		err = uw_ehabi_find(&m->eh, 0x2004, &e);
		ok(!err && e.index == 3 && e.kind == UW_EHABI_KIND_CANTUNWIND,
		   "pc in a CANTUNWIND function: kind CANTUNWIND");
		err = uw_ehabi_find(&m->eh, 0x8000, &e);
		ok(!err && e.index == 4, "last entry's start");
		err = uw_ehabi_find(&m->eh, 0xffffffff, &e);
		ok(!err && e.index == 4, "far past the last entry: last entry");
	}

	/* Many entries against a linear oracle, both byte orders. */
	for (be = 0; be < 2; be++) {
		uint64_t fn[300], pc, s = 12345;

		img_start(m, 0x40000, 0x50000, be);
		for (i = 0; i < 250; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			fn[i] = (i ? fn[i - 1] : 0x100) + 2 * (1 + (s >> 56));
			idx_raw(m, fn[i], 0x80b0b0b0);
		}
		err = img_init(m);
		bad = 0;
		for (pc = 0xf0; pc < fn[249] + 16 && !err; pc++) {
			int want = -1;

			for (j = 0; j < 250; j++)
				if (fn[j] <= (pc & ~1ull))
					want = (int)j;
			err = uw_ehabi_find(&m->eh, pc, &e);
			if (want < 0 ? err != UW_ENOENT :
			    err || e.index != (uint32_t)want ||
			    e.fn_start != fn[want]) {
				if (bad++ < 3)
					diag("pc 0x%llx: err %d index %u want %d",
					     (unsigned long long)pc, err, e.index,
					     want);
			}
			err = 0;
		}
		ok(!bad, "binary search matches a linear scan over 250 entries (%s)",
		   be ? "BE" : "LE");
	}
	img_free(m);
	free(m);
}

/* ---- Hostile tables ---- */

static void test_hostile(void)
{
	struct uw_ehabi_entry e;
	struct uw_ehabi eh;
	struct uw_span s = { (const uint8_t *)"", 0, 0 };
	struct img *m = calloc(1, sizeof(*m));
	int be, err;

	ok(uw_ehabi_init(NULL, &s, NULL, false) == UW_EINVAL,
	   "init without a decoder: EINVAL");
	ok(uw_ehabi_init(&eh, NULL, NULL, false) == UW_EINVAL,
	   "init without exidx: EINVAL");
	err = uw_ehabi_init(&eh, &s, NULL, false);
	ok(!err && eh.count == 0 &&
	   uw_ehabi_find(&eh, 0x1000, &e) == UW_ENOENT,
	   "empty exidx: no entry covers anything");

	for (be = 0; be < 2; be++) {
		const char *bo = be ? "BE" : "LE";

		img_start(m, 0x9000, 0xa000, be);
		idx_raw(m, 0x1000, 0x80a8b0b0);
		idx_raw(m, 0x2000, 0x80a8b0b0);
		ok(img_init_sz(m, 12, 0) == UW_EHEADER,
		   "exidx size 12 (not a multiple of 8): EHEADER (%s)", bo);
		ok(img_init_sz(m, 4, 0) == UW_EHEADER,
		   "exidx size 4: EHEADER (%s)", bo);

		/* bit 31 set in the function word */
		img_start(m, 0x9000, 0xa000, be);
		idx_raw(m, 0x1000, 0x80a8b0b0);
		m->x[0] |= 0x80000000u;
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBADDATA,
		   "function word with bit 31 set: EBADDATA (%s)", bo);

		/* inline entries other than personality 0 */
		img_start(m, 0x9000, 0xa000, be);
		idx_raw(m, 0x1000, 0x81a8b0b0);
		idx_raw(m, 0x2000, 0x90a8b0b0);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBADDATA,
		   "inline entry with index 1: EBADDATA (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x2000, &e) == UW_EBADDATA,
		   "inline entry with bits 30-28 set: EBADDATA (%s)", bo);

		/* extab references outside extab */
		img_start(m, 0x9000, 0xa000, be);
		tab(m, (const uint32_t[]){ 0x8100a8b0, 0x8100a8b0 }, 2);
		idx_tab(m, 0x1000, 0);
		idx_tab(m, 0x2000, 2);		/* one past the end */
		idx_raw(m, 0x3000, p31(0x9000 + 20, 0x9ffc));	/* before */
		idx_raw(m, 0x4000, p31(0x9000 + 28, 0xa002));	/* misaligned */
		idx_raw(m, 0x5000, p31(0x9000 + 36, 0x40008000));	/* far */
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == 0,
		   "extab entry inside extab: found (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x2000, &e) == UW_EBOUNDS,
		   "extab offset at the end of extab: EBOUNDS (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x3000, &e) == UW_EBOUNDS,
		   "extab offset before extab: EBOUNDS (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x4000, &e) == UW_EBOUNDS,
		   "misaligned extab offset: EBOUNDS (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x5000, &e) == UW_EBOUNDS,
		   "extab offset far past extab: EBOUNDS (%s)", bo);

		/* no extab at all */
		img_start(m, 0x9000, 0xa000, be);
		idx_raw(m, 0x1000, 0);
		m->x[1] = p31(0x9004, 0xa000);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBOUNDS,
		   "extab reference without an extab: EBOUNDS (%s)", bo);

		/* N words past the end, compact and generic */
		img_start(m, 0x9000, 0xa000, be);
		tab(m, (const uint32_t[]){ 0x8102a8b0, 0xb0b0b0b0 }, 2);
		idx_tab(m, 0x1000, 0);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBOUNDS,
		   "PR1 claiming 2 words with 1 present: EBOUNDS (%s)", bo);
		img_start(m, 0x9000, 0xa000, be);
		tab(m, (const uint32_t[]){ 0x82ffa8b0 }, 1);
		idx_tab(m, 0x1000, 0);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBOUNDS,
		   "PR2 claiming 255 words: EBOUNDS (%s)", bo);
		img_start(m, 0x9000, 0xa000, be);
		tab(m, (const uint32_t[]){ 0x00000100, 0xffa8b0b0, 0 }, 3);
		idx_tab(m, 0x1000, 0);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBOUNDS,
		   "generic claiming 255 words: EBOUNDS (%s)", bo);
		img_start(m, 0x9000, 0xa000, be);
		tab(m, (const uint32_t[]){ 0x00000100 }, 1);
		idx_tab(m, 0x1000, 0);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBOUNDS,
		   "generic without its count word: EBOUNDS (%s)", bo);

		/* reserved personality indices 3..15 */
		img_start(m, 0x9000, 0xa000, be);
		tab(m, (const uint32_t[]){ 0x8300a8b0, 0x8f00a8b0,
					   0xc100a8b0 }, 3);
		idx_tab(m, 0x1000, 0);
		idx_tab(m, 0x2000, 1);
		idx_tab(m, 0x3000, 2);
		err = img_init(m);
		ok(!err && uw_ehabi_find(&m->eh, 0x1000, &e) == UW_EBADDATA,
		   "compact personality index 3: EBADDATA (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x2000, &e) == UW_EBADDATA,
		   "compact personality index 15: EBADDATA (%s)", bo);
		ok(uw_ehabi_find(&m->eh, 0x3000, &e) == UW_EBADDATA,
		   "compact word with bits 30-28 set: EBADDATA (%s)", bo);
	}

	/* A huge uleb128 in a long PR1 entry: 200 continuation bytes. */
	{
		struct uw_walk_cfg cfg;
		struct uw_regs r;
		struct mem mm;
		uint32_t w[64];
		unsigned int i;

		img_start(m, 0x9000, 0xa000, false);
		w[0] = 0x81320000u | 0xb2 << 8 | 0xff;	/* 50 more words */
		for (i = 1; i <= 50; i++)
			w[i] = 0xffffffffu;
		tab(m, w, 51);
		idx_tab(m, FN, 0);
		err = img_init(m);
		mem_setup(&mm, false);
		cfg_setup(&cfg, &mm);
		regs_setup(&r);
		err = err ? err : uw_ehabi_find(&m->eh, PC, &e);
		err = err ? err : uw_ehabi_exec(&m->eh, &e.ops, &cfg, &r);
		ok(err == UW_EOVERFLOW,
		   "b2 with a 201-byte uleb128: EOVERFLOW (%d)", err);

		/* 255 words of vsp += 4 take 1022 rounds and end. */
		img_start(m, 0x9000, 0xa000, false);
		w[0] = 0x81ff0000u;
		tab(m, w, 1);
		for (i = 0; i < 255; i++)
			tab(m, (const uint32_t[]){ 0 }, 1);
		idx_tab(m, FN, 0);
		err = img_init(m);
		regs_setup(&r);
		err = err ? err : uw_ehabi_find(&m->eh, PC, &e);
		err = err ? err : uw_ehabi_exec(&m->eh, &e.ops, &cfg, &r);
		ok(!err && r.r[13] == SP0 + 4 * 1022,
		   "the longest sequence: 1022 x vsp += 4 (%d)", err);
	}
	img_free(m);
	free(m);
}

/* ---- The walker on an EHABI module ---- */

/*
 * f1 at 0x1000 (ARM): pop {r4, r14}; f2 at 0x2000 (Thumb): vsp += 8;
 * pop {r4, r5, r7, r14}; f3 at 0x3000: CANTUNWIND, and no frame pointer
 * fallback.  The image, stack, walk and registers for it.
 */
static int walk_setup(struct img *m, struct mem *mm, struct uw_walk_cfg *cfg,
		      struct uw_module *mod, struct uw_regs *r, int be)
{
	int err;

	img_start(m, 0x9000, 0xa000, be);
	idx_raw(m, 0x1000, 0x80a8b0b0);
	idx_raw(m, 0x2000, 0x8001840b);
	idx_raw(m, 0x3000, UW_EHABI_CANTUNWIND);
	idx_raw(m, 0x4000, UW_EHABI_CANTUNWIND);
	err = img_init(m);
	mem_setup(mm, be);
	/* f1's frame at SP0: r4, lr = 0x2011 (Thumb, in f2) */
	mm->over[0].addr = SP0 + 4;
	mm->over[0].val = 0x2011;
	/* f2's frame at SP0+8: 2 pad words, r4, r5, r7, lr = 0x3020 */
	mm->over[1].addr = SP0 + 8 + 8 + 12;
	mm->over[1].val = 0x3020;
	mm->nover = 2;
	cfg_setup(cfg, mm);
	cfg->flags = UW_WALK_NO_FP | UW_WALK_NO_SIGFRAME;
	memset(mod, 0, sizeof(*mod));
	mod->start = 0x1000;
	mod->end = 0x4000;
	mod->ehabi = &m->eh;
	cfg->mods = mod;
	cfg->nmods = 1;
	regs_setup(r);
	uw_reg_set(r, 15, 0x1008);
	return err;
}

/* The walk f1 -> f2 -> f3 of walk_setup(). */
static bool walk_good(const struct uw_frame *fr, size_t n)
{
	return n == 3 && fr[0].pc == 0x1008 && fr[0].sp == SP0 &&
	       fr[0].source == UW_SRC_EHABI && fr[1].pc == 0x2010 &&
	       (fr[1].flags & UW_FRAME_THUMB) && fr[1].sp == SP0 + 8 &&
	       fr[1].source == UW_SRC_EHABI && fr[2].pc == 0x3020 &&
	       fr[2].sp == SP0 + 32 && !(fr[2].flags & UW_FRAME_THUMB);
}

static void test_walk(void)
{
	struct img *m = calloc(1, sizeof(*m));
	struct uw_cursor *cur = calloc(1, sizeof(*cur));
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_walk_cfg cfg;
	struct uw_module mod;
	struct uw_regs r;
	struct mem mm;
	size_t n;
	int be, err;

	for (be = 0; be < 2; be++) {
		err = walk_setup(m, &mm, &cfg, &mod, &r, be);
		n = err ? 0 : uwt_walk(cur, &cfg, &r, fr, 8, &res);
		ok(walk_good(fr, n), "walk: f1 -> f2 (Thumb) -> f3 (%s)",
		   be ? "BE" : "LE");
		if (n != 3)
			diag("stop %s err %d r7 in f3 0x%llx",
			     uw_stop_name(res.stop), res.err,
			     (unsigned long long)cur->regs.r[7]);
		ok(n == 3 && cur->regs.r[7] == MEMV(SP0 + 8 + 8 + 8) &&
		   cur->regs.r[4] == MEMV(SP0 + 16),
		   "walk: callee-saved r4, r7 restored from f2's frame");
	}
	img_free(m);
	free(m);
	free(cur);
}

/*
 * The same walk with a cache: warm, each frame's opcodes are a row the
 * cache keeps, applied without them.  Shown by replacing f1's and f2's
 * opcodes in the table with "refuse" after the cold walk: the warm
 * walks (with the fast loops, where the ARM loop takes f2, and through
 * the general step alone) give the same frames, reading one block a
 * frame.  With the opcodes back and an accessor that reads words only,
 * the rows' blocks are refused, the opcodes run and the frames are the
 * same.
 */
static void test_walk_rows(void)
{
	static struct uw_cache_entry slots[64];
	struct img *m = calloc(1, sizeof(*m));
	struct uw_cursor *cur = calloc(1, sizeof(*cur));
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_walk_cfg cfg;
	struct uw_module mod;
	struct uw_cache cache;
	struct uw_regs r;
	struct mem mm;
	unsigned int warm, nofast;
	size_t n, n2, n3, n4;
	int err;

	err = walk_setup(m, &mm, &cfg, &mod, &r, 0);
	mod.cache_id = 1;
	mod.cache_gen = 1;
	uw_cache_init(&cache, slots, 64);
	cfg.cache = &cache;
	mm.any_len = true;
	n = err ? 0 : uw_walk(cur, &cfg, &r, fr, 8, &res);
	ok(walk_good(fr, n), "rows: the cold walk runs the opcodes");
	/* f1's and f2's inline opcodes: refuse, finish. */
	put32(m->xb + 4, 0x808000b0, false);
	put32(m->xb + 12, 0x808000b0, false);
	mm.nreads = 0;
	n2 = err ? 0 : uw_walk(cur, &cfg, &r, fr, 8, &res);
	warm = mm.nreads;
	ok(walk_good(fr, n2) && warm == 2,
	   "rows: warm, the opcodes not run (now refuse), a read a frame (%u)",
	   warm);
	cfg.flags |= UW_WALK_NO_FAST;
	mm.nreads = 0;
	n3 = err ? 0 : uw_walk(cur, &cfg, &r, fr, 8, &res);
	nofast = mm.nreads;
	ok(walk_good(fr, n3) && nofast == 2,
	   "rows: the same through the general step alone (%u)", nofast);
	put32(m->xb + 4, 0x80a8b0b0, false);
	put32(m->xb + 12, 0x8001840b, false);
	mm.any_len = false;
	n4 = err ? 0 : uw_walk(cur, &cfg, &r, fr, 8, &res);
	ok(walk_good(fr, n4),
	   "rows: blocks refused, the opcodes run, the same frames");
	img_free(m);
	free(m);
	free(cur);
}

int main(void)
{
	tap_begin(-1);
	test_android();
	test_extraction();
	test_vsp_ops();
	test_pops();
	test_vsp_from_reg();
	test_vfp_ops();
	test_truncated();
	test_exec_failures();
	test_entries();
	test_lookup();
	test_hostile();
	test_walk();
	test_walk_rows();
	uwt_cache_report();
	return tap_done();
}
