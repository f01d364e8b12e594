/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind: the types every part of the core shares.
 *
 * Error codes, architectures, register sets in DWARF numbering, table
 * spans, the memory accessor, the unwind row the formats produce, and the
 * progress of a whole-table check.  The format headers (sframe.h,
 * ehabi.h, chrome.h) include this one; uwind.h includes them and adds
 * the walker.
 */
#ifndef UWIND_TYPES_H
#define UWIND_TYPES_H

#include "env.h"

/**
 * enum uw_err - error codes: always negative, 0 is success
 * @UW_OK: success
 * @UW_EINVAL: a bad argument from the caller
 * @UW_EBOUNDS: a table read would leave its span
 * @UW_EMAGIC: not a table of this format
 * @UW_EVERSION: an unsupported format version
 * @UW_EHEADER: header fields inconsistent with the span
 * @UW_EUNSORTED: a table not sorted where it must be
 * @UW_ENOENT: no table entry covers the address
 * @UW_EBADDATA: a malformed entry or rule
 * @UW_EREAD: the memory accessor failed
 * @UW_ENOPROGRESS: a step did not move toward the stack base
 * @UW_EDEPTH: the frame limit was reached
 * @UW_EARCH: an architecture or ABI not supported here
 * @UW_EOVERFLOW: address arithmetic overflowed
 * @UW_EREG: a rule needs a register whose value is unknown
 * @UW_EREFUSE: the table says this frame cannot be unwound
 * @UW_ESTACK: an address fell outside the stack bounds
 * @UW_EALIGN: a stack pointer was misaligned
 * @UW_ERR_MIN: the lowest error code
 *
 * uw_strerror() names them.  UW_EBOUNDS, UW_EMAGIC, UW_EVERSION,
 * UW_EHEADER, UW_EUNSORTED and UW_EBADDATA are format errors: a table
 * that passed its whole-table check (uw_sframe_check(),
 * uw_ehabi_check(), uw_chrome_check(), uw_cu_check(), uw_bp_check())
 * never gives them again.
 */
enum uw_err {
	UW_OK		= 0,
	UW_EINVAL	= -1,
	UW_EBOUNDS	= -2,
	UW_EMAGIC	= -3,
	UW_EVERSION	= -4,
	UW_EHEADER	= -5,
	UW_EUNSORTED	= -6,
	UW_ENOENT	= -7,
	UW_EBADDATA	= -8,
	UW_EREAD	= -9,
	UW_ENOPROGRESS	= -10,
	UW_EDEPTH	= -11,
	UW_EARCH	= -12,
	UW_EOVERFLOW	= -13,
	UW_EREG		= -14,
	UW_EREFUSE	= -15,
	UW_ESTACK	= -16,
	UW_EALIGN	= -17,
	UW_ERR_MIN	= -17,
};

/**
 * uw_strerror() - name an error code
 * @err: 0 or a negative &enum uw_err code
 *
 * Return: a constant string; "unknown error" for a code uwind does not
 * define.
 */
const char *uw_strerror(int err);

/**
 * enum uw_arch - architectures, each with its DWARF register numbering
 * @UW_ARCH_NONE: no architecture (invalid in a walk)
 * @UW_ARCH_X86_64: x86-64
 * @UW_ARCH_AARCH64: AArch64
 * @UW_ARCH_S390X: s390x (SFrame tables only: no frame-pointer walk)
 * @UW_ARCH_ARM: 32-bit ARM, A32 and T32 (needs UW_HAS_ARM)
 * @UW_ARCH_X86: 32-bit x86 (frame pointers only)
 * @UW_ARCH_COUNT: the number of values above
 */
enum uw_arch {
	UW_ARCH_NONE = 0,
	UW_ARCH_X86_64,
	UW_ARCH_AARCH64,
	UW_ARCH_S390X,
	UW_ARCH_ARM,
	UW_ARCH_X86,
	UW_ARCH_COUNT,
};

/**
 * uw_arch_name() - name an architecture
 * @arch: the architecture
 *
 * Return: a constant string, "unknown" for a value outside the enum.
 */
const char *uw_arch_name(enum uw_arch arch);

/**
 * enum uw_reg_num - register numbers (DWARF) the core itself uses
 * @UW_NREGS: slots in &struct uw_regs
 * @UW_X86_64_RBP: x86-64 frame pointer
 * @UW_X86_64_RSP: x86-64 stack pointer
 * @UW_X86_64_RIP: x86-64 pc (DWARF's return-address column)
 * @UW_AARCH64_X29: AArch64 frame pointer
 * @UW_AARCH64_X30: AArch64 link register
 * @UW_AARCH64_SP: AArch64 stack pointer
 * @UW_AARCH64_PC: AArch64 pc
 * @UW_S390X_R11: s390x frame pointer
 * @UW_S390X_R14: s390x return address register
 * @UW_S390X_R15: s390x stack pointer
 * @UW_S390X_PC: s390x PSW address (DWARF 65, kept in slot 33, which no
 *	s390x unwind rule names)
 * @UW_ARM_R7: ARM frame pointer in Thumb code
 * @UW_ARM_R11: ARM frame pointer in ARM code
 * @UW_ARM_SP: ARM stack pointer
 * @UW_ARM_LR: ARM link register
 * @UW_ARM_PC: ARM pc (bit 0 set: Thumb state)
 * @UW_X86_ESP: x86 stack pointer
 * @UW_X86_EBP: x86 frame pointer
 * @UW_X86_EIP: x86 pc (DWARF's return-address column)
 *
 * Registers are indexed by their DWARF number.  The pc has a slot too:
 * the return-address column on x86-64 and x86, DWARF's PC on AArch64
 * and ARM.
 */
enum uw_reg_num {
	UW_NREGS = 34,
	UW_X86_64_RBP = 6, UW_X86_64_RSP = 7, UW_X86_64_RIP = 16,
	UW_AARCH64_X29 = 29, UW_AARCH64_X30 = 30, UW_AARCH64_SP = 31,
	UW_AARCH64_PC = 32,
	UW_S390X_R11 = 11, UW_S390X_R14 = 14, UW_S390X_R15 = 15,
	UW_S390X_PC = 33,
	UW_ARM_R7 = 7, UW_ARM_R11 = 11, UW_ARM_SP = 13, UW_ARM_LR = 14,
	UW_ARM_PC = 15,
	UW_X86_ESP = 4, UW_X86_EBP = 5, UW_X86_EIP = 8,
};

/**
 * struct uw_regs - a register set
 * @r: values, indexed by DWARF register number
 * @valid: bit n set: r[n] is known
 */
struct uw_regs {
	uint64_t r[UW_NREGS];
	uint64_t valid;
};

/**
 * uw_reg_set() - set a register and mark it known
 * @regs: the register set
 * @n: DWARF register number; numbers from UW_NREGS up are ignored
 * @v: the value
 */
static inline void uw_reg_set(struct uw_regs *regs, unsigned int n, uint64_t v)
{
	if (n < UW_NREGS) {
		regs->r[n] = v;
		regs->valid |= (uint64_t)1 << n;
	}
}

/**
 * uw_reg_get() - read a register if it is known
 * @regs: the register set
 * @n: DWARF register number
 * @v: where the value goes; untouched when the register is unknown
 *
 * Return: true when register n is known (and *v set), false otherwise.
 */
static inline bool uw_reg_get(const struct uw_regs *regs, unsigned int n,
			      uint64_t *v)
{
	if (n >= UW_NREGS || !(regs->valid & ((uint64_t)1 << n)))
		return false;
	*v = regs->r[n];
	return true;
}

/**
 * struct uw_arch_info - the registers an architecture's walker needs
 * @pc: DWARF number of the pc slot
 * @sp: DWARF number of the stack pointer
 * @fp: DWARF number of the frame pointer
 * @ra: the link register, or the pc slot where the return address is on
 *	the stack
 * @ptr_size: bytes in a stack word
 * @has_lr: the return address starts in a register
 */
struct uw_arch_info {
	uint8_t pc, sp, fp, ra;
	uint8_t ptr_size;
	uint8_t has_lr;
};

/**
 * uw_arch_info() - the register roles of an architecture
 * @arch: the architecture
 * @info: where to put them
 *
 * Return: 0, or UW_EARCH for UW_ARCH_NONE, a value outside the enum, or
 * an architecture this build left out (UW_ARCH_ARM without UW_HAS_ARM).
 */
int uw_arch_info(enum uw_arch arch, struct uw_arch_info *info);

/**
 * struct uw_span - a table, read in place
 * @data: the table's bytes as mapped
 * @size: how many
 * @addr: the address data[0] has in the unwound program (for tables a
 *	&struct uw_module uses with a load bias: in the file's link-time
 *	address space)
 */
struct uw_span {
	const uint8_t *data;
	size_t size;
	uint64_t addr;
};

/**
 * typedef uw_read_fn - the accessor for the unwound program's memory
 * @ctx: &struct uw_mem.ctx
 * @addr: address in the unwound program
 * @dst: where the bytes go
 * @len: how many (at most 16)
 *
 * Copies len bytes from addr into dst.  The core never touches program
 * memory otherwise, except the stack of a walk whose caller vouches for
 * it (UW_WALK_DIRECT_STACK, uwind.h).
 *
 * Return: 0, or a negative value when it cannot (unmapped, out of
 * bounds, would fault).
 */
typedef int (*uw_read_fn)(void *ctx, uint64_t addr, void *dst, size_t len);

/**
 * struct uw_mem - memory of the unwound program
 * @read: the accessor; NULL: no memory can be read
 * @ctx: passed to it
 */
struct uw_mem {
	uw_read_fn read;
	void *ctx;
};

/**
 * enum uw_rule_kind - how a row recovers a value
 * @UW_RULE_SAME: not saved: the register keeps its value
 * @UW_RULE_CFA_OFF: saved at CFA + off
 * @UW_RULE_REG: held in register reg
 * @UW_RULE_REG_OFF: the value is reg + off
 * @UW_RULE_REG_DEREF: saved at reg + off
 * @UW_RULE_UNDEF: undefined: no caller (the outermost frame)
 */
enum uw_rule_kind {
	UW_RULE_SAME = 0,
	UW_RULE_CFA_OFF,
	UW_RULE_REG,
	UW_RULE_REG_OFF,
	UW_RULE_REG_DEREF,
	UW_RULE_UNDEF,
};

/**
 * struct uw_rule - one rule of a row
 * @kind: &enum uw_rule_kind
 * @reg: DWARF register for the REG kinds
 * @off: the offset
 */
struct uw_rule {
	uint8_t kind;
	uint8_t reg;
	int32_t off;
};

/**
 * enum uw_row_flags - flags of &struct uw_row
 * @UW_ROW_OUTERMOST: no caller: the walk ends here
 * @UW_ROW_SIGNAL: the function is a signal trampoline
 * @UW_ROW_RA_MANGLED: the return address is signed (AArch64 pointer auth)
 * @UW_ROW_PAUTH_KEY_B: signed with key B, else key A
 */
enum uw_row_flags {
	UW_ROW_OUTERMOST	= 0x01,
	UW_ROW_SIGNAL		= 0x02,
	UW_ROW_RA_MANGLED	= 0x04,
	UW_ROW_PAUTH_KEY_B	= 0x08,
};

/**
 * struct uw_row - one unwind row: how to get the caller's CFA, return
 * address and frame pointer at a pc
 * @fn_start: start of the function the row belongs to
 * @fn_size: its size in bytes
 * @start: first pc the row covers
 * @cfa: the CFA: a REG_OFF or REG_DEREF rule
 * @ra: the return address
 * @fp: the frame pointer
 * @flags: &enum uw_row_flags
 *
 * Row-based formats (SFrame) translate their entries into this.
 * Addresses are in the table's address space.
 */
struct uw_row {
	uint64_t fn_start;
	uint64_t fn_size;
	uint64_t start;
	struct uw_rule cfa;
	struct uw_rule ra;
	struct uw_rule fp;
	uint32_t flags;
};

/**
 * struct uw_check - where a whole-table check stands between two calls
 * @limit: roughly how much one call checks, in table entries (FDEs and
 *	FREs, index entries and opcode bytes, function entries and
 *	instruction bytes, pages and their entries, lines); 0: the whole
 *	table in one call
 * @item: the entry being checked: an FDE, an index entry, a function
 *	table entry or a line.  After an error, the one at fault
 *
 * Set it up with uw_check_start(), then call the format's check
 * (uw_sframe_check(), uw_ehabi_check(), uw_chrome_check(),
 * uw_cu_check(), uw_bp_check()) until it
 * returns something other than UW_CHECK_MORE; in between, a kernel may
 * reschedule.  The table must not change meanwhile.
 */
struct uw_check {
	uint32_t limit;
	uint32_t item;
	/* private: */
	uint32_t sub;
	uint32_t off;
	uint32_t prev;
	uint64_t last;
	uint64_t total;
};

/**
 * enum uw_check_ret - what a whole-table check returns besides errors
 * @UW_CHECK_DONE: the whole table is valid
 * @UW_CHECK_MORE: the check stopped at its limit: call it again
 */
enum uw_check_ret {
	UW_CHECK_DONE = 0,
	UW_CHECK_MORE = 1,
};

/**
 * uw_check_start() - set up a whole-table check
 * @c: the check's state
 * @limit: &struct uw_check.limit
 */
static inline void uw_check_start(struct uw_check *c, uint32_t limit)
{
	c->limit = limit;
	c->item = 0;
	c->sub = 0;
	c->off = 0;
	c->prev = 0;
	c->last = 0;
	c->total = 0;
}

struct uw_walk_cfg;

#endif /* UWIND_TYPES_H */
