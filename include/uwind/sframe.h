/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * SFrame (.sframe, PT_GNU_SFRAME) versions 1, 2 and 3, read in place.
 *
 * uw_sframe_init() checks the header once; the rest reads FDEs and FREs
 * straight from the section on demand.  uw_sframe_find() searches the
 * FDE index without data-dependent branches (four keys a round), scans
 * that function's FREs and decodes the match straight into the row.
 */
/* Outside the guard: uwind.h includes this header in its middle. */
#include "uwind.h"

#ifndef UWIND_SFRAME_H
#define UWIND_SFRAME_H

#define UW_SFRAME_MAGIC		0xdee2
#define UW_SFRAME_HDR_SIZE	28

#define UW_SFRAME_F_FDE_SORTED		0x1
#define UW_SFRAME_F_FRAME_POINTER	0x2	/* V1/V2 only */
#define UW_SFRAME_F_FDE_FUNC_START_PCREL 0x4

enum uw_sframe_abi {
	UW_SFRAME_ABI_AARCH64_BE = 1,
	UW_SFRAME_ABI_AARCH64_LE = 2,
	UW_SFRAME_ABI_AMD64_LE = 3,
	UW_SFRAME_ABI_S390X_BE = 4,
};

enum uw_sframe_fre_type { UW_SFRAME_FRE_ADDR1, UW_SFRAME_FRE_ADDR2,
			  UW_SFRAME_FRE_ADDR4 };
enum uw_sframe_pc_type { UW_SFRAME_PC_INC, UW_SFRAME_PC_MASK };
enum uw_sframe_fde_type { UW_SFRAME_FDE_DEFAULT, UW_SFRAME_FDE_FLEX };

/* The decoded header of one section; the section itself stays in place. */
struct uw_sframe {
	struct uw_span sec;
	uint8_t version;
	uint8_t flags;
	uint8_t abi;		/* enum uw_sframe_abi */
	uint8_t big_endian;	/* section byte order */
	uint8_t arch;		/* enum uw_arch */
	int8_t fixed_fp;	/* cfa_fixed_fp_offset, 0: tracked per FRE */
	int8_t fixed_ra;	/* cfa_fixed_ra_offset, 0: tracked per FRE */
	uint8_t auxhdr_len;
	uint8_t fde_size;	/* bytes per FDE (index) entry */
	uint32_t num_fdes;
	uint32_t num_fres;
	uint32_t fre_len;
	uint32_t fde_start;	/* section offset of the FDE subsection */
	uint32_t fre_start;	/* section offset of the FRE subsection */
	/*
	 * The FDE search's fixed steps, in bytes of the FDE index (set by
	 * uw_sframe_init from num_fdes alone, nothing is read ahead): k is
	 * the largest power of two <= num_fdes.  The first probe is entry
	 * num_fdes - k; if k is an odd power of two, one binary step of
	 * k/2 entries follows; then four-way steps of w/4, w/16, ... 1
	 * entries for the remaining power-of-four window w.
	 */
	uint32_t search_first;	/* (num_fdes - k) * fde_size */
	uint32_t search_half;	/* k / 2 * fde_size, or 0: no binary step */
	uint32_t search_quarter; /* w / 4 * fde_size, 0 if w = 1 */
	uint8_t key_shape;	/* which search loop: key width, PCREL, order */
	struct uw_arch_info ai;	/* the ABI's registers, looked up once */
};

/* One function descriptor, decoded. */
struct uw_sframe_fde {
	uint64_t func_start;	/* address in the program */
	uint32_t func_size;
	uint32_t fre_off;	/* offset of its first FRE in the FRE subsection */
	uint32_t num_fres;
	uint8_t info;		/* raw info byte */
	uint8_t info2;		/* raw V3 info2 byte, 0 before V3 */
	uint8_t rep_size;	/* PCMASK repetition size (V1: 16, implied) */
	uint8_t fre_type;	/* enum uw_sframe_fre_type */
	uint8_t pc_type;	/* enum uw_sframe_pc_type */
	uint8_t fde_type;	/* enum uw_sframe_fde_type */
	uint8_t pauth_key_b;	/* AArch64: signed with key B */
	uint8_t signal;		/* V3: signal trampoline */
};

/*
 * Data words an FRE may carry: the format allows 15, but no ABI gives
 * more than three rules, and a FLEX FDE spends two words a rule.  An FRE
 * with more is malformed, and this keeps struct uw_sframe_fre small.
 */
#define UW_SFRAME_MAX_WORDS	6

/* One frame row entry, decoded. */
struct uw_sframe_fre {
	uint32_t start;		/* offset from the function start */
	uint8_t info;		/* raw info byte */
	uint8_t base_sp;	/* CFA base: 1 SP, 0 FP (DEFAULT FDEs) */
	uint8_t nwords;		/* data words that follow */
	uint8_t word_size;	/* 1, 2 or 4 */
	uint8_t ra_mangled;	/* AArch64: RA signed */
	int32_t w[UW_SFRAME_MAX_WORDS];
	uint32_t next;		/* offset of the next FRE (FRE subsection) */
};

int uw_sframe_init(struct uw_sframe *sf, const struct uw_span *sec);

/* FDE number i (0 <= i < num_fdes), in table order. */
int uw_sframe_fde(const struct uw_sframe *sf, uint32_t i,
		  struct uw_sframe_fde *fde);

/*
 * Read the FRE at *off (FRE subsection offset; start with fde->fre_off)
 * and advance *off past it.
 */
int uw_sframe_fre(const struct uw_sframe *sf, const struct uw_sframe_fde *fde,
		  uint32_t *off, struct uw_sframe_fre *fre);

/* Translate an FRE of fde into the generic unwind row. */
int uw_sframe_row(const struct uw_sframe *sf, const struct uw_sframe_fde *fde,
		  const struct uw_sframe_fre *fre, struct uw_row *row);

/* The row for pc: find_fde + find_fre + row. */
int uw_sframe_find(const struct uw_sframe *sf, uint64_t pc,
		   struct uw_row *row);

#endif /* UWIND_SFRAME_H */
