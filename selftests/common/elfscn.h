/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* A section of an ELF file by name, for the test tools.  Header-only. */
#ifndef UWIND_SELFTESTS_ELFSCN_H
#define UWIND_SELFTESTS_ELFSCN_H

#include <gelf.h>
#include <string.h>

/* The section called want with file contents, its header in *sh; or NULL. */
static inline Elf_Scn *test_find_scn(Elf *elf, const char *want,
				     GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstr, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

#endif
