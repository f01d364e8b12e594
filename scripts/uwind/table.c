// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Loading table sections from ELF files (libelf) and raw dumps. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uwind.h"

#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || end == s || *end) ? -1 : 0;
}

void tool_table_free(struct tool_table *t)
{
	free(t->owned);
	t->owned = NULL;
}

static void *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0, r;
	char *buf = NULL, *nb;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	*size = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

int tool_load_raw(const char *path, uint64_t vaddr, struct tool_table *t)
{
	size_t size;
	void *buf = read_whole(path, &size);

	if (!buf) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	t->owned = buf;
	t->span.data = buf;
	t->span.size = size;
	t->span.addr = vaddr;
	t->name = ".sframe";
	return 0;
}

/* Copy a file range into a heap buffer the table owns. */
static int copy_range(Elf *elf, uint64_t off, uint64_t size, struct tool_table *t)
{
	size_t fsize;
	char *img = elf_rawfile(elf, &fsize);

	if (!img || off > fsize || size > fsize - off)
		return -1;
	t->owned = malloc(size ? size : 1);
	if (!t->owned)
		return -1;
	memcpy(t->owned, img + off, size);
	t->span.data = t->owned;
	t->span.size = size;
	return 0;
}

static int find_section(Elf *elf, struct tool_table *t)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 1;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type != SHT_GNU_SFRAME &&
		    !(name && !strcmp(name, ".sframe")))
			continue;
		if (sh.sh_type == SHT_NOBITS)
			return 1;
		t->span.addr = sh.sh_addr;
		t->name = ".sframe";
		if (copy_range(elf, sh.sh_offset, sh.sh_size, t))
			return -1;
		/* An object file's FDEs name their functions by relocation. */
		return tool_elf_relocate(elf, elf_ndxscn(scn), sh.sh_addr, t);
	}
	return 1;
}

static int find_segment(Elf *elf, struct tool_table *t)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_SFRAME)
			continue;
		t->span.addr = ph.p_vaddr;
		t->name = "PT_GNU_SFRAME";
		return copy_range(elf, ph.p_offset, ph.p_filesz, t) ? -1 : 0;
	}
	return 1;
}

/*
 * The SFrame table of an ELF already open (section, else PT_GNU_SFRAME),
 * at its ELF vaddr: 0 found, 1 none, -1 unreadable.  Prints nothing.
 */
int tool_elf_sframe(struct Elf *elf, struct tool_table *t)
{
	int ret;

	memset(t, 0, sizeof(*t));
	ret = find_section(elf, t);
	if (ret > 0)
		ret = find_segment(elf, t);
	return ret;
}

int tool_load_elf_sframe(const char *path, struct tool_table *t)
{
	int fd, ret;
	Elf *elf;
	size_t size;
	char *img;

	memset(t, 0, sizeof(*t));
	/* A table file of `uwind sframe -o`: its ELF vaddrs, bias 0. */
	img = read_whole(path, &size);
	if (img && size >= 8 && !memcmp(img, "UWSFRAME", 8)) {
		ret = tool_load_uwsf(path, (const uint8_t *)img, size, 0, t);
		free(img);
		return ret;
	}
	free(img);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		fprintf(stderr, "uwind: %s: not an ELF file\n", path);
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	ret = find_section(elf, t);
	if (ret > 0)
		ret = find_segment(elf, t);
	elf_end(elf);
	close(fd);
	if (ret > 0)
		fprintf(stderr, "uwind: %s: no SFrame section\n", path);
	else if (ret < 0)
		fprintf(stderr, "uwind: %s: cannot read SFrame section\n", path);
	return ret ? -1 : 0;
}

int load_table_opts(const struct table_opts *o, struct tool_table *t)
{
	uint64_t vaddr = 0;

	memset(t, 0, sizeof(*t));
	if (o->raw) {
		if (!o->vaddr || parse_u64(o->vaddr, &vaddr)) {
			fprintf(stderr, "uwind: --sframe needs --vaddr ADDR\n");
			return -1;
		}
		return tool_load_raw(o->raw, vaddr, t);
	}
	if (!o->file) {
		fprintf(stderr, "uwind: no input file\n");
		return -1;
	}
	return tool_load_elf_sframe(o->file, t);
}
