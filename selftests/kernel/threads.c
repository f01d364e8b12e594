// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * threads: NTHREADS threads each spending its time at the end of the same
 * chain, worker -> thr_x -> thr_y -> spin.  Usage: threads
 * [MILLISECONDS].  Prints each thread's id and call count.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "now.h"

#define NTHREADS 4

static unsigned long long end_ms;

__attribute__((noinline)) void spin(volatile unsigned long *sink)
{
	volatile unsigned long i;

	for (i = 0; i < 100000; i++)
		*sink += i;
}

__attribute__((noinline)) void thr_y(volatile unsigned long *sink)
{
	spin(sink);
	(*sink)++;
}

__attribute__((noinline)) void thr_x(volatile unsigned long *sink)
{
	thr_y(sink);
	(*sink)++;
}

struct worker_arg {
	unsigned long calls;
	pid_t tid;
};

__attribute__((noinline)) void *worker(void *p)
{
	struct worker_arg *w = p;
	volatile unsigned long sink = 0;

	w->tid = gettid();
	while (now_ms() < end_ms) {
		thr_x(&sink);
		w->calls++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker_arg args[NTHREADS] = { { 0 } };
	pthread_t t[NTHREADS];
	int i;

	end_ms = now_ms() + (argc > 1 ? strtoull(argv[1], NULL, 0) : 1000);
	for (i = 0; i < NTHREADS; i++) {
		if (pthread_create(&t[i], NULL, worker, &args[i])) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NTHREADS; i++)
		printf("threads: tid %d: %lu calls\n", (int)args[i].tid,
		       args[i].calls);
	return 0;
}
