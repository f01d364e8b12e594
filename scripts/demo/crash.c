// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The demo program: a call chain built without frame pointers that ends
 * in a NULL write.  Each function keeps a frame of a different shape so a
 * frame-pointer walk has nothing to follow.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile int *volatile target;

NOINLINE static int store_result(int v)
{
	*target = v;		/* target is NULL: SIGSEGV here */
	return v;
}

NOINLINE static int checksum(const char *buf, size_t n)
{
	int sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += buf[i];
	return store_result(sum) + 1;
}

NOINLINE static int format_record(int id)
{
	char line[512];

	snprintf(line, sizeof(line), "record %d", id);
	return checksum(line, strlen(line)) + 1;
}

NOINLINE static int parse_input(int n)
{
	char *scratch = alloca(64 + n);

	memset(scratch, 'x', 64 + n);
	return format_record(scratch[n] + n) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 7;

	return parse_input(n) == 42;
}
