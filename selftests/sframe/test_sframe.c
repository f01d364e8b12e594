// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SFrame decoder unit tests (TAP).
 *
 * Tables are built with the test encoder (sframe_enc.c) from abstract
 * descriptions; the encoder itself is checked against hand-written
 * section bytes first.  Every expected row below is derived by hand from
 * the SFrame specification, not from the decoder's output.
 *
 * Parts: hand-written byte vectors, V1/V2/V3 lookups per ABI, FRE and
 * word sizes, PCINC/PCMASK, flags, outermost and signal markers, a
 * binary search over many FDEs against a linear oracle, walks over a
 * synthetic stack, and hostile tables.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/sframe.h>
#include "sframe_enc.h"
#include "testutil.h"
#include "../common/tap.h"
#include "../common/cachewalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NW(...)		(sizeof((int32_t[]){ __VA_ARGS__ }) / sizeof(int32_t))

/* FRE with base sp (S) or fp (F) and the given data words. */
#define FS(st, ...) { .start = (st), .base_sp = 1, \
		      .nwords = NW(__VA_ARGS__), .w = { __VA_ARGS__ } }
#define FF(st, ...) { .start = (st), .base_sp = 0, \
		      .nwords = NW(__VA_ARGS__), .w = { __VA_ARGS__ } }
/* ... with a forced word size and the RA-mangled bit. */
#define FX(st, sp, ws, mangled, ...) { .start = (st), .base_sp = (sp), \
		      .word_size = (ws), .ra_mangled = (mangled), \
		      .nwords = NW(__VA_ARGS__), .w = { __VA_ARGS__ } }
/* No data words: RA undefined, outermost frame. */
#define F0(st)	{ .start = (st), .base_sp = 1, .nwords = 0 }
#define FRES(a)	.nfres = ARRAY_SIZE(a), .fres = (a)

/* Expected rules. */
#define RU	{ UW_RULE_UNDEF, 0, 0 }
#define RS	{ UW_RULE_SAME, 0, 0 }
#define RC(o)	{ UW_RULE_CFA_OFF, 0, (o) }
#define RR(r)	{ UW_RULE_REG, (r), 0 }
#define RO(r, o) { UW_RULE_REG_OFF, (r), (o) }
#define RD(r, o) { UW_RULE_REG_DEREF, (r), (o) }

#define NOCHK	(~(uint64_t)0)
#define NOENT(p) { .pc = (p), .err = UW_ENOENT }

enum { X_SP = UW_X86_64_RSP, X_FP = UW_X86_64_RBP, A_SP = UW_AARCH64_SP,
       A_FP = UW_AARCH64_X29, A_LR = UW_AARCH64_X30, Z_SP = UW_S390X_R15,
       Z_FP = UW_S390X_R11, Z_RA = UW_S390X_R14 };

struct want {
	uint64_t pc;
	int err;
	uint64_t fn, size, start;	/* start NOCHK: not checked */
	struct uw_rule cfa, ra, fp;
	uint32_t flags;
};

/* An encoded section in an exact-size heap buffer (ASan sees overreads). */
struct sec {
	uint8_t *p;
	size_t len;
	uint64_t addr;
	bool be;
	struct sfe_layout lay;
	struct uw_sframe sf;
	int init;
};

static bool build(struct sec *s, const struct sfe_table *t)
{
	char err[128];

	memset(s, 0, sizeof(*s));
	if (sfe_encode(t, &s->p, &s->len, &s->lay, err, sizeof(err))) {
		diag("encoder: %s", err);
		s->init = -100;
		return false;
	}
	s->addr = t->addr;
	s->be = t->big_endian;
	return true;
}

static int sec_init(struct sec *s)
{
	struct uw_span span = { s->p, s->len, s->addr };

	s->init = uw_sframe_init(&s->sf, &span);
	return s->init;
}

static bool build_init(struct sec *s, const struct sfe_table *t)
{
	if (!build(s, t))
		return false;
	if (sec_init(s)) {
		diag("uw_sframe_init: %d (%s)", s->init, uw_strerror(s->init));
		return false;
	}
	return true;
}

static void sec_free(struct sec *s)
{
	free(s->p);
	sfe_layout_free(&s->lay);
	s->p = NULL;
}

static const char *kind_name(unsigned int k)
{
	static const char *const n[] = { "same", "cfa+", "reg", "reg+",
					 "*reg+", "undef" };

	return k < ARRAY_SIZE(n) ? n[k] : "?";
}

static void rule_str(char *b, size_t n, const struct uw_rule *r)
{
	snprintf(b, n, "%s(r%u,%d)", kind_name(r->kind), r->reg, r->off);
}

static bool check_one(const struct uw_sframe *sf, const struct want *w)
{
	struct uw_row row;
	char a[3][40], e[3][40];
	bool good;
	int err;

	memset(&row, 0x5a, sizeof(row));
	err = uw_sframe_find(sf, w->pc, &row);
	if (err != w->err) {
		diag("pc %#llx: error %d (%s), want %d (%s)",
		     (unsigned long long)w->pc, err, uw_strerror(err), w->err,
		     uw_strerror(w->err));
		return false;
	}
	if (err)
		return true;
	good = row.fn_start == w->fn && row.fn_size == w->size &&
	       (w->start == NOCHK || row.start == w->start) &&
	       tu_rule_eq(&row.cfa, &w->cfa) && tu_rule_eq(&row.ra, &w->ra) &&
	       tu_rule_eq(&row.fp, &w->fp) && row.flags == w->flags;
	if (!good) {
		rule_str(a[0], 40, &row.cfa);
		rule_str(a[1], 40, &row.ra);
		rule_str(a[2], 40, &row.fp);
		rule_str(e[0], 40, &w->cfa);
		rule_str(e[1], 40, &w->ra);
		rule_str(e[2], 40, &w->fp);
		diag("pc %#llx: got fn %#llx+%#llx start %#llx cfa %s ra %s fp %s flags %#x",
		     (unsigned long long)w->pc, (unsigned long long)row.fn_start,
		     (unsigned long long)row.fn_size,
		     (unsigned long long)row.start, a[0], a[1], a[2],
		     row.flags);
		diag("pc %#llx: want fn %#llx+%#llx start %#llx cfa %s ra %s fp %s flags %#x",
		     (unsigned long long)w->pc, (unsigned long long)w->fn,
		     (unsigned long long)w->size,
		     (unsigned long long)w->start, e[0], e[1], e[2], w->flags);
	}
	return good;
}

static bool check_all(const struct uw_sframe *sf, const struct want *w,
		      size_t n)
{
	bool good = true;
	size_t i;

	for (i = 0; i < n; i++)
		good = check_one(sf, &w[i]) && good;
	return good;
}

/* Encode t, init it, and check every wanted row; one TAP line. */
static void vec(const char *name, const struct sfe_table *t,
		const struct want *w, size_t n)
{
	struct sec s;
	bool good = build_init(&s, t);

	if (good)
		good = check_all(&s.sf, w, n);
	ok(good, "%s", name);
	sec_free(&s);
}

#define VEC(name, t, w)	vec(name, t, w, ARRAY_SIZE(w))

/* ------------------------------------------------------------------ */
/* 1. Hand-written bytes: the encoder and the decoder on known input. */

/*
 * V1, AMD64, section at 0x2000, RA fixed at CFA-8.
 * FDE0: 0x1000+0x20, ADDR1: {0: sp+8} {4: sp+16}
 * FDE1: 0x1100+0x300, ADDR2: {0: sp+8} {1: sp+16 fp@-16}
 *       {0x104: fp+16 fp@-16 (2-byte words)}
 */
static const uint8_t v1_amd64_bytes[] = {
	0xe2, 0xde, 0x01, 0x01, 0x03, 0x00, 0xf8, 0x00,	/* preamble, abi */
	0x02, 0x00, 0x00, 0x00,		/* num_fdes 2 */
	0x05, 0x00, 0x00, 0x00,		/* num_fres 5 */
	0x16, 0x00, 0x00, 0x00,		/* fre_len 22 */
	0x00, 0x00, 0x00, 0x00,		/* fdeoff 0 */
	0x22, 0x00, 0x00, 0x00,		/* freoff 34 */
	/* FDE0: start 0x1000 - 0x2000, size 0x20, fre_off 0, 2 FREs, ADDR1 */
	0x00, 0xf0, 0xff, 0xff, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	/* FDE1: start 0x1100 - 0x2000, size 0x300, fre_off 6, 3 FREs, ADDR2 */
	0x00, 0xf1, 0xff, 0xff, 0x00, 0x03, 0x00, 0x00,
	0x06, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
	/* FRE: start, info (base sp | n << 1 | size << 5), words */
	0x00, 0x03, 0x08,
	0x04, 0x03, 0x10,
	0x00, 0x00, 0x03, 0x08,
	0x01, 0x00, 0x05, 0x10, 0xf0,
	0x04, 0x01, 0x24, 0x10, 0x00, 0xf0, 0xff,
};

static const struct sfe_fre v1a_f0[] = { FS(0, 8), FS(4, 16) };
static const struct sfe_fre v1a_f1[] = { FS(0, 8), FS(1, 16, -16),
					 FX(0x104, 0, 2, 0, 16, -16) };
static const struct sfe_fde v1a_fdes[] = {
	{ .func_start = 0x1000, .func_size = 0x20, FRES(v1a_f0) },
	{ .func_start = 0x1100, .func_size = 0x300, FRES(v1a_f1) },
};
static const struct sfe_table v1a_tab = {
	.version = 1, .flags = SFE_F_SORTED, .abi = SFE_ABI_AMD64_LE,
	.fixed_ra = -8, .addr = 0x2000, .nfdes = 2, .fdes = v1a_fdes,
};
static const struct want v1a_want[] = {
	NOENT(0x0fff),
	{ 0x1000, 0, 0x1000, 0x20, 0x1000, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x1003, 0, 0x1000, 0x20, 0x1000, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x1004, 0, 0x1000, 0x20, 0x1004, RO(X_SP, 16), RC(-8), RS, 0 },
	{ 0x101f, 0, 0x1000, 0x20, 0x1004, RO(X_SP, 16), RC(-8), RS, 0 },
	NOENT(0x1020),
	NOENT(0x10ff),
	{ 0x1100, 0, 0x1100, 0x300, 0x1100, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x1101, 0, 0x1100, 0x300, 0x1101, RO(X_SP, 16), RC(-8), RC(-16), 0 },
	{ 0x1203, 0, 0x1100, 0x300, 0x1101, RO(X_SP, 16), RC(-8), RC(-16), 0 },
	{ 0x1204, 0, 0x1100, 0x300, 0x1204, RO(X_FP, 16), RC(-8), RC(-16), 0 },
	{ 0x13ff, 0, 0x1100, 0x300, 0x1204, RO(X_FP, 16), RC(-8), RC(-16), 0 },
	NOENT(0x1400),
	NOENT(0xffffffffffffffffull),
};

/*
 * V3, AArch64 LE, PCREL, section at 0x10000.
 * FDE0: 0x400+0x10 DEFAULT, pauth key B: {0: sp+0} {4: sp+16 ra@-8 fp@-16,
 *       RA mangled}
 * FDE1: 0x500+0x8 FLEX, signal: {0: CFA = x29+16 (4-byte words),
 *       RA = *(CFA-8)}
 */
static const uint8_t v3_a64_bytes[] = {
	0xe2, 0xde, 0x03, 0x05, 0x02, 0x00, 0x00, 0x00,	/* SORTED|PCREL */
	0x02, 0x00, 0x00, 0x00,		/* num_fdes */
	0x03, 0x00, 0x00, 0x00,		/* num_fres */
	0x24, 0x00, 0x00, 0x00,		/* fre_len 36 */
	0x00, 0x00, 0x00, 0x00,		/* fdeoff */
	0x20, 0x00, 0x00, 0x00,		/* freoff 32 */
	/* idx0 at 28: 0x400 - 0x1001c = -0xfc1c */
	0xe4, 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* idx1 at 44: 0x500 - 0x1002c = -0xfb2c, attr at FRE offset 13 */
	0xd4, 0x04, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x08, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00,
	/* attr0: 2 FREs, info ADDR1 | key B, info2 DEFAULT, rep 0 */
	0x02, 0x00, 0x20, 0x00, 0x00,
	0x00, 0x03, 0x00,			/* sp+0 */
	0x04, 0x87, 0x10, 0xf8, 0xf0,		/* sp+16 -8 -16, mangled */
	/* attr1: 1 FRE, info signal | ADDR1, info2 FLEX, rep 0 */
	0x01, 0x00, 0x80, 0x01, 0x00,
	/* FRE: fp base, 4 words of 4 bytes: ctrl x29, 16, ctrl CFA, -8 */
	0x00, 0x48,
	0xe9, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0xf8, 0xff, 0xff, 0xff,
};

static const struct sfe_fre v3b_f0[] = { FS(0, 0),
					 FX(4, 1, 0, 1, 16, -8, -16) };
static const struct sfe_fre v3b_f1[] = {
	FX(0, 0, 4, 0, SFE_CTRL(A_FP, 0, 1), 16, SFE_CTRL_CFA, -8) };
static const struct sfe_fde v3b_fdes[] = {
	{ .func_start = 0x400, .func_size = 0x10, .pauth_key_b = 1,
	  FRES(v3b_f0) },
	{ .func_start = 0x500, .func_size = 0x8, .signal = 1,
	  .fde_type = SFE_FDE_FLEX, FRES(v3b_f1) },
};
static const struct sfe_table v3b_tab = {
	.version = 3, .flags = SFE_F_SORTED | SFE_F_PCREL,
	.abi = SFE_ABI_AARCH64_LE, .addr = 0x10000, .nfdes = 2,
	.fdes = v3b_fdes,
};
static const struct want v3b_want[] = {
	NOENT(0x3ff),
	{ 0x400, 0, 0x400, 0x10, 0x400, RO(A_SP, 0), RR(A_LR), RS,
	  UW_ROW_PAUTH_KEY_B },
	{ 0x404, 0, 0x400, 0x10, 0x404, RO(A_SP, 16), RC(-8), RC(-16),
	  UW_ROW_PAUTH_KEY_B | UW_ROW_RA_MANGLED },
	{ 0x40f, 0, 0x400, 0x10, 0x404, RO(A_SP, 16), RC(-8), RC(-16),
	  UW_ROW_PAUTH_KEY_B | UW_ROW_RA_MANGLED },
	NOENT(0x410),
	{ 0x500, 0, 0x500, 0x8, 0x500, RO(A_FP, 16), RC(-8), RS,
	  UW_ROW_SIGNAL },
	{ 0x507, 0, 0x500, 0x8, 0x500, RO(A_FP, 16), RC(-8), RS,
	  UW_ROW_SIGNAL },
	NOENT(0x508),
};

static void test_bytes(void)
{
	struct sec s;
	struct uw_span span;
	struct uw_sframe sf;
	bool good;

	good = build(&s, &v1a_tab) && s.len == sizeof(v1_amd64_bytes) &&
	       !memcmp(s.p, v1_amd64_bytes, s.len);
	ok(good, "encoder: V1 AMD64 table matches the hand-written bytes");
	sec_free(&s);
	good = build(&s, &v3b_tab) && s.len == sizeof(v3_a64_bytes) &&
	       !memcmp(s.p, v3_a64_bytes, s.len);
	ok(good, "encoder: V3 AArch64 DEFAULT+FLEX table matches the hand-written bytes");
	sec_free(&s);

	span = (struct uw_span){ v1_amd64_bytes, sizeof(v1_amd64_bytes),
				 0x2000 };
	good = uw_sframe_init(&sf, &span) == 0 && sf.version == 1 &&
	       sf.arch == UW_ARCH_X86_64 && sf.fixed_ra == -8 &&
	       sf.fixed_fp == 0 && sf.num_fdes == 2 && sf.num_fres == 5 &&
	       !sf.big_endian;
	ok(good, "hand bytes V1 AMD64: header decoded");
	ok(good && check_all(&sf, v1a_want, ARRAY_SIZE(v1a_want)),
	   "hand bytes V1 AMD64: rows, gaps, before first and past the end");

	span = (struct uw_span){ v3_a64_bytes, sizeof(v3_a64_bytes), 0x10000 };
	good = uw_sframe_init(&sf, &span) == 0 && sf.version == 3 &&
	       sf.arch == UW_ARCH_AARCH64 && sf.num_fdes == 2;
	ok(good, "hand bytes V3 AArch64: header decoded");
	ok(good && check_all(&sf, v3b_want, ARRAY_SIZE(v3b_want)),
	   "hand bytes V3 AArch64: DEFAULT/FLEX rows, key B, mangled RA, signal");
}

/* ------------------------------------------------------------------ */
/* 2. Versions and ABIs, through the encoder. */

/* An AMD64 table used in several versions; RA fixed at CFA-8. */
static const struct sfe_fre amd_f0[] = { FS(0, 8), FS(1, 16, -16),
					 FF(4, 16, -16), FS(0x2f, 8, -16) };
static const struct sfe_fre amd_plt[] = { FS(0, 8), FS(11, 16) };
static const struct sfe_fre amd_f2[] = { FS(0, 8), FS(2, 0x1008),
					 FS(0x120, 0x12348) };
static const struct sfe_fde amd_fdes[] = {
	{ .func_start = 0x401000, .func_size = 0x30, FRES(amd_f0) },
	{ .func_start = 0x401040, .func_size = 0x40, .pc_type = SFE_PC_MASK,
	  .rep_size = 16, FRES(amd_plt) },
	{ .func_start = 0x402000, .func_size = 0x200, FRES(amd_f2) },
};
static const struct want amd_want[] = {
	NOENT(0x400fff),
	{ 0x401000, 0, 0x401000, 0x30, 0x401000, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x401001, 0, 0x401000, 0x30, 0x401001, RO(X_SP, 16), RC(-8),
	  RC(-16), 0 },
	{ 0x401004, 0, 0x401000, 0x30, 0x401004, RO(X_FP, 16), RC(-8),
	  RC(-16), 0 },
	{ 0x40102e, 0, 0x401000, 0x30, 0x401004, RO(X_FP, 16), RC(-8),
	  RC(-16), 0 },
	{ 0x40102f, 0, 0x401000, 0x30, 0x40102f, RO(X_SP, 8), RC(-8),
	  RC(-16), 0 },
	NOENT(0x401030),
	/* PCMASK: the FRE is chosen by (pc - start) % 16. */
	{ 0x401040, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x40104a, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x40104b, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 16), RC(-8), RS, 0 },
	{ 0x401050, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x40105b, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 16), RC(-8), RS, 0 },
	{ 0x40107a, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x40107f, 0, 0x401040, 0x40, NOCHK, RO(X_SP, 16), RC(-8), RS, 0 },
	NOENT(0x401080),
	/* 2- and 4-byte words chosen by the encoder, 2-byte FRE starts. */
	{ 0x402001, 0, 0x402000, 0x200, 0x402000, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x402002, 0, 0x402000, 0x200, 0x402002, RO(X_SP, 0x1008), RC(-8),
	  RS, 0 },
	{ 0x402120, 0, 0x402000, 0x200, 0x402120, RO(X_SP, 0x12348), RC(-8),
	  RS, 0 },
	{ 0x4021ff, 0, 0x402000, 0x200, 0x402120, RO(X_SP, 0x12348), RC(-8),
	  RS, 0 },
	NOENT(0x402200),
};

static void amd_table(struct sfe_table *t, uint8_t version, uint8_t flags)
{
	memset(t, 0, sizeof(*t));
	t->version = version;
	t->flags = flags;
	t->abi = SFE_ABI_AMD64_LE;
	t->fixed_ra = -8;
	t->addr = 0x500000;
	t->nfdes = ARRAY_SIZE(amd_fdes);
	t->fdes = amd_fdes;
}

static void test_amd64_versions(void)
{
	struct sfe_table t;
	struct sec s;
	int64_t raw;
	bool good;

	amd_table(&t, 1, SFE_F_SORTED);
	VEC("V1 AMD64: PCINC, PCMASK (implied rep 16), 1/2/4-byte words", &t,
	    amd_want);
	amd_table(&t, 2, SFE_F_SORTED);
	VEC("V2 AMD64 without PCREL", &t, amd_want);
	amd_table(&t, 2, SFE_F_SORTED | SFE_F_PCREL);
	VEC("V2 AMD64 with PCREL", &t, amd_want);
	amd_table(&t, 2, SFE_F_SORTED | SFE_F_FP);
	VEC("V2 AMD64 with FRAME_POINTER flag", &t, amd_want);
	amd_table(&t, 3, SFE_F_SORTED | SFE_F_PCREL);
	VEC("V3 AMD64 DEFAULT FDEs (PCREL)", &t, amd_want);
	amd_table(&t, 3, SFE_F_SORTED);
	VEC("V3 AMD64 DEFAULT FDEs without PCREL", &t, amd_want);
	amd_table(&t, 2, SFE_F_SORTED | SFE_F_PCREL);
	t.auxhdr_len = 7;
	VEC("V2 AMD64 with a 7-byte auxiliary header", &t, amd_want);

	/* The start fields themselves, by hand. */
	amd_table(&t, 2, SFE_F_SORTED);
	good = build(&s, &t);
	raw = (int32_t)sfe_get(s.p + 28 + 20, 4, false);
	good = good && raw == 0x401040 - 0x500000;
	sec_free(&s);
	amd_table(&t, 2, SFE_F_SORTED | SFE_F_PCREL);
	good = good && build(&s, &t);
	raw = (int32_t)sfe_get(s.p + 28 + 20, 4, false);
	good = good && raw == 0x401040 - (0x500000 + 48);
	sec_free(&s);
	amd_table(&t, 3, SFE_F_SORTED | SFE_F_PCREL);
	good = good && build(&s, &t);
	raw = (int64_t)sfe_get(s.p + 28 + 16, 8, false);
	good = good && raw == 0x401040 - (0x500000 + 44);
	/* V3 attribute record of FDE1: right after FDE0's 4 FREs. */
	good = good && sfe_get(s.p + 28 + 16 + 12, 4, false) == 5 + 3 + 4 + 4 + 4;
	sec_free(&s);
	ok(good, "encoder: V2 section-relative, V2 PCREL and V3 PCREL start fields");
}

/* V3: FLEX FDEs, outermost markers, signal flag (AMD64). */
static const struct sfe_fre v3_dflt[] = { FS(0, 8), FS(1, 16, -16),
					  F0(0x10) };
static const struct sfe_fre v3_flex[] = {
	FS(0, SFE_CTRL(X_SP, 0, 1), 8),
	/* DRAP: CFA = *(rbp - 8), RA at CFA-8, FP at CFA-16. */
	FF(4, SFE_CTRL(X_FP, 1, 1), -8, SFE_CTRL_CFA, -8, SFE_CTRL_CFA, -16),
	/* CFA = r10, RA padding (fixed -8 applies), FP at CFA-16. */
	FS(8, SFE_CTRL(10, 0, 1), 0, 0, SFE_CTRL_CFA, -16),
	/* RA still in r11. */
	FS(12, SFE_CTRL(X_SP, 0, 1), 16, SFE_CTRL(11, 0, 1), 0),
	/*
	 * RA in DWARF 16 and FP = *(DWARF 17 + 8): control words 0x81 and
	 * 0x8b fit a 1-byte word only as unsigned data.
	 */
	FS(16, SFE_CTRL(X_SP, 0, 1), 16, SFE_CTRL(16, 0, 1), 0,
	   SFE_CTRL(17, 1, 1), 8),
	/* The same with 4-byte words. */
	FX(20, 1, 4, 0, SFE_CTRL(X_SP, 0, 1), 16, SFE_CTRL(16, 0, 1), 0,
	   SFE_CTRL(17, 1, 1), 8),
	/* RA = r12 + 4 (register plus offset, not a plain register). */
	FS(24, SFE_CTRL(X_SP, 0, 1), 24, SFE_CTRL(12, 0, 1), 4),
	F0(28),
};
static const struct sfe_fre v3_sig[] = { FS(0, 8) };
static const struct sfe_fde v3_fdes[] = {
	{ .func_start = 0x1000, .func_size = 0x20, FRES(v3_dflt) },
	{ .func_start = 0x1020, .func_size = 0x20, .fde_type = SFE_FDE_FLEX,
	  FRES(v3_flex) },
	{ .func_start = 0x1040, .func_size = 0x10 },	/* DEFAULT, no FREs */
	{ .func_start = 0x1050, .func_size = 0x10, .signal = 1,
	  FRES(v3_sig) },
	{ .func_start = 0x1060, .func_size = 0x10,	/* FLEX, no FREs */
	  .fde_type = SFE_FDE_FLEX },
};
static const struct want v3_want[] = {
	{ 0x1000, 0, 0x1000, 0x20, 0x1000, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x1001, 0, 0x1000, 0x20, 0x1001, RO(X_SP, 16), RC(-8), RC(-16), 0 },
	{ 0x1010, 0, 0x1000, 0x20, 0x1010, RU, RU, RU, UW_ROW_OUTERMOST },
	{ 0x101f, 0, 0x1000, 0x20, 0x1010, RU, RU, RU, UW_ROW_OUTERMOST },
	{ 0x1020, 0, 0x1020, 0x20, 0x1020, RO(X_SP, 8), RC(-8), RS, 0 },
	{ 0x1024, 0, 0x1020, 0x20, 0x1024, RD(X_FP, -8), RC(-8), RC(-16), 0 },
	{ 0x1028, 0, 0x1020, 0x20, 0x1028, RO(10, 0), RC(-8), RC(-16), 0 },
	{ 0x102c, 0, 0x1020, 0x20, 0x102c, RO(X_SP, 16), RR(11), RS, 0 },
	{ 0x1030, 0, 0x1020, 0x20, 0x1030, RO(X_SP, 16), RR(16), RD(17, 8),
	  0 },
	{ 0x1034, 0, 0x1020, 0x20, 0x1034, RO(X_SP, 16), RR(16), RD(17, 8),
	  0 },
	{ 0x1038, 0, 0x1020, 0x20, 0x1038, RO(X_SP, 24), RO(12, 4), RS, 0 },
	{ 0x103c, 0, 0x1020, 0x20, 0x103c, RU, RU, RU, UW_ROW_OUTERMOST },
	{ 0x1040, 0, 0x1040, 0x10, NOCHK, RU, RU, RU, UW_ROW_OUTERMOST },
	{ 0x104f, 0, 0x1040, 0x10, NOCHK, RU, RU, RU, UW_ROW_OUTERMOST },
	{ 0x1050, 0, 0x1050, 0x10, 0x1050, RO(X_SP, 8), RC(-8), RS,
	  UW_ROW_SIGNAL },
	NOENT(0x1060),
	NOENT(0x106f),
	NOENT(0x1070),
};

static void test_v3(void)
{
	struct sfe_table t = {
		.version = 3, .flags = SFE_F_SORTED | SFE_F_PCREL,
		.abi = SFE_ABI_AMD64_LE, .fixed_ra = -8, .addr = 0x7000,
		.nfdes = ARRAY_SIZE(v3_fdes), .fdes = v3_fdes,
	};
	struct sfe_table t2 = t;
	struct sfe_fde fdes2[ARRAY_SIZE(v3_fdes)];
	size_t i;

	VEC("V3 AMD64: DEFAULT + FLEX rules, outermost FRE and FDE, signal",
	    &t, v3_want);
	/* Everything must still work from far away (64-bit starts). */
	for (i = 0; i < ARRAY_SIZE(v3_fdes); i++) {
		fdes2[i] = v3_fdes[i];
		fdes2[i].func_start += 0x7f0000000000ull;
	}
	t2.fdes = fdes2;
	t2.addr = 0x1000;
	{
		struct want w[ARRAY_SIZE(v3_want)];

		for (i = 0; i < ARRAY_SIZE(v3_want); i++) {
			w[i] = v3_want[i];
			w[i].pc += 0x7f0000000000ull;
			if (!w[i].err) {
				w[i].fn += 0x7f0000000000ull;
				if (w[i].start != NOCHK)
					w[i].start += 0x7f0000000000ull;
			}
		}
		VEC("V3 AMD64: functions 2^47 bytes above the section", &t2, w);
	}
}

/* AArch64 LE and BE: CFA-only rows (RA in LR), RA/FP words, pauth. */
static const struct sfe_fre a64_leaf[] = { FS(0, 0) };
static const struct sfe_fre a64_f1[] = {
	FS(0, 0), FX(4, 1, 0, 1, 32, -24, -32), FX(8, 0, 0, 1, 32, -24, -32),
	FS(0x40, 16, -8), FS(0x44, 0),
};
static const struct sfe_fre a64_big[] = {
	FS(0, 0), FS(0x100, 4096, -8, -16), FS(0x10000, 0x12340, -8, -16),
};
static const struct sfe_fde a64_fdes[] = {
	{ .func_start = 0x400000, .func_size = 0x8, FRES(a64_leaf) },
	{ .func_start = 0x400010, .func_size = 0x48, .pauth_key_b = 1,
	  FRES(a64_f1) },
	{ .func_start = 0x410000, .func_size = 0x20000, FRES(a64_big) },
};
static const struct want a64_want[] = {
	{ 0x400000, 0, 0x400000, 0x8, 0x400000, RO(A_SP, 0), RR(A_LR), RS, 0 },
	{ 0x400007, 0, 0x400000, 0x8, 0x400000, RO(A_SP, 0), RR(A_LR), RS, 0 },
	NOENT(0x400008),
	{ 0x400010, 0, 0x400010, 0x48, 0x400010, RO(A_SP, 0), RR(A_LR), RS,
	  UW_ROW_PAUTH_KEY_B },
	{ 0x400014, 0, 0x400010, 0x48, 0x400014, RO(A_SP, 32), RC(-24),
	  RC(-32), UW_ROW_PAUTH_KEY_B | UW_ROW_RA_MANGLED },
	{ 0x400018, 0, 0x400010, 0x48, 0x400018, RO(A_FP, 32), RC(-24),
	  RC(-32), UW_ROW_PAUTH_KEY_B | UW_ROW_RA_MANGLED },
	{ 0x400050, 0, 0x400010, 0x48, 0x400050, RO(A_SP, 16), RC(-8), RS,
	  UW_ROW_PAUTH_KEY_B },
	{ 0x400057, 0, 0x400010, 0x48, 0x400054, RO(A_SP, 0), RR(A_LR), RS,
	  UW_ROW_PAUTH_KEY_B },
	NOENT(0x400058),
	{ 0x410000, 0, 0x410000, 0x20000, 0x410000, RO(A_SP, 0), RR(A_LR), RS,
	  0 },
	{ 0x410100, 0, 0x410000, 0x20000, 0x410100, RO(A_SP, 4096), RC(-8),
	  RC(-16), 0 },
	{ 0x41ffff, 0, 0x410000, 0x20000, 0x410100, RO(A_SP, 4096), RC(-8),
	  RC(-16), 0 },
	{ 0x420000, 0, 0x410000, 0x20000, 0x420000, RO(A_SP, 0x12340),
	  RC(-8), RC(-16), 0 },
	{ 0x42ffff, 0, 0x410000, 0x20000, 0x420000, RO(A_SP, 0x12340),
	  RC(-8), RC(-16), 0 },
	NOENT(0x430000),
};

static void test_aarch64(void)
{
	struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED,
		.abi = SFE_ABI_AARCH64_LE, .addr = 0x500000,
		.nfdes = ARRAY_SIZE(a64_fdes), .fdes = a64_fdes,
	};
	struct sec s;
	bool good;

	VEC("V2 AArch64 LE: LR rows, RA/FP words, key B, RA mangled, ADDR4",
	    &t, a64_want);
	t.version = 1;
	VEC("V1 AArch64 LE", &t, a64_want);
	t.version = 3;
	t.flags |= SFE_F_PCREL;
	VEC("V3 AArch64 LE", &t, a64_want);

	t.version = 2;
	t.flags = SFE_F_SORTED | SFE_F_PCREL;
	t.abi = SFE_ABI_AARCH64_BE;
	t.big_endian = true;
	good = build_init(&s, &t);
	good = good && s.p[0] == 0xde && s.p[1] == 0xe2 && s.sf.big_endian &&
	       s.sf.arch == UW_ARCH_AARCH64 &&
	       sfe_get(s.p + 8, 4, true) == ARRAY_SIZE(a64_fdes);
	good = good && check_all(&s.sf, a64_want, ARRAY_SIZE(a64_want));
	ok(good, "V2 AArch64 BE: foreign-endian table decoded on this host");
	sec_free(&s);
	t.version = 3;
	VEC("V3 AArch64 BE", &t, a64_want);
	t.version = 1;
	t.flags = SFE_F_SORTED;
	VEC("V1 AArch64 BE", &t, a64_want);
}

/* s390x (V2, big-endian): scaled CFA, register words, RA padding. */
static const struct sfe_fre z_f0[] = {
	FS(0, 0),			/* CFA = r15 + 160, RA in r14 */
	FS(6, 20, -48, -56),		/* CFA = r15 + 320 */
	FS(10, 20, 0, -72),		/* RA padding: RA still in r14 */
	FS(14, 20, (16 << 1) | 1, (17 << 1) | 1),	/* RA in f1, FP in f3 */
	FF(18, 5, -48, -56),		/* CFA = r11 + 200 */
	FS(22, -2),			/* CFA = r15 + 144 */
	FX(26, 1, 2, 0, 1000, -48),	/* 2-byte words: CFA = r15 + 8160 */
};
static const struct sfe_fde z_fdes[] = {
	{ .func_start = 0x1000000, .func_size = 0x40, FRES(z_f0) },
};
static const struct want z_want[] = {
	{ 0x1000000, 0, 0x1000000, 0x40, 0x1000000, RO(Z_SP, 160), RR(Z_RA),
	  RS, 0 },
	{ 0x1000006, 0, 0x1000000, 0x40, 0x1000006, RO(Z_SP, 320), RC(-48),
	  RC(-56), 0 },
	{ 0x100000a, 0, 0x1000000, 0x40, 0x100000a, RO(Z_SP, 320), RR(Z_RA),
	  RC(-72), 0 },
	{ 0x100000e, 0, 0x1000000, 0x40, 0x100000e, RO(Z_SP, 320), RR(16),
	  RR(17), 0 },
	{ 0x1000012, 0, 0x1000000, 0x40, 0x1000012, RO(Z_FP, 200), RC(-48),
	  RC(-56), 0 },
	{ 0x1000016, 0, 0x1000000, 0x40, 0x1000016, RO(Z_SP, 144), RR(Z_RA),
	  RS, 0 },
	{ 0x100003f, 0, 0x1000000, 0x40, 0x100001a, RO(Z_SP, 8160), RC(-48),
	  RS, 0 },
	NOENT(0x1000040),
};

/* V3 s390x: DEFAULT words and FLEX pairs; FLEX CFA offsets are scaled too. */
static const struct sfe_fre z3_dflt[] = { FS(0, 0), FS(6, 20, -48, -56),
					  FS(10, 20, 0, -72) };
static const struct sfe_fre z3_flex[] = {
	FS(0, SFE_CTRL(Z_SP, 0, 1), 0),
	FS(4, SFE_CTRL(Z_SP, 0, 1), 20, SFE_CTRL(16, 0, 1), 0,
	   SFE_CTRL(17, 0, 1), 0),
	FS(8, SFE_CTRL(Z_FP, 0, 1), 5, SFE_CTRL_CFA, -48, SFE_CTRL_CFA, -56),
};
static const struct sfe_fde z3_fdes[] = {
	{ .func_start = 0x1000000, .func_size = 0x10, FRES(z3_dflt) },
	{ .func_start = 0x1000010, .func_size = 0x10,
	  .fde_type = SFE_FDE_FLEX, FRES(z3_flex) },
};
static const struct want z3_want[] = {
	{ 0x1000000, 0, 0x1000000, 0x10, 0x1000000, RO(Z_SP, 160), RR(Z_RA),
	  RS, 0 },
	{ 0x1000006, 0, 0x1000000, 0x10, 0x1000006, RO(Z_SP, 320), RC(-48),
	  RC(-56), 0 },
	{ 0x100000a, 0, 0x1000000, 0x10, 0x100000a, RO(Z_SP, 320), RR(Z_RA),
	  RC(-72), 0 },
	{ 0x1000010, 0, 0x1000010, 0x10, 0x1000010, RO(Z_SP, 160), RR(Z_RA),
	  RS, 0 },
	{ 0x1000014, 0, 0x1000010, 0x10, 0x1000014, RO(Z_SP, 320), RR(16),
	  RR(17), 0 },
	{ 0x100001f, 0, 0x1000010, 0x10, 0x1000018, RO(Z_FP, 200), RC(-48),
	  RC(-56), 0 },
};

static void test_s390x(void)
{
	struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED | SFE_F_PCREL,
		.abi = SFE_ABI_S390X_BE, .big_endian = true,
		.addr = 0x2000000, .nfdes = 1, .fdes = z_fdes,
	};
	struct sec s;

	VEC("V2 s390x: CFA word*8+160, register words reg<<1|1, RA padding 0",
	    &t, z_want);
	t.version = 3;
	t.fdes = z3_fdes;
	t.nfdes = ARRAY_SIZE(z3_fdes);
	VEC("V3 s390x: DEFAULT words, FLEX pairs with scaled CFA and FPR registers",
	    &t, z3_want);
	t.version = 1;
	t.flags = SFE_F_SORTED;
	t.fdes = z_fdes;
	t.nfdes = ARRAY_SIZE(z_fdes);
	build(&s, &t);
	ok(sec_init(&s) == UW_EHEADER, "V1 s390x refused (ABI added in V2)");
	sec_free(&s);
	t.version = 2;
	t.big_endian = false;
	build(&s, &t);
	ok(sec_init(&s) == UW_EHEADER, "little-endian s390x table refused");
	sec_free(&s);
}

/* Fixed FP offset in the header. */
static const struct sfe_fre ffp_f0[] = { FS(0, 8), FS(1, 16), FF(4, 16) };
static const struct sfe_fde ffp_fdes[] = {
	{ .func_start = 0x1000, .func_size = 0x10, FRES(ffp_f0) },
};
static const struct want ffp_want[] = {
	{ 0x1000, 0, 0x1000, 0x10, 0x1000, RO(X_SP, 8), RC(-8), RC(-16), 0 },
	{ 0x1004, 0, 0x1000, 0x10, 0x1004, RO(X_FP, 16), RC(-8), RC(-16), 0 },
};
static const struct sfe_fre fra_f0[] = { FS(0, 16), FS(4, 32, -24) };
static const struct sfe_fde fra_fdes[] = {
	{ .func_start = 0x1000, .func_size = 0x10, FRES(fra_f0) },
};
static const struct want fra_want[] = {
	{ 0x1000, 0, 0x1000, 0x10, 0x1000, RO(A_SP, 16), RC(-16), RS, 0 },
	{ 0x1004, 0, 0x1000, 0x10, 0x1004, RO(A_SP, 32), RC(-16), RC(-24), 0 },
};

static void test_fixed(void)
{
	struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED, .abi = SFE_ABI_AMD64_LE,
		.fixed_fp = -16, .fixed_ra = -8, .addr = 0x8000, .nfdes = 1,
		.fdes = ffp_fdes,
	};

	VEC("fixed FP offset (CFA-16) and fixed RA (CFA-8) from the header",
	    &t, ffp_want);
	t.abi = SFE_ABI_AARCH64_LE;
	t.fixed_fp = 0;
	t.fixed_ra = -16;
	t.fdes = fra_fdes;
	VEC("AArch64 with a fixed RA offset: the FP is the second word", &t,
	    fra_want);
}

/* Every FRE start width times every data word width. */
static void test_sizes(void)
{
	static const uint8_t asz[3] = { 1, 2, 4 }, wsz[3] = { 1, 2, 4 };
	unsigned int a, w;

	for (a = 0; a < 3; a++) {
		for (w = 0; w < 3; w++) {
			uint32_t second = asz[a] == 1 ? 0x80 :
					  asz[a] == 2 ? 0x8000 : 0x10000;
			struct sfe_fre fres[2] = {
				FX(0, 1, wsz[w], 0, 8, -16),
				FX(second, 0, wsz[w], 0, -16, -8, -24),
			};
			struct sfe_fde fde = {
				.func_start = 0x10000, .func_size = 0x20000,
				.addr_size = asz[a], FRES(fres),
			};
			struct sfe_table t = {
				.version = 2, .flags = SFE_F_SORTED,
				.abi = SFE_ABI_AARCH64_LE, .addr = 0x1000,
				.nfdes = 1, .fdes = &fde,
			};
			struct want want[] = {
				{ 0x10000, 0, 0x10000, 0x20000, 0x10000,
				  RO(A_SP, 8), RC(-16), RS, 0 },
				{ 0x10000 + second - 1, 0, 0x10000, 0x20000,
				  0x10000, RO(A_SP, 8), RC(-16), RS, 0 },
				{ 0x10000 + second, 0, 0x10000, 0x20000,
				  0x10000 + second, RO(A_FP, -16), RC(-8),
				  RC(-24), 0 },
				{ 0x2ffff, 0, 0x10000, 0x20000,
				  0x10000 + second, RO(A_FP, -16), RC(-8),
				  RC(-24), 0 },
			};
			struct uw_sframe_fde d;
			struct uw_sframe_fre f;
			struct sec s;
			uint32_t off;
			bool good = build_init(&s, &t);

			good = good && !uw_sframe_fde(&s.sf, 0, &d) &&
			       d.fre_type == a;
			off = d.fre_off;
			good = good && !uw_sframe_fre(&s.sf, &d, &off, &f) &&
			       f.word_size == wsz[w] && f.nwords == 2 &&
			       f.w[0] == 8 && f.w[1] == -16 &&
			       off == asz[a] + 1 + 2u * wsz[w];
			good = good && check_all(&s.sf, want, ARRAY_SIZE(want));
			ok(good, "FRE type ADDR%u with %u-byte words",
			   asz[a], wsz[w]);
			sec_free(&s);
		}
	}
}

/* ------------------------------------------------------------------ */
/* 3. Binary search over many FDEs against a linear oracle. */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

static void test_many(void)
{
	enum { N = 1000 };
	static struct sfe_fde fdes[N];
	static struct sfe_fre fres[N][3];
	static const struct { uint8_t v, flags; const char *name; } vars[] = {
		{ 1, SFE_F_SORTED, "V1" },
		{ 2, SFE_F_SORTED, "V2" },
		{ 2, SFE_F_SORTED | SFE_F_PCREL, "V2 PCREL" },
		{ 3, SFE_F_SORTED | SFE_F_PCREL, "V3" },
	};
	uint64_t addr = 0x10000, lo, hi, pc;
	unsigned int i, j, m, v;

	for (i = 0; i < N; i++) {
		uint32_t size = 1 + rnd(64), nf = 1 + rnd(3);

		addr += rnd(4) ? 0 : rnd(17);	/* mostly adjacent, some gaps */
		fdes[i] = (struct sfe_fde){ .func_start = addr,
					    .func_size = size,
					    .nfres = nf, .fres = fres[i] };
		for (j = 0, m = 0; j < nf; j++) {
			/* Start offsets strictly increasing, < size. */
			uint32_t st = j * size / nf;

			if (m && st <= fres[i][m - 1].start)
				continue;
			fres[i][m] = (struct sfe_fre)FS(st, 8 * (int32_t)(m + 1));
			m++;
		}
		fdes[i].nfres = m;
		addr += size;
	}
	lo = fdes[0].func_start - 20;
	hi = addr + 20;

	for (v = 0; v < ARRAY_SIZE(vars); v++) {
		struct sfe_table t = {
			.version = vars[v].v, .flags = vars[v].flags,
			.abi = SFE_ABI_AMD64_LE, .fixed_ra = -8,
			.addr = 0x20000, .nfdes = N, .fdes = fdes,
		};
		unsigned int bad = 0, k = 0;
		struct sec s;
		bool good = build_init(&s, &t);

		for (pc = lo; good && pc < hi; pc++) {
			struct uw_row row;
			int want_err = UW_ENOENT, err;
			int32_t want_cfa = 0;

			/* Oracle: linear scan (k only moves forward). */
			while (k < N && fdes[k].func_start + fdes[k].func_size <= pc)
				k++;
			if (k < N && pc >= fdes[k].func_start) {
				const struct sfe_fde *f = &fdes[k];

				want_err = 0;
				for (j = 0; j < f->nfres; j++)
					if (f->fres[j].start <= pc - f->func_start)
						want_cfa = f->fres[j].w[0];
			}
			err = uw_sframe_find(&s.sf, pc, &row);
			if (err != want_err ||
			    (!err && (row.fn_start != fdes[k].func_start ||
				      row.cfa.off != want_cfa))) {
				if (bad++ < 5)
					diag("pc %#llx: err %d fn %#llx cfa %d; want err %d cfa %d",
					     (unsigned long long)pc, err,
					     (unsigned long long)row.fn_start,
					     row.cfa.off, want_err, want_cfa);
			}
		}
		ok(good && !bad, "%s: binary search over %d FDEs agrees with a linear scan at %llu pcs",
		   vars[v].name, N, (unsigned long long)(hi - lo));
		sec_free(&s);
	}
}

/* ------------------------------------------------------------------ */
/* 4. Walks over a synthetic stack. */

/*
 * The stack's bias: the walks run once with the stack at 0x7fe000, and
 * once above 4 GiB, where the walker's fast loops take the frames they
 * can (below 2^32 they leave every frame to the general step through an
 * accessor): the same frames, and uwt_walk() compares each walk with the
 * fast loops off.
 */
static uint64_t sb;
static const char *sb_tag = "";
#define S(a)	(sb + (a))

struct image {
	uint64_t base;
	size_t size;
	uint8_t *bytes;
	bool be;
	uint64_t fault_lo, fault_hi;	/* reads touching [lo, hi) fail */
	unsigned int reads;
};

static int image_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct image *im = ctx;

	im->reads++;
	if (addr < im->base || addr - im->base > im->size ||
	    len > im->size - (addr - im->base))
		return -1;
	if (addr < im->fault_hi && addr + len > im->fault_lo)
		return -1;
	memcpy(dst, im->bytes + (addr - im->base), len);
	return 0;
}

static void poke(struct image *im, uint64_t addr, uint64_t v)
{
	if (addr < im->base || addr + 8 > im->base + im->size) {
		diag("poke %#llx outside the image", (unsigned long long)addr);
		exit(2);
	}
	sfe_put(im->bytes + (addr - im->base), 8, v, im->be);
}

struct walk_want {
	size_t n;
	uint64_t pc[6], sp[6];
	uint8_t src[6];
	uint8_t stop;
	int err;
};

static bool check_walk(const struct uw_walk_cfg *cfg, const struct uw_regs *r,
		       size_t max, const struct walk_want *w)
{
	struct uw_frame fr[16];
	struct uw_walk_result res;
	struct uw_cursor cur;
	size_t n, i;
	bool good;

	memset(fr, 0xa5, sizeof(fr));
	n = uwt_walk(&cur, cfg, r, fr, max, &res);
	good = n == w->n && res.nframes == n && res.stop == w->stop &&
	       res.err == w->err;
	for (i = 0; good && i < n; i++)
		good = fr[i].pc == w->pc[i] && fr[i].sp == w->sp[i] &&
		       fr[i].source == w->src[i];
	if (!good) {
		diag("walk: %zu frames, stop %s, err %d; want %zu, %s, %d", n,
		     uw_stop_name(res.stop), res.err, w->n,
		     uw_stop_name(w->stop), w->err);
		for (i = 0; i < n; i++)
			diag("  #%zu pc %#llx sp %#llx %s", i,
			     (unsigned long long)fr[i].pc,
			     (unsigned long long)fr[i].sp,
			     uw_source_name(fr[i].source));
	}
	return good;
}

/* x86-64: f0 -> f1 (rbp frame) -> f2 -> f3 (outermost). */
static const struct sfe_fre xw_f0[] = { FS(0, 8), FS(0x10, 32, -16) };
static const struct sfe_fre xw_f1[] = { FS(0, 8), FS(1, 16, -16),
					FF(4, 16, -16) };
/* The FRE at 0x30 starts at f1's return address: lookups must use pc-1. */
static const struct sfe_fre xw_f2[] = { FS(0, 8), FS(0x20, 16), FS(0x30, 64) };
static const struct sfe_fre xw_f3[] = { F0(0) };
static const struct sfe_fde xw_fdes[] = {
	{ .func_start = 0x401000, .func_size = 0x100, FRES(xw_f0) },
	{ .func_start = 0x402000, .func_size = 0x100, FRES(xw_f1) },
	{ .func_start = 0x403000, .func_size = 0x100, FRES(xw_f2) },
	{ .func_start = 0x404000, .func_size = 0x100, FRES(xw_f3) },
};

static void x86_stack(struct image *im)
{
	memset(im->bytes, 0, im->size);
	poke(im, S(0x7ff010), S(0x7ff0f0));	/* f0 saved f1's rbp */
	poke(im, S(0x7ff018), 0x402020);	/* return into f1 */
	poke(im, S(0x7ff0f0), 0);		/* f1 saved rbp = 0 */
	poke(im, S(0x7ff0f8), 0x403030);	/* return into f2 */
	poke(im, S(0x7ff108), 0x404005);	/* return into f3 */
}

static void test_walk_x86_64(void)
{
	struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED | SFE_F_PCREL,
		.abi = SFE_ABI_AMD64_LE, .fixed_ra = -8, .addr = 0x600000,
		.nfdes = ARRAY_SIZE(xw_fdes), .fdes = xw_fdes,
	};
	static uint8_t stack[0x2000];
	struct image im = { .base = S(0x7fe000), .size = sizeof(stack),
			    .bytes = stack };
	struct uw_module mod = { .start = 0x401000, .end = 0x405000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_X86_64, .mods = &mod, .nmods = 1,
		.mem = { image_read, &im },
	};
	struct uw_regs regs = { .valid = 0 };
	const struct walk_want full = {
		4, { 0x401010, 0x402020, 0x403030, 0x404005 },
		{ S(0x7ff000), S(0x7ff020), S(0x7ff100), S(0x7ff110) },
		{ UW_SRC_SFRAME, UW_SRC_SFRAME, UW_SRC_SFRAME, UW_SRC_NONE },
		UW_STOP_OUTERMOST, 0,
	};
	struct walk_want w;
	struct sec s;

	if (!build_init(&s, &t)) {
		ok(false, "x86-64 walk%s: table", sb_tag);
		return;
	}
	mod.sframe = &s.sf;
	x86_stack(&im);
	uw_reg_set(&regs, UW_X86_64_RIP, 0x401010);
	uw_reg_set(&regs, UW_X86_64_RSP, S(0x7ff000));
	uw_reg_set(&regs, UW_X86_64_RBP, S(0x7ff0f0));
	ok(check_walk(&cfg, &regs, 16, &full),
	   "x86-64 walk%s: 4 frames through sp and rbp rows, stops at the outermost marker", sb_tag);

	im.fault_lo = S(0x7ff0f8);
	im.fault_hi = S(0x7ff100);
	w = (struct walk_want){ 2, { 0x401010, 0x402020 },
				{ S(0x7ff000), S(0x7ff020) },
				{ UW_SRC_SFRAME, UW_SRC_NONE },
				UW_STOP_READ_FAULT, UW_EREAD };
	ok(check_walk(&cfg, &regs, 16, &w),
	   "x86-64 walk%s: unreadable return-address slot stops with a read fault", sb_tag);
	im.fault_lo = im.fault_hi = 0;

	cfg.stack_lo = S(0x7ff000);
	cfg.stack_hi = S(0x7ff100);
	w = (struct walk_want){ 3, { 0x401010, 0x402020, 0x403030 },
				{ S(0x7ff000), S(0x7ff020), S(0x7ff100) },
				{ UW_SRC_SFRAME, UW_SRC_SFRAME, UW_SRC_NONE },
				UW_STOP_READ_FAULT, UW_ESTACK };
	ok(check_walk(&cfg, &regs, 16, &w),
	   "x86-64 walk%s: a read above the stack bounds stops the walk", sb_tag);
	cfg.stack_lo = cfg.stack_hi = 0;

	w = full;
	w.n = 3;
	w.src[2] = UW_SRC_NONE;
	w.stop = UW_STOP_DEPTH;
	w.err = UW_EDEPTH;
	ok(check_walk(&cfg, &regs, 3, &w),
	   "x86-64 walk%s: a 3-frame array stops with the depth limit", sb_tag);
	cfg.max_depth = 2;
	w.n = 2;
	w.src[1] = UW_SRC_NONE;
	ok(check_walk(&cfg, &regs, 16, &w),
	   "x86-64 walk%s: max_depth 2 stops after 2 frames", sb_tag);
	cfg.max_depth = 0;

	/* f0 saved an rbp below its own frame: f1's CFA moves down. */
	poke(&im, S(0x7ff010), S(0x7fe100));
	poke(&im, S(0x7fe108), 0x402020);
	w = (struct walk_want){ 2, { 0x401010, 0x402020 },
				{ S(0x7ff000), S(0x7ff020) },
				{ UW_SRC_SFRAME, UW_SRC_NONE },
				UW_STOP_NO_PROGRESS, UW_ENOPROGRESS };
	ok(check_walk(&cfg, &regs, 16, &w),
	   "x86-64 walk%s: a CFA below the stack pointer stops with no progress", sb_tag);
	x86_stack(&im);

	/* A return address that loops into a zero-sized CFA step. */
	{
		static const struct sfe_fre loop_f[] = { FS(0, 0) };
		static const struct sfe_fde loop_fdes[] = {
			{ .func_start = 0x401000, .func_size = 0x100,
			  FRES(loop_f) },
		};
		struct sfe_table lt = t;
		struct sec ls;

		lt.nfdes = 1;
		lt.fdes = loop_fdes;
		build_init(&ls, &lt);
		mod.sframe = &ls.sf;
		poke(&im, S(0x7feff8), 0x401010);
		w = (struct walk_want){ 1, { 0x401010 }, { S(0x7ff000) },
					{ UW_SRC_NONE },
					UW_STOP_NO_PROGRESS, UW_ENOPROGRESS };
		ok(check_walk(&cfg, &regs, 16, &w),
		   "x86-64 walk%s: CFA = sp (RA at sp-8, a loop) stops with no progress", sb_tag);
		mod.sframe = &s.sf;
		sec_free(&ls);
		x86_stack(&im);
	}

	/* Frame-pointer fallback: frame 0 is outside every table. */
	{
		struct uw_regs r2 = { .valid = 0 };

		uw_reg_set(&r2, UW_X86_64_RIP, 0x300000);
		uw_reg_set(&r2, UW_X86_64_RSP, S(0x7ff000));
		uw_reg_set(&r2, UW_X86_64_RBP, S(0x7ff040));
		poke(&im, S(0x7ff040), S(0x7ff0f0));
		poke(&im, S(0x7ff048), 0x402020);
		w = (struct walk_want){
			4, { 0x300000, 0x402020, 0x403030, 0x404005 },
			{ S(0x7ff000), S(0x7ff050), S(0x7ff100), S(0x7ff110) },
			{ UW_SRC_FP, UW_SRC_SFRAME, UW_SRC_SFRAME,
			  UW_SRC_NONE },
			UW_STOP_OUTERMOST, 0 };
		ok(check_walk(&cfg, &r2, 16, &w),
		   "x86-64 walk%s: frame-pointer fallback where no table covers the pc", sb_tag);

		cfg.flags = UW_WALK_NO_FP;
		w = (struct walk_want){ 1, { 0x300000 }, { S(0x7ff000) },
					{ UW_SRC_NONE }, UW_STOP_NO_INFO,
					UW_ENOENT };
		ok(check_walk(&cfg, &r2, 16, &w),
		   "x86-64 walk%s: no table and UW_WALK_NO_FP: no info", sb_tag);
		cfg.flags = 0;

		uw_reg_set(&r2, UW_X86_64_RBP, 0);
		w = (struct walk_want){ 1, { 0x300000 }, { S(0x7ff000) },
					{ UW_SRC_NONE }, UW_STOP_END, 0 };
		ok(check_walk(&cfg, &r2, 16, &w),
		   "x86-64 walk%s: frame-pointer fallback with rbp 0 ends the walk", sb_tag);

		/*
		 * No table, and rbp is no frame pointer (misaligned, as past
		 * main in a libc built without them; or pointing below sp):
		 * the walk is out of unwind information, not stuck.
		 */
		uw_reg_set(&r2, UW_X86_64_RBP, S(0x7ff043));
		w = (struct walk_want){ 1, { 0x300000 }, { S(0x7ff000) },
					{ UW_SRC_NONE }, UW_STOP_NO_INFO,
					UW_EALIGN };
		ok(check_walk(&cfg, &r2, 16, &w),
		   "x86-64 walk%s: a misaligned rbp where no table covers the pc: no info", sb_tag);
		uw_reg_set(&r2, UW_X86_64_RBP, S(0x7fef00));
		poke(&im, S(0x7fef00), S(0x7ff0f0));
		poke(&im, S(0x7fef08), 0x402020);
		w = (struct walk_want){ 1, { 0x300000 }, { S(0x7ff000) },
					{ UW_SRC_NONE }, UW_STOP_NO_INFO,
					UW_ENOPROGRESS };
		ok(check_walk(&cfg, &r2, 16, &w),
		   "x86-64 walk%s: an rbp below sp where no table covers the pc: no info", sb_tag);
		x86_stack(&im);
	}
	sec_free(&s);
}

/* AArch64: leaf (RA in LR) -> g1 -> g2 -> g3 (outermost). */
static const struct sfe_fre aw_g0[] = { FS(0, 0) };
/* The FRE at 0xc starts at the leaf's return address (pc-1 lookups). */
static const struct sfe_fre aw_g1[] = { FS(0, 0), FS(4, 32, -24, -32),
					FX(8, 0, 0, 1, 32, -24, -32),
					FS(0xc, 0) };
static const struct sfe_fre aw_g2[] = { FS(0, 0), FS(4, 16, -8, -16),
					FF(8, 16, -8, -16) };
static const struct sfe_fre aw_g3[] = { F0(0) };
static const struct sfe_fde aw_fdes[] = {
	{ .func_start = 0x401000, .func_size = 0x40, FRES(aw_g0) },
	{ .func_start = 0x402000, .func_size = 0x100, FRES(aw_g1) },
	{ .func_start = 0x403000, .func_size = 0x100, FRES(aw_g2) },
	{ .func_start = 0x404000, .func_size = 0x100, FRES(aw_g3) },
};

static void aarch64_walk(bool be)
{
	struct sfe_table t = {
		.version = 3, .flags = SFE_F_SORTED | SFE_F_PCREL,
		.abi = be ? SFE_ABI_AARCH64_BE : SFE_ABI_AARCH64_LE,
		.big_endian = be, .addr = 0x600000,
		.nfdes = ARRAY_SIZE(aw_fdes), .fdes = aw_fdes,
	};
	static uint8_t stack[0x1000];
	struct image im = { .base = S(0x7ff000), .size = sizeof(stack),
			    .bytes = stack, .be = be };
	struct uw_module mod = { .start = 0x401000, .end = 0x405000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_AARCH64, .big_endian = be, .mods = &mod,
		.nmods = 1, .mem = { image_read, &im },
		.pac_mask = 0xff80000000000000ull,
	};
	struct uw_regs regs = { .valid = 0 };
	const char *e = be ? (sb ? "BE, stack above 4 GiB" : "BE") :
			       (sb ? "LE, stack above 4 GiB" : "LE");
	struct walk_want w = {
		4, { 0x401008, 0x40200c, 0x403010, 0x404008 },
		{ S(0x7ff000), S(0x7ff000), S(0x7ff020), S(0x7ff050) },
		{ UW_SRC_SFRAME, UW_SRC_SFRAME, UW_SRC_SFRAME, UW_SRC_NONE },
		UW_STOP_OUTERMOST, 0,
	};
	struct sec s;

	if (!build_init(&s, &t)) {
		ok(false, "AArch64 %s walk: table", e);
		return;
	}
	mod.sframe = &s.sf;
	memset(stack, 0, sizeof(stack));
	poke(&im, S(0x7ff000), S(0x7ff040));		/* g1: saved x29 */
	/* g1: saved x30, signed (RA mangled in that row) */
	poke(&im, S(0x7ff008), 0x5a00000000403010ull);
	poke(&im, S(0x7ff040), 0);			/* g2: saved x29 */
	poke(&im, S(0x7ff048), 0x404008);		/* g2: saved x30 */
	uw_reg_set(&regs, UW_AARCH64_PC, 0x401008);
	uw_reg_set(&regs, UW_AARCH64_SP, S(0x7ff000));
	uw_reg_set(&regs, UW_AARCH64_X30, 0x40200c);
	uw_reg_set(&regs, UW_AARCH64_X29, S(0x7ff000));
	ok(check_walk(&cfg, &regs, 16, &w),
	   "AArch64 %s walk: leaf RA in LR, x29 rows, PAC bits stripped, outermost",
	   e);

	/* g1 returns into the leaf: its LR rule cannot be used there. */
	poke(&im, S(0x7ff008), 0x401010);
	w = (struct walk_want){ 3, { 0x401008, 0x40200c, 0x401010 },
				{ S(0x7ff000), S(0x7ff000), S(0x7ff020) },
				{ UW_SRC_SFRAME, UW_SRC_SFRAME, UW_SRC_NONE },
				UW_STOP_NO_INFO, UW_EREG };
	ok(check_walk(&cfg, &regs, 16, &w),
	   "AArch64 %s walk: an RA-in-LR row below the first frame has no info",
	   e);
	sec_free(&s);
}

/* ------------------------------------------------------------------ */
/* 5. Hostile tables. */

/* A copy of s truncated or patched, in an exact-size heap buffer. */
static int init_copy(const uint8_t *p, size_t len, uint64_t addr,
		     struct uw_sframe *sf, uint8_t **keep)
{
	uint8_t *c = malloc(len ? len : 1);
	struct uw_span span = { c, len, addr };

	memcpy(c, p, len);
	*keep = c;
	return uw_sframe_init(sf, &span);
}

/* A small valid V2 AMD64 table to break in many ways. */
static const struct sfe_fre h_f0[] = { FS(0, 8), FS(1, 16, -16),
				       FF(4, 16, -16) };
static const struct sfe_fre h_f1[] = { FS(0, 8), FS(3, 24) };
static const struct sfe_fde h_fdes[] = {
	{ .func_start = 0x1000, .func_size = 0x20, FRES(h_f0) },
	{ .func_start = 0x1020, .func_size = 0x10, FRES(h_f1) },
};

static void h_table(struct sfe_table *t, uint8_t version)
{
	*t = (struct sfe_table){
		.version = version,
		.flags = SFE_F_SORTED | (version > 1 ? SFE_F_PCREL : 0),
		.abi = SFE_ABI_AMD64_LE, .fixed_ra = -8, .addr = 0x4000,
		.nfdes = ARRAY_SIZE(h_fdes), .fdes = h_fdes,
	};
}

/* Result of uw_sframe_find at pc on a patched copy (init must pass). */
static int find_patched(const struct sec *s, uint64_t pc, int *init_err)
{
	struct uw_sframe sf;
	struct uw_row row;
	uint8_t *c;
	int err;

	*init_err = init_copy(s->p, s->len, s->addr, &sf, &c);
	err = *init_err ? *init_err : uw_sframe_find(&sf, pc, &row);
	free(c);
	return err;
}

static void expect_init(const char *what, const struct sec *s, int want)
{
	struct uw_sframe sf;
	uint8_t *c;
	int err = init_copy(s->p, s->len, s->addr, &sf, &c);

	if (!ok(err == want, "hostile: %s -> %s", what, uw_strerror(want)))
		diag("got %d (%s)", err, uw_strerror(err));
	free(c);
}

static void expect_find(const char *what, const struct sec *s, uint64_t pc,
			int want)
{
	int ierr, err = find_patched(s, pc, &ierr);

	if (!ok(!ierr && err == want, "hostile: %s -> %s", what,
		uw_strerror(want)))
		diag("init %d, find %d (%s)", ierr, err, uw_strerror(err));
}

static void put8(struct sec *s, uint32_t off, uint8_t v)
{
	s->p[off] = v;
}

static void put32(struct sec *s, uint32_t off, uint32_t v)
{
	sfe_put(s->p + off, 4, v, s->be);
}

/* One FDE, or none, is sorted whatever the flag says (gas's objects). */
static void test_unsorted_small(void)
{
	static const struct {
		uint8_t version, flags, nfdes;
		const char *what;
	} cases[] = {
		{ 1, 0, 1, "V1 unsorted, one FDE" },
		{ 3, SFE_F_PCREL, 1, "V3 unsorted, one FDE" },
		{ 2, 0, 0, "V2 unsorted, no FDE" },
	};
	struct sfe_table t;
	struct sec s;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		h_table(&t, cases[i].version);
		t.flags = cases[i].flags;
		t.nfdes = cases[i].nfdes;
		build(&s, &t);
		expect_init(cases[i].what, &s, 0);
		if (cases[i].nfdes)
			ok(find_patched(&s, 0x1000, &err) == 0 && err == 0,
			   "%s: its first byte is found", cases[i].what);
		sec_free(&s);
	}
}

static void test_hostile_header(void)
{
	struct sfe_table t;
	struct uw_sframe sf;
	struct sec s;
	uint8_t *c;
	size_t len;
	bool good = true;
	int err;

	h_table(&t, 2);
	build(&s, &t);
	for (len = 0; len < UW_SFRAME_HDR_SIZE; len++) {
		err = init_copy(s.p, len, s.addr, &sf, &c);
		free(c);
		if (err != UW_EBOUNDS) {
			diag("length %zu: %d", len, err);
			good = false;
		}
	}
	ok(good, "hostile: headers truncated to every length 0..27 -> %s",
	   uw_strerror(UW_EBOUNDS));
	good = true;
	for (len = UW_SFRAME_HDR_SIZE; len < s.len; len++) {
		err = init_copy(s.p, len, s.addr, &sf, &c);
		free(c);
		if (err != UW_EHEADER) {
			diag("length %zu: %d", len, err);
			good = false;
		}
	}
	ok(good, "hostile: sections truncated inside the FDE/FRE subsections -> %s",
	   uw_strerror(UW_EHEADER));
	{
		struct uw_span span = { NULL, 100, 0 };

		ok(uw_sframe_init(&sf, &span) == UW_EINVAL &&
		   uw_sframe_init(&sf, NULL) == UW_EINVAL,
		   "hostile: NULL data or span -> %s", uw_strerror(UW_EINVAL));
	}

	put8(&s, 0, 0xde);
	put8(&s, 1, 0xde);
	expect_init("bad magic", &s, UW_EMAGIC);
	put8(&s, 0, 0xe2);
	put8(&s, 2, 0);
	expect_init("version 0", &s, UW_EVERSION);
	put8(&s, 2, 4);
	expect_init("version 4", &s, UW_EVERSION);
	put8(&s, 2, 0xff);
	expect_init("version 255", &s, UW_EVERSION);
	put8(&s, 2, 2);
	put8(&s, 3, SFE_F_SORTED | 0x8);
	expect_init("V2 with undefined flag 0x8", &s, UW_EHEADER);
	put8(&s, 3, SFE_F_PCREL);
	expect_init("V2 without FDE_SORTED", &s, UW_EUNSORTED);
	put8(&s, 3, SFE_F_SORTED | SFE_F_PCREL);
	put8(&s, 4, 0);
	expect_init("ABI 0", &s, UW_EARCH);
	put8(&s, 4, 5);
	expect_init("ABI 5", &s, UW_EARCH);
	put8(&s, 4, SFE_ABI_AARCH64_BE);
	expect_init("AArch64 BE ABI in a little-endian table", &s, UW_EHEADER);
	put8(&s, 4, SFE_ABI_AMD64_LE);
	put8(&s, 7, 0xff);
	expect_init("auxhdr_len 255 past the end", &s, UW_EHEADER);
	put8(&s, 7, 0);
	put32(&s, 8, 0x7fffffff);
	expect_init("num_fdes 2^31-1", &s, UW_EHEADER);
	put32(&s, 8, 0xffffffff);
	expect_init("num_fdes 2^32-1", &s, UW_EHEADER);
	put32(&s, 8, 3);
	expect_init("num_fdes one too many (FDEs overlap the FREs' end)", &s,
		    UW_EHEADER);
	put32(&s, 8, 2);
	put32(&s, 20, 0xfffffff0);
	expect_init("fdeoff 0xfffffff0", &s, UW_EHEADER);
	put32(&s, 20, 0);
	put32(&s, 24, 0xffffffff);
	expect_init("freoff 0xffffffff", &s, UW_EHEADER);
	put32(&s, 24, s.lay.fre_sub - 28);
	put32(&s, 16, s.lay.fre_len + 1);
	expect_init("fre_len one past the end", &s, UW_EHEADER);
	put32(&s, 16, 0xffffffff);
	expect_init("fre_len 2^32-1", &s, UW_EHEADER);
	put32(&s, 16, s.lay.fre_len);
	expect_init("the repaired header", &s, 0);
	sec_free(&s);

	h_table(&t, 1);
	t.flags |= SFE_F_PCREL;
	build(&s, &t);
	expect_init("V1 with the PCREL flag", &s, UW_EHEADER);
	sec_free(&s);
	h_table(&t, 3);
	t.flags |= SFE_F_FP;
	build(&s, &t);
	expect_init("V3 with the FRAME_POINTER flag", &s, UW_EHEADER);
	sec_free(&s);
	h_table(&t, 3);
	t.flags = 0;
	build(&s, &t);
	expect_init("V3 unsorted", &s, UW_EUNSORTED);
	sec_free(&s);
	h_table(&t, 1);
	t.flags = SFE_F_FP;
	build(&s, &t);
	expect_init("V1 unsorted", &s, UW_EUNSORTED);
	sec_free(&s);
	test_unsorted_small();
	h_table(&t, 2);
	t.abi = SFE_ABI_AMD64_LE;
	t.big_endian = true;
	build(&s, &t);
	expect_init("AMD64 in a big-endian table", &s, UW_EHEADER);
	sec_free(&s);
	h_table(&t, 2);
	t.abi = SFE_ABI_AARCH64_LE;
	t.big_endian = true;
	build(&s, &t);
	expect_init("AArch64 LE ABI in a big-endian table", &s, UW_EHEADER);
	sec_free(&s);
	h_table(&t, 2);
	t.nfdes = 0;
	build(&s, &t);
	good = sec_init(&s) == 0;
	{
		struct uw_row row;

		good = good && uw_sframe_find(&s.sf, 0x1000, &row) == UW_ENOENT;
	}
	ok(good, "an empty table: every lookup -> %s", uw_strerror(UW_ENOENT));
	sec_free(&s);
}

static void test_hostile_entries(void)
{
	struct sfe_table t;
	struct sec s;
	uint32_t f0, f1, r1;

	/* FDE fields (V2: start 0, size 4, fre_off 8, num_fres 12, info 16). */
	h_table(&t, 2);
	build(&s, &t);
	f0 = s.lay.fde_at[0];
	f1 = s.lay.fde_at[1];
	put32(&s, f1 + 8, s.lay.fre_len);
	expect_find("FDE start_fre_off at fre_len", &s, 0x1020, UW_EBADDATA);
	put32(&s, f1 + 8, 0xffffffff);
	expect_find("FDE start_fre_off 2^32-1", &s, 0x1020, UW_EBADDATA);
	put32(&s, f1 + 8, s.lay.fre_at[3] - s.lay.fre_sub);
	put32(&s, f1 + 12, 6);
	expect_find("FDE num_fres above the header's num_fres", &s, 0x1020,
		    UW_EBADDATA);
	put32(&s, 12, 100);
	put32(&s, f1 + 12, 6);
	expect_find("last FDE's FREs run past the FRE subsection", &s, 0x102f,
		    UW_EBOUNDS);
	put32(&s, 12, 5);
	put32(&s, f1 + 12, 2);
	put8(&s, f0 + 16, 3);
	expect_find("FDE info FRE type 3", &s, 0x1000, UW_EBADDATA);
	put8(&s, f0 + 16, 0x10);
	put8(&s, f0 + 17, 0);
	expect_find("V2 PCMASK with rep_size 0", &s, 0x1005, UW_EBADDATA);
	expect_find("  ... other FDEs still found", &s, 0x1020, 0);
	put8(&s, f0 + 16, 0);
	put32(&s, f0 + 4, 0xffffffff);
	expect_find("FDE size 2^32-1 (starts stay sorted)", &s, 0x1000, 0);
	put32(&s, f0 + 4, 0x20);
	expect_find("the repaired FDEs", &s, 0x1025, 0);

	/* FREs of f0: [0] 00 03 08, [1] 01 05 10 f0, [2] 04 24 .. */
	r1 = s.lay.fre_at[1];
	put8(&s, r1, 0);
	expect_find("FRE starts not increasing (equal)", &s, 0x1010,
		    UW_EBADDATA);
	put8(&s, r1, 5);
	expect_find("FRE starts decreasing (5 then 4)", &s, 0x1010,
		    UW_EBADDATA);
	put8(&s, r1, 0x21);
	expect_find("FRE start beyond func_size", &s, 0x1000, UW_EBADDATA);
	put8(&s, r1, 1);
	put8(&s, r1 + 1, 0x05 | (3 << 5));
	expect_find("FRE info with word size 3", &s, 0x1001, UW_EBADDATA);
	expect_find("  ... also when scanning past it", &s, 0x101f,
		    UW_EBADDATA);
	put8(&s, r1 + 1, 0x05);
	put8(&s, s.lay.fre_at[0] + 1, 0x01);
	expect_find("V2 FRE with no words: outermost, not an error", &s, 0x1000,
		    0);
	put8(&s, s.lay.fre_at[0] + 1, 0x03 | (0xf << 1));
	expect_find("FRE claiming 15 words, up to the end of the FREs", &s,
		    0x1000, UW_EBOUNDS);
	put8(&s, s.lay.fre_at[0] + 1, 0x03);
	/* Shrink fre_len so the last FRE's word is cut off. */
	put32(&s, 16, s.lay.fre_len - 1);
	expect_find("last FRE's words cut by fre_len", &s, 0x1025, UW_EBOUNDS);
	put32(&s, 16, s.lay.fre_len);
	expect_find("the repaired FREs", &s, 0x1025, 0);
	sec_free(&s);

	/* V1: zero words is not an outermost marker there. */
	h_table(&t, 1);
	build(&s, &t);
	put8(&s, s.lay.fre_at[0] + 1, 0x01);
	expect_find("V1 FRE with no data words", &s, 0x1000, UW_EBADDATA);
	sec_free(&s);

	/* A table that claims to be sorted but is not. */
	{
		struct sfe_fde rev[ARRAY_SIZE(amd_fdes)];
		unsigned int i, bad = 0, hits = 0;
		uint64_t pc;

		for (i = 0; i < ARRAY_SIZE(amd_fdes); i++)
			rev[i] = amd_fdes[i];
		rev[0] = amd_fdes[1];	/* the first two swapped */
		rev[1] = amd_fdes[0];
		amd_table(&t, 2, SFE_F_SORTED);
		t.fdes = rev;
		build_init(&s, &t);
		for (pc = 0x400f00; pc < 0x402300; pc++) {
			struct uw_row row;
			int e = uw_sframe_find(&s.sf, pc, &row);

			if (e && e != UW_ENOENT)
				bad++;
			if (!e && (pc < row.fn_start ||
				   pc - row.fn_start >= row.fn_size))
				bad++;
			hits += !e;
		}
		ok(!bad, "hostile: unsorted FDEs behind a SORTED flag: %u hits, none misattributed",
		   hits);
		sec_free(&s);
	}

	/* Start + size wrapping around the address space. */
	{
		static const struct sfe_fre fr[] = { FS(0, 8) };
		struct sfe_fde fde = { .func_start = 0xffffffffffffff00ull,
				       .func_size = 0x200, FRES(fr) };

		h_table(&t, 3);
		t.addr = 0xffffffffffff0000ull;
		t.nfdes = 1;
		t.fdes = &fde;
		build(&s, &t);
		expect_find("V3 function start + size wraps", &s,
			    0xffffffffffffff10ull, UW_EOVERFLOW);
		sec_free(&s);
		t.version = 2;
		fde.func_start = 0x100001000ull;
		fde.func_size = 0x100;
		t.addr = 0x1000;	/* start - addr is out of s32 range */
		t.flags = SFE_F_SORTED;
		{
			uint8_t *p = NULL;
			size_t len;
			char msg[80];

			ok(sfe_encode(&t, &p, &len, NULL, msg, sizeof(msg)) &&
			   !p, "encoder: refuses a V2 start out of the s32 range");
		}
	}
}

/* The function covering pc is fn (0: none covers it). */
static bool finds(const struct uw_sframe *sf, uint64_t pc, uint64_t fn)
{
	struct uw_row row;
	int err = uw_sframe_find(sf, pc, &row);

	if (!fn ? err == UW_ENOENT : !err && row.fn_start == fn)
		return true;
	diag("pc 0x%llx: %d (%s), function 0x%llx", (unsigned long long)pc,
	     err, uw_strerror(err), err ? 0ull : (unsigned long long)row.fn_start);
	return false;
}

/*
 * A lookup in a table that fails the check: an error, or a row of fn
 * covering pc (fn 0: no row at all), never another function.
 */
static bool never_other(const struct uw_sframe *sf, uint64_t pc, uint64_t fn)
{
	struct uw_row row;
	int err = uw_sframe_find(sf, pc, &row);

	if (err < 0 || (fn && row.fn_start == fn && pc >= fn &&
			pc - fn < row.fn_size))
		return true;
	diag("pc 0x%llx: function 0x%llx", (unsigned long long)pc,
	     (unsigned long long)row.fn_start);
	return false;
}

/*
 * A V2 or V3 PCREL table of n FDEs in a section at addr, built and
 * initialised in s; an ok() named what says so when it is not.
 */
static bool pcrel_table(struct sec *s, uint8_t v, uint64_t addr,
			const struct sfe_fde *fdes, size_t n, const char *what)
{
	struct sfe_table t;

	h_table(&t, v);
	t.addr = addr;
	t.nfdes = n;
	t.fdes = fdes;
	if (build_init(s, &t))
		return true;
	ok(false, "V%u PCREL: %s table builds", v, what);
	return false;
}

/* The whole-table check's verdict. */
static int check_table(const struct uw_sframe *sf)
{
	struct uw_check c;

	uw_check_start(&c, 0);
	return uw_sframe_check(sf, &c);
}

/*
 * PCREL tables far from their code: a section above 2^63 describing
 * functions below it (kernel text, keys negative); and V3 tables whose
 * functions lie some 2^63 bytes from the section, below it and above it,
 * where pc - section address does not fit 64 bits signed.  The search
 * compares PCREL starts as absolute addresses (fde_le()), so a function
 * there is found like any other: the fuzz target's oracle once caught
 * the search missing it (seeds/v3-pcrel-far-above.hex).
 */
static void test_far_pcrel(void)
{
	static const struct sfe_fre fr[] = { FS(0, 8), FS(1, 16) };
	static const struct sfe_fde near[] = {
		{ .func_start = 0xffffffff81000000ull, .func_size = 0x40,
		  FRES(fr) },
		{ .func_start = 0xffffffff81000100ull, .func_size = 0x40,
		  FRES(fr) },
	};
	static const struct sfe_fde below[] = {
		{ .func_start = 0x1000, .func_size = 0x40, FRES(fr) },
		{ .func_start = 0x2000, .func_size = 0x40, FRES(fr) },
	};
	/* Start fields at 0x1001c and 0x1002c: offsets just below 2^63. */
	static const struct sfe_fde above[] = {
		{ .func_start = 0x8000000000000000ull, .func_size = 0x10000,
		  FRES(fr) },
		{ .func_start = 0x8000000000010000ull, .func_size = 0x40,
		  FRES(fr) },
	};
	struct uw_row row;
	struct sec s;
	uint8_t v;

	for (v = 2; v <= 3; v++) {
		if (!pcrel_table(&s, v, 0xffffffff82000000ull, near,
				 ARRAY_SIZE(near), "far"))
			continue;
		ok(!uw_sframe_find(&s.sf, 0xffffffff81000101ull, &row) &&
		   row.fn_start == 0xffffffff81000100ull &&
		   row.cfa.off == 16 &&
		   uw_sframe_find(&s.sf, 0xffffffff81000040ull, &row) ==
		   UW_ENOENT &&
		   uw_sframe_find(&s.sf, 0xffffffff82000000ull, &row) ==
		   UW_ENOENT,
		   "V%u PCREL: section above 2^63, code 16 MiB below it", v);
		sec_free(&s);
	}

	if (pcrel_table(&s, 3, 0x8000000000000000ull, below,
			ARRAY_SIZE(below), "2^63 above its code")) {
		ok((check_table(&s.sf) == UW_CHECK_DONE) &
		   finds(&s.sf, 0x1010, 0x1000) & finds(&s.sf, 0x2001, 0x2000) &
		   finds(&s.sf, 0xfff, 0) & finds(&s.sf, 0x1800, 0) &
		   finds(&s.sf, 0x2040, 0) & finds(&s.sf, 0, 0),
		   "V3 PCREL: functions 2^63 below their section are found");
		sec_free(&s);
	}

	if (pcrel_table(&s, 3, 0x10000, above, ARRAY_SIZE(above),
			"2^63 below its code")) {
		ok((check_table(&s.sf) == UW_CHECK_DONE) &
		   finds(&s.sf, 0x800000000000fff0ull, 0x8000000000000000ull) &
		   finds(&s.sf, 0x8000000000010000ull, 0x8000000000010000ull) &
		   finds(&s.sf, 0x8000000000010010ull, 0x8000000000010000ull) &
		   finds(&s.sf, 0x8000000000010040ull, 0) &
		   finds(&s.sf, 0x7fffffffffffffffull, 0) &
		   finds(&s.sf, ~0ull, 0),
		   "V3 PCREL: functions 2^63 above their section are found");
		sec_free(&s);
	}
}

/*
 * A PCREL table whose start fields rise, but the second start wraps past
 * 2^64 (to 0x1000): the check refuses it, and as the search compares
 * absolute starts modulo 2^64 it is misdirected there; a lookup may then
 * fail, but must never name a function that does not cover pc.
 */
static void test_wrapping_pcrel(void)
{
	static const struct sfe_fre fr[] = { FS(0, 8), FS(1, 16) };
	static const struct sfe_fde wrap[] = {
		{ .func_start = 0xffffffffffff8000ull, .func_size = 0x40,
		  FRES(fr) },
		{ .func_start = 0x1000, .func_size = 0x40, FRES(fr) },
	};
	struct sec s;
	uint8_t v;

	for (v = 2; v <= 3; v++) {
		if (!pcrel_table(&s, v, 0xffffffffffff0000ull, wrap,
				 ARRAY_SIZE(wrap), "wrapping"))
			continue;
		ok((check_table(&s.sf) == UW_EOVERFLOW) &
		   never_other(&s.sf, 0xffffffffffff8010ull,
			       0xffffffffffff8000ull) &
		   never_other(&s.sf, 0xffffffffffff8040ull, 0) &
		   never_other(&s.sf, 0x1010, 0) &
		   never_other(&s.sf, 0, 0) & never_other(&s.sf, ~0ull, 0),
		   "V%u PCREL: a start past 2^64 never names another function",
		   v);
		sec_free(&s);
	}
}

static void test_hostile_v3(void)
{
	static const struct sfe_fre fx[] = { FS(0, SFE_CTRL(X_SP, 0, 1), 8) };
	struct sfe_fde fde = { .func_start = 0x1000, .func_size = 0x20,
			       .fde_type = SFE_FDE_FLEX, FRES(fx) };
	struct sfe_table t;
	struct sec s;
	uint32_t a;

	h_table(&t, 3);
	build(&s, &t);
	a = s.lay.attr_at[1];
	put32(&s, s.lay.fde_at[1] + 12, s.lay.fre_len - 4);
	expect_find("V3 attribute record cut by fre_len", &s, 0x1020,
		    UW_EBOUNDS);
	put32(&s, s.lay.fde_at[1] + 12, 0xfffffffe);
	expect_find("V3 attribute offset 2^32-2", &s, 0x1020, UW_EBOUNDS);
	put32(&s, s.lay.fde_at[1] + 12, a - s.lay.fre_sub);
	put8(&s, a + 3, 2);
	expect_find("V3 FDE type 2", &s, 0x1020, UW_EBADDATA);
	put8(&s, a + 3, 0x1f);
	expect_find("V3 FDE type 31", &s, 0x1020, UW_EBADDATA);
	put8(&s, a + 3, 0);
	put8(&s, a + 2, 0x10);
	expect_find("V3 PCMASK with rep_size 0", &s, 0x1020, UW_EBADDATA);
	put8(&s, a + 2, 0x03);
	expect_find("V3 FRE type 3", &s, 0x1020, UW_EBADDATA);
	put8(&s, a + 2, 0);
	put8(&s, a, 0xff);
	put8(&s, a + 1, 0xff);
	expect_find("V3 num_fres 65535", &s, 0x1020, UW_EBADDATA);
	put8(&s, a, 2);
	put8(&s, a + 1, 0);
	expect_find("the repaired V3 table", &s, 0x1020, 0);
	sec_free(&s);

	/* Data words the ABI has no meaning for. */
	{
		static const struct sfe_fre three[] = { FS(0, 8, -16, -24) };
		static const struct sfe_fre four[] = { FS(0, 8, -8, -16, 4) };
		static const struct sfe_fre zreg[] = { FS(0, 20, (40 << 1) | 1) };
		struct sfe_fde d = { .func_start = 0x1000, .func_size = 0x20,
				     FRES(three) };

		h_table(&t, 2);
		t.nfdes = 1;
		t.fdes = &d;
		build(&s, &t);
		expect_find("AMD64 FRE with 3 words (RA is fixed)", &s, 0x1000,
			    UW_EBADDATA);
		sec_free(&s);
		d.fres = four;
		t.abi = SFE_ABI_AARCH64_LE;
		t.fixed_ra = 0;
		build(&s, &t);
		expect_find("AArch64 FRE with 4 words", &s, 0x1000,
			    UW_EBADDATA);
		sec_free(&s);
		d.fres = zreg;
		t.abi = SFE_ABI_S390X_BE;
		t.big_endian = true;
		build(&s, &t);
		expect_find("s390x RA register word for DWARF 40", &s, 0x1000,
			    UW_EBADDATA);
		sec_free(&s);
	}

	/* FLEX rules. */
	{
		static const struct {
			const char *what;
			struct sfe_fre f;
		} bad[] = {
			{ "FLEX CFA with reg_p 0 (CFA from itself)",
			  FS(0, SFE_CTRL_CFA, 8) },
			{ "FLEX CFA padding word", FS(0, 0, 8) },
			{ "FLEX CFA register DWARF 40",
			  FS(0, SFE_CTRL(40, 0, 1), 8) },
			{ "FLEX CFA register 0x1fffffff (4-byte control)",
			  FX(0, 1, 4, 0, -7, 8) },
			{ "FLEX RA register DWARF 34",
			  FS(0, SFE_CTRL(X_SP, 0, 1), 8, SFE_CTRL(34, 0, 1),
			     0) },
			{ "FLEX CFA control word without its offset",
			  FS(0, SFE_CTRL(X_SP, 0, 1)) },
			{ "FLEX RA control word without its offset",
			  FS(0, SFE_CTRL(X_SP, 0, 1), 8, SFE_CTRL_CFA) },
			{ "FLEX trailing word after CFA, RA, FP",
			  FS(0, SFE_CTRL(X_SP, 0, 1), 8, SFE_CTRL_CFA, -8,
			     SFE_CTRL_CFA, -16, 0) },
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			h_table(&t, 3);
			fde.fres = &bad[i].f;
			t.nfdes = 1;
			t.fdes = &fde;
			build(&s, &t);
			expect_find(bad[i].what, &s, 0x1000, UW_EBADDATA);
			sec_free(&s);
		}
	}
}

/*
 * Every byte of valid tables patched to a few values, and every
 * truncation: init and lookups must return an error or a row whose
 * function covers the pc, never crash (the ASan build runs this too).
 */
static void test_mutations(void)
{
	static const uint8_t vals[] = { 0x00, 0xff, 0x80, 0x7f, 0x01 };
	static const uint8_t versions[] = { 1, 2, 3 };
	unsigned int v, bad = 0, runs = 0, found = 0;

	for (v = 0; v < ARRAY_SIZE(versions); v++) {
		struct sfe_table t;
		struct sec s;
		size_t pos, k;

		h_table(&t, versions[v]);
		if (versions[v] == 3) {
			t.fdes = v3_fdes;
			t.nfdes = ARRAY_SIZE(v3_fdes);
		}
		build(&s, &t);
		for (pos = 0; pos <= s.len; pos++) {
			for (k = 0; k < ARRAY_SIZE(vals) + 1; k++) {
				struct uw_sframe sf;
				uint8_t *c;
				size_t len = s.len;
				uint64_t pc;
				int err;

				if (pos == s.len && k)
					break;
				if (k == ARRAY_SIZE(vals)) {
					len = pos;	/* truncation */
					err = init_copy(s.p, len, s.addr, &sf,
							&c);
				} else {
					uint8_t saved = s.p[pos < s.len ? pos : 0];

					if (pos < s.len)
						s.p[pos] = vals[k] ^ saved;
					err = init_copy(s.p, len, s.addr, &sf,
							&c);
					if (pos < s.len)
						s.p[pos] = saved;
				}
				runs++;
				if (err && (err < UW_ERR_MIN || err > 0))
					bad++;
				for (pc = 0xff0; !err && pc < 0x1080; pc++) {
					struct uw_row row;
					int e = uw_sframe_find(&sf, pc, &row);

					if (e > 0 || e < UW_ERR_MIN ||
					    (!e && (pc < row.fn_start ||
						    pc - row.fn_start >=
						    row.fn_size)))
						bad++;
					found += !e;
				}
				free(c);
			}
		}
		sec_free(&s);
	}
	ok(!bad && found, "hostile: %u mutated or truncated tables: only error codes or covering rows",
	   runs);
}

int main(void)
{
	tap_begin(-1);
	test_bytes();
	test_amd64_versions();
	test_v3();
	test_aarch64();
	test_s390x();
	test_fixed();
	test_sizes();
	test_many();
	test_walk_x86_64();
	aarch64_walk(false);
	aarch64_walk(true);
	sb = 0x7ffd00000000ull;
	sb_tag = " (stack above 4 GiB)";
	test_walk_x86_64();
	aarch64_walk(false);
	aarch64_walk(true);
	sb = 0;
	sb_tag = "";
	test_hostile_header();
	test_hostile_entries();
	test_hostile_v3();
	test_far_pcrel();
	test_wrapping_pcrel();
	test_mutations();
	uwt_cache_report();
	return tap_done();
}
