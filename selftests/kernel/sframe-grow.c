// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sframe-grow: copies of an x86-64 program whose PT_GNU_SFRAME segment
 * declares a large table, written as sparse files (the large part is a
 * hole, which costs a tmpfs nothing), for the tests of the module's
 * memory limits.  Run in the test guest, where /tmp is a tmpfs.
 *
 *   sframe-grow MODE MIB IN OUT N
 *
 * writes OUT.0 ... OUT.N-1, each a distinct file (a table of its own for
 * the module), the program still runnable.  The SFrame section moves to
 * the end of the file and its segment becomes MIB MiB long:
 *   grow  the header agrees: its FRE subsection reaches the new end
 *         (zeros no FDE refers to), a valid table that needs MIB MiB
 *   pad   the header is left as it is (leaf-sf's 226-byte section, whose
 *         table needs 192 bytes): only the segment's size claims MIB MiB
 * The segment keeps its address (p_vaddr), which the table's
 * pc-relative function starts are relative to.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

#define HDR_SIZE 28

static void die(const char *msg)
{
	fprintf(stderr, "sframe-grow: %s\n", msg);
	exit(1);
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
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
	buf = malloc(*size);
	rewind(f);
	if (!buf || fread(buf, 1, *size, f) != *size)
		die("cannot read the input");
	fclose(f);
	return buf;
}

/* The PT_GNU_SFRAME program header of the ELF image buf. */
static Elf64_Phdr *sframe_phdr(unsigned char *buf, uint64_t size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
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
	return ph;
}

int main(int argc, char **argv)
{
	unsigned char *buf, sec[4096];
	uint64_t size, len, want, at, base;
	char path[4096];
	Elf64_Phdr *ph;
	int grow, i, n, fd;

	if (argc != 6) {
		fprintf(stderr, "usage: sframe-grow grow|pad MIB IN OUT N\n");
		return 2;
	}
	grow = !strcmp(argv[1], "grow");
	if (!grow && strcmp(argv[1], "pad"))
		die("MODE is grow or pad");
	want = strtoull(argv[2], NULL, 0) << 20;
	n = atoi(argv[5]);
	buf = slurp(argv[3], &size);
	ph = sframe_phdr(buf, size);
	len = ph->p_filesz;
	if (len > sizeof(sec) || want <= len)
		die("the input's section is too large, or MIB too small");
	memcpy(sec, buf + ph->p_offset, len);
	if (sec[0] != 0xe2 || sec[1] != 0xde)
		die("the input's section is not little-endian SFrame");
	base = HDR_SIZE + sec[7];
	/* grow: the FRE subsection (the last one) reaches the new end. */
	if (grow && (base + get32(sec + 24) + get32(sec + 16) > len ||
		     want - base - get32(sec + 24) > 0xffffffffu))
		die("the FRE subsection is not last, or MIB is too large");
	if (grow)
		put32(sec + 16, (uint32_t)(want - base - get32(sec + 24)));
	at = (size + 4095) & ~(uint64_t)4095;
	ph->p_offset = at;
	ph->p_filesz = want;
	ph->p_memsz = want;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s.%d", argv[4], i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		if (fd < 0 || write(fd, buf, size) != (ssize_t)size ||
		    pwrite(fd, sec, len, at) != (ssize_t)len ||
		    ftruncate(fd, at + want) || close(fd))
			die("cannot write an output");
	}
	free(buf);
	return 0;
}
