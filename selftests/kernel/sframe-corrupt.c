// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sframe-corrupt: damage the SFrame section of an x86-64 ELF program in a
 * chosen way, for the test that runs such programs under perf.
 *
 *   sframe-corrupt KIND IN OUT
 *
 * The section is found through the PT_GNU_SFRAME program header, the way
 * the kernel module finds it.  KIND is one of
 *   badmagic   the magic number zeroed
 *   hugefdes   num_fdes = 0xffffffff
 *   freoob     fre_len reaches far past the end of the section
 *   fdeoob     the FDE subsection starts past the end of the section
 *   garbage    everything after the header (FDEs and FREs) pseudo-random
 *   frejunk    the FRE subsection alone pseudo-random, the FDEs intact
 * The pseudo-random bytes come from a fixed seed: every build is the same.
 * The rest of the file is copied unchanged, so the program still runs.
 */
#include "sframe-file.h"

static void scramble(unsigned char *p, size_t n)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		p[i] = s >> 24;
	}
}

int main(int argc, char **argv)
{
	unsigned char *buf, *sec;
	uint64_t size, off, len, base, fres, frelen;
	const char *kind;
	Elf64_Phdr *ph;
	FILE *f;

	tool = "sframe-corrupt";
	if (argc != 4) {
		fprintf(stderr, "usage: sframe-corrupt KIND IN OUT\n");
		return 2;
	}
	kind = argv[1];
	buf = slurp(argv[2], &size);
	ph = sframe_phdr(buf, size);
	off = ph->p_offset;
	len = ph->p_filesz;
	sec = buf + off;
	base = HDR_SIZE + sec[7];
	fres = base + get32(sec + 24);
	frelen = get32(sec + 16);
	if (base > len || fres > len || fres + frelen > len)
		die("the input's SFrame section is already malformed");

	if (!strcmp(kind, "badmagic")) {
		sec[0] = 0;
		sec[1] = 0;
	} else if (!strcmp(kind, "hugefdes")) {
		put32(sec + 8, 0xffffffff);
	} else if (!strcmp(kind, "freoob")) {
		put32(sec + 16, 0x7fffff00);
	} else if (!strcmp(kind, "fdeoob")) {
		put32(sec + 20, (uint32_t)len);
	} else if (!strcmp(kind, "garbage")) {
		scramble(sec + base, len - base);
	} else if (!strcmp(kind, "frejunk")) {
		scramble(sec + fres, frelen);
	} else {
		die("unknown KIND");
	}

	f = fopen(argv[3], "wb");
	if (!f || fwrite(buf, 1, size, f) != size || fclose(f))
		die("cannot write the output");
	free(buf);
	return 0;
}
