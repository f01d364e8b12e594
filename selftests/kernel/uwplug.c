// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwplug: a plugin built as a distribution builds a library (plain -O2,
 * no frame pointers, no SFrame), which hot-plug (hot.c) dlopen's from
 * wherever the test put it: its hot code is libc's qsort calling back
 * into it, so a whole chain runs plugin -> libc -> plugin -> program.
 */
#include <stdlib.h>

#define N 4096
static int v[N];
static unsigned int seed = 1;

__attribute__((noinline)) static int plug_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) int plug_sort(void)
{
	unsigned int i;

	for (i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (int)(seed >> 8);
	}
	qsort(v, N, sizeof(v[0]), plug_cmp);
	return v[N / 2];
}
