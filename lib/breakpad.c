// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad symbol files: finding the STACK CFI and STACK WIN records for
 * a pc in the mapped text.
 *
 * Facts from Breakpad's symbol file format (docs/symbol_files.md): a
 * STACK CFI INIT record covers [addr, addr + size) with the rules at
 * addr; the STACK CFI records after it, each at a higher address inside
 * that range, give the rules that change there; records are relative to
 * the module's load address.  STACK WIN records of type 4 (FrameData)
 * are preferred to type 0 (FPO) for the same address, and ranges may
 * nest (Breakpad keeps them in a contained-range map: the innermost
 * wins); other types are ignored.
 *
 * The search: INIT records are sorted by address (checked by
 * uw_bp_init), so a probe at any byte finds the next INIT line after it
 * and halves the range; lines of other kinds in between are skipped.
 */
#include <uwind/uwind.h>
#include "bp_text.h"

#define S_INIT	"STACK CFI INIT "
#define S_CFI	"STACK CFI "
#define S_WIN	"STACK WIN "
#define S_MOD	"MODULE "

uwi_noinline int uwi_bp_hex(const struct uw_span *t, uint64_t *off,
			  uint64_t end, uint64_t *v)
{
	return bp_hex(t, off, end, v);
}

/* The kind of the line [off, end); *rest: where its fields start. */
uwi_noinline int uwi_bp_line_kind(const struct uw_span *t, uint64_t off,
				  uint64_t end, uint64_t *rest)
{
	if (bp_prefix(t, off, end, S_INIT, sizeof(S_INIT) - 1)) {
		*rest = off + sizeof(S_INIT) - 1;
		return L_INIT;
	}
	if (bp_prefix(t, off, end, S_CFI, sizeof(S_CFI) - 1)) {
		*rest = off + sizeof(S_CFI) - 1;
		return L_CFI;
	}
	if (bp_prefix(t, off, end, S_WIN, sizeof(S_WIN) - 1)) {
		*rest = off + sizeof(S_WIN) - 1;
		return L_WIN;
	}
	if (bp_prefix(t, off, end, S_MOD, sizeof(S_MOD) - 1)) {
		*rest = off + sizeof(S_MOD) - 1;
		return L_MODULE;
	}
	*rest = off;
	return L_OTHER;
}

/* INIT: address and size; CFI: address; WIN: type, rva and size. */
static uwi_always_inline int init_key(const struct uw_span *t, uint64_t *p,
				     uint64_t end, uint64_t *addr,
				     uint64_t *size)
{
	/* bp_hex() fails with UW_EBADDATA alone. */
	if (bp_hex(t, p, end, addr) || bp_hex(t, p, end, size) ||
	    *addr + *size < *addr)
		return UW_EBADDATA;
	return 0;
}

static uwi_always_inline int win_key(const struct uw_span *t, uint64_t *p,
				    uint64_t end, uint64_t *type,
				    uint64_t *rva, uint64_t *size)
{
	if (bp_hex(t, p, end, type) || bp_hex(t, p, end, rva) ||
	    bp_hex(t, p, end, size) || *rva + *size < *rva)
		return UW_EBADDATA;
	return 0;
}

/*
 * The search key of the line at off if it is of kind k (INIT: address,
 * WIN: rva), else UW_ENOENT.
 */
static uwi_always_inline int line_key(const struct uw_span *t, uint64_t off,
				     int k, uint64_t *key)
{
	uint64_t end = bp_eol(t, off), p;

	if (uwi_bp_line_kind(t, off, end, &p) != k)
		return UW_ENOENT;
	/* WIN: skip the type */
	if (k == L_WIN && bp_hex(t, &p, end, key))
		return UW_EBADDATA;
	return bp_hex(t, &p, end, key);
}

static bool arch_is(const struct uw_span *t, uint64_t off, uint64_t end,
		    const char *s, size_t len)
{
	return end - off == len && bp_prefix(t, off, end, s, len);
}

/* MODULE os arch id name: the architecture, the id and the name. */
static void module_line(struct uw_bp *bp, uint64_t p, uint64_t end,
			uint8_t *arch)
{
	const struct uw_span *t = &bp->text;
	uint64_t e;

	e = bp_token(t, &p, end);	/* os */
	p = e;
	e = bp_token(t, &p, end);	/* arch */
	if (arch_is(t, p, e, "x86", 3))
		*arch = UW_ARCH_X86;
	else if (arch_is(t, p, e, "x86_64", 6))
		*arch = UW_ARCH_X86_64;
	else if (arch_is(t, p, e, "arm", 3))
		*arch = UW_ARCH_ARM;
	else if (arch_is(t, p, e, "arm64", 5) ||
		 arch_is(t, p, e, "aarch64", 7))
		*arch = UW_ARCH_AARCH64;
	p = e;
	e = bp_token(t, &p, end);	/* id */
	if (e - p > 0xffff)
		return;
	bp->id_off = p;
	bp->id_len = (uint32_t)(e - p);
	p = e;
	bp_token(t, &p, end);		/* the name runs to the end */
	e = end;
	while (e > p && bp_space((char)t->data[e - 1]))
		e--;
	if (e - p > 0xffff)
		return;
	bp->name_off = p;
	bp->name_len = (uint32_t)(e - p);
}

/*
 * n hexadecimal fields at *p into v; the last two an address and a size
 * whose sum must not wrap.  Out of line: uw_bp_init is not on the
 * walker's path, and the inline parser is large.
 */
static int fields(const struct uw_span *t, uint64_t p, uint64_t end,
		  uint64_t *v, unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		err = uwi_bp_hex(t, &p, end, &v[i]);
	if (!err && v[n - 2] + v[n - 1] < v[n - 2])
		err = UW_EBADDATA;
	return err;
}

/* One line of uw_bp_init's pass; *prev: the last INIT/WIN address. */
static int init_line(struct uw_bp *bp, uint64_t off, uint64_t end,
		     uint64_t next, uint64_t prev[2], uint8_t *arch)
{
	const struct uw_span *t = &bp->text;
	uint64_t p, v[3];	/* INIT: address, size; WIN: type, rva, size */
	int err;

	switch (uwi_bp_line_kind(t, off, end, &p)) {
	case L_INIT:
		err = fields(t, p, end, v, 2);
		if (err)
			return err;
		if (bp->ncfi && v[0] < prev[0])
			return UW_EUNSORTED;
		if (bp->ncfi == 0xffffffffu)
			return UW_EBADDATA;
		if (!bp->ncfi++)
			bp->cfi_lo = off;
		bp->cfi_hi = next;
		prev[0] = v[0];
		return 0;
	case L_CFI:
		if (!bp->ncfi)
			return UW_EBADDATA;	/* a delta before any INIT */
		bp->cfi_hi = next;
		return 0;
	case L_WIN:
		err = fields(t, p, end, v, 3);
		if (err)
			return err;
		if (bp->nwin && v[1] < prev[1])
			return UW_EUNSORTED;
		if (bp->nwin == 0xffffffffu)
			return UW_EBADDATA;
		if (!bp->nwin++)
			bp->win_lo = off;
		bp->win_hi = next;
		bp->win_max = v[2] > bp->win_max ? v[2] : bp->win_max;
		prev[1] = v[1];
		return 0;
	case L_MODULE:
		if (!bp->name_len && !bp->id_len)
			module_line(bp, p, end, arch);
		return 0;
	default:
		return 0;
	}
}

int uw_bp_init(struct uw_bp *bp, const struct uw_span *text, uint64_t base,
	       enum uw_arch arch)
{
	uint64_t off = 0, end, next, prev[2] = { 0, 0 };
	uint8_t file_arch = UW_ARCH_NONE;
	int err;

	if (!bp || !text || (!text->data && text->size))
		return UW_EINVAL;
	bp->text = *text;
	bp->base = base;
	bp->ncfi = bp->nwin = 0;
	bp->cfi_lo = bp->cfi_hi = bp->win_lo = bp->win_hi = 0;
	bp->win_max = 0;
	bp->id_off = bp->name_off = 0;
	bp->id_len = bp->name_len = 0;
	bp->idx = NULL;
	while (off < text->size) {
		end = bp_eol(text, off);
		next = end < text->size ? end + 1 : end;
		err = init_line(bp, off, end, next, prev, &file_arch);
		if (err)
			return err;
		off = next;
	}
	if (arch == UW_ARCH_NONE)
		arch = (enum uw_arch)file_arch;
	if (arch != UW_ARCH_X86 && arch != UW_ARCH_X86_64 &&
	    arch != UW_ARCH_ARM && arch != UW_ARCH_AARCH64)
		return UW_EARCH;
	bp->arch = (uint8_t)arch;
	return 0;
}

/* ---- the search ---- */

/*
 * The last line of kind k in [lo, hi) (lo a line start) whose key is at
 * most x.  Each probe takes the first such line after the middle byte:
 * at or below x, the answer is there or later; above, it is before the
 * middle.  Lines of other kinds are skipped.
 */
static int last_le(const struct uw_span *t, uint64_t lo, uint64_t hi, int k,
		   uint64_t x, uint64_t *found)
{
	uint64_t mid, p, key = 0;

	*found = ~(uint64_t)0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		p = mid == lo || t->data[mid - 1] == '\n' ? mid :
		    bp_next_line(t, mid);
		while (p < hi && line_key(t, p, k, &key))
			p = bp_next_line(t, p);
		if (p < hi && key <= x) {
			*found = p;
			lo = bp_next_line(t, p);
		} else {
			hi = mid;
		}
	}
	return *found == ~(uint64_t)0 ? UW_ENOENT : 0;
}

/* Does index entry e name an INIT line, at its start, of its address? */
static bool idx_entry_ok(const struct uw_bp *bp, const struct uw_bp_idx *e)
{
	uint64_t key;

	return (!e->off || bp->text.data[e->off - 1] == '\n') &&
	       !line_key(&bp->text, e->off, L_INIT, &key) && key == e->rva;
}

static int idx_find(const struct uw_bp *bp, uint64_t rva, uint64_t *off)
{
	uint32_t lo = 0, hi = bp->ncfi, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (bp->idx[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return UW_ENOENT;
	*off = bp->idx[lo - 1].off;
	/* Checked by uw_bp_set_index(), but the index is the caller's. */
	return idx_entry_ok(bp, &bp->idx[lo - 1]) ? 0 : UW_EBADDATA;
}

/*
 * The INIT line at rec->init_off, if it covers rva, and the deltas after
 * it up to rva: rec->end_off is the end of the last one that applies.
 */
static uwi_noinline int cfi_lines(const struct uw_bp *bp, uint64_t rva,
				 struct uw_bp_cfi *rec)
{
	const struct uw_span *t = &bp->text;
	uint64_t p = rec->init_off, end = bp_eol(t, p), q, addr, at;
	int err;

	uwi_bp_line_kind(t, p, end, &q);
	err = init_key(t, &q, end, &addr, &rec->size);
	if (err)
		return err;
	if (rva - addr >= rec->size)
		return UW_ENOENT;
	rec->start = bp->base + addr;
	p = end < t->size ? end + 1 : end;
	rec->end_off = p;
	while (p < bp->cfi_hi) {
		end = bp_eol(t, p);
		if (uwi_bp_line_kind(t, p, end, &q) != L_CFI)
			break;
		err = bp_hex(t, &q, end, &at);
		if (err)
			return err;
		/* Inside the INIT's range, each later than the one before. */
		if (at <= addr || at - (rec->start - bp->base) >= rec->size)
			return UW_EBADDATA;
		if (at > rva)
			break;
		addr = at;
		p = end < t->size ? end + 1 : end;
		rec->end_off = p;
	}
	return 0;
}

int uw_bp_find_cfi(const struct uw_bp *bp, uint64_t pc,
		   struct uw_bp_cfi *rec)
{
	int err;

	if (!bp->ncfi || pc < bp->base)
		return UW_ENOENT;
	if (bp->idx)
		err = idx_find(bp, pc - bp->base, &rec->init_off);
	else
		err = last_le(&bp->text, bp->cfi_lo, bp->cfi_hi, L_INIT,
			      pc - bp->base, &rec->init_off);
	if (err)
		return err;
	return cfi_lines(bp, pc - bp->base, rec);
}

/* ---- STACK WIN ---- */

/* A u32 field of a WIN line. */
static int field32(const struct uw_span *t, uint64_t *p, uint64_t end,
		   uint32_t *v)
{
	uint64_t x = 0;
	int err = bp_hex(t, p, end, &x);

	if (!err && x > 0xffffffffu)
		err = UW_EBADDATA;
	*v = (uint32_t)x;
	return err;
}

/*
 * The fields of the WIN line at w->off after type, rva and size.
 * Inlined into win_scan() as when it had no other caller: the walker's
 * deepest path does not grow for uwi_bp_win_fields().
 */
static uwi_always_inline int win_fields(const struct uw_bp *bp,
				       struct uw_bp_win *w)
{
	const struct uw_span *t = &bp->text;
	uint64_t end = bp_eol(t, w->off), p, v;
	uint32_t has_program = 0;
	int err;

	uwi_bp_line_kind(t, w->off, end, &p);
	/* Each field parses, or the line is malformed (UW_EBADDATA alone). */
	if (win_key(t, &p, end, &v, &v, &v) ||
	    field32(t, &p, end, &w->prolog) ||
	    field32(t, &p, end, &w->epilog) ||
	    field32(t, &p, end, &w->params) ||
	    field32(t, &p, end, &w->saved_regs) ||
	    field32(t, &p, end, &w->locals) ||
	    field32(t, &p, end, &w->max_stack) ||
	    field32(t, &p, end, &has_program))
		return UW_EBADDATA;
	w->has_program = has_program != 0;
	w->allocates_bp = 0;
	w->prog_len = 0;
	if (!w->has_program) {
		err = field32(t, &p, end, &has_program);
		w->allocates_bp = has_program != 0;
		w->prog_off = p;
		return err;
	}
	/* The program: the rest of the line. */
	bp_token(t, &p, end);
	while (end > p && bp_space((char)t->data[end - 1]))
		end--;
	w->prog_off = p;
	w->prog_len = end - p;
	return w->prog_len ? 0 : UW_EBADDATA;
}

int uwi_bp_win_fields(const struct uw_bp *bp, struct uw_bp_win *w)
{
	return win_fields(bp, w);
}

/*
 * Is a WIN record (type, start, size) covering rva better than the best
 * so far (in w, type 1 for none)?  Type 4 beats type 0; then the
 * innermost range.
 */
static bool win_better(uint64_t type, uint64_t start, uint64_t size,
		       const struct uw_bp_win *w)
{
	if (w->type == 1)
		return true;
	if (type != w->type)
		return type == 4;
	return start > w->start || (start == w->start && size <= w->size);
}

/* From the line at w->off on, the best WIN record covering rva. */
static uwi_noinline int win_scan(const struct uw_bp *bp, uint64_t rva,
				struct uw_bp_win *w)
{
	const struct uw_span *t = &bp->text;
	uint64_t p, q, end, type, start, size;
	int err;

	w->type = 1;		/* none yet */
	for (p = w->off; p < bp->win_hi; p = end < t->size ? end + 1 : end) {
		end = bp_eol(t, p);
		if (uwi_bp_line_kind(t, p, end, &q) != L_WIN)
			continue;
		err = win_key(t, &q, end, &type, &start, &size);
		if (err)
			return err;
		if (start > rva)
			break;
		if ((type != 0 && type != 4) || rva - start >= size ||
		    !win_better(type, start, size, w))
			continue;
		w->type = (uint32_t)type;
		w->start = start;
		w->size = size;
		w->prog_off = p;	/* the line, for now */
	}
	if (w->type == 1)
		return UW_ENOENT;
	w->off = w->prog_off;
	w->start += bp->base;
	return win_fields(bp, w);
}

int uw_bp_find_win(const struct uw_bp *bp, uint64_t pc,
		   struct uw_bp_win *win)
{
	uint64_t rva;

	if (!bp->nwin || pc < bp->base)
		return UW_ENOENT;
	rva = pc - bp->base;
	/* No record starting win_max or more below rva can reach it. */
	if (rva > bp->win_max &&
	    !last_le(&bp->text, bp->win_lo, bp->win_hi, L_WIN,
		     rva - bp->win_max - 1, &win->off))
		win->off = bp_next_line(&bp->text, win->off);
	else
		win->off = bp->win_lo;
	return win_scan(bp, rva, win);
}

/* ---- the index ---- */

int uw_bp_build_index(const struct uw_bp *bp, struct uw_bp_idx *idx,
		      uint32_t n)
{
	uint64_t p, key;
	uint32_t i = 0;

	if (!idx || n != bp->ncfi)
		return UW_EINVAL;
	for (p = bp->cfi_lo; p < bp->cfi_hi; p = bp_next_line(&bp->text, p)) {
		if (line_key(&bp->text, p, L_INIT, &key))
			continue;
		if (i == n)
			return UW_EINVAL;
		idx[i].rva = key;
		idx[i].off = p;
		i++;
	}
	return i == n ? 0 : UW_EINVAL;
}

int uw_bp_set_index(struct uw_bp *bp, const struct uw_bp_idx *idx,
		    uint32_t n)
{
	uint32_t i;

	if (!idx) {
		bp->idx = NULL;
		return 0;
	}
	if (n != bp->ncfi)
		return UW_EINVAL;
	/*
	 * n distinct INIT lines in text order, each of its address: the
	 * index holds every INIT record, so its search and the text's agree.
	 */
	for (i = 0; i < n; i++) {
		if (idx[i].off < bp->cfi_lo || idx[i].off >= bp->cfi_hi)
			return UW_EBOUNDS;
		if (i && (idx[i].rva < idx[i - 1].rva ||
			  idx[i].off <= idx[i - 1].off))
			return UW_EUNSORTED;
		if (!idx_entry_ok(bp, &idx[i]))
			return UW_EBADDATA;
	}
	bp->idx = idx;
	return 0;
}
