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
#ifndef UWIND_CHROME_H
#define UWIND_CHROME_H

#include "types.h"

/**
 * enum uw_chrome_const - Chrome table constants
 * @UW_CHROME_HDR_SIZE: bytes in the header
 */
enum uw_chrome_const {
	UW_CHROME_HDR_SIZE = 32,
};

/**
 * struct uw_chrome - a Chrome unwind table, its header decoded
 * @blob: the table
 * @text_start: the address the table's offsets count from, in the
 *	table's address space
 * @page_off: page table offset in the blob
 * @pages: page table entries
 * @fn_off: function table offset
 * @fns: function table entries
 * @fot_off: function offset table offset
 * @fot_size: its size in bytes
 * @insn_off: instruction table offset
 * @insn_size: its size in bytes
 * @big_endian: the table's byte order
 */
struct uw_chrome {
	struct uw_span blob;
	uint64_t text_start;
	uint32_t page_off, pages;
	uint32_t fn_off, fns;
	uint32_t fot_off, fot_size;
	uint32_t insn_off, insn_size;
	uint8_t big_endian;
};

/**
 * struct uw_chrome_loc - where the unwind of one pc starts
 * @fn_start: the function's address
 * @fn_index: its function table entry
 * @instr_off: pc - fn_start, in halfwords
 * @insn: the first instruction, a byte index in the instruction table
 */
struct uw_chrome_loc {
	uint64_t fn_start;
	uint32_t fn_index;
	uint32_t instr_off;
	uint32_t insn;
};

/**
 * uw_chrome_init() - check a Chrome table's header and page table
 * @ct: the decoder state to fill
 * @blob: the table; it must stay mapped and unchanged while ct is used
 * @text_start: the address the table's offsets count from
 * @big_endian: the table's byte order
 *
 * Return: 0, or UW_EINVAL (a NULL argument), UW_EBOUNDS (shorter than
 * its header), UW_EHEADER (a table outside the blob), UW_EUNSORTED (page
 * starts decrease, pass the function table, or begin after entry 0).
 */
int uw_chrome_init(struct uw_chrome *ct, const struct uw_span *blob,
		   uint64_t text_start, bool big_endian);

/**
 * uw_chrome_find() - where the unwind of a pc starts
 * @ct: an initialised table
 * @pc: the address (the Thumb bit is ignored)
 * @loc: where the answer goes
 *
 * Return: 0, or UW_ENOENT (pc outside the table's pages or before its
 * first function), UW_EBADDATA (a malformed offset list or instruction
 * index).  After uw_chrome_check() accepted the table, only 0 and
 * UW_ENOENT.
 */
int uw_chrome_find(const struct uw_chrome *ct, uint64_t pc,
		   struct uw_chrome_loc *loc);

/**
 * uw_chrome_exec() - run the instructions at loc on a register set
 * @ct: the table
 * @loc: from uw_chrome_find()
 * @cfg: the walk's configuration (as for uw_ehabi_exec())
 * @regs: ARM registers r0..r15, as for uw_ehabi_exec()
 *
 * Return: 0, or UW_EBADDATA (an instruction outside Chrome's subset, a
 * sequence without finish), UW_EREFUSE, UW_EREG, UW_EOVERFLOW, UW_EREAD,
 * UW_ESTACK (a stack read failed, or vsp left the stack or became
 * misaligned), UW_EINVAL (cfg has no memory accessor).  After uw_chrome_check() accepted the table, never
 * UW_EBADDATA.
 */
int uw_chrome_exec(const struct uw_chrome *ct, const struct uw_chrome_loc *loc,
		   const struct uw_walk_cfg *cfg, struct uw_regs *regs);

/**
 * uw_chrome_check() - check a whole Chrome table, in chunks
 * @ct: an initialised table
 * @c: the check's state, from uw_check_start()
 *
 * Checks every function table entry: entries of a page in order, its
 * offset list decodes down to offset 0, and every instruction sequence
 * it names holds only Chrome's instructions and ends with finish inside
 * the instruction table.  A table that passes never makes
 * uw_chrome_find() or uw_chrome_exec() fail with a format error.  The
 * cost is the list entries times the length of their sequences.
 *
 * Return: UW_CHECK_DONE (0) when the whole table is valid,
 * UW_CHECK_MORE when c->limit units were checked and more remain, or
 * the error of function entry c->item: UW_EUNSORTED, UW_EBADDATA,
 * UW_EOVERFLOW.
 */
int uw_chrome_check(const struct uw_chrome *ct, struct uw_check *c);

#endif /* UWIND_CHROME_H */
