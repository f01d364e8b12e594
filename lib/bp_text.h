/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Reading Breakpad symbol text in place: lines, tokens and numbers, every
 * access checked against the text's size.  A line ends at '\n' or at the
 * end of the text; fields are separated by spaces, tabs or '\r'.
 */
#ifndef UWIND_LIB_BP_TEXT_H
#define UWIND_LIB_BP_TEXT_H

#include <uwind/uwind.h>
#include "compiler.h"

/* Kinds of line (uwi_bp_line_kind()). */
enum { L_OTHER, L_INIT, L_CFI, L_WIN, L_MODULE };

static uwi_always_inline bool bp_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Offset of the '\n' ending the line at off (or the text's size). */
static inline uint64_t bp_eol(const struct uw_span *t, uint64_t off)
{
	while (off < t->size && t->data[off] != '\n')
		off++;
	return off;
}

/* Start of the line after the one at off. */
static inline uint64_t bp_next_line(const struct uw_span *t, uint64_t off)
{
	off = bp_eol(t, off);
	return off < t->size ? off + 1 : off;
}

/* Does the text at off (before end) start with the len bytes of s? */
static uwi_always_inline bool bp_prefix(const struct uw_span *t, uint64_t off,
			     uint64_t end, const char *s, size_t len)
{
	size_t i;

	if (off > end || end - off < len)
		return false;
	for (i = 0; i < len; i++)
		if (t->data[off + i] != (uint8_t)s[i])
			return false;
	return true;
}

/* Skip blanks from *off; then the token is [*off, return value). */
static uwi_always_inline uint64_t bp_token(const struct uw_span *t,
					  uint64_t *off, uint64_t end)
{
	uint64_t p;

	while (*off < end && bp_space((char)t->data[*off]))
		(*off)++;
	p = *off;
	while (p < end && !bp_space((char)t->data[p]))
		p++;
	return p;
}

/*
 * The next rule of a rule set "name: expr name: expr ..." at *q, before
 * end: 0 with its name in [*name, *expr - 1) and its expression from
 * *expr (up to the next name), *q moved to that name; UW_ENOENT at the
 * end; UW_EBADDATA for an expression before any name, a name that is
 * only ':', or one without an expression.  Inlined for the walker's
 * stack.
 */
static uwi_always_inline int bp_next_rule(const struct uw_span *t,
					 uint64_t *q, uint64_t end,
					 uint64_t *name, uint64_t *expr)
{
	uint64_t e = bp_token(t, q, end), p;
	unsigned int n = 0;

	if (e == *q)
		return UW_ENOENT;
	if (t->data[e - 1] != ':' || e - *q < 2)
		return UW_EBADDATA;
	*name = *q;
	*expr = e;
	for (;; n = 1) {
		p = e;
		e = bp_token(t, &p, end);
		if (e == p || t->data[e - 1] == ':')
			break;
	}
	*q = p;
	return n ? 0 : UW_EBADDATA;
}

/*
 * The next token of an expression s[0..len) from *i: [*i, *j); false at
 * the expression's end (of s, of its line, or a token ending in ':', the
 * next rule's name).
 */
static uwi_always_inline bool bp_expr_token(const char *s, size_t len,
					   size_t *i, size_t *j)
{
	while (*i < len && bp_space(s[*i]))
		(*i)++;
	for (*j = *i; *j < len && !bp_space(s[*j]) && s[*j] != '\n'; (*j)++)
		;
	return *j != *i && s[*j - 1] != ':';
}

/*
 * A hexadecimal field (no prefix, at most 16 digits) at *off: inlined
 * where the walker's search runs (its pointers then cost no stack), out
 * of line (uwi_bp_hex, breakpad.c) everywhere else.
 */
static uwi_always_inline int bp_hex(const struct uw_span *t, uint64_t *off,
				   uint64_t end, uint64_t *v)
{
	uint64_t p = bp_token(t, off, end), q;
	uint8_t c;

	if (p == *off || p - *off > 16)
		return UW_EBADDATA;
	*v = 0;
	for (q = *off; q < p; q++) {
		c = t->data[q];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return UW_EBADDATA;
		*v = *v << 4 | c;
	}
	*off = p;
	return 0;
}

int uwi_bp_hex(const struct uw_span *t, uint64_t *off, uint64_t end,
	      uint64_t *v);

/* The kind of the line [off, end); *rest: where its fields start. */
int uwi_bp_line_kind(const struct uw_span *t, uint64_t off, uint64_t end,
		     uint64_t *rest);

/*
 * The fields of the STACK WIN line at w->off, as a lookup reads them
 * (breakpad.c): 0, or UW_EBADDATA.
 */
int uwi_bp_win_fields(const struct uw_bp *bp, struct uw_bp_win *w);

/* A literal token: decimal or 0x hexadecimal, an optional '-' first. */
int uwi_bp_literal(const char *s, size_t len, uint64_t *v);

/* The index of a STACK WIN name (&enum uw_bp_win_name), or -1. */
int uwi_bp_win_name(const char *s, size_t len);


/*
 * Evaluate s[0..len) up to its line's end or a "name:" token; expr: one
 * value left (in ev->value), else none.  0, UWI_OUTERMOST when the
 * expression is ".undef" (no value: for .ra, the outermost frame), or an
 * error (breakpad_eval.c).
 */
int uwi_bp_run(struct uw_bp_eval *ev, const char *s, size_t len, bool expr);

/*
 * A word of program memory (4 or 8 bytes as the architecture's), read
 * through the accessor within the stack bounds, via ev->buf.
 */
int uwi_bp_read(struct uw_bp_eval *ev, uint64_t addr, uint64_t *v);

#endif /* UWIND_LIB_BP_TEXT_H */
