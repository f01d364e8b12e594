// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * leaf: spend its time in a leaf function at the end of a known call chain
 * (main -> a -> b -> c), for perf to sample.  Usage: leaf [MILLISECONDS]
 * (default 1000).  Built with -DLEAF_SYSCALL, c() also makes a getppid
 * system call every 10000 iterations, for tracepoint samples.  How it is
 * built (static or not, frame pointers or not, SFrame or not) is the
 * caller's choice: see selftests/kernel/build.mk.
 */
#include <stdio.h>
#ifdef LEAF_SYSCALL
#include <sys/syscall.h>
#endif
#include "now.h"

static volatile unsigned long sink;

/*
 * The counter lives on the stack: GCC gives a leaf function that touches no
 * stack no frame at all, even with -fno-omit-frame-pointer, and then the
 * frame-pointer chain skips b().  With it, -fno-omit-frame-pointer builds
 * give the full chain.
 */
__attribute__((noinline)) void c(void)
{
	volatile unsigned long i;

	for (i = 0; i < 100000; i++) {
		sink += i;
#ifdef LEAF_SYSCALL
		/*
		 * getppid, from c() itself (not libc's wrapper, which has no
		 * table): a tracepoint sample's user registers are here.
		 */
		if (i % 10000 == 0) {
			long r = SYS_getppid;

			__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11",
					 "memory");
		}
#endif
	}
}

__attribute__((noinline)) void b(void)
{
	c();
	sink++;
}

__attribute__((noinline)) void a(void)
{
	b();
	sink++;
}

int main(int argc, char **argv)
{
	printf("leaf: %lu calls of a()\n", run_for(argc, argv, a));
	return 0;
}
