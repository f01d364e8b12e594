// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The program the tool's own tests read, unwind and crash (selftests/tool):
 * built -O2 -g with SFrame, so it has tables, symbols, DWARF with inline
 * scopes, and main in .text.startup (two text sections in its object file).
 *
 *   target segv ADDR   writes to ADDR (hex): SIGSEGV, fault address ADDR,
 *                      in store(), an always-inline function of poke()
 *   target abort       abort() from sort_them()'s comparator, called by
 *                      libc's qsort: frames in libc's static functions
 *   target stop        three threads: the main one and two workers stop
 *                      the process (SIGSTOP) from their leaf functions
 *   target badret      frame(), whose frame pointer record is overwritten
 *                      (return address 0x1234, caller's record NULL), then
 *                      writes through NULL: the walk's last pc lies
 *                      outside every mapping
 *
 * The pid is printed first.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

static volatile int sink;
static volatile int ready;
static volatile unsigned long null_addr;

static inline __attribute__((always_inline)) void store(unsigned long addr,
							 int v)
{
	*(volatile int *)addr = v;
}

noinline int poke(unsigned long addr, int v)
{
	store(addr, v);
	return v + 1;
}

noinline int cmp(const void *a, const void *b)
{
	if (*(const int *)a == 7)
		abort();
	return *(const int *)a - *(const int *)b;
}

noinline int sort_them(void)
{
	int v[16], i;

	for (i = 0; i < 16; i++)
		v[i] = (i * 7) % 16;
	qsort(v, 16, sizeof(v[0]), cmp);
	return v[0];
}

noinline int worker_leaf(int n)
{
	__sync_fetch_and_add(&ready, 1);
	while (sink >= 0)
		sink = n;
	return n;
}

noinline void *worker(void *arg)
{
	sink = worker_leaf(arg != NULL);
	return NULL;
}

noinline int stop_leaf(int n)
{
	while (ready < 2)
		;
	raise(SIGSTOP);
	return n;
}

noinline int frame(void)
{
	void **fp = __builtin_frame_address(0);

	fp[0] = NULL;
	fp[1] = (void *)0x1234;
	store(null_addr, 1);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "stop";
	pthread_t t[2];

	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (!strcmp(mode, "segv"))
		return poke(strtoul(argc > 2 ? argv[2] : "10", NULL, 16), 1);
	if (!strcmp(mode, "abort"))
		return sort_them();
	if (!strcmp(mode, "badret"))
		return frame();
	if (pthread_create(&t[0], NULL, worker, NULL) ||
	    pthread_create(&t[1], NULL, worker, t))
		return 1;
	return stop_leaf(argc);
}
