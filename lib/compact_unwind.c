// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Apple compact unwind: __unwind_info lookup, encoding decoder and the
 * walker's step.
 *
 * Facts from LLVM's compact_unwind_encoding.h and libunwind's
 * CompactUnwinder.hpp: every field is little-endian; x86 register codes
 * are 1-6 (x86-64: rbx r12 r13 r14 r15 rbp; x86: ebx ecx edx edi esi
 * ebp); a frame encoding lists up to five registers, 3 bits each from the
 * lowest, saved from bp - 8 * offset upwards (a zero slot still takes
 * its word); a frameless encoding lists up to six as a Lehmer code, saved
 * just below the return address in the order decoded; arm64 pairs are
 * saved from just below the fp/lr pair (frame) or the CFA (frameless)
 * downwards, x19 first.  Where two entries share an address the last one
 * counts (lld writes a spurious encoding 0 before some functions).
 *
 * Unlike libunwind, nothing is trusted: a register code, a permutation
 * or a palette index out of range is an error, and the "sub" whose
 * immediate a frameless-indirect encoding names is checked before its
 * immediate is used.
 */
#include <uwind/uwind.h>
#include "span.h"
#include "walk.h"
#include "regsave.h"

#define REGULAR_PAGE	2
#define COMPRESSED_PAGE	3
#define IDX_SIZE	12	/* first-level index entry */

static int rd32(const struct uw_cu *cu, uint64_t off, uint32_t *v)
{
	return uwi_rd32(&cu->sec, off, false, v);
}

static int rd16(const struct uw_cu *cu, uint64_t off, uint16_t *v)
{
	return uwi_rd16(&cu->sec, off, false, v);
}

/* count elements of size bytes at off, inside the section. */
static bool array_ok(const struct uw_cu *cu, uint32_t off, uint32_t count,
		     unsigned int size)
{
	return uwi_span_has(&cu->sec, off, (uint64_t)count * size);
}

static int idx_fn(const struct uw_cu *cu, uint32_t i, uint32_t *fo)
{
	return rd32(cu, cu->idx_off + (uint64_t)i * IDX_SIZE, fo);
}

static int idx_page(const struct uw_cu *cu, uint32_t i, uint32_t *page)
{
	return rd32(cu, cu->idx_off + (uint64_t)i * IDX_SIZE + 4, page);
}

int uw_cu_init(struct uw_cu *cu, const struct uw_span *sec, uint64_t base,
	       enum uw_arch arch)
{
	uint32_t version, prev = 0, fo = 0, page = 0, i;

	if (!cu || !sec || !sec->data)
		return UW_EINVAL;
	if (arch != UW_ARCH_X86_64 && arch != UW_ARCH_X86 &&
	    arch != UW_ARCH_AARCH64)
		return UW_EARCH;
	if (base > ~(uint64_t)0 - 0xffffffffu)
		return UW_EOVERFLOW;
	cu->sec = *sec;
	cu->base = base;
	cu->arch = (uint8_t)arch;
	/* A header too short for its seven words is no header. */
	if (rd32(cu, 0, &version) || rd32(cu, 4, &cu->enc_off) ||
	    rd32(cu, 8, &cu->enc_count) || rd32(cu, 12, &cu->pers_off) ||
	    rd32(cu, 16, &cu->pers_count) || rd32(cu, 20, &cu->idx_off) ||
	    rd32(cu, 24, &cu->idx_count))
		return UW_EHEADER;
	if (version != UW_CU_VERSION)
		return UW_EVERSION;
	if (!array_ok(cu, cu->enc_off, cu->enc_count, 4) ||
	    !array_ok(cu, cu->pers_off, cu->pers_count, 4) ||
	    !array_ok(cu, cu->idx_off, cu->idx_count, IDX_SIZE) ||
	    cu->idx_count == 0)
		return UW_EHEADER;
	/* Sorted, pages everywhere but in the sentinel. */
	for (i = 0; i < cu->idx_count; i++) {
		idx_fn(cu, i, &fo);	/* inside: checked above */
		idx_page(cu, i, &page);
		if (fo < prev)
			return UW_EUNSORTED;
		if ((page == 0) != (i == cu->idx_count - 1))
			return UW_EHEADER;
		prev = fo;
	}
	return 0;
}

/* A second-level page's header: kind, entry array and, compressed, palette. */
struct page {
	uint32_t off;		/* section offset */
	uint32_t fo;		/* first function (index entry) */
	uint32_t end;		/* the next index entry's function offset */
	uint32_t entries;	/* section offset of the entries */
	uint16_t count;
	uint16_t enc_count;	/* compressed: local encodings */
	uint32_t enc_off;	/* compressed: section offset of them */
	bool compressed;
};

static uwi_always_inline int read_page(const struct uw_cu *cu, uint32_t i,
				      struct page *p)
{
	uint32_t kind;
	uint16_t eoff, ecount = 0, loff = 0;

	/* Each read can fail with UW_EBOUNDS alone (uwi_rd()). */
	if (idx_fn(cu, i, &p->fo) || idx_fn(cu, i + 1, &p->end) ||
	    idx_page(cu, i, &p->off) || rd32(cu, p->off, &kind) ||
	    rd16(cu, (uint64_t)p->off + 4, &eoff) ||
	    rd16(cu, (uint64_t)p->off + 6, &p->count))
		return UW_EBOUNDS;
	if (kind == COMPRESSED_PAGE) {
		if (rd16(cu, (uint64_t)p->off + 8, &loff) ||
		    rd16(cu, (uint64_t)p->off + 10, &ecount))
			return UW_EBOUNDS;
	} else if (kind != REGULAR_PAGE) {
		return UW_EBADDATA;
	}
	p->compressed = kind == COMPRESSED_PAGE;
	p->entries = p->off + eoff;	/* a wrap is caught below */
	p->enc_off = p->off + loff;
	p->enc_count = ecount;
	if (p->entries < p->off || p->enc_off < p->off ||
	    !array_ok(cu, p->entries, p->count, p->compressed ? 4 : 8) ||
	    !array_ok(cu, p->enc_off, p->enc_count, 4))
		return UW_EBOUNDS;
	return 0;
}

/* Entry j's function offset (image-relative); the page was checked. */
static uwi_always_inline uint32_t entry_fn(const struct uw_cu *cu,
					  const struct page *p, uint32_t j)
{
	uint32_t v = 0;

	if (p->compressed) {
		rd32(cu, p->entries + (uint64_t)j * 4, &v);
		/* fo + 24 bits cannot wrap to a small value unnoticed: */
		v &= 0xffffff;
		return p->fo > 0xffffffffu - v ? 0xffffffffu : p->fo + v;
	}
	rd32(cu, p->entries + (uint64_t)j * 8, &v);
	return v;
}

static uwi_always_inline int entry_enc(const struct uw_cu *cu,
				      const struct page *p, uint32_t j,
				      uint32_t *enc)
{
	uint32_t v = 0, k;

	if (!p->compressed)
		return rd32(cu, p->entries + (uint64_t)j * 8 + 4, enc);
	rd32(cu, p->entries + (uint64_t)j * 4, &v);
	k = v >> 24;
	/* Indices past the common encodings pick the page's own. */
	if (k < cu->enc_count)
		return rd32(cu, cu->enc_off + (uint64_t)k * 4, enc);
	k -= cu->enc_count;
	if (k >= p->enc_count)
		return UW_EBADDATA;
	return rd32(cu, p->enc_off + (uint64_t)k * 4, enc);
}

/* Fill e from entry j of page i (p); end: where the entry stops. */
static uwi_always_inline int fill(const struct uw_cu *cu, const struct page *p,
				 uint32_t i, uint32_t j, struct uw_cu_entry *e)
{
	uint32_t start = entry_fn(cu, p, j);
	uint32_t end = j + 1 < p->count ? entry_fn(cu, p, j + 1) : p->end;
	int err;

	if (end < start || start < p->fo || end > p->end)
		return UW_EUNSORTED;
	err = entry_enc(cu, p, j, &e->encoding);
	if (err)
		return err;
	e->fn_start = cu->base + start;
	e->fn_end = cu->base + end;
	e->page = i;
	e->index = j;
	e->compressed = p->compressed;
	return 0;
}

int uw_cu_find(const struct uw_cu *cu, uint64_t pc, struct uw_cu_entry *e)
{
	uint32_t lo, hi, mid, fo, off, pi;
	struct page p;
	int err;

	if (pc < cu->base || pc - cu->base > 0xffffffffu)
		return UW_ENOENT;
	off = (uint32_t)(pc - cu->base);
	/* Last index entry at or below off, the sentinel excluded. */
	err = idx_fn(cu, cu->idx_count - 1, &fo);
	if (err)
		return err;
	if (off >= fo)
		return UW_ENOENT;
	lo = 0;
	hi = cu->idx_count - 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		err = idx_fn(cu, mid, &fo);
		if (err)
			return err;
		if (fo <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return UW_ENOENT;	/* before the first function */
	pi = lo - 1;
	err = read_page(cu, pi, &p);
	if (err)
		return err;
	/* The same within the page: the last of equal offsets wins. */
	lo = 0;
	hi = p.count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (entry_fn(cu, &p, mid) <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return UW_ENOENT;
	err = fill(cu, &p, pi, lo - 1, e);
	if (err)
		return err;
	/* Only an unsorted page can give an entry that ends before off. */
	return off < e->fn_end - cu->base ? 0 : UW_EUNSORTED;
}

int uw_cu_next(const struct uw_cu *cu, uint32_t *page, uint32_t *index,
	       struct uw_cu_entry *e)
{
	struct page p;
	int err;

	while (*page + 1 < cu->idx_count) {
		err = read_page(cu, *page, &p);
		if (err)
			return err;
		if (*index < p.count) {
			err = fill(cu, &p, *page, *index, e);
			if (err)
				return err;
			(*index)++;
			return 0;
		}
		(*page)++;
		*index = 0;
	}
	return UW_CU_NEXT_END;
}

/* ---- the whole-table check ---- */

/*
 * The LSDA index array, as dyld reads it: from the first index entry's
 * LSDA offset to the sentinel's, whole 8-byte entries, in the section.
 * The entries in between are not read: lld (a DenseMap's default for a
 * page whose first function has no LSDA) may point a page's offset back
 * to the array's start, so only "inside the array" holds for them.
 */
static int lsda_array(const struct uw_cu *cu, uint32_t *lo, uint32_t *hi)
{
	rd32(cu, cu->idx_off + 8, lo);	/* the index is inside: init */
	rd32(cu, cu->idx_off + (uint64_t)(cu->idx_count - 1) * IDX_SIZE + 8,
	     hi);
	if (*hi < *lo || (*hi - *lo) % 8 || *hi > cu->sec.size)
		return UW_EHEADER;
	return 0;
}

/*
 * An encoding a lookup can hand out: its personality index (1-based)
 * names an entry of the personality array, and it decodes.
 */
static uwi_noinline int check_enc(const struct uw_cu *cu, uint32_t enc)
{
	struct uw_cu_rule r;

	if ((enc & UW_CU_PERSONALITY) >> 28 > cu->pers_count)
		return UW_EBADDATA;
	return uw_cu_decode(cu, enc, &r);
}

/*
 * Index entry c->item before its page's entries: its LSDA offset is a
 * whole entry of the array, and all pages so far hold no more entries
 * than the section has room for (index entries sharing a page would
 * otherwise make the check quadratic).
 */
static int check_page(const struct uw_cu *cu, const struct page *p,
		      struct uw_check *c)
{
	uint32_t lo, hi, at = 0;
	int err = lsda_array(cu, &lo, &hi);

	if (err)
		return err;
	rd32(cu, cu->idx_off + (uint64_t)c->item * IDX_SIZE + 8, &at);
	if (at < lo || at > hi || (at - lo) % 8)
		return UW_EBOUNDS;
	c->total += p->count;
	return c->total * 4 > cu->sec.size ? UW_EBADDATA : 0;
}

/*
 * Entry j of page i, j below its count: what uw_cu_find() and
 * uw_cu_next() read of it (uw_cu_next() reads it), and its encoding.
 */
static int check_entry(const struct uw_cu *cu, uint32_t i, uint32_t j,
		       uint32_t *enc)
{
	struct uw_cu_entry e;
	int err = uw_cu_next(cu, &i, &j, &e);

	if (err)
		return err;	/* never UW_CU_NEXT_END: j is below the count */
	*enc = e.encoding;
	return 0;
}

/* The unit of work check_next() hands out. */
enum cu_unit {
	CU_DONE,	/* the whole table is checked */
	CU_MORE,	/* the call's limit is reached */
	CU_PAGE,	/* a page begun (and checked) */
	CU_ENC,		/* an encoding for the caller to check */
};

/*
 * The check's next unit (*u): a page begun, an entry, a common encoding.
 * CU_ENC with the encoding of an entry or the common encodings in *enc,
 * which the caller checks (so that check_enc()'s rule is never on the
 * stack with this frame's page).  c->item is the index entry whose page
 * is checked (the sentinel's number for the LSDA array and the common
 * encodings); c->sub is 0 before the page is begun, then 1 + its entries
 * handed out (the common encodings handed out, at the sentinel);
 * c->total counts the entries of all pages begun.  Returns 0 or the
 * error of the unit.
 */
static uwi_noinline int check_next(const struct uw_cu *cu, struct uw_check *c,
				   uint64_t *units, uint32_t *enc,
				   enum cu_unit *u)
{
	uint32_t lo, hi;
	struct page p;
	int err;

	*u = CU_MORE;
	/* Every page once (read again for each entry), each entry once. */
	while (c->item < cu->idx_count - 1) {
		err = read_page(cu, c->item, &p);
		if (err)
			return err;
		if (c->sub > p.count) {
			c->item++;
			c->sub = 0;
			continue;
		}
		if (c->limit && *units >= c->limit)
			return 0;
		(*units)++;
		if (!c->sub) {
			c->sub = 1;
			*u = CU_PAGE;
			return check_page(cu, &p, c);
		}
		err = check_entry(cu, c->item, c->sub - 1, enc);
		c->sub++;
		*u = CU_ENC;
		return err;
	}
	if (!c->sub) {
		err = lsda_array(cu, &lo, &hi);
		if (err)
			return err;
	}
	if (c->sub >= cu->enc_count) {
		*u = CU_DONE;
		return 0;
	}
	if (c->limit && *units >= c->limit)
		return 0;
	(*units)++;
	rd32(cu, cu->enc_off + (uint64_t)c->sub * 4, enc);
	c->sub++;
	*u = CU_ENC;
	return 0;
}

int uw_cu_check(const struct uw_cu *cu, struct uw_check *c)
{
	enum cu_unit u;
	uint64_t units = 0;
	uint32_t enc = 0;
	int err;

	if (!cu || !c)
		return UW_EINVAL;
	for (;;) {
		err = check_next(cu, c, &units, &enc, &u);
		if (!err && u == CU_ENC)
			err = check_enc(cu, enc);
		if (err)
			return err;
		if (u == CU_DONE)
			return UW_CHECK_DONE;
		if (u == CU_MORE)
			return UW_CHECK_MORE;
	}
}

/* ---- encodings ---- */

/* x86 register codes 1-6 as DWARF numbers, x86-64 and x86. */
static const uint8_t x86_64_regs[7] = { 0, 3, 12, 13, 14, 15, 6 };
static const uint8_t x86_regs[7] = { 0, 3, 1, 2, 7, 6, 5 };

static void save(struct uw_cu_rule *r, unsigned int reg, int32_t off)
{
	r->saved[r->nsaved].reg = (uint8_t)reg;
	r->saved[r->nsaved].off = off;
	r->nsaved++;
}

/*
 * bp frame: up to five registers from bp - w * offset upwards, all
 * below bp (where the caller's bp and the return address are).
 */
static int x86_frame(const uint8_t *map, int32_t w, uint32_t enc,
		     struct uw_cu_rule *r)
{
	int32_t off = (int32_t)((enc >> 16) & 0xff);
	unsigned int slot, code;

	r->kind = UW_CU_FRAME;
	for (slot = 0; slot < 5; slot++) {
		code = (enc >> (3 * slot)) & 7;
		if (!code)
			continue;	/* an empty slot still takes its word */
		if (code > 5)
			return UW_EBADDATA;	/* bp itself, or no register */
		if ((int32_t)slot >= off)
			return UW_EBADDATA;	/* at or above bp: not saved */
		/* CFA = bp + 2w */
		save(r, map[code], -2 * w - w * off + w * (int32_t)slot);
	}
	return 0;
}

/*
 * Frameless: count registers (at most six) as a Lehmer code, digit i in
 * base 6 - i, each picking among the codes not taken yet; saved from
 * CFA - w * (count + 1) upwards, the return address above them.
 */
static int x86_frameless(const uint8_t *map, int32_t w, uint32_t enc,
			 struct uw_cu_rule *r)
{
	uint32_t size = (enc >> 16) & 0xff, adjust = (enc >> 13) & 7;
	uint32_t count = (enc >> 10) & 7, perm = enc & 0x3ff;
	uint32_t mult[6], total = 1, digit, i, k, used = 0;
	int32_t at;

	if (count > 6)
		return UW_EBADDATA;
	for (i = count; i > 0; i--) {
		mult[i - 1] = total;
		total *= 6 - (i - 1);
	}
	if (perm >= total)
		return UW_EBADDATA;
	if ((enc & UW_CU_MODE) == 0x03000000) {
		r->kind = UW_CU_FRAMELESS_IND;
		r->sub_off = size;
		r->stack_size = adjust * (uint32_t)w;
	} else {
		r->kind = UW_CU_FRAMELESS;
		r->stack_size = size * (uint32_t)w;
	}
	at = -w - w * (int32_t)count;
	for (i = 0; i < count; i++) {
		digit = perm / mult[i] % (6 - i);
		/* The digit-th code (1-6) not used yet. */
		for (k = 1; k <= 6; k++) {
			if (used & (1u << k))
				continue;
			if (!digit--)
				break;
		}
		used |= 1u << k;
		save(r, map[k], at + w * (int32_t)i);
	}
	return 0;
}

static int x86_decode(const struct uw_cu *cu, uint32_t enc,
		      struct uw_cu_rule *r)
{
	bool is64 = cu->arch == UW_ARCH_X86_64;
	const uint8_t *map = is64 ? x86_64_regs : x86_regs;
	int32_t w = is64 ? 8 : 4;

	switch ((enc & UW_CU_MODE) >> 24) {
	case 0:
		return 0;
	case 1:
		return x86_frame(map, w, enc, r);
	case 2:
	case 3:
		return x86_frameless(map, w, enc, r);
	case 4:
		r->kind = UW_CU_DWARF;
		r->dwarf_off = enc & 0xffffff;
		return 0;
	default:
		return UW_EBADDATA;
	}
}

/*
 * arm64 pairs, x19/x20 ... x27/x28 (bits 0-4) then d8/d9 ... d14/d15
 * (bits 8-11), each pair the lower register first, from at downwards.
 */
static void arm64_pairs(uint32_t enc, int32_t at, struct uw_cu_rule *r)
{
	unsigned int p, bit, reg;

	for (p = 0; p < 9; p++) {
		bit = p < 5 ? p : p + 3;
		reg = p < 5 ? 19 + 2 * p : 72 + 2 * (p - 5);	/* d8: 72 */
		if (!(enc & (1u << bit)))
			continue;
		save(r, reg, at);
		save(r, reg + 1, at - 8);
		at -= 16;
	}
}

static int arm64_decode(uint32_t enc, struct uw_cu_rule *r)
{
	switch ((enc & UW_CU_MODE) >> 24) {
	case 0:
		return 0;
	case 2:
		r->kind = UW_CU_FRAMELESS;
		r->ra_in_lr = 1;
		r->stack_size = ((enc >> 12) & 0xfff) * 16;
		arm64_pairs(enc, -8, r);
		return 0;
	case 3:
		r->kind = UW_CU_DWARF;
		r->dwarf_off = enc & 0xffffff;
		return 0;
	case 4:
		/* fp/lr at CFA - 16, the pairs below: CFA = fp + 16. */
		r->kind = UW_CU_FRAME;
		arm64_pairs(enc, -24, r);
		return 0;
	default:
		return UW_EBADDATA;
	}
}

int uw_cu_decode(const struct uw_cu *cu, uint32_t encoding,
		 struct uw_cu_rule *r)
{
	r->kind = UW_CU_NONE;
	r->nsaved = 0;
	r->ra_in_lr = 0;
	r->stack_size = 0;
	r->sub_off = 0;
	r->dwarf_off = 0;
	if (cu->arch == UW_ARCH_AARCH64)
		return arm64_decode(encoding, r);
	return x86_decode(cu, encoding, r);
}

int uw_cu_ind_size(const struct uw_cu_rule *r, uint64_t fn_start,
		   const struct uw_walk_cfg *cfg, uint64_t *size)
{
	/* subq $imm32, %rsp / subl $imm32, %esp */
	bool is64 = cfg->arch == UW_ARCH_X86_64;
	unsigned int op = is64 ? 3 : 2;
	uint8_t buf[8];
	uint64_t at;

	if (r->kind != UW_CU_FRAMELESS_IND || !cfg->mem.read)
		return UW_EINVAL;
	if (cfg->arch != UW_ARCH_X86_64 && cfg->arch != UW_ARCH_X86)
		return UW_EARCH;
	if (r->sub_off < op || uwi_add_off(fn_start, r->sub_off - op, &at))
		return UW_EBADDATA;
	if (uwi_mem_read(cfg->mem.read, cfg->mem.ctx, at, buf, op + 4))
		return UW_EREAD;
	if ((is64 && buf[0] != 0x48) || buf[op - 2] != 0x81 ||
	    buf[op - 1] != 0xec)
		return UW_EBADDATA;
	*size = uwi_load(buf + op, 4, false) + r->stack_size;
	return 0;
}

/* ---- the walker's step ---- */

/* The CFA the rule gives on the cursor's registers, into w->cfa. */
static int cu_cfa(struct uw_cursor *cur, const struct uw_arch_info *ai)
{
	struct uwi_cu_work *w = &uwi_state(cur)->scratch.cu;
	uint64_t *v = w->tmp;	/* base, size */
	int err;

	v[1] = w->r.stack_size;
	if (w->r.kind == UW_CU_FRAME) {
		if (!uw_reg_get(&cur->regs, ai->fp, &v[0]))
			return UW_EREG;
		v[1] = 2 * ai->ptr_size;
	} else {
		if (!uw_reg_get(&cur->regs, ai->sp, &v[0]))
			return UW_EREG;
		/* The sub is read at its run-time address. */
		if (w->r.kind == UW_CU_FRAMELESS_IND) {
			err = uw_cu_ind_size(&w->r, w->e.fn_start + w->bias,
					     w->cfg, &v[1]);
			if (err)
				return err;
		}
	}
	return uwi_add_off(v[0], (int64_t)v[1], &w->cfa);
}

/*
 * Every register the rule restores, read before any is installed (the
 * values go to the scratch, not the stack); the caller keeps the
 * callee-saved registers the encoding does not name.
 */
static uwi_noinline int cu_apply(struct uw_cursor *cur,
				 const struct uw_arch_info *ai)
{
	struct uwi_cu_work *w = &uwi_state(cur)->scratch.cu;
	const struct uw_walk_cfg *cfg = w->cfg;
	unsigned int i, n = ai->ptr_size;
	int err;

	err = cu_cfa(cur, ai);
	if (err)
		return err;
	if (w->r.ra_in_lr) {
		if (!uw_reg_get(&cur->regs, ai->ra, &w->ra))
			return UW_EREG;
	} else {
		err = uwi_add_off(w->cfa, -(int64_t)n, &w->tmp[0]);
		if (err)
			return err;
		err = uwi_read_word(cfg, n, w->tmp[0], &w->ra);
		if (err)
			return err;
	}
	/* FRAME: cfa = fp + 2n, no wrap. */
	if (w->r.kind == UW_CU_FRAME) {
		err = uwi_read_word(cfg, n, w->cfa - 2 * n, &w->fp);
		if (err)
			return err;
	}
	for (i = 0; i < w->r.nsaved; i++) {
		err = uwi_add_off(w->cfa, w->r.saved[i].off, &w->tmp[0]);
		if (err)
			return err;
		err = uwi_read_word(cfg, n, w->tmp[0], &w->val[i]);
		if (err)
			return err;
	}
	w->ra = uwi_strip_pac(w->ra, uwi_pac_bits(cfg));
	cur->regs.valid &= uwi_callee_saved(cfg->arch);
	for (i = 0; i < w->r.nsaved; i++)
		uw_reg_set(&cur->regs, w->r.saved[i].reg, w->val[i]);
	if (w->r.kind == UW_CU_FRAME)
		uw_reg_set(&cur->regs, ai->fp, w->fp);
	uw_reg_set(&cur->regs, ai->pc, w->ra);
	uw_reg_set(&cur->regs, ai->sp, w->cfa);
	cur->cfa = w->cfa;
	uwi_state(cur)->step.ra_in_reg = w->r.ra_in_lr;
	return UWI_STEPPED;
}

/*
 * The entry for w->pc: the cache's (the encoding, which uw_cu_decode()
 * checks as it checks any, and the function's start as a distance back
 * from pc), or the table's, cached.
 */
static int cu_find(struct uw_cursor *cur)
{
	const struct uw_cache_entry *h = uwi_cache_hit(cur, UW_SRC_COMPACT);
	struct uwi_cu_work *w = &uwi_state(cur)->scratch.cu;
	struct uw_cache_entry *f;
	int err;

	if (h && h->u.w[1] <= w->pc) {
		w->e.encoding = h->u.w[0];
		w->e.fn_start = w->pc - h->u.w[1];
		return 0;
	}
	err = uw_cu_find(w->cu, w->pc, &w->e);
	if (err)
		return err;
	f = uwi_cache_fill(cur);
	if (f && w->pc - w->e.fn_start <= 0xffffffffu) {
		f->u.w[0] = w->e.encoding;
		f->u.w[1] = (uint32_t)(w->pc - w->e.fn_start);
		uwi_cache_tag(cur, f, UW_SRC_COMPACT, 0);
	}
	return 0;
}

/* The step, on the inputs uwi_cu_step left in the scratch. */
static uwi_noinline int cu_step(struct uw_cursor *cur,
				const struct uw_arch_info *ai)
{
	struct uwi_cu_work *w = &uwi_state(cur)->scratch.cu;
	int err;

	if (w->cu->arch != w->cfg->arch)
		return UW_EARCH;
	err = cu_find(cur);
	if (err)
		return err == UW_ENOENT ? UWI_NEXT : err;
	err = uw_cu_decode(w->cu, w->e.encoding, &w->r);
	if (err)
		return err;
	/*
	 * No compact rule (none, or DWARF: its __eh_frame offset is the
	 * host's to use): the later phases, down to the frame pointer.
	 */
	if (w->r.kind == UW_CU_NONE || w->r.kind == UW_CU_DWARF)
		return UWI_NEXT;
	return cu_apply(cur, ai);
}

int uwi_cu_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uwi_arch *a, const struct uw_cu *cu, uint64_t pc)
{
	struct uwi_cu_work *w = &uwi_state(cur)->scratch.cu;

	w->cu = cu;
	w->cfg = cfg;
	w->pc = pc;
	w->bias = uwi_state(cur)->step.lookup - pc;
	return cu_step(cur, &a->info);
}
