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
#include <fcntl.h>
#include <unistd.h>
#include "sframe-file.h"

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
	tool = "sframe-grow";
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
