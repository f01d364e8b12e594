// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Functions with varied frames for the differential tests: big locals,
 * alloca and VLAs, recursion, calls through function pointers, varargs,
 * setjmp, a switch-heavy function, over-aligned locals.  Built at several
 * optimisation levels; only the unwind tables matter, but it also runs.
 */
#include <alloca.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int leaf(int x)
{
	return x * 3 + 1;
}

/* Over 255 and over 65535 bytes of locals: 2- and 4-byte FRE words. */
NOINLINE int big_locals(int n)
{
	volatile char buf[4000];

	buf[n % 4000] = (char)n;
	return buf[(n * 7) % 4000] + leaf(n);
}

NOINLINE int huge_locals(int n)
{
	volatile char buf[300000];

	buf[n % 300000] = (char)n;
	return buf[(n * 13) % 300000] + big_locals(n);
}

NOINLINE int use_alloca(int n)
{
	char *p = alloca((size_t)n + 16);

	memset(p, n, (size_t)n + 16);
	return p[n / 2] + leaf(p[0]);
}

NOINLINE int use_vla(int n)
{
	int v[n + 1];
	int i, s = 0;

	for (i = 0; i <= n; i++)
		v[i] = i * n;
	for (i = 0; i <= n; i++)
		s += v[i] ^ leaf(i);
	return s;
}

NOINLINE int recurse(int n)
{
	volatile int pad[8];

	pad[n & 7] = n;
	if (n <= 0)
		return pad[0];
	return recurse(n - 1) + recurse(n - 2 > 0 ? n - 3 : 0) + pad[n & 7];
}

static int op_add(int a, int b) { return a + b; }
static int op_mul(int a, int b) { return a * b; }
static int op_sub(int a, int b) { return a - b + use_alloca(a & 31); }

NOINLINE int via_pointer(int (*const *ops)(int, int), int n)
{
	int i, acc = 1;

	for (i = 0; i < n; i++)
		acc = ops[i % 3](acc, i);
	return acc;
}

NOINLINE int sum_varargs(int count, ...)
{
	va_list ap;
	int i, s = 0;

	va_start(ap, count);
	for (i = 0; i < count; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

NOINLINE double mixed_varargs(const char *fmt, ...)
{
	va_list ap;
	double d = 0;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt == 'd')
			d += va_arg(ap, double);
		else
			d += va_arg(ap, int);
	}
	va_end(ap);
	return d;
}

static jmp_buf env;

NOINLINE void jumper(int n)
{
	if (n > 2)
		longjmp(env, n);
	sink = n;
}

NOINLINE int use_setjmp(int n)
{
	volatile int r = 0;
	int v = setjmp(env);

	if (v)
		return v + r;
	r = leaf(n);
	jumper(n);
	return r;
}

NOINLINE int switchy(int op, int a, int b)
{
	switch (op) {
	case 0: return a + b;
	case 1: return a - b;
	case 2: return a * b;
	case 3: return b ? a / b : 0;
	case 4: return b ? a % b : 0;
	case 5: return a << (b & 7);
	case 6: return a >> (b & 7);
	case 7: return a & b;
	case 8: return a | b;
	case 9: return a ^ b;
	case 10: return leaf(a) + b;
	case 11: return use_alloca(a & 63) - b;
	case 12: return recurse(a & 7) * b;
	case 13: return sum_varargs(3, a, b, a + b);
	case 14: return big_locals(a) + b;
	case 15: return -a;
	case 16: return ~b;
	case 17: return a > b;
	case 18: return a < b ? a : b;
	case 19: return a > b ? a : b;
	default: return 0;
	}
}

struct aligned64 {
	int v[16];
} __attribute__((aligned(64)));

NOINLINE int over_aligned(int n)
{
	struct aligned64 a;
	volatile struct aligned64 *p = &a;
	int i;

	for (i = 0; i < 16; i++)
		p->v[i] = n + i;
	return p->v[n & 15] + leaf(n);
}

/* Many callee-saved registers live across calls. */
NOINLINE long many_saved(long a, long b, long c, long d, long e, long f)
{
	long r = leaf((int)a);

	r += leaf((int)(b + r));
	r += leaf((int)(c * r));
	r += leaf((int)(d - r));
	r += leaf((int)(e ^ r));
	return r + a * b + c * d + e * f + leaf((int)f);
}

int main(int argc, char **argv)
{
	static int (*const ops[3])(int, int) = { op_add, op_mul, op_sub };
	int n = argc + 4, r = 0, i;

	(void)argv;
	r += huge_locals(n);
	r += use_vla(n);
	r += recurse(n);
	r += via_pointer(ops, n);
	r += sum_varargs(4, 1, 2, 3, n);
	r += (int)mixed_varargs("did", 1, 2.5, 3);
	r += use_setjmp(n);
	for (i = 0; i < 21; i++)
		r += switchy(i, n, 3);
	r += over_aligned(n);
	r += (int)many_saved(n, 2, 3, 4, 5, 6);
	printf("%d\n", r);
	return 0;
}
