/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Breakpad symbol files: STACK CFI and STACK WIN records, read in place
 * from the mapped text, and the postfix language of their rules.
 *
 * A symbol file is lines of space-separated fields.  The records used:
 *
 *   MODULE os arch id name
 *   STACK CFI INIT addr size name: expr name: expr ...
 *   STACK CFI addr name: expr ...      (the rules that change at addr)
 *   STACK WIN type rva code_size prolog epilog params saved_regs locals
 *             max_stack has_program program-string | allocates_bp
 *
 * Numbers in records are hexadecimal, addresses relative to the module's
 * load address.  uw_bp_init() reads the file once: it finds the MODULE
 * line and the ranges of lines holding STACK records, and checks that
 * the INIT and WIN records are sorted by address (dump_syms writes them
 * so), else UW_EUNSORTED.  A lookup then searches the text by halves
 * (or a caller-built index of fixed-size entries) and parses only the
 * records for the pc; nothing is copied.
 *
 * Expressions are postfix, tokens separated by white space: literals
 * (decimal with an optional leading '-', or 0x-prefixed hexadecimal),
 * names (registers as Breakpad writes them for the architecture, .cfa,
 * and in STACK WIN programs .cbParams .cbSavedRegs .cbLocals
 * .cbCalleeParams .raSearchStart .raSearch and $-variables), the binary
 * operators + - * / % and @ (a & ~(b - 1), b a power of two), ^ (read a
 * pointer-sized word) and = (assign to a $-name).  Arithmetic wraps at
 * the word size.  Division by zero, a full or empty stack, an unknown
 * name and a rule that does not leave exactly one value are errors.
 */
/* Outside the guard: uwind.h includes this header in its middle. */
#include "uwind.h"

#ifndef UWIND_BREAKPAD_H
#define UWIND_BREAKPAD_H

struct uw_walk_cfg;

/* An index entry: a STACK CFI INIT record's address and line offset. */
struct uw_bp_idx {
	uint64_t rva;
	uint64_t off;
};

struct uw_bp {
	struct uw_span text;	/* the file as mapped (text.addr unused) */
	uint64_t base;		/* load address (record addresses count from it) */
	uint8_t arch;		/* enum uw_arch */
	uint32_t ncfi;		/* STACK CFI INIT records */
	uint32_t nwin;		/* STACK WIN records */
	uint64_t cfi_lo, cfi_hi;	/* first INIT line to last CFI line */
	uint64_t win_lo, win_hi;	/* first to last WIN line */
	uint64_t win_max;	/* largest code size of a WIN record */
	/* The MODULE line's fields (len 0: no MODULE line), for the host. */
	uint64_t id_off, name_off;
	uint32_t id_len, name_len;
	const struct uw_bp_idx *idx;	/* NULL: search the text */
};

/* The STACK CFI records covering an address. */
struct uw_bp_cfi {
	uint64_t start, size;	/* the INIT record's range, as addresses */
	uint64_t init_off;	/* offset of the INIT line */
	uint64_t end_off;	/* end of the last line that applies */
};

/* A STACK WIN record. */
struct uw_bp_win {
	uint64_t start, size;	/* address range */
	uint64_t off;		/* offset of the line */
	uint64_t prog_off, prog_len;	/* the program string, if any */
	uint32_t type;		/* 4 FrameData, 0 FPO */
	uint32_t prolog, epilog, params, saved_regs, locals, max_stack;
	uint8_t has_program;
	uint8_t allocates_bp;	/* no program: the FPO record's flag */
};

#define UW_BP_STACK	16	/* evaluation stack depth */
#define UW_BP_VARS	12	/* $-variables a program may assign */
#define UW_BP_SLOTS	(UW_NREGS + 2)	/* .cfa, .ra, then DWARF registers */

enum {
	UW_BP_CB_PARAMS, UW_BP_CB_SAVED_REGS, UW_BP_CB_LOCALS,
	UW_BP_CB_CALLEE_PARAMS, UW_BP_RA_SEARCH_START, UW_BP_RA_SEARCH,
	UW_BP_NWIN,
};

/*
 * The evaluator: its inputs (the callee's registers, .cfa, the STACK
 * WIN constants, the memory accessor) and its state.  Large for a stack:
 * the walker keeps it in its cursor.
 */
struct uw_bp_eval {
	const struct uw_walk_cfg *cfg;	/* arch; mem for ^ (NULL read: fails) */
	const struct uw_regs *regs;	/* the callee's registers, or NULL */
	uint64_t cfa;			/* .cfa, if has_cfa */
	uint64_t win[UW_BP_NWIN];	/* STACK WIN names, if has_win */
	uint8_t has_cfa, has_win;
	/* state, reset by every evaluation */
	uint8_t depth, nvars;
	uint32_t derefs;		/* ^ executed */
	uint32_t ntok;			/* tokens run */
	uint8_t undef;			/* the first token is .undef */
	uint8_t buf[8];			/* a word ^ reads */
	uint64_t opnd[2];		/* an operator's operands */
	uint64_t value;			/* an expression's result */
	uint64_t stack[UW_BP_STACK];	/* values, or name pointers */
	uint8_t name_len[UW_BP_STACK];	/* 0: a value, else a name */
	const char *var[UW_BP_VARS];
	uint8_t var_len[UW_BP_VARS];
	uint64_t var_val[UW_BP_VARS];
};

/* The walker's scratch for one Breakpad step. */
struct uw_bp_work {
	struct uw_bp_eval ev;
	/* the step's arguments, kept here rather than in registers */
	const struct uw_bp *bp;
	const struct uw_regs *callee;
	struct uw_regs *caller;
	bool *ra_in_reg;	/* the walker's outputs */
	uint64_t *new_sp;
	uint64_t pc;		/* the address looked up */
	uint64_t slot[UW_BP_SLOTS];	/* rule offsets (0: no rule) */
	struct uw_bp_cfi cfi;
	struct uw_bp_win win;
	uint32_t callee_params;	/* in: the callee's STACK WIN params */
	uint32_t params;	/* out: this frame's (0 without STACK WIN) */
	uint32_t flags;		/* out: UW_BP_F_* */
	uint64_t cfa;		/* out: the .cfa (STACK WIN: the caller's sp) */
	uint64_t ra;		/* out: the caller's pc */
	const char *prog;	/* STACK WIN: the program run */
	size_t prog_len;
};

/* uw_bp_unwind() flags */
#define UW_BP_F_WIN		0x1	/* a STACK WIN record unwound it */
#define UW_BP_F_RA_IN_REG	0x2	/* the return address read no memory */
#define UW_BP_F_OUTERMOST	0x4	/* .ra: .undef */

/*
 * Read a symbol file in place.  base: the module's load address; arch:
 * UW_ARCH_NONE to take it from the MODULE line.  One pass over the text.
 */
int uw_bp_init(struct uw_bp *bp, const struct uw_span *text, uint64_t base,
	       enum uw_arch arch);

/*
 * Fill idx[0..n) (n = bp->ncfi) with the INIT records in order; then
 * uw_bp_set_index() makes lookups search it.  The index is checked
 * (sorted, each entry an INIT line inside the file) when it is set, and
 * each entry a lookup lands on is checked against its line.
 */
int uw_bp_build_index(const struct uw_bp *bp, struct uw_bp_idx *idx,
		      uint32_t n);
int uw_bp_set_index(struct uw_bp *bp, const struct uw_bp_idx *idx,
		    uint32_t n);

/* The CFI records that apply at pc (INIT and the deltas up to pc). */
int uw_bp_find_cfi(const struct uw_bp *bp, uint64_t pc,
		   struct uw_bp_cfi *rec);

/*
 * The STACK WIN record for pc: the innermost type 4 record covering it,
 * else the innermost type 0 one (Breakpad's preference).
 */
int uw_bp_find_win(const struct uw_bp *bp, uint64_t pc,
		   struct uw_bp_win *win);

/* The DWARF number of the register Breakpad calls s[0..len), or -1. */
int uw_bp_reg(enum uw_arch arch, const char *s, size_t len);

/* Breakpad's name for arch's DWARF register reg (buf: 4 bytes), or NULL. */
const char *uw_bp_reg_name(enum uw_arch arch, unsigned int reg, char *buf,
			   size_t len);

/*
 * Evaluate s[0..len), up to the end of its line or a token ending in ':'
 * (where a rule set's next name starts): one value left (an
 * expression) ...
 */
int uw_bp_eval_expr(struct uw_bp_eval *ev, const char *s, size_t len,
		    uint64_t *value);
/* ... or none (a program of assignments). */
int uw_bp_eval_prog(struct uw_bp_eval *ev, const char *s, size_t len);
/* A $-variable the last evaluation assigned. */
int uw_bp_eval_var(const struct uw_bp_eval *ev, const char *name,
		   size_t len, uint64_t *value);

/*
 * Unwind one frame at pc (exact: the walker passes pc - 1 for return
 * addresses): callee's registers in, the caller's out (only what the
 * rules give, plus callee-saved registers no rule names); w->cfa and
 * w->flags say more.  x86: STACK WIN first, then STACK CFI.  Returns 1
 * with the caller, 0 for an outermost frame, UW_ENOENT where no record
 * covers pc or no .cfa/.ra rule is in force, <0 errors.
 */
int uw_bp_unwind(const struct uw_bp *bp, uint64_t pc,
		 const struct uw_walk_cfg *cfg, struct uw_bp_work *w,
		 const struct uw_regs *callee, struct uw_regs *caller);

#endif /* UWIND_BREAKPAD_H */
