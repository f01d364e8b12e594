// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sfmutate SEED IN OUT: copy the ELF file IN to OUT with a few bytes of
 * its .eh_frame (and sometimes .eh_frame_hdr) changed, chosen by SEED:
 * random bytes, and values that stress lengths and encodings (0, 0xff,
 * 0x7f, 0x80).  The ELF structure is left intact, so the CFI parsers get
 * the malformed input, not libelf.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common/elfscn.h"

static uint64_t state;

static uint64_t rnd(void)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return state >> 33;
}

static int find(Elf *elf, const char *want, uint64_t *off, uint64_t *size)
{
	GElf_Shdr sh;

	if (!test_find_scn(elf, want, &sh))
		return -1;
	*off = sh.sh_offset;
	*size = sh.sh_size;
	return 0;
}

int main(int argc, char **argv)
{
	static const uint8_t special[] = { 0, 0xff, 0x7f, 0x80, 1, 0x0f };
	uint64_t off, size, hoff, hsize;
	uint8_t *buf;
	long len;
	FILE *f;
	Elf *elf;
	int fd, i, n, hdr;

	if (argc != 4)
		return 2;
	state = strtoull(argv[1], NULL, 0) * 2654435761u + 1;
	elf_version(EV_CURRENT);
	fd = open(argv[2], O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || find(elf, ".eh_frame", &off, &size) || !size)
		return 2;
	hdr = !find(elf, ".eh_frame_hdr", &hoff, &hsize) && hsize;
	elf_end(elf);
	close(fd);
	f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0)
		return 2;
	buf = malloc((size_t)len);
	rewind(f);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 2;
	fclose(f);
	if (off + size > (uint64_t)len)
		return 2;
	n = 1 + (int)(rnd() % 8);
	for (i = 0; i < n; i++) {
		uint64_t o = off, s = size;
		uint8_t v;

		if (hdr && rnd() % 5 == 0) {
			o = hoff;
			s = hsize;
		}
		v = rnd() % 2 ? (uint8_t)rnd() :
		    special[rnd() % sizeof(special)];
		buf[o + rnd() % s] = v;
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(buf, 1, (size_t)len, f) != (size_t)len || fclose(f))
		return 2;
	free(buf);
	return 0;
}
