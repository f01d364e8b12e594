// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * deep: spend its time in a leaf DEPTH calls below main(), for the kernel
 * benchmark (scripts/bench-kernel.sh) and the walk time limit's test.
 * Usage: deep DEPTH[,DEPTH...] [MILLISECONDS] (default 1000).  With
 * several depths, each descent takes the next one, in turn: one run then
 * has samples at every depth, taken in the same stretch of time.
 *
 * main -> f00 -> f01 -> ... -> leaf (descend() is inlined into main):
 * DEPTH calls of 128 distinct functions, each calling the next one (f7f
 * the first again) through a table, so that a stack of up to 128 of them
 * has that many distinct return addresses (a recursion would have one,
 * and flatter a cache).
 * How it is built (frame pointers or SFrame) is the caller's choice:
 * see selftests/kernel/build.mk.
 */
#include <stdio.h>
#include <stdlib.h>
#include "now.h"

#define NFUNCS	128

#define MAXDEPTHS	16

static volatile unsigned long sink;
static unsigned long depths[MAXDEPTHS];
static unsigned int ndepths, next_depth;

typedef void fn_t(unsigned long d);
static fn_t *const funcs[NFUNCS];

/*
 * The counter lives on the stack: a frame-pointer build then gives the
 * leaf a frame too (see leaf.c).
 */
static __attribute__((noinline)) void leaf(void)
{
	volatile unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

/*
 * Function ID: the leaf at depth 0, else function ID + 1 at d - 1.  The
 * empty asm hides which function that is from the compiler, which would
 * otherwise call it directly and fold all 128 into one.
 */
#define F(id)								\
	static __attribute__((noinline)) void f##id(unsigned long d)	\
	{								\
		fn_t *next = funcs[(0x##id + 1) % NFUNCS];		\
									\
		__asm__("" : "+r"(next));				\
		if (d == 0)						\
			leaf();						\
		else							\
			next(d - 1);					\
		sink++;							\
	}
#define F16(h)	F(h##0) F(h##1) F(h##2) F(h##3) F(h##4) F(h##5) F(h##6) \
		F(h##7) F(h##8) F(h##9) F(h##a) F(h##b) F(h##c) F(h##d) \
		F(h##e) F(h##f)
F16(0) F16(1) F16(2) F16(3) F16(4) F16(5) F16(6) F16(7)

#define P(id)	f##id,
#define P16(h)	P(h##0) P(h##1) P(h##2) P(h##3) P(h##4) P(h##5) P(h##6) \
		P(h##7) P(h##8) P(h##9) P(h##a) P(h##b) P(h##c) P(h##d) \
		P(h##e) P(h##f)
static fn_t *const funcs[NFUNCS] = {
	P16(0) P16(1) P16(2) P16(3) P16(4) P16(5) P16(6) P16(7)
};

/* DEPTH calls: f00 at depth - 1, ..., the leaf called at 0. */
static void descend(void)
{
	unsigned long depth = depths[next_depth];

	next_depth = (next_depth + 1) % ndepths;
	if (depth)
		f00(depth - 1);
	else
		leaf();
}

int main(int argc, char **argv)
{
	char *p = argc > 1 ? argv[1] : "";

	while (*p && ndepths < MAXDEPTHS) {
		depths[ndepths++] = strtoul(p, &p, 0);
		if (*p == ',')
			p++;
	}
	if (!ndepths || *p) {
		fprintf(stderr, "usage: deep DEPTH[,DEPTH...] [MILLISECONDS]\n");
		return 2;
	}
	printf("deep: %u depths, %lu descents\n", ndepths,
	       run_for(argc - 1, argv + 1, descend));
	return 0;
}
