// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * swap: dlopen libuwswapa.so and spin in it until SIGUSR1; then dlclose
 * it, dlopen libuwswapb.so (the same size: it lands where A was, with as
 * many mappings) and spin in that until SIGTERM (or 30 s): main -> spin
 * -> swapb_enter -> swapb_leaf.  The test samples A, swaps while nothing
 * samples (so no sample sees the mappings change), then samples B: the
 * module must notice that the mapping now holds another file, or it
 * unwinds B with A's table.  Usage: swap [LIBDIR].  Exits 2 if B did not
 * land at A's address (the test would prove nothing).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "now.h"

static volatile sig_atomic_t next_phase;

static void on_signal(int sig)
{
	(void)sig;
	next_phase = 1;
}

/* dlopen lib, find fn; the library's load address in *base. */
static void *open_fn(const char *dir, const char *lib, const char *fn,
		     void **h, unsigned long *base)
{
	struct link_map *lm;
	char path[512];
	void *f;

	snprintf(path, sizeof(path), "%s/%s", dir, lib);
	*h = dlopen(path, RTLD_NOW);
	if (!*h || dlinfo(*h, RTLD_DI_LINKMAP, &lm)) {
		fprintf(stderr, "swap: %s: %s\n", path, dlerror());
		exit(1);
	}
	*base = lm->l_addr;
	f = dlsym(*h, fn);
	if (!f) {
		fprintf(stderr, "swap: %s\n", dlerror());
		exit(1);
	}
	return f;
}

/* Call fn until the next signal, or for 30 s. */
static __attribute__((noinline, noclone))
unsigned long long spin(long (*fn)(long))
{
	unsigned long long end = now_ms() + 30000, calls = 0;

	next_phase = 0;
	while (!next_phase && now_ms() < end) {
		fn(100000);
		calls++;
	}
	return calls;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/root/lib";
	unsigned long base_a, base_b;
	long (*fn)(long);
	void *h;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGUSR1, on_signal);
	signal(SIGTERM, on_signal);
	*(void **)&fn = open_fn(dir, "libuwswapa.so", "swapa_enter", &h,
				&base_a);
	spin(fn);
	dlclose(h);
	*(void **)&fn = open_fn(dir, "libuwswapb.so", "swapb_enter", &h,
				&base_b);
	printf("swap: A at 0x%lx, B at 0x%lx\n", base_a, base_b);
	if (base_a != base_b)
		return 2;
	spin(fn);
	return 0;
}
