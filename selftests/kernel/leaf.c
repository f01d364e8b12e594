// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * leaf: spend its time in a leaf function at the end of a known call chain
 * (main -> leaf_a -> leaf_b -> leaf_c), for perf to sample.  Usage: leaf
 * [MILLISECONDS] (default 1000).  Built with -DLEAF_SYSCALL, leaf_c() also
 * makes a getppid system call every 10000 iterations, for tracepoint
 * samples (x86-64 and AArch64).  How it is built (static or not, frame
 * pointers or not, SFrame or not) is the caller's choice: see
 * selftests/kernel/build.mk.
 *
 * The functions have names no C++ demangler reads as a type: perf 6.12
 * and later print a function called "c" as "char".
 */
#include <stdio.h>
#ifdef LEAF_SYSCALL
#include <sys/syscall.h>
#endif
#include "now.h"

static volatile unsigned long sink;

#ifdef LEAF_SYSCALL
/*
 * getppid, made here (not by libc's wrapper, which has no table): a
 * tracepoint sample's user registers are in leaf_c().
 */
static inline __attribute__((always_inline)) void leaf_getppid(void)
{
#if defined(__x86_64__)
	long r = SYS_getppid;

	__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_getppid;
	register long x0 __asm__("x0");

	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
#else
#error "leaf: LEAF_SYSCALL for x86-64 and AArch64 only"
#endif
}
#endif

/*
 * The counter lives on the stack: GCC gives a leaf function that touches no
 * stack no frame at all, even with -fno-omit-frame-pointer, and then the
 * frame-pointer chain skips leaf_b().  With it, -fno-omit-frame-pointer builds
 * give the full chain.
 */
__attribute__((noinline)) void leaf_c(void)
{
	volatile unsigned long i;

	for (i = 0; i < 100000; i++) {
		sink += i;
#ifdef LEAF_SYSCALL
		if (i % 10000 == 0)
			leaf_getppid();
#endif
	}
}

/*
 * Built with -DLEAF_ARM_B for 32-bit ARM, leaf_b() runs in ARM state and its
 * caller and callee in Thumb (-mthumb): the walk crosses both ways.
 */
#ifdef LEAF_ARM_B
__attribute__((noinline, target("arm"))) void leaf_b(void)
#else
__attribute__((noinline)) void leaf_b(void)
#endif
{
	leaf_c();
	sink++;
}

__attribute__((noinline)) void leaf_a(void)
{
	leaf_b();
	sink++;
}

int main(int argc, char **argv)
{
	printf("leaf: %lu calls of leaf_a()\n", run_for(argc, argv, leaf_a));
	return 0;
}
