/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Apple compact unwind (__TEXT,__unwind_info), read in place.
 *
 * A 28-byte header locates the common encodings array, the personality
 * array and the first-level index.  Each index entry holds the offset of
 * the first function a second-level page covers and the page's offset;
 * the last entry is a sentinel (page offset 0) whose function offset is
 * the end of the covered range.  Second-level pages are "regular" (kind
 * 2: {function offset, encoding} pairs) or "compressed" (kind 3: 32-bit
 * entries of an 8-bit encoding index and a 24-bit function offset from
 * the page's first function; indices below the common count pick a
 * common encoding, the rest the page's own).  Function offsets count
 * from the image's base (its __TEXT segment, the Mach-O header).
 *
 * An encoding is 32 bits: flags (not a function start, has LSDA, a
 * personality index), a mode in bits 24-27 and the mode's fields.  x86
 * and x86-64: 1 frame (bp chain, saved registers below bp), 2 frameless
 * with the stack size in the encoding, 3 frameless whose stack size is
 * the immediate of the function's "sub $N, %sp" at an offset the encoding
 * gives, 4 DWARF (the low 24 bits: an __eh_frame offset).  arm64: 2
 * frameless (the return address stays in lr), 3 DWARF, 4 frame.  Mode 0
 * (encoding 0 among others) means no unwind information.
 */
#ifndef UWIND_COMPACT_H
#define UWIND_COMPACT_H

#include "types.h"

/**
 * enum uw_cu_const - compact unwind constants
 * @UW_CU_VERSION: the only section version
 * @UW_CU_HDR_SIZE: bytes in the section header
 * @UW_CU_HAS_LSDA: encoding flag: the function has an LSDA (bit 31, not
 *	a function start, is not used here)
 * @UW_CU_PERSONALITY: encoding bits: personality index (1-based, 0: none)
 * @UW_CU_MODE: encoding bits: the mode
 * @UW_CU_MAX_SAVED: most registers an encoding saves (arm64 frames list
 *	five pairs of x registers and four of d registers)
 */
enum uw_cu_const {
	UW_CU_VERSION = 1,
	UW_CU_HDR_SIZE = 28,
	UW_CU_HAS_LSDA = 0x40000000,
	UW_CU_PERSONALITY = 0x30000000,
	UW_CU_MODE = 0x0f000000,
	UW_CU_MAX_SAVED = 18,
};

/**
 * struct uw_cu - the decoded header of one __unwind_info section; the
 *	section itself stays in place
 * @sec: the section as mapped
 * @base: the address function offsets count from (the image's __TEXT
 *	segment, in the table's address space)
 * @enc_off: offset of the common encodings array
 * @enc_count: its entries
 * @pers_off: offset of the personality array (not used to unwind)
 * @pers_count: its entries
 * @idx_off: offset of the first-level index
 * @idx_count: its entries, the sentinel included
 * @arch: &enum uw_arch the encodings are read for: X86_64, X86 or
 *	AARCH64
 */
struct uw_cu {
	struct uw_span sec;
	uint64_t base;
	uint32_t enc_off, enc_count;
	uint32_t pers_off, pers_count;
	uint32_t idx_off, idx_count;
	uint8_t arch;
};

/**
 * struct uw_cu_entry - one second-level entry: a function (or part of
 *	one) and its encoding
 * @fn_start: its first address
 * @fn_end: the next entry's start, or the sentinel's
 * @encoding: its encoding
 * @page: its first-level index entry
 * @index: its number within the page
 * @compressed: the page is compressed (else regular)
 */
struct uw_cu_entry {
	uint64_t fn_start;
	uint64_t fn_end;
	uint32_t encoding;
	uint32_t page;
	uint32_t index;
	uint8_t compressed;
};

/**
 * enum uw_cu_kind - what an encoding says, decoded
 * @UW_CU_NONE: no unwind information here (mode 0)
 * @UW_CU_FRAME: a frame-pointer frame: CFA = fp + 2 words, the saved
 *	registers below the saved fp
 * @UW_CU_FRAMELESS: CFA = sp + stack_size
 * @UW_CU_FRAMELESS_IND: x86: CFA = sp + the immediate of the function's
 *	"sub $N, %sp" (at sub_off) + stack_size
 * @UW_CU_DWARF: the function's rules are in __eh_frame, at dwarf_off
 */
enum uw_cu_kind {
	UW_CU_NONE = 0,
	UW_CU_FRAME,
	UW_CU_FRAMELESS,
	UW_CU_FRAMELESS_IND,
	UW_CU_DWARF,
};

/**
 * struct uw_cu_save - a saved register
 * @reg: its DWARF number
 * @off: where it is saved: CFA + off
 */
struct uw_cu_save {
	uint8_t reg;
	int32_t off;
};

/**
 * struct uw_cu_rule - an encoding, decoded
 * @kind: &enum uw_cu_kind
 * @nsaved: entries in saved
 * @ra_in_lr: arm64 frameless: the return address stays in lr
 * @stack_size: FRAMELESS: the frame's bytes; FRAMELESS_IND: bytes added
 *	to the sub's immediate
 * @sub_off: FRAMELESS_IND: offset of the sub's immediate in the function
 * @dwarf_off: DWARF: the FDE's offset in __eh_frame (a hint)
 * @saved: the saved registers, CFA-relative
 */
struct uw_cu_rule {
	uint8_t kind;
	uint8_t nsaved;
	uint8_t ra_in_lr;
	uint32_t stack_size;
	uint32_t sub_off;
	uint32_t dwarf_off;
	struct uw_cu_save saved[UW_CU_MAX_SAVED];
};

/**
 * uw_cu_init() - read an __unwind_info header in place
 * @cu: the table, filled in
 * @sec: the section
 * @base: the address function offsets count from
 * @arch: how encodings read: UW_ARCH_X86_64, UW_ARCH_X86 or
 *	UW_ARCH_AARCH64
 *
 * Checks the header and that the index lies in the section, ends with a
 * sentinel and is sorted (a few entries: one per page of up to 1021
 * functions).  Pages are checked as lookups reach them, or all at once
 * by uw_cu_check().
 *
 * Return: 0, UW_EINVAL, UW_EARCH, UW_EOVERFLOW (base too high for 32-bit
 * offsets), UW_EVERSION, UW_EHEADER or UW_EUNSORTED.
 */
int uw_cu_init(struct uw_cu *cu, const struct uw_span *sec, uint64_t base,
	       enum uw_arch arch);

/**
 * uw_cu_find() - the entry covering an address
 * @cu: the table
 * @pc: the address, in the table's address space
 * @e: the entry
 *
 * Return: 0, UW_ENOENT outside the indexed range, or a format error of
 * the page searched (UW_EBOUNDS, UW_EBADDATA, UW_EUNSORTED).  After
 * uw_cu_check() accepted the table, only 0 and UW_ENOENT.
 */
int uw_cu_find(const struct uw_cu *cu, uint64_t pc, struct uw_cu_entry *e);

/**
 * enum uw_cu_next_ret - what uw_cu_next() returns besides errors
 * @UW_CU_NEXT_ENTRY: e holds the next entry
 * @UW_CU_NEXT_END: the iteration is over
 */
enum uw_cu_next_ret {
	UW_CU_NEXT_ENTRY = 0,
	UW_CU_NEXT_END = 1,
};

/**
 * uw_cu_next() - the entries in order
 * @cu: the table
 * @page: the page; 0 to start
 * @index: the entry within it; 0 to start
 * @e: the entry
 *
 * Each call fills e and advances *page and *index.
 *
 * Return: UW_CU_NEXT_END (1) at the end, UW_CU_NEXT_ENTRY (0) with e
 * filled, or an error (the iteration cannot go on).  After uw_cu_check()
 * accepted the table, never an error.
 */
int uw_cu_next(const struct uw_cu *cu, uint32_t *page, uint32_t *index,
	       struct uw_cu_entry *e);

/**
 * uw_cu_check() - check a whole __unwind_info section, in chunks
 * @cu: a table uw_cu_init() accepted (header and first-level index)
 * @c: the check's state, from uw_check_start()
 *
 * Checks, for every first-level index entry but the sentinel, its
 * second-level page: kind regular or compressed, header, entry array
 * and (compressed) encoding palette inside the section; entries whose
 * function offsets never decrease and stay within the index entry's
 * range (from its function offset to the next entry's); compressed
 * encoding indices within the common encodings and the page's own;
 * every encoding an entry gives decodes for the table's architecture
 * (uw_cu_decode()) and has a personality index within the personality
 * array.  Then the LSDA index array (from the first index entry's LSDA
 * offset to the sentinel's: whole 8-byte entries inside the section,
 * every index entry's offset one of them) and every common encoding, as
 * the entries' encodings.  All pages together may hold no more entries
 * than the section has room for (index entries sharing a page would
 * make the check quadratic): the check is O(section size).
 *
 * A table that passes never makes uw_cu_find() return anything but 0
 * and UW_ENOENT, uw_cu_next() never fails, and uw_cu_decode() accepts
 * every encoding they give, so the walker's compact step can fail only
 * on the program: its registers, its memory, and the "sub" instruction
 * a frameless-indirect encoding names (program text, read at run time).
 *
 * Return: UW_CHECK_DONE (0) when the whole table is valid, UW_CHECK_MORE
 * when about c->limit units (pages, entries, common encodings) were
 * checked and more remain, UW_EINVAL (a NULL argument), or the error of
 * index entry c->item (the sentinel's number, idx_count - 1, for the
 * LSDA array and the common encodings): UW_EBOUNDS (a page's header,
 * entries or palette outside the section, an index entry's LSDA offset
 * not an entry of the LSDA array), UW_EBADDATA (a page kind other than
 * 2 or 3, a compressed encoding index past both palettes, an encoding
 * that does not decode or names a personality past the array, pages
 * holding more entries than the section has room for), UW_EUNSORTED (an
 * entry before the one it follows, or outside its index entry's range),
 * UW_EHEADER (the LSDA array runs backwards, outside the section or over
 * a partial entry).
 */
int uw_cu_check(const struct uw_cu *cu, struct uw_check *c);

/**
 * uw_cu_decode() - decode an encoding for the table's architecture
 * @cu: the table
 * @encoding: the encoding
 * @r: the rule
 *
 * Return: 0, or UW_EBADDATA (an undefined mode, a register number or
 * permutation out of range, a saved register outside the frame).
 */
int uw_cu_decode(const struct uw_cu *cu, uint32_t encoding,
		 struct uw_cu_rule *r);

/**
 * uw_cu_ind_size() - the stack size of a FRAMELESS_IND function
 * @r: the rule
 * @fn_start: the function's address, at run time
 * @cfg: the walk's configuration: its architecture, and the memory
 *	accessor that reads the function's code
 * @size: the sub's immediate plus r->stack_size
 *
 * Reads the "sub $imm32, %sp" (x86-64: 48 81 ec, x86: 81 ec) whose
 * immediate is at fn_start + sub_off through cfg's memory accessor (the
 * program's text, never directly), checking the opcode bytes first.
 *
 * Return: 0, UW_EINVAL (not FRAMELESS_IND, no accessor), UW_EARCH,
 * UW_EBADDATA (no such instruction there), UW_EREAD.
 */
int uw_cu_ind_size(const struct uw_cu_rule *r, uint64_t fn_start,
		   const struct uw_walk_cfg *cfg, uint64_t *size);

#endif /* UWIND_COMPACT_H */
