// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * pagedrop: a thread whose callers' stack pages are never present when a
 * sample comes.  The thread runs on a stack that is a shared memory file
 * (memfd), pd_worker -> pd_a -> pd_b -> pd_c; pd_b() keeps 16 KiB of
 * locals, so pd_c()'s frame lies pages below its callers'.  pd_c() spins
 * and, every 50 microseconds, drops the page table entries of the stack
 * above its own frame (madvise MADV_DONTNEED: the pages stay in the file,
 * and the next access faults them back in).  A walk that must not fault
 * (perf's NMI, the module's hook) cannot read pd_b()'s frame; one that
 * may fault (the deferred walk of Linux 7.x, at the task's return to user
 * space) faults the page in and goes on.  Usage: pagedrop [MILLISECONDS]
 * (default 1000).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "now.h"

#define STACK_SIZE	(1 << 20)

static volatile unsigned long sink;
static unsigned long long end_ms;
static uintptr_t stack_top;
static unsigned long drops;

__attribute__((noinline)) void pd_c(void)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	volatile unsigned long here = 0;
	/* The pages above the one after this frame's: the callers'. */
	uintptr_t from = ((uintptr_t)&here + 2 * page) & ~(page - 1);
	unsigned long long next = now_us();
	unsigned long i;

	while (now_ms() < end_ms) {
		for (i = 0; i < 1000; i++)
			sink += i + here;
		if (now_us() < next)
			continue;
		next = now_us() + 50;
		if (from < stack_top &&
		    !madvise((void *)from, stack_top - from, MADV_DONTNEED))
			drops++;
	}
}

__attribute__((noinline)) void pd_b(void)
{
	volatile char pad[16384];

	pad[0] = 1;
	pad[sizeof(pad) - 1] = 2;
	pd_c();
	sink += pad[0] + pad[sizeof(pad) - 1];
}

__attribute__((noinline)) void pd_a(void)
{
	pd_b();
	sink++;
}

__attribute__((noinline)) void *pd_worker(void *arg)
{
	(void)arg;
	pd_a();
	sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t t;
	void *stack;
	int fd;

	end_ms = now_ms() + (argc > 1 ? strtoull(argv[1], NULL, 0) : 1000);
	fd = memfd_create("pagedrop-stack", 0);
	if (fd < 0 || ftruncate(fd, STACK_SIZE)) {
		perror("pagedrop: memfd");
		return 1;
	}
	stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		     0);
	if (stack == MAP_FAILED) {
		perror("pagedrop: mmap");
		return 1;
	}
	stack_top = (uintptr_t)stack + STACK_SIZE;
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstack(&attr, stack, STACK_SIZE) ||
	    pthread_create(&t, &attr, pd_worker, NULL) ||
	    pthread_join(t, NULL)) {
		fprintf(stderr, "pagedrop: the thread failed\n");
		return 1;
	}
	printf("pagedrop: %lu drops\n", drops);
	return 0;
}
