/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * SFrame (.sframe, PT_GNU_SFRAME) versions 1, 2 and 3, read in place.
 *
 * uw_sframe_init() checks the header once; the rest reads FDEs and FREs
 * straight from the section on demand.  uw_sframe_find() searches the
 * FDE index without data-dependent branches (four keys a round), scans
 * that function's FREs and decodes the match straight into the row.
 * uw_sframe_check() checks the whole table once, so that lookups can
 * trust it afterwards.
 */
#ifndef UWIND_SFRAME_H
#define UWIND_SFRAME_H

#include "types.h"

/**
 * enum uw_sframe_const - SFrame format constants
 * @UW_SFRAME_MAGIC: the magic number, in the table's byte order
 * @UW_SFRAME_HDR_SIZE: bytes in the fixed header
 * @UW_SFRAME_F_FDE_SORTED: header flag: FDEs sorted by start address
 * @UW_SFRAME_F_FRAME_POINTER: header flag: built with frame pointers
 *	(V1 and V2 only)
 * @UW_SFRAME_F_FDE_FUNC_START_PCREL: header flag: FDE start fields are
 *	relative to the field itself, not to the section
 * @UW_SFRAME_MAX_WORDS: data words an FRE may carry here.  The format
 *	allows 15, but no ABI gives more than three rules, and a FLEX FDE
 *	spends two words a rule: an FRE with more is malformed
 */
enum uw_sframe_const {
	UW_SFRAME_MAGIC = 0xdee2,
	UW_SFRAME_HDR_SIZE = 28,
	UW_SFRAME_F_FDE_SORTED = 0x1,
	UW_SFRAME_F_FRAME_POINTER = 0x2,
	UW_SFRAME_F_FDE_FUNC_START_PCREL = 0x4,
	UW_SFRAME_MAX_WORDS = 6,
};

/**
 * enum uw_sframe_abi - SFrame ABI/arch identifiers
 * @UW_SFRAME_ABI_AARCH64_BE: AArch64, big-endian
 * @UW_SFRAME_ABI_AARCH64_LE: AArch64, little-endian
 * @UW_SFRAME_ABI_AMD64_LE: x86-64
 * @UW_SFRAME_ABI_S390X_BE: s390x (V2 and later)
 */
enum uw_sframe_abi {
	UW_SFRAME_ABI_AARCH64_BE = 1,
	UW_SFRAME_ABI_AARCH64_LE = 2,
	UW_SFRAME_ABI_AMD64_LE = 3,
	UW_SFRAME_ABI_S390X_BE = 4,
};

/**
 * enum uw_sframe_fre_type - width of an FRE's start offset
 * @UW_SFRAME_FRE_ADDR1: one byte
 * @UW_SFRAME_FRE_ADDR2: two bytes
 * @UW_SFRAME_FRE_ADDR4: four bytes
 */
enum uw_sframe_fre_type { UW_SFRAME_FRE_ADDR1, UW_SFRAME_FRE_ADDR2,
			  UW_SFRAME_FRE_ADDR4 };

/**
 * enum uw_sframe_pc_type - how an FDE's FREs match a pc
 * @UW_SFRAME_PC_INC: pc offset >= FRE start
 * @UW_SFRAME_PC_MASK: pc offset modulo the repetition size >= FRE start
 */
enum uw_sframe_pc_type { UW_SFRAME_PC_INC, UW_SFRAME_PC_MASK };

/**
 * enum uw_sframe_fde_type - how an FDE's FREs encode their rules (V3)
 * @UW_SFRAME_FDE_DEFAULT: fixed CFA, RA, FP offsets
 * @UW_SFRAME_FDE_FLEX: (control, offset) pairs
 */
enum uw_sframe_fde_type { UW_SFRAME_FDE_DEFAULT, UW_SFRAME_FDE_FLEX };

/**
 * struct uw_sframe - the decoded header of one section; the section
 * itself stays in place
 * @sec: the section
 * @version: format version, 1 to 3
 * @flags: header flags (&enum uw_sframe_const UW_SFRAME_F_*)
 * @abi: &enum uw_sframe_abi
 * @big_endian: the section's byte order
 * @arch: &enum uw_arch the ABI names
 * @fixed_fp: cfa_fixed_fp_offset; 0: tracked per FRE
 * @fixed_ra: cfa_fixed_ra_offset; 0: tracked per FRE
 * @auxhdr_len: bytes of auxiliary header
 * @num_fdes: FDEs in the index
 * @num_fres: FREs in the FRE subsection
 * @fre_len: bytes in the FRE subsection
 *
 * Filled by uw_sframe_init(); callers only read it.
 */
struct uw_sframe {
	struct uw_span sec;
	uint8_t version;
	uint8_t flags;
	uint8_t abi;
	uint8_t big_endian;
	uint8_t arch;
	int8_t fixed_fp;
	int8_t fixed_ra;
	uint8_t auxhdr_len;
	uint32_t num_fdes;
	uint32_t num_fres;
	uint32_t fre_len;
	/* private: the lookup's plan, set by uw_sframe_init() */
	/*
	 * Section offsets of the two subsections (the header's fdeoff and
	 * freoff count from its end), bytes per FDE (index) entry, and the
	 * FDE search's fixed steps in bytes of the index, from num_fdes
	 * alone: k is the largest power of two <= num_fdes.  The first
	 * probe is entry num_fdes - k; if k is an odd power of two, one
	 * binary step of k/2 entries follows; then four-way steps of w/4,
	 * w/16, ... 1 entries for the remaining power-of-four window w.
	 */
	uint32_t fde_start;
	uint32_t fre_start;
	uint32_t search_first;
	uint32_t search_half;
	uint32_t search_quarter;
	uint8_t fde_size;
	uint8_t key_shape;
	struct uw_arch_info ai;
};

/**
 * struct uw_sframe_fde - one function descriptor, decoded
 * @func_start: the function's address, in the table's address space
 * @func_size: its size in bytes
 * @fre_off: offset of its first FRE in the FRE subsection
 * @num_fres: its FREs
 * @info: the raw info byte
 * @info2: the raw V3 info2 byte, 0 before V3
 * @rep_size: PCMASK repetition size (V1: 16, implied)
 * @fre_type: &enum uw_sframe_fre_type
 * @pc_type: &enum uw_sframe_pc_type
 * @fde_type: &enum uw_sframe_fde_type
 * @pauth_key_b: AArch64: signed with key B
 * @signal: V3: a signal trampoline
 */
struct uw_sframe_fde {
	uint64_t func_start;
	uint32_t func_size;
	uint32_t fre_off;
	uint32_t num_fres;
	uint8_t info;
	uint8_t info2;
	uint8_t rep_size;
	uint8_t fre_type;
	uint8_t pc_type;
	uint8_t fde_type;
	uint8_t pauth_key_b;
	uint8_t signal;
};

/**
 * struct uw_sframe_fre - one frame row entry, decoded
 * @start: offset from the function start
 * @info: the raw info byte
 * @base_sp: CFA base: 1 SP, 0 FP (DEFAULT FDEs)
 * @nwords: data words that follow
 * @word_size: 1, 2 or 4
 * @ra_mangled: AArch64: the return address is signed
 * @w: the data words, sign-extended
 * @next: offset of the next FRE in the FRE subsection
 */
struct uw_sframe_fre {
	uint32_t start;
	uint8_t info;
	uint8_t base_sp;
	uint8_t nwords;
	uint8_t word_size;
	uint8_t ra_mangled;
	int32_t w[UW_SFRAME_MAX_WORDS];
	uint32_t next;
};

/**
 * uw_sframe_init() - check an SFrame section's header and set up lookups
 * @sf: the decoder state to fill
 * @sec: the section; it must stay mapped and unchanged while sf is used
 *
 * Checks the header only (cheap, no entry is read): magic and byte
 * order, version, flags, ABI, and that both subsections lie inside the
 * section.
 *
 * Return: 0, or UW_EINVAL (a NULL argument), UW_EBOUNDS (shorter than a
 * header), UW_EMAGIC, UW_EVERSION, UW_EHEADER (flags, ABI and byte
 * order, or subsections outside the section), UW_EARCH (an unknown ABI),
 * UW_EUNSORTED (FDE_SORTED clear: the lookup needs sorted FDEs).
 */
int uw_sframe_init(struct uw_sframe *sf, const struct uw_span *sec);

/**
 * uw_sframe_fde() - decode FDE number i, in table order
 * @sf: an initialised decoder
 * @i: 0 <= i < num_fdes
 * @fde: where the FDE goes
 *
 * Return: 0, or UW_EINVAL (i out of range), UW_EBOUNDS (a V3 attribute
 * record outside the FRE subsection), UW_EBADDATA (reserved types, a
 * PCMASK repetition size of 0, more FREs than the table has, FREs
 * outside their subsection), UW_EOVERFLOW (the function's address range
 * wraps).
 */
int uw_sframe_fde(const struct uw_sframe *sf, uint32_t i,
		  struct uw_sframe_fde *fde);

/**
 * uw_sframe_fre() - decode the FRE at an offset and step past it
 * @sf: an initialised decoder
 * @fde: the FRE's function
 * @off: FRE subsection offset of the FRE (start with fde->fre_off);
 *	advanced past it
 * @fre: where the FRE goes
 *
 * Return: 0, or UW_EBOUNDS (the FRE leaves the subsection), UW_EBADDATA
 * (a reserved word size, more than UW_SFRAME_MAX_WORDS data words).
 */
int uw_sframe_fre(const struct uw_sframe *sf, const struct uw_sframe_fde *fde,
		  uint32_t *off, struct uw_sframe_fre *fre);

/**
 * uw_sframe_row() - translate an FRE into the generic unwind row
 * @sf: an initialised decoder
 * @fde: the FRE's function
 * @fre: the FRE
 * @row: where the row goes
 *
 * Return: 0, or UW_EBADDATA (data words that mean nothing for the ABI,
 * a V1 FRE without data words, a FLEX rule that cannot be, a scaled
 * s390x CFA offset out of range).
 */
int uw_sframe_row(const struct uw_sframe *sf, const struct uw_sframe_fde *fde,
		  const struct uw_sframe_fre *fre, struct uw_row *row);

/**
 * uw_sframe_find() - the unwind row for a pc
 * @sf: an initialised decoder
 * @pc: the address to look up, in the table's address space
 * @row: where the row goes
 *
 * A lying FDE_SORTED flag can only make a lookup miss, never attribute
 * the pc to the wrong function.
 *
 * Return: 0, or UW_ENOENT (no function covers pc, or its first FRE
 * starts after pc), or a format error (UW_EBOUNDS, UW_EBADDATA,
 * UW_EOVERFLOW) from the entries the lookup read.  After
 * uw_sframe_check() accepted the table, only 0 and UW_ENOENT.
 */
int uw_sframe_find(const struct uw_sframe *sf, uint64_t pc,
		   struct uw_row *row);

/**
 * uw_sframe_check() - check a whole SFrame table, in chunks
 * @sf: an initialised decoder
 * @c: the check's state, from uw_check_start()
 *
 * Checks every FDE (it decodes; start addresses never decrease; all
 * FDEs together claim no more FREs than the header counts, so the check
 * costs O(num_fdes + num_fres)) and every FRE (it decodes, starts rise
 * strictly and stay within the function, its row is valid).  A table
 * that passes never makes uw_sframe_find() fail with a format error.
 *
 * Return: UW_CHECK_DONE (0) when the whole table is valid, UW_CHECK_MORE
 * when c->limit entries were checked and more remain, or the error of
 * FDE c->item: UW_EUNSORTED, UW_EBADDATA (an FDE claiming FREs beyond
 * the header's count, FRE starts not rising or past the function, or an
 * error of uw_sframe_fde(), uw_sframe_fre() or uw_sframe_row()),
 * UW_EBOUNDS, UW_EOVERFLOW.
 */
int uw_sframe_check(const struct uw_sframe *sf, struct uw_check *c);

#endif /* UWIND_SFRAME_H */
