// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * One middle function of the self-unwinding chain, built WITHOUT
 * --gsframe and WITH frame pointers: the program's SFrame table has no
 * FDE for it, so the walker must cross this frame with the frame-pointer
 * fallback and pick SFrame up again in its caller.
 */
long sw_recurse(int n, long x);
long sw_fp_mid(int n, long x);

__attribute__((noinline, noclone)) long sw_fp_mid(int n, long x)
{
	volatile long pad[4];
	long r;

	pad[0] = x;
	r = sw_recurse(n, x + 1);
	/* Not a tail call: the result is used after the call returns. */
	__asm__ volatile("" : "+r"(r));
	return r + pad[0];
}
