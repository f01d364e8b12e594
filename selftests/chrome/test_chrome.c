// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Chrome's ARM unwind tables: unit vectors and hostile blobs for the
 * core's decoder (uw_chrome_init/find/exec), a walk through a module
 * that has only a Chrome table, and the generator's encoders
 * (scripts/uwind/chrome_gen.c).
 *
 * The vectors are those of Chromium's unwinder and generator tests as
 * REFERENCES.md lists them; the rest are derived by hand from the format
 * (seed 000) and the generator's rules.  Every blob is built here.
 *
 * The `40` vector: Chrome's reader (and the core in Chrome mode) rejects
 * a vsp below the frame's starting sp after any instruction, so `40`
 * alone must fail that check, and `3f 40 b0` (up 0x100, down 4) must end
 * at sp + 0xfc.  `7f` likewise runs as `3f 3f 7f b0`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include <uwind/chrome.h>
#include "../../scripts/uwind/chrome_gen.h"
#include "../common/tap.h"
#include "../common/cachewalk.h"

/* ---- blob building ---- */

struct blob {
	uint8_t b[8192];
	size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void app(struct blob *bl, const void *p, size_t n)
{
	memcpy(bl->b + bl->len, p, n);
	bl->len += n;
}

/* Header + page table + function table (pio, fot pairs) + fot + insns. */
static void mk(struct blob *bl, const uint32_t *pages, uint32_t npages,
	       const uint16_t *fns, uint32_t nfns, const uint8_t *fot,
	       uint32_t nfot, const uint8_t *insn, uint32_t ninsn)
{
	uint32_t i, off = 32;
	uint8_t w[4];

	memset(bl, 0, sizeof(*bl));
	put32(bl->b + 0, off);
	put32(bl->b + 4, npages);
	off += 4 * npages;
	put32(bl->b + 8, off);
	put32(bl->b + 12, nfns);
	off += 4 * nfns;
	put32(bl->b + 16, off);
	put32(bl->b + 20, nfot);
	off += nfot;
	put32(bl->b + 24, off);
	put32(bl->b + 28, ninsn);
	bl->len = 32;
	for (i = 0; i < npages; i++) {
		put32(w, pages[i]);
		app(bl, w, 4);
	}
	for (i = 0; i < nfns; i++) {
		w[0] = (uint8_t)fns[2 * i];
		w[1] = (uint8_t)(fns[2 * i] >> 8);
		w[2] = (uint8_t)fns[2 * i + 1];
		w[3] = (uint8_t)(fns[2 * i + 1] >> 8);
		app(bl, w, 4);
	}
	app(bl, fot, nfot);
	app(bl, insn, ninsn);
}

static int init(struct uw_chrome *ct, const struct blob *bl, uint64_t text)
{
	struct uw_span s = { bl->b, bl->len, 0 };

	return uw_chrome_init(ct, &s, text, false);
}

/* ---- a stack of 32-bit words at a base address ---- */

struct stack {
	uint64_t base;
	uint32_t w[64];
	size_t n;
	unsigned int reads;
	uint64_t max_read;	/* highest byte read + 1 */
};

static int st_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct stack *s = ctx;
	uint64_t i;
	uint8_t *p = dst;

	s->reads++;
	if (addr + len > s->max_read)
		s->max_read = addr + len;
	if (len != 4 || addr < s->base || (addr - s->base) % 4 ||
	    (addr - s->base) / 4 >= s->n)
		return -1;
	i = (addr - s->base) / 4;
	p[0] = (uint8_t)s->w[i];
	p[1] = (uint8_t)(s->w[i] >> 8);
	p[2] = (uint8_t)(s->w[i] >> 16);
	p[3] = (uint8_t)(s->w[i] >> 24);
	return 0;
}

#define SP0	0x10000000u
#define LR0	0x0000a001u
#define MARK(n)	(0xc0000000u + (n))

/* Run insns as a one-function table on a stack of words at sp. */
static int run(const uint8_t *ins, uint32_t n, uint32_t sp,
	       const uint32_t *words, size_t nwords, uint64_t stack_hi,
	       struct uw_regs *r, struct stack *st)
{
	static const uint32_t pages[] = { 0 };
	static const uint16_t fns[] = { 0, 0 };
	static const uint8_t fot[] = { 0x00, 0x00 };
	struct uw_chrome ct;
	struct uw_chrome_loc loc;
	struct uw_walk_cfg cfg;
	struct blob bl;
	unsigned int i;
	int err;

	mk(&bl, pages, 1, fns, 1, fot, 2, ins, n);
	err = init(&ct, &bl, 0x8000);
	err = err ? err : uw_chrome_find(&ct, 0x8000, &loc);
	if (err)
		return 1000 + err;	/* not what is under test */
	memset(st, 0, sizeof(*st));
	st->base = sp;
	st->n = nwords;
	if (nwords)
		memcpy(st->w, words, nwords * 4);
	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = UW_ARCH_ARM;
	cfg.mem.read = st_read;
	cfg.mem.ctx = st;
	if (stack_hi) {
		cfg.stack_lo = sp;
		cfg.stack_hi = stack_hi;
	}
	memset(r, 0, sizeof(*r));
	for (i = 0; i < 13; i++)
		uw_reg_set(r, i, MARK(i));
	uw_reg_set(r, 13, sp);
	uw_reg_set(r, 14, LR0);
	uw_reg_set(r, 15, 0x8000);
	return uw_chrome_exec(&ct, &loc, &cfg, r);
}

static uint64_t R(const struct uw_regs *r, unsigned int n)
{
	uint64_t v = 0xdeadbeefdeadull;

	uw_reg_get(r, n, &v);
	return v;
}

/* A sequence that only moves sp: it must end at sp + d with pc = lr. */
static void sp_vec(const char *name, const uint8_t *ins, uint32_t n,
		   uint32_t sp, int64_t d)
{
	struct uw_regs r;
	struct stack st;
	int err = run(ins, n, sp, NULL, 0, 0, &r, &st);

	ok(!err && R(&r, 13) == (uint64_t)((int64_t)sp + d) &&
	   R(&r, 15) == LR0 && st.reads == 0,
	   "%s: sp %+lld, pc = lr (err %d, sp 0x%llx)", name, (long long)d,
	   err, (unsigned long long)R(&r, 13));
}

static void fail_vec(const char *name, const uint8_t *ins, uint32_t n,
		     uint32_t sp, int want)
{
	struct uw_regs r;
	struct stack st;
	int err = run(ins, n, sp, NULL, 0, 0, &r, &st);

	ok(err == want, "%s: fails with %s (got %s)", name, uw_strerror(want),
	   err >= 1000 || err <= -1000 ? "setup error" : uw_strerror(err));
}

#define B(...)	((const uint8_t[]){ __VA_ARGS__ }), \
		sizeof((const uint8_t[]){ __VA_ARGS__ })

static void test_instructions(void)
{
	static const uint32_t s4[] = { 1, 2, 3, 4 };
	static const uint32_t s9[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct uw_regs r;
	struct stack st;
	unsigned int i;
	int err, good;

	sp_vec("00 b0", B(0x00, 0xb0), SP0, 4);
	sp_vec("3f b0", B(0x3f, 0xb0), SP0, 0x100);
	fail_vec("40 b0 (below the starting sp)", B(0x40, 0xb0), SP0,
		 UW_ESTACK);
	sp_vec("3f 40 b0", B(0x3f, 0x40, 0xb0), SP0, 0xfc);
	fail_vec("7f b0 (below the starting sp)", B(0x7f, 0xb0), SP0,
		 UW_ESTACK);
	sp_vec("3f 3f 7f b0", B(0x3f, 0x3f, 0x7f, 0xb0), SP0, 0x100);
	fail_vec("3f at sp 0xffffffff", B(0x3f, 0xb0), 0xffffffffu,
		 UW_EOVERFLOW);
	fail_vec("7f at sp 0", B(0x7f, 0xb0), 0, UW_EOVERFLOW);
	sp_vec("b2 00 b0", B(0xb2, 0x00, 0xb0), SP0, 0x204);
	sp_vec("b2 04 b0", B(0xb2, 0x04, 0xb0), SP0, 0x214);
	sp_vec("b2 80 01 b0", B(0xb2, 0x80, 0x01, 0xb0), SP0, 0x404);

	err = run(B(0x89, 0x11, 0xb0), SP0, s4, 4, 0, &r, &st);
	ok(!err && R(&r, 4) == 1 && R(&r, 8) == 2 && R(&r, 12) == 3 &&
	   R(&r, 15) == 4 && R(&r, 13) == SP0 + 16 && R(&r, 14) == LR0 &&
	   R(&r, 5) == MARK(5),
	   "89 11 b0 on {1,2,3,4}: r4=1 r8=2 r12=3 pc=4 sp+16 (err %d)", err);

	err = run(B(0xa8, 0xb0), SP0, s4, 4, 0, &r, &st);
	ok(!err && R(&r, 4) == 1 && R(&r, 14) == 2 && R(&r, 15) == 2 &&
	   R(&r, 13) == SP0 + 8,
	   "a8 b0: lr = second word, pc = lr, sp+8 (err %d)", err);

	err = run(B(0xaf, 0xb0), SP0, s9, 9, 0, &r, &st);
	good = !err && R(&r, 14) == 9 && R(&r, 15) == 9 &&
	       R(&r, 13) == SP0 + 36;
	for (i = 4; i <= 11; i++)
		good = good && R(&r, i) == i - 3;
	ok(good, "af b0: r4-r11 = words 1-8, lr = ninth word, sp+36 (err %d)",
	   err);

	fail_vec("80 00", B(0x80, 0x00), SP0, UW_EREFUSE);

	/* Hand-derived from the EHABI encodings Chrome uses. */
	err = run(B(0xa0, 0xb0), SP0, s4, 4, 0, &r, &st);
	ok(!err && R(&r, 4) == 1 && R(&r, 13) == SP0 + 4 && R(&r, 15) == LR0,
	   "a0 b0 (Chrome's header lists 10100nnn): r4=1 sp+4 (err %d)", err);
	{
		struct uw_chrome_loc loc;
		static const uint32_t pages[] = { 0 };
		static const uint16_t fns[] = { 0, 0 };
		static const uint8_t fot[] = { 0x00, 0x00 };
		static const uint8_t ins[] = { 0x9b, 0x01, 0xb0 };
		static const uint32_t w[] = { 0 };
		struct uw_chrome ct;
		struct uw_walk_cfg cfg;
		struct blob bl;

		mk(&bl, pages, 1, fns, 1, fot, 2, ins, 3);
		memset(&cfg, 0, sizeof(cfg));
		cfg.arch = UW_ARCH_ARM;
		cfg.mem.read = st_read;
		cfg.mem.ctx = &st;
		memset(&st, 0, sizeof(st));
		st.base = SP0;
		st.n = 1;
		memcpy(st.w, w, 4);
		memset(&r, 0, sizeof(r));
		uw_reg_set(&r, 11, SP0 + 0x40);
		uw_reg_set(&r, 13, SP0);
		uw_reg_set(&r, 14, LR0);
		err = init(&ct, &bl, 0);
		err = err ? err : uw_chrome_find(&ct, 0, &loc);
		err = err ? err : uw_chrome_exec(&ct, &loc, &cfg, &r);
		ok(!err && R(&r, 13) == SP0 + 0x48 && R(&r, 15) == LR0,
		   "9b 01 b0: vsp = r11, then +8 (err %d)", err);
		uw_reg_set(&r, 13, SP0);
		r.valid &= ~(1ull << 11);
		err = uw_chrome_exec(&ct, &loc, &cfg, &r);
		ok(err == UW_EREG, "9b with r11 unknown: %s", uw_strerror(err));
	}

	/* Outside Chrome's subset, and sequences without an end. */
	fail_vec("b1 01 b0 (not in Chrome's subset)", B(0xb1, 0x01, 0xb0), SP0,
		 UW_EBADDATA);
	fail_vec("b3 00 b0 (not in Chrome's subset)", B(0xb3, 0x00, 0xb0), SP0,
		 UW_EBADDATA);
	fail_vec("c8 00 b0 (not in Chrome's subset)", B(0xc8, 0x00, 0xb0), SP0,
		 UW_EBADDATA);
	fail_vec("d0 b0 (not in Chrome's subset)", B(0xd0, 0xb0), SP0,
		 UW_EBADDATA);
	fail_vec("9d b0 (reserved)", B(0x9d, 0xb0), SP0, UW_EBADDATA);
	fail_vec("00 without finish", B(0x00), SP0, UW_EBADDATA);
	fail_vec("89 cut short", B(0x89), SP0, UW_EBADDATA);
	fail_vec("b2 80 cut short", B(0xb2, 0x80), SP0, UW_EBADDATA);
	fail_vec("b2 uleb128 of 6 bytes",
		 B(0xb2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0xb0), SP0,
		 UW_EOVERFLOW);
	fail_vec("00 b0 at a misaligned sp", B(0x00, 0xb0), SP0 + 2,
		 UW_ESTACK);

	/* Stack bounds checked before each read, not after. */
	err = run(B(0xa9, 0xb0), SP0, s4, 4, SP0 + 8, &r, &st);
	ok(err == UW_ESTACK && st.max_read <= SP0 + 8,
	   "a9 b0 with 8 bytes of stack: %s, no read past the top (%u reads)",
	   uw_strerror(err), st.reads);
	err = run(B(0xa8, 0xb0), SP0, s4, 4, SP0 + 8, &r, &st);
	ok(!err && R(&r, 13) == SP0 + 8,
	   "a8 b0 with exactly 8 bytes of stack: sp at the top (err %d)", err);
	/* Chrome's per-instruction check: sp never above the stack's top. */
	err = run(B(0x3f, 0xb0), SP0, s4, 4, SP0 + 0x10, &r, &st);
	ok(err == UW_ESTACK, "3f b0 with 16 bytes of stack: %s",
	   uw_strerror(err));
	err = run(B(0x03, 0xb0), SP0, s4, 4, SP0 + 0x10, &r, &st);
	ok(!err && R(&r, 13) == SP0 + 0x10,
	   "03 b0 with 16 bytes of stack: sp at the top (err %d)", err);
}

/* ---- lookup ---- */

static void find_vec(const char *name, const struct uw_chrome *ct,
		     uint64_t pc, int want_err, uint32_t fn_index,
		     uint64_t fn_start, uint32_t instr_off, uint32_t insn)
{
	struct uw_chrome_loc loc;
	int err;

	memset(&loc, 0xa5, sizeof(loc));
	err = uw_chrome_find(ct, pc, &loc);
	if (want_err) {
		ok(err == want_err, "%s: %s (got %s)", name,
		   uw_strerror(want_err), uw_strerror(err));
		return;
	}
	ok(!err && loc.fn_index == fn_index && loc.fn_start == fn_start &&
	   loc.instr_off == instr_off && loc.insn == insn,
	   "%s: fn %u at 0x%llx, +0x%x halfwords, instructions @%u"
	   " (err %d: fn %u 0x%llx +0x%x @%u)", name, fn_index,
	   (unsigned long long)fn_start, instr_off, insn, err, loc.fn_index,
	   (unsigned long long)loc.fn_start, loc.instr_off, loc.insn);
}

#define TEXT	0x40000u

static void test_lookup(void)
{
	static const uint8_t fot1[] = { 0x82, 0x01, 0x02, 0x80, 0x01, 0x03,
					0x00, 0x04 };
	static const uint8_t b0s[] = { 0xb0, 0xb0, 0xb0, 0xb0, 0xb0 };
	static const uint32_t p1[] = { 0 };
	static const uint16_t f1[] = { 0, 0 };
	static const uint32_t p2[] = { 0, 2 };
	static const uint32_t p3[] = { 0, 1, 1 };
	static const uint16_t f3[] = { 0, 20, 4, 40, 6, 70 };
	uint8_t fot3[80];
	struct uw_chrome ct;
	struct blob bl;
	int err;

	/* Function offset table: 82 01 02 80 01 03 00 04. */
	mk(&bl, p1, 1, f1, 1, fot1, sizeof(fot1), b0s, sizeof(b0s));
	err = init(&ct, &bl, TEXT);
	ok(!err, "offset table blob initialises (%d)", err);
	find_vec("offset 128", &ct, TEXT + 2 * 128, 0, 0, TEXT, 128, 3);
	find_vec("offset 129", &ct, TEXT + 2 * 129, 0, 0, TEXT, 129, 3);
	find_vec("offset 0", &ct, TEXT, 0, 0, TEXT, 0, 4);
	find_vec("offset 127", &ct, TEXT + 2 * 127, 0, 0, TEXT, 127, 4);
	find_vec("offset 130", &ct, TEXT + 2 * 130, 0, 0, TEXT, 130, 2);
	find_vec("offset 129, Thumb bit set", &ct, TEXT + 2 * 129 + 1, 0, 0,
		 TEXT, 129, 3);

	/* Page table {0,2}, function table {(0,20),(4,40) | (6,70)}. */
	memset(fot3, 0, sizeof(fot3));
	fot3[21] = 1;
	fot3[41] = 2;
	fot3[71] = 3;
	mk(&bl, p2, 2, f3, 3, fot3, sizeof(fot3), b0s, sizeof(b0s));
	err = init(&ct, &bl, TEXT);
	ok(!err, "page table {0,2} initialises (%d)", err);
	find_vec("page 0 pio 4", &ct, TEXT + 2 * 4, 0, 1, TEXT + 8, 0, 2);
	find_vec("page 0 pio 3", &ct, TEXT + 2 * 3, 0, 0, TEXT, 3, 1);
	find_vec("page 1 pio 0xffff", &ct, TEXT + (1u << 17) + 2 * 0xffff, 0, 2,
		 TEXT + 2 * 0x10006, 0xfff9, 3);
	find_vec("page 1 pio 5 (function from page 0 spans into it)", &ct,
		 TEXT + (1u << 17) + 2 * 5, 0, 1, TEXT + 8, 0x10001, 2);
	find_vec("page 2 (past the page table)", &ct, TEXT + (2u << 17),
		 UW_ENOENT, 0, 0, 0, 0);
	find_vec("below the text start", &ct, TEXT - 2, UW_ENOENT, 0, 0, 0, 0);

	/* Page table {0,1,1}: page 1 empty. */
	mk(&bl, p3, 3, f3, 3, fot3, sizeof(fot3), b0s, sizeof(b0s));
	err = init(&ct, &bl, TEXT);
	ok(!err, "page table {0,1,1} initialises (%d)", err);
	find_vec("empty page 1 pio 4", &ct, TEXT + (1u << 17) + 2 * 4, 0, 0,
		 TEXT, 0x10004, 1);
	find_vec("page 2 pio 6", &ct, TEXT + (2u << 17) + 2 * 6, 0, 2,
		 TEXT + 2 * 0x20006, 0, 3);
	find_vec("page 2 pio 2 (back over the empty page)", &ct,
		 TEXT + (2u << 17) + 2 * 2, 0, 0, TEXT, 0x20002, 1);

	/* Nothing before the first function. */
	{
		static const uint32_t p[] = { 0, 0 };
		static const uint16_t f[] = { 4, 0 };
		static const uint8_t fot[] = { 0x00, 0x00 };

		mk(&bl, p, 2, f, 1, fot, 2, b0s, 1);
		err = init(&ct, &bl, TEXT);
		find_vec("empty first page", &ct, TEXT + 8, UW_ENOENT, 0, 0, 0, 0);
		find_vec("page 1 before its first function", &ct,
			 TEXT + (1u << 17), UW_ENOENT, 0, 0, 0, 0);
		find_vec("page 1 at its first function", &ct,
			 TEXT + (1u << 17) + 8, 0, 0, TEXT + (1u << 17) + 8, 0, 0);
	}
}

/* ---- hostile blobs ---- */

static void hdr_vec(const char *name, const uint32_t *h, size_t size,
		    int want)
{
	struct uw_chrome ct;
	struct blob bl;
	int i, err;

	memset(&bl, 0, sizeof(bl));
	for (i = 0; i < 8; i++)
		put32(bl.b + 4 * i, h[i]);
	bl.len = size;
	err = init(&ct, &bl, 0);
	ok(err == want, "hostile header, %s: %s (got %s)", name,
	   uw_strerror(want), uw_strerror(err));
}

static void test_hostile(void)
{
	static const uint32_t good[8] = { 32, 1, 36, 1, 40, 2, 42, 1 };
	uint32_t h[8];
	struct uw_chrome ct;
	struct blob bl;
	int err;

	hdr_vec("a consistent 43-byte blob", good, 43, 0);
	hdr_vec("blob shorter than the header", good, 31, UW_EBOUNDS);
	memcpy(h, good, sizeof(h));
	h[0] = 40;
	hdr_vec("page table past the end", h, 43, UW_EHEADER);
	memcpy(h, good, sizeof(h));
	h[1] = 0x40000001;
	hdr_vec("page count overflowing 32 bits", h, 43, UW_EHEADER);
	memcpy(h, good, sizeof(h));
	h[3] = 3;
	hdr_vec("function table past the end", h, 43, UW_EHEADER);
	memcpy(h, good, sizeof(h));
	h[5] = 4;
	hdr_vec("offset table past the end", h, 43, UW_EHEADER);
	memcpy(h, good, sizeof(h));
	h[6] = 0xffffffffu;
	hdr_vec("instruction table offset 0xffffffff", h, 43, UW_EHEADER);
	memcpy(h, good, sizeof(h));
	h[7] = 2;
	hdr_vec("instruction table one byte too long", h, 43, UW_EHEADER);

	{
		static const uint32_t dec[] = { 0, 2, 1 };
		static const uint32_t past[] = { 0, 5 };
		static const uint16_t f[] = { 0, 0, 4, 0, 8, 0 };
		static const uint8_t fot[] = { 0x00, 0x00 };
		static const uint8_t ins[] = { 0xb0 };

		mk(&bl, dec, 3, f, 3, fot, 2, ins, 1);
		err = init(&ct, &bl, 0);
		ok(err == UW_EUNSORTED, "page table {0,2,1} decreasing: %s",
		   uw_strerror(err));
		mk(&bl, past, 2, f, 3, fot, 2, ins, 1);
		err = init(&ct, &bl, 0);
		ok(err == UW_EUNSORTED,
		   "page table {0,5} past 3 functions: %s", uw_strerror(err));
		/* Entry 0 in no page: a pc before page 0's first function
		 * would find it, starting after the pc (a fuzz_arm find). */
		mk(&bl, dec + 2, 1, f, 3, fot, 2, ins, 1);
		err = init(&ct, &bl, 0);
		ok(err == UW_EUNSORTED,
		   "page table {1}: entry 0 before the first page: %s",
		   uw_strerror(err));
	}
	{
		static const uint32_t p[] = { 0 };
		static const uint8_t ins[] = { 0xb0, 0xb0 };
		static const struct {
			const char *name;
			uint8_t fot[12];
			uint32_t nfot;
			uint16_t idx;
			int want;
		} v[] = {
			{ "uleb128 of 6 bytes", { 0x80, 0x80, 0x80, 0x80, 0x80,
			  0x00, 0x00 }, 7, 0, UW_EBADDATA },
			{ "uleb128 over 32 bits", { 0xff, 0xff, 0xff, 0xff, 0x7f,
			  0x00 }, 6, 0, UW_EBADDATA },
			{ "uleb128 cut by the table end", { 0x00, 0x80 }, 2, 0,
			  UW_EBADDATA },
			{ "no pair with offset 0", { 0x05, 0x00 }, 2, 0,
			  UW_EBADDATA },
			{ "instruction index outside its table", { 0x00, 0x02 },
			  2, 0, UW_EBADDATA },
			{ "function's offset list outside its table",
			  { 0x00, 0x00 }, 2, 2, UW_EBADDATA },
			{ "function's offset list index 0xffff",
			  { 0x00, 0x00 }, 2, 0xffff, UW_EBADDATA },
		};
		struct uw_chrome_loc loc;
		unsigned int i;
		uint16_t f[2];

		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			f[0] = 0;
			f[1] = v[i].idx;
			mk(&bl, p, 1, f, 1, v[i].fot, v[i].nfot, ins, 2);
			err = init(&ct, &bl, 0);
			err = err ? err : uw_chrome_find(&ct, 4, &loc);
			ok(err == v[i].want, "hostile offset table, %s: %s",
			   v[i].name, uw_strerror(err));
		}
	}
	{
		/* Function start after the pc: a page-offset lie. */
		static const uint32_t p[] = { 0, 1 };
		static const uint16_t f[] = { 0, 0, 0xffff, 0 };
		static const uint8_t fot[] = { 0x00, 0x00 };
		static const uint8_t ins[] = { 0xb0 };
		struct uw_chrome_loc loc;

		mk(&bl, p, 2, f, 2, fot, 2, ins, 1);
		err = init(&ct, &bl, 0);
		err = err ? err : uw_chrome_find(&ct, (1u << 17) + 2, &loc);
		ok(!err && loc.fn_index == 0 && loc.instr_off == 0x10001,
		   "page 1 pio 1, its only function at 0xffff: the one before"
		   " (err %d)", err);
	}
}

/* ---- a walk through a module described only by a Chrome table ---- */

static void test_walk(void)
{
	/*
	 * text 0x8000: A at 0x8000 (push {r4, lr} at +0: offsets 2 -> a8 b0,
	 * 0 -> b0); B at 0x8100 (push {r4, lr}; sub sp, #8: 4 -> 01 a8 b0,
	 * 2 -> a8 b0, 0 -> b0).  A runs at 0x8010 called from B at 0x8120;
	 * B returns to 0x9000, outside the module: no table, no frame pointer
	 * fallback, the walk ends there.
	 */
	static const uint32_t pages[] = { 0 };
	static const uint16_t fns[] = { 0x00, 0, 0x80, 4 };
	static const uint8_t fot[] = { 0x02, 0x01, 0x00, 0x00,
				       0x04, 0x03, 0x02, 0x01, 0x00, 0x00 };
	static const uint8_t ins[] = { 0xb0, 0xa8, 0xb0, 0x01, 0xa8, 0xb0 };
	struct uw_chrome ct;
	struct uw_module mod;
	struct uw_walk_cfg cfg;
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct uw_frame fr[8];
	struct uw_regs r;
	struct stack st;
	struct blob bl;
	size_t n;
	int err;

	mk(&bl, pages, 1, fns, 2, fot, sizeof(fot), ins, sizeof(ins));
	err = init(&ct, &bl, 0x8000);
	memset(&st, 0, sizeof(st));
	st.base = SP0;
	st.n = 8;
	st.w[0] = 0x44;		/* A's saved r4 */
	st.w[1] = 0x8121;	/* A's return address (Thumb) */
	st.w[4] = 0x55;		/* B's saved r4 */
	st.w[5] = 0x9001;	/* B's return address: outside the module */
	memset(&mod, 0, sizeof(mod));
	mod.start = 0x8000;
	mod.end = 0x8200;
	mod.chrome = &ct;
	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = UW_ARCH_ARM;
	cfg.mods = &mod;
	cfg.nmods = 1;
	cfg.mem.read = st_read;
	cfg.mem.ctx = &st;
	cfg.stack_lo = SP0;
	cfg.stack_hi = SP0 + 32;
	cfg.flags = UW_WALK_NO_FP;
	memset(&r, 0, sizeof(r));
	uw_reg_set(&r, 13, SP0);
	uw_reg_set(&r, 14, 0x8121);
	uw_reg_set(&r, 15, 0x8011);
	n = err ? 0 : uwt_walk(&cur, &cfg, &r, fr, 8, &res);
	ok(n == 3 && fr[0].pc == 0x8010 && fr[0].sp == SP0 &&
	   fr[0].source == UW_SRC_CHROME && fr[1].pc == 0x8120 &&
	   fr[1].sp == SP0 + 8 && fr[1].source == UW_SRC_CHROME &&
	   fr[2].pc == 0x9000 && fr[2].sp == SP0 + 24 &&
	   (fr[2].flags & UW_FRAME_THUMB) && res.stop == UW_STOP_NO_INFO,
	   "walk A -> B -> outside from the Chrome table alone: A and B"
	   " unwound by CHROME (n %zu, stop %s)", n, uw_stop_name(res.stop));
}

/* ---- the generator ---- */

static int bytes_eq(const uint8_t *a, int na, const uint8_t *b, size_t nb)
{
	return na >= 0 && (size_t)na == nb && (!nb || !memcmp(a, b, nb));
}

static void enc_sp(int64_t off, const uint8_t *want, size_t n)
{
	uint8_t out[16];
	int k = cg_encode_sp(off, out);

	ok(want ? bytes_eq(out, k, want, n) : k < 0,
	   "generator: sp %+lld encodes as %s", (long long)off,
	   want ? "expected" : "nothing (error)");
}

static void enc_pop(uint16_t mask, const uint8_t *want, size_t n)
{
	uint8_t out[16];
	int k = cg_encode_pop(mask, out);

	ok(bytes_eq(out, k, want, n), "generator: pop mask 0x%04x encodes as"
	   " expected (%d bytes: %02x %02x)", mask, k, out[0], out[1]);
}

static void row_vec(const char *rules, int64_t cfa_before, int reg_before,
		    int want_ret, const uint8_t *want, size_t n,
		    int64_t cfa_after)
{
	struct cg_state st = { cfa_before, reg_before };
	struct cg_unwind u;
	uint8_t out[32];
	int ret, k = 0;

	memset(&u, 0, sizeof(u));
	ret = cg_parse_row(rules, &st, &u);
	if (ret == 1)
		k = cg_encode_unwind(&u, out);
	ok(ret == want_ret && (ret != 1 || (bytes_eq(out, k, want, n) &&
					    st.cfa_sp == cfa_after)),
	   "generator: row '%s' (cfa sp+%lld) -> %d, %d bytes, cfa %lld",
	   rules, (long long)cfa_before, ret, k, (long long)st.cfa_sp);
}

static void test_generator(void)
{
	static const char sym[] =
		"MODULE Linux arm 0 t\n"
		"FUNC 1000 20 0 a\n"
		"STACK CFI INIT 1000 20 .cfa: sp 0 + .ra: lr\n"
		"STACK CFI 1004 .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^\n"
		"STACK CFI 1008 .cfa: sp 24 +\n"
		"STACK CFI 101c .cfa: sp 8 +\n"
		"STACK CFI INIT 0 10 .cfa: sp 0 + .ra: lr\n"
		"STACK CFI 4 .cfa: sp 8 + .ra: .cfa -4 + ^\n"
		"STACK CFI INIT 1040 10 .cfa: sp 0 + .ra: lr\n";
	/*
	 * Hand-derived: a (0x1000, 0x20) has rows 0 b0, 4 a8, 8 03; the
	 * epilogue row goes.  The tombstone at 0 goes.  Gap 0x1020-0x1040:
	 * b0.  b (0x1040, 0x10): b0.  After b, 0x1050 is not a page
	 * boundary: 80 00.  Sequences: b0 (3 uses, 1 byte), a8 b0 and 80 00
	 * (1 use, 2 bytes; a8.. > 80.. by bytes), 03 a8 b0: instruction
	 * table b0 | a8 b0 | 80 00 | 03 a8 b0 at 0, 1, 3, 5.  Offset table:
	 * a: 04 05 02 01 00 00 @0; gap and b share 00 00 @6; 00 03 @8.
	 */
	static const uint8_t want[] = {
		32, 0, 0, 0, 1, 0, 0, 0, 36, 0, 0, 0, 4, 0, 0, 0,
		52, 0, 0, 0, 10, 0, 0, 0, 62, 0, 0, 0, 8, 0, 0, 0,
		0, 0, 0, 0,				/* page table */
		0x00, 0x00, 0, 0, 0x10, 0x00, 6, 0,	/* function table */
		0x20, 0x00, 6, 0, 0x28, 0x00, 8, 0,
		0x04, 0x05, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
		0xb0, 0xa8, 0xb0, 0x80, 0x00, 0x03, 0xa8, 0xb0,
	};
	struct cg_funcs fs;
	uint8_t *blob = NULL;
	size_t size = 0;
	char err[128] = "";
	FILE *in;
	int ret;

	/* Chromium's generator vectors. */
	enc_sp(0x200, B(0x3f, 0x3f));
	enc_sp(0x208, B(0xb2, 0x01));
	enc_pop(1u << 4 | 1u << 15, B(0x88, 0x01));
	enc_pop(1u << 7 | 1u << 8 | 1u << 14, B(0x84, 0x18));
	/* And the edges of each encoding. */
	enc_sp(4, B(0x00));
	enc_sp(0x100, B(0x3f));
	enc_sp(0x104, B(0x3f, 0x00));
	enc_sp(0x204, B(0xb2, 0x00));
	enc_sp(0x404, B(0xb2, 0x80, 0x01));
	enc_sp(-4, B(0x40));
	enc_sp(-0x200, B(0x7f, 0x7f));
	enc_sp(-0x204, NULL, 0);
	enc_sp(6, NULL, 0);
	enc_pop(1u << 4 | 1u << 14, B(0xa8));
	enc_pop(0x0ff0 | 1u << 14, B(0xaf));
	enc_pop(0x1ff0 | 1u << 14, B(0x85, 0xff));
	enc_pop(1u << 14, B(0x84, 0x00));
	enc_pop(1u << 5 | 1u << 14, B(0x84, 0x02));

	/* Rows, as the parsers read them. */
	row_vec(".cfa: sp 0 + .ra: lr", 0, 0, 1, B(0xb0), 0);
	row_vec(".cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^", 0, 0, 1,
		B(0xa8), 8);
	row_vec(".cfa: sp 16 + .ra: .cfa -4 + ^ r4: .cfa -16 + ^", 0, 0, 1,
		B(0x01, 0xa8), 16);
	row_vec(".cfa: sp 24 + .ra: .cfa -4 + ^ r2: .cfa -16 + ^"
		" r3: .cfa -12 + ^", 8, 0, 1, B(0x02, 0x84, 0x00), 24);
	row_vec(".cfa: sp 40 +", 8, 0, 1, B(0x07), 40);
	row_vec(".cfa: r7 16 +", 16, 0, 1, B(0x97), 16);
	row_vec(".cfa: r11 4 +", 12, 0, 1, B(0x9b, 0x41), 4);
	row_vec(".cfa: sp 48 + unnamed_register264: .cfa -40 + ^", 32, 0, 1,
		B(0x03), 48);
	row_vec("unnamed_register264: .cfa -40 + ^", 32, 0, 1, NULL, 0, 32);
	row_vec(".cfa: sp 44 + s16: .cfa -44 + ^ s17: .cfa -40 + ^", 36, 0, 1,
		B(0x01), 44);
	row_vec(".cfa: sp 8 +", 24, 0, 2, NULL, 0, 0);
	row_vec(".cfa: sp 0 + .ra: lr r4: r4", 8, 0, 2, NULL, 0, 0);
	row_vec(".cfa: sp 8 +", 8, 1, 2, NULL, 0, 0);
	row_vec(".cfa: r7 8 +", 16, 1, 2, NULL, 0, 0);
	row_vec("r4: r4", 8, 0, 0, NULL, 0, 0);
	row_vec(".cfa: sp 6 +", 0, 0, -1, NULL, 0, 0);
	/*
	 * Rows from EHABI (uwind convert --breakpad without DWARF CFI): the
	 * frame register and the pushes in one row; a variadic function's
	 * r0-r3 above the pushed lr; a CFA loaded from the stack.  Bytes
	 * derived by hand from the EHABI opcodes that say the same.
	 */
	/* Thumb: vsp = r7; pop {r7, lr} */
	row_vec(".cfa: r7 8 + .ra: .cfa -4 + ^ r7: .cfa -8 + ^", 0, 0, 1,
		B(0x97, 0x84, 0x08), 8);
	/* ARM: vsp = r11; vsp -= 4; pop {r11, lr} */
	row_vec(".cfa: r11 4 + .ra: .cfa -4 + ^ r11: .cfa -8 + ^", 0, 0, 1,
		B(0x9b, 0x40, 0x84, 0x80), 4);
	/* vsp = r7; pop {r3} (as vsp += 4); pop {r4-r7, lr} */
	row_vec(".cfa: r7 24 + .ra: .cfa -4 + ^ r3: .cfa -24 + ^"
		" r4: .cfa -20 + ^ r5: .cfa -16 + ^ r6: .cfa -12 + ^"
		" r7: .cfa -8 + ^", 0, 0, 1, B(0x97, 0x00, 0xab), 24);
	/* vsp += 8; pop {lr}; pop {r1-r3} (as vsp += 12) */
	row_vec(".cfa: sp 24 + .ra: .cfa -16 + ^ r1: .cfa -12 + ^"
		" r2: .cfa -8 + ^ r3: .cfa -4 + ^", 0, 0, 1,
		B(0x01, 0x84, 0x00, 0x02), 24);
	/* r7 and lr not next to each other: no single pop restores them */
	row_vec(".cfa: r7 16 + .ra: .cfa -4 + ^ r7: .cfa -12 + ^", 0, 0, -1,
		NULL, 0, 0);
	/* the sp popped: the CFA is loaded from the stack */
	row_vec(".cfa: sp 84 + ^ .ra: sp 92 + ^", 0, 0, -1, NULL, 0, 0);

	in = fmemopen((void *)sym, sizeof(sym) - 1, "r");
	ret = in ? cg_parse_sym(in, &fs, NULL) : -1;
	if (in)
		fclose(in);
	ok(!ret && fs.n == 2 && fs.epilogues == 1 && fs.f[0].n == 3,
	   "generator: sym text parsed: 2 functions, 1 epilogue (tombstone"
	   " dropped)");
	ret = ret ? ret : cg_build(&fs, 0x1000, &blob, &size, err, sizeof(err));
	ok(!ret && size == sizeof(want) && !memcmp(blob, want, size),
	   "generator: table bytes as derived by hand (%zu bytes, %s)", size,
	   err);
	if (!ret) {
		struct uw_chrome ct;
		struct uw_chrome_loc loc;
		struct uw_span s = { blob, size, 0 };
		int e = uw_chrome_init(&ct, &s, 0x401000, false);

		e = e ? e : uw_chrome_find(&ct, 0x40100a, &loc);
		ok(!e && loc.insn == 5 && loc.instr_off == 5,
		   "generator: the core finds a+0xa at instructions @5 (%d)", e);
		e = uw_chrome_find(&ct, 0x401030, &loc);
		ok(!e && loc.insn == 0 && loc.fn_start == 0x401020,
		   "generator: the gap unwinds by returning to lr (%d)", e);
		e = uw_chrome_find(&ct, 0x401050, &loc);
		ok(!e && loc.insn == 3, "generator: past the last function:"
		   " refuse (%d)", e);
	}
	free(blob);
	cg_free(&fs);

	{
		static const char bad[] =
			"STACK CFI INIT 2000 10 .cfa: sp 8 + .ra: .cfa -4 + ^\n"
			"STACK CFI INIT 2010 10 .cfa: sp 0 + .ra: lr\n"
			"STACK CFI 2012 .cfa: sp 6 +\n"
			"STACK CFI INIT 2008 4 .cfa: sp 0 + .ra: lr\n";

		in = fmemopen((void *)bad, sizeof(bad) - 1, "r");
		ret = cg_parse_sym(in, &fs, NULL);
		fclose(in);
		ok(!ret && fs.n == 3 && fs.f[0].refuse && fs.f[1].refuse &&
		   !fs.f[2].refuse && fs.refused == 2,
		   "generator: functions not starting at lr, or with a"
		   " misaligned CFA, refuse to unwind");
		blob = NULL;
		ret = cg_build(&fs, 0x2000, &blob, &size, err, sizeof(err));
		ok(ret < 0 && strstr(err, "overlap"),
		   "generator: overlapping functions rejected (%s)", err);
		free(blob);
		cg_free(&fs);
	}
	{
		/* Past 32 bits, or a size that wraps: not ARM, refused. */
		static const char *const far[] = {
			"STACK CFI INIT 7fff00000000 10 .cfa: sp 0 + .ra: lr\n",
			"STACK CFI INIT 1000 ffffffffffffffff"
			" .cfa: sp 0 + .ra: lr\n",
			"STACK CFI INIT fffffff0 20 .cfa: sp 0 + .ra: lr\n",
		};
		size_t i;
		int bad = 0;

		for (i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
			in = fmemopen((void *)far[i], strlen(far[i]), "r");
			ret = cg_parse_sym(in, &fs, NULL);
			fclose(in);
			bad += ret != -1;
			cg_free(&fs);
		}
		ok(!bad, "generator: functions past 4 GiB or wrapping refused");
	}
}

int main(void)
{
	tap_begin(-1);
	test_instructions();
	test_lookup();
	test_hostile();
	test_walk();
	test_generator();
	uwt_cache_report();
	return tap_done();
}
