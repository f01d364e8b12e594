// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memloop: a program whose hot loop is in the C library's memcpy, for
 * the test of where walks break: main -> a -> b -> copy -> memcpy, the
 * program with SFrame, Debian's libc without.  Walks break in libc, in
 * the middle of the chain.  Usage: memloop [MILLISECONDS].
 */
#include <stdio.h>
#include <string.h>
#include "now.h"

static char src[1 << 16], dst[1 << 16];
static volatile size_t len = sizeof(dst);	/* a real call, not inlined */

__attribute__((noinline)) void copy(void)
{
	int i;

	for (i = 0; i < 64; i++)
		memcpy(dst, src, len);
}

__attribute__((noinline)) void mem_b(void)
{
	copy();
	src[0]++;
}

__attribute__((noinline)) void mem_a(void)
{
	mem_b();
	src[1]++;
}

int main(int argc, char **argv)
{
	printf("memloop: %lu calls of mem_a()\n", run_for(argc, argv, mem_a));
	return 0;
}
