// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * jitloop: code that runs in a new mapping every time, as a JIT's does:
 * each round maps an anonymous executable page, writes a counting loop
 * into it, calls it (about 100 microseconds) and unmaps it.  Every sample
 * meets a pc that no mapping the module knows covers, in a process whose
 * mappings changed: each one asks for a scan at once, and the module must
 * keep one request per process in flight, not one per sample.  x86-64 and
 * AArch64.  Usage: jitloop [MILLISECONDS] (default 1000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "now.h"

#if defined(__x86_64__)
/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char code[] = {
	0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
};
#elif defined(__aarch64__)
/* 1: subs x0, x0, #1; b.ne 1b; ret */
static const unsigned char code[] = {
	0x00, 0x04, 0x00, 0xf1, 0xe1, 0xff, 0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6,
};
#else
#error "jitloop: x86-64 and AArch64 only"
#endif

int main(int argc, char **argv)
{
	unsigned long long end = now_ms() +
		(argc > 1 ? strtoull(argv[1], NULL, 0) : 1000);
	unsigned long rounds = 0;

	while (now_ms() < end) {
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		void (*fn)(unsigned long);

		if (p == MAP_FAILED ||
		    (memcpy(p, code, sizeof(code)),
		     __builtin___clear_cache((char *)p, (char *)p + sizeof(code)),
		     mprotect(p, 4096, PROT_READ | PROT_EXEC))) {
			perror("jitloop");
			return 1;
		}
		fn = (void (*)(unsigned long))p;
		fn(100000);
		munmap(p, 4096);
		rounds++;
	}
	printf("jitloop: %lu rounds\n", rounds);
	return 0;
}
