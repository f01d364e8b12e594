// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fpjunk: a frame-pointer guess that is not a frame.  main() calls
 * spin_junk(), written in assembly without CFI (so without SFrame),
 * which points %rbp at a record on main's stack whose "return address"
 * is the record's own (stack, not code) address, and spins there.  The
 * frame-pointer fallback at spin_junk's pc reads that record: a return
 * address outside every executable mapping, which must end the walk
 * rather than be reported as a frame.  Usage: fpjunk [MILLISECONDS].
 */
#include <stdint.h>
#include <stdio.h>
#include "now.h"

void spin_junk(volatile uint64_t *rec, unsigned long n);

__asm__(".text\n"
	".globl spin_junk\n"
	".type spin_junk, @function\n"
	"spin_junk:\n"
	"	push %rbp\n"
	"	mov %rdi, %rbp\n"
	"1:	dec %rsi\n"
	"	jnz 1b\n"
	"	pop %rbp\n"
	"	ret\n"
	".size spin_junk, .-spin_junk\n");

int main(int argc, char **argv)
{
	unsigned long long end = now_ms() + (argc > 1 ?
					    strtoull(argv[1], NULL, 0) : 1000);
	unsigned long calls = 0;
	volatile uint64_t rec[2];

	rec[0] = 0;			/* the "caller's frame pointer" */
	rec[1] = (uintptr_t)rec;	/* the "return address": the stack */
	while (now_ms() < end) {
		spin_junk(rec, 1000000);
		calls++;
	}
	printf("fpjunk: %lu calls of spin_junk()\n", calls);
	return 0;
}
