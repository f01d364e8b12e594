// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Varied frames for the EHABI differential test: big locals, alloca,
 * recursion, varargs, many callee-saved registers, cleanups. */
#include <alloca.h>
#include <stdarg.h>
#include <string.h>

volatile int sink;

__attribute__((noinline)) int small_locals(int n)
{
	volatile char buf[200];

	buf[n & 127] = (char)n;
	return buf[n & 63];
}

__attribute__((noinline)) int big_locals(int n)
{
	volatile char buf[70000];

	buf[n & 0xffff] = (char)n;
	return buf[(n * 7) & 0xffff];
}

__attribute__((noinline)) int huge_locals(int n)
{
	volatile char buf[3000000];

	buf[n & 0xfffff] = (char)n;
	return buf[(n * 3) & 0xfffff];
}

__attribute__((noinline)) int use_alloca(int n)
{
	char *p = alloca((size_t)n + 16);

	memset(p, n, (size_t)n + 16);
	sink = p[n];
	return p[0];
}

__attribute__((noinline)) int recurse(int n)
{
	if (n <= 0)
		return sink;
	return recurse(n - 1) + n;
}

__attribute__((noinline)) int sum_varargs(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) int ext(int a)
{
	sink = a;
	return sink;
}

/* Values live across calls: every callee-saved core register. */
__attribute__((noinline)) int many_regs(int a, int b, int c, int d)
{
	int e = ext(a) + b, f = ext(b) * c, g = ext(c) ^ d, h = ext(d) - a;
	int i = ext(e) + f, j = ext(f) * g, k = ext(g) + h, l = ext(h) + i;

	return ext(a + b + c + d + e + f + g + h + i + j + k + l) +
	       a * b * c * d * e * f * g * h * i * j * k * l;
}

int ext_other(int a);	/* vfp.c: may throw, for all GCC knows */

static void release(int *p)
{
	sink = *p;
}

/* A cleanup: with -fexceptions, a generic entry and __gcc_personality_v0. */
__attribute__((noinline)) int with_cleanup(int n)
{
	int x __attribute__((cleanup(release))) = n;

	ext_other(n);
	return x + 1;
}
