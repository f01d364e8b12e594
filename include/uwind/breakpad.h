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
#ifndef UWIND_BREAKPAD_H
#define UWIND_BREAKPAD_H

#include "types.h"

/**
 * struct uw_bp_idx - an index entry: one STACK CFI INIT record
 * @rva: its address (relative to the module's load address)
 * @off: the offset of its line in the text
 */
struct uw_bp_idx {
	uint64_t rva;
	uint64_t off;
};

/**
 * struct uw_bp - a symbol file, read in place
 * @text: the file as mapped (text.addr is not used)
 * @base: the address record addresses count from (the load address, in
 *	the table's address space: 0 with the module's bias as the load
 *	address)
 * @arch: &enum uw_arch
 * @ncfi: STACK CFI INIT records
 * @nwin: STACK WIN records
 * @cfi_lo: offset of the first STACK CFI INIT line
 * @cfi_hi: the end of the last STACK CFI line
 * @win_lo: offset of the first STACK WIN line
 * @win_hi: the end of the last one
 * @win_max: the largest code size of a STACK WIN record
 * @id_off: offset of the MODULE line's id (for the host)
 * @name_off: offset of its name
 * @id_len: the id's length; 0: no MODULE line
 * @name_len: the name's length
 * @idx: the index lookups search (uw_bp_set_index()); NULL: the text
 */
struct uw_bp {
	struct uw_span text;
	uint64_t base;
	uint8_t arch;
	uint32_t ncfi;
	uint32_t nwin;
	uint64_t cfi_lo, cfi_hi;
	uint64_t win_lo, win_hi;
	uint64_t win_max;
	uint64_t id_off, name_off;
	uint32_t id_len, name_len;
	const struct uw_bp_idx *idx;
};

/**
 * struct uw_bp_cfi - the STACK CFI records covering an address
 * @start: the INIT record's first address
 * @size: its size
 * @init_off: the offset of the INIT line
 * @end_off: the end of the last line that applies
 */
struct uw_bp_cfi {
	uint64_t start, size;
	uint64_t init_off;
	uint64_t end_off;
};

/**
 * struct uw_bp_win - a STACK WIN record
 * @start: its first address
 * @size: its code size
 * @off: the offset of its line
 * @prog_off: the offset of its program string, if any
 * @prog_len: the program string's length
 * @type: 4 (FrameData) or 0 (FPO)
 * @prolog: the prologue's size
 * @epilog: the epilogue's size
 * @params: bytes of parameters (.cbParams)
 * @saved_regs: bytes of saved registers (.cbSavedRegs)
 * @locals: bytes of locals (.cbLocals)
 * @max_stack: the record's max_stack field
 * @has_program: the record has a program string
 * @allocates_bp: no program: the FPO record's flag that the function
 *	sets up a frame pointer
 */
struct uw_bp_win {
	uint64_t start, size;
	uint64_t off;
	uint64_t prog_off, prog_len;
	uint32_t type;
	uint32_t prolog, epilog, params, saved_regs, locals, max_stack;
	uint8_t has_program;
	uint8_t allocates_bp;
};

/**
 * enum uw_bp_const - limits of the evaluator
 * @UW_BP_STACK: the evaluation stack's depth
 * @UW_BP_VARS: $-variables a program may assign
 * @UW_BP_SLOTS: rule slots: .cfa, .ra, then the DWARF registers
 */
enum uw_bp_const {
	UW_BP_STACK = 16,
	UW_BP_VARS = 12,
	UW_BP_SLOTS = UW_NREGS + 2,
};

/**
 * enum uw_bp_win_name - the STACK WIN names, indices of
 *	&struct uw_bp_eval.win
 * @UW_BP_CB_PARAMS: .cbParams
 * @UW_BP_CB_SAVED_REGS: .cbSavedRegs
 * @UW_BP_CB_LOCALS: .cbLocals
 * @UW_BP_CB_CALLEE_PARAMS: .cbCalleeParams
 * @UW_BP_RA_SEARCH_START: .raSearchStart
 * @UW_BP_RA_SEARCH: .raSearch
 * @UW_BP_NWIN: the number of names
 */
enum uw_bp_win_name {
	UW_BP_CB_PARAMS, UW_BP_CB_SAVED_REGS, UW_BP_CB_LOCALS,
	UW_BP_CB_CALLEE_PARAMS, UW_BP_RA_SEARCH_START, UW_BP_RA_SEARCH,
	UW_BP_NWIN,
};

/**
 * struct uw_bp_eval - the postfix evaluator: its inputs and its state
 * @cfg: the walk's configuration: the architecture, and the memory
 *	accessor ^ reads through (NULL read: every ^ fails)
 * @regs: the callee's registers, or NULL
 * @cfa: the value of .cfa, if has_cfa
 * @win: the STACK WIN names' values (&enum uw_bp_win_name), if has_win
 * @has_cfa: .cfa has a value
 * @has_win: the STACK WIN names have values
 * @depth: values on the stack after the last evaluation
 * @nvars: $-variables the last evaluation assigned
 * @derefs: times the last evaluation ran ^
 * @value: the last expression's result
 * @var: the $-variables' names (pointers into the program text)
 * @var_len: their lengths
 * @var_val: their values
 *
 * Large for a stack: the walker keeps it in its cursor.  Every
 * evaluation resets the state.
 */
struct uw_bp_eval {
	const struct uw_walk_cfg *cfg;
	const struct uw_regs *regs;
	uint64_t cfa;
	uint64_t win[UW_BP_NWIN];
	uint8_t has_cfa, has_win;
	uint8_t depth, nvars;
	uint32_t derefs;
	uint64_t value;
	const char *var[UW_BP_VARS];
	uint8_t var_len[UW_BP_VARS];
	uint64_t var_val[UW_BP_VARS];
	/* private: */
	uint32_t ntok;
	uint8_t undef;
	uint8_t buf[8];
	uint64_t opnd[2];
	uint64_t stack[UW_BP_STACK];
	uint8_t name_len[UW_BP_STACK];
};

/**
 * enum uw_bp_flags - how uw_bp_unwind() unwound (&struct uw_bp_work.flags)
 * @UW_BP_F_WIN: a STACK WIN record unwound the frame
 * @UW_BP_F_RA_IN_REG: the return address read no memory
 * @UW_BP_F_OUTERMOST: .ra is .undef
 */
enum uw_bp_flags {
	UW_BP_F_WIN = 0x1,
	UW_BP_F_RA_IN_REG = 0x2,
	UW_BP_F_OUTERMOST = 0x4,
};

/**
 * struct uw_bp_work - the state of uw_bp_unwind(): its evaluator, the
 *	records it found and what it gives besides the caller's registers
 * @ev: the evaluator
 * @slot: the rule of each slot (&enum uw_bp_const): the offset of its
 *	expression in the text, 0 when no rule is in force
 * @cfi: the STACK CFI records used
 * @win: the STACK WIN record used
 * @callee_params: in: the callee's STACK WIN .cbParams (.cbCalleeParams)
 * @params: out: this frame's .cbParams, 0 without STACK WIN
 * @flags: out: &enum uw_bp_flags
 * @cfa: out: the .cfa (STACK WIN: the caller's stack pointer)
 * @ra: out: the caller's pc
 * @prog: STACK WIN: the program run
 * @prog_len: its length
 *
 * Large for a stack: the walker keeps it in its cursor.
 */
struct uw_bp_work {
	struct uw_bp_eval ev;
	uint64_t slot[UW_BP_SLOTS];
	struct uw_bp_cfi cfi;
	struct uw_bp_win win;
	uint32_t callee_params;
	uint32_t params;
	uint32_t flags;
	uint64_t cfa;
	uint64_t ra;
	const char *prog;
	size_t prog_len;
	/* private: */
	const struct uw_bp *bp;
	const struct uw_regs *callee;
	struct uw_regs *caller;
	uint64_t pc;
	struct uw_regs out;
	uint8_t cfi_found;
};

/**
 * uw_bp_init() - read a symbol file in place
 * @bp: the table, filled in
 * @text: the file's text
 * @base: the address record addresses count from
 * @arch: the architecture; UW_ARCH_NONE: the MODULE line's
 *
 * One pass over the text: finds the MODULE line and the ranges of STACK
 * CFI and STACK WIN lines, and checks that the INIT and WIN records are
 * sorted by address.
 *
 * Return: 0, UW_EINVAL, UW_EARCH (no architecture, or one Breakpad rules
 * do not serve here), UW_EBADDATA (a malformed STACK record) or
 * UW_EUNSORTED.
 */
int uw_bp_init(struct uw_bp *bp, const struct uw_span *text, uint64_t base,
	       enum uw_arch arch);

/**
 * uw_bp_build_index() - build an index of the STACK CFI INIT records
 * @bp: the table
 * @idx: room for n entries
 * @n: bp->ncfi
 *
 * Fills idx with the INIT records in order; uw_bp_set_index() then makes
 * lookups search it rather than the text.
 *
 * Return: 0, UW_EINVAL (n is not bp->ncfi) or a format error.
 */
int uw_bp_build_index(const struct uw_bp *bp, struct uw_bp_idx *idx,
		      uint32_t n);

/**
 * uw_bp_set_index() - make lookups search an index
 * @bp: the table
 * @idx: the index (kept by the caller while bp is used); NULL: none
 * @n: its entries
 *
 * The index is checked now, whole: sorted by address, each entry the
 * start of an INIT line of its address inside the text, the lines in
 * text order (so it holds every INIT record, as uw_bp_build_index()
 * makes it).  The index stays the caller's memory: each entry a lookup
 * lands on is checked against its line again.
 *
 * Return: 0, UW_EINVAL (n is not bp->ncfi), UW_EBOUNDS (an entry outside
 * the STACK CFI lines), UW_EUNSORTED (addresses or lines out of order)
 * or UW_EBADDATA (an entry not at an INIT line of its address).
 */
int uw_bp_set_index(struct uw_bp *bp, const struct uw_bp_idx *idx,
		    uint32_t n);

/**
 * uw_bp_find_cfi() - the STACK CFI records for an address
 * @bp: the table
 * @pc: the address, in the table's address space
 * @rec: the INIT record covering pc and the deltas up to pc
 *
 * Return: 0, UW_ENOENT, or a format error (UW_EBADDATA).  After
 * uw_bp_check() accepted the table, only 0 and UW_ENOENT.
 */
int uw_bp_find_cfi(const struct uw_bp *bp, uint64_t pc,
		   struct uw_bp_cfi *rec);

/**
 * uw_bp_find_win() - the STACK WIN record for an address
 * @bp: the table
 * @pc: the address, in the table's address space
 * @win: the innermost type 4 record covering pc, else the innermost
 *	type 0 one (Breakpad's preference)
 *
 * Return: 0, UW_ENOENT, or a format error (UW_EBADDATA).  After
 * uw_bp_check() accepted the table, only 0 and UW_ENOENT.
 */
int uw_bp_find_win(const struct uw_bp *bp, uint64_t pc,
		   struct uw_bp_win *win);

/**
 * uw_bp_check() - check a whole symbol file, in chunks
 * @bp: a table uw_bp_init() accepted (INIT and WIN records sorted)
 * @c: the check's state, from uw_check_start()
 *
 * Reads every line once, as lookups and uw_bp_unwind() would read it:
 *
 * - STACK CFI INIT: address and size; its range starts at or after the
 *   end of the INIT before it (on an overlap the lookup, which takes the
 *   last INIT at or below a pc, and Breakpad, which keeps the first,
 *   would differ);
 * - STACK CFI (a delta): directly after its INIT record or another
 *   delta of it (the lookup stops at the first line of another kind),
 *   at an address above the record before it and inside the INIT's
 *   range;
 * - the rule sets of both ("name: expr ..." with no empty expression),
 *   and every rule the unwinder holds (.cfa, .ra and the architecture's
 *   registers) as an expression the evaluator accepts whatever values
 *   the registers and memory hold: run symbolically, its names known
 *   when popped (registers, .cfa outside the .cfa rule, $-variables
 *   assigned before), its stack within UW_BP_STACK, exactly one value
 *   left or ".undef" alone, literals that parse, assignments to at most
 *   UW_BP_VARS $-names, and a literal right operand, non-zero for / and
 *   %, a power of two for @ (so no value can make it fail);
 * - STACK WIN of type 0 and 4 (the others are never read past their
 *   key): every field as the lookup reads it, and a program, if the
 *   record has one, that is valid in the same sense with the STACK WIN
 *   names and assigns $eip and $esp.
 *
 * Lines of other kinds are not read.  The work is one pass over the
 * text.
 *
 * A table that passes never makes uw_bp_find_cfi() or uw_bp_find_win()
 * return anything but 0 and UW_ENOENT (with no index, or one
 * uw_bp_set_index() accepted and unchanged since), and uw_bp_unwind()
 * never fails with a format error: only on the program's registers
 * and memory.
 *
 * Return: UW_CHECK_DONE (0) when the whole file is valid, UW_CHECK_MORE
 * when c->limit lines were checked and more remain, UW_EINVAL (a NULL
 * argument), or the error of line c->item (counted from 0):
 * UW_EUNSORTED (an INIT range overlapping the one before, a delta not
 * above the record before it) or UW_EBADDATA (a field that does not
 * parse, a delta not after its INIT's lines or outside its range, a
 * malformed rule set or expression, a STACK WIN program that does not
 * assign $eip and $esp).
 */
int uw_bp_check(const struct uw_bp *bp, struct uw_check *c);

/**
 * uw_bp_reg() - the DWARF number of a register Breakpad names
 * @arch: the architecture
 * @s: the name ("$rbx", "x19", "$ebp", ...)
 * @len: its length
 *
 * Return: the number, or -1 for a name the architecture does not have.
 */
int uw_bp_reg(enum uw_arch arch, const char *s, size_t len);

/**
 * uw_bp_reg_name() - Breakpad's name for a DWARF register
 * @arch: the architecture
 * @reg: the DWARF number
 * @buf: room for a generated name (at least 4 bytes)
 * @len: its size
 *
 * Return: the name (a constant or buf), or NULL.
 */
const char *uw_bp_reg_name(enum uw_arch arch, unsigned int reg, char *buf,
			   size_t len);

/**
 * uw_bp_eval_expr() - evaluate an expression
 * @ev: the evaluator, its inputs set
 * @s: the expression: up to the end of its line or a token ending in ':'
 *	(where a rule set's next name starts)
 * @len: the bytes s may be read
 * @value: its value
 *
 * Return: 0 with one value left, or UW_EBADDATA (a malformed expression,
 * division by zero, a full or empty stack, an unknown name, not exactly
 * one value left), UW_EREG (a register unknown), UW_EREAD, UW_ESTACK.
 */
int uw_bp_eval_expr(struct uw_bp_eval *ev, const char *s, size_t len,
		    uint64_t *value);

/**
 * uw_bp_eval_prog() - run a program of assignments
 * @ev: the evaluator, its inputs set
 * @s: the program, up to the end of its line
 * @len: the bytes s may be read
 *
 * Return: 0 with no value left, or an error as uw_bp_eval_expr().
 */
int uw_bp_eval_prog(struct uw_bp_eval *ev, const char *s, size_t len);

/**
 * uw_bp_eval_var() - a $-variable the last evaluation assigned
 * @ev: the evaluator
 * @name: its name, with the '$'
 * @len: its length
 * @value: its value
 *
 * Return: 0, or UW_ENOENT.
 */
int uw_bp_eval_var(const struct uw_bp_eval *ev, const char *name,
		   size_t len, uint64_t *value);

/**
 * enum uw_bp_unwind_ret - what uw_bp_unwind() returns besides errors
 * @UW_BP_OUTERMOST: the frame is the outermost (.ra: .undef)
 * @UW_BP_CALLER: the caller's registers are in caller
 */
enum uw_bp_unwind_ret {
	UW_BP_OUTERMOST = 0,
	UW_BP_CALLER = 1,
};

/**
 * uw_bp_unwind() - unwind one frame with a symbol file's rules
 * @bp: the table
 * @pc: the address, in the table's address space, exact (the walker
 *	passes a return address less 1)
 * @cfg: the walk's configuration
 * @w: the state; w->callee_params set for x86 STACK WIN
 * @callee: the callee's registers
 * @caller: the caller's, out: what the rules give, plus the callee-saved
 *	registers no rule names
 *
 * x86 tries STACK WIN first, then STACK CFI; the other architectures
 * STACK CFI.  w->cfa, w->ra and w->flags say more.
 *
 * Return: UW_BP_CALLER (1) with the caller, UW_BP_OUTERMOST (0) for an
 * outermost frame (.ra: .undef), UW_ENOENT where no record covers pc or
 * no .cfa or .ra rule is in force, or another error.  After
 * uw_bp_check() accepted the table, never a format error (UW_EBADDATA,
 * UW_EBOUNDS, UW_EUNSORTED): only errors of the caller's registers and
 * memory (UW_EREG, UW_EREAD, UW_ESTACK, UW_EOVERFLOW) and of its
 * arguments (UW_EARCH, UW_EINVAL).
 */
int uw_bp_unwind(const struct uw_bp *bp, uint64_t pc,
		 const struct uw_walk_cfg *cfg, struct uw_bp_work *w,
		 const struct uw_regs *callee, struct uw_regs *caller);

#endif /* UWIND_BREAKPAD_H */
