// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Sample code for the SFrame re-encoding test: many small functions of
 * a few shapes.  Only compiled and linked, never run.
 */
#include <stdio.h>

#include "samples.h"

int leaf_add(int a, int b)
{
	return a + b;
}

#define SHAPE_LEAF(n)	int many_##n(int x) { return x * (n) + 1; }
#define SHAPE_CALL(n)	int many_##n(int x) \
	{ return leaf_add(x, (n)) + leaf_add(x, 2 * (n)) * 3; }
#define SHAPE_FRAME(n)	int many_##n(int x) \
	{ volatile int a[(n) + 4]; a[x % ((n) + 4)] = x; \
	  printf("%d\n", a[x % ((n) + 4)]); return a[0] + (n); }
#define SHAPE_SAVE(n)	int many_##n(int x) \
	{ int a = leaf_add(x, 1), b = leaf_add(a, (n)), c = leaf_add(b, x); \
	  return leaf_add(a, b) ^ leaf_add(c, (n)); }

#define FOUR(n)	SHAPE_LEAF(n##0) SHAPE_CALL(n##1) SHAPE_FRAME(n##2) \
		SHAPE_SAVE(n##3)

FOUR(1) FOUR(2) FOUR(3) FOUR(4) FOUR(5) FOUR(6) FOUR(7) FOUR(8) FOUR(9)
FOUR(10) FOUR(11) FOUR(12) FOUR(13) FOUR(14) FOUR(15) FOUR(16) FOUR(17)
FOUR(18) FOUR(19) FOUR(20)

int (*const many_table[])(int) = {
#define REF(n)	many_##n##0, many_##n##1, many_##n##2, many_##n##3,
	REF(1) REF(2) REF(3) REF(4) REF(5) REF(6) REF(7) REF(8) REF(9)
	REF(10) REF(11) REF(12) REF(13) REF(14) REF(15) REF(16) REF(17)
	REF(18) REF(19) REF(20)
};

int call_many(int x)
{
	unsigned int i;
	int s = 0;

	for (i = 0; i < sizeof(many_table) / sizeof(many_table[0]); i++)
		s += many_table[i](x + (int)i);
	return s;
}
