// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Functions whose compact unwind encodings cover the forms clang and lld
 * write: a leaf, callee-saved registers kept across calls (frameless with
 * a register permutation, or a frame listing them), frames too large for
 * the immediate form (x86-64 frameless "indirect": the size is read from
 * the "sub"), a variable-length array (always a frame), a tail call.
 * Built as a Mach-O dylib for x86-64 and arm64, with and without frame
 * pointers; never run here.
 */
#define noinline __attribute__((noinline))

extern int ext(int);
extern void take(void *);

noinline int leaf(int x)
{
	volatile int a[10];

	a[x & 7] = x;
	return a[3] + x;
}

noinline int saves(int a, int b, int c, int d, int e, int f)
{
	int r = ext(a);

	r += ext(b) * a;
	r += ext(c) * b;
	r += ext(d) * c;
	r += ext(e) * d;
	r += ext(f) * e;
	return r + a + b + c + d + e + f;
}

noinline int saves2(int a, int b)
{
	int r = ext(a);

	r += ext(b) * a;
	return r + a * b;
}

noinline int big(int x)
{
	char buf[70000];

	take(buf);
	return buf[x] + ext(x);
}

noinline int mid(int x)
{
	char buf[5000];

	take(buf);
	return buf[x];
}

noinline int vla(int n)
{
	char buf[n];

	take(buf);
	return buf[0];
}

noinline int tail(int x)
{
	return ext(x) + 1;
}
