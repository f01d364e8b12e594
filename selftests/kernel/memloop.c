// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memloop: a program whose hot loop is in the C library's memcpy, for
 * the test of where walks break: main -> a -> b -> copy -> memcpy, the
 * program with SFrame, Debian's libc without.  Walks break in libc, in
 * the middle of the chain.  Usage: memloop [MILLISECONDS].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char src[1 << 16], dst[1 << 16];
static volatile size_t len = sizeof(dst);	/* a real call, not inlined */

static unsigned long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) void copy(void)
{
	int i;

	for (i = 0; i < 64; i++)
		memcpy(dst, src, len);
}

__attribute__((noinline)) void b(void)
{
	copy();
	src[0]++;
}

__attribute__((noinline)) void a(void)
{
	b();
	src[1]++;
}

int main(int argc, char **argv)
{
	unsigned long ms = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	unsigned long end = now_ms() + ms, calls = 0;

	while (now_ms() < end) {
		a();
		calls++;
	}
	printf("memloop: %lu calls of a()\n", calls);
	return 0;
}
