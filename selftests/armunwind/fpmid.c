// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * One middle function of the ARM self-unwinding chain, built in ARM
 * state with frame pointers and WITHOUT unwind tables: the linker gives
 * it an EXIDX_CANTUNWIND entry (or none), so the walker must cross this
 * frame through its r11 frame record (push {fp, lr}; add fp, sp, #4).
 */
long aw_alloca(int n, long x);
long aw_fp_mid(int n, long x);

__attribute__((noinline, noclone)) long aw_fp_mid(int n, long x)
{
	volatile long pad[4];
	long r;

	pad[0] = x;
	r = aw_alloca(n, x + 1);
	/* Not a tail call: the result is used after the call returns. */
	__asm__ volatile("" : "+r"(r));
	return r + pad[0];
}
