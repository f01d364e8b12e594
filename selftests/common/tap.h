/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * TAP output for the C unit tests (kselftest style): ok() prints one
 * numbered result and returns the condition, diag() a comment line, and
 * tap_done() the plan, last, with the exit status.  Header-only, for
 * one-file test programs.
 */
#ifndef UWIND_SELFTESTS_TAP_H
#define UWIND_SELFTESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_ntests, tap_nfailed;

static inline __attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline __attribute__((format(printf, 2, 3)))
bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_ntests++;
	if (!cond)
		tap_nfailed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_ntests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

/* The plan (the count is known only at the end) and main's status. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_ntests);
	return tap_nfailed ? 1 : 0;
}

#endif /* UWIND_SELFTESTS_TAP_H */
