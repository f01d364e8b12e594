// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Build fuzz seeds from a real .sframe section (the raw bytes objcopy
 * writes), laid out as fuzz_sframe.c reads them: a 32-byte header, the
 * section, a stack image.
 *
 *   mkseed OUTPREFIX SFRAME_RAW SECTION_ADDR PC...
 *
 * writes OUTPREFIX-N for each pc (at most 16).  The stack image is a
 * plausible frame-pointer chain whose return addresses are the other
 * pcs, so walks get past the first frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_BASE	0x7ffff0000000ull
#define STACK_WORDS	256
#define MAX_SEEDS	16

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n--) {
		*p++ = (uint8_t)v;
		v >>= 8;
	}
}

int main(int argc, char **argv)
{
	static uint8_t sec[65535];
	uint8_t hdr[32], stack[STACK_WORDS * 8];
	uint64_t addr, pcs[MAX_SEEDS];
	size_t len;
	FILE *f;
	int i, npc, k;

	if (argc < 5) {
		fprintf(stderr, "usage: mkseed OUTPREFIX SFRAME ADDR PC...\n");
		return 2;
	}
	f = fopen(argv[2], "rb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	len = fread(sec, 1, sizeof(sec), f);
	if (!feof(f)) {
		fprintf(stderr, "%s: section larger than 64 KiB\n", argv[2]);
		return 1;
	}
	fclose(f);
	addr = strtoull(argv[3], NULL, 0);
	for (npc = 0; npc < MAX_SEEDS && npc + 4 < argc; npc++)
		pcs[npc] = strtoull(argv[npc + 4], NULL, 0);

	/* word 2k: saved fp (the next pair), word 2k+1: a return address */
	for (k = 0; k < STACK_WORDS; k++) {
		uint64_t w = (k & 1) ? pcs[(k / 2 + 1) % npc] + 4 :
			     STACK_BASE + 8 * (k + 2);
		put_le(stack + 8 * k, k == STACK_WORDS - 2 ? 0 : w, 8);
	}

	for (i = 0; i < npc; i++) {
		char name[4096];

		memset(hdr, 0, sizeof(hdr));
		put_le(hdr, len, 2);
		hdr[2] = (uint8_t)((i & 1) ? 0x20 : 0);	/* stack bounds */
		hdr[3] = 40;					/* max depth */
		put_le(hdr + 4, addr, 4);
		put_le(hdr + 8, (uint32_t)(pcs[i] - addr), 4);
		put_le(hdr + 12, 8 * (i % 4), 2);		/* sp */
		put_le(hdr + 14, 0, 2);				/* fp */
		put_le(hdr + 16, pcs[(i + 1) % npc] + 4, 8);	/* lr */
		snprintf(name, sizeof(name), "%s-%d", argv[1], i);
		f = fopen(name, "wb");
		if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
		    fwrite(sec, 1, len, f) != len ||
		    fwrite(stack, 1, sizeof(stack), f) != sizeof(stack) ||
		    fclose(f)) {
			perror(name);
			return 1;
		}
	}
	return 0;
}
