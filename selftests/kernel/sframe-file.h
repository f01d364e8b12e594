/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * What the kernel tests' table makers (sframe-corrupt, sframe-grow) share:
 * reading an x86-64 program whole, finding its PT_GNU_SFRAME segment the
 * way the module does, and little-endian fields of the SFrame header.
 */
#ifndef UWIND_KT_SFRAME_FILE_H
#define UWIND_KT_SFRAME_FILE_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

#define HDR_SIZE 28

/* The program's name in messages (each tool sets it). */
static const char *tool;

static void die(const char *msg)
{
	fprintf(stderr, "%s: %s\n", tool, msg);
	exit(1);
}

static inline uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* The whole of file path, in a buffer; its size in *size. */
static unsigned char *slurp(const char *path, uint64_t *size)
{
	unsigned char *buf;
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0)
		die("cannot read the input");
	*size = n;
	buf = malloc(*size ? *size : 1);
	rewind(f);
	if (!buf || fread(buf, 1, *size, f) != *size)
		die("cannot read the input");
	fclose(f);
	return buf;
}

/*
 * The PT_GNU_SFRAME program header of the ELF image buf, in place, its
 * segment inside the file and at least a header long; and the segment's
 * header checked to be little-endian SFrame.
 */
static Elf64_Phdr *sframe_phdr(unsigned char *buf, uint64_t size)
{
	Elf64_Phdr *ph = NULL;
	Elf64_Ehdr eh;
	int i;

	if (size < sizeof(eh))
		die("not an ELF file");
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(*ph) || eh.e_phoff % 8)
		die("not a little-endian ELF64 file");
	for (i = 0; i < eh.e_phnum; i++) {
		uint64_t at = eh.e_phoff + (uint64_t)i * sizeof(*ph);

		if (at + sizeof(*ph) > size)
			die("program headers out of the file");
		if (((Elf64_Phdr *)(buf + at))->p_type == PT_GNU_SFRAME)
			ph = (Elf64_Phdr *)(buf + at);
	}
	if (!ph || ph->p_filesz < HDR_SIZE ||
	    ph->p_offset + ph->p_filesz > size)
		die("no usable PT_GNU_SFRAME segment");
	if (buf[ph->p_offset] != 0xe2 || buf[ph->p_offset + 1] != 0xde)
		die("the input's SFrame section is not little-endian SFrame");
	return ph;
}

#endif /* UWIND_KT_SFRAME_FILE_H */
