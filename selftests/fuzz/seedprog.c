// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A small program whose SFrame table seeds the fuzzer: functions with
 * and without frames, big and variable-sized frames, calls through a
 * pointer and a tail call, so the table holds varied FREs.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int sink;

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + sink;
}

__attribute__((noinline)) static int big(int x)
{
	volatile char buf[4096];

	memset((char *)buf, x, sizeof(buf));
	return buf[x & 4095] + leaf(x);
}

__attribute__((noinline)) static int dyn(int n)
{
	char *p = alloca((size_t)n + 16);

	memset(p, 1, (size_t)n + 16);
	return p[n] + big(n);
}

__attribute__((noinline)) static int rec(int n)
{
	if (n <= 0)
		return dyn(sink + 8);
	return rec(n - 1) + n;
}

static int (*volatile fnptr)(int) = rec;

__attribute__((noinline)) int chain(int n)
{
	return fnptr(n) + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", chain(argc + 2));
	return 0;
}
