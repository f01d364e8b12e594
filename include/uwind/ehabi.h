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
 * prel31 arithmetic wraps at 32 bits, as ARM addresses do.
 */
#ifndef UWIND_EHABI_H
#define UWIND_EHABI_H

#include "types.h"

/**
 * enum uw_ehabi_const - EHABI constants
 * @UW_EHABI_CANTUNWIND: the index word EXIDX_CANTUNWIND
 * @UW_EHABI_OPS_END: uw_ehabi_next_op(): the opcode sequence is over
 */
enum uw_ehabi_const {
	UW_EHABI_CANTUNWIND = 0x1,
	UW_EHABI_OPS_END = 1,
};

/**
 * struct uw_ehabi - an EHABI index and its extab
 * @exidx: .ARM.exidx
 * @extab: .ARM.extab; size 0: none
 * @count: index entries
 * @big_endian: the tables' byte order (BE8 images)
 */
struct uw_ehabi {
	struct uw_span exidx;
	struct uw_span extab;
	uint32_t count;
	uint8_t big_endian;
};

/**
 * enum uw_ehabi_kind - what an index entry holds
 * @UW_EHABI_KIND_CANTUNWIND: EXIDX_CANTUNWIND: no unwind information
 * @UW_EHABI_KIND_INLINE: a compact entry in the index word
 * @UW_EHABI_KIND_COMPACT: a compact entry in .ARM.extab
 * @UW_EHABI_KIND_GENERIC: a personality routine and opcodes in extab
 */
enum uw_ehabi_kind {
	UW_EHABI_KIND_CANTUNWIND,
	UW_EHABI_KIND_INLINE,
	UW_EHABI_KIND_COMPACT,
	UW_EHABI_KIND_GENERIC,
};

/**
 * struct uw_ehabi_ops - where an entry's opcode bytes are: an iterator
 * for uw_ehabi_next_op()
 * @off: offset of the current word in its span
 * @in_extab: the words are in extab, else in exidx
 * @pos: bytes of the current word still to read
 * @words: whole words after the current one
 */
struct uw_ehabi_ops {
	uint64_t off;
	uint8_t in_extab;
	uint8_t pos;
	uint8_t words;
};

/**
 * struct uw_ehabi_entry - one index entry, decoded
 * @fn_start: the function's address (Thumb bit clear)
 * @personality: GENERIC: the personality routine's address
 * @lsda: GENERIC: the address after the opcodes
 * @index: the entry's number
 * @kind: &enum uw_ehabi_kind
 * @pr: compact: personality index 0..2
 * @ops: its opcodes
 */
struct uw_ehabi_entry {
	uint64_t fn_start;
	uint64_t personality;
	uint64_t lsda;
	uint32_t index;
	uint8_t kind;
	uint8_t pr;
	struct uw_ehabi_ops ops;
};

/**
 * uw_ehabi_init() - set up an EHABI index for lookups
 * @eh: the decoder state to fill
 * @exidx: .ARM.exidx
 * @extab: .ARM.extab, or NULL (or a span with NULL data): none
 * @big_endian: the tables' byte order
 *
 * Checks the index size only; the tables must stay mapped and unchanged
 * while eh is used.
 *
 * Return: 0, or UW_EINVAL (a NULL argument), UW_EHEADER (the index is
 * not a whole number of entries, or has 2^32 or more).
 */
int uw_ehabi_init(struct uw_ehabi *eh, const struct uw_span *exidx,
		  const struct uw_span *extab, bool big_endian);

/**
 * uw_ehabi_entry() - decode index entry i
 * @eh: an initialised index
 * @i: 0 <= i < count
 * @e: where the entry goes
 *
 * Return: 0, or UW_EINVAL (i out of range), UW_EBADDATA (bit 31 set in
 * the function word, a personality index other than 0 inline or above 2
 * in extab), UW_EBOUNDS (an extab entry outside extab or misaligned).
 */
int uw_ehabi_entry(const struct uw_ehabi *eh, uint32_t i,
		   struct uw_ehabi_entry *e);

/**
 * uw_ehabi_find() - the entry covering a pc
 * @eh: an initialised index
 * @pc: the address (the Thumb bit is ignored), in the table's address
 *	space
 * @e: where the entry goes: the last one starting at or before pc
 *
 * Return: 0, or UW_ENOENT (pc before the first entry), or an error of
 * uw_ehabi_entry() for the entries read.  After uw_ehabi_check()
 * accepted the index, only 0 and UW_ENOENT.
 */
int uw_ehabi_find(const struct uw_ehabi *eh, uint64_t pc,
		  struct uw_ehabi_entry *e);

/**
 * uw_ehabi_next_op() - the next opcode byte of an entry
 * @eh: the entry's index
 * @o: the entry's opcode iterator (&struct uw_ehabi_entry.ops); advanced
 * @b: where the byte goes
 *
 * Return: 0 with *b set, UW_EHABI_OPS_END at the end of the sequence
 * (an implicit finish), or UW_EBOUNDS.
 */
int uw_ehabi_next_op(const struct uw_ehabi *eh, struct uw_ehabi_ops *o,
		     uint8_t *b);

/**
 * uw_ehabi_exec() - run an entry's opcodes on a register set
 * @eh: the entry's index
 * @ops: the entry's opcode iterator; advanced
 * @cfg: the walk's configuration: memory accessor, stack bounds, byte
 *	order
 * @regs: ARM registers r0..r15 in DWARF numbering, r13 the virtual sp;
 *	on success the caller's: r15 the return address (with the Thumb
 *	bit as found), r13 the caller's sp
 *
 * Return: 0, or UW_EREFUSE (the entry refuses to unwind), UW_EBADDATA
 * (a spare or reserved opcode, a truncated instruction), UW_EBOUNDS,
 * UW_EREG (a register the opcodes need is unknown), UW_EOVERFLOW (vsp
 * leaves the 32-bit address space), UW_EREAD or UW_ESTACK (a stack read
 * failed), UW_EINVAL (cfg has no memory accessor).  After uw_ehabi_check() accepted the index, never
 * UW_EBADDATA or UW_EBOUNDS.
 */
int uw_ehabi_exec(const struct uw_ehabi *eh, struct uw_ehabi_ops *ops,
		  const struct uw_walk_cfg *cfg, struct uw_regs *regs);

/**
 * uw_ehabi_check() - check a whole EHABI index, in chunks
 * @eh: an initialised index
 * @c: the check's state, from uw_check_start()
 *
 * Checks every index entry: it decodes, function starts never decrease,
 * and its opcodes up to the first finish are valid instructions.  An
 * index that passes never makes uw_ehabi_find() or uw_ehabi_exec() fail
 * with a format error.
 *
 * Return: UW_CHECK_DONE (0) when the whole index is valid,
 * UW_CHECK_MORE when c->limit units were checked and more remain, or
 * the error of entry c->item: UW_EUNSORTED, or an error of
 * uw_ehabi_entry() or of the opcodes (UW_EBADDATA, UW_EBOUNDS,
 * UW_EOVERFLOW).
 */
int uw_ehabi_check(const struct uw_ehabi *eh, struct uw_check *c);

#endif /* UWIND_EHABI_H */
