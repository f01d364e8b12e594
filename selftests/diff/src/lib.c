// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* A shared library (-fPIC): PLT calls, exported and local functions. */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static NOINLINE int local_leaf(int x)
{
	return x * 5 - 1;
}

int lib_strlen_sum(const char **v, int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += (int)strlen(v[i]) + local_leaf(i);
	return s;
}

int lib_sort(int *v, size_t n, int (*cmp)(const void *, const void *))
{
	int *copy = malloc(n * sizeof(*v));

	if (!copy)
		return -1;
	memcpy(copy, v, n * sizeof(*v));
	qsort(copy, n, sizeof(*v), cmp);
	memcpy(v, copy, n * sizeof(*v));
	free(copy);
	return 0;
}

int lib_frame(int n)
{
	volatile char buf[1024];
	char *p = __builtin_alloca((size_t)n);

	memset(p, 0, (size_t)n);
	buf[n & 1023] = p[0];
	return buf[(n * 3) & 1023] + local_leaf(n) + lib_strlen_sum(0, 0);
}
