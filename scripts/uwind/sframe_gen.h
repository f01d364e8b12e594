/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * SFrame made from DWARF CFI: `uwind sframe`, and `uwind stack` for
 * mapped files without .sframe (sframe_gen.c).
 */
#ifndef UWIND_TOOL_SFRAME_GEN_H
#define UWIND_TOOL_SFRAME_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* Why pcs inside an FDE got no SFrame row. */
enum sg_reason {
	SG_CFA_EXPR,	/* CFA rule SFrame cannot say (e.g. load, then add) */
	SG_RA_RULE,	/* return-address rule SFrame cannot say */
	SG_FP_RULE,	/* frame-pointer rule SFrame cannot say */
	SG_RA_STATE,	/* AArch64: RA signing state unreadable */
	SG_CFI_ERROR,	/* libdw gives no row for pcs inside the FDE */
	SG_SIGNAL,	/* a signal frame: left to the walker's own reader */
	SG_NREASONS,
};

const char *sg_reason_name(enum sg_reason r);

/* A range of pcs left out, and why. */
struct sg_gap {
	uint64_t start, end;
	uint8_t reason;		/* enum sg_reason */
};

struct sg_stats {
	uint64_t cfi_size;	/* bytes of .eh_frame + .debug_frame */
	uint64_t text_bytes;	/* bytes of executable sections */
	uint64_t desc_bytes;	/* text bytes the table describes, of which: */
	uint64_t desc_flex;	/*   in FLEX FDEs (V3) */
	uint64_t desc_mask;	/*   in repetitive-block (PCMASK) FDEs */
	uint64_t desc_synth;	/*   PLT stubs without CFI (AArch64) */
	uint64_t left[SG_NREASONS];	/* text bytes left out, by reason */
	uint64_t nocfi;		/* text bytes no FDE covers, of which: */
	uint64_t nocfi_pad;	/*   alignment padding (nop, int3, zero) */
	uint64_t fdes;		/* DWARF FDEs over text: */
	uint64_t fdes_full;	/*   every pc described */
	uint64_t fdes_part;	/*   some pcs left out */
	uint64_t fdes_none;	/*   every pc left out */
	uint64_t fdes_dead;	/* FDEs outside the text or empty (dead code) */
	uint64_t fdes_dup;	/* FDEs over pcs an earlier FDE described */
	uint64_t bad_entries;	/* CFI entries libdw could not read */
	uint64_t syms;		/* function symbols in the text, of which */
	uint64_t syms_nocfi;	/*   start where no FDE covers */
	/* The table made. */
	unsigned int version;
	uint64_t out_fdes, out_flex, out_mask, out_fres;
};

struct sg_result {
	uint8_t *sec;		/* the SFrame section, laid out at vaddr 0 */
	size_t size;
	uint16_t machine;	/* EM_X86_64, EM_AARCH64 */
	bool big_endian;
	uint64_t text_lo, text_hi;	/* ELF vaddrs its FDEs cover */
	uint8_t build_id[64];
	size_t build_id_len;	/* 0: the file has none */
	struct sg_stats st;
	struct sg_gap *gaps;	/* left-out ranges, sorted */
	size_t ngaps;
	struct sg_gap *nocfi;	/* text ranges without CFI (reason unused) */
	size_t nnocfi;
};

/*
 * Turn the DWARF CFI of elf (.eh_frame, and .debug_frame for pcs it does
 * not cover) into an SFrame section whose offsets count from ELF vaddr 0:
 * V2 when every row fits, else V3 with FLEX FDEs for the rows that need
 * them.  Rows SFrame cannot express are left out (and counted), never
 * approximated.  Returns 0; 1 when the file has no CFI (r->st still
 * counts its text); -1 on an error, with a message in err.
 *
 * flags SG_TABLE_ONLY: the table, its range and the gaps, but not what
 * only the coverage report needs (r->nocfi, and the counts of text
 * without CFI, padding and symbols in r->st), which reads the bytes
 * between functions, and so every page of the text, and the symbol
 * tables.  What installs a table (uwind agent, --install) or walks with
 * it sets it.
 */
#define SG_TABLE_ONLY	0x1

int sg_convert(Elf *elf, unsigned int flags, struct sg_result *r, char *err,
	       size_t errlen);
void sg_result_free(struct sg_result *r);

#endif
