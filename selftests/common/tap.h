/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * TAP output for the C tests (kselftest style), the C twin of tap.sh:
 * tap_begin() prints the header and, when the count is known up front,
 * the plan; ok() prints one numbered result and returns the condition,
 * tap_skip() a skipped one, diag() a comment line, and tap_done() the
 * plan (unless tap_begin printed it) with main's exit status.
 * scripts/run-tests.sh checks the plan against the results printed.
 * Header-only, for one-file test programs.
 */
#ifndef UWIND_SELFTESTS_TAP_H
#define UWIND_SELFTESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_ntests, tap_nfailed, tap_planned = -1;

/* "TAP version 13", and the plan "1..n" now if n >= 0. */
static inline void tap_begin(int n)
{
	printf("TAP version 13\n");
	if (n >= 0)
		printf("1..%d\n", n);
	tap_planned = n;
	fflush(stdout);
}

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

/* A test not run, and why: "ok N - DESC # SKIP why". */
static inline __attribute__((format(printf, 2, 3)))
void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	tap_ntests++;
	printf("ok %d - ", tap_ntests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

/* The plan, unless tap_begin() printed it, and main's status. */
static inline int tap_done(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_ntests);
	fflush(stdout);
	return tap_nfailed ? 1 : 0;
}

#endif /* UWIND_SELFTESTS_TAP_H */
