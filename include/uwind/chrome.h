/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Chrome's ARM unwind tables (Chromium base/profiler, the 32-bit Android
 * "unwind info" resource), read in place.
 *
 * A 32-byte header of eight u32 (offset, count or size pairs from the
 * blob's start) locates four tables.  The page table, indexed by the
 * pc's offset from the start of text divided by 128 KiB, gives the first
 * function table entry of each page.  A function table entry holds a
 * function's start within its page in halfwords and a byte index into
 * the function offset table, whose (uleb128 offset, uleb128 index) pairs,
 * in decreasing offset order down to 0, point into the instruction table
 * at a sequence of EHABI-encoded unwind instructions ending in finish.
 */
/* Outside the guard: uwind.h includes this header in its middle. */
#include "uwind.h"

#ifndef UWIND_CHROME_H
#define UWIND_CHROME_H

#define UW_CHROME_HDR_SIZE	32

struct uw_walk_cfg;

struct uw_chrome {
	struct uw_span blob;
	uint64_t text_start;	/* address the table's offsets count from */
	uint32_t page_off, pages;
	uint32_t fn_off, fns;
	uint32_t fot_off, fot_size;
	uint32_t insn_off, insn_size;
	uint8_t big_endian;
};

/* Where the unwind of one pc starts. */
struct uw_chrome_loc {
	uint64_t fn_start;	/* function address */
	uint32_t fn_index;	/* function table entry */
	uint32_t instr_off;	/* pc - fn_start, in halfwords */
	uint32_t insn;		/* first instruction, byte index in its table */
};

/* Check the header, table bounds and the page table's order. */
int uw_chrome_init(struct uw_chrome *ct, const struct uw_span *blob,
		   uint64_t text_start, bool big_endian);

int uw_chrome_find(const struct uw_chrome *ct, uint64_t pc,
		   struct uw_chrome_loc *loc);

/* Run the instructions at loc on regs (ARM r0..r15, as uw_ehabi_exec). */
int uw_chrome_exec(const struct uw_chrome *ct, const struct uw_chrome_loc *loc,
		   const struct uw_walk_cfg *cfg, struct uw_regs *regs);

#endif /* UWIND_CHROME_H */
