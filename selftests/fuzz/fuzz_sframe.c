// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libFuzzer target: SFrame decoding, lookup and the walker on arbitrary
 * bytes and arbitrary stack memory.
 *
 * Input layout (little-endian), see struct hdr:
 *   32-byte header, then sframe_len bytes of .sframe section, then the
 *   stack image (everything left).
 * The section is copied into a buffer of exactly its size (at an odd
 * address when a flag says so), so ASan sees any read past either end
 * and UBSan any misaligned access.  The stack image is only reachable
 * through the memory accessor, which fails outside it.
 *
 * Besides "no crash, no sanitizer report, no hang", the target checks
 * properties that hold for any table: the whole-table check
 * (uw_sframe_check) gives the same verdict in chunks of any size as in
 * one call, and a table it accepts never fails a lookup with a format
 * error; a found row covers the pc and carries sane rule kinds; a walk
 * returns at most the frames asked for and a consistent result.  Each
 * lookup is also checked against an oracle that works the answer out
 * from the element decoders with a linear scan (oracle_find).  A
 * violation aborts, which libFuzzer reports as a crash.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/uwind.h>
#include <uwind/sframe.h>
#include "../common/check.h"

#define HDR_SIZE	32
#define STACK_BASE	0x7ffff0000000ull
#define MAX_FRAMES	48
#define MAX_FRE_STEPS	20000

/* header flags */
#define F_ARCH_MASK	0x03	/* 0: the table's, 1 x86-64, 2 aarch64, 3 s390x */
#define F_MEM_BE	0x04	/* program memory is big-endian */
#define F_NO_FP		0x08
#define F_NO_SIGFRAME	0x10
#define F_BOUNDS	0x20	/* pass the stack image as stack bounds */
#define F_PC_IN_STACK	0x40	/* pc points into the stack image */
#define F_ODD		0x80	/* section at an odd address */

/* max_depth byte: bits 0-5 the depth limit, bit 6 no memory accessor */
#define D_DEPTH_MASK	0x3f
#define D_NO_MEM	0x40

struct hdr {
	uint16_t sframe_len;
	uint8_t flags;
	uint8_t max_depth;
	uint32_t sec_addr;
	uint32_t pc_off;
	uint16_t sp_off;
	uint16_t fp_off;
	uint64_t lr;
	uint64_t pac_mask;
};

struct image {
	const uint8_t *data;
	size_t size;
	uint64_t base;
};

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct image *im = ctx;

	if (addr < im->base || addr - im->base > im->size ||
	    len > im->size - (addr - im->base))
		return -1;
	memcpy(dst, im->data + (addr - im->base), len);
	return 0;
}

#define CHECK(c) do { \
	if (!(c)) { \
		fprintf(stderr, "check failed: %s (%s:%d)\n", #c, __FILE__, \
			__LINE__); \
		abort(); \
	} \
} while (0)

#include "fuzzcache.h"

static void check_rule(const struct uw_rule *r)
{
	CHECK(r->kind <= UW_RULE_UNDEF);
	if (r->kind >= UW_RULE_REG && r->kind <= UW_RULE_REG_DEREF)
		CHECK(r->reg < UW_NREGS);
}

static void check_row(const struct uw_row *row, uint64_t pc)
{
	check_rule(&row->cfa);
	check_rule(&row->ra);
	check_rule(&row->fp);
	if (!(row->flags & UW_ROW_OUTERMOST))
		CHECK(row->cfa.kind == UW_RULE_REG_OFF ||
		      row->cfa.kind == UW_RULE_REG_DEREF);
	CHECK(pc >= row->fn_start && pc - row->fn_start < row->fn_size);
	CHECK(row->start <= pc);
}

/* The oracle could not decide (a table the lookup may read differently). */
#define UNDECIDED	1
#define ORACLE_FDES	4096

/*
 * The lookup's answer worked out the slow way, from the element decoders
 * alone: every FDE in table order (the last one starting at or below pc
 * wins), then that function's FREs one by one, with the ordering rules
 * uw_sframe_find enforces.  Tables whose other parts fail to decode, or
 * are unsorted, are left undecided: the binary search may legitimately
 * answer differently there.
 */
static int oracle_find(const struct uw_sframe *sf, uint64_t pc,
		       struct uw_row *row)
{
	struct uw_sframe_fde fde, best;
	struct uw_sframe_fre fre, match;
	uint32_t i, j, off, pc_off, prev = 0;
	bool found = false;
	uint64_t last = 0;

	if (sf->num_fdes > ORACLE_FDES)
		return UNDECIDED;
	for (i = 0; i < sf->num_fdes; i++) {
		if (uw_sframe_fde(sf, i, &fde))
			return UNDECIDED;
		if (i && fde.func_start < last)
			return UNDECIDED;
		last = fde.func_start;
		if (fde.func_start <= pc) {
			best = fde;
			found = true;
		}
	}
	if (!found || pc - best.func_start >= best.func_size)
		return UW_ENOENT;
	fde = best;
	if (fde.num_fres == 0)
		return sf->version == 3 ? UNDECIDED : UW_ENOENT;
	pc_off = (uint32_t)(pc - fde.func_start);
	if (fde.pc_type == UW_SFRAME_PC_MASK)
		pc_off %= fde.rep_size;
	found = false;
	off = fde.fre_off;
	for (j = 0; j < fde.num_fres && j < MAX_FRE_STEPS; j++) {
		if (uw_sframe_fre(sf, &fde, &off, &fre))
			return UNDECIDED;
		if (fre.start > pc_off) {
			if (fre.start > fde.func_size)
				return UW_EBADDATA;
			break;
		}
		if (j && fre.start <= prev)
			return UW_EBADDATA;
		prev = fre.start;
		match = fre;
		found = true;
	}
	if (j == MAX_FRE_STEPS)
		return UNDECIDED;
	if (!found)
		return UW_ENOENT;
	return uw_sframe_row(sf, &fde, &match, row);
}

static bool rule_eq(const struct uw_rule *a, const struct uw_rule *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->off == b->off;
}

/* The table passed uw_sframe_check(): lookups give no format error. */
static bool g_checked;

static void lookup(const struct uw_sframe *sf, uint64_t pc)
{
	struct uw_row row, want;
	int err, oracle;

	err = uw_sframe_find(sf, pc, &row);
	CHECK(err <= 0 && err >= UW_ERR_MIN);
	if (g_checked)
		CHECK(err == 0 || err == UW_ENOENT);
	if (!err)
		check_row(&row, pc);

	oracle = oracle_find(sf, pc, &want);
	if (oracle == UNDECIDED)
		return;
	if (err != oracle)
		fprintf(stderr, "pc 0x%llx: uw_sframe_find %d, oracle %d\n",
			(unsigned long long)pc, err, oracle);
	CHECK(err == oracle);
	if (err)
		return;
	CHECK(row.fn_start == want.fn_start && row.fn_size == want.fn_size);
	CHECK(row.start == want.start && row.flags == want.flags);
	CHECK(rule_eq(&row.cfa, &want.cfa));
	CHECK(rule_eq(&row.ra, &want.ra));
	CHECK(rule_eq(&row.fp, &want.fp));
}

/*
 * The whole-table check, in one call and in chunks of limit entries:
 * the same verdict at the same FDE.  True when the table passed.
 */
static bool check_table(const struct uw_sframe *sf, uint32_t limit)
{
	unsigned int calls;
	uint32_t item;
	bool same;
	int one;

	one = uwt_check_twice(uwt_sframe_check, sf, limit, &item, &same,
			      &calls);
	CHECK(one == UW_CHECK_DONE || (one < 0 && one >= UW_ERR_MIN));
	CHECK(same);
	return one == UW_CHECK_DONE;
}

/* Lookups at the edges of the first functions. */
static void edges(const struct uw_sframe *sf)
{
	struct uw_sframe_fde fde;
	uint32_t i;
	int err;

	for (i = 0; i < sf->num_fdes && i < 64; i++) {
		err = uw_sframe_fde(sf, i, &fde);
		CHECK(err <= 0 && err >= UW_ERR_MIN);
		if (g_checked)
			CHECK(!err);
		if (err)
			continue;
		CHECK(fde.fre_type <= UW_SFRAME_FRE_ADDR4);
		CHECK(fde.pc_type != UW_SFRAME_PC_MASK || fde.rep_size);
		lookup(sf, fde.func_start);
		lookup(sf, fde.func_start + fde.func_size / 2);
		lookup(sf, fde.func_start + fde.func_size - 1);
		lookup(sf, fde.func_start + fde.func_size);
	}
}

static void walk(const struct hdr *h, const struct uw_sframe *sf,
		 const struct image *im)
{
	struct uw_walk_cfg cfg;
	struct uw_module mod[2];
	struct uw_regs regs;
	struct uw_frame frames[MAX_FRAMES];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct uw_arch_info ai;
	uint64_t sp, fp, pc;
	size_t n, i, max;

	memset(&cfg, 0, sizeof(cfg));
	switch (h->flags & F_ARCH_MASK) {
	case 0:
		cfg.arch = sf ? sf->arch : UW_ARCH_X86_64;
		break;
	case 1:
		cfg.arch = UW_ARCH_X86_64;
		break;
	case 2:
		cfg.arch = UW_ARCH_AARCH64;
		break;
	default:
		cfg.arch = UW_ARCH_S390X;
		break;
	}
	if (uw_arch_info(cfg.arch, &ai))
		abort();
	cfg.big_endian = h->flags & F_MEM_BE;
	/* One module with the table, one without (frame pointers only). */
	memset(mod, 0, sizeof(mod));
	mod[0].start = 0;
	mod[0].end = STACK_BASE;
	mod[0].sframe = sf;
	mod[1].start = STACK_BASE;
	mod[1].end = UINT64_MAX;
	mod[1].sframe = NULL;
	cfg.mods = mod;
	cfg.nmods = 2;
	cfg.mem.read = (h->max_depth & D_NO_MEM) ? NULL : mem_read;
	cfg.mem.ctx = (void *)im;
	if (h->flags & F_BOUNDS) {
		cfg.stack_lo = im->base;
		cfg.stack_hi = im->base + im->size;
	}
	cfg.pac_mask = h->pac_mask;
	cfg.flags = (h->flags & F_NO_FP ? UW_WALK_NO_FP : 0) |
		    (h->flags & F_NO_SIGFRAME ? UW_WALK_NO_SIGFRAME : 0);
	cfg.max_depth = h->max_depth & D_DEPTH_MASK;

	/* 32-bit wrap-around: pcs below the section are reachable too. */
	if (h->flags & F_PC_IN_STACK)
		pc = im->base + h->pc_off;
	else
		pc = (uint32_t)(h->sec_addr + h->pc_off);
	sp = im->base + h->sp_off;
	fp = im->base + h->fp_off;
	memset(&regs, 0, sizeof(regs));
	uw_reg_set(&regs, ai.pc, pc);
	uw_reg_set(&regs, ai.sp, sp);
	uw_reg_set(&regs, ai.fp, fp);
	if (ai.has_lr)
		uw_reg_set(&regs, ai.ra, h->lr);

	max = 1 + (h->max_depth & D_DEPTH_MASK) % MAX_FRAMES;
	n = fuzz_walk(&cur, &cfg, &regs, frames, max, &res, im->base,
		      im->data, im->size);
	CHECK(res.err <= 0 && res.err >= UW_ERR_MIN);
	CHECK(uw_strerror(res.err) != NULL);
	CHECK(frames[0].pc == pc && frames[0].sp == sp);
	for (i = 0; i < n; i++) {
		CHECK(frames[i].source < UW_SRC_COUNT);
		CHECK(frames[i].module == UW_NO_MODULE || frames[i].module < 2);
		/* The last frame is never unwound; the others always are. */
		CHECK((frames[i].source == UW_SRC_NONE) == (i == n - 1));
	}
	/* Without signal frames, each caller's sp lies above its callee's. */
	if (cfg.flags & UW_WALK_NO_SIGFRAME)
		for (i = 1; i < n; i++)
			CHECK(frames[i].sp >= frames[i - 1].sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hdr h;
	struct uw_sframe sf;
	struct uw_span sec;
	struct image im;
	uint8_t *buf;
	size_t len;
	int err;

	if (size < HDR_SIZE)
		return 0;
	h.sframe_len = (uint16_t)get_le(data, 2);
	h.flags = data[2];
	h.max_depth = data[3];
	h.sec_addr = (uint32_t)get_le(data + 4, 4);
	h.pc_off = (uint32_t)get_le(data + 8, 4);
	h.sp_off = (uint16_t)get_le(data + 12, 2);
	h.fp_off = (uint16_t)get_le(data + 14, 2);
	h.lr = get_le(data + 16, 8);
	h.pac_mask = get_le(data + 24, 8);
	data += HDR_SIZE;
	size -= HDR_SIZE;

	len = h.sframe_len < size ? h.sframe_len : size;
	/* Exactly len bytes, so ASan catches a read past either end. */
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	memcpy(buf + (h.flags & F_ODD ? 1 : 0), data, len);
	sec.data = buf + (h.flags & F_ODD ? 1 : 0);
	sec.size = len;
	sec.addr = h.sec_addr;
	if (!(h.flags & F_ODD)) {
		/* Shrink the allocation to exactly len bytes. */
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return 0;
		}
		memcpy(exact, buf, len);
		free(buf);
		buf = exact;
		sec.data = buf;
	}

	im.data = data + len;
	im.size = size - len;
	im.base = STACK_BASE;

	err = uw_sframe_init(&sf, &sec);
	CHECK(err <= 0 && err >= UW_ERR_MIN);
	if (!err) {
		CHECK(sf.fde_start <= sec.size && sf.fre_start <= sec.size);
		CHECK((uint64_t)sf.fre_start + sf.fre_len <= sec.size);
		g_checked = check_table(&sf, 1 + (h.fp_off >> 12));
		edges(&sf);
		lookup(&sf, (uint32_t)(h.sec_addr + h.pc_off));
		lookup(&sf, h.lr);
		lookup(&sf, 0);
		lookup(&sf, UINT64_MAX);
	}
	walk(&h, err ? NULL : &sf, &im);
	g_checked = false;
	free(buf);
	return 0;
}
