// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SFrame encoder (see sframe_enc.h).
 *
 * Layout written, per the SFrame specification:
 *   header (28 bytes), auxiliary header (auxhdr_len bytes),
 *   FDE subsection (fdeoff = 0 from the end of the auxiliary header),
 *   FRE subsection (freoff = nfdes * FDE size).
 * V1 FDE: s32 start, u32 size, u32 fre_off, u32 num_fres, u8 info (17).
 * V2 FDE: V1 + u8 rep_size + u16 padding (20).
 * V3 FDE index entry: s64 start, u32 size, u32 attr_off (16); the 5-byte
 * attribute record {u16 num_fres, u8 info, u8 info2, u8 rep_size} sits
 * at attr_off in the FRE subsection, directly before the function's FREs.
 * FRE: start (1/2/4 bytes), u8 info, then N data words of S bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_enc.h"

#define HDR_SIZE	28

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool be;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void sfe_put(uint8_t *p, unsigned int n, uint64_t v, bool be)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int shift = 8 * (be ? n - 1 - i : i);

		p[i] = (uint8_t)(v >> shift);
	}
}

uint64_t sfe_get(const uint8_t *p, unsigned int n, bool be)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int shift = 8 * (be ? n - 1 - i : i);

		v |= (uint64_t)p[i] << shift;
	}
	return v;
}

static void room(struct buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->cap + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("realloc");
			exit(2);
		}
	}
}

static void emit(struct buf *b, unsigned int n, uint64_t v)
{
	room(b, n);
	sfe_put(b->p + b->len, n, v, b->be);
	b->len += n;
}

static void emit_raw(struct buf *b, const uint8_t *p, size_t n)
{
	room(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static bool fits_signed(int64_t v, unsigned int n)
{
	int64_t lim = (int64_t)1 << (8 * n - 1);

	return v >= -lim && v < lim;
}

static bool fits_unsigned(uint64_t v, unsigned int n)
{
	return n >= 8 || v < ((uint64_t)1 << (8 * n));
}

/* Bit i set: word i of a FLEX FRE is a control word (unsigned data). */
static uint32_t flex_ctrl_words(const struct sfe_fre *f)
{
	uint32_t mask = 0;
	unsigned int i = 0, k;

	for (k = 0; k < 3 && i < f->nwords; k++) {
		mask |= 1u << i;
		if (k > 0 && f->w[i] == 0)
			i += 1;		/* padding: RA/FP absent */
		else
			i += 2;
	}
	return mask;
}

static bool word_fits(int32_t w, unsigned int n, bool ctrl)
{
	if (fits_signed(w, n))
		return true;
	return ctrl && fits_unsigned((uint32_t)w, n);
}

static int word_size(const struct sfe_fde *fde, const struct sfe_fre *f,
		     unsigned int *ws, uint8_t *code, char *err, size_t errlen)
{
	static const unsigned int sizes[3] = { 1, 2, 4 };
	uint32_t ctrl = fde->fde_type == SFE_FDE_FLEX ? flex_ctrl_words(f) : 0;
	unsigned int s, i;

	for (s = 0; s < 3; s++) {
		bool ok = true;

		if (f->word_size && f->word_size != sizes[s])
			continue;
		for (i = 0; i < f->nwords; i++)
			ok = ok && word_fits(f->w[i], sizes[s],
					     ctrl & (1u << i));
		if (ok) {
			*ws = sizes[s];
			*code = (uint8_t)s;
			return 0;
		}
	}
	return fail(err, errlen, "FRE at %#x: word size %u cannot hold its words",
		    f->start, f->word_size);
}

static int fre_type(const struct sfe_fde *fde, unsigned int *asz,
		    uint8_t *type, char *err, size_t errlen)
{
	uint32_t max = 0, i;

	if (fde->raw) {
		if (fde->raw_type > SFE_FRE_ADDR4)
			return fail(err, errlen, "bad FRE type %u",
				    fde->raw_type);
		*type = fde->raw_type;
		*asz = 1u << *type;
		return 0;
	}
	for (i = 0; i < fde->nfres; i++)
		if (fde->fres[i].start > max)
			max = fde->fres[i].start;
	switch (fde->addr_size) {
	case 0:
		*type = max <= 0xff ? SFE_FRE_ADDR1 :
			max <= 0xffff ? SFE_FRE_ADDR2 : SFE_FRE_ADDR4;
		break;
	case 1:
		*type = SFE_FRE_ADDR1;
		break;
	case 2:
		*type = SFE_FRE_ADDR2;
		break;
	case 4:
		*type = SFE_FRE_ADDR4;
		break;
	default:
		return fail(err, errlen, "bad FRE address size %u",
			    fde->addr_size);
	}
	*asz = 1u << *type;
	if (!fits_unsigned(max, *asz))
		return fail(err, errlen, "FRE start %#x does not fit ADDR%u",
			    max, *asz);
	return 0;
}

static uint8_t fde_info(const struct sfe_table *t, const struct sfe_fde *fde,
			uint8_t ftype)
{
	uint8_t info = ftype & 0xf;

	info |= (uint8_t)((fde->pc_type & 1) << 4);
	info |= (uint8_t)((fde->pauth_key_b & 1) << 5);
	if (t->version == 3)
		info |= (uint8_t)((fde->signal & 1) << 7);
	return info;
}

/* Emit the FREs of one function; returns -1 on a value that does not fit. */
static int emit_fres(struct buf *b, const struct sfe_fde *fde,
		     struct sfe_layout *lay, uint32_t *fre_idx, size_t sec_base,
		     char *err, size_t errlen)
{
	unsigned int asz, ws, i, j;
	uint8_t ftype, code, info;

	if (fre_type(fde, &asz, &ftype, err, errlen))
		return -1;
	if (fde->raw) {
		emit_raw(b, fde->raw, fde->raw_len);
		*fre_idx += fde->nfres;
		return 0;
	}
	for (i = 0; i < fde->nfres; i++) {
		const struct sfe_fre *f = &fde->fres[i];

		if (f->nwords > SFE_MAX_WORDS)
			return fail(err, errlen, "too many words");
		ws = 1;
		code = 0;
		if (f->nwords && word_size(fde, f, &ws, &code, err, errlen))
			return -1;
		if (!f->nwords && f->word_size)
			code = f->word_size == 4 ? 2 : f->word_size == 2;
		if (lay && lay->fre_at)
			lay->fre_at[*fre_idx] = (uint32_t)(sec_base + b->len);
		(*fre_idx)++;
		emit(b, asz, f->start);
		info = (uint8_t)((f->base_sp & 1) | (f->nwords << 1) |
				 (code << 5) | ((f->ra_mangled & 1) << 7));
		emit(b, 1, info);
		for (j = 0; j < f->nwords; j++)
			emit(b, ws, (uint32_t)f->w[j]);
	}
	return 0;
}

int sfe_encode(const struct sfe_table *t, uint8_t **out, size_t *len,
	       struct sfe_layout *lay, char *err, size_t errlen)
{
	struct buf fre = { .be = t->big_endian };
	struct buf sec = { .be = t->big_endian };
	uint32_t fde_size, total = 0, fre_idx = 0, i;
	uint32_t *fre_off = NULL;
	size_t fde_sub, fre_sub;

	if (t->version < 1 || t->version > 3)
		return fail(err, errlen, "version %u", t->version);
	fde_size = t->version == 1 ? 17 : t->version == 2 ? 20 : 16;
	for (i = 0; i < t->nfdes; i++) {
		const struct sfe_fde *f = &t->fdes[i];

		if (t->version < 3 && (f->signal || f->fde_type))
			return fail(err, errlen,
				    "FDE %u: signal/FDE type need V3", i);
		if (t->version == 3 && f->nfres > 0xffff)
			return fail(err, errlen, "FDE %u: %u FREs", i, f->nfres);
		total += f->nfres;
	}
	if (lay) {
		memset(lay, 0, sizeof(*lay));
		lay->fde_size = fde_size;
		lay->nfres = total;
		lay->fde_at = calloc(t->nfdes + 1, sizeof(uint32_t));
		lay->attr_at = calloc(t->nfdes + 1, sizeof(uint32_t));
		lay->fre_at = calloc(total + 1, sizeof(uint32_t));
	}
	fde_sub = HDR_SIZE + t->auxhdr_len;
	fre_sub = fde_sub + (size_t)t->nfdes * fde_size;
	fre_off = calloc(t->nfdes + 1, sizeof(uint32_t));

	/* The FRE subsection first: FDEs need its offsets. */
	for (i = 0; i < t->nfdes; i++) {
		const struct sfe_fde *f = &t->fdes[i];
		unsigned int asz;
		uint8_t ftype;

		fre_off[i] = (uint32_t)fre.len;
		if (t->version == 3) {
			if (fre_type(f, &asz, &ftype, err, errlen))
				goto bad;
			if (lay)
				lay->attr_at[i] = (uint32_t)(fre_sub + fre.len);
			emit(&fre, 2, f->nfres);
			emit(&fre, 1, fde_info(t, f, ftype));
			emit(&fre, 1, f->fde_type & 0x1f);
			emit(&fre, 1, f->rep_size);
		}
		if (emit_fres(&fre, f, lay, &fre_idx, fre_sub, err, errlen))
			goto bad;
	}

	emit(&sec, 2, 0xdee2);
	emit(&sec, 1, t->version);
	emit(&sec, 1, t->flags);
	emit(&sec, 1, t->abi);
	emit(&sec, 1, (uint8_t)t->fixed_fp);
	emit(&sec, 1, (uint8_t)t->fixed_ra);
	emit(&sec, 1, t->auxhdr_len);
	emit(&sec, 4, t->nfdes);
	emit(&sec, 4, total);
	emit(&sec, 4, fre.len);
	emit(&sec, 4, 0);				/* fdeoff */
	emit(&sec, 4, (uint64_t)t->nfdes * fde_size);	/* freoff */
	for (i = 0; i < t->auxhdr_len; i++)
		emit(&sec, 1, 0xa5);

	for (i = 0; i < t->nfdes; i++) {
		const struct sfe_fde *f = &t->fdes[i];
		uint64_t origin = t->addr;
		unsigned int asz;
		uint8_t ftype;
		int64_t rel;

		if (lay)
			lay->fde_at[i] = (uint32_t)sec.len;
		if (t->flags & SFE_F_PCREL)
			origin += sec.len;
		rel = (int64_t)(f->func_start - origin);
		if (t->version == 3) {
			emit(&sec, 8, (uint64_t)rel);
			emit(&sec, 4, f->func_size);
			emit(&sec, 4, fre_off[i]);
			continue;
		}
		if (!fits_signed(rel, 4))
			goto range;
		if (fre_type(f, &asz, &ftype, err, errlen))
			goto bad;
		emit(&sec, 4, (uint64_t)rel);
		emit(&sec, 4, f->func_size);
		emit(&sec, 4, fre_off[i]);
		emit(&sec, 4, f->nfres);
		emit(&sec, 1, fde_info(t, f, ftype));
		if (t->version == 2) {
			emit(&sec, 1, f->rep_size);
			emit(&sec, 2, 0);
		}
	}

	sec.p = realloc(sec.p, sec.len + fre.len + 1);
	if (!sec.p) {
		perror("realloc");
		exit(2);
	}
	if (fre.len)
		memcpy(sec.p + sec.len, fre.p, fre.len);
	sec.len += fre.len;
	if (lay) {
		lay->fde_sub = (uint32_t)fde_sub;
		lay->fre_sub = (uint32_t)fre_sub;
		lay->fre_len = (uint32_t)fre.len;
	}
	free(fre.p);
	free(fre_off);
	*out = sec.p;
	*len = sec.len;
	return 0;

range:
	fail(err, errlen, "function start out of the s32 range");
bad:
	free(fre.p);
	free(sec.p);
	free(fre_off);
	if (lay)
		sfe_layout_free(lay);
	return -1;
}

void sfe_layout_free(struct sfe_layout *lay)
{
	free(lay->fde_at);
	free(lay->attr_at);
	free(lay->fre_at);
	lay->fde_at = lay->attr_at = lay->fre_at = NULL;
}
