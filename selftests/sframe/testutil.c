// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Helpers shared by the SFrame test programs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "testutil.h"

uint8_t *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL, *np;
	size_t cap = 0, n;

	if (!f)
		return NULL;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 65536;
			np = realloc(p, cap);
			if (!np)
				goto fail;
			p = np;
		}
		n = fread(p + *len, 1, cap - *len, f);
		if (!n)
			break;
		*len += n;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	return p;
fail:
	free(p);
	fclose(f);
	return NULL;
}

int tu_parse_addr(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || !*s || *end) ? -1 : 0;
}

bool tu_rule_eq(const struct uw_rule *a, const struct uw_rule *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case UW_RULE_CFA_OFF:
		return a->off == b->off;
	case UW_RULE_REG:
		return a->reg == b->reg;
	case UW_RULE_REG_OFF:
	case UW_RULE_REG_DEREF:
		return a->reg == b->reg && a->off == b->off;
	default:
		return true;
	}
}
