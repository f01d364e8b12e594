// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Loading table sections from ELF files (libelf) and raw dumps. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "input.h"
#include "uwind.h"

#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif

void tool_table_free(struct tool_table *t)
{
	free(t->owned);
	t->owned = NULL;
	tool_file_unmap(&t->file);
}

/* A raw table: the file's bytes, mapped, placed at vaddr. */
int tool_load_raw(const char *path, uint64_t vaddr, struct tool_table *t)
{
	memset(t, 0, sizeof(*t));
	if (tool_file_map(path, &t->file))
		return -1;
	t->span.data = t->file.data;
	t->span.size = t->file.size;
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

/*
 * The SFrame table of a file: an ELF file's (section, else segment), or
 * the section of a table file `uwind sframe -o` wrote.  0, or -1 with
 * why printed.
 */
int tool_load_elf_sframe(const char *path, struct tool_table *t)
{
	struct tool_file f;
	enum tool_kind kind;
	Elf *elf;
	int ret;

	memset(t, 0, sizeof(*t));
	if (tool_file_map(path, &f))
		return -1;
	kind = tool_kind_of(f.data, f.size);
	if (kind == TOOL_KIND_UWSF) {
		/* Its ELF vaddrs: bias 0. */
		ret = tool_load_uwsf(path, f.data, f.size, 0, t);
		tool_file_unmap(&f);
		return ret;
	}
	elf = tool_file_elf(&f);
	if (!elf) {
		tool_file_unmap(&f);
		return -1;
	}
	ret = tool_elf_sframe(elf, t);
	elf_end(elf);
	tool_file_unmap(&f);
	if (ret > 0)
		tool_err(path, "no SFrame table: no .sframe section or"
			 " PT_GNU_SFRAME segment (uwind sframe makes one from"
			 " DWARF CFI)");
	else if (ret < 0)
		tool_err(path, "cannot read its SFrame section");
	return ret ? -1 : 0;
}

int load_table_opts(const struct table_opts *o, struct tool_table *t)
{
	memset(t, 0, sizeof(*t));
	if (o->raw)
		return tool_load_raw(o->raw, o->vaddr_v, t);
	if (!o->file) {
		fprintf(stderr, "uwind: no input file\n");
		return -1;
	}
	return tool_load_elf_sframe(o->file, t);
}
