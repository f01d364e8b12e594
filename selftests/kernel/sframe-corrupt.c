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
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

#define HDR_SIZE 28

static void die(const char *msg)
{
	fprintf(stderr, "sframe-corrupt: %s\n", msg);
	exit(1);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

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
	const char *kind;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t size, off = 0, len = 0, base, fres, frelen;
	FILE *f;
	long n;
	int i;

	if (argc != 4) {
		fprintf(stderr, "usage: sframe-corrupt KIND IN OUT\n");
		return 2;
	}
	kind = argv[1];
	f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0)
		die("cannot read the input");
	size = n;
	buf = malloc(size);
	rewind(f);
	if (!buf || fread(buf, 1, size, f) != size)
		die("cannot read the input");
	fclose(f);

	if (size < sizeof(eh))
		die("not an ELF file");
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		die("not a little-endian ELF64 file");
	for (i = 0; i < eh.e_phnum; i++) {
		uint64_t at = eh.e_phoff + (uint64_t)i * eh.e_phentsize;

		if (at + sizeof(ph) > size)
			die("program headers out of the file");
		memcpy(&ph, buf + at, sizeof(ph));
		if (ph.p_type == PT_GNU_SFRAME) {
			off = ph.p_offset;
			len = ph.p_filesz;
		}
	}
	if (!len || off + len > size || len < HDR_SIZE)
		die("no usable PT_GNU_SFRAME segment");
	sec = buf + off;
	if (sec[0] != 0xe2 || sec[1] != 0xde)
		die("the input's SFrame section is not little-endian SFrame");
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
