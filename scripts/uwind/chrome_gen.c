// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad STACK CFI (ARM) to Chrome's unwind table, after the rules of
 * Chromium's build/android/gyp/create_unwind_table.py.
 *
 * Rows are recognised in the same order as there:
 *   ".cfa: sp 0 + .ra: lr"                         return to lr (b0)
 *   [".cfa: sp N +"] [".ra: .cfa -K + ^"] ["rR: .cfa -K + ^"...]
 *                                                  sp adjust, then pop
 *   ".cfa: rR N +"                                 vsp = rR, then adjust
 *   ".cfa: rR N +" [".ra: .cfa -K + ^"] ["rR: .cfa -K + ^"...]
 *                                                  vsp = rR, adjust, pop
 *                                                  (not in Chromium: the
 *                                                  rows from EHABI)
 *   [".cfa: sp N +"] "unnamed_registerR: .cfa -K + ^"...
 *                                                  VFP: sp adjust only
 *                                                  (also "sR:", the names
 *                                                  of GCC's s16.. saves)
 * A push pops r4-r15 (r0-r3 become part of the sp adjustment), and when
 * the CFA moved by at least the pushed size the adjustment is what
 * remains after the pops (beyond Chromium: unless the row puts r0-r3
 * saves above them all, as rows from EHABI for variadic functions do;
 * then the pop goes where the slots are, see match_push()).  The first
 * row of a function must return to lr; a function whose CFI cannot be
 * encoded gets refuse-to-unwind.
 *
 * Epilogues are dropped: Chromium stops at the first row whose CFA offset
 * falls (sp-based rows).  This version also stops, as the intent is, at a
 * row that moves the CFA back down even when the rest of the row is not
 * recognised (GCC restores lr and the pushed registers in the same row),
 * and at any CFA change once the CFA is register-based (a frame pointer
 * only ever changes back in the epilogue).  A CFA rule other than
 * "REG N +" (loaded from the stack, as STACK CFI from EHABI says when
 * the sp is popped) has no encoding: the function refuses to unwind.
 */
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include "chrome_gen.h"

#define MAX_PAIRS	64
#define MAX_TOKS	6

int cg_encode_sp(int64_t off, uint8_t *out)
{
	uint64_t abs = off < 0 ? (uint64_t)-off : (uint64_t)off, v;
	uint8_t code = off < 0 ? 0x40 : 0x00;
	int n = 0;

	if (off % 4 || off == 0)
		return -1;
	if (abs >= 0x04 && abs <= 0x200) {
		out[n++] = code | (uint8_t)(((abs < 0x100 ? abs : 0x100) - 4) >> 2);
		if (abs >= 0x104)
			out[n++] = code | (uint8_t)((abs - 0x100 - 4) >> 2);
		return n;
	}
	if (off < 0 || off > 0x204 + ((int64_t)0xffffffff << 2))
		return -1;	/* b2 only moves sp up */
	out[n++] = 0xb2;
	v = (uint64_t)(off - 0x204) >> 2;
	do {
		out[n] = v & 0x7f;
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

int cg_encode_pop(uint16_t mask, uint8_t *out)
{
	uint16_t others = mask & ~(1u << 14);
	unsigned int count = (unsigned int)__builtin_popcount(others);
	uint16_t bits;

	if (!mask || (mask & 0xf))
		return -1;	/* r4..r15 only, at least one */
	if ((mask & (1u << 14)) && count >= 1 && count <= 8 &&
	    others == (((1u << count) - 1) << 4)) {
		out[0] = 0xa8 | (uint8_t)(count - 1);	/* r4..r[3+count], lr */
		return 1;
	}
	bits = mask >> 4;
	out[0] = 0x80 | (uint8_t)(bits >> 8);
	out[1] = (uint8_t)bits;
	return 2;
}

int cg_encode_unwind(const struct cg_unwind *u, uint8_t *out)
{
	int n = 0, k;

	switch (u->type) {
	case CG_RETURN_TO_LR:
		out[0] = 0xb0;
		return 1;
	case CG_SP_POP:
		if (u->sp) {
			k = cg_encode_sp(u->sp, out);
			if (k < 0)
				return -1;
			n += k;
		}
		if (u->regs) {
			k = cg_encode_pop(u->regs, out + n);
			if (k < 0)
				return -1;
			n += k;
		}
		if (u->sp2) {
			k = cg_encode_sp(u->sp2, out + n);
			if (k < 0)
				return -1;
			n += k;
		}
		return n;
	case CG_RESTORE_SP:
		if (u->reg > 15 || u->reg == 13 || u->reg == 15)
			return -1;	/* 9d, 9f are reserved */
		out[n++] = 0x90 | u->reg;
		if (u->sp) {
			k = cg_encode_sp(u->sp, out + n);
			if (k < 0)
				return -1;
			n += k;
		}
		if (u->regs) {
			k = cg_encode_pop(u->regs, out + n);
			if (k < 0)
				return -1;
			n += k;
		}
		if (u->sp2) {
			k = cg_encode_sp(u->sp2, out + n);
			if (k < 0)
				return -1;
			n += k;
		}
		return n;
	case CG_NO_ACTION:
		return 0;
	default:
		return -1;
	}
}

/* Rule text split into "name:" and the expression tokens after it. */
struct pair {
	const char *name;
	const char *tok[MAX_TOKS];
	int ntok;		/* MAX_TOKS + 1: longer than any we match */
};

static int split(char *s, struct pair *p)
{
	char *t, *save = NULL;
	size_t len;
	int n = 0;

	for (t = strtok_r(s, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		len = strlen(t);
		if (len > 1 && t[len - 1] == ':') {
			if (n == MAX_PAIRS)
				return -1;
			t[len - 1] = '\0';
			p[n].name = t;
			p[n].ntok = 0;
			n++;
		} else if (!n) {
			return -1;
		} else if (p[n - 1].ntok < MAX_TOKS) {
			p[n - 1].tok[p[n - 1].ntok++] = t;
		} else {
			p[n - 1].ntok = MAX_TOKS + 1;
		}
	}
	return n;
}

/* \d+ (with a leading '-' when neg), as a value. */
static int number(const char *s, int neg, int64_t *v)
{
	int64_t x = 0;

	if (neg && *s++ != '-')
		return 0;
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (INT64_MAX - 9) / 10)
			return 0;
		x = x * 10 + (*s - '0');
	}
	*v = neg ? -x : x;
	return 1;
}

static int tok_is(const struct pair *p, int i, const char *s)
{
	return i < p->ntok && p->ntok <= MAX_TOKS && !strcmp(p->tok[i], s);
}

/* "rN" or "unnamed_registerN". */
static int reg_name(const char *name, const char *prefix, int64_t *r)
{
	size_t len = strlen(prefix);

	return !strncmp(name, prefix, len) && number(name + len, 0, r);
}

/* base N + */
static int base_plus(const struct pair *p, int64_t *reg, int64_t *n)
{
	if (p->ntok != 3 || !tok_is(p, 2, "+") || !number(p->tok[1], 0, n))
		return 0;
	if (!strcmp(p->tok[0], "sp")) {
		*reg = 13;
		return 1;
	}
	return reg_name(p->tok[0], "r", reg);
}

/* .cfa -K + ^ */
static int cfa_deref(const struct pair *p)
{
	int64_t k;

	return p->ntok == 4 && tok_is(p, 0, ".cfa") &&
	       number(p->tok[1], 1, &k) && tok_is(p, 2, "+") &&
	       tok_is(p, 3, "^");
}

static int is(const struct pair *p, const char *name)
{
	return !strcmp(p->name, name);
}

static int match_null(const struct pair *p, int n)
{
	int64_t reg, off;

	return n == 2 && is(&p[0], ".cfa") && base_plus(&p[0], &reg, &off) &&
	       reg == 13 && off == 0 && is(&p[1], ".ra") && p[1].ntok == 1 &&
	       tok_is(&p[1], 0, "lr");
}

/* .cfa -K + ^, with -K */
static int cfa_deref_off(const struct pair *p, int64_t *k)
{
	return cfa_deref(p) && number(p->tok[1], 1, k);
}

/*
 * The saves of the new part of the frame, [lo, hi) from the CFA (lo the
 * row's vsp, hi the previous row's), as one pop of the r4-r15 in regs
 * (slot[r] their places): sp adjustment to the lowest, the pop, then
 * sp adjustment up to hi.  -1 if one pop cannot restore them (not
 * contiguous in register order, or outside the new part; below lo is
 * fine after a vsp = rR: a frame register may point inside the pushes).
 */
static int place_pops(uint16_t regs, const int64_t *slot, int64_t lo,
		      int64_t hi, int below_ok, struct cg_unwind *u)
{
	int64_t at = 0, r, size = 4 * __builtin_popcount(regs);
	int first = 1;

	u->regs = regs;
	u->sp = hi - lo;
	u->sp2 = 0;
	for (r = 4; r <= 15; r++) {
		if (!(regs & (1u << r)))
			continue;
		if (!first && slot[r] != at)
			return -1;
		at = slot[r] + 4;
		first = 0;
	}
	if (first)
		return 0;
	at -= size;			/* the lowest slot */
	if ((at < lo && !below_ok) || at + size > hi)
		return -1;
	u->sp = at - lo;
	u->sp2 = hi - (at + size);
	return 0;
}

/*
 * Chromium's rule: the sp adjustment is what the pops leave, as if the
 * pushed r4-r15 sat at the top of the new part of the frame.  A row
 * that also saves r0-r3 (Chromium leaves them to the sp adjustment) may
 * have them above all of those: the rows from EHABI for a variadic
 * function, "push {r1-r3}; push {r4, lr}" in one row.  Then, and only
 * then, the pop goes where the slots are, with a second sp adjustment
 * after it.
 */
static int match_push(const struct pair *p, int n, struct cg_state *st,
		      struct cg_unwind *u)
{
	int64_t reg, cfa = 0, r, k, slot[16], low_top = INT64_MIN;
	int i = 0, have_cfa = 0, nregs;
	uint16_t regs = 0;

	if (i < n && is(&p[i], ".cfa")) {
		if (!base_plus(&p[i], &reg, &cfa) || reg != 13)
			return 0;
		have_cfa = 1;
		i++;
	}
	if (i < n && is(&p[i], ".ra")) {
		if (!cfa_deref_off(&p[i], &k))
			return 0;
		regs |= 1u << 14;
		slot[14] = k;
		i++;
	}
	for (; i < n; i++) {
		if (!reg_name(p[i].name, "r", &r) || !cfa_deref_off(&p[i], &k))
			return 0;
		if (r >= 4 && r <= 15) {
			regs |= 1u << r;
			slot[r] = k;
		} else if (r < 4 && k > low_top) {
			low_top = k;
		}
	}
	nregs = __builtin_popcount(regs);
	u->type = CG_SP_POP;
	u->regs = regs;
	u->sp = 0;
	u->sp2 = 0;
	if (have_cfa) {
		u->sp = cfa - st->cfa_sp;
		if (u->sp % 4)
			return -1;
		if (u->sp >= 4 * nregs)
			u->sp -= 4 * nregs;
		if (nregs && low_top != INT64_MIN) {
			for (r = 4; r <= 15; r++)
				if ((regs & (1u << r)) && slot[r] > low_top)
					break;
			if (r > 15 &&
			    place_pops(regs, slot, -cfa, -st->cfa_sp, 0, u))
				return -1;
		}
		if (cfa)
			st->cfa_sp = cfa;
	}
	return 1;
}

/*
 * ".cfa: rR N +", alone (Chromium's form), or followed by the saves of
 * .ra and rN (not in Chromium: what STACK CFI from EHABI says, the frame
 * register and the pushes in one row).  The pushed r4-r15 must lie in
 * one place in the new part of the frame, in register order, as one pop
 * restores them (r0-r3 are left to the sp adjustments).
 */
static int match_store_sp(const struct pair *p, int n, struct cg_state *st,
			  struct cg_unwind *u)
{
	int64_t reg, off, r, k, slot[16];
	uint16_t regs = 0;
	int i;

	if (n < 1 || !is(&p[0], ".cfa") || !base_plus(&p[0], &reg, &off) ||
	    reg == 13 || !strcmp(p[0].tok[0], "sp"))
		return 0;
	for (i = 1; i < n; i++) {
		if (is(&p[i], ".ra"))
			r = 14;
		else if (!reg_name(p[i].name, "r", &r) || r > 15)
			return 0;
		if (!cfa_deref_off(&p[i], &k))
			return 0;
		if (r < 4)
			continue;
		if (regs & (1u << r))
			return -1;
		regs |= 1u << r;
		slot[r] = k;
	}
	if (reg > 15 || (off - st->cfa_sp) % 4)
		return -1;
	/* After vsp = rR, vsp is CFA - off; the previous row's CFA - cfa_sp. */
	if (place_pops(regs, slot, -off, -st->cfa_sp, 1, u))
		return -1;
	u->type = CG_RESTORE_SP;
	u->reg = (uint8_t)reg;
	st->cfa_sp = off;
	st->cfa_reg = 1;
	return 1;
}

static int match_vpush(const struct pair *p, int n, struct cg_state *st,
		       struct cg_unwind *u)
{
	int64_t reg, cfa = 0, r;
	int i = 0, have_cfa = 0;

	if (i < n && is(&p[i], ".cfa")) {
		if (!base_plus(&p[i], &reg, &cfa) || reg != 13 ||
		    strcmp(p[i].tok[0], "sp"))
			return 0;
		have_cfa = 1;
		i++;
	}
	if (i == n)
		return 0;
	/* d8.. are unnamed_registerN, GCC's s16.. are named sN. */
	for (; i < n; i++)
		if ((!reg_name(p[i].name, "unnamed_register", &r) &&
		     !reg_name(p[i].name, "s", &r)) || !cfa_deref(&p[i]))
			return 0;
	u->regs = 0;
	u->sp = 0;
	if (!have_cfa) {
		u->type = CG_NO_ACTION;
		return 1;
	}
	u->type = CG_SP_POP;
	u->sp = cfa - st->cfa_sp;
	if (u->sp % 4)
		return -1;
	st->cfa_sp = cfa;
	return 1;
}

int cg_parse_row(const char *rules, struct cg_state *st, struct cg_unwind *u)
{
	struct pair p[MAX_PAIRS];
	char *buf = strdup(rules);
	int64_t reg, off;
	int n, i, ret = 0;

	if (!buf)
		return -1;
	n = split(buf, p);
	if (n <= 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (!is(&p[i], ".cfa"))
			continue;
		if (st->cfa_reg) {
			ret = 2;	/* the frame register's CFA is given up */
			goto out;
		}
		if (!base_plus(&p[i], &reg, &off)) {
			ret = -1;	/* loaded from the stack (from EHABI) */
			goto out;
		}
		if (base_plus(&p[i], &reg, &off) && reg == 13 &&
		    !strcmp(p[i].tok[0], "sp") && off < st->cfa_sp) {
			ret = 2;	/* sp moves back: the epilogue */
			goto out;
		}
	}
	u->reg = 0;
	u->regs = 0;
	u->sp = 0;
	u->sp2 = 0;
	if (match_null(p, n)) {
		u->type = CG_RETURN_TO_LR;
		st->cfa_sp = 0;
		ret = 1;
		goto out;
	}
	ret = match_push(p, n, st, u);
	if (!ret)
		ret = match_store_sp(p, n, st, u);
	if (!ret)
		ret = match_vpush(p, n, st, u);
out:
	free(buf);
	return ret;
}

static int add_unwind(struct cg_func *f, const struct cg_unwind *u)
{
	struct cg_unwind *nu;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		nu = realloc(f->u, f->cap * sizeof(*nu));
		if (!nu)
			return -1;
		f->u = nu;
	}
	f->u[f->n++] = *u;
	return 0;
}

static struct cg_func *add_func(struct cg_funcs *fs, uint64_t addr,
				uint64_t size)
{
	struct cg_func *nf;

	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 64;
		nf = realloc(fs->f, fs->cap * sizeof(*nf));
		if (!nf)
			return NULL;
		fs->f = nf;
	}
	nf = &fs->f[fs->n++];
	memset(nf, 0, sizeof(*nf));
	nf->addr = addr;
	nf->size = size;
	return nf;
}

/* Chromium requires every function to start by returning to lr. */
static void finish_func(struct cg_funcs *fs, struct cg_func *f, FILE *log)
{
	if (!f || f->refuse || !f->n)
		goto count;
	if (f->u[0].off != 0 || f->u[0].type != CG_RETURN_TO_LR) {
		if (log)
			fprintf(log, "uwind: convert: function 0x%" PRIx64
				" does not start with '.cfa: sp 0 + .ra: lr':"
				" refuse to unwind\n", f->addr);
		f->refuse = 1;
	}
count:
	if (f && f->refuse)
		fs->refused++;
}

int cg_parse_sym(FILE *in, struct cg_funcs *fs, FILE *log)
{
	struct cg_func *f = NULL;
	struct cg_state st = { 0, 0 };
	struct cg_unwind u;
	char *line = NULL;
	size_t cap = 0;
	uint64_t addr, size;
	int pos, r, done = 0, tomb = 0, ret = 0;
	unsigned long lineno = 0;

	memset(fs, 0, sizeof(*fs));
	while (getline(&line, &cap, in) > 0) {
		lineno++;
		if (strncmp(line, "STACK CFI ", 10))
			continue;
		pos = 0;
		if (!strncmp(line, "STACK CFI INIT ", 15)) {
			if (sscanf(line + 15, "%" SCNx64 " %" SCNx64 " %n",
				   &addr, &size, &pos) < 2 || !pos)
				goto bad;
			finish_func(fs, f, log);
			f = NULL;
			/*
			 * 32-bit ARM code: a function past 4 GiB, or whose size
			 * wraps, is not ARM's (and would make cg_build write a
			 * page index the size of its offset, or out of order).
			 */
			if (addr > 0xffffffffu || size > 0xffffffffu - addr)
				goto bad;
			tomb = addr == 0;	/* dead code's tombstone */
			if (tomb)
				continue;
			f = add_func(fs, addr, size);
			if (!f)
				goto nomem;
			st.cfa_sp = 0;
			st.cfa_reg = 0;
			done = 0;
			pos += 15;
		} else {
			if (sscanf(line + 10, "%" SCNx64 " %n", &addr, &pos) < 1 ||
			    !pos)
				goto bad;
			if (tomb)
				continue;
			if (!f)
				goto bad;
			pos += 10;
			if (addr < f->addr || addr - f->addr >= f->size ||
			    (f->n && addr - f->addr <= f->u[f->n - 1].off)) {
				if (log)
					fprintf(log, "uwind: convert: line %lu:"
						" row outside its function or"
						" out of order\n", lineno);
				continue;
			}
		}
		if (done || f->refuse)
			continue;
		fs->rows++;
		memset(&u, 0, sizeof(u));
		r = cg_parse_row(line + pos, &st, &u);
		if (r == 1) {
			u.off = (uint32_t)(addr - f->addr);
			if (add_unwind(f, &u))
				goto nomem;
			fs->handled++;
		} else if (r == 2) {
			fs->epilogues++;
			done = 1;
		} else if (r == 0) {
			fs->unrecognized++;
			if (log)
				fprintf(log, "uwind: convert: unrecognized CFI:"
					" %" PRIx64 " %s", addr, line + pos);
		} else {
			if (log)
				fprintf(log, "uwind: convert: function 0x%" PRIx64
					": CFI at %" PRIx64 " cannot be encoded:"
					" refuse to unwind\n", f->addr, addr);
			f->refuse = 1;
		}
	}
	finish_func(fs, f, log);
	free(line);
	return ret;
bad:
	if (log)
		fprintf(log, "uwind: convert: line %lu: malformed STACK CFI"
			" record\n", lineno);
	free(line);
	return -1;
nomem:
	free(line);
	return -1;
}

void cg_free(struct cg_funcs *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].u);
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}

/* ---- table building ---- */

struct buf {
	uint8_t *b;
	size_t len, cap;
};

static int put(struct buf *b, const void *p, size_t n)
{
	uint8_t *nb;

	if (b->len + n > b->cap) {
		b->cap = b->cap ? b->cap : 256;
		while (b->len + n > b->cap)
			b->cap *= 2;
		nb = realloc(b->b, b->cap);
		if (!nb)
			return -1;
		b->b = nb;
	}
	memcpy(b->b + b->len, p, n);
	b->len += n;
	return 0;
}

static int put_uleb(struct buf *b, uint64_t v)
{
	uint8_t c;

	do {
		c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		if (put(b, &c, 1))
			return -1;
	} while (v);
	return 0;
}

static int put_u32(struct buf *b, uint32_t v)
{
	uint8_t c[4] = { v, v >> 8, v >> 16, v >> 24 };

	return put(b, c, 4);
}

/* Distinct byte strings, found again by hash. */
struct strset {
	struct str {
		uint8_t *b;
		size_t len;
		size_t refs;
		uint32_t off;	/* place in its table */
	} *s;
	size_t n, cap;
	size_t *slot;		/* index + 1, 0 empty */
	size_t nslots;
};

static uint64_t hash(const uint8_t *b, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static int set_grow(struct strset *s)
{
	size_t i, j, n = s->nslots ? 2 * s->nslots : 1024;
	size_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 0; i < s->n; i++) {
		j = hash(s->s[i].b, s->s[i].len) & (n - 1);
		while (slot[j])
			j = (j + 1) & (n - 1);
		slot[j] = i + 1;
	}
	free(s->slot);
	s->slot = slot;
	s->nslots = n;
	return 0;
}

/* Index of the string (added if new), counting references; -1 no memory. */
static long set_add(struct strset *s, const uint8_t *b, size_t len)
{
	struct str *ns;
	size_t j;

	if (2 * (s->n + 1) > s->nslots && set_grow(s))
		return -1;
	j = hash(b, len) & (s->nslots - 1);
	while (s->slot[j]) {
		ns = &s->s[s->slot[j] - 1];
		if (ns->len == len && !memcmp(ns->b, b, len)) {
			ns->refs++;
			return (long)(s->slot[j] - 1);
		}
		j = (j + 1) & (s->nslots - 1);
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		ns = realloc(s->s, s->cap * sizeof(*ns));
		if (!ns)
			return -1;
		s->s = ns;
	}
	ns = &s->s[s->n];
	ns->b = malloc(len ? len : 1);
	if (!ns->b)
		return -1;
	memcpy(ns->b, b, len);
	ns->len = len;
	ns->refs = 1;
	ns->off = 0;
	s->slot[j] = ++s->n;
	return (long)(s->n - 1);
}

static void set_free(struct strset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->s[i].b);
	free(s->s);
	free(s->slot);
}

/* One function table entry: a function, or a filler for a gap. */
struct entry {
	uint64_t addr;
	const struct cg_func *f;	/* NULL: filler */
	int refuse;			/* filler or function: 80 00 only */
	size_t first, count;		/* its sequences in seqs[] */
};

/* Sort order of the instruction table: score ref/len, then bytes, both descending. */
static int seq_cmp(const void *a, const void *b)
{
	const struct str *x = *(const struct str *const *)a;
	const struct str *y = *(const struct str *const *)b;
	unsigned __int128 l = (unsigned __int128)x->refs * y->len;
	unsigned __int128 r = (unsigned __int128)y->refs * x->len;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;

	if (l != r)
		return l > r ? -1 : 1;
	c = memcmp(x->b, y->b, n);
	if (c)
		return c > 0 ? -1 : 1;
	return x->len == y->len ? 0 : (x->len > y->len ? -1 : 1);
}

static int fn_cmp(const void *a, const void *b)
{
	const struct cg_func *x = *(const struct cg_func *const *)a;
	const struct cg_func *y = *(const struct cg_func *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct builder {
	struct entry *e;
	size_t ne, cape;
	/* Per entry, its (offset, sequence index) pairs, highest offset first. */
	uint32_t *off;
	long *seq;
	size_t nseq, capseq;
	struct strset insns;
};

static int add_entry(struct builder *bd, uint64_t addr, const struct cg_func *f,
		     int refuse)
{
	static const uint8_t refuse_seq[2] = { 0x80, 0x00 };
	static const uint8_t lr_seq[1] = { 0xb0 };
	uint8_t *cat = NULL, ins[32];
	size_t catlen = 0, i, k;
	struct entry *ne;
	long idx;
	void *p;
	int n;

	if (bd->ne == bd->cape) {
		bd->cape = bd->cape ? 2 * bd->cape : 64;
		ne = realloc(bd->e, bd->cape * sizeof(*ne));
		if (!ne)
			return -1;
		bd->e = ne;
	}
	ne = &bd->e[bd->ne++];
	ne->addr = addr;
	ne->f = f;
	ne->refuse = refuse;
	ne->first = bd->nseq;
	ne->count = refuse || !f ? 1 : f->n;
	if (bd->nseq + ne->count > bd->capseq) {
		while (bd->nseq + ne->count > bd->capseq)
			bd->capseq = bd->capseq ? 2 * bd->capseq : 256;
		p = realloc(bd->off, bd->capseq * sizeof(*bd->off));
		if (!p)
			return -1;
		bd->off = p;
		p = realloc(bd->seq, bd->capseq * sizeof(*bd->seq));
		if (!p)
			return -1;
		bd->seq = p;
	}
	if (refuse || !f) {
		idx = refuse ? set_add(&bd->insns, refuse_seq, 2) :
			       set_add(&bd->insns, lr_seq, 1);
		if (idx < 0)
			return -1;
		bd->off[bd->nseq] = 0;
		bd->seq[bd->nseq++] = idx;
		return 0;
	}
	/* Row i runs its own instructions, then those of rows i-1..0. */
	bd->nseq += f->n;
	for (i = 0; i < f->n; i++) {
		n = cg_encode_unwind(&f->u[i], ins);
		if (n < 0)
			goto fail;
		p = realloc(cat, catlen + (size_t)n + 1);
		if (!p)
			goto fail;
		cat = p;
		memmove(cat + n, cat, catlen);
		memcpy(cat, ins, (size_t)n);
		catlen += (size_t)n;
		idx = set_add(&bd->insns, cat, catlen);
		if (idx < 0)
			goto fail;
		k = ne->first + (f->n - 1 - i);	/* highest offset first */
		bd->off[k] = f->u[i].off;
		bd->seq[k] = idx;
	}
	free(cat);
	return 0;
fail:
	free(cat);
	return -1;
}

static int err_out(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

int cg_build(struct cg_funcs *fs, uint64_t text_start, uint8_t **blob,
	     size_t *size, char *err, size_t errlen)
{
	struct builder bd;
	struct cg_func **sorted = NULL;
	struct str **order = NULL;
	struct strset fots;
	struct buf insn = { 0 }, fot = { 0 }, one = { 0 }, fnt = { 0 },
		   pages = { 0 }, out = { 0 };
	uint64_t prev_end, off;
	uint32_t npages = 0, page, nfn = 0, pio;
	size_t i, j, n = 0;
	long idx;
	int ret = -1;

	memset(&bd, 0, sizeof(bd));
	memset(&fots, 0, sizeof(fots));
	sorted = calloc(fs->n ? fs->n : 1, sizeof(*sorted));
	if (!sorted)
		return err_out(err, errlen, "out of memory");
	for (i = 0; i < fs->n; i++) {
		if (!fs->f[i].refuse && !fs->f[i].n)
			continue;	/* nothing usable: left as a gap */
		if (fs->f[i].addr < text_start) {
			snprintf(err, errlen, "function 0x%" PRIx64
				 " before the text start 0x%" PRIx64,
				 fs->f[i].addr, text_start);
			goto out;
		}
		sorted[n++] = &fs->f[i];
	}
	if (!n) {
		err_out(err, errlen, "no usable STACK CFI records");
		goto out;
	}
	qsort(sorted, n, sizeof(*sorted), fn_cmp);

	/* Refuse before the first function, lr in gaps, refuse after the last. */
	if (sorted[0]->addr > text_start && add_entry(&bd, text_start, NULL, 1))
		goto nomem;
	prev_end = sorted[0]->addr;
	for (i = 0; i < n; i++) {
		if (sorted[i]->addr < prev_end) {
			snprintf(err, errlen, "functions overlap at 0x%" PRIx64,
				 sorted[i]->addr);
			goto out;
		}
		if (prev_end < sorted[i]->addr &&
		    add_entry(&bd, prev_end, NULL, 0))
			goto nomem;
		if (add_entry(&bd, sorted[i]->addr, sorted[i],
			      sorted[i]->refuse))
			goto nomem;
		prev_end = sorted[i]->addr + sorted[i]->size;
	}
	if ((((prev_end - text_start) >> 1) & 0xffff) &&
	    add_entry(&bd, prev_end, NULL, 1))
		goto nomem;

	/* Instruction table: most references per byte first. */
	order = calloc(bd.insns.n, sizeof(*order));
	if (!order)
		goto nomem;
	for (i = 0; i < bd.insns.n; i++)
		order[i] = &bd.insns.s[i];
	qsort(order, bd.insns.n, sizeof(*order), seq_cmp);
	for (i = 0; i < bd.insns.n; i++) {
		order[i]->off = (uint32_t)insn.len;
		if (put(&insn, order[i]->b, order[i]->len))
			goto nomem;
	}

	/* Function offset table (shared between identical functions), page and function tables. */
	for (i = 0; i < bd.ne; i++) {
		struct entry *e = &bd.e[i];

		one.len = 0;
		for (j = e->first; j < e->first + e->count; j++) {
			if (put_uleb(&one, bd.off[j] >> 1) ||
			    put_uleb(&one, bd.insns.s[bd.seq[j]].off))
				goto nomem;
		}
		idx = set_add(&fots, one.b, one.len);
		if (idx < 0)
			goto nomem;
		if (fots.s[idx].refs == 1) {
			fots.s[idx].off = (uint32_t)fot.len;
			if (put(&fot, one.b, one.len))
				goto nomem;
		}
		if (fots.s[idx].off > 0xffff) {
			err_out(err, errlen, "function offset table too large"
				" for 16-bit indices");
			goto out;
		}
		off = e->addr - text_start;
		if ((off >> 17) > 0xffffffffu) {
			err_out(err, errlen, "text larger than the format allows");
			goto out;
		}
		page = (uint32_t)(off >> 17);
		pio = (uint32_t)((off >> 1) & 0xffff);
		while (npages <= page) {
			if (put_u32(&pages, nfn))
				goto nomem;
			npages++;
		}
		{
			uint8_t c[4] = { pio, pio >> 8, fots.s[idx].off,
					 fots.s[idx].off >> 8 };

			if (put(&fnt, c, 4))
				goto nomem;
		}
		nfn++;
	}

	if (put_u32(&out, 32) || put_u32(&out, npages) ||
	    put_u32(&out, 32 + (uint32_t)pages.len) || put_u32(&out, nfn) ||
	    put_u32(&out, 32 + (uint32_t)(pages.len + fnt.len)) ||
	    put_u32(&out, (uint32_t)fot.len) ||
	    put_u32(&out, 32 + (uint32_t)(pages.len + fnt.len + fot.len)) ||
	    put_u32(&out, (uint32_t)insn.len) ||
	    put(&out, pages.b, pages.len) || put(&out, fnt.b, fnt.len) ||
	    put(&out, fot.b, fot.len) || put(&out, insn.b, insn.len))
		goto nomem;
	*blob = out.b;
	*size = out.len;
	out.b = NULL;
	ret = 0;
	goto out;
nomem:
	err_out(err, errlen, "out of memory or unencodable CFI");
out:
	free(sorted);
	free(order);
	free(bd.e);
	free(bd.off);
	free(bd.seq);
	set_free(&bd.insns);
	set_free(&fots);
	free(insn.b);
	free(fot.b);
	free(one.b);
	free(fnt.b);
	free(pages.b);
	free(out.b);
	return ret;
}
