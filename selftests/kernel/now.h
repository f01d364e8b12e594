/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The clock of the kernel tests' programs, which spin for a given time
 * for perf to sample them.
 */
#ifndef UWIND_KT_NOW_H
#define UWIND_KT_NOW_H

#include <stdlib.h>
#include <time.h>

static inline unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline unsigned long long now_ms(void)
{
	return now_us() / 1000;
}

/*
 * Call fn until MILLISECONDS (argv[1], default 1000) have passed; the
 * number of calls.  Always inlined: fn's caller is main() itself, as the
 * tests' expected chains say.
 */
static inline __attribute__((always_inline)) unsigned long
run_for(int argc, char **argv, void (*fn)(void))
{
	unsigned long long ms = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000;
	unsigned long long end = now_ms() + ms;
	unsigned long calls = 0;

	while (now_ms() < end) {
		fn();
		calls++;
	}
	return calls;
}

#endif /* UWIND_KT_NOW_H */
