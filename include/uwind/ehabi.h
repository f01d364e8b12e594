/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ARM EHABI unwind tables (.ARM.exidx, .ARM.extab), read in place.
 *
 * The index is a sorted array of 8-byte entries: a prel31 offset to the
 * function start, then EXIDX_CANTUNWIND, an inline compact entry (bit 31
 * set) or a prel31 offset to the function's .ARM.extab entry.  An extab
 * entry is either compact (personality routine 0, 1 or 2, bit 31 set) or
 * generic (a prel31 to the personality routine, then a word whose top
 * byte counts the further opcode words, as GCC and LLVM emit it).
 */
/* Outside the guard: uwind.h includes this header in its middle. */
#include "uwind.h"

#ifndef UWIND_EHABI_H
#define UWIND_EHABI_H

#define UW_EHABI_CANTUNWIND	0x1

struct uw_walk_cfg;

struct uw_ehabi {
	struct uw_span exidx;
	struct uw_span extab;	/* size 0: none */
	uint32_t count;		/* index entries */
	uint8_t big_endian;	/* table byte order (BE8 images) */
};

enum uw_ehabi_kind {
	UW_EHABI_KIND_CANTUNWIND,
	UW_EHABI_KIND_INLINE,	/* compact entry in the index word */
	UW_EHABI_KIND_COMPACT,	/* compact entry in .ARM.extab */
	UW_EHABI_KIND_GENERIC,	/* personality routine + opcodes in extab */
};

/* Where an entry's opcode bytes are: read them with uw_ehabi_next_op(). */
struct uw_ehabi_ops {
	uint64_t off;		/* offset of the current word in its span */
	uint8_t in_extab;	/* the words are in extab, else in exidx */
	uint8_t pos;		/* bytes of the current word still to read */
	uint8_t words;		/* whole words after the current one */
};

struct uw_ehabi_entry {
	uint64_t fn_start;	/* function address (Thumb bit clear) */
	uint64_t personality;	/* GENERIC: routine address */
	uint64_t lsda;		/* GENERIC: address after the opcodes */
	uint32_t index;
	uint8_t kind;		/* enum uw_ehabi_kind */
	uint8_t pr;		/* compact: personality index 0..2 */
	struct uw_ehabi_ops ops;
};

/*
 * The opcode interpreter's state (shared with Chrome's tables).  The
 * walker keeps it in its cursor, off the stack; callers of
 * uw_ehabi_exec() and uw_chrome_exec() never see it.
 */
struct uw_arm_vrs {
	struct uw_regs *regs;		/* r0..r15 in, the caller's out */
	/* Opcode source: EHABI words (eh, ops), or bytes[off..nbytes). */
	const struct uw_ehabi *eh;
	struct uw_ehabi_ops *ops;
	const uint8_t *bytes;
	uint32_t nbytes;
	uint32_t off;
	uint32_t vsp;
	bool pc_set;
	bool chrome;			/* Chrome's subset and checks */
};

int uw_ehabi_init(struct uw_ehabi *eh, const struct uw_span *exidx,
		  const struct uw_span *extab, bool big_endian);

/* Entry i in index order, decoded. */
int uw_ehabi_entry(const struct uw_ehabi *eh, uint32_t i,
		   struct uw_ehabi_entry *e);

/* The entry covering pc (the last one starting at or before it). */
int uw_ehabi_find(const struct uw_ehabi *eh, uint64_t pc,
		  struct uw_ehabi_entry *e);

/*
 * The next opcode byte: 0 with *b set, 1 at the end of the sequence (an
 * implicit finish), or a negative error.
 */
int uw_ehabi_next_op(const struct uw_ehabi *eh, struct uw_ehabi_ops *o,
		     uint8_t *b);

/*
 * Run an entry's opcodes on regs (ARM DWARF numbering r0..r15, r13 the
 * virtual sp), reading the stack through cfg's accessor.  Afterwards
 * regs holds the caller's registers: r15 is the return address (with the
 * Thumb bit as found), r13 the caller's sp.
 */
int uw_ehabi_exec(const struct uw_ehabi *eh, struct uw_ehabi_ops *ops,
		  const struct uw_walk_cfg *cfg, struct uw_regs *regs);

#endif /* UWIND_EHABI_H */
