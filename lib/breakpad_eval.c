// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad's postfix language and its register names.
 *
 * Facts from Breakpad's postfix_evaluator-inl.h: tokens are separated by
 * white space; a binary operator pops its right operand first; "=" pops a
 * value, then a name, which must start with '$', and assigns; any other
 * token is pushed as it is and, when popped as a value, is a literal if
 * it parses as one (decimal, an optional leading '-'), else a name looked
 * up in the dictionary (registers, .cfa, assigned variables).  An unknown
 * name fails the evaluation (which is how ".undef" works).  An expression
 * must leave exactly one value, a program none.  Breakpad divides by
 * zero; we refuse, and also a full evaluation stack (a fixed array here).
 * 0x-prefixed hexadecimal literals are accepted too.
 *
 * Register names as Breakpad writes them (stackwalker_*.cc): x86
 * $eax..$edi, $eip; x86-64 $rax..$r15, $rip (DWARF order); ARM r0-r12,
 * sp, lr, pc; ARM64 x0-x30, sp, pc.  fp and lr are accepted as the
 * frame pointer and link register of ARM and ARM64.
 */
#include <uwind/uwind.h>
#include "span.h"
#include "bp_text.h"
#include "walk.h"

static const char x86_64_names[17][5] = {
	"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp",
	"$r8", "$r9", "$r10", "$r11", "$r12", "$r13", "$r14", "$r15",
	"$rip",
};

static const char x86_names[9][5] = {
	"$eax", "$ecx", "$edx", "$ebx", "$esp", "$ebp", "$esi", "$edi",
	"$eip",
};

static const char win_names[UW_BP_NWIN][16] = {
	".cbParams", ".cbSavedRegs", ".cbLocals", ".cbCalleeParams",
	".raSearchStart", ".raSearch",
};

static bool same(const char *s, size_t len, const char *name, size_t max)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (i >= max || s[i] != name[i])
			return false;
	return i == max || name[i] == '\0';
}

/* "rN" / "xN" with N a decimal number up to max (no leading zeros). */
static int numbered(const char *s, size_t len, char pfx, unsigned int max)
{
	unsigned int n = 0;
	size_t i;

	if (len < 2 || len > 3 || s[0] != pfx || (len == 3 && s[1] == '0'))
		return -1;
	for (i = 1; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (unsigned int)(s[i] - '0');
	}
	return n <= max ? (int)n : -1;
}

/* The DWARF number of register s[0..len) on arch, or -1. */
static int reg_number(enum uw_arch arch, const char *s, size_t len)
{
	unsigned int i;

	switch (arch) {
	case UW_ARCH_X86_64:
		for (i = 0; i < 17; i++)
			if (same(s, len, x86_64_names[i], 5))
				return (int)i;
		return -1;
	case UW_ARCH_X86:
		for (i = 0; i < 9; i++)
			if (same(s, len, x86_names[i], 5))
				return (int)i;
		return -1;
	case UW_ARCH_ARM:
		if (same(s, len, "sp", 2))
			return 13;
		if (same(s, len, "lr", 2))
			return 14;
		if (same(s, len, "pc", 2))
			return 15;
		if (same(s, len, "fp", 2))
			return 11;
		return numbered(s, len, 'r', 15);
	case UW_ARCH_AARCH64:
		if (same(s, len, "sp", 2))
			return 31;
		if (same(s, len, "pc", 2))
			return 32;
		if (same(s, len, "fp", 2))
			return 29;
		if (same(s, len, "lr", 2))
			return 30;
		return numbered(s, len, 'x', 30);
	default:
		return -1;
	}
}

int uw_bp_reg(enum uw_arch arch, const char *s, size_t len)
{
	return reg_number(arch, s, len);
}

const char *uw_bp_reg_name(enum uw_arch arch, unsigned int reg, char *buf,
			   size_t len)
{
	char pfx;

	switch (arch) {
	case UW_ARCH_X86_64:
		return reg < 17 ? x86_64_names[reg] : NULL;
	case UW_ARCH_X86:
		return reg < 9 ? x86_names[reg] : NULL;
	case UW_ARCH_ARM:
		if (reg == 13)
			return "sp";
		if (reg == 14)
			return "lr";
		if (reg == 15)
			return "pc";
		if (reg > 12)
			return NULL;
		pfx = 'r';
		break;
	case UW_ARCH_AARCH64:
		if (reg == 31)
			return "sp";
		if (reg == 32)
			return "pc";
		if (reg > 30)
			return NULL;
		pfx = 'x';
		break;
	default:
		return NULL;
	}
	if (len < 4)
		return NULL;
	buf[0] = pfx;
	if (reg >= 10) {
		buf[1] = (char)('0' + reg / 10);
		buf[2] = (char)('0' + reg % 10);
		buf[3] = '\0';
	} else {
		buf[1] = (char)('0' + reg);
		buf[2] = '\0';
	}
	return buf;
}

/* ---- the evaluator ---- */

static bool word32(const struct uw_bp_eval *ev)
{
	return ev->cfg->arch == UW_ARCH_X86 || ev->cfg->arch == UW_ARCH_ARM;
}

int uwi_bp_win_name(const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < UW_BP_NWIN; i++)
		if (same(s, len, win_names[i], 16))
			return (int)i;
	return -1;
}

/* The value of name s[0..len): a variable, .cfa, a WIN name, a register. */
static uwi_noinline int resolve(const struct uw_bp_eval *ev, const char *s,
			       size_t len, uint64_t *v)
{
	unsigned int i;
	int reg;

	for (i = ev->nvars; i > 0; i--) {
		if (ev->var_len[i - 1] == len &&
		    same(s, len, ev->var[i - 1], len)) {
			*v = ev->var_val[i - 1];
			return 0;
		}
	}
	if (ev->has_cfa && same(s, len, ".cfa", 4)) {
		*v = ev->cfa;
		return 0;
	}
	for (i = 0; ev->has_win && i < UW_BP_NWIN; i++) {
		if (same(s, len, win_names[i], 16)) {
			*v = ev->win[i];
			return 0;
		}
	}
	reg = reg_number((enum uw_arch)ev->cfg->arch, s, len);
	if (reg < 0)
		return UW_EBADDATA;	/* unknown: ".undef" among others */
	if (!ev->regs || !uw_reg_get(ev->regs, (unsigned int)reg, v))
		return UW_EREG;
	return 0;
}

/* Pop a value: a name on the stack is looked up now, as Breakpad does. */
static uwi_noinline int pop(struct uw_bp_eval *ev, uint64_t *v)
{
	unsigned int d;

	if (!ev->depth)
		return UW_EBADDATA;	/* underflow */
	d = --ev->depth;
	if (!ev->name_len[d]) {
		*v = ev->stack[d];
		return 0;
	}
	return resolve(ev, (const char *)(uintptr_t)ev->stack[d],
		       ev->name_len[d], v);
}

static int push(struct uw_bp_eval *ev, uint64_t v, unsigned int name_len)
{
	if (ev->depth >= UW_BP_STACK || name_len > 255)
		return UW_EBADDATA;	/* overflow */
	if (!name_len && word32(ev))
		v &= 0xffffffffu;
	ev->stack[ev->depth] = v;
	ev->name_len[ev->depth] = (uint8_t)name_len;
	ev->depth++;
	return 0;
}

/*
 * A literal token: decimal or 0x hexadecimal, an optional '-' first.
 * Inlined into step() as when it had no other caller (uwi_bp_literal()):
 * the walker's evaluation keeps its frame.
 */
static uwi_always_inline int literal(const char *s, size_t len, uint64_t *v)
{
	bool neg = s[0] == '-', hex;
	size_t i = neg;
	unsigned int base, d;
	uint64_t n = 0;

	hex = len >= i + 2 && s[i] == '0' &&
	      (s[i + 1] == 'x' || s[i + 1] == 'X');
	i += hex ? 2 : 0;
	base = hex ? 16 : 10;
	if (i == len)
		return UW_EBADDATA;
	for (; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned int)(s[i] - '0');
		else if (hex && s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned int)(s[i] - 'a' + 10);
		else if (hex && s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned int)(s[i] - 'A' + 10);
		else
			return UW_EBADDATA;
		/* n * base + d <= ~(uint64_t)0, without a 64-bit division */
		if (n > (hex ? ~(uint64_t)0 >> 4 : 0x1999999999999999u) ||
		    n * base > ~(uint64_t)0 - d)
			return UW_EBADDATA;
		n = n * base + d;
	}
	*v = neg ? 0 - n : n;
	return 0;
}

int uwi_bp_literal(const char *s, size_t len, uint64_t *v)
{
	return literal(s, len, v);
}

/* a / b or a % b by shifts: 32-bit targets have no 64-bit divide. */
static uwi_noinline uint64_t divmod(uint64_t a, uint64_t b, bool mod)
{
	uint64_t q = 0, r = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		r = r << 1 | (a >> i & 1);
		if (r >= b) {
			r -= b;
			q |= (uint64_t)1 << i;
		}
	}
	return mod ? r : q;
}

/* a op b for the binary operators; b was popped first. */
static int arith(char op, uint64_t a, uint64_t b, uint64_t *r)
{
	switch (op) {
	case '+': *r = a + b; return 0;
	case '-': *r = a - b; return 0;
	case '*': *r = a * b; return 0;
	case '/':
	case '%':
		if (!b)
			return UW_EBADDATA;
		*r = divmod(a, b, op == '%');
		return 0;
	default:	/* '@': align down to a power of two */
		if (!b || (b & (b - 1)))
			return UW_EBADDATA;
		*r = a & ~(b - 1);
		return 0;
	}
}

/*
 * '^': a word of the program's stack, read as the walker reads one
 * (uwi_read_word(): within the stack bounds, in place or through the
 * accessor); a word whose address would wrap is an overflow.
 */
int uwi_bp_read(struct uw_bp_eval *ev, uint64_t addr, uint64_t *v)
{
	const struct uw_walk_cfg *cfg = ev->cfg;
	unsigned int n = word32(ev) ? 4 : 8;

	if (!cfg->mem.read && !(cfg->flags & UW_WALK_DIRECT_STACK))
		return UW_EINVAL;
	if (addr > ~(uint64_t)0 - (n - 1))
		return UW_EOVERFLOW;
	return uwi_read_word(cfg, n, addr, v);
}

/* '=': the value on top goes to the $-name below it. */
static int assign(struct uw_bp_eval *ev, uint64_t v)
{
	const char *name;
	unsigned int i, len, d;

	if (!ev->depth || !ev->name_len[ev->depth - 1])
		return UW_EBADDATA;	/* "2 2 =": not a name */
	d = --ev->depth;
	name = (const char *)(uintptr_t)ev->stack[d];
	len = ev->name_len[d];
	if (name[0] != '$')
		return UW_EBADDATA;
	for (i = 0; i < ev->nvars; i++)
		if (ev->var_len[i] == len && same(name, len, ev->var[i], len))
			break;
	if (i == UW_BP_VARS)
		return UW_EBADDATA;
	if (i == ev->nvars) {
		ev->var[i] = name;
		ev->var_len[i] = (uint8_t)len;
		ev->nvars++;
	}
	ev->var_val[i] = v;
	return 0;
}

/*
 * One operator or operand t[0..n).  Operands go through ev->opnd, not
 * locals: nothing of the walker's path needs a stack slot here.
 */
static int step(struct uw_bp_eval *ev, const char *t, size_t n)
{
	uint64_t *o = ev->opnd;
	int err;

	if (n == 1 && (t[0] == '+' || t[0] == '-' || t[0] == '*' ||
		       t[0] == '/' || t[0] == '%' || t[0] == '@')) {
		err = pop(ev, &o[1]);
		if (err)
			return err;
		err = pop(ev, &o[0]);
		if (err)
			return err;
		err = arith(t[0], o[0], o[1], &o[0]);
		if (err)
			return err;
		return push(ev, o[0], 0);
	}
	if (n == 1 && (t[0] == '^' || t[0] == '=')) {
		err = pop(ev, &o[0]);
		if (err)
			return err;
		if (t[0] == '=')
			return assign(ev, o[0]);
		err = uwi_bp_read(ev, o[0], &o[0]);
		ev->derefs++;
		if (err)
			return err;
		return push(ev, o[0], 0);
	}
	if ((t[0] >= '0' && t[0] <= '9') || t[0] == '-') {
		err = literal(t, n, &o[0]);
		if (err)
			return err;
		return push(ev, o[0], 0);
	}
	return push(ev, (uint64_t)(uintptr_t)t, (unsigned int)n);
}

/*
 * Run s[0..len) up to the end of its line or a token ending in ':' (the
 * next rule's name).  expr: exactly one value must be left, which goes
 * to ev->value; else none.  Returns 0, UWI_OUTERMOST for an expression
 * that is ".undef" alone (the register cannot be recovered; for .ra, the
 * outermost frame), or an error.
 */
int uwi_bp_run(struct uw_bp_eval *ev, const char *s, size_t len, bool expr)
{
	size_t i = 0, j;
	int err;

	if (!ev->cfg)
		return UW_EINVAL;
	if (ev->cfg->arch != UW_ARCH_X86 && ev->cfg->arch != UW_ARCH_X86_64 &&
	    ev->cfg->arch != UW_ARCH_ARM && ev->cfg->arch != UW_ARCH_AARCH64)
		return UW_EARCH;
	ev->depth = 0;
	ev->nvars = 0;
	ev->derefs = 0;
	ev->ntok = 0;
	while (bp_expr_token(s, len, &i, &j)) {
		if (!ev->ntok++)
			ev->undef = j - i == 6 && same(s + i, 6, ".undef", 6);
		err = step(ev, s + i, j - i);
		if (err)
			return err;
		i = j;
	}
	if (expr && ev->undef && ev->ntok == 1)
		return UWI_OUTERMOST;
	if (ev->depth != (expr ? 1 : 0))
		return UW_EBADDATA;	/* leftover values, or none */
	return expr ? pop(ev, &ev->value) : 0;
}

int uw_bp_eval_expr(struct uw_bp_eval *ev, const char *s, size_t len,
		    uint64_t *value)
{
	int err = uwi_bp_run(ev, s, len, true);

	if (err == UWI_OUTERMOST)
		return UW_EBADDATA;	/* ".undef": a name nothing defines */
	if (!err)
		*value = ev->value;
	return err;
}

int uw_bp_eval_prog(struct uw_bp_eval *ev, const char *s, size_t len)
{
	return uwi_bp_run(ev, s, len, false);
}

int uw_bp_eval_var(const struct uw_bp_eval *ev, const char *name,
		   size_t len, uint64_t *value)
{
	unsigned int i;

	for (i = 0; i < ev->nvars; i++) {
		if (ev->var_len[i] == len && same(name, len, ev->var[i], len)) {
			*value = ev->var_val[i];
			return 0;
		}
	}
	return UW_ENOENT;
}
