// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A crashing ARM program with a known call chain, for `uwind stack
 * --core` on the cores qemu-arm writes.  Built statically with unwind
 * tables (and -g, for gdb), in ARM state and in Thumb-2:
 *
 *   main -> ac_run -> ac_recurse x4 -(function pointer)-> ac_alloca ->
 *   ac_big_frame -> ac_noret -> ac_leaf (stores through NULL)
 *
 * ac_noret is noreturn and ends with its call to ac_leaf, so its return
 * address is the first byte after it.  ac_alloca keeps a frame pointer
 * (r11 in ARM state, r7 in Thumb) that its unwind entry restores sp from.
 */
#include <alloca.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline, noclone))

static volatile int g_sink;
static volatile int g_size = 64;

NOINL __attribute__((noreturn)) void ac_leaf(int n)
{
	*(volatile int *)0 = n;
	__builtin_trap();
}

NOINL __attribute__((noreturn)) void ac_noret(int n)
{
	volatile int pad[5];

	pad[0] = n;
	ac_leaf(pad[0] + 1);
}

NOINL int ac_big_frame(int n)
{
	volatile char buf[20000];

	buf[n & 0xff] = (char)n;
	if (n >= 0)
		ac_noret(n + buf[n & 0xff]);
	return buf[0];
}

NOINL int ac_alloca(int n)
{
	volatile char *p = alloca((size_t)g_size + (size_t)n);
	int r;

	p[0] = (char)n;
	r = ac_big_frame(n);
	g_sink = p[0];
	return r + 1;
}

static int (*volatile g_fn)(int) = ac_alloca;

NOINL int ac_recurse(int n)
{
	int r;

	if (n > 0)
		r = ac_recurse(n - 1);
	else
		r = g_fn(n + 2);
	g_sink = r;
	return r + 1;
}

NOINL int ac_run(int n)
{
	int r = ac_recurse(n);

	g_sink = r;
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	g_size += argc * 8;
	return ac_run(3);
}
