/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Building Chrome's ARM unwind tables from Breakpad STACK CFI records,
 * following the rules of Chromium's create_unwind_table.py (written
 * anew here): each CFI row of a function becomes an "address unwind"
 * (return to lr, sp adjustment and/or pops, vsp = rN then adjust, or
 * nothing for VFP saves); the complete instruction sequence for a row is
 * its own instructions followed by those of every earlier row, ending in
 * finish.  Epilogues are dropped.  Offsets in the function offset table
 * are in halfwords (the current format).
 *
 * Used by `uwind convert --chrome` and by selftests/chrome.
 */
#ifndef UWIND_TOOL_CHROME_GEN_H
#define UWIND_TOOL_CHROME_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cg_type {
	CG_RETURN_TO_LR = 1,	/* b0 */
	CG_SP_POP,		/* sp adjustment, pop, sp adjustment */
	CG_RESTORE_SP,		/* vsp = r[reg], then the same */
	CG_NO_ACTION,		/* VFP saves that do not move sp */
};

struct cg_unwind {
	uint32_t off;		/* bytes from the function start */
	uint8_t type;		/* enum cg_type */
	uint8_t reg;		/* CG_RESTORE_SP: the register */
	uint16_t regs;		/* bit n pops rn (r4..r15) */
	int64_t sp;		/* sp adjustment in bytes */
	int64_t sp2;		/* and after the pop (rows from EHABI) */
};

struct cg_func {
	uint64_t addr, size;
	struct cg_unwind *u;	/* in address order */
	size_t n, cap;
	int refuse;		/* unusable CFI: encode refuse-to-unwind */
};

struct cg_funcs {
	struct cg_func *f;
	size_t n, cap;
	/* Statistics of cg_parse_sym(). */
	size_t rows, handled, epilogues, unrecognized, refused;
};

/* sp adjustment: the bytes (at most 6), or -1 if it has no encoding. */
int cg_encode_sp(int64_t off, uint8_t *out);
/* Pop of the registers in mask (r4..r15, not empty): 1 or 2 bytes, or -1. */
int cg_encode_pop(uint16_t mask, uint8_t *out);
/* One address unwind's instructions (at most 16 bytes), or -1. */
int cg_encode_unwind(const struct cg_unwind *u, uint8_t *out);

/*
 * One STACK CFI row's rules (the text after the address) applied to the
 * function's state.  Returns 1 with *u filled (u->off set by the caller),
 * 0 if the row is not recognised, 2 if it starts the epilogue (the rest
 * of the function is dropped), -1 if it cannot be encoded.
 */
struct cg_state {
	int64_t cfa_sp;		/* the CFA's offset from its base */
	int cfa_reg;		/* CFA based on a register other than sp */
};
int cg_parse_row(const char *rules, struct cg_state *st, struct cg_unwind *u);

/*
 * Read Breakpad text: STACK CFI INIT / STACK CFI records (others are
 * ignored; functions at address 0 are tombstones and dropped).  Warnings
 * go to log if not NULL.  Returns 0, or -1 on malformed records.
 */
int cg_parse_sym(FILE *in, struct cg_funcs *out, FILE *log);

/*
 * The table blob (little-endian) for the functions, offsets counted from
 * text_start.  Returns 0 with *blob (malloc'd) and *size, or -1 with a
 * message in err.
 */
int cg_build(struct cg_funcs *fns, uint64_t text_start, uint8_t **blob,
	     size_t *size, char *err, size_t errlen);

void cg_free(struct cg_funcs *fns);

#endif /* UWIND_TOOL_CHROME_GEN_H */
