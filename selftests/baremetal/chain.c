// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The call chain every image runs before it faults, the same for every
 * target:
 *
 *   bm_run -> bm_big_frame (4 KiB of locals) -> bm_alloca (alloca of a
 *   runtime length) -> bm_varargs (variadic) -> bm_recurse x4 (depth
 *   3, 2, 1, 0) -> bm_dispatch -(function pointer)-> bm_noret
 *   (noreturn) -> bm_fault (per target: a leaf without a frame that
 *   executes the faulting instruction).
 *
 * bm_noret ends with its call to bm_fault, so its return address is past
 * its last instruction: a walker that looked the return address up
 * instead of the call would name the next function.  Built with
 * -fno-optimize-sibling-calls so every call stays a call.
 */
#include <stdarg.h>
#include "bm.h"

#define BIG_FRAME	4096

/* Not noreturn, so bm_dispatch and bm_recurse do not look infinite. */
typedef void (*bm_end_fn)(int);

static volatile int g_alloca_len = 200;
static volatile int g_sink;

BM_NOINL BM_NORET void bm_noret(int kind)
{
	g_sink = kind;
	bm_fault(kind);
}

static bm_end_fn volatile g_end = bm_noret;

BM_NOINL int bm_dispatch(int kind)
{
	g_sink = kind + 1;
	g_end(kind);
	return g_sink;
}

BM_NOINL int bm_recurse(int kind, int depth)
{
	int r;

	if (depth == 0)
		r = bm_dispatch(kind);
	else
		r = bm_recurse(kind, depth - 1);
	BM_OPAQUE(r);
	return r + depth;
}

BM_NOINL int bm_varargs(int kind, int n, ...)
{
	va_list ap;
	int i, sum = 0, r;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		sum += va_arg(ap, int);
	va_end(ap);
	g_sink = sum;
	r = bm_recurse(kind, 3);
	BM_OPAQUE(r);
	return r + sum;
}

BM_NOINL int bm_alloca(int kind, int x)
{
	volatile char *p = __builtin_alloca((size_t)g_alloca_len);
	int r;

	p[0] = (char)x;
	p[g_alloca_len - 1] = (char)kind;
	r = bm_varargs(kind, 4, x, p[0], 3, 4);
	BM_OPAQUE(r);
	return r + p[g_alloca_len - 1];
}

BM_NOINL int bm_big_frame(int kind)
{
	volatile char buf[BIG_FRAME];
	int r;

	buf[0] = 1;
	buf[BIG_FRAME - 1] = (char)kind;
	r = bm_alloca(kind, buf[0]);
	BM_OPAQUE(r);
	return r + buf[BIG_FRAME - 1];
}

BM_NOINL BM_NORET void bm_run(int kind)
{
	int r = bm_big_frame(kind);

	BM_OPAQUE(r);
	g_sink = r;
	for (;;)
		;
}
