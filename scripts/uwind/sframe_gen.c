// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * DWARF CFI to SFrame (see sframe_gen.h).
 *
 * Every FDE of .eh_frame (then .debug_frame, for pcs .eh_frame leaves
 * uncovered) is walked row by row with libdw (dwarf_cfi_addrframe gives
 * the row at a pc and the range it covers).  Each row's CFA, return
 * address and frame pointer rules are reduced to SFrame's vocabulary:
 *
 *   CFA = SP/FP + off                     DEFAULT FDE
 *   CFA = reg + off, CFA = *(reg + off)   FLEX FDE (SFrame V3)
 *   RA/FP saved at CFA + off, unchanged   DEFAULT (AMD64: RA at CFA-8
 *                                         fixed; AArch64: RA in x30)
 *   RA/FP in a register, = reg + off,     FLEX
 *   saved at reg + off
 *   RA undefined                          an outermost row (no words)
 *
 * DWARF expressions are evaluated symbolically (sp, fp and other
 * registers stay unknowns), so the DRAP form *(rbp - 8) becomes a FLEX
 * rule.  A CFA that depends on the pc
 * (the x86-64 PLT's "rsp + 8 + ((rip & 15) >= 11) * 8") is evaluated at
 * every pc of its row: when the result repeats with a period of at most
 * 255 bytes, the range becomes a repetitive-block (PCMASK) FDE.  Any
 * other rule is left out with its reason: a hole in the table, never an
 * approximation.  SFrame has no "unknown" row, so a hole splits the DWARF
 * FDE into several SFrame FDEs.
 *
 * Signal frames (FDEs whose CIE says 'S': glibc's __restore_rt) are left
 * out, though FLEX rules can say them (CFA = *(rsp + 160), RA at
 * *(rsp + 168)): uwind's walker recognises sigreturn trampolines by
 * their code and restores every register of the interrupted frame, whose
 * pc is exact; a table row would recover three registers and have the
 * interrupted frame looked up as a call site (the walker does not act on
 * V3's signal mark).
 *
 * AArch64 PLTs have no CFI; a .plt section whose every instruction is one
 * of the stub instructions ld writes (none of which touches sp, x29 or
 * x30) gets its rows from the code: CFA = sp (sp + 16 after PLT0's
 * stp x16, x30, [sp, #-16]!, and after the TLS descriptor trampoline's
 * stp x2, x3, [sp, #-16]!), RA in x30.
 *
 * The section is written with the encoder the tests use (sframe_enc.c)
 * and read back with the core before it is returned: every FRE must
 * decode to the row it was made from.
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "cfi.h"
#include "sframe_enc.h"
#include "sframe_gen.h"
#include "stack.h"

#define ROW_FLEX	0x01	/* needs a FLEX FDE */
#define ROW_OUTER	0x02	/* RA undefined: outermost */
#define ROW_MANGLED	0x04	/* AArch64: RA signed */

#define MAX_FRES	0xffff	/* V3 counts an FDE's FREs in 16 bits */
#define MAX_REP		255	/* PCMASK repetition size: 8 bits */
#define MAX_PC_ROWS	(1u << 20)	/* bytes a pc-dependent row may span */
#define EVAL_DEPTH	16

/* One run of pcs with the same three rules. */
struct orow {
	uint64_t start;
	struct uw_rule cfa, ra, fp;
	uint8_t flags;
};

/*
 * One SFrame FDE: pcs [start, end).  While it is the last one made, its
 * rows are g->rows[0 .. nrows); when the next one is made, they are
 * encoded (end_fde()) into g->fre[fre_off .. fre_off + fre_len) and
 * dropped, so that a file's rows are never all held at once.
 */
struct ofde {
	uint64_t start, end;
	uint32_t nrows;		/* <= MAX_FRES */
	uint32_t fre_off;	/* SFrame's offsets are 32-bit */
	uint32_t fre_len;
	uint8_t fre_type;	/* SFE_FRE_ADDR* of the encoded FREs */
	uint8_t rep;		/* PCMASK repetition size, 0: INC */
	bool key_b, synth, flex;
};

/* pcs [lo, hi) */
struct pcs {
	uint64_t lo, hi;
};

struct span64 {
	uint64_t lo, hi;
	Elf_Scn *scn;		/* NULL: from a PT_LOAD */
	uint64_t addr;		/* of the section's first byte */
};

struct gen {
	Elf *elf;
	GElf_Ehdr eh;
	unsigned int sp, fp, ra, pc;	/* DWARF registers */
	bool aarch64;
	struct span64 *text;
	size_t ntext;
	struct ofde *fdes;
	size_t nfdes, capf;
	struct orow *rows;	/* the last FDE's */
	size_t nrows, capr;
	uint8_t *fre;		/* the encoded FREs of the FDEs before it */
	size_t nfre, capfre;
	struct sfe_fre *scratch;	/* one FDE's FREs, while it is encoded */
	size_t capscratch;
	bool failed;		/* an FDE did not read back: err says why */
	struct ofde *open;	/* the FDE rows are appended to, or NULL */
	struct sg_result *r;
	size_t capg;
	struct pcs *done;	/* pcs described or left out, sorted */
	size_t ndone, capd;
	char *err;
	size_t errlen;
};

static const char *const reason_names[SG_NREASONS] = {
	[SG_CFA_EXPR] = "cfa-rule",
	[SG_RA_RULE] = "ra-rule",
	[SG_FP_RULE] = "fp-rule",
	[SG_RA_STATE] = "ra-state",
	[SG_CFI_ERROR] = "cfi-error",
	[SG_SIGNAL] = "signal-frame",
};

const char *sg_reason_name(enum sg_reason r)
{
	return (unsigned int)r < SG_NREASONS ? reason_names[r] : "?";
}

static void *xgrow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	return stk_xrealloc(p, *cap, size);
}

/* ---- symbolic evaluation of DWARF expressions ---- */

enum { SV_CONST, SV_REG, SV_CFA, SV_DEREF };

/* A value: CONST off; REG reg + off; CFA + off; *(base + off) + post. */
struct sv {
	uint8_t kind;
	uint8_t dkind;		/* SV_DEREF: SV_REG or SV_CFA */
	unsigned int reg;
	int64_t off, post;
};

static bool sv_add(struct sv *a, int64_t c)
{
	if (a->kind == SV_DEREF)
		return !__builtin_add_overflow(a->post, c, &a->post);
	return !__builtin_add_overflow(a->off, c, &a->off);
}

/* Binary operators: constants fold; base + constant stays symbolic. */
static bool sv_binop(unsigned int op, struct sv *a, const struct sv *b)
{
	uint64_t x = (uint64_t)a->off, y = (uint64_t)b->off;

	if (op == DW_OP_plus && a->kind == SV_CONST && b->kind != SV_CONST) {
		struct sv t = *b;

		if (!sv_add(&t, a->off))
			return false;
		*a = t;
		return true;
	}
	if ((op == DW_OP_plus || op == DW_OP_minus) && b->kind == SV_CONST &&
	    a->kind != SV_CONST)
		return op == DW_OP_plus ? sv_add(a, b->off) :
		       b->off != INT64_MIN && sv_add(a, -b->off);
	if (a->kind != SV_CONST || b->kind != SV_CONST)
		return false;
	switch (op) {
	case DW_OP_plus: x += y; break;
	case DW_OP_minus: x -= y; break;
	case DW_OP_mul: x *= y; break;
	case DW_OP_and: x &= y; break;
	case DW_OP_or: x |= y; break;
	case DW_OP_xor: x ^= y; break;
	case DW_OP_shl: x = y < 64 ? x << y : 0; break;
	case DW_OP_shr: x = y < 64 ? x >> y : 0; break;
	case DW_OP_shra: x = (uint64_t)(a->off >> (y < 64 ? y : 63)); break;
	case DW_OP_ge: x = a->off >= b->off; break;
	case DW_OP_gt: x = a->off > b->off; break;
	case DW_OP_le: x = a->off <= b->off; break;
	case DW_OP_lt: x = a->off < b->off; break;
	case DW_OP_eq: x = x == y; break;
	case DW_OP_ne: x = x != y; break;
	default: return false;
	}
	a->off = (int64_t)x;
	return true;
}

static bool is_binop(unsigned int op)
{
	switch (op) {
	case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and:
	case DW_OP_or: case DW_OP_xor: case DW_OP_shl: case DW_OP_shr:
	case DW_OP_shra: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
	case DW_OP_lt: case DW_OP_eq: case DW_OP_ne:
		return true;
	}
	return false;
}

/* Push a register's value: the pc is known, any other stays symbolic. */
static void sv_breg(const struct gen *g, unsigned int reg, int64_t off,
		    uint64_t pc, bool *pcdep, struct sv *v)
{
	memset(v, 0, sizeof(*v));
	if (reg == g->pc) {
		v->kind = SV_CONST;
		v->off = (int64_t)(pc + (uint64_t)off);
		*pcdep = true;
		return;
	}
	v->kind = SV_REG;
	v->reg = reg;
	v->off = off;
}

/*
 * Evaluate ops with the CFA, the registers and memory unknown and the pc
 * known; the value left on top is *out.  *value is set when the
 * expression ends in DW_OP_stack_value.  false: outside this subset.
 */
static bool eval(const struct gen *g, const Dwarf_Op *ops, size_t n,
		 uint64_t pc, struct sv *out, bool *value, bool *pcdep)
{
	struct sv st[EVAL_DEPTH], t;
	size_t i, k = 0;

	*value = false;
	for (i = 0; i < n; i++) {
		unsigned int op = ops[i].atom;

		if (*value)
			return false;	/* stack_value must come last */
		memset(&t, 0, sizeof(t));
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			sv_breg(g, op - DW_OP_breg0, (int64_t)ops[i].number,
				pc, pcdep, &t);
		} else if (op == DW_OP_bregx) {
			if (ops[i].number > 0xffff)
				return false;
			sv_breg(g, (unsigned int)ops[i].number,
				(int64_t)ops[i].number2, pc, pcdep, &t);
		} else if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			t.off = op - DW_OP_lit0;
		} else if (op == DW_OP_call_frame_cfa) {
			t.kind = SV_CFA;
		} else {
			switch (op) {
			case DW_OP_const1u: case DW_OP_const1s:
			case DW_OP_const2u: case DW_OP_const2s:
			case DW_OP_const4u: case DW_OP_const4s:
			case DW_OP_const8u: case DW_OP_const8s:
			case DW_OP_constu: case DW_OP_consts:
				t.off = (int64_t)ops[i].number;
				break;
			case DW_OP_nop:
				continue;
			case DW_OP_stack_value:
				*value = true;
				continue;
			case DW_OP_plus_uconst:
				if (!k || !sv_add(&st[k - 1],
						  (int64_t)ops[i].number))
					return false;
				continue;
			case DW_OP_dup:
			case DW_OP_over:
				if (k < (op == DW_OP_dup ? 1u : 2u))
					return false;
				t = st[k - (op == DW_OP_dup ? 1 : 2)];
				break;
			case DW_OP_drop:
				if (!k)
					return false;
				k--;
				continue;
			case DW_OP_swap:
				if (k < 2)
					return false;
				t = st[k - 1];
				st[k - 1] = st[k - 2];
				st[k - 2] = t;
				continue;
			case DW_OP_deref:
				if (!k || (st[k - 1].kind != SV_REG &&
					   st[k - 1].kind != SV_CFA))
					return false;
				st[k - 1].dkind = st[k - 1].kind;
				st[k - 1].kind = SV_DEREF;
				st[k - 1].post = 0;
				continue;
			default:
				if (!is_binop(op) || k < 2 ||
				    !sv_binop(op, &st[k - 2], &st[k - 1]))
					return false;
				k--;
				continue;
			}
		}
		if (k >= EVAL_DEPTH)
			return false;
		st[k++] = t;
	}
	if (!k)
		return false;
	*out = st[k - 1];
	return true;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static bool set_rule(struct uw_rule *r, unsigned int kind, unsigned int reg,
		     int64_t off)
{
	if (!fits32(off) || reg >= UW_NREGS)
		return false;
	r->kind = (uint8_t)kind;
	r->reg = (uint8_t)reg;
	r->off = (int32_t)off;
	return true;
}

/* The CFA rule at pc; false: SFrame cannot say it. */
static bool cfa_rule(const struct gen *g, Dwarf_Frame *fr, uint64_t pc,
		     struct uw_rule *r, bool *pcdep)
{
	Dwarf_Op *ops;
	size_t nops;
	struct sv v;
	bool value;

	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops ||
	    !eval(g, ops, nops, pc, &v, &value, pcdep) || value)
		return false;
	if (v.kind == SV_REG)
		return set_rule(r, UW_RULE_REG_OFF, v.reg, v.off);
	if (v.kind == SV_DEREF && v.dkind == SV_REG && !v.post)
		return set_rule(r, UW_RULE_REG_DEREF, v.reg, v.off);
	return false;
}

/* The rule for register regno; false: SFrame cannot say it. */
static bool reg_rule(const struct gen *g, Dwarf_Frame *fr, unsigned int regno,
		     uint64_t pc, struct uw_rule *r, bool *pcdep)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	struct sv v;
	bool value;

	memset(r, 0, sizeof(*r));
	if (dwarf_frame_register(fr, (int)regno, mem, &ops, &nops))
		return false;
	if (!nops) {
		r->kind = ops ? UW_RULE_UNDEF : UW_RULE_SAME;
		return true;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		if (ops[0].number == regno) {
			r->kind = UW_RULE_SAME;
			return true;
		}
		return ops[0].number < UW_NREGS &&
		       set_rule(r, UW_RULE_REG, (unsigned int)ops[0].number, 0);
	}
	if (!eval(g, ops, nops, pc, &v, &value, pcdep))
		return false;
	if (value) {		/* the register's value */
		if (v.kind == SV_REG && v.reg == regno && !v.off) {
			r->kind = UW_RULE_SAME;
			return true;
		}
		if (v.kind == SV_REG)
			return set_rule(r, v.off ? UW_RULE_REG_OFF : UW_RULE_REG,
					v.reg, v.off);
		if (v.kind != SV_DEREF || v.post)
			return false;	/* includes CFA + N: no SFrame form */
		v.kind = v.dkind;	/* *(base + off): saved there */
	}
	if (v.kind == SV_CFA)
		return set_rule(r, UW_RULE_CFA_OFF, 0, v.off);
	if (v.kind == SV_REG)
		return set_rule(r, UW_RULE_REG_DEREF, v.reg, v.off);
	return false;
}

static bool rule_eq(const struct uw_rule *a, const struct uw_rule *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->off == b->off;
}

/* A rule a DEFAULT FDE carries as a word or as the ABI's default. */
static bool default_ra(const struct gen *g, const struct uw_rule *ra)
{
	if (!g->aarch64)
		return ra->kind == UW_RULE_CFA_OFF && ra->off == -8;
	return ra->kind == UW_RULE_SAME || ra->kind == UW_RULE_CFA_OFF;
}

/*
 * Reduce the row at pc to SFrame rules.  Returns -1 and sets row, or the
 * enum sg_reason it cannot be expressed for.
 */
static int classify(const struct gen *g, Dwarf_Frame *fr, uint64_t pc,
		    struct orow *row, bool *pcdep)
{
	memset(row, 0, sizeof(*row));
	row->start = pc;
	if (!reg_rule(g, fr, g->ra, pc, &row->ra, pcdep))
		return SG_RA_RULE;
	if (row->ra.kind == UW_RULE_UNDEF) {
		/* No caller: nothing else matters. */
		memset(&row->ra, 0, sizeof(row->ra));
		row->flags = ROW_OUTER;
		return -1;
	}
	if (!cfa_rule(g, fr, pc, &row->cfa, pcdep))
		return SG_CFA_EXPR;
	/* x86-64's RA is a memory slot: "same value" has no meaning. */
	if (row->ra.kind == UW_RULE_SAME && !g->aarch64)
		return SG_RA_RULE;
	if (!reg_rule(g, fr, g->fp, pc, &row->fp, pcdep) ||
	    row->fp.kind == UW_RULE_UNDEF)
		return SG_FP_RULE;
	if (row->cfa.kind != UW_RULE_REG_OFF ||
	    (row->cfa.reg != g->sp && row->cfa.reg != g->fp) ||
	    !default_ra(g, &row->ra) ||
	    (row->fp.kind != UW_RULE_SAME && row->fp.kind != UW_RULE_CFA_OFF) ||
	    /* AArch64 DEFAULT FREs carry FP only after RA. */
	    (g->aarch64 && row->fp.kind == UW_RULE_CFA_OFF &&
	     row->ra.kind != UW_RULE_CFA_OFF))
		row->flags |= ROW_FLEX;
	return -1;
}

static bool row_eq(const struct orow *a, const struct orow *b)
{
	return a->flags == b->flags && rule_eq(&a->cfa, &b->cfa) &&
	       rule_eq(&a->ra, &b->ra) && rule_eq(&a->fp, &b->fp);
}

/* ---- building the FDE list ---- */

static void close_fde(struct gen *g)
{
	g->open = NULL;
}

static void end_fde(struct gen *g, struct ofde *f);

static struct ofde *new_fde(struct gen *g, uint64_t start, bool key_b)
{
	struct ofde *f;

	if (g->nfdes)
		end_fde(g, &g->fdes[g->nfdes - 1]);
	g->nrows = 0;
	g->fdes = xgrow(g->fdes, &g->capf, g->nfdes, sizeof(*g->fdes));
	f = &g->fdes[g->nfdes++];
	memset(f, 0, sizeof(*f));
	f->start = f->end = start;
	f->key_b = key_b;
	return f;
}

static void push_row(struct gen *g, struct ofde *f, const struct orow *row)
{
	g->rows = xgrow(g->rows, &g->capr, g->nrows, sizeof(*g->rows));
	g->rows[g->nrows++] = *row;
	f->nrows++;
}

/* Append the row over [row->start, end) to the open FDE (or a new one). */
static void add_row(struct gen *g, const struct orow *row, uint64_t end,
		    bool key_b)
{
	struct ofde *f = g->open;

	if (f && (f->end != row->start || f->rep || f->key_b != key_b))
		f = NULL;
	if (f && row_eq(&g->rows[f->nrows - 1], row)) {
		f->end = end;
		return;
	}
	if (f && f->nrows >= MAX_FRES)
		f = NULL;
	if (!f)
		f = g->open = new_fde(g, row->start, key_b);
	push_row(g, f, row);
	f->end = end;
}

static void add_gap(struct gen *g, uint64_t start, uint64_t end, int reason)
{
	struct sg_result *r = g->r;
	struct sg_gap *last = r->ngaps ? &r->gaps[r->ngaps - 1] : NULL;

	close_fde(g);
	r->st.left[reason] += end - start;
	if (last && last->end == start && last->reason == reason) {
		last->end = end;
		return;
	}
	r->gaps = xgrow(r->gaps, &g->capg, r->ngaps, sizeof(*r->gaps));
	r->gaps[r->ngaps].start = start;
	r->gaps[r->ngaps].end = end;
	r->gaps[r->ngaps].reason = (uint8_t)reason;
	r->ngaps++;
}

/* Whether the rows of the pcs [0, n) repeat with period p. */
static bool has_period(const struct orow *v, const int *why, size_t n,
		       size_t p)
{
	size_t i;

	for (i = 0; i + p < n; i++) {
		if (why[i] != why[i + p])
			return false;
		if (why[i] < 0) {
			struct orow a = v[i], b = v[i + p];

			a.start = b.start = 0;
			if (!row_eq(&a, &b))
				return false;
		}
	}
	return true;
}

/*
 * A row whose CFA depends on the pc: evaluate it at every pc of
 * [start, end).  A pattern repeating every p <= 255 bytes (p at most half
 * the range, and expressible throughout) becomes a PCMASK FDE; anything
 * else is added pc by pc.
 */
static uint64_t pc_rows(struct gen *g, Dwarf_Frame *fr, uint64_t start,
			uint64_t end, bool key_b, uint8_t mangled)
{
	size_t n = end - start, i, p;
	uint64_t described = 0;
	struct orow *v;
	int *why;
	bool dep;

	/* A PLT is a few KB: a pc-dependent rule over more is not one. */
	if (n > MAX_PC_ROWS) {
		add_gap(g, start, end, SG_CFA_EXPR);
		return 0;
	}
	v = stk_xrealloc(NULL, n, sizeof(*v));
	why = stk_xrealloc(NULL, n, sizeof(*why));

	for (i = 0; i < n; i++) {
		why[i] = classify(g, fr, start + i, &v[i], &dep);
		v[i].flags |= mangled;
	}
	for (p = 1; p <= MAX_REP && 2 * p <= n; p++) {
		struct ofde *f;

		if (!has_period(v, why, n, p))
			continue;
		for (i = 0; i < p && why[i] < 0; i++)
			;
		if (i < p)
			break;
		close_fde(g);
		f = new_fde(g, start, key_b);
		f->rep = (uint8_t)p;
		f->end = end;
		for (i = 0; i < p; i++) {
			if (i && row_eq(&g->rows[g->nrows - 1], &(struct orow){
				.start = g->rows[g->nrows - 1].start,
				.cfa = v[i].cfa, .ra = v[i].ra, .fp = v[i].fp,
				.flags = v[i].flags }))
				continue;
			v[i].start = i;		/* offset in the block */
			push_row(g, f, &v[i]);
		}
		g->r->st.desc_mask += n;
		described = n;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (why[i] >= 0) {
			add_gap(g, start + i, start + i + 1, why[i]);
			continue;
		}
		add_row(g, &v[i], start + i + 1, key_b);
		described++;
	}
out:
	close_fde(g);
	free(v);
	free(why);
	return described;
}

/* ---- one DWARF FDE ---- */

struct fde_ref {
	struct cfi_fde f;
	const struct cfi_sec *sec;
	const struct cfi_cie *cie;
	int order;		/* .eh_frame before .debug_frame */
};

/* RA signing state at pc: parity of the changes at or below it. */
static uint8_t ra_mangled(const uint64_t *tog, long ntog, uint64_t pc)
{
	long i, n = 0;

	for (i = 0; i < ntog; i++)
		n += tog[i] <= pc;
	return (n & 1) ? ROW_MANGLED : 0;
}

/* The next signing-state change after pc, or end. */
static uint64_t ra_next(const uint64_t *tog, long ntog, uint64_t pc,
			uint64_t end)
{
	long i;

	for (i = 0; i < ntog; i++)
		if (tog[i] > pc && tog[i] < end)
			end = tog[i];
	return end;
}

/* Convert the pcs [lo, hi) of one FDE; returns the bytes described. */
static uint64_t do_fde(struct gen *g, const struct fde_ref *fr, uint64_t lo,
		       uint64_t hi)
{
	uint64_t *tog = NULL, addr = lo, described = 0;
	long ntog = 0;
	bool key_b = fr->cie && fr->cie->key_b;

	close_fde(g);
	if (g->aarch64) {
		ntog = cfi_ra_toggles(fr->sec, fr->cie, &fr->f, &tog);
		if (ntog < 0) {
			add_gap(g, lo, hi, SG_RA_STATE);
			return 0;
		}
	}
	while (addr < hi) {
		Dwarf_Frame *frame;
		Dwarf_Addr s, e;
		bool signal = false, dep = false;
		uint64_t end;
		struct orow row;
		uint8_t mangled;
		int why;

		if (dwarf_cfi_addrframe(fr->sec->cfi, addr, &frame)) {
			add_gap(g, addr, hi, SG_CFI_ERROR);
			break;
		}
		if (dwarf_frame_info(frame, &s, &e, &signal) < 0 || e <= addr ||
		    s > addr) {
			free(frame);
			add_gap(g, addr, hi, SG_CFI_ERROR);
			break;
		}
		end = e < hi ? e : hi;
		end = ra_next(tog, ntog, addr, end);
		mangled = ra_mangled(tog, ntog, addr);
		why = classify(g, frame, addr, &row, &dep);
		row.flags |= mangled;
		if (signal) {
			/* See the top of the file. */
			add_gap(g, addr, end, SG_SIGNAL);
		} else if (dep) {
			described += pc_rows(g, frame, addr, end, key_b,
					     mangled);
		} else if (why >= 0) {
			add_gap(g, addr, end, why);
		} else {
			add_row(g, &row, end, key_b);
			described += end - addr;
		}
		free(frame);
		addr = end;
	}
	close_fde(g);
	free(tog);
	return described;
}

/* ---- the text: executable sections, or segments ---- */

static int span_cmp(const void *a, const void *b)
{
	const struct span64 *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void find_text(struct gen *g)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t cap = 0, i, n;

	while ((scn = elf_nextscn(g->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		g->text = xgrow(g->text, &cap, g->ntext, sizeof(*g->text));
		g->text[g->ntext++] = (struct span64){
			sh.sh_addr, sh.sh_addr + sh.sh_size, scn, sh.sh_addr };
	}
	if (!g->ntext && !elf_getphdrnum(g->elf, &n)) {
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(g->elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
			    !ph.p_memsz || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
				continue;
			g->text = xgrow(g->text, &cap, g->ntext,
					sizeof(*g->text));
			g->text[g->ntext++] = (struct span64){
				ph.p_vaddr, ph.p_vaddr + ph.p_memsz, NULL, 0 };
		}
	}
	if (g->ntext)
		qsort(g->text, g->ntext, sizeof(*g->text), span_cmp);
	for (i = 0; i < g->ntext; i++)
		g->r->st.text_bytes += g->text[i].hi - g->text[i].lo;
}

static const struct span64 *text_at(const struct gen *g, uint64_t a)
{
	size_t i;

	for (i = 0; i < g->ntext; i++)
		if (a >= g->text[i].lo && a < g->text[i].hi)
			return &g->text[i];
	return NULL;
}

/* Bytes of the section holding [lo, hi), or NULL. */
static const uint8_t *text_bytes(const struct span64 *t, uint64_t lo,
				 uint64_t hi)
{
	Elf_Data *d;

	if (!t->scn)
		return NULL;
	d = elf_getdata(t->scn, NULL);
	if (!d || !d->d_buf || d->d_off || lo < t->addr ||
	    hi - t->addr > d->d_size)
		return NULL;
	return (const uint8_t *)d->d_buf + (lo - t->addr);
}

static void mark_done(struct gen *g, uint64_t lo, uint64_t hi)
{
	g->done = xgrow(g->done, &g->capd, g->ndone, sizeof(*g->done));
	g->done[g->ndone++] = (struct pcs){ lo, hi };
}

/* ---- AArch64 PLT stubs ---- */

#define A64_STP_X16_X30	0xa9bf7bf0u	/* stp x16, x30, [sp, #-16]! */
#define A64_STP_X2_X3	0xa9bf0fe2u	/* stp x2, x3, [sp, #-16]! */
#define A64_BR_X17	0xd61f0220u
#define A64_NOP		0xd503201fu
#define A64_BTI_C	0xd503245fu

/* An instruction ld's PLT stubs use that leaves sp, x29 and x30 alone. */
static bool a64_plt_insn(uint32_t w)
{
	return (w & 0x9f00001fu) == 0x90000010u ||	/* adrp x16, ... */
	       (w & 0xffc003ffu) == 0xf9400211u ||	/* ldr x17, [x16, #] */
	       (w & 0xffc003ffu) == 0x91000210u ||	/* add x16, x16, # */
	       w == A64_BR_X17 || w == A64_NOP || w == A64_BTI_C ||
	       w == 0xd503219fu || w == 0xd50321dfu;	/* autia/b1716 */
}

/* The same for the lazy TLS descriptor trampoline after the stubs. */
static bool a64_tlsdesc_insn(uint32_t w)
{
	return (w & 0x9f00001eu) == 0x90000002u ||	/* adrp x2 / x3 */
	       (w & 0xffc003ffu) == 0xf9400042u ||	/* ldr x2, [x2, #] */
	       (w & 0xffc003ffu) == 0x91000042u ||	/* add x2, x2, # */
	       (w & 0xffc003ffu) == 0x91000063u ||	/* add x3, x3, # */
	       w == 0xd61f0040u || w == A64_NOP ||	/* br x2 */
	       w == A64_BTI_C;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * PLT0 is "stp x16, x30, [sp, #-16]!" then stub instructions up to its
 * br x17 and nop padding; every PLTn is stub instructions ending in
 * br x17; with TLS descriptors the section ends in a trampoline that
 * opens with "stp x2, x3, [sp, #-16]!".  In a PLT made for branch target
 * identification (ld -z force-bti, or every input marked BTI: Debian 13's
 * arm64 libraries) PLT0, the PLTn and the trampoline open with "bti c",
 * PLT0's push one instruction later.  Gives the offsets of PLT0's push
 * (push), where the PLTn and the trampoline start (tls = n: none) and one
 * PLTn's size, or returns false.
 */
static bool a64_plt_shape(const uint8_t *b, size_t n, size_t *push,
			  size_t *plt0, size_t *ent, size_t *tls)
{
	size_t i, first_br = 0, next_br = 0;

	*push = n >= 4 && le32(b) == A64_BTI_C ? 4 : 0;
	if (n < *push + 8 || n % 4 || le32(b + *push) != A64_STP_X16_X30)
		return false;
	*tls = n;
	for (i = *push + 4; i < n; i += 4) {
		uint32_t w = le32(b + i);	/* A64 code is little-endian */

		if (w == A64_STP_X2_X3 && first_br) {
			*tls = i;
			break;
		}
		if (!a64_plt_insn(w))
			return false;
		if (w == A64_BR_X17 && !first_br)
			first_br = i;
		else if (w == A64_BR_X17 && !next_br)
			next_br = i;
	}
	for (i = *tls + 4; i < n; i += 4)
		if (!a64_tlsdesc_insn(le32(b + i)))
			return false;
	if (!first_br)
		return false;
	for (i = first_br + 4; i < *tls && le32(b + i) == A64_NOP; i += 4)
		;
	*plt0 = i;
	*ent = next_br ? next_br + 4 - i : 16;
	return *ent && *ent <= MAX_REP && *plt0 <= *tls;
}

static bool overlaps_done(const struct gen *g, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < g->ndone; i++)
		if (g->done[i].lo < hi && lo < g->done[i].hi)
			return true;
	return false;
}

/*
 * Rows [at, push + 4): CFA sp; [push + 4, end): CFA sp + 16, after the
 * push at push.
 */
static void a64_push_rows(struct gen *g, uint64_t at, uint64_t push,
			  uint64_t end)
{
	struct orow row;

	memset(&row, 0, sizeof(row));
	row.cfa.kind = UW_RULE_REG_OFF;
	row.cfa.reg = (uint8_t)g->sp;
	row.start = at;
	close_fde(g);
	add_row(g, &row, push + 4, false);
	row.cfa.off = 16;
	row.start = push + 4;
	add_row(g, &row, end, false);
	g->open->synth = true;
	close_fde(g);
}

static void a64_plt(struct gen *g)
{
	size_t shstr, push, plt0, ent, tls;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!g->aarch64 || elf_getshdrstrndx(g->elf, &shstr))
		return;
	while ((scn = elf_nextscn(g->elf, scn))) {
		const char *name;
		const uint8_t *b;
		const struct span64 *t;
		struct orow row;
		struct ofde *f;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(g->elf, shstr, sh.sh_name);
		t = text_at(g, sh.sh_addr);
		if (!name || strcmp(name, ".plt") || !t ||
		    overlaps_done(g, sh.sh_addr, sh.sh_addr + sh.sh_size))
			continue;
		b = text_bytes(t, sh.sh_addr, sh.sh_addr + sh.sh_size);
		if (!b || !a64_plt_shape(b, sh.sh_size, &push, &plt0, &ent,
					 &tls))
			continue;
		a64_push_rows(g, sh.sh_addr, sh.sh_addr + push,
			      sh.sh_addr + plt0);
		if (plt0 < tls) {
			f = new_fde(g, sh.sh_addr + plt0, false);
			f->rep = (uint8_t)ent;
			f->end = sh.sh_addr + tls;
			f->synth = true;
			memset(&row, 0, sizeof(row));
			row.cfa.kind = UW_RULE_REG_OFF;
			row.cfa.reg = (uint8_t)g->sp;
			push_row(g, f, &row);
			g->r->st.desc_mask += tls - plt0;
		}
		if (tls < sh.sh_size)
			a64_push_rows(g, sh.sh_addr + tls, sh.sh_addr + tls,
				      sh.sh_addr + sh.sh_size);
		mark_done(g, sh.sh_addr, sh.sh_addr + sh.sh_size);
		g->r->st.desc_synth += sh.sh_size;
	}
}

/* ---- text without CFI ---- */

/* Length of the x86 nop at p (prefixes 66/2e, then 90 or 0f 1f /0), or 0. */
static size_t x86_nop_len(const uint8_t *p, size_t n)
{
	size_t i = 0, len;
	uint8_t modrm, mod, rm;

	while (i < n && i < 14 && (p[i] == 0x66 || p[i] == 0x2e))
		i++;
	if (i < n && p[i] == 0x90)
		return i + 1;
	if (i + 2 >= n || p[i] != 0x0f || p[i + 1] != 0x1f)
		return 0;
	modrm = p[i + 2];
	mod = modrm >> 6;
	rm = modrm & 7;
	if ((modrm >> 3) & 7)
		return 0;
	len = i + 3;
	if (mod != 3 && rm == 4) {
		if (len >= n)
			return 0;
		if (mod == 0 && (p[len] & 7) == 5)
			len += 4;
		len++;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		len += 4;
	/*
	 * A nop cut short by the end of the gap still counts: glibc's
	 * __restore_rt FDE starts one byte early, inside the padding.
	 */
	return len <= n ? len : n;
}

/* Alignment fill: nops (x86: also int3 and zero bytes; A64: nop, 0). */
static bool is_padding(const struct gen *g, const uint8_t *b, size_t n)
{
	size_t i = 0, k;

	if (!b)
		return false;
	if (g->aarch64) {
		for (; i + 4 <= n; i += 4)
			if (le32(b + i) != A64_NOP && le32(b + i))
				return false;
		return i == n;
	}
	while (i < n) {
		if (b[i] == 0xcc || b[i] == 0x00) {
			i++;
			continue;
		}
		k = x86_nop_len(b + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* Sort and merge the done list. */
static int pcs_cmp(const void *a, const void *b)
{
	const struct pcs *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void merge_done(struct gen *g)
{
	size_t i, k = 0;

	if (!g->ndone)
		return;
	qsort(g->done, g->ndone, sizeof(*g->done), pcs_cmp);
	for (i = 1; i < g->ndone; i++) {
		if (g->done[i].lo <= g->done[k].hi) {
			if (g->done[i].hi > g->done[k].hi)
				g->done[k].hi = g->done[i].hi;
		} else {
			g->done[++k] = g->done[i];
		}
	}
	g->ndone = k + 1;
}

static int in_span(const void *key, const void *elt)
{
	uint64_t a = *(const uint64_t *)key;
	const struct pcs *s = elt;

	return a < s->lo ? -1 : a >= s->hi;
}

static bool is_done(const struct gen *g, uint64_t a)
{
	return g->ndone &&
	       bsearch(&a, g->done, g->ndone, sizeof(*g->done), in_span);
}

static void add_nocfi(struct gen *g, const struct span64 *t, uint64_t lo,
		      uint64_t hi, size_t *cap)
{
	struct sg_result *r = g->r;
	bool pad = is_padding(g, text_bytes(t, lo, hi), hi - lo);

	r->st.nocfi += hi - lo;
	if (pad)
		r->st.nocfi_pad += hi - lo;
	r->nocfi = xgrow(r->nocfi, cap, r->nnocfi, sizeof(*r->nocfi));
	r->nocfi[r->nnocfi++] = (struct sg_gap){ lo, hi, pad };
}

/* Text bytes no FDE (or PLT rule) covers. */
static void find_nocfi(struct gen *g)
{
	size_t i, j = 0, cap = 0;

	merge_done(g);
	for (i = 0; i < g->ntext; i++) {
		const struct span64 *t = &g->text[i];
		uint64_t a = t->lo;

		while (j < g->ndone && g->done[j].hi <= a)
			j++;
		while (a < t->hi) {
			uint64_t b = t->hi;

			if (j < g->ndone && g->done[j].lo <= a) {
				a = g->done[j].hi;
				j++;
				continue;
			}
			if (j < g->ndone && g->done[j].lo < b)
				b = g->done[j].lo;
			add_nocfi(g, t, a, b, &cap);
			a = b;
		}
		if (j)
			j--;	/* a span may reach into the next section */
	}
}

/* Function symbols (.symtab, else .dynsym) and those without CFI. */
static void count_sym(void *ctx, const GElf_Sym *sym, const char *name)
{
	struct gen *g = ctx;

	(void)name;
	if (!sym->st_size || !text_at(g, sym->st_value))
		return;
	g->r->st.syms++;
	g->r->st.syms_nocfi += !is_done(g, sym->st_value);
}

static void count_syms(struct gen *g, Elf64_Word type)
{
	elf_func_syms(g->elf, type, count_sym, g);
}

/* ---- writing the table ---- */

static int ofde_cmp(const void *a, const void *b)
{
	const struct ofde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool fde_flex(const struct gen *g, const struct ofde *f)
{
	size_t i;

	for (i = 0; i < f->nrows; i++)
		if (g->rows[i].flags & ROW_FLEX)
			return true;
	return false;
}

/* A FLEX (control, offset) pair for an RA or FP rule. */
static void flex_pair(const struct uw_rule *r, int32_t *w)
{
	switch (r->kind) {
	case UW_RULE_CFA_OFF:
		w[0] = SFE_CTRL(0, 1, 0);
		break;
	case UW_RULE_REG_DEREF:
		w[0] = SFE_CTRL(r->reg, 1, 1);
		break;
	default:		/* REG, REG_OFF: the value reg + off */
		w[0] = SFE_CTRL(r->reg, 0, 1);
		break;
	}
	w[1] = r->off;
}

/* The FRE for row (start relative to its FDE or block). */
static void make_fre(const struct gen *g, const struct orow *row, bool flex,
		     uint32_t start, struct sfe_fre *out)
{
	bool ra_dflt, fp_dflt;
	unsigned int n = 0;

	memset(out, 0, sizeof(*out));
	out->start = start;
	out->ra_mangled = !!(row->flags & ROW_MANGLED);
	out->base_sp = row->cfa.reg == g->sp;
	if (row->flags & ROW_OUTER)
		return;		/* no words: RA undefined */
	ra_dflt = g->aarch64 ? row->ra.kind == UW_RULE_SAME :
		  (row->ra.kind == UW_RULE_CFA_OFF && row->ra.off == -8);
	fp_dflt = row->fp.kind == UW_RULE_SAME;
	if (!flex) {
		out->w[n++] = row->cfa.off;
		if (g->aarch64 && !ra_dflt)
			out->w[n++] = row->ra.off;
		if (!fp_dflt)
			out->w[n++] = row->fp.off;
		out->nwords = (uint8_t)n;
		return;
	}
	out->w[n++] = SFE_CTRL(row->cfa.reg,
			       row->cfa.kind == UW_RULE_REG_DEREF, 1);
	out->w[n++] = row->cfa.off;
	if (!ra_dflt) {
		flex_pair(&row->ra, &out->w[n]);
		n += 2;
	} else if (!fp_dflt) {
		out->w[n++] = 0;	/* padding: RA where the ABI says */
	}
	if (!fp_dflt) {
		flex_pair(&row->fp, &out->w[n]);
		n += 2;
	}
	out->nwords = (uint8_t)n;
}

/* The row the core must decode from the FRE made for row. */
static void expect_row(const struct gen *g, const struct ofde *f,
		       const struct orow *row, struct uw_row *e)
{
	memset(e, 0, sizeof(*e));
	e->flags = (row->flags & ROW_MANGLED) ? UW_ROW_RA_MANGLED : 0;
	if (f->key_b)
		e->flags |= UW_ROW_PAUTH_KEY_B;
	if (row->flags & ROW_OUTER) {
		e->flags |= UW_ROW_OUTERMOST;
		return;
	}
	e->cfa = row->cfa;
	e->ra = row->ra;
	e->fp = row->fp;
	if (g->aarch64 && e->ra.kind == UW_RULE_SAME) {
		e->ra.kind = UW_RULE_REG;	/* still in x30 */
		e->ra.reg = UW_AARCH64_X30;
	}
}

static bool same_rule(const struct uw_rule *a, const struct uw_rule *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case UW_RULE_SAME: case UW_RULE_UNDEF:
		return true;
	case UW_RULE_CFA_OFF:
		return a->off == b->off;
	case UW_RULE_REG:
		return a->reg == b->reg;
	default:
		return a->reg == b->reg && a->off == b->off;
	}
}

/* The SFrame table header fields of this file. */
static void table_init(const struct gen *g, struct sfe_table *t,
		       unsigned int version)
{
	memset(t, 0, sizeof(*t));
	t->version = (uint8_t)version;
	t->flags = SFE_F_SORTED | SFE_F_PCREL;
	t->abi = !g->aarch64 ? SFE_ABI_AMD64_LE : g->r->big_endian ?
		 SFE_ABI_AARCH64_BE : SFE_ABI_AARCH64_LE;
	t->fixed_ra = g->aarch64 ? 0 : -8;
	t->big_endian = g->r->big_endian;
}

/* The FDE entry for f; its FREs are set by the caller. */
static void fde_init(const struct ofde *f, struct sfe_fde *e)
{
	memset(e, 0, sizeof(*e));
	e->func_start = f->start;
	e->func_size = (uint32_t)(f->end - f->start);
	e->pc_type = f->rep ? SFE_PC_MASK : SFE_PC_INC;
	e->rep_size = f->rep;
	e->pauth_key_b = f->key_b;
	e->fde_type = f->flex ? SFE_FDE_FLEX : SFE_FDE_DEFAULT;
	e->nfres = (uint32_t)f->nrows;
}

/* Whether the core reads the FDE back as f: its range, rows and type. */
static int fde_reads_back(struct gen *g, const struct ofde *f,
			  const struct uw_sframe_fde *fde)
{
	if (fde->func_start == f->start &&
	    fde->func_size == f->end - f->start &&
	    fde->num_fres == f->nrows &&
	    fde->pc_type == (f->rep ? UW_SFRAME_PC_MASK : UW_SFRAME_PC_INC))
		return 0;
	snprintf(g->err, g->errlen, "internal error: the FDE at %#llx reads"
		 " back differently", (unsigned long long)f->start);
	return -1;
}

/*
 * Every FRE of the one-FDE table sec gives the row it was made from,
 * g->rows[0 .. f->nrows); f->fre_type is what the core reads there.
 */
static int rows_read_back(struct gen *g, struct ofde *f,
			  const uint8_t *sec, size_t size)
{
	struct uw_span span = { sec, size, 0 };
	struct uw_sframe sf;
	struct uw_sframe_fde fde;
	uint32_t off;
	size_t j;
	int err = uw_sframe_init(&sf, &span);

	err = err ? err : uw_sframe_fde(&sf, 0, &fde);
	if (err)
		goto bad;
	if (fde_reads_back(g, f, &fde))
		return -1;
	f->fre_type = fde.fre_type;
	off = fde.fre_off;
	for (j = 0; j < f->nrows; j++) {
		const struct orow *row = &g->rows[j];
		struct uw_sframe_fre fre;
		struct uw_row got, want;

		err = uw_sframe_fre(&sf, &fde, &off, &fre);
		err = err ? err : uw_sframe_row(&sf, &fde, &fre, &got);
		if (err)
			goto bad;
		expect_row(g, f, row, &want);
		if (got.flags != want.flags ||
		    (!(want.flags & UW_ROW_OUTERMOST) &&
		     (!same_rule(&got.cfa, &want.cfa) ||
		      !same_rule(&got.ra, &want.ra) ||
		      !same_rule(&got.fp, &want.fp)))) {
			snprintf(g->err, g->errlen, "internal error: the row at"
				 " %#llx reads back differently",
				 (unsigned long long)(f->rep ? f->start :
						      row->start));
			return -1;
		}
	}
	return 0;
bad:
	snprintf(g->err, g->errlen, "internal error: an FRE of the FDE at %#llx"
		 " reads back as %s", (unsigned long long)f->start,
		 uw_strerror(err));
	return -1;
}

/*
 * The last FDE is complete: encode its rows, as a table of its own that
 * the core reads back (each FRE must give the row it was made from), and
 * keep the FREs' bytes for the file's table.  V2 unless the FDE needs V3
 * (a FLEX row, a start past 2 GiB), as the file's table will be when no
 * FDE needs V3; the FREs' bytes are the same in both.
 */
static void end_fde(struct gen *g, struct ofde *f)
{
	struct sfe_table t;
	struct sfe_fde e;
	struct sfe_layout lay;
	uint8_t *sec = NULL;
	size_t size = 0, lo, hi, j;

	if (g->failed || f->fre_len || g->nrows != f->nrows)
		return;
	f->flex = fde_flex(g, f);
	if (g->capscratch < f->nrows + 1) {
		g->capscratch = f->nrows + 1;
		g->scratch = stk_xrealloc(g->scratch, g->capscratch,
					  sizeof(*g->scratch));
	}
	for (j = 0; j < f->nrows; j++) {
		const struct orow *row = &g->rows[j];

		make_fre(g, row, f->flex, (uint32_t)(f->rep ? row->start :
			 row->start - f->start), &g->scratch[j]);
	}
	table_init(g, &t, f->flex || f->start > INT32_MAX ? 3 : 2);
	fde_init(f, &e);
	e.fres = g->scratch;
	t.nfdes = 1;
	t.fdes = &e;
	if (sfe_encode(&t, &sec, &size, &lay, g->err, g->errlen) ||
	    rows_read_back(g, f, sec, size)) {
		g->failed = true;
		goto out;
	}
	hi = (size_t)lay.fre_sub + lay.fre_len;
	lo = f->nrows ? lay.fre_at[0] : hi;
	if (g->nfre + (hi - lo) > UINT32_MAX) {
		snprintf(g->err, g->errlen, "the table's FREs pass 4 GiB");
		g->failed = true;
		goto out;
	}
	f->fre_off = (uint32_t)g->nfre;
	f->fre_len = (uint32_t)(hi - lo);
	while (g->nfre + (hi - lo) > g->capfre) {
		g->capfre = g->capfre ? 2 * g->capfre : 4096;
		g->fre = stk_xrealloc(g->fre, g->capfre, 1);
	}
	memcpy(g->fre + g->nfre, sec + lo, hi - lo);
	g->nfre += hi - lo;
out:
	sfe_layout_free(&lay);
	free(sec);
}

/*
 * Read the section back with the core: it passes the whole-table check
 * (what the kernel module runs before it uses a table), and every FDE is
 * the one it was made from (end_fde() checked their rows).
 */
static int check_table(struct gen *g, const uint8_t *sec, size_t size)
{
	struct uw_span span = { sec, size, 0 };
	struct uw_sframe sf;
	struct uw_check c;
	size_t i;
	int err = uw_sframe_init(&sf, &span);

	uw_check_start(&c, 0);
	err = err ? err : uw_sframe_check(&sf, &c);
	if (err)
		goto bad;
	if (sf.num_fdes != g->nfdes) {
		err = UW_EHEADER;
		goto bad;
	}
	for (i = 0; i < g->nfdes; i++) {
		struct uw_sframe_fde fde;

		err = uw_sframe_fde(&sf, (uint32_t)i, &fde);
		if (err)
			goto bad;
		if (fde_reads_back(g, &g->fdes[i], &fde))
			return -1;
	}
	return 0;
bad:
	snprintf(g->err, g->errlen, "internal error: the table made reads back"
		 " as %s", uw_strerror(err));
	return -1;
}

static int encode(struct gen *g)
{
	struct sg_result *r = g->r;
	struct sfe_fde *fdes = NULL;
	struct sfe_table t;
	unsigned int version = 2;
	size_t i;
	int ret;

	if (g->nfdes)
		end_fde(g, &g->fdes[g->nfdes - 1]);
	g->nrows = 0;
	if (g->failed)
		return -1;
	if (g->nfdes)
		qsort(g->fdes, g->nfdes, sizeof(*g->fdes), ofde_cmp);
	for (i = 0; i < g->nfdes; i++) {
		const struct ofde *f = &g->fdes[i];

		if (i && f->start < g->fdes[i - 1].end) {
			snprintf(g->err, g->errlen, "internal error: FDEs"
				 " overlap at %#llx",
				 (unsigned long long)f->start);
			return -1;
		}
		if (f->flex || f->start > INT32_MAX)
			version = 3;
	}
	fdes = stk_xrealloc(NULL, g->nfdes + 1, sizeof(*fdes));
	for (i = 0; i < g->nfdes; i++) {
		const struct ofde *f = &g->fdes[i];

		fde_init(f, &fdes[i]);
		fdes[i].raw = g->fre + f->fre_off;
		fdes[i].raw_len = f->fre_len;
		fdes[i].raw_type = f->fre_type;
		r->st.desc_bytes += f->end - f->start;
		r->st.desc_flex += f->flex ? f->end - f->start : 0;
		r->st.out_flex += f->flex;
		r->st.out_mask += !!f->rep;
		r->st.out_fres += f->nrows;
		if (!i || f->start < r->text_lo)
			r->text_lo = f->start;
		if (f->end > r->text_hi)
			r->text_hi = f->end;
	}
	table_init(g, &t, version);
	t.nfdes = (uint32_t)g->nfdes;
	t.fdes = fdes;
	ret = sfe_encode(&t, &r->sec, &r->size, NULL, g->err, g->errlen);
	free(fdes);
	free(g->fre);
	g->fre = NULL;
	if (ret)
		return -1;
	r->st.version = version;
	r->st.out_fdes = g->nfdes;
	return check_table(g, r->sec, r->size);
}

/* ---- the whole file ---- */

static int ref_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->f.start != y->f.start)
		return x->f.start < y->f.start ? -1 : 1;
	return x->order - y->order;
}

static int set_arch(struct gen *g)
{
	if (g->eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	switch (g->eh.e_machine) {
	case EM_X86_64:
		if (g->eh.e_ident[EI_DATA] != ELFDATA2LSB)
			return -1;
		g->sp = UW_X86_64_RSP;
		g->fp = UW_X86_64_RBP;
		g->ra = UW_X86_64_RIP;
		g->pc = UW_X86_64_RIP;
		return 0;
	case EM_AARCH64:
		g->aarch64 = true;
		g->sp = UW_AARCH64_SP;
		g->fp = UW_AARCH64_X29;
		g->ra = UW_AARCH64_X30;
		g->pc = UW_AARCH64_PC;
		return 0;
	default:
		return -1;
	}
}

/* Every FDE of the CFI sections, sorted by start, .eh_frame first. */
static int gather(struct gen *g, struct cfi_sec *secs, struct cfi_list *lists,
		  size_t *nsec, struct fde_ref **refs, size_t *nrefs)
{
	static const char *const names[2] = { ".eh_frame", ".debug_frame" };
	size_t k, i, n = 0;
	int ret;

	*nsec = 0;
	for (k = 0; k < 2; k++) {
		ret = cfi_sec_open(&secs[*nsec], g->elf, names[k]);
		if (ret < 0) {
			snprintf(g->err, g->errlen, "cannot read %s", names[k]);
			return -1;
		}
		if (ret)
			continue;
		if (cfi_list_fdes(&secs[*nsec], &lists[*nsec])) {
			cfi_sec_close(&secs[*nsec]);
			snprintf(g->err, g->errlen, "out of memory");
			return -1;
		}
		g->r->st.cfi_size += secs[*nsec].data->d_size;
		g->r->st.bad_entries += lists[*nsec].bad;
		n += lists[*nsec].nfdes;
		(*nsec)++;
	}
	*refs = stk_xrealloc(NULL, n + 1, sizeof(**refs));
	*nrefs = 0;
	for (k = 0; k < *nsec; k++) {
		for (i = 0; i < lists[k].nfdes; i++) {
			struct fde_ref *f = &(*refs)[(*nrefs)++];

			f->f = lists[k].fdes[i];
			f->sec = &secs[k];
			f->cie = cfi_find_cie(&lists[k], f->f.cie_off);
			f->order = (int)k;
		}
		/* The copies in refs are what is used from now on. */
		free(lists[k].fdes);
		lists[k].fdes = NULL;
		lists[k].nfdes = 0;
	}
	if (*nrefs)
		qsort(*refs, *nrefs, sizeof(**refs), ref_cmp);
	return 0;
}

static void convert_fdes(struct gen *g, const struct fde_ref *refs,
			 size_t nrefs)
{
	struct sg_stats *st = &g->r->st;
	uint64_t covered = 0, lo, hi, got;
	size_t i;

	for (i = 0; i < nrefs; i++) {
		const struct span64 *t;

		lo = refs[i].f.start;
		hi = lo + refs[i].f.len;
		t = text_at(g, lo);
		if (!refs[i].f.len || hi < lo || !lo || !t) {
			st->fdes_dead++;
			continue;
		}
		/* Rows past the section are no text's (and SFrame sizes are
		 * 32-bit): a broken length cannot make a huge FDE. */
		if (hi > t->hi)
			hi = t->hi;
		if (hi <= covered) {
			st->fdes_dup++;
			continue;
		}
		if (lo < covered)
			lo = covered;
		st->fdes++;
		got = do_fde(g, &refs[i], lo, hi);
		if (got == hi - lo)
			st->fdes_full++;
		else if (got)
			st->fdes_part++;
		else
			st->fdes_none++;
		mark_done(g, lo, hi);
		covered = hi;
	}
}

static void free_cfi(struct cfi_sec *secs, struct cfi_list *lists,
		     size_t *nsec, struct fde_ref **refs)
{
	size_t k;

	for (k = 0; k < *nsec; k++) {
		cfi_list_free(&lists[k]);
		cfi_sec_close(&secs[k]);
	}
	*nsec = 0;
	free(*refs);
	*refs = NULL;
}

int sg_convert(Elf *elf, unsigned int flags, struct sg_result *r, char *err,
	       size_t errlen)
{
	struct cfi_sec secs[2];
	struct cfi_list lists[2];
	struct fde_ref *refs = NULL;
	size_t nsec = 0, nrefs = 0;
	struct gen g;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&g, 0, sizeof(g));
	g.elf = elf;
	g.r = r;
	g.err = err;
	g.errlen = errlen;
	if (!gelf_getehdr(elf, &g.eh)) {
		snprintf(err, errlen, "not an ELF file");
		return -1;
	}
	if (cfi_is_object(elf)) {
		snprintf(err, errlen, "%s", CFI_OBJECT_REFUSED);
		return -1;
	}
	if (set_arch(&g)) {
		snprintf(err, errlen, "SFrame has no ABI for this machine (%u)"
			 " or byte order", g.eh.e_machine);
		return -1;
	}
	r->machine = g.eh.e_machine;
	r->big_endian = g.eh.e_ident[EI_DATA] == ELFDATA2MSB;
	r->build_id_len = cfi_build_id(elf, r->build_id, sizeof(r->build_id));
	find_text(&g);
	if (gather(&g, secs, lists, &nsec, &refs, &nrefs))
		goto out;
	convert_fdes(&g, refs, nrefs);
	a64_plt(&g);
	if (!(flags & SG_TABLE_ONLY)) {
		find_nocfi(&g);
		count_syms(&g, SHT_SYMTAB);
		if (!r->st.syms)
			count_syms(&g, SHT_DYNSYM);
	}
	if (!nsec && !g.nfdes) {
		snprintf(err, errlen, "no DWARF CFI (.eh_frame or .debug_frame)");
		ret = 1;
		goto out;
	}
	/* What the CFI needed is no longer: the table is made without it. */
	free_cfi(secs, lists, &nsec, &refs);
	free(g.done);
	g.done = NULL;
	g.ndone = 0;
	ret = encode(&g);
out:
	free_cfi(secs, lists, &nsec, &refs);
	free(g.text);
	free(g.fdes);
	free(g.rows);
	free(g.fre);
	free(g.scratch);
	free(g.done);
	if (ret < 0)
		sg_result_free(r);
	return ret;
}

void sg_result_free(struct sg_result *r)
{
	free(r->sec);
	free(r->gaps);
	free(r->nocfi);
	r->sec = NULL;
	r->gaps = r->nocfi = NULL;
	r->ngaps = r->nnocfi = 0;
}
