// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * DWARF CFI sections read with libdw (see cfi.h).
 *
 * libdw answers "the row at this address" (dwarf_cfi_addrframe) and
 * walks the section's entries (dwarf_next_cfi), but leaves an FDE's
 * encoded address fields and its instruction bytes to the caller: the
 * pointer encodings come from the CIE's augmentation ('R'), which is
 * decoded here.
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include "cfi.h"

#ifndef DW_CFA_AARCH64_negate_ra_state
#define DW_CFA_AARCH64_negate_ra_state	0x2d
#endif

Elf_Scn *cfi_find_scn(Elf *elf, const char *want, GElf_Shdr *shp)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, shp) || shp->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, shp->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

bool cfi_is_object(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;
}

int cfi_sec_open(struct cfi_sec *s, Elf *elf, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	memset(s, 0, sizeof(*s));
	s->elf = elf;
	if (!gelf_getehdr(elf, &s->eh))
		return -1;
	scn = cfi_find_scn(elf, name, &sh);
	if (!scn)
		return 1;
	s->eh_frame = !strcmp(name, ".eh_frame");
	if (s->eh_frame) {
		s->cfi = dwarf_getcfi_elf(elf);
	} else {
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return -1;
		s->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		s->cfi = s->dw ? dwarf_getcfi(s->dw) : NULL;
	}
	if (!s->cfi) {
		cfi_sec_close(s);
		return 1;
	}
	s->data = elf_getdata(scn, NULL);
	s->sec_addr = sh.sh_addr;
	if (!s->data || !s->data->d_buf) {
		cfi_sec_close(s);
		return -1;
	}
	return 0;
}

void cfi_sec_close(struct cfi_sec *s)
{
	if (s->dw)
		dwarf_end(s->dw);	/* owns the CFI it gave */
	else if (s->cfi)
		dwarf_cfi_end(s->cfi);
	s->dw = NULL;
	s->cfi = NULL;
}

static int read_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	unsigned int shift = 0;

	*v = 0;
	do {
		if (p >= end || shift > 63)
			return -1;
		*v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p++ & 0x80);
	*pp = p;
	return 0;
}

/* Read an encoded pointer (DW_EH_PE_*) at *pp; 0 ok, -1 unsupported. */
static int read_encoded(const struct cfi_sec *s, uint8_t enc,
			const uint8_t **pp, const uint8_t *end, uint64_t *val)
{
	const uint8_t *p = *pp;
	uint64_t v = 0, field = s->sec_addr +
		(uint64_t)(p - (const uint8_t *)s->data->d_buf);
	int be = s->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	int addr_size = s->eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	unsigned int size = 0, i;
	int sign = 0;

	if (enc == DW_EH_PE_omit)
		return -1;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: size = (unsigned int)addr_size; break;
	case DW_EH_PE_udata2: size = 2; break;
	case DW_EH_PE_udata4: size = 4; break;
	case DW_EH_PE_udata8: size = 8; break;
	case DW_EH_PE_sdata2: size = 2; sign = 1; break;
	case DW_EH_PE_sdata4: size = 4; sign = 1; break;
	case DW_EH_PE_sdata8: size = 8; sign = 1; break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		if (read_uleb(&p, end, &v))
			return -1;
		if ((enc & 0x0f) == DW_EH_PE_sleb128) {
			unsigned int bits = 7 * (unsigned int)(p - *pp);

			if (bits < 64 && (v >> (bits - 1)) & 1)
				v |= ~(uint64_t)0 << bits;
		}
		break;
	default:
		return -1;
	}
	if (size) {
		if ((size_t)(end - p) < size)
			return -1;
		for (i = 0; i < size; i++)
			v |= (uint64_t)p[i] << (8 * (be ? size - 1 - i : i));
		if (sign && size < 8 && (v >> (8 * size - 1)) & 1)
			v |= ~(uint64_t)0 << (8 * size);
		p += size;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += field;
		break;
	default:
		return -1;	/* textrel/datarel/funcrel: not in ELF CFI */
	}
	if (addr_size == 4)
		v &= 0xffffffffu;
	*pp = p;
	*val = v;
	return 0;
}

/* What FDEs of an .eh_frame CIE need: 'R' encoding, 'z', 'B'. */
static void cie_augmentation(const Dwarf_CIE *cie, struct cfi_cie *out)
{
	const char *a = cie->augmentation;
	const uint8_t *d = cie->augmentation_data;
	const uint8_t *end = d ? d + cie->augmentation_data_size : NULL;
	uint8_t penc;

	out->fde_enc = DW_EH_PE_absptr;
	if (!a)
		return;
	out->key_b = strchr(a, 'B') != NULL;
	if (a[0] != 'z' || !d)
		return;
	out->aug_z = true;
	for (a++; *a; a++) {
		if (d >= end)
			break;
		switch (*a) {
		case 'R':
			out->fde_enc = *d++;
			break;
		case 'L':
			d++;
			break;
		case 'P':
			penc = *d++;
			/* Skip the personality pointer: size from its encoding. */
			switch (penc & 0x0f) {
			case DW_EH_PE_udata2: case DW_EH_PE_sdata2: d += 2; break;
			case DW_EH_PE_udata4: case DW_EH_PE_sdata4: d += 4; break;
			case DW_EH_PE_udata8: case DW_EH_PE_sdata8: d += 8; break;
			case DW_EH_PE_absptr: d += 8; break;	/* not seen */
			default:
				while (d < end && (*d++ & 0x80))
					;
			}
			break;
		default:
			break;		/* 'S', 'B': no data */
		}
	}
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	q = realloc(p, *cap * size);
	if (!q)
		free(p);
	return q;
}

const struct cfi_cie *cfi_find_cie(const struct cfi_list *l, Dwarf_Off off)
{
	size_t lo = 0, hi = l->ncies, mid;

	/* CIEs are listed in section order: sorted by offset. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->cies[mid].off == off)
			return &l->cies[mid];
		if (l->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* An FDE's range and instructions, from its CIE's encodings. */
static int fde_fields(const struct cfi_sec *s, const struct cfi_cie *cie,
		      const Dwarf_FDE *e, struct cfi_fde *f)
{
	const uint8_t *q = e->start;
	uint8_t enc = cie ? cie->fde_enc : DW_EH_PE_absptr;
	uint64_t auglen;

	if (read_encoded(s, enc, &q, e->end, &f->start) ||
	    read_encoded(s, enc & 0x0f, &q, e->end, &f->len))
		return -1;
	if (cie && cie->aug_z) {
		if (read_uleb(&q, e->end, &auglen) ||
		    auglen > (uint64_t)(e->end - q))
			return -1;
		q += auglen;
	}
	f->cie_off = e->CIE_pointer;
	f->insns = q;
	f->insns_end = e->end;
	return 0;
}

int cfi_list_fdes(const struct cfi_sec *s, struct cfi_list *l)
{
	size_t capf = 0, capc = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int r;

	memset(l, 0, sizeof(*l));
	for (;;) {
		r = dwarf_next_cfi(s->eh.e_ident, s->data, s->eh_frame, off,
				   &next, &e);
		if (r > 0)
			break;
		if (r < 0) {
			l->bad++;
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		if (dwarf_cfi_cie_p(&e)) {
			struct cfi_cie *c;

			l->cies = grow(l->cies, &capc, l->ncies, sizeof(*c));
			if (!l->cies)
				goto nomem;
			c = &l->cies[l->ncies++];
			memset(c, 0, sizeof(*c));
			c->off = off;
			if (s->eh_frame)
				cie_augmentation(&e.cie, c);
			c->caf = e.cie.code_alignment_factor;
			c->insns = e.cie.initial_instructions;
			c->insns_end = e.cie.initial_instructions_end;
		} else {
			struct cfi_fde f;

			if (fde_fields(s, cfi_find_cie(l, e.fde.CIE_pointer),
				       &e.fde, &f)) {
				l->bad++;
			} else {
				l->fdes = grow(l->fdes, &capf, l->nfdes,
					       sizeof(f));
				if (!l->fdes)
					goto nomem;
				l->fdes[l->nfdes++] = f;
			}
		}
		if (next <= off)
			break;
		off = next;
	}
	return 0;
nomem:
	cfi_list_free(l);
	return -1;
}

void cfi_list_free(struct cfi_list *l)
{
	free(l->fdes);
	free(l->cies);
	memset(l, 0, sizeof(*l));
}

/* Operand shapes of the CFA instructions in the low-6-bit group. */
enum { OP_NONE, OP_U, OP_UU, OP_US, OP_S, OP_B, OP_UB, OP_1, OP_2, OP_4,
       OP_8, OP_ADDR, OP_BAD };

static int op_shape(uint8_t op)
{
	switch (op) {
	case DW_CFA_nop: case DW_CFA_remember_state: case DW_CFA_restore_state:
	case DW_CFA_AARCH64_negate_ra_state:
		return OP_NONE;
	case DW_CFA_set_loc: return OP_ADDR;
	case DW_CFA_advance_loc1: return OP_1;
	case DW_CFA_advance_loc2: return OP_2;
	case DW_CFA_advance_loc4: return OP_4;
	case DW_CFA_MIPS_advance_loc8: return OP_8;
	case DW_CFA_offset_extended: case DW_CFA_register: case DW_CFA_def_cfa:
	case DW_CFA_val_offset: case DW_CFA_GNU_negative_offset_extended:
		return OP_UU;
	case DW_CFA_restore_extended: case DW_CFA_undefined:
	case DW_CFA_same_value: case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset: case DW_CFA_GNU_args_size:
		return OP_U;
	case DW_CFA_offset_extended_sf: case DW_CFA_def_cfa_sf:
	case DW_CFA_val_offset_sf:
		return OP_US;
	case DW_CFA_def_cfa_offset_sf: return OP_S;
	case DW_CFA_def_cfa_expression: return OP_B;
	case DW_CFA_expression: case DW_CFA_val_expression: return OP_UB;
	default: return OP_BAD;
	}
}

/* Read n bytes as an unsigned value in the file's byte order. */
static int read_fixed(const struct cfi_sec *s, const uint8_t **pp,
		      const uint8_t *end, unsigned int n, uint64_t *v)
{
	bool be = s->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	unsigned int i;

	if ((size_t)(end - *pp) < n)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)(*pp)[i] << (8 * (be ? n - 1 - i : i));
	*pp += n;
	return 0;
}

/*
 * Skip one instruction's operands; *adv gets a location advance in
 * code-alignment units (or, for set_loc, *set the new address).
 */
static int skip_operands(const struct cfi_sec *s, const struct cfi_cie *cie,
			 uint8_t op, const uint8_t **pp, const uint8_t *end,
			 uint64_t *adv, bool *set)
{
	uint64_t v;

	*adv = 0;
	*set = false;
	switch (op_shape(op)) {
	case OP_NONE:
		return 0;
	case OP_ADDR:
		*set = true;
		return read_encoded(s, cie->fde_enc, pp, end, adv);
	case OP_1: return read_fixed(s, pp, end, 1, adv);
	case OP_2: return read_fixed(s, pp, end, 2, adv);
	case OP_4: return read_fixed(s, pp, end, 4, adv);
	case OP_8: return read_fixed(s, pp, end, 8, adv);
	case OP_U: case OP_S:
		return read_uleb(pp, end, &v);
	case OP_UU: case OP_US:
		return read_uleb(pp, end, &v) || read_uleb(pp, end, &v) ?
		       -1 : 0;
	case OP_UB:
		if (read_uleb(pp, end, &v))
			return -1;
		/* fall through */
	case OP_B:
		if (read_uleb(pp, end, &v) || v > (uint64_t)(end - *pp))
			return -1;
		*pp += v;
		return 0;
	default:
		return -1;
	}
}

#define RA_STACK	64	/* remember_state depth this reader follows */

struct ra_scan {
	uint64_t loc;
	bool state;
	uint64_t stack;		/* bit i: state saved at depth i */
	unsigned int depth;
	uint64_t *out;
	size_t n, cap;
};

static int ra_note(struct ra_scan *r, bool state)
{
	if (state == r->state)
		return 0;
	r->state = state;
	r->out = grow(r->out, &r->cap, r->n, sizeof(*r->out));
	if (!r->out)
		return -1;
	r->out[r->n++] = r->loc;
	return 0;
}

static int ra_run(const struct cfi_sec *s, const struct cfi_cie *cie,
		  const uint8_t *p, const uint8_t *end, struct ra_scan *r)
{
	uint64_t adv;
	bool set;

	while (p < end) {
		uint8_t op = *p++;

		switch (op >> 6) {
		case 1:		/* advance_loc */
			r->loc += (uint64_t)(op & 0x3f) * cie->caf;
			continue;
		case 2:		/* offset: one uleb */
			if (read_uleb(&p, end, &adv))
				return -1;
			continue;
		case 3:		/* restore */
			continue;
		}
		if (skip_operands(s, cie, op, &p, end, &adv, &set))
			return -1;
		if (set)
			r->loc = adv;
		else
			r->loc += adv * cie->caf;
		if (op == DW_CFA_AARCH64_negate_ra_state &&
		    ra_note(r, !r->state))
			return -1;
		if (op == DW_CFA_remember_state) {
			if (r->depth >= RA_STACK)
				return -1;
			r->stack &= ~((uint64_t)1 << r->depth);
			r->stack |= (uint64_t)r->state << r->depth;
			r->depth++;
		} else if (op == DW_CFA_restore_state) {
			if (!r->depth)
				return -1;
			r->depth--;
			if (ra_note(r, (r->stack >> r->depth) & 1))
				return -1;
		}
	}
	return 0;
}

long cfi_ra_toggles(const struct cfi_sec *s, const struct cfi_cie *cie,
		    const struct cfi_fde *fde, uint64_t **out)
{
	struct ra_scan r;

	memset(&r, 0, sizeof(r));
	*out = NULL;
	if (!cie)
		return -1;
	/* The CIE's initial instructions hold no advances: all at start. */
	r.loc = fde->start;
	if (ra_run(s, cie, cie->insns, cie->insns_end, &r))
		goto bad;
	r.depth = 0;
	if (ra_run(s, cie, fde->insns, fde->insns_end, &r))
		goto bad;
	*out = r.out;
	return (long)r.n;
bad:
	free(r.out);
	return -1;
}

void elf_func_syms(Elf *elf, Elf64_Word type,
		   void (*fn)(void *ctx, const GElf_Sym *sym, const char *name),
		   void *ctx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			int st;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			st = GELF_ST_TYPE(sym.st_info);
			if ((st != STT_FUNC && st != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			fn(ctx, &sym, elf_strptr(elf, sh.sh_link, sym.st_name));
		}
	}
}

/* The GNU build-id note in d, if any: its length, bytes into id. */
static size_t note_build_id(Elf_Data *d, uint8_t *id, size_t max)
{
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + noff, "GNU", 4) &&
		    nh.n_descsz && nh.n_descsz <= max) {
			memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

size_t cfi_build_id(Elf *elf, uint8_t *id, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t i, n, len;

	/* Sections first; a file without them still has its PT_NOTEs. */
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		len = note_build_id(elf_getdata(scn, NULL), id, max);
		if (len)
			return len;
	}
	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		len = note_build_id(elf_getdata_rawchunk(elf,
				(int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR),
				id, max);
		if (len)
			return len;
	}
	return 0;
}
