// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * chain_fp_mid, the middle function of the self-unwinding chain
 * (chain.h) that the tables do not describe: built with frame pointers
 * and WITHOUT unwind tables (no --gsframe on x86-64 and AArch64; on ARM
 * in ARM state, where the linker gives it an EXIDX_CANTUNWIND entry or
 * none, with its r11 frame record: push {fp, lr}; add fp, sp, #4).  The
 * walker must cross this frame with the frame-pointer fallback and pick
 * the tables up again in its caller.
 */
typedef long chain_next_fn(int n, long x);
long chain_fp_mid(int n, long x, chain_next_fn *next);

__attribute__((noinline, noclone)) long chain_fp_mid(int n, long x,
							 chain_next_fn *next)
{
	volatile long pad[4];
	long r;

	pad[0] = x;
	r = next(n, x + 1);
	/* Not a tail call: the result is used after the call returns. */
	__asm__ volatile("" : "+r"(r));
	return r + pad[0];
}
