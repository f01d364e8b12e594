// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * chain: a call chain that leaves the program for a shared library and
 * comes back: main -> LIB_FUNC (in the library) -> chain_cb -> chain_leaf,
 * where the time is spent.  Usage: chain [MILLISECONDS [LIBRARY [WAIT]]].
 *
 * LIB_FUNC is lib_enter (libuwchain.so, SFrame) or fp_lib_func (libuwfp.so,
 * frame pointers, no SFrame).  Built with CHAIN_DLOPEN the library is not
 * linked but dlopen'ed at run time: LIBRARY, by default
 * /root/lib/libuwchain.so (where the test guest keeps it), after WAIT
 * milliseconds spent in main (0 by default), so that a test can have the
 * process known to the module before the library appears.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef CHAIN_DLOPEN
#include <dlfcn.h>
#endif
#include "now.h"

#ifndef LIB_FUNC
#define LIB_FUNC lib_enter
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

static volatile unsigned long sink;

__attribute__((noinline)) void chain_leaf(void)
{
	volatile unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) void chain_cb(void)
{
	chain_leaf();
	sink++;
}

#ifndef CHAIN_DLOPEN
void LIB_FUNC(void (*cb)(void));
#endif

int main(int argc, char **argv)
{
	unsigned long long ms = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000;
	unsigned long long start = now_ms(), end = start + ms, calls = 0;
	void (*enter)(void (*)(void));

#ifdef CHAIN_DLOPEN
	const char *path = argc > 2 ? argv[2] : "/root/lib/libuwchain.so";
	unsigned long long wait = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	void *h;

	while (now_ms() < start + wait)
		sink++;
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "chain: %s\n", dlerror());
		return 1;
	}
	*(void **)&enter = dlsym(h, STR(LIB_FUNC));
	if (!enter) {
		fprintf(stderr, "chain: %s\n", dlerror());
		return 1;
	}
#else
	enter = LIB_FUNC;
#endif
	while (now_ms() < end) {
		enter(chain_cb);
		calls++;
	}
	printf("chain: %llu calls of %s()\n", calls, STR(LIB_FUNC));
	return 0;
}
