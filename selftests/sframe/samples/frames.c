// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Sample code for the SFrame re-encoding test: varied frame shapes.
 * Only compiled and linked, never run.
 */
#include <alloca.h>
#include <stdio.h>
#include <string.h>

#include "samples.h"

/* A big frame: needs 4-byte SFrame words. */
int big_array(int n)
{
	volatile char buf[100000];

	memset((char *)buf, n, sizeof(buf));
	return buf[n % sizeof(buf)] + leaf_add(n, 1);
}

/* A medium frame: 2-byte words. */
int medium_array(int n)
{
	volatile int buf[1000];
	int i;

	for (i = 0; i < 1000; i++)
		buf[i] = i * n;
	return buf[n % 1000] + big_array(n + 1);
}

/* alloca: the CFA moves to the frame pointer on x86-64. */
int use_alloca(int n)
{
	char *p = alloca((size_t)n * 16 + 1);

	memset(p, 'a', (size_t)n * 16);
	p[n * 16] = 0;
	return (int)strlen(p) + medium_array(n);
}

/* A variable-length array in a recursive function. */
int recurse(int n)
{
	char vla[n + 8];

	vla[0] = (char)n;
	snprintf(vla, sizeof(vla), "%d", n);
	if (n <= 0)
		return vla[0];
	return recurse(n - 1) + vla[0] + use_alloca(n);
}

static int cb_a(int x)
{
	return recurse(x) * 3;
}

static int cb_b(int x)
{
	volatile long pad[40];

	pad[x % 40] = x;
	return (int)pad[x % 40] + cb_a(x + 1);
}

int (*const callbacks[])(int) = { cb_a, cb_b };

/* Calls through function pointers, in a loop. */
int call_all(int n)
{
	int s = 0;
	unsigned int i;

	for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++)
		s += callbacks[i](n + (int)i);
	return s;
}
