// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sfconv_bench FILE RUNS: time the converter (sg_convert: list the FDEs,
 * read every row with libdw, encode, read the table back with the core)
 * on an ELF file already open, RUNS times, and print the best run:
 *   cfi-bytes N sframe-bytes N best-ns N
 * Opening the file and the process's start are left out: they are not
 * the converter's.  For `make bench` (scripts/bench-sfconv.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "sframe_gen.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sg_result r;
	long long best = -1, t0, d;
	char err[160];
	int fd, i, runs;
	Elf *elf;

	if (argc != 3)
		return 2;
	runs = atoi(argv[2]);
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf)
		return 1;
	for (i = 0; i < runs; i++) {
		t0 = now_ns();
		if (sg_convert(elf, 0, &r, err, sizeof(err))) {
			fprintf(stderr, "sfconv_bench: %s\n", err);
			return 1;
		}
		d = now_ns() - t0;
		if (best < 0 || d < best)
			best = d;
		if (i + 1 < runs)
			sg_result_free(&r);
	}
	printf("cfi-bytes %llu sframe-bytes %zu best-ns %lld\n",
	       (unsigned long long)r.st.cfi_size, r.size, best);
	sg_result_free(&r);
	elf_end(elf);
	close(fd);
	return 0;
}
