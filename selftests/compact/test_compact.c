// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Apple compact unwind: hand-built __unwind_info tables for what the
 * linker here does not produce (regular pages, x86 encodings, palette
 * edges, malformed tables), every encoding form against rules derived by
 * hand from LLVM's compact_unwind_encoding.h, the frameless register
 * permutation against an encoder written from that header's algorithm
 * (every permutation of up to six registers), and walks over synthetic
 * stacks.  Prints TAP.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "../common/tap.h"
#include "../common/cachewalk.h"
#include "cu_build.h"

/* ---- header and index checks ---- */

static void test_header(void)
{
	static const uint32_t pg[1][2] = { { 0x100, 0x02010000 } };
	struct uw_cu cu;
	struct uw_span s;
	struct tb t;
	size_t p;

	p = header(&t, NULL, 0, 2);
	index_entry(&t, 0, 0x100, (uint32_t)p);
	index_entry(&t, 1, 0x200, 0);
	regular(&t, p, pg, 1);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == 0, "a minimal table initialises");
	ok(init(&cu, &t, 0, UW_ARCH_ARM) == UW_EARCH, "ARM: UW_EARCH");
	ok(init(&cu, &t, ~(uint64_t)0 - 5, UW_ARCH_X86_64) == UW_EOVERFLOW,
	   "a base that cannot hold 32-bit offsets: UW_EOVERFLOW");
	ok(uw_cu_init(&cu, NULL, 0, UW_ARCH_X86_64) == UW_EINVAL,
	   "no section: UW_EINVAL");
	s.data = t.b;
	s.size = 20;
	s.addr = 0;
	ok(uw_cu_init(&cu, &s, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "a section shorter than the header: UW_EHEADER");
	put32(&t, 0, 2);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EVERSION,
	   "version 2: UW_EVERSION");
	put32(&t, 0, 1);
	put32(&t, 8, 0x40000000);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "common encodings past the end: UW_EHEADER");
	put32(&t, 8, 0);
	put32(&t, 16, 5);
	put32(&t, 12, (uint32_t)t.n - 8);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "personalities past the end: UW_EHEADER");
	put32(&t, 16, 0);
	put32(&t, 24, 0);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "no index entry (not even the sentinel): UW_EHEADER");
	put32(&t, 24, 1000);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "index past the end: UW_EHEADER");
	put32(&t, 24, 2);
	index_entry(&t, 1, 0x200, 8);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "last index entry not a sentinel: UW_EHEADER");
	index_entry(&t, 1, 0x200, 0);
	index_entry(&t, 0, 0x100, 0);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EHEADER,
	   "a page offset of 0 before the sentinel: UW_EHEADER");
	index_entry(&t, 0, 0x300, (uint32_t)p);
	ok(init(&cu, &t, 0, UW_ARCH_X86_64) == UW_EUNSORTED,
	   "index not sorted: UW_EUNSORTED");
}

/* ---- lookups ---- */

static bool find(const struct uw_cu *cu, uint64_t pc, uint64_t start,
		 uint64_t end, uint32_t enc)
{
	struct uw_cu_entry e;
	int err = uw_cu_find(cu, pc, &e);

	if (err) {
		diag("pc %#llx: %s", (unsigned long long)pc, uw_strerror(err));
		return false;
	}
	if (e.fn_start != start || e.fn_end != end || e.encoding != enc)
		diag("pc %#llx: [%#llx, %#llx) %#x", (unsigned long long)pc,
		     (unsigned long long)e.fn_start,
		     (unsigned long long)e.fn_end, e.encoding);
	return e.fn_start == start && e.fn_end == end && e.encoding == enc;
}

/*
 * Two pages: a regular one (with a duplicate address, lld style: an
 * empty encoding-0 entry first) and a compressed one whose last function
 * ends at the sentinel; base 0x100000000.
 */
static void test_pages(void)
{
	static const uint32_t common[2] = { 0x01000000, 0x02020000 };
	static const uint32_t local[2] = { 0x02040000, 0x03012000 };
	static const uint32_t reg[3][2] = {
		{ 0x1000, 0x02010000 }, { 0x1040, 0 }, { 0x1040, 0x01010001 },
	};
	/* compressed offsets from 0x1100; index 0-1 common, 2-3 local */
	static const uint32_t cmp[5][2] = {
		{ 0x0, 0 }, { 0x10, 1 }, { 0x20, 2 }, { 0x30, 3 }, { 0x40, 1 },
	};
	const uint64_t b = 0x100000000ull;
	struct uw_cu_entry e;
	struct uw_cu cu;
	struct tb t;
	size_t p, q;
	uint32_t page = 0, index = 0, n = 0;
	int err;

	p = header(&t, common, 2, 3);
	q = regular(&t, p, reg, 3);
	index_entry(&t, 0, 0x1000, (uint32_t)p);
	index_entry(&t, 1, 0x1100, (uint32_t)q);
	index_entry(&t, 2, 0x1180, 0);
	compressed(&t, q, cmp, 5, local, 2);
	ok(init(&cu, &t, b, UW_ARCH_X86_64) == 0, "two pages: init");
	ok(find(&cu, b + 0x1000, b + 0x1000, b + 0x1040, 0x02010000) &&
	   find(&cu, b + 0x103f, b + 0x1000, b + 0x1040, 0x02010000),
	   "regular page: first entry, both ends");
	ok(find(&cu, b + 0x1040, b + 0x1040, b + 0x1100, 0x01010001),
	   "regular page: of two entries at one address, the last counts");
	ok(find(&cu, b + 0x10ff, b + 0x1040, b + 0x1100, 0x01010001),
	   "regular page: the last entry runs to the next index entry");
	ok(find(&cu, b + 0x1100, b + 0x1100, b + 0x1110, 0x01000000) &&
	   find(&cu, b + 0x1115, b + 0x1110, b + 0x1120, 0x02020000),
	   "compressed page: indices 0 and 1 pick common encodings");
	ok(find(&cu, b + 0x1120, b + 0x1120, b + 0x1130, 0x02040000) &&
	   find(&cu, b + 0x1130, b + 0x1130, b + 0x1140, 0x03012000),
	   "compressed page: indices 2 and 3 pick the page's own (common"
	   " count = the edge)");
	ok(find(&cu, b + 0x117f, b + 0x1140, b + 0x1180, 0x02020000),
	   "the last function ends at the sentinel");
	ok(uw_cu_find(&cu, b + 0x1180, &e) == UW_ENOENT &&
	   uw_cu_find(&cu, b + 0xfff, &e) == UW_ENOENT &&
	   uw_cu_find(&cu, 5, &e) == UW_ENOENT &&
	   uw_cu_find(&cu, b + 0x100000000ull, &e) == UW_ENOENT,
	   "outside [first, sentinel), below the base, past 32 bits: UW_ENOENT");
	while ((err = uw_cu_next(&cu, &page, &index, &e)) == 0)
		n++;
	ok(err == 1 && n == 8, "uw_cu_next visits all 8 entries (%u)", n);

	/* The palette's edge: index 4 = common 2 + local 2 is one too far. */
	put32(&t, q + 12 + 4 * 4, 4u << 24 | 0x40);
	ok(init(&cu, &t, b, UW_ARCH_X86_64) == 0 &&
	   uw_cu_find(&cu, b + 0x1140, &e) == UW_EBADDATA,
	   "compressed index past both palettes: UW_EBADDATA");
	put32(&t, q + 12 + 4 * 4, 1u << 24 | 0x40);

	/* Malformed pages */
	put32(&t, q, 7);
	ok(uw_cu_find(&cu, b + 0x1100, &e) == UW_EBADDATA,
	   "second-level page kind 7: UW_EBADDATA");
	put32(&t, q, 3);
	put16(&t, q + 6, 0x4000);
	ok(uw_cu_find(&cu, b + 0x1100, &e) == UW_EBOUNDS,
	   "page entries past the section: UW_EBOUNDS");
	put16(&t, q + 6, 5);
	put16(&t, q + 10, 0x4000);
	ok(uw_cu_find(&cu, b + 0x1100, &e) == UW_EBOUNDS,
	   "page palette past the section: UW_EBOUNDS");
	put16(&t, q + 10, 2);
	put32(&t, q + 12 + 4 * 1, 0x50);	/* 0x1150 before 0x1120 */
	page = index = n = 0;
	while ((err = uw_cu_next(&cu, &page, &index, &e)) == 0)
		n++;
	ok(err == UW_EUNSORTED, "an unsorted page: uw_cu_next says"
	   " UW_EUNSORTED");
	put32(&t, q + 12 + 4 * 1, 1u << 24 | 0x10);
	put32(&t, q + 12 + 4 * 4, 1u << 24 | 0x90);	/* past 0x1180 */
	ok(uw_cu_find(&cu, b + 0x1170, &e) == UW_EUNSORTED,
	   "an entry past its page's end: UW_EUNSORTED");
	put32(&t, p + 8, 0x900);		/* regular entry below fo */
	ok(uw_cu_find(&cu, b + 0x1000, &e) == UW_EUNSORTED ||
	   uw_cu_find(&cu, b + 0x1000, &e) == UW_ENOENT,
	   "a regular entry below its page's first function: no answer");
	put32(&t, p + 4, 0);	/* page at an odd place: entries at 0 */
}

/* ---- encodings ---- */

struct save {
	int reg, off;
};

static bool saves(const struct uw_cu_rule *r, const struct save *s,
		  unsigned int n)
{
	unsigned int i;

	if (r->nsaved != n) {
		diag("%u saved, want %u", r->nsaved, n);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (r->saved[i].reg != s[i].reg || r->saved[i].off != s[i].off) {
			diag("saved[%u] = r%u@%d, want r%d@%d", i,
			     r->saved[i].reg, r->saved[i].off, s[i].reg,
			     s[i].off);
			return false;
		}
	}
	return true;
}

static int decode(enum uw_arch arch, uint32_t enc, struct uw_cu_rule *r)
{
	struct uw_cu cu;

	memset(&cu, 0, sizeof(cu));
	cu.arch = (uint8_t)arch;
	return uw_cu_decode(&cu, enc, r);
}

static void test_encodings(void)
{
	static const struct save worked[5] = {
		{ 3, -56 }, { 12, -48 }, { 13, -40 }, { 14, -32 }, { 15, -24 },
	};
	static const struct save x86frame[2] = { { 3, -16 }, { 6, -12 } };
	static const struct save gap[2] = { { 3, -24 }, { 7, -16 } };
	static const struct save a64[4] = {
		{ 19, -24 }, { 20, -32 }, { 27, -40 }, { 28, -48 },
	};
	static const struct save a64d[4] = {
		{ 72, -24 }, { 73, -32 }, { 78, -40 }, { 79, -48 },
	};
	static const struct save a64fl[2] = { { 21, -8 }, { 22, -16 } };
	struct uw_cu_rule r;

	ok(decode(UW_ARCH_X86_64, 0x010558d1, &r) == 0 &&
	   r.kind == UW_CU_FRAME && saves(&r, worked, 5),
	   "x86-64 0x010558d1: rbp frame, rbx at CFA-56 .. r15 at CFA-24"
	   " (REFERENCES.md's vector)");
	ok(decode(UW_ARCH_X86, 0x01020029, &r) == 0 && r.kind == UW_CU_FRAME &&
	   saves(&r, x86frame, 2),
	   "x86 0x01020029: ebp frame, ebx at CFA-16, esi at CFA-12");
	/* slots: 0 ebx, 1 empty (still a word), 2 edi; offset 4 words */
	ok(decode(UW_ARCH_X86, 0x01040101, &r) == 0 && saves(&r, gap, 2),
	   "x86 frame with an empty slot: the slot still takes its word");
	ok(decode(UW_ARCH_X86_64, 0x02080000, &r) == 0 &&
	   r.kind == UW_CU_FRAMELESS && r.stack_size == 64 && !r.nsaved,
	   "x86-64 0x02080000: frameless, CFA = sp + 64");
	ok(decode(UW_ARCH_X86, 0x02050000, &r) == 0 && r.stack_size == 20,
	   "x86 0x02050000: frameless, CFA = sp + 20 (4-byte words)");
	ok(decode(UW_ARCH_X86_64, 0x03032000, &r) == 0 &&
	   r.kind == UW_CU_FRAMELESS_IND && r.sub_off == 3 &&
	   r.stack_size == 8,
	   "x86-64 0x03032000: indirect, sub immediate at +3, adjust 8");
	ok(decode(UW_ARCH_X86, 0x03064000, &r) == 0 && r.sub_off == 6 &&
	   r.stack_size == 8, "x86 0x03064000: indirect, adjust 2 words = 8");
	ok(decode(UW_ARCH_X86_64, 0x04001234, &r) == 0 &&
	   r.kind == UW_CU_DWARF && r.dwarf_off == 0x1234,
	   "x86-64 DWARF mode: the __eh_frame offset is reported");
	ok(decode(UW_ARCH_AARCH64, 0x03abcdef, &r) == 0 &&
	   r.kind == UW_CU_DWARF && r.dwarf_off == 0xabcdef,
	   "arm64 DWARF mode (3): offset 0xabcdef");
	ok(decode(UW_ARCH_X86_64, 0, &r) == 0 && r.kind == UW_CU_NONE &&
	   decode(UW_ARCH_AARCH64, 0x40000000, &r) == 0 &&
	   r.kind == UW_CU_NONE,
	   "encoding 0 and a null mode with flags: no unwind information");
	ok(decode(UW_ARCH_AARCH64, 0x04000011, &r) == 0 &&
	   r.kind == UW_CU_FRAME && saves(&r, a64, 4),
	   "arm64 0x04000011: frame, x19/x20 then x27/x28 below fp/lr");
	ok(decode(UW_ARCH_AARCH64, 0x04000900, &r) == 0 && saves(&r, a64d, 4),
	   "arm64 0x04000900: d8/d9 and d14/d15 (DWARF 72+)");
	ok(decode(UW_ARCH_AARCH64, 0x04000f1f, &r) == 0 && r.nsaved == 18 &&
	   r.saved[17].reg == 79 && r.saved[17].off == -160,
	   "arm64: all nine pairs, d15 last at CFA-160");
	ok(decode(UW_ARCH_AARCH64, 0x02003000, &r) == 0 &&
	   r.kind == UW_CU_FRAMELESS && r.stack_size == 48 && r.ra_in_lr,
	   "arm64 0x02003000: frameless, CFA = sp + 48, ra in lr");
	ok(decode(UW_ARCH_AARCH64, 0x02001002, &r) == 0 && saves(&r, a64fl, 2),
	   "arm64 frameless x21/x22: saved from CFA-8 down");
	ok(decode(UW_ARCH_X86_64, 0x05000000, &r) == UW_EBADDATA &&
	   decode(UW_ARCH_X86_64, 0x0f000000, &r) == UW_EBADDATA &&
	   decode(UW_ARCH_AARCH64, 0x01000000, &r) == UW_EBADDATA &&
	   decode(UW_ARCH_AARCH64, 0x05000000, &r) == UW_EBADDATA,
	   "reserved modes (x86 5, 15; arm64 1, 5): UW_EBADDATA");
	ok(decode(UW_ARCH_X86_64, 0x01050006, &r) == UW_EBADDATA &&
	   decode(UW_ARCH_X86_64, 0x01050038, &r) == UW_EBADDATA,
	   "frame register code 6 (bp) or 7: UW_EBADDATA");
	ok(decode(UW_ARCH_X86_64, 0x01010009, &r) == UW_EBADDATA &&
	   decode(UW_ARCH_X86, 0x01000001, &r) == UW_EBADDATA,
	   "a frame slot at or above bp (slot >= offset): UW_EBADDATA");
	ok(decode(UW_ARCH_X86_64, 0x02011c00, &r) == UW_EBADDATA,
	   "frameless register count 7: UW_EBADDATA");
	ok(decode(UW_ARCH_X86_64, 0x02010406, &r) == UW_EBADDATA &&
	   decode(UW_ARCH_X86_64, 0x02011800 | 720, &r) == UW_EBADDATA,
	   "a permutation out of range (1 reg: 6; 6 regs: 720): UW_EBADDATA");
	ok(decode(UW_ARCH_X86_64, 0x02010000 | (0 << 10) | 1, &r) ==
	   UW_EBADDATA, "no register but a non-zero permutation: UW_EBADDATA");
}

/*
 * The encoder of compact_unwind_encoding.h's comment: registers
 * (codes 1-6) renumbered by how many smaller ones precede them, then
 * weighted 120/24/6/2/1 (six or five), 60/12/3/1 (four), 20/4/1,
 * 5/1, 1.
 */
static uint32_t permute_encode(uint32_t count, const uint32_t regs[6])
{
	uint32_t renum[6] = { 0 }, i, j, less;

	for (i = 6 - count; i < 6; i++) {
		less = 0;
		for (j = 6 - count; j < i; j++)
			if (regs[j] < regs[i])
				less++;
		renum[i] = regs[i] - less - 1;
	}
	switch (count) {
	case 6: return 120 * renum[0] + 24 * renum[1] + 6 * renum[2] +
		       2 * renum[3] + renum[4];
	case 5: return 120 * renum[1] + 24 * renum[2] + 6 * renum[3] +
		       2 * renum[4] + renum[5];
	case 4: return 60 * renum[2] + 12 * renum[3] + 3 * renum[4] +
		       renum[5];
	case 3: return 20 * renum[3] + 4 * renum[4] + renum[5];
	case 2: return 5 * renum[4] + renum[5];
	case 1: return renum[5];
	default: return 0;
	}
}

static bool next_perm(uint32_t *a, uint32_t n, uint32_t k)
{
	/* next k-permutation of {1..n} in lexicographic order */
	uint32_t used[8], i, v, j;

	for (i = k; i-- > 0;) {
		memset(used, 0, sizeof(used));
		for (j = 0; j < i; j++)
			used[a[j]] = 1;
		for (v = a[i] + 1; v <= n; v++)
			if (!used[v])
				break;
		if (v > n)
			continue;
		a[i] = v;
		used[v] = 1;
		for (j = i + 1; j < k; j++) {
			for (v = 1; used[v]; v++)
				;
			a[j] = v;
			used[v] = 1;
		}
		return true;
	}
	return false;
}

static void test_permutations(void)
{
	static const uint8_t x64[7] = { 0, 3, 12, 13, 14, 15, 6 };
	static const uint8_t x86[7] = { 0, 3, 1, 2, 7, 6, 5 };
	uint32_t count, a[6], regs[6], i, perm, total = 0, bad = 0;
	struct uw_cu_rule r, r32;

	for (count = 1; count <= 6; count++) {
		for (i = 0; i < count; i++)
			a[i] = i + 1;
		do {
			memset(regs, 0, sizeof(regs));
			for (i = 0; i < count; i++)
				regs[6 - count + i] = a[i];
			perm = permute_encode(count, regs);
			total++;
			if (decode(UW_ARCH_X86_64, 0x02100000 | count << 10 |
				   perm, &r) ||
			    decode(UW_ARCH_X86, 0x02100000 | count << 10 |
				   perm, &r32) ||
			    r.nsaved != count || r32.nsaved != count) {
				bad++;
				continue;
			}
			for (i = 0; i < count; i++) {
				/* in push order, below the return address */
				int off = -8 * (int)(count + 1) + 8 * (int)i;

				if (r.saved[i].reg != x64[a[i]] ||
				    r.saved[i].off != off ||
				    r32.saved[i].reg != x86[a[i]] ||
				    r32.saved[i].off != off / 2) {
					bad++;
					break;
				}
			}
		} while (next_perm(a, 6, count));
	}
	ok(total == 6 + 30 + 120 + 360 + 720 + 720 && bad == 0,
	   "every permutation of 1-6 registers decodes to its registers, in"
	   " order, below the return address (%u tried, %u wrong)", total,
	   bad);
}

/* ---- the walker ---- */

#define STK	0x7ff000ull	/* stack image base */
#define STKN	4096
#define TXT	0x401000ull	/* text image base */

struct mem {
	uint8_t stack[STKN];
	uint8_t text[64];
	bool fail_text;
};

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct mem *m = ctx;

	if (addr >= STK && addr - STK <= STKN - len) {
		memcpy(dst, m->stack + (addr - STK), len);
		return 0;
	}
	if (!m->fail_text && addr >= TXT && addr - TXT <= sizeof(m->text) - len) {
		memcpy(dst, m->text + (addr - TXT), len);
		return 0;
	}
	return -1;
}

static void poke(struct mem *m, uint64_t addr, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		m->stack[addr - STK + i] = (uint8_t)(v >> (8 * i));
}

/* What every walk below uses. */
static struct fixture {
	struct uw_cursor cur;
	struct mem m;
	struct uw_walk_cfg cfg;
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_module mod;
	struct uw_regs regs;
	struct uw_cu cu;
	struct tb t;
} fx;

/*
 * A table of one regular page holding entries e[0..n), functions from
 * image offset fo to fo + 0x40, the image at base; one module [TXT, TXT +
 * 0x40) unwound by it; memory and registers cleared.  The page's offset.
 */
static size_t walk_setup(const uint32_t (*e)[2], uint16_t n, uint32_t fo,
			 uint64_t base, enum uw_arch arch)
{
	size_t p;

	memset(&fx, 0, sizeof(fx));
	p = header(&fx.t, NULL, 0, 2);
	index_entry(&fx.t, 0, fo, (uint32_t)p);
	index_entry(&fx.t, 1, fo + 0x40, 0);
	regular(&fx.t, p, e, n);
	ok(init(&fx.cu, &fx.t, base, arch) == 0, "walk table (%s): init",
	   uw_arch_name(arch));
	fx.mod.start = TXT;
	fx.mod.end = TXT + 0x40;
	fx.mod.cu = &fx.cu;
	fx.cfg.arch = arch;
	fx.cfg.mods = &fx.mod;
	fx.cfg.nmods = 1;
	fx.cfg.mem.read = mem_read;
	fx.cfg.mem.ctx = &fx.m;
	return p;
}

static size_t walk(size_t max)
{
	return uwt_walk(&fx.cur, &fx.cfg, &fx.regs, fx.fr, max, &fx.res);
}

/*
 * x86-64: leaf (frameless 32 bytes, rbx and r12 pushed) <- mid (indirect:
 * sub $0x100 at +3, adjust 1) <- outer (rbp frame saving r13) <- end.
 * Functions at TXT + 0x0 (outer), +0x10 (mid), +0x20 (leaf), sentinel
 * +0x40 (image offsets 0x1000 on: a regular page's are absolute); mid's
 * "sub" sits in the text image.
 */
static void test_walk_x86_64(void)
{
	static const uint32_t pg[4][2] = {
		{ 0x1000, 0x01010003 },	/* outer: frame, r13 at rbp-8 */
		{ 0x1010, 0x03032000 },	/* mid: ind, sub at +3, adjust 1 */
		{ 0x1020, 0 },		/* leaf placeholder */
		{ 0x1030, 0x04000040 },	/* dwarf */
	};
	uint32_t leafregs[6] = { 0, 0, 0, 0, 1, 2 };
	uint64_t sp0 = STK + 0x100, sp1, sp2, fp2;
	struct mem *m = &fx.m;
	struct uw_frame *fr = fx.fr;
	size_t p, n;

	p = walk_setup(pg, 4, 0x1000, TXT - 0x1000, UW_ARCH_X86_64);
	/* leaf: frameless, 32 bytes = 2 pushes + ra + 1 word, rbx then r12 */
	put32(&fx.t, p + 8 + 8 * 2 + 4,
	      0x02040000 | 2 << 10 | permute_encode(2, leafregs));
	/* mid's sub $0x100,%rsp at TXT + 0x10: 48 81 ec 00 01 00 00 */
	memcpy(m->text + 0x10, "\x48\x81\xec\x00\x01\x00\x00", 7);
	/* leaf frame: sp0 .. sp0 + 32: [+8] rbx, [+16] r12, [+24] ra */
	poke(m, sp0 + 8, 0x1111, 8);
	poke(m, sp0 + 16, 0x2222, 8);
	poke(m, sp0 + 24, TXT + 0x15, 8);	/* into mid */
	sp1 = sp0 + 32;
	/* mid: CFA = sp1 + 0x100 + 8; ra at CFA - 8 */
	poke(m, sp1 + 0x100, TXT + 0x05, 8);	/* into outer */
	sp2 = sp1 + 0x108;
	/* outer: rbp frame; rbp = sp2 + 16: [rbp] saved rbp, [rbp+8] ra */
	fp2 = sp2 + 16;
	poke(m, fp2, 0, 8);
	poke(m, fp2 + 8, TXT + 0x35, 8);	/* into the dwarf function */
	poke(m, fp2 - 8, 0x3333, 8);		/* r13 */
	uw_reg_set(&fx.regs, UW_X86_64_RIP, TXT + 0x24);
	uw_reg_set(&fx.regs, UW_X86_64_RSP, sp0);
	uw_reg_set(&fx.regs, UW_X86_64_RBP, fp2);
	uw_reg_set(&fx.regs, 0, 0xdead);	/* rax: not carried */
	uw_reg_set(&fx.regs, 15, 0xf15);	/* r15: never saved */
	n = walk(8);
	ok(n == 4 && fr[0].source == UW_SRC_COMPACT &&
	   fr[1].pc == TXT + 0x15 && fr[1].sp == sp1 &&
	   fr[1].source == UW_SRC_COMPACT && fr[2].pc == TXT + 0x05 &&
	   fr[2].sp == sp2 && fr[2].source == UW_SRC_COMPACT &&
	   fr[3].pc == TXT + 0x35 && fr[3].sp == fp2 + 16,
	   "x86-64 walk: frameless, indirect (sub read from text), frame"
	   " (%zu frames, stop %s)", n, uw_stop_name(fx.res.stop));
	ok(fx.res.stop == UW_STOP_END && fx.cur.source == UW_SRC_FP,
	   "DWARF mode falls back to frame pointers, which end at fp 0"
	   " (%s, %s)", uw_stop_name(fx.res.stop),
	   uw_source_name(fx.cur.source));
	ok(fx.cur.regs.r[13] == 0x3333 && fx.cur.regs.r[3] == 0x1111 &&
	   fx.cur.regs.r[12] == 0x2222 && fx.cur.regs.r[15] == 0xf15 &&
	   !(fx.cur.regs.valid & 1),
	   "restored rbx, r12 (leaf), r13 (outer); r15 carried; rax dropped");

	/* The sub's opcode checked; text read through the accessor. */
	m->text[0x11] = 0x83;
	n = walk(8);
	ok(n == 2 && fx.res.err == UW_EBADDATA,
	   "indirect: not a 48 81 ec sub at the offset: UW_EBADDATA");
	m->text[0x11] = 0x81;
	m->fail_text = true;
	n = walk(8);
	ok(n == 2 && fx.res.err == UW_EREAD &&
	   fx.res.stop == UW_STOP_READ_FAULT,
	   "indirect: the text read fails: UW_EREAD");
	m->fail_text = false;
	fx.cfg.stack_lo = STK;
	fx.cfg.stack_hi = STK + STKN;
	n = walk(8);
	ok(n == 4, "stack bounds do not stop the read of the text (%zu)", n);

	/* Link-time addresses in the table, the slide in the module's bias:
	 * the same frames, the sub read at its run-time address. */
	ok(init(&fx.cu, &fx.t, TXT - 0x1000 - 0x10000, UW_ARCH_X86_64) == 0,
	   "walk table at link-time addresses: init");
	fx.mod.bias = 0x10000;
	n = walk(8);
	ok(n == 4 && fr[1].pc == TXT + 0x15 && fr[1].sp == sp1 &&
	   fr[2].pc == TXT + 0x05 && fr[2].sp == sp2 &&
	   fr[2].source == UW_SRC_COMPACT,
	   "load bias: the same walk, the indirect sub read at run time (%zu)",
	   n);

	/* encoding 0: frame pointers */
	put32(&fx.t, p + 8 + 8 * 2 + 4, 0);
	n = walk(2);
	ok(n == 2 && fr[0].source == UW_SRC_FP,
	   "encoding 0: the walker falls back to frame pointers");
}

/* arm64: frameless leaf (ra in lr) <- frame with x19/x20. */
static void test_walk_arm64(void)
{
	static const uint32_t pg[2][2] = {
		{ 0x00, 0x04000001 }, { 0x20, 0x02002000 },
	};
	uint64_t sp0 = STK + 0x200, fp = sp0 + 0x40;
	struct uw_frame *fr = fx.fr;
	size_t n;

	walk_setup(pg, 2, 0, TXT, UW_ARCH_AARCH64);
	poke(&fx.m, fp, 0, 8);				/* caller's x29 */
	poke(&fx.m, fp + 8, 0x8000000000401234ull, 8);	/* signed lr */
	poke(&fx.m, fp - 8, 0x19, 8);
	poke(&fx.m, fp - 16, 0x20, 8);
	fx.cfg.pac_mask = 0xff80000000000000ull;
	uw_reg_set(&fx.regs, UW_AARCH64_PC, TXT + 0x28);
	uw_reg_set(&fx.regs, UW_AARCH64_SP, sp0);
	uw_reg_set(&fx.regs, UW_AARCH64_X30, TXT + 0x08);
	uw_reg_set(&fx.regs, UW_AARCH64_X29, fp);
	n = walk(8);
	ok(n == 3 && fr[1].pc == TXT + 0x08 && fr[1].sp == sp0 + 32 &&
	   fr[2].pc == 0x401234 && fr[2].sp == fp + 16 &&
	   fr[0].source == UW_SRC_COMPACT && fr[1].source == UW_SRC_COMPACT,
	   "arm64 walk: frameless leaf (lr), then frame; pointer-auth bits"
	   " cleared (%zu frames, %s)", n, uw_stop_name(fx.res.stop));
	ok(fx.cur.regs.r[19] == 0x19 && fx.cur.regs.r[20] == 0x20,
	   "arm64 frame: x19, x20 restored from below the frame record");
	/* A leaf whose lr is unknown: no caller. */
	fx.regs.valid &= ~((uint64_t)1 << UW_AARCH64_X30);
	n = walk(8);
	ok(n == 1 && fx.res.err == UW_EREG, "frameless without lr: UW_EREG");
}

/* x86 (32-bit): ebp frame <- frameless indirect with 81 ec. */
static void test_walk_x86(void)
{
	static const uint32_t pg[2][2] = {
		{ 0x00, 0x01010001 }, { 0x20, 0x03024000 },
	};
	uint64_t sp0 = STK + 0x300, sp1, fp;
	struct uw_frame *fr = fx.fr;
	size_t n;

	walk_setup(pg, 2, 0, TXT, UW_ARCH_X86);
	memcpy(fx.m.text + 0x20, "\x81\xec\x40\x00\x00\x00", 6);	/* subl $64 */
	/* indirect: size 64 + adjust 2 words = 72; ra at CFA-4 */
	sp1 = sp0 + 72;
	poke(&fx.m, sp1 - 4, TXT + 0x10, 4);
	fp = sp1 + 8;
	poke(&fx.m, fp, 0, 4);
	poke(&fx.m, fp + 4, 0, 4);
	poke(&fx.m, fp - 4, 0xb0b, 4);		/* ebx at ebp-4 */
	uw_reg_set(&fx.regs, UW_X86_EIP, TXT + 0x28);
	uw_reg_set(&fx.regs, UW_X86_ESP, sp0);
	uw_reg_set(&fx.regs, UW_X86_EBP, fp);
	n = walk(8);
	ok(n == 2 && fr[1].pc == TXT + 0x10 && fr[1].sp == sp1 &&
	   fr[0].source == UW_SRC_COMPACT && fx.res.stop == UW_STOP_END &&
	   fx.cur.regs.r[3] == 0xb0b,
	   "x86 walk: indirect (81 ec), then ebp frame restoring ebx (%zu,"
	   " %s)", n, uw_stop_name(fx.res.stop));
}

int main(void)
{
	tap_begin(-1);
	test_header();
	test_pages();
	test_encodings();
	test_permutations();
	test_walk_x86_64();
	test_walk_arm64();
	test_walk_x86();
	uwt_cache_report();
	return tap_done();
}
