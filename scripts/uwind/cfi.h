/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * DWARF CFI sections (.eh_frame, .debug_frame) of an ELF file, read with
 * elfutils' libdw: the list of FDEs (libdw finds rows by address but has
 * no call that lists its FDEs with their ranges) and, for AArch64, where
 * the return address is signed (DW_CFA_AARCH64_negate_ra_state, which
 * libdw 0.188 executes as a no-op); and what the tool reads of an ELF
 * file around them: sections, function symbols, the build-id.
 */
#ifndef UWIND_TOOL_CFI_H
#define UWIND_TOOL_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <gelf.h>

/* One CFI section of an ELF file. */
struct cfi_sec {
	Elf *elf;
	GElf_Ehdr eh;
	Dwarf *dw;		/* .debug_frame only: the Dwarf it came from */
	Dwarf_CFI *cfi;
	bool eh_frame;		/* .eh_frame, else .debug_frame */
	Elf_Data *data;		/* the section's bytes */
	uint64_t sec_addr;
};

/* One FDE: the pcs [start, start + len) and where its parts are. */
struct cfi_fde {
	uint64_t start, len;
	Dwarf_Off cie_off;	/* section offset of its CIE */
	const uint8_t *insns, *insns_end;	/* its CFA instructions */
};

/* A CIE the FDEs refer to, with what reading their instructions needs. */
struct cfi_cie {
	Dwarf_Off off;
	uint8_t fde_enc;	/* DW_EH_PE_* of FDE addresses */
	bool aug_z;		/* 'z': FDEs carry an augmentation length */
	bool key_b;		/* AArch64 'B': return addresses signed with key B */
	uint64_t caf;		/* code alignment factor */
	const uint8_t *insns, *insns_end;
};

struct cfi_list {
	struct cfi_fde *fdes;
	size_t nfdes;
	struct cfi_cie *cies;
	size_t ncies;
	unsigned long bad;	/* entries that could not be read */
};

/* The section called want (not SHT_NOBITS), its header in *shp; or NULL. */
Elf_Scn *cfi_find_scn(Elf *elf, const char *want, GElf_Shdr *shp);

/*
 * Open the named CFI section (".eh_frame" or ".debug_frame") of elf.
 * Returns 0, 1 when the file has no such section (or libdw finds no CFI
 * in it), -1 on an error.  cfi_sec_close() releases what it holds.
 */
int cfi_sec_open(struct cfi_sec *s, Elf *elf, const char *name);
void cfi_sec_close(struct cfi_sec *s);

/* Every FDE and CIE of the section, in section order.  -1: no memory. */
int cfi_list_fdes(const struct cfi_sec *s, struct cfi_list *l);
void cfi_list_free(struct cfi_list *l);
const struct cfi_cie *cfi_find_cie(const struct cfi_list *l, Dwarf_Off off);

/*
 * AArch64: the addresses inside fde where the return address's signing
 * state changes (DW_CFA_AARCH64_negate_ra_state, with remember_state and
 * restore_state saving and restoring it as GCC's unwinder does), in
 * order, into a malloc'ed array.  Returns the count, or -1 when the
 * instructions cannot be read (an opcode this reader does not know, or
 * a truncated operand).
 */
long cfi_ra_toggles(const struct cfi_sec *s, const struct cfi_cie *cie,
		    const struct cfi_fde *fde, uint64_t **out);

/*
 * Call fn for every defined function symbol (STT_FUNC, STT_GNU_IFUNC,
 * value not 0) of the symbol tables of type (SHT_SYMTAB, SHT_DYNSYM),
 * with its name (NULL or "" when it has none).
 */
void elf_func_syms(Elf *elf, Elf64_Word type,
		   void (*fn)(void *ctx, const GElf_Sym *sym, const char *name),
		   void *ctx);

/*
 * A relocatable object (ET_REL): its CFI's addresses are left to the
 * linker (.rela.eh_frame), and its functions in several sections all
 * start at 0, so no table made from it can say which pc is whose.  The
 * tool refuses to convert one, with this message.
 */
bool cfi_is_object(Elf *elf);
#define CFI_OBJECT_REFUSED \
	"a relocatable object: its CFI gets its addresses from relocations" \
	" when it is linked; give the linked program or library"

/* The ELF file's GNU build-id: length (0: none), bytes into id (<= max). */
size_t cfi_build_id(Elf *elf, uint8_t *id, size_t max);

#endif
