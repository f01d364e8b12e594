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
/* Outside the guard: uwind.h includes this header in its middle. */
#include "uwind.h"

#ifndef UWIND_COMPACT_UNWIND_H
#define UWIND_COMPACT_UNWIND_H

#define UW_CU_VERSION		1
#define UW_CU_HDR_SIZE		28

#define UW_CU_NOT_FUNC_START	0x80000000u
#define UW_CU_HAS_LSDA		0x40000000u
#define UW_CU_PERSONALITY	0x30000000u
#define UW_CU_MODE		0x0f000000u

struct uw_walk_cfg;

struct uw_cu {
	struct uw_span sec;	/* the section as mapped */
	uint64_t base;		/* address function offsets count from */
	uint32_t enc_off, enc_count;	/* common encodings */
	uint32_t pers_off, pers_count;	/* personalities (not used) */
	uint32_t idx_off, idx_count;	/* first-level index (and sentinel) */
	uint8_t arch;		/* enum uw_arch: X86_64, X86 or AARCH64 */
};

/* One second-level entry: a function (or part of one) and its encoding. */
struct uw_cu_entry {
	uint64_t fn_start;	/* address */
	uint64_t fn_end;	/* the next entry's start, or the sentinel's */
	uint32_t encoding;
	uint32_t page;		/* first-level index entry */
	uint32_t index;		/* entry within the page */
	uint8_t compressed;	/* the page is compressed (else regular) */
};

enum uw_cu_kind {
	UW_CU_NONE = 0,		/* no unwind information here */
	UW_CU_FRAME,		/* frame pointer chain */
	UW_CU_FRAMELESS,	/* CFA = sp + stack_size */
	UW_CU_FRAMELESS_IND,	/* CFA = sp + [fn + sub_off] + stack_size */
	UW_CU_DWARF,		/* see __eh_frame at dwarf_off */
};

/*
 * Most registers an encoding saves: arm64 frames list five pairs of x
 * registers and four of d registers.
 */
#define UW_CU_MAX_SAVED		18

/* A saved register: DWARF number, saved at CFA + off. */
struct uw_cu_save {
	uint8_t reg;
	int32_t off;
};

/* An encoding, decoded. */
struct uw_cu_rule {
	uint8_t kind;		/* enum uw_cu_kind */
	uint8_t nsaved;
	uint8_t ra_in_lr;	/* arm64 frameless: the return address is lr */
	uint32_t stack_size;	/* FRAMELESS: bytes; IND: added to [sub] */
	uint32_t sub_off;	/* IND: offset of the sub's immediate in fn */
	uint32_t dwarf_off;	/* DWARF: FDE offset in __eh_frame (a hint) */
	struct uw_cu_save saved[UW_CU_MAX_SAVED];	/* CFA-relative */
};

/*
 * The walker's scratch for one compact unwind step: the entry, its rule,
 * the values read, and the step's arguments (kept here, not on the
 * walker's stack).
 */
struct uw_cu_work {
	struct uw_cu_entry e;
	struct uw_cu_rule r;
	uint64_t val[UW_CU_MAX_SAVED];	/* saved registers, as read */
	uint64_t cfa, ra, fp, tmp[2];
	const struct uw_cu *cu;
	const struct uw_walk_cfg *cfg;
	uint64_t pc;
	bool *ra_in_reg;
	uint64_t *new_sp;
};

/*
 * Check the header and that the index lies in the section, ends with a
 * sentinel and is sorted (a few entries: one per page of up to 1021
 * functions).  base: the address function offsets count from; arch:
 * how encodings read (X86_64, X86, AARCH64).
 */
int uw_cu_init(struct uw_cu *cu, const struct uw_span *sec, uint64_t base,
	       enum uw_arch arch);

/* The entry covering pc: UW_ENOENT outside the indexed range. */
int uw_cu_find(const struct uw_cu *cu, uint64_t pc, struct uw_cu_entry *e);

/*
 * Entries in order: *page and *index start at 0; each call fills e and
 * advances them.  Returns 1 at the end, 0 with e filled, <0 on an error
 * (the iteration cannot go on).
 */
int uw_cu_next(const struct uw_cu *cu, uint32_t *page, uint32_t *index,
	       struct uw_cu_entry *e);

/* Decode an encoding for cu's architecture. */
int uw_cu_decode(const struct uw_cu *cu, uint32_t encoding,
		 struct uw_cu_rule *r);

/*
 * FRAMELESS_IND: the stack size, from the "sub $imm32, %rsp" (x86-64:
 * 48 81 ec, x86: 81 ec) whose immediate is at fn_start + sub_off, read
 * through cfg's memory accessor (program text, not the stack); the
 * opcode bytes are checked first.  *size = immediate + stack_size.
 */
int uw_cu_ind_size(const struct uw_cu_rule *r, uint64_t fn_start,
		   const struct uw_walk_cfg *cfg, uint64_t *size);

#endif /* UWIND_COMPACT_UNWIND_H */
