/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ARM EHABI in the tool, shared by `uwind dump`/`uwind lookup`
 * (ehabi_print.c, chrome_print.c) and `uwind convert --breakpad`
 * (convert.c):
 *  - a 32-bit ARM ELF file opened with its .ARM.exidx/.ARM.extab (or
 *    PT_ARM_EXIDX), FUNC and mapping symbols and executable ranges;
 *  - an entry's opcodes run with the core's interpreter on a synthetic
 *    frame, which tells where each register of the caller comes from;
 *  - the opcodes as text (arm_ops.c);
 *  - the Breakpad STACK CFI records those rules give (ehabi_rules.c).
 */
#ifndef UWIND_TOOL_EHABI_RULES_H
#define UWIND_TOOL_EHABI_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <gelf.h>
#include "uwind.h"

struct arm_sym {
	uint64_t addr, size;
	const char *name;
	char kind;		/* 'f' FUNC, 'a'/'t'/'d' mapping symbol */
	char thumb;
	/* Set once the symbols are sorted, for arm_is_thumb(): */
	long map;		/* the $a/$t in force here (index), or -1 */
	uint64_t reach;		/* end of the furthest FUNC up to here */
};

struct arm_range {
	uint64_t lo, hi;
	uint64_t off;		/* file offset of lo; -1: no file bytes */
};

struct arm_elf {
	const char *path;
	int fd;
	Elf *elf;
	void *xbuf, *tbuf;
	struct uw_span exidx, extab;
	uint64_t exidx_off;	/* file offset, for the header line */
	const char *exidx_name;
	bool be;
	struct uw_ehabi eh;
	struct arm_sym *syms;	/* sorted by address */
	size_t nsyms;
	struct arm_range *text;	/* executable sections (or segments) */
	size_t ntext;
};

/* A 32-bit ARM ELF file? */
bool arm_is_elf32(Elf *elf);
/* Open path and its EHABI tables: 0, or -1 with a message on stderr. */
int arm_open(struct arm_elf *a, const char *path);
void arm_close(struct arm_elf *a);
/* The FUNC symbol starting exactly at addr (Thumb bit ignored), or NULL. */
const struct arm_sym *arm_func_at(const struct arm_elf *a, uint64_t addr);
/* Thumb code at addr: bit 0, else the mapping symbols, else FUNC symbols. */
bool arm_is_thumb(const struct arm_elf *a, uint64_t addr);
/* The executable range holding addr, or NULL (none known: all are). */
const struct arm_range *arm_text_at(const struct arm_elf *a, uint64_t addr);
bool arm_in_text(const struct arm_elf *a, uint64_t addr);

/*
 * The synthetic frame: r0-r14 start as SYN_REG(n), sp as SYN_SP, and
 * the k-th stack read returns SYN_MARK(k), its address kept in addr[k].
 */
#define SYN_SP		0x10000000u
#define SYN_REG(n)	(0x20000000u + ((uint32_t)(n) << 24))	/* r0-r14 */
#define SYN_MARK(k)	(0x90000000u + ((uint32_t)(k) << 16))
#define SYN_NEAR	0x800000	/* a value within this of its base */
#define SYN_READS	4096

struct syn_mem {
	uint32_t addr[SYN_READS];	/* read k was at addr[k] */
	unsigned int n;
};

/*
 * Set up the synthetic frame for pc: cfg reads the stack from m, r holds
 * the starting registers.  Any unwinder of the core can then run on it.
 */
void syn_begin(struct syn_mem *m, struct uw_walk_cfg *cfg, struct uw_regs *r,
	       uint64_t pc);

/*
 * Run entry e's opcodes (an entry other than CANTUNWIND) for pc on the
 * synthetic frame: 0 with r holding the caller's r0-r15, or the core's
 * error (UW_EREFUSE for refuse-to-unwind).
 */
int syn_exec(const struct arm_elf *a, const struct uw_ehabi_entry *e,
	     uint64_t pc, struct syn_mem *m, struct uw_regs *r);

/*
 * End the lookup line for an unwinder run on the synthetic frame that
 * returned err: " refuse", " error MESSAGE", or the rules for the
 * caller's registers r, " cfa=RULE ra=RULE fp=RULE" (fpreg: r11, or r7 in
 * Thumb code).  Returns 1 for an error, else 0.
 */
int syn_print_result(FILE *out, const struct syn_mem *m,
		     const struct uw_regs *r, unsigned int fpreg, int err);

/* A value as base + offset: base 0-14 is rN (13 the sp). */
bool syn_reg_off(uint32_t v, unsigned int *base, int32_t *off);
/* A value read from the stack: the read's index k and an offset. */
bool syn_marker(const struct syn_mem *m, uint32_t v, unsigned int *k,
		int32_t *off);

/* ---- the opcodes as text (arm_ops.c) ---- */

/* Where an instruction's operand bytes come from: next() 0 with a byte. */
struct arm_op_src {
	int (*next)(void *ctx, uint8_t *b);
	void *ctx;
};

/*
 * The text of the instruction that starts with op (its operand bytes
 * read from src) in buf, as `readelf -u` words it; with chrome, the
 * opcodes outside Chrome's subset are named so.  Returns 1 after finish
 * or refuse-to-unwind, -1 when src ends inside the instruction (the text
 * says "[truncated]"), else 0.
 */
int arm_op_describe(uint8_t op, const struct arm_op_src *src, bool chrome,
		    char *buf, size_t len);

/* ---- STACK CFI from EHABI (uwind convert --breakpad, no DWARF CFI) ---- */

struct ehabi_cfi_stats {
	unsigned long entries, written, cantunwind, refused, errors, inexpr;
};

/*
 * Per index entry, a "STACK CFI INIT" record (.cfa: sp 0 + .ra: lr) at
 * the function start, and a "STACK CFI" record with the rules of the
 * function's body at its second instruction; addresses minus load.
 */
int ehabi_write_cfi(struct arm_elf *a, uint64_t load, FILE *out,
		    struct ehabi_cfi_stats *st);

#endif /* UWIND_TOOL_EHABI_RULES_H */
