// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Chrome's ARM unwind tables: lookup and execution.
 *
 * Chromium's own reader trusts the blob.  This one checks what it
 * leaves out: every table inside the blob, the page table in order and
 * pointing inside the function table, function table indices and uleb128
 * values bounded, the instruction index inside its table; and it checks
 * the stack before each read (through the accessor and the walk's stack
 * bounds) rather than after.
 */
#include "span.h"
#include "walk.h"
#include "arm_exec.h"

#define PAGE_SHIFT_BYTES	17	/* 128 KiB pages */

static int table(const struct uw_span *b, uint32_t off, uint64_t len)
{
	return uwi_span_has(b, off, len) ? 0 : UW_EHEADER;
}

int uw_chrome_init(struct uw_chrome *ct, const struct uw_span *blob,
		   uint64_t text_start, bool big_endian)
{
	uint32_t h[8], prev = 0, v, i;
	int err;

	if (!ct || !blob || !blob->data)
		return UW_EINVAL;
	if (blob->size < UW_CHROME_HDR_SIZE)
		return UW_EBOUNDS;
	/* Inside the blob: its size was just checked. */
	for (i = 0; i < 8; i++)
		h[i] = (uint32_t)uwi_load(blob->data + 4 * i, 4, big_endian);
	ct->blob = *blob;
	ct->text_start = text_start;
	ct->big_endian = big_endian;
	ct->page_off = h[0];
	ct->pages = h[1];
	ct->fn_off = h[2];
	ct->fns = h[3];
	ct->fot_off = h[4];
	ct->fot_size = h[5];
	ct->insn_off = h[6];
	ct->insn_size = h[7];
	/* table() fails with UW_EHEADER alone. */
	if (table(blob, ct->page_off, 4 * (uint64_t)ct->pages) ||
	    table(blob, ct->fn_off, 4 * (uint64_t)ct->fns) ||
	    table(blob, ct->fot_off, ct->fot_size) ||
	    table(blob, ct->insn_off, ct->insn_size))
		return UW_EHEADER;
	/*
	 * Page starts never decrease and never pass the function table; the
	 * first is entry 0 (an entry before it would be no page's, yet the
	 * lookup of a pc before page 0's first function would take it).
	 */
	for (i = 0; i < ct->pages; i++) {
		err = uwi_rd32(blob, ct->page_off + 4 * (uint64_t)i, big_endian,
			       &v);
		if (err)
			return err;
		if (v < prev || v > ct->fns || (i == 0 && v != 0))
			return UW_EUNSORTED;
		prev = v;
	}
	return 0;
}

/*
 * The first function table entry of a page, fns past the last page.  The
 * page table lies inside the blob and is ordered (uw_chrome_init).
 */
static uint32_t page_start(const struct uw_chrome *ct, uint32_t page)
{
	if (page >= ct->pages)
		return ct->fns;
	return (uint32_t)uwi_load(ct->blob.data + ct->page_off +
				  4 * (uint64_t)page, 4,
				  ct->big_endian);
}

/*
 * Function table entry i < fns: page offset (halfwords) and offset table
 * index.  The function table lies inside the blob (uw_chrome_init).
 */
static void fn_entry(const struct uw_chrome *ct, uint32_t i, uint16_t *pio,
		     uint16_t *fot)
{
	const uint8_t *p = ct->blob.data + ct->fn_off + 4 * (uint64_t)i;

	*pio = (uint16_t)uwi_load(p, 2, ct->big_endian);
	*fot = (uint16_t)uwi_load(p + 2, 2, ct->big_endian);
}

/* A uleb128 of at most 32 bits at *pos inside the offset table. */
static int uleb(const struct uw_chrome *ct, uint32_t *pos, uint32_t *val)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (*pos >= ct->fot_size || shift > 28)
			return UW_EBADDATA;
		b = ct->blob.data[ct->fot_off + *pos];
		(*pos)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (v > 0xffffffffu)
		return UW_EBADDATA;
	*val = (uint32_t)v;
	return 0;
}

/*
 * The function entry for page/pio: the last entry of the page starting
 * at or before pio, else the last entry of the nearest earlier non-empty
 * page (a function that began there and spans into this one).
 */
static int find_fn(const struct uw_chrome *ct, uint32_t page, uint16_t pio,
		   uint32_t *idx, uint32_t *fn_page)
{
	uint32_t lo = page_start(ct, page), hi = page_start(ct, page + 1);
	uint32_t first = lo, mid;
	uint16_t off, fot;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		fn_entry(ct, mid, &off, &fot);
		if (off <= pio)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > first) {
		*idx = lo - 1;
		*fn_page = page;
		return 0;
	}
	if (first == 0)
		return UW_ENOENT;
	*idx = first - 1;
	/* Its page: the last one starting at or before it (bounded walk). */
	while (page > 0 && page_start(ct, page) > *idx)
		page--;
	*fn_page = page;
	return 0;
}

int uw_chrome_find(const struct uw_chrome *ct, uint64_t pc,
		   struct uw_chrome_loc *loc)
{
	uint64_t off, hw, fn_hw;
	uint32_t page, idx, fn_page, pos, foff, insn;
	uint16_t pio, fot;
	int err;

	pc &= ~(uint64_t)1;
	if (pc < ct->text_start)
		return UW_ENOENT;
	off = pc - ct->text_start;
	if ((off >> PAGE_SHIFT_BYTES) >= ct->pages)
		return UW_ENOENT;
	page = (uint32_t)(off >> PAGE_SHIFT_BYTES);
	hw = off >> 1;
	err = find_fn(ct, page, (uint16_t)(hw & 0xffff), &idx, &fn_page);
	if (err)
		return err;
	fn_entry(ct, idx, &pio, &fot);
	fn_hw = ((uint64_t)fn_page << 16) + pio;
	if (fn_hw > hw)
		return UW_EBADDATA;
	loc->fn_start = ct->text_start + 2 * fn_hw;
	loc->fn_index = idx;
	loc->instr_off = (uint32_t)(hw - fn_hw);

	/* The first pair whose offset is at or before the pc; 0 ends a list. */
	pos = fot;
	do {
		/* uleb() fails with UW_EBADDATA alone. */
		if (uleb(ct, &pos, &foff) || uleb(ct, &pos, &insn))
			return UW_EBADDATA;
	} while (foff > loc->instr_off);
	if (insn >= ct->insn_size)
		return UW_EBADDATA;
	loc->insn = insn;
	return 0;
}

int uw_chrome_exec(const struct uw_chrome *ct, const struct uw_chrome_loc *loc,
		   const struct uw_walk_cfg *cfg, struct uw_regs *regs)
{
	struct uwi_arm_vrs v;

	uwi_arm_vrs_bytes(&v, regs, ct->blob.data + ct->insn_off, ct->insn_size,
			 loc->insn);
	return uwi_arm_exec(&v, cfg);
}

/*
 * The check's progress through entry c->item: c->sub is its page,
 * c->off its offset list position + 1 (0: the entry is not begun),
 * c->prev the page offset of the entry before it.
 */

/* Begin entry c->item: in page order with the entry before it. */
static int check_begin(const struct uw_chrome *ct, struct uw_check *c)
{
	uint32_t i = c->item;
	uint16_t pio, fot;

	/* Pages are ordered: each entry moves the page forward, if at all. */
	while (c->sub < ct->pages && page_start(ct, c->sub + 1) <= i)
		c->sub++;
	fn_entry(ct, i, &pio, &fot);
	/* The lookup searches a page's entries by halves. */
	if (c->sub < ct->pages && page_start(ct, c->sub) < i && pio < c->prev)
		return UW_EUNSORTED;
	c->prev = pio;
	c->off = (uint32_t)fot + 1;
	return 0;
}

/*
 * The next (offset, instruction) pair of the entry's list, and the
 * sequence it names, as uw_chrome_find() and uw_chrome_exec() read them:
 * 0 (*last set after the pair with offset 0, which ends the list) or an
 * error.
 */
static int check_pair(const struct uw_chrome *ct, struct uw_check *c,
		      uint64_t *units, bool *last)
{
	uint32_t pos = c->off - 1, foff, insn;
	struct uwi_arm_vrs v;
	int err;

	if (uleb(ct, &pos, &foff) || uleb(ct, &pos, &insn))
		return UW_EBADDATA;
	if (insn >= ct->insn_size)
		return UW_EBADDATA;
	uwi_arm_vrs_bytes(&v, NULL, ct->blob.data + ct->insn_off,
			  ct->insn_size, insn);
	err = uwi_arm_check_ops(&v, units);
	if (err)
		return err;
	c->off = pos + 1;	/* pos <= fot_size < 2^32 - 1 */
	*last = foff == 0;
	return 0;
}

int uw_chrome_check(const struct uw_chrome *ct, struct uw_check *c)
{
	uint64_t units = 0;
	bool last;
	int ret;

	if (!ct || !c)
		return UW_EINVAL;
	/* Each pair moves through the offset table: bounded by its size. */
	while (c->item < ct->fns) {
		if (c->limit && units >= c->limit)
			return UW_CHECK_MORE;
		units++;
		if (!c->off) {
			ret = check_begin(ct, c);
			if (ret)
				return ret;
		}
		ret = check_pair(ct, c, &units, &last);
		if (ret)
			return ret;
		if (last) {
			c->item++;
			c->off = 0;
		}
	}
	return UW_CHECK_DONE;
}
