// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A program built as distributions build (plain -O2: no frame pointers,
 * no SFrame) that dies, or stops, inside a libc call:
 *
 *   crash qsort      qsort's comparator (called from inside libc) reads
 *                    through a null pointer
 *   crash memcpy     memcpy gets a bad source pointer, three calls deep
 *   crash drap       the same, called from a function that realigns its
 *                    stack (GCC's DRAP: CFA = *(rbp - 8), a FLEX rule)
 *   crash stop       the comparator stops the process (SIGSTOP) once,
 *                    for `uwind stack -p`
 *   crash vdso       writes the vDSO image it has mapped to stdout
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stop_once;

static int __attribute__((noinline)) cmp(const void *a, const void *b)
{
	const int *const *x = a, *const *y = b;

	if (stop_once) {
		stop_once = 0;
		raise(SIGSTOP);
	}
	return **x - **y;	/* one element is NULL */
}

static int __attribute__((noinline)) sort_them(int n)
{
	int *v[64], store[64], i;

	for (i = 0; i < n; i++) {
		store[i] = (i * 37) % n;
		v[i] = &store[i];
	}
	if (!stop_once)
		v[n / 2] = NULL;
	qsort(v, n, sizeof(v[0]), cmp);
	return *v[0];
}

/* Volatile: the call must stay a call into libc, not inline code. */
static volatile unsigned long bad_addr = 16;
static volatile size_t copy_len = 2000;

static int __attribute__((noinline)) copy3(char *dst, size_t n)
{
	memcpy(dst, (const void *)bad_addr, n);
	return dst[0] + 1;
}

static int __attribute__((noinline)) copy2(char *dst, size_t n)
{
	return copy3(dst, n) + 2;
}

static int __attribute__((noinline)) copy1(size_t n)
{
	char buf[4096];

	return copy2(buf, n) + buf[n - 1];
}

/* The [vdso] mapping's bytes, from /proc/self/maps, to stdout. */
static int dump_vdso(void)
{
	unsigned long lo, hi;
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		fclose(f);
		return fwrite((void *)lo, 1, hi - lo, stdout) == hi - lo ? 0 : 1;
	}
	return 1;
}

/* A VLA and an over-aligned local: GCC realigns the stack with DRAP. */
static int __attribute__((noinline)) realigned(size_t n)
{
	char vla[n];
	char buf[64] __attribute__((aligned(64)));

	memset(vla, 1, n);
	buf[0] = vla[n - 1];
	return copy2(vla, n) + buf[0];
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "qsort"))
		return sort_them(64) + 1;
	if (!strcmp(argv[1], "stop")) {
		stop_once = 1;
		printf("%d\n", sort_them(64));
		return 0;
	}
	if (!strcmp(argv[1], "memcpy"))
		return copy1(copy_len) + 1;
	if (!strcmp(argv[1], "vdso"))
		return dump_vdso();
	if (!strcmp(argv[1], "drap"))
		return realigned(copy_len) + 1;
	return 2;
}
