// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Usage errors of the command running (see uwind.h): main.c names the
 * command and its usage; every command's own code reports a usage error
 * through tool_usage(), which works without main.c too (the converter's
 * benchmark links the commands alone).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "uwind.h"

static const char *cur_name = "usage", *cur_usage;

void tool_usage_of(const char *name, const char *usage)
{
	cur_name = name;
	cur_usage = usage;
}

void tool_print_usage(FILE *f, const char *usage)
{
	const char *p = usage;
	bool first = true;

	/* "usage: " before the first form, its width before the others. */
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", (int)n,
			p);
		first = false;
		p += n + (nl ? 1 : 0);
	}
}

int tool_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uwind: %s: ", cur_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur_usage)
		tool_print_usage(stderr, cur_usage);
	return 2;
}
