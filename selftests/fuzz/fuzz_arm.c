// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libFuzzer target for the ARM decoders: EHABI (.ARM.exidx/.ARM.extab)
 * and Chrome's tables, through their own APIs and through the walker,
 * with the Cortex-M exception-boundary step on or off.
 *
 * Input: a 24-byte header (mode and flags, section sizes, register
 * seeds), then the exidx bytes, the extab or Chrome blob, and the rest
 * as a stack image.  Each table is copied into a buffer of exactly its
 * size so ASan sees any over-read; the accessor fails outside the image.
 *
 * The whole-table checks (uw_ehabi_check, uw_chrome_check) must give the
 * same verdict in chunks as in one call, and a table they accept must
 * never fail a lookup or an opcode run with a format error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "../common/check.h"

#define CHECK(c) do { if (!(c)) { __builtin_trap(); } } while (0)

#include "fuzzcache.h"

struct image {
	const uint8_t *bytes;
	size_t size;
	uint64_t base;
};

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct image *im = ctx;

	if (addr < im->base || addr - im->base > im->size ||
	    len > im->size - (addr - im->base))
		return -1;
	memcpy(dst, im->bytes + (addr - im->base), len);
	return 0;
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void *dup(const uint8_t *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	memcpy(q, p, n);
	return q;
}

/*
 * A whole-table check in one call and in chunks of limit units: the
 * same verdict at the same entry.  True when the table passed.
 */
static bool check_table(uwt_check_fn fn, const void *t, uint32_t limit)
{
	unsigned int calls;
	uint32_t item;
	bool same;
	int one;

	one = uwt_check_twice(fn, t, limit, &item, &same, &calls);
	CHECK(one == UW_CHECK_DONE || (one < 0 && one >= UW_ERR_MIN));
	CHECK(same);
	return one == UW_CHECK_DONE;
}

static void regs_init(struct uw_regs *r, const uint8_t *h, uint64_t base,
		      size_t stack_size, uint64_t text)
{
	unsigned int i;

	r->valid = 0;
	for (i = 0; i < 13; i++)
		uw_reg_set(r, i, base + (h[i % 8] % (stack_size + 1)));
	uw_reg_set(r, UW_ARM_SP, base + (rd32(h) % (stack_size + 1)));
	uw_reg_set(r, UW_ARM_LR, text + (rd32(h + 4) & 0xffff));
	uw_reg_set(r, UW_ARM_PC, text + (rd32(h + 8) & 0xffff));
}

static void ehabi_api(const struct uw_ehabi *eh, const struct uw_walk_cfg *cfg,
		      const struct uw_regs *seed, bool checked)
{
	struct uw_ehabi_entry e;
	struct uw_regs r;
	uint32_t i;
	uint8_t b;
	int n, err;

	for (i = 0; i < eh->count && i < 64; i++) {
		err = uw_ehabi_entry(eh, i, &e);
		CHECK(!checked || !err);
		if (err)
			continue;
		CHECK(e.kind <= UW_EHABI_KIND_GENERIC);
		/* Every opcode byte stream ends: at most 3 + 255 * 4 bytes. */
		for (n = 0; (err = uw_ehabi_next_op(eh, &e.ops, &b)) == 0; n++)
			CHECK(n < 1024);
		if (uw_ehabi_entry(eh, i, &e) || e.kind == UW_EHABI_KIND_CANTUNWIND)
			continue;
		r = *seed;
		err = uw_ehabi_exec(eh, &e.ops, cfg, &r);
		CHECK(err <= 0 && err >= UW_ERR_MIN);
		CHECK(!checked || !uwt_format_error(err));
		if (!err)
			CHECK((r.valid >> UW_ARM_PC) & 1);
	}
	for (i = 0; checked && i < 64; i++) {
		err = uw_ehabi_find(eh, cfg->mods->start + 0x101 * i, &e);
		CHECK(err == 0 || err == UW_ENOENT);
	}
}

static void chrome_api(const struct uw_chrome *ct, const struct uw_walk_cfg *cfg,
		       const struct uw_regs *seed, uint64_t text, bool checked)
{
	struct uw_chrome_loc loc;
	struct uw_regs r;
	uint64_t pc;
	int err;

	for (pc = text; pc < text + 0x40000; pc += 0x1f3) {
		err = uw_chrome_find(ct, pc, &loc);
		CHECK(!checked || err == 0 || err == UW_ENOENT);
		if (err)
			continue;
		CHECK(loc.fn_start <= (pc & ~(uint64_t)1));
		CHECK(loc.insn < ct->insn_size);
		r = *seed;
		err = uw_chrome_exec(ct, &loc, cfg, &r);
		CHECK(err <= 0 && err >= UW_ERR_MIN);
		CHECK(!checked || !uwt_format_error(err));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uw_ehabi eh;
	struct uw_chrome ct;
	struct uw_module mod;
	struct uw_walk_cfg cfg;
	struct uw_regs regs;
	struct uw_frame frames[32];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct uw_span a, b;
	struct image im;
	const uint8_t *h = data;
	size_t na, nb, i, n, down;
	uint64_t text = 0x10000;
	void *pa, *pb;
	bool chrome, be;

	if (size < 24)
		return 0;
	chrome = h[0] & 1;
	be = h[0] & 2;
	data += 24;
	size -= 24;
	na = (h[1] | h[2] << 8) % (size + 1);
	nb = (h[3] | h[4] << 8) % (size - na + 1);
	pa = dup(data, na);
	pb = dup(data + na, nb);
	im.bytes = data + na + nb;
	im.size = size - na - nb;
	im.base = 0x7fff0000;

	a.data = pa;
	a.size = na;
	a.addr = text + (h[5] << 4);
	b.data = pb;
	b.size = nb;
	b.addr = a.addr + na + (h[6] << 2);

	memset(&cfg, 0, sizeof(cfg));
	memset(&mod, 0, sizeof(mod));
	cfg.arch = UW_ARCH_ARM;
	cfg.big_endian = be;
	cfg.mem.read = mem_read;
	cfg.mem.ctx = &im;
	cfg.mods = &mod;
	cfg.nmods = 1;
	cfg.flags = h[7] & (UW_WALK_NO_FP | UW_WALK_CORTEX_M |
			    UW_WALK_CM_FPCCR_TS);
	if (h[0] & 4)
		cfg.cm_psp = im.base + ((uint32_t)h[17] << 2);
	mod.start = text;
	mod.end = text + 0x40000;
	regs_init(&regs, h + 8, im.base, im.size, text);
	/* Start at an exception boundary: any of the 128 0xffffff8x forms. */
	if (h[0] & 8)
		uw_reg_set(&regs, UW_ARM_PC, 0xffffff80u | h[18]);
	/* Or with the pc in the image: its bytes are code (sigreturn). */
	else if (h[0] & 16)
		uw_reg_set(&regs, UW_ARM_PC, im.base + ((uint32_t)h[19] << 1));

	if (chrome) {
		/* The blob is the first part; the text starts at text. */
		if (!uw_chrome_init(&ct, &a, text, be)) {
			mod.chrome = &ct;
			chrome_api(&ct, &cfg, &regs, text,
				   check_table(uwt_chrome_check, &ct, 1 + h[20] % 16));
		}
	} else if (!uw_ehabi_init(&eh, &a, &b, be)) {
		mod.ehabi = &eh;
		ehabi_api(&eh, &cfg, &regs,
			  check_table(uwt_ehabi_check, &eh, 1 + h[20] % 16));
	}

	n = fuzz_walk(&cur, &cfg, &regs, frames, 1 + h[16] % 32, &res,
		      im.base, im.bytes, im.size);
	/*
	 * The stack pointer only moves up, but for one switch to the
	 * process stack at a Cortex-M exception boundary (thread mode is
	 * the bottom: it cannot happen twice).  A frame's source says how
	 * its caller was found.
	 */
	for (i = 1, down = 0; i < n; i++)
		if (frames[i].sp < frames[i - 1].sp)
			CHECK(frames[i - 1].source == UW_SRC_EXCFRAME &&
			      cfg.cm_psp && !down++);

	free(pa);
	free(pb);
	return 0;
}
