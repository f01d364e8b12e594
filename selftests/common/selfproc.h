/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * For the self-unwinding test programs (selftests/selfunwind,
 * selftests/armunwind, selftests/chrome): a memory accessor that reads
 * only this process's readable mappings (or a stack snapshot taken
 * earlier), and the function symbols of /proc/self/exe, which are the
 * tests' oracle for frame names.
 *
 * Header-only, all static: each program is one file, built for its own
 * target (x86-64 natively, AArch64 and 32-bit ARM under qemu-user), and
 * reads its own executable, so the ELF class is always the native one
 * (<link.h>'s ElfW).  The maps reader uses only open/read/close and a
 * static buffer, as it runs inside signal handlers.  The functions are
 * static inline so that a program may leave some unused.
 */
#ifndef UWIND_SELFTESTS_SELFPROC_H
#define UWIND_SELFTESTS_SELFPROC_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include (selfproc.h uses memmem)"
#endif

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SP_NOSAN	__attribute__((no_sanitize_address, \
				 no_sanitize_undefined))

/* ---- memory: readable mappings, and an optional snapshot ---- */

struct sp_map {
	uint64_t lo, hi;
};

#define SP_MAX_MAPS	2048
struct sp_mem {
	const uint8_t *snap;		/* NULL: none */
	uint64_t snap_lo, snap_hi;
	struct sp_map maps[SP_MAX_MAPS];
	size_t nmaps;
	size_t nreads, nfails;
};

static inline uint64_t sp_parse_hex(const char **pp)
{
	const char *p = *pp;
	uint64_t v = 0;

	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			v = v * 16 + (uint64_t)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			v = v * 16 + (uint64_t)(*p - 'a' + 10);
		else
			break;
	}
	*pp = p;
	return v;
}

/*
 * The readable mappings of this process, from /proc/self/maps (qemu-user
 * emulates the file with guest addresses).
 */
static inline int sp_load_maps(struct sp_mem *m)
{
	static char sp_maps_buf[1 << 18];
	const char *p, *end, *line;
	size_t len = 0;
	bool readable;
	ssize_t r;
	int fd;

	m->nmaps = 0;
	fd = open("/proc/self/maps", O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < sizeof(sp_maps_buf) - 1) {
		r = read(fd, sp_maps_buf + len, sizeof(sp_maps_buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	sp_maps_buf[len] = 0;
	for (p = sp_maps_buf, end = sp_maps_buf + len; p < end;) {
		uint64_t lo, hi;

		lo = sp_parse_hex(&p);
		if (*p++ != '-')
			return -1;
		hi = sp_parse_hex(&p);
		if (*p++ != ' ')
			return -1;
		readable = *p == 'r';
		for (line = p; p < end && *p != '\n'; p++)
			;
		/* Some [vvar] pages raise SIGBUS although mapped readable. */
		if (readable && m->nmaps < SP_MAX_MAPS &&
		    !memmem(line, (size_t)(p - line), "[vvar", 5)) {
			m->maps[m->nmaps].lo = lo;
			m->maps[m->nmaps].hi = hi;
			m->nmaps++;
		}
		p++;
	}
	return m->nmaps ? 0 : -1;
}

static inline const struct sp_map *sp_find_map(const struct sp_mem *m,
					       uint64_t addr)
{
	size_t i;

	for (i = 0; i < m->nmaps; i++)
		if (addr >= m->maps[i].lo && addr < m->maps[i].hi)
			return &m->maps[i];
	return NULL;
}

/*
 * The uw_mem accessor (ctx: a struct sp_mem).  Never faults: it reads
 * only inside the snapshot or one readable mapping, byte by byte through
 * a volatile pointer, and the sanitizers stay out (the stack it reads
 * holds other frames' poisoned redzones).
 */
static inline SP_NOSAN int sp_mem_read(void *ctx, uint64_t addr,
				       void *dst, size_t len)
{
	struct sp_mem *m = ctx;
	const volatile uint8_t *src;
	const struct sp_map *e;
	uint8_t *d = dst;
	size_t i;

	m->nreads++;
	if (len == 0 || addr + len < addr)
		goto fail;
	if (m->snap && addr >= m->snap_lo && addr + len <= m->snap_hi) {
		src = m->snap + (addr - m->snap_lo);
	} else {
		e = sp_find_map(m, addr);
		if (!e || addr + len > e->hi)
			goto fail;
		src = (const volatile uint8_t *)(uintptr_t)addr;
	}
	for (i = 0; i < len; i++)
		d[i] = src[i];
	return 0;
fail:
	m->nfails++;
	return -1;
}

/* ---- symbols: the ELF symbol table of /proc/self/exe ---- */

struct sp_sym {
	uint64_t start, size;
	const char *name;
};

static struct sp_sym *sp_syms;
static size_t sp_nsyms;
static char *sp_elf;		/* the whole file */
static size_t sp_elf_size;

/* The section headers of sp_elf (checked to lie inside it), or NULL. */
static inline const ElfW(Shdr) *sp_shdrs(size_t *n)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)sp_elf;

	if (!sp_elf || sp_elf_size < sizeof(*eh) ||
	    (uint64_t)eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)) >
	    sp_elf_size)
		return NULL;
	*n = eh->e_shnum;
	return (const ElfW(Shdr) *)(sp_elf + eh->e_shoff);
}

/* Section i's bytes lie inside the file. */
static inline bool sp_shdr_ok(const ElfW(Shdr) *sh)
{
	return sh->sh_type == SHT_NOBITS ||
	       (uint64_t)sh->sh_offset + sh->sh_size <= sp_elf_size;
}

/*
 * Read /proc/self/exe and keep its defined, sized function symbols, at
 * st_value + bias (the load bias of a PIE; 0 for a static program).  On
 * 32-bit ARM bit 0 of a Thumb function's st_value is the state, not the
 * address, and is cleared.
 */
static inline int sp_load_syms(uint64_t bias)
{
	const ElfW(Shdr) *sh, *strs;
	struct stat st;
	size_t i, j, nsh = 0;
	FILE *f;

	f = fopen("/proc/self/exe", "rb");
	if (!f)
		return -1;
	if (fstat(fileno(f), &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr)))
		goto bad;
	sp_elf_size = (size_t)st.st_size;
	sp_elf = malloc(sp_elf_size);
	if (!sp_elf || fread(sp_elf, 1, sp_elf_size, f) != sp_elf_size)
		goto bad;
	fclose(f);
	if (memcmp(sp_elf, ELFMAG, SELFMAG) ||
	    ((const ElfW(Ehdr) *)sp_elf)->e_ident[EI_CLASS] !=
	    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return -1;
	sh = sp_shdrs(&nsh);
	for (i = 0; sh && i < nsh; i++) {
		const ElfW(Sym) *syms;
		const char *str;
		size_t n;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= nsh)
			continue;
		strs = &sh[sh[i].sh_link];
		if (!sp_shdr_ok(&sh[i]) || !sp_shdr_ok(strs))
			return -1;
		syms = (const ElfW(Sym) *)(sp_elf + sh[i].sh_offset);
		str = sp_elf + strs->sh_offset;
		n = sh[i].sh_size / sizeof(*syms);
		sp_syms = calloc(n ? n : 1, sizeof(*sp_syms));
		if (!sp_syms)
			return -1;
		for (j = 0; j < n; j++) {
			unsigned int t = ELF64_ST_TYPE(syms[j].st_info);
			uint64_t v = syms[j].st_value;

			if ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
			    !syms[j].st_size || syms[j].st_shndx == SHN_UNDEF ||
			    syms[j].st_name >= strs->sh_size)
				continue;
#ifdef __arm__
			v &= ~(uint64_t)1;
#endif
			sp_syms[sp_nsyms].start = v + bias;
			sp_syms[sp_nsyms].size = syms[j].st_size;
			sp_syms[sp_nsyms].name = str + syms[j].st_name;
			sp_nsyms++;
		}
		return sp_nsyms ? 0 : -1;
	}
	return -1;
bad:
	fclose(f);
	return -1;
}

/* The section called name, or NULL. */
static inline const ElfW(Shdr) *sp_section(const char *name)
{
	const ElfW(Shdr) *sh;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)sp_elf;
	size_t i, nsh = 0;

	sh = sp_shdrs(&nsh);
	if (!sh || eh->e_shstrndx >= nsh || !sp_shdr_ok(&sh[eh->e_shstrndx]))
		return NULL;
	for (i = 0; i < nsh; i++)
		if (sh[i].sh_name < sh[eh->e_shstrndx].sh_size &&
		    !strcmp(sp_elf + sh[eh->e_shstrndx].sh_offset +
			    sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

static inline const struct sp_sym *sp_sym_at(uint64_t addr)
{
	size_t i;

	for (i = 0; i < sp_nsyms; i++)
		if (addr >= sp_syms[i].start &&
		    addr - sp_syms[i].start < sp_syms[i].size)
			return &sp_syms[i];
	return NULL;
}

static inline const struct sp_sym *sp_sym_named(const char *name)
{
	size_t i;

	for (i = 0; i < sp_nsyms; i++)
		if (!strcmp(sp_syms[i].name, name))
			return &sp_syms[i];
	return NULL;
}

#endif /* UWIND_SELFTESTS_SELFPROC_H */
