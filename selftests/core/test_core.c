// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Unit tests (TAP) of what issue 12 added to the core:
 *
 *  1. the walker's fixes: a step that changes neither pc nor sp is no
 *     progress; a Cortex-M walk never reads code looking for a Linux
 *     signal trampoline; the step takes the frame's module from the
 *     cursor instead of searching for it again;
 *  2. the load bias of struct uw_module: one table at link-time
 *     addresses serving two mappings;
 *  3. the whole-table checks (SFrame, EHABI, Chrome): what they refuse,
 *     that a check in chunks of any size gives the one-shot answer, and
 *     that a table they accept gives no format error at any pc while a
 *     refused one does somewhere;
 *  4. what the arm64 kernel module needs (issue 15): an arm64 kernel's
 *     sigpage trampolines for 32-bit tasks ("svc #NR"), and pointer-
 *     authentication codes cleared from AArch64 frame records.
 *
 * Every walk is made again with the walker's cache and reading the stack
 * in place (selftests/common/cachewalk.h).
 *
 * Expected values are worked out by hand from the tables built here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/uwind.h>
#include <uwind/cortexm.h>
#include "../../scripts/uwind/sframe_enc.h"
#include "../common/check.h"
#include "../common/tap.h"
#include "../common/cachewalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NW(...)		(sizeof((int32_t[]){ __VA_ARGS__ }) / sizeof(int32_t))
#define FS(st, ...) { .start = (st), .base_sp = 1, \
		      .nwords = NW(__VA_ARGS__), .w = { __VA_ARGS__ } }
#define F0(st)	{ .start = (st), .base_sp = 1, .nwords = 0 }
#define FRES(a)	.nfres = ARRAY_SIZE(a), .fres = (a)

/* ---- memory: one image; reads inside [code_lo, code_hi) are counted ---- */

struct image {
	uint64_t base;
	uint8_t bytes[0x4000];
	bool be;
	uint64_t code_lo, code_hi;
	unsigned int code_reads;
};

static int image_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct image *im = ctx;

	if (addr < im->code_hi && addr + len > im->code_lo)
		im->code_reads++;
	if (addr < im->base || addr - im->base > sizeof(im->bytes) ||
	    len > sizeof(im->bytes) - (addr - im->base))
		return -1;
	memcpy(dst, im->bytes + (addr - im->base), len);
	return 0;
}

static void poke(struct image *im, uint64_t addr, unsigned int n, uint64_t v)
{
	if (addr < im->base || addr + n > im->base + sizeof(im->bytes)) {
		diag("poke %#llx outside the image", (unsigned long long)addr);
		exit(2);
	}
	sfe_put(im->bytes + (addr - im->base), n, v, im->be);
}

/* ---- SFrame tables from the test encoder ---- */

struct sec {
	uint8_t *p;
	size_t len;
	struct sfe_layout lay;
	struct uw_sframe sf;
};

static bool sec_build(struct sec *s, const struct sfe_table *t)
{
	char err[128];
	struct uw_span span;
	int e;

	memset(s, 0, sizeof(*s));
	if (sfe_encode(t, &s->p, &s->len, &s->lay, err, sizeof(err))) {
		diag("encoder: %s", err);
		return false;
	}
	span.data = s->p;
	span.size = s->len;
	span.addr = t->addr;
	e = uw_sframe_init(&s->sf, &span);
	if (e)
		diag("uw_sframe_init: %s", uw_strerror(e));
	return !e;
}

static void sec_free(struct sec *s)
{
	free(s->p);
	sfe_layout_free(&s->lay);
	s->p = NULL;
}

static const char *err_name(int err)
{
	return err == UW_CHECK_MORE ? "more" : uw_strerror(err);
}

/* ------------------------------------------------------------------ */
/* 1. The walker's fixes. */

/*
 * An AArch64 leaf whose return address (lr) is its own pc: the row gives
 * CFA = sp and RA in lr, so the caller would be the very same frame.
 * Before: a second identical frame, then "no info" (lr unknown).
 */
static void test_same_frame(void)
{
	static const struct sfe_fre leaf[] = { FS(0, 0) };
	static const struct sfe_fde fdes[] = {
		{ .func_start = 0x401000, .func_size = 0x40, FRES(leaf) },
	};
	const struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED,
		.abi = SFE_ABI_AARCH64_LE, .addr = 0x600000,
		.nfdes = ARRAY_SIZE(fdes), .fdes = fdes,
	};
	static struct image im = { .base = 0x7fe000 };
	struct uw_module mod = { .start = 0x401000, .end = 0x402000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_AARCH64, .mods = &mod, .nmods = 1,
		.mem = { image_read, &im },
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct sec s;
	size_t n;

	if (!sec_build(&s, &t)) {
		ok(false, "same frame: table");
		return;
	}
	mod.sframe = &s.sf;
	uw_reg_set(&regs, UW_AARCH64_PC, 0x401008);
	uw_reg_set(&regs, UW_AARCH64_SP, 0x7ff000);
	uw_reg_set(&regs, UW_AARCH64_X29, 0x7ff100);
	uw_reg_set(&regs, UW_AARCH64_X30, 0x401008);
	n = uwt_walk(&cur, &cfg, &regs, fr, 8, &res);
	ok(n == 1 && res.stop == UW_STOP_NO_PROGRESS &&
	   res.err == UW_ENOPROGRESS,
	   "a step to the same pc and sp ends the walk as no progress (%zu frames, %s, %s)",
	   n, uw_stop_name(res.stop), uw_strerror(res.err));

	/* The same leaf called from elsewhere (lr != pc) steps as before. */
	uw_reg_set(&regs, UW_AARCH64_X30, 0x401020);
	n = uwt_walk(&cur, &cfg, &regs, fr, 2, &res);
	ok(n == 2 && fr[1].pc == 0x401020 && fr[1].sp == 0x7ff000 &&
	   fr[0].source == UW_SRC_SFRAME,
	   "... while a leaf returning elsewhere on the same sp still steps (%zu frames)",
	   n);
	sec_free(&s);
}

/*
 * A Cortex-M walk where no table covers the pc, the pc sitting on the
 * bytes of a 32-bit ARM Linux sigreturn trampoline with a signal frame
 * above sp.  Without UW_WALK_CORTEX_M the walker finds the trampoline
 * (so the set-up is a real one); with it, it must not even read the code.
 */
static void test_cortexm_no_sigframe(void)
{
	static struct image im = { .base = 0x1000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_ARM, .mem = { image_read, &im },
		.flags = UW_WALK_NO_FP,
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_frame fr[4];
	struct uw_walk_result res;
	struct uw_cursor cur;
	unsigned int r;
	size_t n;

	memset(im.bytes, 0, sizeof(im.bytes));
	im.code_lo = 0x1100;
	im.code_hi = 0x1108;
	poke(&im, 0x1100, 4, 0xe3a07077);	/* mov r7, #119 (sigreturn) */
	poke(&im, 0x1104, 4, 0xef000000);	/* swi #0 */
	/* The sigcontext's r0-r15 at sp + 32, cpsr after them. */
	for (r = 0; r < 16; r++)
		poke(&im, 0x2000 + 32 + 4 * r, 4, 0x100 + r);
	poke(&im, 0x2000 + 32 + 4 * 13, 4, 0x2400);	/* r13 */
	poke(&im, 0x2000 + 32 + 4 * 15, 4, 0x1200);	/* r15 */
	uw_reg_set(&regs, UW_ARM_PC, 0x1100);
	uw_reg_set(&regs, UW_ARM_SP, 0x2000);
	uw_reg_set(&regs, UW_ARM_LR, 0x1300);

	n = uwt_walk(&cur, &cfg, &regs, fr, 4, &res);
	ok(n >= 2 && fr[0].source == UW_SRC_SIGFRAME && fr[1].pc == 0x1200 &&
	   im.code_reads > 0,
	   "ARM Linux: the trampoline at pc is found (%zu frames, %s, %u code reads)",
	   n, uw_source_name(fr[0].source), im.code_reads);

	cfg.flags |= UW_WALK_CORTEX_M;
	im.code_reads = 0;
	n = uwt_walk(&cur, &cfg, &regs, fr, 4, &res);
	ok(n == 1 && res.stop == UW_STOP_NO_INFO && im.code_reads == 0,
	   "Cortex-M: no code read for a Linux signal trampoline (%zu frames, %s, %u code reads)",
	   n, uw_stop_name(res.stop), im.code_reads);
}

/*
 * The step uses the module the cursor holds for the frame (found by the
 * previous step or uw_cursor_init) and does not search the module array
 * again: a caller stepping by hand may name it.  Two modules with
 * tables giving different CFAs for the same pc; the cursor starts in
 * module 0 and is pointed at module 1.
 */
static void test_module_once(void)
{
	static const struct sfe_fre f0[] = { FS(0, 16) };
	static const struct sfe_fre f1[] = { FS(0, 32) };
	static const struct sfe_fde d0[] = {
		{ .func_start = 0x401000, .func_size = 0x100, FRES(f0) },
	};
	static const struct sfe_fde d1[] = {
		{ .func_start = 0x401000, .func_size = 0x100, FRES(f1) },
	};
	struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED, .abi = SFE_ABI_AMD64_LE,
		.fixed_ra = -8, .addr = 0x600000, .nfdes = 1, .fdes = d0,
	};
	static struct image im = { .base = 0x7fe000 };
	struct uw_module mods[2] = {
		{ .start = 0x401000, .end = 0x402000 },
		{ .start = 0x501000, .end = 0x502000 },
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_X86_64, .mods = mods, .nmods = 2,
		.mem = { image_read, &im }, .flags = UW_WALK_NO_FP,
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_cursor cur;
	struct sec s0, s1;
	int ret;

	if (!sec_build(&s0, &t)) {
		ok(false, "module once: table 0");
		return;
	}
	t.fdes = d1;
	if (!sec_build(&s1, &t)) {
		ok(false, "module once: table 1");
		sec_free(&s0);
		return;
	}
	mods[0].sframe = &s0.sf;
	mods[1].sframe = &s1.sf;
	memset(im.bytes, 0, sizeof(im.bytes));
	poke(&im, 0x7ff008, 8, 0x401080);	/* RA for CFA sp+16 */
	poke(&im, 0x7ff018, 8, 0x401090);	/* RA for CFA sp+32 */
	uw_reg_set(&regs, UW_X86_64_RIP, 0x401010);
	uw_reg_set(&regs, UW_X86_64_RSP, 0x7ff000);

	ret = uw_cursor_init(&cur, &cfg, &regs);
	ok(!ret && cur.module == 0, "uw_cursor_init finds module 0 (%d, %u)",
	   ret, cur.module);
	ret = uw_step(&cur, &cfg);
	ok(ret == UW_STEP_CALLER && cur.regs.r[UW_X86_64_RSP] == 0x7ff010,
	   "the step uses module 0's table (CFA sp+16)");
	uw_cursor_init(&cur, &cfg, &regs);
	cur.module = 1;
	ret = uw_step(&cur, &cfg);
	ok(ret == UW_STEP_CALLER && cur.regs.r[UW_X86_64_RSP] == 0x7ff020 &&
	   cur.regs.r[UW_X86_64_RIP] == 0x401090,
	   "the step uses the cursor's module, not a second search (sp %#llx)",
	   (unsigned long long)cur.regs.r[UW_X86_64_RSP]);
	sec_free(&s0);
	sec_free(&s1);
}

/* ------------------------------------------------------------------ */
/* 2. Load bias: one decoded table, two mappings. */

static void test_bias(void)
{
	/* f: CFA sp+16, RA at CFA-8 (fixed); g: the same, then outermost. */
	static const struct sfe_fre ff[] = { FS(0, 16) };
	static const struct sfe_fre fg[] = { FS(0, 16), F0(0x40) };
	static const struct sfe_fde fdes[] = {
		{ .func_start = 0x1000, .func_size = 0x100, FRES(ff) },
		{ .func_start = 0x1100, .func_size = 0x100, FRES(fg) },
	};
	const struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED | SFE_F_PCREL,
		.abi = SFE_ABI_AMD64_LE, .fixed_ra = -8, .addr = 0x3000,
		.nfdes = ARRAY_SIZE(fdes), .fdes = fdes,
	};
	const uint64_t ba = 0x555555554000ull, bb = 0x7f0000000000ull;
	static struct image im = { .base = 0x7fe000 };
	struct uw_module mods[2] = {
		{ .start = ba + 0x1000, .end = ba + 0x2000, .bias = ba },
		{ .start = bb + 0x1000, .end = bb + 0x2000, .bias = bb },
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_X86_64, .mods = mods, .nmods = 2,
		.mem = { image_read, &im }, .flags = UW_WALK_NO_FP,
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct uw_row row;
	struct sec s;
	size_t n;
	int err;

	if (!sec_build(&s, &t)) {
		ok(false, "bias: table");
		return;
	}
	mods[0].sframe = &s.sf;
	mods[1].sframe = &s.sf;
	memset(im.bytes, 0, sizeof(im.bytes));
	/* f in mapping A returns into g in mapping B, then into g in A. */
	poke(&im, 0x7ff008, 8, bb + 0x1120);
	poke(&im, 0x7ff018, 8, ba + 0x1141);
	uw_reg_set(&regs, UW_X86_64_RIP, ba + 0x1010);
	uw_reg_set(&regs, UW_X86_64_RSP, 0x7ff000);
	n = uwt_walk(&cur, &cfg, &regs, fr, 8, &res);
	ok(n == 3 && fr[1].pc == bb + 0x1120 && fr[1].module == 1 &&
	   fr[2].pc == ba + 0x1141 && fr[2].module == 0 &&
	   fr[2].sp == 0x7ff020 && res.stop == UW_STOP_OUTERMOST,
	   "one table, two mappings with their own bias: 3 frames, outermost in the second (%zu, %s)",
	   n, uw_stop_name(res.stop));

	err = uw_module_sframe_find(&mods[1], bb + 0x1130, &row);
	ok(!err && row.fn_start == bb + 0x1100 && row.start == bb + 0x1100 &&
	   row.cfa.off == 16,
	   "uw_module_sframe_find answers at run-time addresses (%d, fn %#llx)",
	   err, (unsigned long long)row.fn_start);
	err = uw_module_sframe_find(&mods[1], 0x1130, &row);
	ok(err == UW_ENOENT,
	   "uw_module_sframe_find: a link-time address is outside the mapping");
	sec_free(&s);
}

/* ------------------------------------------------------------------ */
/* 3. Whole-table checks. */

/*
 * Lookups (and opcode runs) at every pc a table could answer: the first
 * format error, at *where, else 0.
 */
typedef int (*scan_fn)(const void *table, uint64_t *where);

/*
 * One whole-table check case: the table is checked in one call and in
 * chunks of 1, 2, 3 and 7 units, which must agree.  want 0: it passes,
 * over several chunks, and no lookup then fails; else it is refused
 * with want at entry want_item, and (unless the fault cannot show in a
 * lookup: an order the search silently relies on, or work the check
 * bounds) a lookup somewhere does fail with a format error.
 */
static void check_case(const char *fmt, const char *what, uwt_check_fn fn,
		       scan_fn scan, const void *t, int want,
		       uint32_t want_item, bool lookup_fails)
{
	static const uint32_t limits[] = { 1, 2, 3, 7 };
	unsigned int calls = 0, i, c;
	uint64_t where = 0;
	uint32_t item, it;
	bool same = true, s;
	int got, serr;

	got = uwt_check_twice(fn, t, 0, &item, &s, &c);
	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		uwt_check_twice(fn, t, limits[i], &it, &s, &c);
		if (i == 0)
			calls = c;
		if (!s)
			diag("%s check %s: chunks of %u disagree", fmt, what,
			     limits[i]);
		same = same && s;
	}
	serr = scan(t, &where);
	if (!want) {
		ok(got == UW_CHECK_DONE && same && calls > 2 && !serr,
		   "%s check %s: valid, in one call and in %u chunks; no lookup fails (%s)",
		   fmt, what, calls, err_name(serr));
		return;
	}
	ok(got == want && item == want_item && same,
	   "%s check %s: %s at entry %u, chunked alike (got %s at %u)", fmt,
	   what, uw_strerror(want), want_item, err_name(got), item);
	if (lookup_fails)
		ok(uwt_format_error(serr),
		   "%s check %s: ... and a lookup does fail there (%s at %#llx)",
		   fmt, what, err_name(serr), (unsigned long long)where);
}

/* Lookups at every pc in [lo, hi): the first one failing, else 0. */
static int sframe_scan(const void *t, uint64_t *where)
{
	struct uw_row row;
	uint64_t pc;
	int err;

	for (pc = 0x400ff0; pc < 0x403010; pc++) {
		err = uw_sframe_find(t, pc, &row);
		if (err && err != UW_ENOENT) {
			*where = pc;
			return err;
		}
	}
	return 0;
}

static void sframe_case(const char *what, const struct sfe_table *t,
			int want, uint32_t want_item, bool patch_shared)
{
	struct sec s;

	if (!sec_build(&s, t)) {
		ok(false, "SFrame check %s: table", what);
		return;
	}
	if (patch_shared) {
		/* FDE 1 claims every FRE, starting with FDE 0's (V2 FDE). */
		uint8_t *fde1 = s.p + s.lay.fde_at[1];

		sfe_put(fde1 + 8, 4, sfe_get(s.p + s.lay.fde_at[0] + 8, 4,
					     false), false);
		sfe_put(fde1 + 12, 4, s.lay.nfres, false);
	}
	check_case("SFrame", what, uwt_sframe_check, sframe_scan, &s.sf, want,
		   want_item, want && want != UW_EUNSORTED && !patch_shared);
	sec_free(&s);
}

static void test_sframe_check(void)
{
	static const struct sfe_fre a[] = { FS(0, 8), FS(1, 16, -16),
					    FS(0x20, 16) };
	static const struct sfe_fre b[] = { FS(0, 8), FS(4, 32) };
	static const struct sfe_fre c[] = { FS(0, 8), FS(3, 24), FS(5, 16),
					    FS(9, 8) };
	static const struct sfe_fre rise[] = { FS(0, 8), FS(8, 16), FS(4, 24) };
	static const struct sfe_fre past[] = { FS(0, 8), FS(0x120, 16) };
	static const struct sfe_fre fourw[] = { FS(0, 8), FS(4, 16, -16, -24,
							      -32) };
	struct sfe_fde good[] = {
		{ .func_start = 0x401000, .func_size = 0x100, FRES(a) },
		{ .func_start = 0x401100, .func_size = 0x80, FRES(b) },
		{ .func_start = 0x402000, .func_size = 0x20, FRES(c) },
	};
	struct sfe_fde bad[3];
	struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED | SFE_F_PCREL,
		.abi = SFE_ABI_AMD64_LE, .fixed_ra = -8, .addr = 0x600000,
		.nfdes = 3, .fdes = good,
	};

	sframe_case("of a good table", &t, 0, 0, false);

	memcpy(bad, good, sizeof(bad));
	bad[1] = good[2];
	bad[2] = good[1];
	t.fdes = bad;
	sframe_case("of FDEs out of order", &t, UW_EUNSORTED, 2, false);

	memcpy(bad, good, sizeof(bad));
	bad[1].fres = rise;
	bad[1].nfres = ARRAY_SIZE(rise);
	sframe_case("of FRE starts not rising", &t, UW_EBADDATA, 1, false);

	memcpy(bad, good, sizeof(bad));
	bad[1].fres = past;
	bad[1].nfres = ARRAY_SIZE(past);
	sframe_case("of an FRE past its function", &t, UW_EBADDATA, 1, false);

	memcpy(bad, good, sizeof(bad));
	bad[2].fres = fourw;
	bad[2].nfres = ARRAY_SIZE(fourw);
	sframe_case("of an FRE with 4 data words", &t, UW_EBADDATA, 2, false);

	t.fdes = good;
	sframe_case("of FDEs sharing FREs (more than the header counts)", &t,
		    UW_EBADDATA, 1, true);
}

/* EHABI: an index at 0x10000, an extab at 0x20000, functions from 0x8000. */
struct ehimg {
	uint8_t x[256], t[64];
	unsigned int nx, nt;
	struct uw_ehabi eh;
};

static uint32_t p31(uint64_t at, uint64_t to)
{
	return (uint32_t)(to - at) & 0x7fffffffu;
}

static void eh_put(uint8_t *p, uint32_t v)
{
	sfe_put(p, 4, v, false);
}

/* Entry i: function fn, second word w (inline, CANTUNWIND, or extab). */
static void eh_entry(struct ehimg *m, uint64_t fn, uint32_t w, bool extab)
{
	uint64_t at = 0x10000 + 4 * m->nx;

	eh_put(m->x + 4 * m->nx, p31(at, fn));
	eh_put(m->x + 4 * m->nx + 4, extab ? p31(at + 4, 0x20000 + w) : w);
	m->nx += 2;
}

static int eh_init(struct ehimg *m)
{
	struct uw_span x = { m->x, 4 * m->nx, 0x10000 };
	struct uw_span t = { m->t, 4 * m->nt, 0x20000 };

	return uw_ehabi_init(&m->eh, &x, &t, false);
}

static int eh_mem(void *ctx, uint64_t addr, void *dst, size_t len)
{
	(void)ctx;
	(void)addr;
	memset(dst, 0x40, len);		/* any stack reads as 0x40404040 */
	return 0;
}

/* find + exec at every pc: the first format error, else 0. */
static int ehabi_scan(const void *t, uint64_t *where)
{
	struct uw_walk_cfg cfg = { .arch = UW_ARCH_ARM, .mem = { eh_mem } };
	const struct uw_ehabi *eh = t;
	struct uw_ehabi_entry e;
	struct uw_regs r;
	uint64_t pc;
	int err;

	for (pc = 0x7ff0; pc < 0x8400; pc += 2) {
		memset(&r, 0, sizeof(r));
		uw_reg_set(&r, UW_ARM_SP, 0x1000);
		uw_reg_set(&r, UW_ARM_LR, 0x9000);
		err = uw_ehabi_find(eh, pc, &e);
		if (!err && e.kind != UW_EHABI_KIND_CANTUNWIND)
			err = uw_ehabi_exec(eh, &e.ops, &cfg, &r);
		if (uwt_format_error(err)) {
			*where = pc;
			return err;
		}
	}
	return 0;
}

static void ehabi_case(const char *what, struct ehimg *m, int want,
		       uint32_t want_item)
{
	int err = eh_init(m);

	if (err) {
		ok(false, "EHABI check %s: init %s", what, uw_strerror(err));
		return;
	}
	check_case("EHABI", what, uwt_ehabi_check, ehabi_scan, &m->eh, want,
		   want_item, want && want != UW_EUNSORTED);
}

static void ehabi_good(struct ehimg *m)
{
	memset(m, 0, sizeof(*m));
	/* extab: PR1 compact, one more word: pop {r4, lr}; vsp += 8; finish */
	eh_put(m->t, 0x8101a801);
	eh_put(m->t + 4, 0x01b0b0b0);
	/* generic: personality, one opcode word, then nothing more */
	eh_put(m->t + 8, p31(0x20008, 0x9001));
	eh_put(m->t + 12, 0x00a8b0b0);
	m->nt = 4;
	eh_entry(m, 0x8000, 0x80a8b0b0, false);	/* inline: pop {r4, lr} */
	eh_entry(m, 0x8100, UW_EHABI_CANTUNWIND, false);
	eh_entry(m, 0x8200, 0, true);		/* extab PR1 */
	eh_entry(m, 0x8300, 8, true);		/* extab generic */
	eh_entry(m, 0x8380, 0x80800000 | 0x00b0, false); /* refuse 80 00 */
}

static void test_ehabi_check(void)
{
	struct ehimg m;

	ehabi_good(&m);
	ehabi_case("of a good index", &m, 0, 0);

	ehabi_good(&m);
	eh_put(m.t, 0x8101b6b0);		/* entry 2's b6: spare */
	ehabi_case("of a spare opcode", &m, UW_EBADDATA, 2);

	ehabi_good(&m);
	eh_put(m.x + 8 * 0 + 4, 0x809db0b0);	/* 9d: reserved */
	ehabi_case("of a reserved opcode", &m, UW_EBADDATA, 0);

	ehabi_good(&m);
	eh_put(m.x + 8 * 0 + 4, 0x80a8a8b1);	/* b1 without its operand */
	ehabi_case("of a truncated instruction", &m, UW_EBADDATA, 0);

	ehabi_good(&m);
	eh_put(m.x + 8 * 3 + 4, p31(0x10000 + 8 * 3 + 4, 0x20040));
	ehabi_case("of an extab entry outside extab", &m, UW_EBOUNDS, 3);

	ehabi_good(&m);
	eh_put(m.x + 8 * 1, p31(0x10000 + 8 * 1, 0x7000));
	ehabi_case("of entries out of order", &m, UW_EUNSORTED, 1);
}

/* Chrome: built as in test_chrome.c, text at 0x10000. */
struct cblob {
	uint8_t b[512];
	size_t len;
	struct uw_chrome ct;
};

static void cb_mk(struct cblob *bl, const uint32_t *pages, uint32_t npages,
		  const uint16_t *fns, uint32_t nfns, const uint8_t *fot,
		  uint32_t nfot, const uint8_t *insn, uint32_t ninsn)
{
	uint32_t i, off = 32;
	uint8_t *p;

	memset(bl, 0, sizeof(*bl));
	p = bl->b;
	sfe_put(p + 0, 4, off, false);
	sfe_put(p + 4, 4, npages, false);
	off += 4 * npages;
	sfe_put(p + 8, 4, off, false);
	sfe_put(p + 12, 4, nfns, false);
	off += 4 * nfns;
	sfe_put(p + 16, 4, off, false);
	sfe_put(p + 20, 4, nfot, false);
	off += nfot;
	sfe_put(p + 24, 4, off, false);
	sfe_put(p + 28, 4, ninsn, false);
	p += 32;
	for (i = 0; i < npages; i++, p += 4)
		sfe_put(p, 4, pages[i], false);
	for (i = 0; i < nfns; i++, p += 4) {
		sfe_put(p, 2, fns[2 * i], false);
		sfe_put(p + 2, 2, fns[2 * i + 1], false);
	}
	memcpy(p, fot, nfot);
	memcpy(p + nfot, insn, ninsn);
	bl->len = 32 + 4 * npages + 4 * nfns + nfot + ninsn;
}

static int chrome_scan(const void *t, uint64_t *where)
{
	struct uw_walk_cfg cfg = { .arch = UW_ARCH_ARM, .mem = { eh_mem } };
	struct uw_chrome_loc loc;
	struct uw_regs r;
	uint64_t pc;
	int err;

	for (pc = 0x10000; pc < 0x10000 + (3u << 17); pc += 2) {
		memset(&r, 0, sizeof(r));
		uw_reg_set(&r, UW_ARM_SP, 0x1000);
		uw_reg_set(&r, UW_ARM_LR, 0x9000);
		err = uw_chrome_find(t, pc, &loc);
		if (!err)
			err = uw_chrome_exec(t, &loc, &cfg, &r);
		if (uwt_format_error(err)) {
			*where = pc;
			return err;
		}
	}
	return 0;
}

static void chrome_case(const char *what, struct cblob *bl, int want,
			uint32_t want_item)
{
	struct uw_span s = { bl->b, bl->len, 0 };
	int err = uw_chrome_init(&bl->ct, &s, 0x10000, false);

	if (err) {
		ok(false, "Chrome check %s: init %s", what, uw_strerror(err));
		return;
	}
	check_case("Chrome", what, uwt_chrome_check, chrome_scan, &bl->ct,
		   want, want_item, want && want != UW_EUNSORTED);
}

static void test_chrome_check(void)
{
	/* Pages {0, 2}: functions (0, fot 0), (0x40, fot 4) | (0x10, fot 8). */
	static const uint32_t pages[] = { 0, 2 };
	static const uint16_t fns[] = { 0, 0, 0x40, 4, 0x10, 8 };
	/* (8, insn 2), (0, insn 0); (0, insn 4); (0x20, 4), (0, 0) */
	static const uint8_t fot[] = { 8, 2, 0, 0, 0, 4, 0, 0, 0x20, 4, 0, 0 };
	/* 0: vsp += 4; finish  2: pop {r4, lr}; finish  4: finish */
	static const uint8_t insn[] = { 0x00, 0xb0, 0xa8, 0xb0, 0xb0 };
	uint8_t f2[sizeof(fot)], i2[sizeof(insn)];
	uint16_t n2[ARRAY_SIZE(fns)];
	struct cblob bl;

	cb_mk(&bl, pages, 2, fns, 3, fot, sizeof(fot), insn, sizeof(insn));
	chrome_case("of a good table", &bl, 0, 0);

	memcpy(i2, insn, sizeof(i2));
	i2[4] = 0x00;				/* the last sequence: no finish */
	cb_mk(&bl, pages, 2, fns, 3, fot, sizeof(fot), i2, sizeof(i2));
	chrome_case("of a sequence without finish", &bl, UW_EBADDATA, 1);

	memcpy(i2, insn, sizeof(i2));
	i2[2] = 0xc8;				/* VPUSH: not Chrome's */
	cb_mk(&bl, pages, 2, fns, 3, fot, sizeof(fot), i2, sizeof(i2));
	chrome_case("of an instruction outside Chrome's subset", &bl,
		    UW_EBADDATA, 0);

	memcpy(f2, fot, sizeof(f2));
	f2[9] = 9;				/* instruction index past the table */
	cb_mk(&bl, pages, 2, fns, 3, f2, sizeof(f2), insn, sizeof(insn));
	chrome_case("of an instruction index past its table", &bl,
		    UW_EBADDATA, 2);

	memcpy(f2, fot, sizeof(f2));
	f2[10] = 1;				/* the last list never reaches 0 */
	cb_mk(&bl, pages, 2, fns, 3, f2, sizeof(f2), insn, sizeof(insn));
	chrome_case("of an offset list not ending at 0", &bl, UW_EBADDATA, 2);

	memcpy(n2, fns, sizeof(n2));
	n2[2] = 0x40;
	n2[0] = 0x50;				/* page 0: 0x50 then 0x40 */
	cb_mk(&bl, pages, 2, n2, 3, fot, sizeof(fot), insn, sizeof(insn));
	chrome_case("of a page's functions out of order", &bl, UW_EUNSORTED, 1);
}

/* ------------------------------------------------------------------ */
/* 4. What the arm64 kernel module needs. */

/*
 * An arm64 kernel's sigpage for 32-bit tasks (its sigreturn32.S): ARM
 * "mov r7, #NR; svc #NR" at 0, Thumb "movs r7, #NR; svc #NR" at 8, the
 * same for rt_sigreturn at 12 and 20.  A handler returns to one of them;
 * the walk must restore the interrupted registers from the frame at sp
 * (its sigcontext 32 bytes in, after a 128-byte siginfo for rt), the
 * Thumb state from its cpsr.  A trampoline whose svc names another
 * system call than its mov is not one.
 */
static void test_compat_sigpage(void)
{
	static const struct {
		const char *what;
		unsigned int off;	/* in the sigpage; bit 0: Thumb */
		unsigned int ctx;	/* sigcontext's r0, from sp */
	} tr[] = {
		{ "ARM sigreturn", 0, 32 },
		{ "Thumb sigreturn", 8 | 1, 32 },
		{ "ARM rt_sigreturn", 12, 128 + 32 },
		{ "Thumb rt_sigreturn", 20 | 1, 128 + 32 },
	};
	static struct image im = { .base = 0x1000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_ARM, .mem = { image_read, &im },
		.flags = UW_WALK_NO_FP,
	};
	struct uw_frame fr[4];
	struct uw_walk_result res;
	struct uw_cursor cur;
	unsigned int i, r;
	size_t n;

	memset(im.bytes, 0, sizeof(im.bytes));
	poke(&im, 0x1100, 4, 0xe3a07077);	/* mov r7, #119 */
	poke(&im, 0x1104, 4, 0xef000077);	/* svc #119 */
	poke(&im, 0x1108, 4, 0xdf772777);	/* movs r7, #119; svc #119 */
	poke(&im, 0x110c, 4, 0xe3a070ad);	/* mov r7, #173 */
	poke(&im, 0x1110, 4, 0xef0000ad);	/* svc #173 */
	poke(&im, 0x1114, 4, 0xdfad27ad);	/* movs r7, #173; svc #173 */
	for (i = 0; i < ARRAY_SIZE(tr); i++) {
		struct uw_regs regs = { .valid = 0 };
		uint64_t ctx = 0x2000 + tr[i].ctx;
		bool thumb = tr[i].off & 1;

		for (r = 0; r < 16; r++)
			poke(&im, ctx + 4 * r, 4, 0x100 + r);
		poke(&im, ctx + 4 * 13, 4, 0x2800);		/* r13 */
		poke(&im, ctx + 4 * 15, 4, 0x1200 + 0x10 * i);	/* r15 */
		poke(&im, ctx + 4 * 16, 4, i & 1 ? 0x30 : 0x10); /* cpsr */
		uw_reg_set(&regs, UW_ARM_PC, 0x1100 + tr[i].off);
		uw_reg_set(&regs, UW_ARM_SP, 0x2000);
		uw_reg_set(&regs, UW_ARM_LR, 0x1300);
		n = uwt_walk(&cur, &cfg, &regs, fr, 4, &res);
		ok(n >= 2 && fr[0].source == UW_SRC_SIGFRAME &&
		   fr[1].pc == 0x1200 + 0x10 * i && fr[1].sp == 0x2800 &&
		   !!(fr[1].flags & UW_FRAME_THUMB) == (i & 1) &&
		   (fr[1].flags & UW_FRAME_SIGNAL) &&
		   !!(fr[0].flags & UW_FRAME_THUMB) == thumb,
		   "arm64 compat sigpage, %s: the interrupted frame restored (%zu frames, %s, pc %#llx)",
		   tr[i].what, n, uw_source_name(fr[0].source),
		   (unsigned long long)(n > 1 ? fr[1].pc : 0));
	}

	/* mov r7, #119 with svc #173: no trampoline. */
	poke(&im, 0x1104, 4, 0xef0000ad);
	{
		struct uw_regs regs = { .valid = 0 };

		uw_reg_set(&regs, UW_ARM_PC, 0x1100);
		uw_reg_set(&regs, UW_ARM_SP, 0x2000);
		n = uwt_walk(&cur, &cfg, &regs, fr, 4, &res);
		ok(n == 1 && res.stop == UW_STOP_NO_INFO,
		   "arm64 compat sigpage: mov r7, #119 then svc #173 is no trampoline (%zu frames, %s)",
		   n, uw_stop_name(res.stop));
	}
}

/*
 * AArch64 frame records of code built with pac-ret hold lr as signed:
 * the walk clears cfg->pac_mask from the return address it reads there
 * (the kernel's mask for 48-bit user addresses: bits 54-48), and only
 * those bits.
 */
static void test_fp_pac(void)
{
	static struct image im = { .base = 0x7fe000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_AARCH64, .mem = { image_read, &im },
		.pac_mask = 0x007f000000000000ull,
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_frame fr[4];
	struct uw_walk_result res;
	struct uw_cursor cur;
	size_t n;

	memset(im.bytes, 0, sizeof(im.bytes));
	poke(&im, 0x7ff000, 8, 0x7ff040);		/* caller's x29 */
	poke(&im, 0x7ff008, 8, 0x005a000000401234ull);	/* signed lr */
	poke(&im, 0x7ff040, 8, 0);			/* the outermost */
	poke(&im, 0x7ff048, 8, 0x00250000004015f0ull);
	uw_reg_set(&regs, UW_AARCH64_PC, 0x401100);
	uw_reg_set(&regs, UW_AARCH64_SP, 0x7fefe0);
	uw_reg_set(&regs, UW_AARCH64_X29, 0x7ff000);
	n = uwt_walk(&cur, &cfg, &regs, fr, 4, &res);
	ok(n == 3 && fr[0].source == UW_SRC_FP && fr[1].pc == 0x401234 &&
	   fr[2].pc == 0x4015f0,
	   "AArch64 frame records: signed return addresses stripped (%zu frames, %#llx, %#llx)",
	   n, (unsigned long long)(n > 1 ? fr[1].pc : 0),
	   (unsigned long long)(n > 2 ? fr[2].pc : 0));

	cfg.pac_mask = 0;
	n = uwt_walk(&cur, &cfg, &regs, fr, 4, &res);
	ok(n >= 2 && fr[1].pc == 0x005a000000401234ull,
	   "... and kept as read without a mask (%#llx)",
	   (unsigned long long)(n > 1 ? fr[1].pc : 0));
}

/*
 * AArch64: a function without tables (A: a frame of 64 bytes, its frame
 * record at the bottom) called by one with an SFrame row based on sp (f:
 * CFA = sp + 48, its record at CFA - 48, as GCC lays frames out).  The
 * record step from A gives f's pc and fp, but not its sp (A's record +
 * 16 is 48 bytes short of it): applying f's row there read f's caller
 * from A's locals.  The row's CFA is taken from f's fp, which points at
 * the record the row saves (uwi_row_at_record()).  On x86-64 a record
 * gives the caller's sp, and f's row is applied at it.
 */
static void test_record_then_row(void)
{
	static const struct sfe_fre f_rows[] = {
		FS(0, 0), FS(4, 48, -40, -48),
	};
	static const struct sfe_fde fdes[] = {
		{ .func_start = 0x401000, .func_size = 0x100, FRES(f_rows) },
	};
	const struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED,
		.abi = SFE_ABI_AARCH64_LE, .addr = 0x600000,
		.nfdes = ARRAY_SIZE(fdes), .fdes = fdes,
	};
	static struct image im = { .base = 0x7fe000 };
	struct uw_module mods[2] = {
		{ .start = 0x401000, .end = 0x402000 },
		{ .start = 0x500000, .end = 0x501000 },
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_AARCH64, .mods = mods, .nmods = 2,
		.mem = { image_read, &im },
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct sec s;
	size_t n;

	if (!sec_build(&s, &t)) {
		ok(false, "record then row: table");
		return;
	}
	mods[0].sframe = &s.sf;
	memset(im.bytes, 0, sizeof(im.bytes));
	/* A's frame [0x7ff000, 0x7ff040): its record, then locals. */
	poke(&im, 0x7ff000, 8, 0x7ff040);	/* f's x29: f's record */
	poke(&im, 0x7ff008, 8, 0x401040);	/* into f */
	poke(&im, 0x7ff010, 8, 0x7ff300);	/* A's locals, where f's */
	poke(&im, 0x7ff018, 8, 0x4dead0);	/* row would look at sp 0x7ff010 */
	/* f's frame [0x7ff040, 0x7ff070): its record, then locals. */
	poke(&im, 0x7ff040, 8, 0);		/* the outermost */
	poke(&im, 0x7ff048, 8, 0x401f00);	/* into main, no row */
	uw_reg_set(&regs, UW_AARCH64_PC, 0x500100);
	uw_reg_set(&regs, UW_AARCH64_SP, 0x7ff000);
	uw_reg_set(&regs, UW_AARCH64_X29, 0x7ff000);
	n = uwt_walk(&cur, &cfg, &regs, fr, 8, &res);
	ok(n == 3 && fr[0].source == UW_SRC_FP && fr[1].pc == 0x401040 &&
	   fr[1].source == UW_SRC_SFRAME && fr[1].cfa == 0x7ff070 &&
	   fr[2].pc == 0x401f00 && fr[2].sp == 0x7ff070,
	   "AArch64: after a frame-record step, an sp-based row saving a record applied at the CFA fp gives (%zu frames, %#llx, %#llx, %s)",
	   n, (unsigned long long)(n > 1 ? fr[1].pc : 0),
	   (unsigned long long)(n > 2 ? fr[2].pc : 0),
	   n > 1 ? uw_source_name(fr[1].source) : "-");
	sec_free(&s);
}

/* x86-64: the record gives the caller's sp, and its row is used. */
static void test_record_then_row_x86(void)
{
	static const struct sfe_fre f_rows[] = {
		FS(0, 8), FS(4, 16, -16),
	};
	static const struct sfe_fde fdes[] = {
		{ .func_start = 0x401000, .func_size = 0x100, FRES(f_rows) },
	};
	const struct sfe_table t = {
		.version = 2, .flags = SFE_F_SORTED, .fixed_ra = -8,
		.abi = SFE_ABI_AMD64_LE, .addr = 0x600000,
		.nfdes = ARRAY_SIZE(fdes), .fdes = fdes,
	};
	static struct image im = { .base = 0x7fe000 };
	struct uw_module mods[2] = {
		{ .start = 0x401000, .end = 0x402000 },
		{ .start = 0x500000, .end = 0x501000 },
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_X86_64, .mods = mods, .nmods = 2,
		.mem = { image_read, &im },
	};
	struct uw_regs regs = { .valid = 0 };
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct sec s;
	size_t n;

	if (!sec_build(&s, &t)) {
		ok(false, "record then row, x86-64: table");
		return;
	}
	mods[0].sframe = &s.sf;
	memset(im.bytes, 0, sizeof(im.bytes));
	poke(&im, 0x7ff000, 8, 0x7ff100);	/* A's record: a caller's rbp */
	poke(&im, 0x7ff008, 8, 0x401040);	/* into f */
	poke(&im, 0x7ff010, 8, 0);		/* f's: the outermost rbp */
	poke(&im, 0x7ff018, 8, 0x401f00);	/* into main, no row */
	uw_reg_set(&regs, UW_X86_64_RIP, 0x500100);
	uw_reg_set(&regs, UW_X86_64_RSP, 0x7feff0);
	uw_reg_set(&regs, UW_X86_64_RBP, 0x7ff000);
	n = uwt_walk(&cur, &cfg, &regs, fr, 3, &res);
	ok(n == 3 && fr[0].source == UW_SRC_FP && fr[1].pc == 0x401040 &&
	   fr[1].source == UW_SRC_SFRAME && fr[2].pc == 0x401f00,
	   "x86-64: after a frame-record step, the caller's row (%zu frames, %#llx, %s)",
	   n, (unsigned long long)(n > 2 ? fr[2].pc : 0),
	   n > 1 ? uw_source_name(fr[1].source) : "-");
	sec_free(&s);
}

int main(void)
{
	tap_begin(-1);
	test_same_frame();
	test_cortexm_no_sigframe();
	test_module_once();
	test_bias();
	test_sframe_check();
	test_ehabi_check();
	test_chrome_check();
	test_compat_sigpage();
	test_fp_pac();
	test_record_then_row();
	test_record_then_row_x86();
	uwt_cache_report();
	return tap_done();
}
