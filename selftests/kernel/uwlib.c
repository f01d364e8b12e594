// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The shared library of the cross-library chains: one function that calls
 * back into the program.  Built twice (selftests/kernel/build.mk):
 * libuwchain.so exports lib_enter() and carries SFrame, without frame
 * pointers; libuwfp.so exports fp_lib_func() and has frame pointers and no
 * SFrame.  LIB_FUNC names the function.
 */
#ifndef LIB_FUNC
#define LIB_FUNC lib_enter
#endif

volatile unsigned long uwlib_calls;

__attribute__((noinline)) void LIB_FUNC(void (*cb)(void))
{
	cb();
	uwlib_calls++;
}
