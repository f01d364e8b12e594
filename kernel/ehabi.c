// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * 32-bit ARM files (arm64's compat tasks): where an ELF32 file's EHABI
 * tables are, and their whole-table check.  files.c copies them into
 * kernel memory once per file, under the same caps as SFrame tables, and
 * the hook runs the core's EHABI interpreter on them.
 *
 * The index, .ARM.exidx, is the PT_ARM_EXIDX segment.  Its entries refer
 * to .ARM.extab (compact entries too long for the index, and generic
 * ones), which no program header names: it is found by name in the
 * section headers.  A file whose section headers are gone (sstrip) while
 * its index refers to extab fails the check and is refused, counted:
 * its frames then fall back to frame records.
 * Everything here runs in task context, from files.c.
 */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include "uwind_kmod.h"

#ifndef PT_ARM_EXIDX
#define PT_ARM_EXIDX	0x70000001
#endif

#define UWK_MAX_PHDRS32	128
#define UWK_MAX_SHDRS32	1024
#define UWK_MAX_SHSTRTAB	(64 * 1024)

static const char uwk_extab_name[] = ".ARM.extab";

/* The ELF header of a little-endian 32-bit file of compat_machine. */
static int uwk_elf32_ehdr(const struct uwk_src *src, Elf32_Ehdr *eh)
{
	if (!uwk_arch.compat_machine ||
	    uwk_src_read(src, eh, sizeof(*eh), 0) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS32 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != uwk_arch.compat_machine)
		return -EINVAL;
	return 0;
}

/*
 * The .ARM.extab section, from the section headers: *loc, or filesz 0
 * when there is none (an index of inline entries only needs none).
 */
static void uwk_find_extab(const struct uwk_src *src, const Elf32_Ehdr *eh,
			   struct uwk_load *loc)
{
	Elf32_Shdr *sh = NULL;
	char *names = NULL;
	u32 i, nlen;

	loc->filesz = 0;
	if (eh->e_shentsize != sizeof(*sh) || !eh->e_shnum ||
	    eh->e_shnum > UWK_MAX_SHDRS32 || eh->e_shstrndx >= eh->e_shnum)
		return;
	sh = uwk_nomem(kmalloc_array(eh->e_shnum, sizeof(*sh), UWK_GFP));
	if (!sh ||
	    uwk_src_read(src, sh, eh->e_shnum * sizeof(*sh), eh->e_shoff))
		goto out;
	nlen = sh[eh->e_shstrndx].sh_size;
	if (nlen < sizeof(uwk_extab_name) || nlen > UWK_MAX_SHSTRTAB)
		goto out;
	names = uwk_nomem(kmalloc(nlen, UWK_GFP));
	if (!names ||
	    uwk_src_read(src, names, nlen, sh[eh->e_shstrndx].sh_offset))
		goto out;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_PROGBITS ||
		    !(sh[i].sh_flags & SHF_ALLOC) ||
		    sh[i].sh_name > nlen - sizeof(uwk_extab_name) ||
		    memcmp(names + sh[i].sh_name, uwk_extab_name,
			   sizeof(uwk_extab_name)))
			continue;
		loc->vaddr = sh[i].sh_addr;
		loc->off = sh[i].sh_offset;
		loc->filesz = sh[i].sh_size;
		break;
	}
out:
	kfree(names);
	kfree(sh);
}

/**
 * uwk_elf32_read() - where a 32-bit ARM file's EHABI tables are
 * @src: the file (or image)
 * @loads: its PT_LOAD segments go here (for the load bias)...
 * @nloads: ... this many, at most @max
 * @max: room in @loads
 * @loc: the index (PT_ARM_EXIDX) and .ARM.extab (filesz 0: none)
 *
 * Return: 0; -ENOENT for an ELF32 file of compat_machine without an
 * index (@loads filled all the same), -EINVAL for any other file.
 */
int uwk_elf32_read(const struct uwk_src *src, struct uwk_load *loads,
		   u32 *nloads, u32 max, struct uwk_ehabi_loc *loc)
{
	Elf32_Phdr *ph;
	Elf32_Ehdr eh;
	bool found = false;
	int i, ret = -EINVAL;

	if (uwk_elf32_ehdr(src, &eh) || eh.e_phentsize != sizeof(*ph) ||
	    !eh.e_phnum || eh.e_phnum > UWK_MAX_PHDRS32)
		return -EINVAL;
	ph = uwk_nomem(kmalloc_array(eh.e_phnum, sizeof(*ph), UWK_GFP));
	if (!ph)
		return -ENOMEM;
	if (uwk_src_read(src, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && *nloads < max) {
			loads[*nloads].vaddr = ph[i].p_vaddr;
			loads[*nloads].off = ph[i].p_offset;
			loads[(*nloads)++].filesz = ph[i].p_filesz;
		} else if (ph[i].p_type == PT_ARM_EXIDX) {
			loc->exidx.vaddr = ph[i].p_vaddr;
			loc->exidx.off = ph[i].p_offset;
			loc->exidx.filesz = ph[i].p_filesz;
			found = true;
		}
	}
	ret = -ENOENT;
	if (found) {
		uwk_find_extab(src, &eh, &loc->extab);
		ret = 0;
	}
out:
	kfree(ph);
	return ret;
}

/**
 * uwk_ehabi_setup() - decode and check EHABI tables copied in
 * @eh: the decoder state to set up
 * @data: the index's bytes, then extab's (as uwk_elf32_read() found them)
 * @loc: where they were in the file's address space
 *
 * Checks the whole index once (every entry and its opcodes, in chunks
 * with a reschedule in between), so the hook only ever meets tables
 * that decode: a malformed one is refused, counted once.
 *
 * Return: 0, or the core's error code.
 */
int uwk_ehabi_setup(struct uw_ehabi *eh, const u8 *data,
		    const struct uwk_ehabi_loc *loc)
{
	struct uw_span exidx = {
		.data = data, .size = loc->exidx.filesz,
		.addr = loc->exidx.vaddr,
	};
	struct uw_span extab = {
		.data = data + loc->exidx.filesz, .size = loc->extab.filesz,
		.addr = loc->extab.vaddr,
	};
	struct uw_check c;
	int err;

	err = uw_ehabi_init(eh, &exidx, loc->extab.filesz ? &extab : NULL,
			    false);
	if (err)
		return err;
	uw_check_start(&c, UWK_CHECK_CHUNK);
	while ((err = uw_ehabi_check(eh, &c)) == UW_CHECK_MORE)
		cond_resched();
	return err;
}
