// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A small program whose unwind tables `uwind verify` checks: a few
 * functions with frames of different shapes, built for x86-64 with
 * SFrame and for 32-bit ARM with EHABI (selftests/core/build.mk).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + sink;
}

__attribute__((noinline)) static int mid(int x)
{
	volatile char buf[64];

	buf[x & 63] = (char)x;
	return leaf(x) + buf[(x + 1) & 63];
}

__attribute__((noinline)) static int top(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += mid(i);
	return s;
}

int main(int argc, char **argv)
{
	printf("%d\n", top(argc > 1 ? atoi(argv[1]) : 3));
	return 0;
}
