// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SFrame V1, V2 and V3 decoding, in place.
 *
 * Layout facts (binutils include/sframe.h, the SFrame specification):
 * a 28-byte header, an optional auxiliary header, then the FDE
 * subsection and the FRE subsection, whose offsets count from the end of
 * the auxiliary header.  V1 FDEs are 17 bytes, V2 FDEs 20 (adding the
 * PCMASK repetition size).  V3 splits the FDE into a 16-byte index entry
 * (s64 start, u32 size, u32 attribute offset) and a 5-byte attribute
 * record at the head of the function's FREs.
 */
#include "span.h"
#include "walk.h"

#define INT64_MAX_	((int64_t)0x7fffffffffffffffLL)
#define INT64_MIN_	(-INT64_MAX_ - 1)

#define V1_FDE_SIZE	17
#define V2_FDE_SIZE	20
#define V3_FDE_SIZE	16
#define V3_ATTR_SIZE	5

/* V1 had no repetition size; its only PCMASK user is the 16-byte PLT. */
#define V1_REP_SIZE	16

/* s390x stores the CFA offset scaled: cfa = word * 8 + 160. */
#define S390X_CFA_SCALE	8
#define S390X_CFA_BIAS	160

static int abi_arch(uint8_t abi, bool be, uint8_t version, uint8_t *arch)
{
	switch (abi) {
	case UW_SFRAME_ABI_AARCH64_BE:
		*arch = UW_ARCH_AARCH64;
		return be ? 0 : UW_EHEADER;
	case UW_SFRAME_ABI_AARCH64_LE:
		*arch = UW_ARCH_AARCH64;
		return be ? UW_EHEADER : 0;
	case UW_SFRAME_ABI_AMD64_LE:
		*arch = UW_ARCH_X86_64;
		return be ? UW_EHEADER : 0;
	case UW_SFRAME_ABI_S390X_BE:
		*arch = UW_ARCH_S390X;
		return (be && version >= 2) ? 0 : UW_EHEADER;
	default:
		return UW_EARCH;
	}
}

static uint8_t allowed_flags(uint8_t version)
{
	if (version == 1)
		return UW_SFRAME_F_FDE_SORTED | UW_SFRAME_F_FRAME_POINTER;
	if (version == 2)
		return UW_SFRAME_F_FDE_SORTED | UW_SFRAME_F_FRAME_POINTER |
		       UW_SFRAME_F_FDE_FUNC_START_PCREL;
	return UW_SFRAME_F_FDE_SORTED | UW_SFRAME_F_FDE_FUNC_START_PCREL;
}

/* Key shapes: one search loop each. */
#define SHAPE_BE	4
#define SHAPE_K8	2	/* V3: 8-byte start fields */
#define SHAPE_PCREL	1

/*
 * The search's fixed steps (see struct uw_sframe); a bounded loop.  The
 * FDE index is below 4 GiB (uw_sframe_init), so every step fits 32 bits.
 */
static void search_plan(struct uw_sframe *sf)
{
	uint32_t k = 1, bits = 0;

	while (k <= sf->num_fdes / 2) {
		k <<= 1;
		bits++;
	}
	sf->search_first = sf->num_fdes ? (sf->num_fdes - k) * sf->fde_size : 0;
	sf->search_half = bits & 1 ? k / 2 * sf->fde_size : 0;
	if (bits & 1)
		k /= 2;
	sf->search_quarter = k / 4 * sf->fde_size;
	sf->key_shape = (sf->big_endian ? SHAPE_BE : 0) |
			(sf->version == 3 ? SHAPE_K8 : 0) |
			(sf->flags & UW_SFRAME_F_FDE_FUNC_START_PCREL ?
			 SHAPE_PCREL : 0);
}

int uw_sframe_init(struct uw_sframe *sf, const struct uw_span *sec)
{
	const uint8_t *h;
	uint64_t magic, base, end;
	bool be;
	int err;

	if (!sf || !sec || !sec->data)
		return UW_EINVAL;
	if (sec->size < UW_SFRAME_HDR_SIZE)
		return UW_EBOUNDS;
	/* The whole header is inside the section: no read below can fail. */
	h = sec->data;
	magic = uwi_load(h, 2, false);
	if (magic == UW_SFRAME_MAGIC)
		be = false;
	else if (magic == 0xe2de)
		be = true;
	else
		return UW_EMAGIC;

	sf->sec = *sec;
	sf->big_endian = be;
	sf->version = h[2];
	if (sf->version < 1 || sf->version > 3)
		return UW_EVERSION;
	sf->flags = h[3];
	if (sf->flags & ~allowed_flags(sf->version))
		return UW_EHEADER;
	sf->abi = h[4];
	err = abi_arch(sf->abi, be, sf->version, &sf->arch);
	if (err)
		return err;
	err = uw_arch_info(sf->arch, &sf->ai);
	if (err)
		return err;
	sf->fixed_fp = (int8_t)h[5];
	sf->fixed_ra = (int8_t)h[6];
	sf->auxhdr_len = h[7];
	sf->num_fdes = (uint32_t)uwi_load(h + 8, 4, be);
	sf->num_fres = (uint32_t)uwi_load(h + 12, 4, be);
	sf->fre_len = (uint32_t)uwi_load(h + 16, 4, be);
	sf->fde_start = (uint32_t)uwi_load(h + 20, 4, be);
	sf->fre_start = (uint32_t)uwi_load(h + 24, 4, be);

	/*
	 * Binary search needs sorted FDEs; an unsorted table is refused.
	 * A table of one FDE (or none) is sorted whatever its flag says:
	 * gas leaves the flag to the linker, even in an object file with a
	 * single function.
	 */
	if (!(sf->flags & UW_SFRAME_F_FDE_SORTED) && sf->num_fdes > 1)
		return UW_EUNSORTED;

	sf->fde_size = sf->version == 1 ? V1_FDE_SIZE :
		       sf->version == 2 ? V2_FDE_SIZE : V3_FDE_SIZE;

	/* 64-bit arithmetic: none of these sums can wrap. */
	base = UW_SFRAME_HDR_SIZE + (uint64_t)sf->auxhdr_len;
	/* An FDE index of 4 GiB or more is refused: offsets stay 32-bit. */
	if ((uint64_t)sf->num_fdes * sf->fde_size > 0xffffffffu)
		return UW_EHEADER;
	end = base + sf->fde_start + (uint64_t)sf->num_fdes * sf->fde_size;
	if (end > sec->size)
		return UW_EHEADER;
	end = base + sf->fre_start + (uint64_t)sf->fre_len;
	if (end > sec->size)
		return UW_EHEADER;
	sf->fde_start += (uint32_t)base;
	sf->fre_start += (uint32_t)base;
	search_plan(sf);
	return 0;
}

/*
 * Start address of the FDE whose entry is at section offset off.  The
 * caller guarantees the entry lies inside the FDE index, which
 * uw_sframe_init proved to lie inside the section.
 */
static uwi_always_inline int fde_func_start(const struct uw_sframe *sf,
					   uint64_t off, bool be,
					   uint64_t *start)
{
	const uint8_t *p = sf->sec.data + off;
	uint64_t origin = sf->sec.addr;
	int64_t rel;

	if (sf->version == 3)
		rel = uwi_sext(uwi_load(p, 8, be), 8);
	else
		rel = uwi_sext(uwi_load(p, 4, be), 4);
	if (sf->flags & UW_SFRAME_F_FDE_FUNC_START_PCREL) {
		origin += off;
		if (origin < off)
			return UW_EOVERFLOW;
	}
	return uwi_add_off(origin, rel, start);
}

static uwi_always_inline int fde_info(struct uw_sframe_fde *fde,
				     uint8_t version)
{
	fde->fre_type = fde->info & 0xf;
	fde->pc_type = (fde->info >> 4) & 1;
	fde->pauth_key_b = (fde->info >> 5) & 1;
	fde->signal = version == 3 ? (fde->info >> 7) & 1 : 0;
	fde->fde_type = version == 3 ? (fde->info2 & 0x1f) :
				       UW_SFRAME_FDE_DEFAULT;
	if (fde->fre_type > UW_SFRAME_FRE_ADDR4)
		return UW_EBADDATA;
	if (fde->fde_type > UW_SFRAME_FDE_FLEX)
		return UW_EBADDATA;
	if (fde->pc_type == UW_SFRAME_PC_MASK && fde->rep_size == 0)
		return UW_EBADDATA;	/* would divide by zero */
	return 0;
}

/*
 * The FDE whose index entry is at section offset off.  The caller
 * guarantees the entry lies inside the FDE index, which uw_sframe_init
 * proved to lie inside the section.
 */
static uwi_always_inline int fde_decode(const struct uw_sframe *sf,
				       uint64_t off, bool be,
				       struct uw_sframe_fde *fde)
{
	const uint8_t *p = sf->sec.data + off;
	int err;

	err = fde_func_start(sf, off, be, &fde->func_start);
	if (err)
		return err;

	fde->info2 = 0;
	if (sf->version == 3) {
		uint32_t attr = (uint32_t)uwi_load(p + 12, 4, be);
		const uint8_t *a;

		fde->func_size = (uint32_t)uwi_load(p + 8, 4, be);
		/* The attribute record must lie inside the FRE subsection. */
		if ((uint64_t)attr + V3_ATTR_SIZE > sf->fre_len)
			return UW_EBOUNDS;
		a = sf->sec.data + sf->fre_start + attr;
		fde->num_fres = (uint32_t)uwi_load(a, 2, be);
		fde->info = a[2];
		fde->info2 = a[3];
		fde->rep_size = a[4];
		fde->fre_off = attr + V3_ATTR_SIZE;
	} else {
		fde->func_size = (uint32_t)uwi_load(p + 4, 4, be);
		fde->fre_off = (uint32_t)uwi_load(p + 8, 4, be);
		fde->num_fres = (uint32_t)uwi_load(p + 12, 4, be);
		fde->info = p[16];
		fde->rep_size = sf->version == 2 ? p[17] : V1_REP_SIZE;
	}

	err = fde_info(fde, sf->version);
	if (err)
		return err;
	if (fde->num_fres > sf->num_fres)
		return UW_EBADDATA;
	if (fde->num_fres && fde->fre_off >= sf->fre_len)
		return UW_EBADDATA;
	if (fde->func_start + fde->func_size < fde->func_start)
		return UW_EOVERFLOW;
	return 0;
}

int uw_sframe_fde(const struct uw_sframe *sf, uint32_t i,
		  struct uw_sframe_fde *fde)
{
	if (i >= sf->num_fdes)
		return UW_EINVAL;
	/* Entry i is inside the FDE index: uw_sframe_init checked it. */
	return fde_decode(sf, sf->fde_start + (uint64_t)i * sf->fde_size,
			  sf->big_endian, fde);
}

static const uint8_t word_sizes[4] = { 1, 2, 4, 0 };

/*
 * The fixed part of an FRE: start offset and info byte, with one bounds
 * check.  Returns the offset of its first data word in *words.
 */
static uwi_always_inline int fre_head(const struct uw_sframe *sf,
				     const struct uw_sframe_fde *fde,
				     uint32_t off, bool be, uint32_t *start,
				     uint8_t *info, uint64_t *words)
{
	const uint8_t *p = sf->sec.data + sf->fre_start + off;
	unsigned int asz = 1u << fde->fre_type;	/* 1, 2 or 4 bytes */

	if ((uint64_t)off + asz + 1 > sf->fre_len)
		return UW_EBOUNDS;
	*start = (uint32_t)uwi_load(p, asz, be);
	*info = p[asz];
	*words = (uint64_t)off + asz + 1;
	return 0;
}

/*
 * Bytes of data words after an FRE's info byte, count << size code, for
 * every info byte; FRE_RESERVED marks the reserved size code 3.  The FRE
 * scan spends one load on it instead of five shifts and masks.
 */
#define FRE_RESERVED	0x80
#define FRE_LEN(i)	((((i) >> 5) & 3) == 3 ? FRE_RESERVED : \
			 (((i) >> 1) & 0xf) << (((i) >> 5) & 3))
#define FRE_LEN4(i)	FRE_LEN(i), FRE_LEN((i) + 1), FRE_LEN((i) + 2), \
			FRE_LEN((i) + 3)
#define FRE_LEN16(i)	FRE_LEN4(i), FRE_LEN4((i) + 4), FRE_LEN4((i) + 8), \
			FRE_LEN4((i) + 12)
#define FRE_LEN64(i)	FRE_LEN16(i), FRE_LEN16((i) + 16), \
			FRE_LEN16((i) + 32), FRE_LEN16((i) + 48)

static const uint8_t fre_data_len[256] = {
	FRE_LEN64(0), FRE_LEN64(64), FRE_LEN64(128), FRE_LEN64(192)
};

/* n data words of one size (constant at each call), sign-extended. */
/* One data word of wsz bytes (a constant at each call), sign-extended. */
static uwi_always_inline int32_t fre_word(const uint8_t *p, unsigned int wsz,
					 bool be)
{
	/* Two's complement narrowing, as GCC and Clang define it. */
	if (wsz == 1)
		return (int8_t)p[0];
	if (wsz == 2)
		return (int16_t)(uint16_t)uwi_load(p, 2, be);
	return (int32_t)(uint32_t)uwi_load(p, 4, be);
}

/* n data words; the first three (all a DEFAULT FDE has) without a loop. */
static uwi_always_inline void fre_words(const uint8_t *p, unsigned int n,
				       unsigned int wsz, bool be, int32_t *w)
{
	unsigned int i;

	if (n > 0)
		w[0] = fre_word(p, wsz, be);
	if (n > 1)
		w[1] = fre_word(p + wsz, wsz, be);
	if (n > 2)
		w[2] = fre_word(p + 2 * wsz, wsz, be);
	for (i = 3; i < n; i++)
		w[i] = fre_word(p + i * wsz, wsz, be);
}

static uwi_always_inline int fre_decode(const struct uw_sframe *sf,
				       const struct uw_sframe_fde *fde,
				       uint32_t *off, bool be,
				       struct uw_sframe_fre *fre)
{
	const uint8_t *p;
	uint64_t words, end;
	int err;

	err = fre_head(sf, fde, *off, be, &fre->start, &fre->info, &words);
	if (err)
		return err;
	fre->base_sp = fre->info & 1;
	fre->nwords = (fre->info >> 1) & 0xf;
	fre->word_size = word_sizes[(fre->info >> 5) & 3];
	fre->ra_mangled = fre->info >> 7;
	if (!fre->word_size || fre->nwords > UW_SFRAME_MAX_WORDS)
		return UW_EBADDATA;
	/* One check for all the data words: they must end in the subsection. */
	end = words + (uint64_t)fre->nwords * fre->word_size;
	if (end > sf->fre_len)
		return UW_EBOUNDS;
	p = sf->sec.data + sf->fre_start + words;
	if (fre->word_size == 1)
		fre_words(p, fre->nwords, 1, be, fre->w);
	else if (fre->word_size == 2)
		fre_words(p, fre->nwords, 2, be, fre->w);
	else
		fre_words(p, fre->nwords, 4, be, fre->w);
	fre->next = (uint32_t)end;
	*off = (uint32_t)end;
	return 0;
}

int uw_sframe_fre(const struct uw_sframe *sf, const struct uw_sframe_fde *fde,
		  uint32_t *off, struct uw_sframe_fre *fre)
{
	return fre_decode(sf, fde, off, sf->big_endian, fre);
}

/*
 * The search's target: a pc, and for keys relative to the section the pc
 * made relative to it once (see fde_le()).
 */
struct fde_target {
	uint64_t pc;
	int64_t rel;
};

/*
 * Whether the FDE whose index entry is at p (section offset sec_off)
 * starts at or below the target.  ksz, pcrel and be are constants at
 * every call, so each search loop gets its own straight-line key load.
 *
 * A start field relative to the section is compared with t->rel, pc -
 * section address saturated to 64 bits signed: exact, as every key fits
 * (a key of INT64_MIN passes a target saturated to it, but its start is
 * above pc then: the caller misses it, as it should).
 * With PCREL the field is relative to itself, and key + sec_off need not
 * fit 64 bits signed: the start itself, section address + sec_off + key,
 * is compared with pc, in 64-bit unsigned arithmetic.  That is exact for
 * every FDE that decodes (fde_func_start() refuses a start that wraps),
 * wherever its code lies.  uw_sframe_check() demands every FDE decode and
 * the starts rise as unsigned addresses (for section-relative keys the
 * same order as the keys'), the order this search needs: in a checked
 * table it finds the last FDE starting at or below pc.  A start that
 * wraps can only misdirect the search: the caller checks that the FDE it
 * gets decodes and covers pc.
 */
static uwi_always_inline bool fde_le(const uint8_t *p, uint64_t sec_off,
				    const struct fde_target *t,
				    uint64_t sec_addr, unsigned int ksz,
				    bool pcrel, bool be)
{
	int64_t key;

	/* Two's complement narrowing, as GCC and Clang define it. */
	if (ksz == 8)
		key = (int64_t)uwi_load(p, 8, be);
	else
		key = (int32_t)(uint32_t)uwi_load(p, 4, be);
	if (pcrel)
		return (uint64_t)key + (sec_addr + sec_off) <= t->pc;
	return key <= t->rel;
}

/* Move p to q if entry q starts at or below target: a select, no branch. */
#define FDE_PROBE(p, q, t, ksz, pcrel, be)				\
	((p) = uwi_unpredictable(fde_le((q), (uint64_t)((q) - data),	\
				       (t), addr, (ksz), (pcrel), (be))) ? \
	       (q) : (p))

/*
 * Search without data-dependent branches: each comparison becomes a
 * conditional move, so a lookup never mispredicts, whatever the pc.  The
 * steps are fixed (search_plan).  After the first probe the window is a
 * power of two entries wide; one binary step makes it a power of four,
 * then each round probes its three quarter marks at once and keeps the
 * last of them at or below target.  The three loads are independent, so
 * a round costs about one load latency for two bits where a binary
 * search pays two; the instruction count stays the same.  Returns the
 * entry of the last FDE starting at or below target, or NULL if none.
 */
static uwi_always_inline const uint8_t *fde_search(const struct uw_sframe *sf,
						  const struct fde_target *t,
						  unsigned int ksz, bool pcrel,
						  bool be)
{
	const uint8_t *data = sf->sec.data;
	const uint8_t *p = data + sf->fde_start, *q;
	const uint64_t addr = sf->sec.addr;
	const uint32_t size = sf->fde_size;
	uint32_t step;

	q = p + sf->search_first;
	FDE_PROBE(p, q, t, ksz, pcrel, be);
	if (sf->search_half) {
		q = p + sf->search_half;
		FDE_PROBE(p, q, t, ksz, pcrel, be);
	}
	/* Keys are sorted, so the later probes can only move p further. */
	for (step = sf->search_quarter; step >= size; step >>= 2) {
		const uint8_t *q1 = p + step, *q2 = q1 + step, *q3 = q2 + step;

		bool c1 = fde_le(q1, (uint64_t)(q1 - data), t, addr, ksz,
				 pcrel, be);
		bool c2 = fde_le(q2, (uint64_t)(q2 - data), t, addr, ksz,
				 pcrel, be);
		bool c3 = fde_le(q3, (uint64_t)(q3 - data), t, addr, ksz,
				 pcrel, be);
		const uint8_t *hi = uwi_unpredictable(c3) ? q3 : q2;
		const uint8_t *lo = uwi_unpredictable(c1) ? q1 : p;

		p = uwi_unpredictable(c2) ? hi : lo;
	}
	return fde_le(p, (uint64_t)(p - data), t, addr, ksz, pcrel, be) ?
	       p : NULL;
}

/*
 * Section offset of the entry of the last FDE whose start is <= pc.
 *
 * The hot loop of every lookup.  uw_sframe_init proved the whole FDE
 * index lies inside the section, so the loop loads the start fields
 * without a check each, and compares them as fde_le() says.  The caller
 * then computes the winner's real, overflow-checked start and rejects a
 * pc outside it.
 */
static uwi_always_inline int find_fde_entry(const struct uw_sframe *sf,
					   uint64_t pc, bool be, uint64_t *off)
{
	struct fde_target t = { pc, 0 };
	const uint8_t *p;

	if (!sf->num_fdes)
		return UW_ENOENT;
	/* One loop per key shape; be is a constant in each copy. */
	if (sf->key_shape & SHAPE_PCREL) {
		p = sf->key_shape & SHAPE_K8 ? fde_search(sf, &t, 8, true, be) :
		    fde_search(sf, &t, 4, true, be);
	} else {
		/* pc - section address, saturated: keys are 64-bit signed. */
		if (pc >= sf->sec.addr)
			t.rel = pc - sf->sec.addr > (uint64_t)INT64_MAX_ ?
				INT64_MAX_ : (int64_t)(pc - sf->sec.addr);
		else
			t.rel = sf->sec.addr - pc > (uint64_t)INT64_MAX_ ?
				INT64_MIN_ : -(int64_t)(sf->sec.addr - pc);
		p = sf->key_shape & SHAPE_K8 ? fde_search(sf, &t, 8, false, be) :
		    fde_search(sf, &t, 4, false, be);
	}
	if (!p)
		return UW_ENOENT;
	*off = (uint64_t)(p - sf->sec.data);
	return 0;
}

/*
 * The FDE covering pc, found by its index entry: a lying SORTED flag can
 * only make a lookup miss, never attribute pc to the wrong function.
 */
static uwi_always_inline int find_fde(const struct uw_sframe *sf, uint64_t pc,
				     bool be, struct uw_sframe_fde *fde)
{
	uint64_t off;
	int err = find_fde_entry(sf, pc, be, &off);

	if (err)
		return err;
	err = fde_decode(sf, off, be, fde);
	if (err)
		return err;
	if (pc < fde->func_start || pc - fde->func_start >= fde->func_size)
		return UW_ENOENT;
	return 0;
}

/*
 * The FRE scan proper, for one FRE start width asz (1, 2 or 4): the
 * caller passes a constant, so each width gets its own loop.  Only the
 * fixed parts are read, each FRE with one bounds check, and the checks
 * sit where they cost least:
 *  - an FRE passed over has start <= pc_off < func_size, so "start past
 *    the function" is only possible for, and only checked on, the FRE
 *    that ends the scan;
 *  - starts must rise strictly: start >= prev + 1, prev + 1 kept in next;
 *  - a reserved word size (code 3) is refused on every FRE read.
 * Returns the offset of the last FRE starting at or below pc_off.
 */
static uwi_always_inline int scan_fres(const struct uw_sframe *sf,
				      const struct uw_sframe_fde *fde,
				      uint32_t pc_off, unsigned int asz,
				      bool be, uint32_t *info_off,
				      uint32_t *fre_start)
{
	const uint8_t *base = sf->sec.data + sf->fre_start;
	const uint8_t *p = base + fde->fre_off, *match = NULL, *lim;
	uint32_t left = fde->num_fres, start, next = 0, len;

	if (!left)
		return UW_ENOENT;
	/* The head (start, info) of an FRE at p is inside if p <= lim. */
	if (sf->fre_len < asz + 1)
		return UW_EBOUNDS;
	lim = base + (sf->fre_len - asz - 1);
	do {
		if (uwi_unlikely(p > lim))
			return UW_EBOUNDS;
		start = (uint32_t)uwi_load(p, asz, be);
		len = fre_data_len[p[asz]];
		if (uwi_unlikely(len & FRE_RESERVED))
			return UW_EBADDATA;
		if (start > pc_off) {
			if (start > fde->func_size)
				return UW_EBADDATA;
			break;
		}
		if (uwi_unlikely(start < next))
			return UW_EBADDATA;
		match = p;
		next = start + 1;	/* start <= pc_off < 2^32 - 1 */
		p += asz + 1 + len;	/* at most lim + 61: no wrap */
	} while (--left);
	/* Nothing passed: the first FRE starts after pc. */
	if (!match)
		return UW_ENOENT;
	*info_off = (uint32_t)(match + asz - base);	/* < fre_len */
	*fre_start = next - 1;
	return 0;
}

/*
 * Offset of the FRE covering pc.  The caller decodes the match, so the
 * scan and the decode never nest (that keeps the lookup's worst-case
 * stack down).
 */
/*
 * The FRE covering pc: the FRE subsection offset of its info byte (its
 * data words follow) and its start.  The scan proved the info byte lies
 * inside the subsection.
 */
static uwi_always_inline int find_fre(const struct uw_sframe *sf,
				     const struct uw_sframe_fde *fde,
				     uint64_t pc, bool be, uint32_t *info_off,
				     uint32_t *start)
{
	uint32_t pc_off;

	if (pc < fde->func_start || pc - fde->func_start >= fde->func_size)
		return UW_ENOENT;
	/* pc_off < func_size, so 32-bit arithmetic (no libgcc division). */
	pc_off = (uint32_t)(pc - fde->func_start);
	if (fde->pc_type == UW_SFRAME_PC_MASK)
		pc_off %= fde->rep_size;	/* != 0: checked */

	/* One loop per start width and byte order. */
	if (fde->fre_type == UW_SFRAME_FRE_ADDR1)
		return scan_fres(sf, fde, pc_off, 1, false, info_off, start);
	if (be)
		return fde->fre_type == UW_SFRAME_FRE_ADDR2 ?
		       scan_fres(sf, fde, pc_off, 2, true, info_off, start) :
		       scan_fres(sf, fde, pc_off, 4, true, info_off, start);
	return fde->fre_type == UW_SFRAME_FRE_ADDR2 ?
	       scan_fres(sf, fde, pc_off, 2, false, info_off, start) :
	       scan_fres(sf, fde, pc_off, 4, false, info_off, start);
}

/* Default-FDE data word for RA/FP: s390x may name a register instead. */
static uwi_always_inline int saved_word(const struct uw_sframe *sf,
				       const struct uw_arch_info *ai,
				       int32_t w, uint8_t dflt_reg,
				       struct uw_rule *r)
{
	r->off = 0;
	if (sf->arch == UW_ARCH_S390X) {
		if (w == 0) {		/* padding: not saved */
			r->kind = dflt_reg ? UW_RULE_REG : UW_RULE_SAME;
			r->reg = dflt_reg;
			return 0;
		}
		if (sf->version == 2 && (w & 1)) {
			r->kind = UW_RULE_REG;
			r->reg = (uint8_t)((uint32_t)w >> 1);
			return r->reg < UW_NREGS ? 0 : UW_EBADDATA;
		}
	}
	(void)ai;
	r->kind = UW_RULE_CFA_OFF;
	r->reg = 0;
	r->off = w;
	return 0;
}

/* Where the RA is when the FRE does not say: fixed offset or the LR. */
static uwi_always_inline void ra_default(const struct uw_sframe *sf,
					const struct uw_arch_info *ai,
					struct uw_rule *r)
{
	r->reg = 0;
	r->off = 0;
	if (sf->fixed_ra) {
		r->kind = UW_RULE_CFA_OFF;
		r->off = sf->fixed_ra;
	} else if (ai->has_lr) {
		r->kind = UW_RULE_REG;
		r->reg = ai->ra;
	} else {
		r->kind = UW_RULE_UNDEF;
	}
}

static uwi_always_inline void fp_default(const struct uw_sframe *sf,
					struct uw_rule *r)
{
	r->kind = UW_RULE_SAME;
	r->reg = 0;
	r->off = 0;
	if (sf->fixed_fp) {
		r->kind = UW_RULE_CFA_OFF;
		r->off = sf->fixed_fp;
	}
}

/*
 * The rules of a DEFAULT FDE's FRE: base_sp and up to three data words,
 * w0 (CFA offset), then RA and FP offsets where the header does not fix
 * them.  The words come as values, so a caller's locals stay in registers.
 */
static uwi_always_inline int row_rules(const struct uw_sframe *sf,
				      const struct uw_arch_info *ai,
				      bool base_sp, unsigned int n, int32_t w0,
				      int32_t w1, int32_t w2,
				      struct uw_row *row)
{
	unsigned int i = 1;
	int err;

	row->cfa.kind = UW_RULE_REG_OFF;
	row->cfa.reg = base_sp ? ai->sp : ai->fp;
	row->cfa.off = w0;
	if (sf->arch == UW_ARCH_S390X) {
		int64_t off = (int64_t)w0 * S390X_CFA_SCALE + S390X_CFA_BIAS;

		if (off > 0x7fffffff || off < -0x7fffffff - 1)
			return UW_EBADDATA;
		row->cfa.off = (int32_t)off;
	}

	if (sf->fixed_ra) {
		ra_default(sf, ai, &row->ra);
	} else if (n > 1) {
		i = 2;
		err = saved_word(sf, ai, w1, ai->has_lr ? ai->ra : 0, &row->ra);
		if (err)
			return err;
	} else {
		ra_default(sf, ai, &row->ra);
	}

	if (sf->fixed_fp) {
		fp_default(sf, &row->fp);
	} else if (i < n) {
		err = saved_word(sf, ai, i == 1 ? w1 : w2, 0, &row->fp);
		i++;
		if (err)
			return err;
	} else {
		fp_default(sf, &row->fp);
	}
	/* Every data word must have a meaning. */
	return i == n ? 0 : UW_EBADDATA;
}

static uwi_always_inline int row_default(const struct uw_sframe *sf,
					const struct uw_arch_info *ai,
					const struct uw_sframe_fre *fre,
					struct uw_row *row)
{
	unsigned int n = fre->nwords;

	/* At most CFA, RA and FP: a fourth word has no meaning. */
	if (n > 3)
		return UW_EBADDATA;
	return row_rules(sf, ai, fre->base_sp, n, fre->w[0],
			 n > 1 ? fre->w[1] : 0, n > 2 ? fre->w[2] : 0, row);
}

/*
 * One FLEX (control, offset) rule: 0 with *r set, or *given false when
 * the FRE gives none (the caller applies the default), or an error.  A
 * zero control word is padding.
 */
static uwi_always_inline int flex_rule(const struct uw_sframe_fre *fre,
				      unsigned int *i, bool is_cfa,
				      struct uw_rule *r, bool *given)
{
	uint32_t ctrl;
	unsigned int reg;

	*given = false;
	if (*i >= fre->nwords)
		return 0;
	/* Control words are unsigned data: undo the sign extension. */
	ctrl = (uint32_t)fre->w[*i];
	if (fre->word_size < 4)
		ctrl &= (1u << (8 * fre->word_size)) - 1;
	if (ctrl == 0 && !is_cfa) {
		*i += 1;
		return 0;
	}
	if (*i + 1 >= fre->nwords)
		return UW_EBADDATA;
	*given = true;
	reg = ctrl >> 3;
	r->off = fre->w[*i + 1];
	*i += 2;
	if (!(ctrl & 1)) {
		/* CFA-based: only meaningful for RA/FP. */
		if (is_cfa)
			return UW_EBADDATA;
		r->kind = UW_RULE_CFA_OFF;
		return 0;
	}
	if (reg >= UW_NREGS)
		return UW_EBADDATA;
	r->reg = (uint8_t)reg;
	if (ctrl & 2)
		r->kind = UW_RULE_REG_DEREF;
	else if (r->off == 0 && !is_cfa)
		r->kind = UW_RULE_REG;
	else
		r->kind = UW_RULE_REG_OFF;
	return 0;
}

static uwi_always_inline int row_flex(const struct uw_sframe *sf,
				     const struct uw_arch_info *ai,
				     const struct uw_sframe_fre *fre,
				     struct uw_row *row)
{
	unsigned int i = 0;
	bool given;
	int ret;

	ret = flex_rule(fre, &i, true, &row->cfa, &given);
	if (ret)
		return ret;
	if (!given)
		return UW_EBADDATA;	/* a CFA rule is required */
	/* s390x scales the CFA offset in FLEX FDEs too (gas, libsframe). */
	if (sf->arch == UW_ARCH_S390X) {
		int64_t off = (int64_t)row->cfa.off * S390X_CFA_SCALE +
			      S390X_CFA_BIAS;

		if (off > 0x7fffffff || off < -0x7fffffff - 1)
			return UW_EBADDATA;
		row->cfa.off = (int32_t)off;
	}
	ret = flex_rule(fre, &i, false, &row->ra, &given);
	if (ret)
		return ret;
	if (!given)
		ra_default(sf, ai, &row->ra);
	ret = flex_rule(fre, &i, false, &row->fp, &given);
	if (ret)
		return ret;
	if (!given)
		fp_default(sf, &row->fp);
	return i == fre->nwords ? 0 : UW_EBADDATA;
}

/* The row's function, start (fre_start into it) and flags. */
static uwi_always_inline void row_head(const struct uw_sframe_fde *fde,
				      uint32_t fre_start, bool ra_mangled,
				      struct uw_row *row)
{
	row->fn_start = fde->func_start;
	row->fn_size = fde->func_size;
	row->start = fde->func_start + fre_start;
	row->flags = fde->signal ? UW_ROW_SIGNAL : 0;
	if (fde->pauth_key_b)
		row->flags |= UW_ROW_PAUTH_KEY_B;
	if (ra_mangled)
		row->flags |= UW_ROW_RA_MANGLED;
}

/* ... and its rules UNDEF, for the decoders that leave some unset. */
static uwi_always_inline void row_init(const struct uw_sframe_fde *fde,
				      uint32_t fre_start, bool ra_mangled,
				      struct uw_row *row)
{
	row_head(fde, fre_start, ra_mangled, row);
	row->cfa.kind = UW_RULE_UNDEF;
	row->cfa.reg = 0;
	row->cfa.off = 0;
	row->ra = row->cfa;
	row->fp = row->cfa;
}

int uw_sframe_row(const struct uw_sframe *sf, const struct uw_sframe_fde *fde,
		  const struct uw_sframe_fre *fre, struct uw_row *row)
{
	row_init(fde, fre->start, fre->ra_mangled, row);

	/* No data words: RA undefined, the outermost frame (V2 errata, V3). */
	if (fre->nwords == 0) {
		if (sf->version == 1)
			return UW_EBADDATA;
		row->ra.kind = UW_RULE_UNDEF;
		row->flags |= UW_ROW_OUTERMOST;
		return 0;
	}
	if (fde->fde_type == UW_SFRAME_FDE_FLEX)
		return row_flex(sf, &sf->ai, fre, row);
	return row_default(sf, &sf->ai, fre, row);
}


/*
 * The lookup's own decode of a DEFAULT FDE's FRE, straight into the row:
 * info_off is the FRE's info byte (inside the subsection: the scan read
 * it, and refused a reserved word size), start its start.  One to three
 * data words are read as values, without a struct uw_sframe_fre; other
 * counts (none: an outermost row; more: malformed) are left to the
 * general decoders (*general set, nothing done).  0 or an error.
 */
static uwi_always_inline int fre_row_default(const struct uw_sframe *sf,
					    const struct uw_sframe_fde *fde,
					    uint32_t info_off, uint32_t start,
					    bool be, struct uw_row *row,
					    bool *general)
{
	const uint8_t *p = sf->sec.data + sf->fre_start + info_off;
	const uint8_t info = p[0];
	const unsigned int n = (info >> 1) & 0xf, code = (info >> 5) & 3;
	int32_t w[3] = { 0, 0, 0 };

	/* Tested here, not through *general: the compiler then knows n <= 3. */
	if (n - 1 > 2) {
		*general = true;
		return 0;
	}
	*general = false;
	if ((uint64_t)info_off + 1 + (n << code) > sf->fre_len)
		return UW_EBOUNDS;
	/* One fre_words() per word size, each with its size a constant. */
	if (code == 0)
		fre_words(p + 1, n, 1, be, w);
	else if (code == 1)
		fre_words(p + 1, n, 2, be, w);
	else
		fre_words(p + 1, n, 4, be, w);
	/* row_rules() sets every field of the three rules. */
	row_head(fde, start, info & 0x80, row);
	return row_rules(sf, &sf->ai, info & 1, n, w[0], w[1], w[2], row);
}

/*
 * The whole lookup, every step inlined: the FDE search, the FDE, the FRE
 * scan, the matching FRE and the row.  Search and decode run in turn,
 * not nested, which keeps the worst-case stack small.  be is a constant
 * at both calls, so no read in here tests the byte order.  What the
 * lookup's own decode leaves out (FLEX FDEs, FREs without data words or
 * with too many) goes through the general decoders the tools use.
 */
static uwi_always_inline int sframe_find(const struct uw_sframe *sf,
					uint64_t pc, bool be,
					struct uw_row *row)
{
	struct uw_sframe_fde fde;
	struct uw_sframe_fre fre;
	uint32_t off, start;
	bool general;
	int err;

	err = find_fde(sf, pc, be, &fde);
	if (err)
		return err;
	/* V3: a DEFAULT FDE without FREs marks an outermost function. */
	if (fde.num_fres == 0 && sf->version == 3 &&
	    fde.fde_type == UW_SFRAME_FDE_DEFAULT) {
		row_init(&fde, 0, false, row);
		row->flags |= UW_ROW_OUTERMOST;
		return 0;
	}
	err = find_fre(sf, &fde, pc, be, &off, &start);
	if (err)
		return err;
	if (fde.fde_type == UW_SFRAME_FDE_DEFAULT) {
		err = fre_row_default(sf, &fde, off, start, be, row, &general);
		if (err || !general)
			return err;
	}
	/* The FRE's own offset: back over its start field. */
	off -= 1u << fde.fre_type;
	err = uw_sframe_fre(sf, &fde, &off, &fre);
	if (err)
		return err;
	return uw_sframe_row(sf, &fde, &fre, row);
}

int uw_sframe_find(const struct uw_sframe *sf, uint64_t pc,
		   struct uw_row *row)
{
	/*
	 * Two copies, each with its byte order fixed, unless the build
	 * favours size (firmware): then one, testing it at run time.
	 */
#ifndef __OPTIMIZE_SIZE__
	if (sf->big_endian)
		return sframe_find(sf, pc, true, row);
	return sframe_find(sf, pc, false, row);
#else
	return sframe_find(sf, pc, sf->big_endian, row);
#endif
}

/*
 * One FRE of the FDE being checked: it decodes, starts rise strictly and
 * stay within the function (what the lookup's scan demands of the FREs it
 * passes and of the one that ends it), and its row is valid.
 */
static int check_fre(const struct uw_sframe *sf,
		     const struct uw_sframe_fde *fde, struct uw_check *c)
{
	struct uw_sframe_fre fre;
	struct uw_row row;
	int err;

	err = uw_sframe_fre(sf, fde, &c->off, &fre);
	if (err)
		return err;
	if ((c->sub > 1 && fre.start <= c->prev) || fre.start > fde->func_size)
		return UW_EBADDATA;
	c->prev = fre.start;
	return uw_sframe_row(sf, fde, &fre, &row);
}

/*
 * c->item is the FDE being checked; c->sub is 0 before it is begun, then
 * 1 + the FREs of it checked; c->off is where its next FRE is, c->prev
 * the last FRE's start, c->last the last FDE's start, c->total the FREs
 * all FDEs so far claim.
 */
int uw_sframe_check(const struct uw_sframe *sf, struct uw_check *c)
{
	struct uw_sframe_fde fde;
	uint64_t units = 0;
	int err;

	if (!sf || !c)
		return UW_EINVAL;
	/* Every FDE once, every FRE once: sum(FREs) <= num_fres is checked. */
	while (c->item < sf->num_fdes) {
		if (c->limit && units >= c->limit)
			return UW_CHECK_MORE;
		/* Decoded again when resumed: only its first time counts. */
		err = uw_sframe_fde(sf, c->item, &fde);
		if (err)
			return err;
		if (!c->sub) {
			units++;
			/* The lookup searches by start address. */
			if (c->item && fde.func_start < c->last)
				return UW_EUNSORTED;
			c->last = fde.func_start;
			/* FDEs sharing FREs would make the check quadratic. */
			c->total += fde.num_fres;
			if (c->total > sf->num_fres)
				return UW_EBADDATA;
			c->off = fde.fre_off;
			c->sub = 1;
		}
		for (; c->sub <= fde.num_fres; c->sub++) {
			if (c->limit && units >= c->limit)
				return UW_CHECK_MORE;
			units++;
			err = check_fre(sf, &fde, c);
			if (err)
				return err;
		}
		c->item++;
		c->sub = 0;
	}
	return UW_CHECK_DONE;
}

/* ---- the walker's glue (lib/formats.h) ---- */

/*
 * SFrame: the row for pc, kept in the cursor (not on our stack), into
 * the cache's slot if there is one, applied.  A cached row is applied by
 * the walker itself (lib/walk.c): it never comes here.  The walker's
 * fast loop may have looked pc up already, and stopped at the row (its
 * shape is not the loop's): then the row is in the cursor (row_sf).
 */
int uwi_sframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uwi_arch *a, const struct uw_sframe *sf,
		    uint64_t pc)
{
	struct uwi_state *s = uwi_state(cur);
	const struct uw_row *row = &s->scratch.row;
	struct uw_cache_entry *e;
	int err = 0;

	if (s->step.row_sf != sf || s->step.row_pc != pc)
		err = uw_sframe_find(sf, pc, &s->scratch.row);
	s->step.row_sf = NULL;

	if (err)
		return err == UW_ENOENT ? UWI_NEXT : err;
	e = uwi_cache_fill(cur);
	if (e) {
		uwi_cache_row(e, row, &a->info, (uint8_t)cfg->arch);
		uwi_cache_tag(cur, e, UW_SRC_SFRAME, (uint8_t)row->flags);
	}
	if (s->step.sp_guess)
		uwi_row_at_record(&s->scratch.row, &a->info);
	return uwi_apply_row(cur, cfg, a, row);
}

int uw_module_sframe_find(const struct uw_module *mod, uint64_t pc,
			  struct uw_row *row)
{
	int err;

	if (pc < mod->start || pc >= mod->end || !mod->sframe)
		return UW_ENOENT;
	err = uw_sframe_find(mod->sframe, pc - mod->bias, row);
	if (err)
		return err;
	row->fn_start += mod->bias;
	row->start += mod->bias;
	return 0;
}
