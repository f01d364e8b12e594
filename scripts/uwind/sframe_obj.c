// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SFrame tables of relocatable objects (gcc -c -Wa,--gsframe).
 *
 * In an object file every FDE start field is left for the linker: its
 * bytes hold zero (or, with REL, the addend) and .rela.sframe names the
 * function, and the FDE_SORTED flag is clear, since only the linker sees
 * every function.  The core refuses unsorted tables (its lookup is a
 * binary search), so the tool
 *  - resolves the relocations into its own copy of the section, in the
 *    table's own convention (tool_elf_relocate);
 *  - decodes an unsorted table for `dump` in table order
 *    (tool_sframe_open);
 *  - answers `lookup` from a copy whose FDE index it sorted, with the
 *    core's own search (tool_sframe_sort).
 */
#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "uwind.h"

#define SF_FLAGS_OFF	3	/* the header's flags byte */

/* Width of the field a PC-relative relocation writes, or 0 if unknown. */
static unsigned int pcrel_width(unsigned int machine, unsigned int type)
{
	switch (machine) {
	case EM_X86_64:
		return type == R_X86_64_PC32 ? 4 : type == R_X86_64_PC64 ? 8 : 0;
	case EM_AARCH64:
		return type == R_AARCH64_PREL32 ? 4 :
		       type == R_AARCH64_PREL64 ? 8 : 0;
	case EM_S390:
		return type == R_390_PC32 ? 4 : type == R_390_PC64 ? 8 : 0;
	default:
		return 0;
	}
}

static uint64_t load_field(const uint8_t *p, unsigned int w, bool be)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < w; i++)
		v |= (uint64_t)p[be ? w - 1 - i : i] << (8 * i);
	return w == 4 ? (uint64_t)(int64_t)(int32_t)v : v;
}

static void store_field(uint8_t *p, unsigned int w, bool be, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < w; i++)
		p[be ? w - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* The address a symbol stands for (S): its section's address + value. */
static int sym_addr(Elf *elf, Elf_Data *symtab, size_t ndx, uint64_t *s)
{
	GElf_Shdr sh;
	GElf_Sym sym;

	if (!gelf_getsym(symtab, (int)ndx, &sym))
		return -1;
	if (sym.st_shndx == SHN_ABS) {
		*s = sym.st_value;
		return 0;
	}
	if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
	    !gelf_getshdr(elf_getscn(elf, sym.st_shndx), &sh))
		return -1;
	*s = sh.sh_addr + sym.st_value;
	return 0;
}

struct reloc_ctx {
	Elf *elf;
	Elf_Data *symtab;
	unsigned int machine;
	bool be;
	bool pcrel;		/* the table's FDE_FUNC_START_PCREL flag */
	uint64_t sec_addr;
};

/*
 * One relocation of the FDE start field at r_offset.  Every relocation
 * gas emits against .sframe is PC-relative and names the function's
 * start, T = S + A; the field gets T in the table's convention, relative
 * to the field itself (PCREL) or to the section: what ld writes when it
 * links the table.
 */
static int apply_one(const struct reloc_ctx *c, struct tool_table *t,
		     uint64_t r_offset, unsigned int type, size_t symndx,
		     bool has_addend, int64_t addend)
{
	unsigned int w = pcrel_width(c->machine, type);
	uint8_t *p = (uint8_t *)t->owned + r_offset;
	uint64_t s, target, v;

	if (!w) {
		fprintf(stderr, "uwind: .sframe: unsupported relocation type %u at 0x%llx\n",
			type, (unsigned long long)r_offset);
		return -1;
	}
	if (r_offset > t->span.size || w > t->span.size - r_offset ||
	    sym_addr(c->elf, c->symtab, symndx, &s)) {
		fprintf(stderr, "uwind: .sframe: bad relocation at 0x%llx\n",
			(unsigned long long)r_offset);
		return -1;
	}
	if (!has_addend)
		addend = (int64_t)load_field(p, w, c->be);
	target = s + (uint64_t)addend;
	v = target - (c->pcrel ? c->sec_addr + r_offset : c->sec_addr);
	if (w == 4 && (int64_t)v != (int64_t)(int32_t)v) {
		fprintf(stderr, "uwind: .sframe: relocation at 0x%llx out of range\n",
			(unsigned long long)r_offset);
		return -1;
	}
	store_field(p, w, c->be, v);
	return 0;
}

static int apply_section(struct reloc_ctx *c, Elf_Scn *rscn,
			 const GElf_Shdr *rsh, struct tool_table *t)
{
	Elf_Data *data = elf_getdata(rscn, NULL);
	Elf_Scn *symscn = elf_getscn(c->elf, rsh->sh_link);
	size_t i, n;

	c->symtab = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!data || !c->symtab || !rsh->sh_entsize)
		return -1;
	n = rsh->sh_size / rsh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		int err;

		if (rsh->sh_type == SHT_RELA) {
			if (!gelf_getrela(data, (int)i, &ra))
				return -1;
			err = apply_one(c, t, ra.r_offset,
					GELF_R_TYPE(ra.r_info),
					GELF_R_SYM(ra.r_info), true, ra.r_addend);
		} else {
			if (!gelf_getrel(data, (int)i, &r))
				return -1;
			err = apply_one(c, t, r.r_offset, GELF_R_TYPE(r.r_info),
					GELF_R_SYM(r.r_info), false, 0);
		}
		if (err)
			return err;
	}
	return 0;
}

/*
 * Resolve the relocations of section secndx (the SFrame table loaded
 * into t, at sec_addr) in a relocatable object.  Any other kind of file
 * is left alone: a linked file's table is final.
 */
int tool_elf_relocate(struct Elf *elf, size_t secndx, uint64_t sec_addr,
		      struct tool_table *t)
{
	struct reloc_ctx c = { .elf = elf, .sec_addr = sec_addr };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_REL)
		return 0;
	if (t->span.size <= SF_FLAGS_OFF)
		return 0;	/* too short for a header: init says why */
	c.machine = eh.e_machine;
	c.be = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	c.pcrel = ((const uint8_t *)t->owned)[SF_FLAGS_OFF] &
		  UW_SFRAME_F_FDE_FUNC_START_PCREL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_info != secndx ||
		    (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		if (apply_section(&c, scn, &sh, t))
			return -1;
	}
	return 0;
}

/*
 * uw_sframe_init, also for a table whose FDEs are not sorted (*unsorted
 * then says so): the core refuses those, so it reads them with the flag
 * set in the tool's own copy, and sf keeps the real flags.  Such a table
 * serves uw_sframe_fde and uw_sframe_fre, never uw_sframe_find.
 */
int tool_sframe_open(struct tool_table *t, struct uw_sframe *sf,
		     bool *unsorted)
{
	/* The tool's own bytes: a heap copy, or a private mapping. */
	uint8_t *own = t->owned ? t->owned : t->file.data;
	uint8_t *flags = own + SF_FLAGS_OFF;
	int err = uw_sframe_init(sf, &t->span);

	*unsorted = false;
	if (err != UW_EUNSORTED || own != t->span.data)
		return err;
	*flags |= UW_SFRAME_F_FDE_SORTED;
	err = uw_sframe_init(sf, &t->span);
	*flags &= (uint8_t)~UW_SFRAME_F_FDE_SORTED;
	sf->flags &= (uint8_t)~UW_SFRAME_F_FDE_SORTED;
	*unsorted = !err;
	return err;
}

struct fde_key {
	uint64_t start;
	uint32_t i;
};

static int key_cmp(const void *a, const void *b)
{
	const struct fde_key *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * A sorted copy of the unsorted table sf (read from t) in out: the FDE
 * index entries in start order, each start field rewritten for its new
 * place (PCREL fields count from themselves), the flag set, and sf2 the
 * core's decode of it, for uw_sframe_find.
 */
int tool_sframe_sort(const struct tool_table *t, const struct uw_sframe *sf,
		     struct tool_table *out, struct uw_sframe *sf2)
{
	unsigned int w = sf->version == 3 ? 8 : 4;
	struct uw_sframe_fde fde;
	struct fde_key *keys;
	uint8_t *copy;
	uint32_t i;
	int err = 0;

	keys = calloc(sf->num_fdes + 1, sizeof(*keys));
	copy = malloc(t->span.size);
	if (!keys || !copy) {
		fprintf(stderr, "uwind: out of memory\n");
		free(keys);
		free(copy);
		return UW_EINVAL;
	}
	memcpy(copy, t->span.data, t->span.size);
	for (i = 0; i < sf->num_fdes && !err; i++) {
		err = uw_sframe_fde(sf, i, &fde);
		keys[i].start = fde.func_start;
		keys[i].i = i;
	}
	qsort(keys, sf->num_fdes, sizeof(*keys), key_cmp);
	for (i = 0; i < sf->num_fdes && !err; i++) {
		uint64_t to = sf->fde_start + (uint64_t)i * sf->fde_size;
		uint64_t from = sf->fde_start + (uint64_t)keys[i].i * sf->fde_size;
		uint64_t origin = sf->sec.addr;

		memcpy(copy + to, sf->sec.data + from, sf->fde_size);
		if (sf->flags & UW_SFRAME_F_FDE_FUNC_START_PCREL)
			origin += to;
		store_field(copy + to, w, sf->big_endian,
			    keys[i].start - origin);
	}
	free(keys);
	memset(out, 0, sizeof(*out));
	out->owned = copy;
	out->span = t->span;
	out->span.data = copy;
	out->name = t->name;
	copy[SF_FLAGS_OFF] |= UW_SFRAME_F_FDE_SORTED;
	err = err ? err : uw_sframe_init(sf2, &out->span);
	if (err)
		tool_table_free(out);
	return err;
}
