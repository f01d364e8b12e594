// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * hot: programs built as Debian builds them (plain -O2: no frame
 * pointers, no SFrame) whose hot code is in the C library, for the
 * installed-table tests.  One of these, chosen when it is built:
 *
 *   HOT_QSORT   main -> sort_once -> qsort -> ... -> cmp (the program's)
 *   HOT_MEM     main -> hot_a -> hot_b -> hot_c -> memcpy, memset
 *   HOT_MALLOC  main -> churn -> malloc, free
 *   HOT_WRITE   main -> writer -> write (to /dev/null)
 *   HOT_VDSO    main -> timeloop -> clock_gettime, gettimeofday (the vDSO)
 *   HOT_PLUG    main -> plugged -> plug_sort -> qsort -> ... -> plug_cmp,
 *               plug_* in a plugin (uwplug.c) dlopen'ed from the path its
 *               second argument names: hot-plug MILLISECONDS PLUGIN
 *   HOT_CHG     as HOT_MEM, built three ways (CHG_VARIANT 0, 1; 2 with
 *               another frame in hot_c(), so other CFI) for the test of
 *               a file that changes after its table was installed
 *
 * Every function of a chain does some work after its call, so no call
 * is a tail call.  Usage: hot-NAME [MILLISECONDS].
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "now.h"

static volatile unsigned long sink;

#if defined(HOT_QSORT)
#define N 4096
static int v[N];

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_once(void)
{
	unsigned int i, s = (unsigned int)sink;

	for (i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		v[i] = (int)(s >> 8);
	}
	qsort(v, N, sizeof(v[0]), cmp);
	sink += (unsigned long)v[N / 2];
}
#define HOT_FN sort_once

#elif defined(HOT_MEM) || defined(HOT_CHG)
#ifndef CHG_VARIANT
#define CHG_VARIANT 0
#endif
static char src[1 << 15], dst[1 << 15];
static volatile size_t len = sizeof(dst);	/* real calls, not inlined */

__attribute__((noinline)) void hot_c(void)
{
#if CHG_VARIANT == 2
	volatile char pad[200];

	pad[0] = 0;
	sink += (unsigned long)pad[0];
#endif
	int i;

	for (i = 0; i < 16; i++) {
		memcpy(dst, src, len);
		memset(src, i, len);
	}
	sink += (unsigned long)dst[CHG_VARIANT + 1];
}

__attribute__((noinline)) void hot_b(void)
{
	hot_c();
	sink += (unsigned long)src[1];
}

__attribute__((noinline)) void hot_a(void)
{
	hot_b();
	sink += (unsigned long)src[2];
}
#define HOT_FN hot_a

#elif defined(HOT_MALLOC)
#define SLOTS 256
static void *slot[SLOTS];

__attribute__((noinline)) void churn(void)
{
	unsigned int i, s = (unsigned int)sink;

	for (i = 0; i < 4096; i++) {
		s = s * 1103515245u + 12345u;
		free(slot[s % SLOTS]);
		slot[s % SLOTS] = malloc(16 + (s >> 20) % 2048);
	}
	sink += (unsigned long)slot[0];
}
#define HOT_FN churn

#elif defined(HOT_WRITE)
static int fd = -1;
static char buf[4096];

__attribute__((noinline)) void writer(void)
{
	int i;

	if (fd < 0)
		fd = open("/dev/null", O_WRONLY);
	for (i = 0; i < 64; i++)
		sink += (unsigned long)write(fd, buf, sizeof(buf));
}
#define HOT_FN writer

#elif defined(HOT_VDSO)
__attribute__((noinline)) void timeloop(void)
{
	struct timespec ts;
	struct timeval tv;
	int i;

	for (i = 0; i < 256; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		gettimeofday(&tv, NULL);
		sink += (unsigned long)ts.tv_nsec + (unsigned long)tv.tv_usec;
	}
}
#define HOT_FN timeloop

#elif defined(HOT_PLUG)
#include <dlfcn.h>
static int (*plug_sort)(void);

__attribute__((noinline)) void plugged(void)
{
	sink += (unsigned long)plug_sort();
}
#define HOT_FN plugged
#endif

int main(int argc, char **argv)
{
#ifdef HOT_PLUG
	void *h = argc > 2 ? dlopen(argv[2], RTLD_NOW) : NULL;

	plug_sort = h ? (int (*)(void))dlsym(h, "plug_sort") : NULL;
	if (!plug_sort) {
		fprintf(stderr, "%s: no plug_sort in %s\n", argv[0],
			argc > 2 ? argv[2] : "(no plugin named)");
		return 1;
	}
	argc = 2;
#endif
	printf("%s: %lu calls\n", argv[0], run_for(argc, argv, HOT_FN));
	return 0;
}
