// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad symbol files: the whole-file check, uw_bp_check().
 *
 * A lookup reads only the records for its pc, and the unwinder parses
 * their rules as it runs them, so a malformed record shows only when a
 * pc reaches it.  This reads every STACK record once, the way the lookup
 * and the unwinder would, so that afterwards both can trust the text.
 *
 * Expressions are checked by running them symbolically: the operand
 * stack holds what each slot is (a name not yet looked up, a literal, a
 * computed value) rather than a value, names are looked up when popped
 * as the evaluator does, and $-variables are known from their first
 * assignment on (a program has no branches, so that is static).  The
 * one thing a value could still decide, a division, remainder or
 * alignment by zero or by a non-power of two, is ruled out by demanding
 * a literal right operand for / % @, as every producer of these files
 * writes them; then no register or memory contents can make a checked
 * rule fail with a format error.
 */
#include <uwind/uwind.h>
#include "bp_text.h"

/* What an operand slot holds: a value, or a name; literals are values. */
#define K_NAME		0x1
#define K_LIT		0x2	/* a literal: its properties follow */
#define K_NONZERO	0x4
#define K_POW2		0x8

/*
 * The symbolic evaluator's state, 120 bytes: names are kept as 16-bit
 * offsets into their expression (one whose names lie further in is
 * refused: real ones are a few dozen bytes).
 */
struct sym {
	const char *s;			/* the expression or program */
	uint16_t name[UW_BP_STACK];	/* K_NAME: the name's offset in s */
	uint8_t len[UW_BP_STACK];	/* K_NAME: its length */
	uint8_t kind[UW_BP_STACK];
	uint16_t var[UW_BP_VARS];	/* assigned $-names, offsets in s */
	uint8_t var_len[UW_BP_VARS];
	uint8_t depth, nvars;
	uint8_t arch, has_cfa, has_win;
};

static bool eq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static int find_var(const struct sym *x, const char *n, size_t len)
{
	unsigned int i;

	for (i = 0; i < x->nvars; i++)
		if (x->var_len[i] == len && eq(x->s + x->var[i], n, len))
			return (int)i;
	return -1;
}

/* Would the evaluator find a value for name n (resolve(), breakpad_eval.c)? */
static bool known(const struct sym *x, const char *n, size_t len)
{
	return find_var(x, n, len) >= 0 ||
	       (x->has_cfa && len == 4 && eq(n, ".cfa", 4)) ||
	       (x->has_win && uwi_bp_win_name(n, len) >= 0) ||
	       uw_bp_reg((enum uw_arch)x->arch, n, len) >= 0;
}

/*
 * Pop an operand: a name must be one the evaluator can look up now.
 * Inlined: a frame less on the check's deepest path.
 */
static uwi_always_inline int pop(struct sym *x, uint8_t *kind)
{
	unsigned int d;

	if (!x->depth)
		return UW_EBADDATA;	/* underflow */
	d = --x->depth;
	*kind = x->kind[d];
	if ((*kind & K_NAME) && !known(x, x->s + x->name[d], x->len[d]))
		return UW_EBADDATA;
	return 0;
}

static int push(struct sym *x, uint8_t kind, uint64_t at, size_t len)
{
	if (x->depth >= UW_BP_STACK || len > 255 || at > 0xffff)
		return UW_EBADDATA;	/* overflow, or past what we track */
	x->kind[x->depth] = kind;
	x->name[x->depth] = (uint16_t)at;
	x->len[x->depth] = (uint8_t)len;
	x->depth++;
	return 0;
}

/* '=': the value on top goes to the $-name below it (assign()). */
static int assign(struct sym *x)
{
	uint8_t k;
	unsigned int d;
	int err = pop(x, &k);

	if (err)
		return err;
	if (!x->depth || !(x->kind[x->depth - 1] & K_NAME))
		return UW_EBADDATA;
	d = --x->depth;
	if (x->s[x->name[d]] != '$')
		return UW_EBADDATA;
	if (find_var(x, x->s + x->name[d], x->len[d]) >= 0)
		return 0;
	if (x->nvars == UW_BP_VARS)
		return UW_EBADDATA;
	x->var[x->nvars] = x->name[d];
	x->var_len[x->nvars] = x->len[d];
	x->nvars++;
	return 0;
}

/* A literal's properties, at the evaluator's word size. */
static int lit(struct sym *x, const char *t, size_t n)
{
	uint64_t v;
	uint8_t k = K_LIT;

	if (uwi_bp_literal(t, n, &v))
		return UW_EBADDATA;
	if (x->arch == UW_ARCH_X86 || x->arch == UW_ARCH_ARM)
		v &= 0xffffffffu;
	if (v)
		k |= K_NONZERO;
	if (v && !(v & (v - 1)))
		k |= K_POW2;
	return push(x, k, 0, 0);
}

/* One token t[0..n) at offset at of the expression (step()). */
static int token(struct sym *x, const char *t, size_t n, uint64_t at)
{
	uint8_t a, b, need;
	int err;

	if (n == 1 && (t[0] == '+' || t[0] == '-' || t[0] == '*' ||
		       t[0] == '/' || t[0] == '%' || t[0] == '@')) {
		need = t[0] == '@' ? K_LIT | K_POW2 :
		       t[0] == '/' || t[0] == '%' ? K_LIT | K_NONZERO : 0;
		err = pop(x, &b);
		if (err)
			return err;
		err = pop(x, &a);
		if (err)
			return err;
		if ((b & need) != need)
			return UW_EBADDATA;	/* could fail on a value */
		return push(x, 0, 0, 0);
	}
	if (n == 1 && t[0] == '^') {
		err = pop(x, &a);
		if (err)
			return err;
		return push(x, 0, 0, 0);
	}
	if (n == 1 && t[0] == '=')
		return assign(x);
	if ((t[0] >= '0' && t[0] <= '9') || t[0] == '-')
		return lit(x, t, n);
	return push(x, K_NAME, at, n);
}

/*
 * Run s[0..len) symbolically up to its line's end or a token ending in
 * ':', as uwi_bp_run() runs it: expr, one value must be left (or the
 * expression is ".undef" alone), else none.  The variables stay in x.
 */
static uwi_noinline int run(struct sym *x, const char *s, size_t len,
			    bool expr)
{
	size_t i = 0, j, ntok = 0;
	bool undef = false;
	uint8_t k;
	int err;

	x->s = s;
	x->depth = 0;
	x->nvars = 0;
	while (bp_expr_token(s, len, &i, &j)) {
		if (!ntok++)
			undef = j - i == 6 && eq(s + i, ".undef", 6);
		err = token(x, s + i, j - i, i);
		if (err)
			return err;
		i = j;
	}
	if (expr && undef && ntok == 1)
		return 0;
	if (x->depth != (expr ? 1 : 0))
		return UW_EBADDATA;	/* leftover values, or none */
	return expr ? pop(x, &k) : 0;
}

/* Does the unwinder hold a rule for name n (slot_of(), breakpad_step.c)? */
static bool held(const struct uw_bp *bp, const char *n, size_t len)
{
	return (len == 4 && eq(n, ".cfa", 4)) ||
	       (len == 3 && eq(n, ".ra", 3)) ||
	       uw_bp_reg((enum uw_arch)bp->arch, n, len) >= 0;
}

/*
 * A rule set "name: expr name: expr ..." in [q, end), as rules()
 * (breakpad_step.c) reads it; each rule the unwinder holds runs as its
 * evaluation would (.cfa without .cfa, every other rule with it).
 * Inlined into uw_bp_check(), the one caller: a frame less.
 */
static uwi_always_inline int rule_set(const struct uw_bp *bp, struct sym *x,
				     uint64_t q, uint64_t end)
{
	const char *data = (const char *)bp->text.data;
	uint64_t n, e;
	int r, err;

	while (!(r = bp_next_rule(&bp->text, &q, end, &n, &e))) {
		if (!held(bp, data + n, e - n - 1))
			continue;	/* the unwinder skips it */
		x->has_cfa = !(e - n - 1 == 4 && eq(data + n, ".cfa", 4));
		err = run(x, data + e, bp->text.size - e, true);
		if (err)
			return err;
	}
	return r == UW_ENOENT ? 0 : r;
}

/*
 * The fields of the STACK WIN record at off, as the lookup reads them:
 * *has_prog with its program in [*prog, *prog + *len) (the record in
 * this frame, not in the program's check).  0 or an error.
 */
static uwi_noinline int win_fields(const struct uw_bp *bp, uint64_t off,
				   uint64_t *prog, uint64_t *len,
				   bool *has_prog)
{
	struct uw_bp_win w;
	int err;

	w.off = off;
	err = uwi_bp_win_fields(bp, &w);
	*prog = w.prog_off;
	*len = w.prog_len;
	*has_prog = !err && w.has_program;
	return err;
}

/* A STACK WIN program: valid, and it assigns $eip and $esp (win_finish()). */
static int win_prog(const struct uw_bp *bp, struct sym *x, uint64_t prog,
		    uint64_t len)
{
	int err;

	x->has_cfa = 0;
	x->has_win = 1;
	err = run(x, (const char *)bp->text.data + prog, len, false);
	x->has_win = 0;
	if (!err && (find_var(x, "$eip", 4) < 0 || find_var(x, "$esp", 4) < 0))
		err = UW_EBADDATA;
	return err;
}

/* c->sub: the line before was an INIT or delta record; an INIT was seen. */
#define IN_CFI		0x1
#define HAVE_INIT	0x2

/* The end of the last INIT's range, kept in two private 32-bit fields. */
static uint64_t init_end(const struct uw_check *c)
{
	return (uint64_t)c->prev << 32 | c->off;
}

/*
 * An INIT record: its range after the last one's (the lookup takes the
 * last INIT at or below a pc, Breakpad's range map the first: on an
 * overlap they would differ), its rules.
 */
static int init_line(const struct uw_bp *bp, struct uw_check *c,
		     uint64_t *p, uint64_t end)
{
	uint64_t addr, size;
	int err;

	err = uwi_bp_hex(&bp->text, p, end, &addr);
	if (err)
		return err;
	err = uwi_bp_hex(&bp->text, p, end, &size);
	if (err)
		return err;
	if ((c->sub & HAVE_INIT) && addr < init_end(c))
		return UW_EUNSORTED;
	c->sub |= IN_CFI | HAVE_INIT;
	c->last = addr;
	addr += size;		/* uw_bp_init checked: no wrap */
	c->off = (uint32_t)addr;
	c->prev = (uint32_t)(addr >> 32);
	return 0;
}

/*
 * A delta: right after its INIT or another delta of it (the lookup reads
 * the lines after an INIT up to the first of another kind; Breakpad
 * would apply a stray delta to the INIT before it), later than the
 * record before it and inside the INIT's range (cfi_lines()), its rules.
 */
static int delta_line(const struct uw_bp *bp, struct uw_check *c,
		      uint64_t *p, uint64_t end)
{
	uint64_t at;
	int err;

	if (!(c->sub & IN_CFI))
		return UW_EBADDATA;
	err = uwi_bp_hex(&bp->text, p, end, &at);
	if (err)
		return err;
	if (at <= c->last)
		return UW_EUNSORTED;
	if (at >= init_end(c))
		return UW_EBADDATA;
	c->last = at;
	return 0;
}

/* What check_line() leaves to its caller. */
enum line_rest {
	REST_NONE,	/* nothing */
	REST_RULES,	/* a rule set at *p */
	REST_PROG,	/* a STACK WIN program at *p, *len bytes */
};

/*
 * The line [off, end), up to its rule set or program (*rest), which the
 * caller checks (so that the STACK WIN record parsed here is never on the
 * stack with the symbolic evaluation): 0 or an error.
 */
static uwi_always_inline int check_line(const struct uw_bp *bp,
				   struct uw_check *c, uint64_t off,
				   uint64_t end, uint64_t *p, uint64_t *len,
				   enum line_rest *rest)
{
	uint64_t type;
	bool has_prog;
	int err;

	*rest = REST_NONE;
	switch (uwi_bp_line_kind(&bp->text, off, end, p)) {
	case L_INIT:
		*rest = REST_RULES;
		return init_line(bp, c, p, end);
	case L_CFI:
		*rest = REST_RULES;
		return delta_line(bp, c, p, end);
	case L_WIN:
		c->sub &= ~IN_CFI;
		/* Types other than 0 and 4: never read past the key. */
		if (uwi_bp_hex(&bp->text, p, end, &type))
			return UW_EBADDATA;
		if (type != 0 && type != 4)
			return 0;
		err = win_fields(bp, off, p, len, &has_prog);
		if (has_prog)
			*rest = REST_PROG;
		return err;
	default:
		c->sub &= ~IN_CFI;
		return 0;
	}
}

/*
 * c->total is the offset of the next line, c->item its number (from 0);
 * c->sub holds IN_CFI and HAVE_INIT, c->last the address of the last
 * INIT or delta record, c->off and c->prev the end of the last INIT's
 * range.
 */
int uw_bp_check(const struct uw_bp *bp, struct uw_check *c)
{
	const struct uw_span *t;
	uint64_t units = 0, end, p = 0, len = 0;
	enum line_rest rest;
	struct sym x;
	int err;

	if (!bp || !c)
		return UW_EINVAL;
	t = &bp->text;
	x.arch = bp->arch;
	x.has_win = 0;
	/* One pass over the lines: bounded by the text's size. */
	while (c->total < t->size) {
		if (c->limit && units >= c->limit)
			return UW_CHECK_MORE;
		units++;
		end = bp_eol(t, c->total);
		err = check_line(bp, c, c->total, end, &p, &len, &rest);
		if (!err && rest == REST_RULES)
			err = rule_set(bp, &x, p, end);
		else if (!err && rest == REST_PROG)
			err = win_prog(bp, &x, p, len);
		if (err)
			return err;
		c->total = end < t->size ? end + 1 : end;
		if (c->item != 0xffffffffu)
			c->item++;
	}
	return UW_CHECK_DONE;
}
