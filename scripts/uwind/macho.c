// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Mach-O 64-bit and universal files (see macho.h).  Layouts from Apple's
 * <mach-o/loader.h>, <mach-o/fat.h> and <mach-o/nlist.h>: a fat header
 * is big-endian (magic 0xcafebabe, or 0xcafebabf with 64-bit offsets),
 * then one entry per slice {cputype, cpusubtype, offset, size, align};
 * a 64-bit image starts with magic 0xfeedfacf, little-endian here, and
 * a 32-byte header followed by ncmds load commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"
#include "macho.h"

#define FAT_MAGIC	0xcafebabeu
#define FAT_MAGIC_64	0xcafebabfu
#define MH_MAGIC	0xfeedfaceu
#define MH_MAGIC_64	0xfeedfacfu
#define LC_SYMTAB	0x2u
#define LC_SEGMENT_64	0x19u
#define LC_UUID		0x1bu
#define CPU_X86_64	0x01000007u
#define CPU_ARM64	0x0100000cu
#define CPU_I386	7u
#define CPU_ARM		12u
#define N_STAB		0xe0u
#define N_TYPE		0x0eu
#define N_SECT		0x0eu
#define MAX_SLICES	64

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static bool has(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static const char *cpu_name(uint32_t cpu)
{
	switch (cpu) {
	case CPU_X86_64: return "x86_64";
	case CPU_ARM64: return "arm64";
	case CPU_I386: return "i386";
	case CPU_ARM: return "arm";
	default: return "unknown";
	}
}

static uint32_t cpu_of(const char *arch)
{
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "x86-64"))
		return CPU_X86_64;
	if (!strcmp(arch, "arm64") || !strcmp(arch, "aarch64"))
		return CPU_ARM64;
	if (!strcmp(arch, "i386") || !strcmp(arch, "x86"))
		return CPU_I386;
	if (!strcmp(arch, "arm"))
		return CPU_ARM;
	return 0;
}

const char *take_arch(int *argc, char **argv)
{
	const char *arch = NULL;
	int i, j;

	for (i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--arch") || i + 1 >= *argc)
			continue;
		arch = argv[i + 1];
		for (j = i; j + 2 <= *argc; j++)
			argv[j] = argv[j + 2];
		*argc -= 2;
		break;
	}
	return arch;
}

bool macho_is(const char *path)
{
	uint8_t b[4];
	uint32_t m;
	int fd;
	bool yes;

	if (tool_file_check(path, true, NULL))
		return false;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	yes = read(fd, b, 4) == 4;
	close(fd);
	if (!yes)
		return false;
	m = be32(b);
	return m == FAT_MAGIC || m == FAT_MAGIC_64 || le32(b) == MH_MAGIC_64 ||
	       le32(b) == MH_MAGIC;
}

/* Slice i of a fat file: cputype, offset, size; false if malformed. */
static bool fat_slice(const uint8_t *f, size_t size, uint32_t i,
		      uint32_t *cpu, uint64_t *off, uint64_t *len)
{
	bool wide = be32(f) == FAT_MAGIC_64;
	uint64_t at = 8 + (uint64_t)i * (wide ? 32 : 20);

	if (!has(size, at, wide ? 32 : 20))
		return false;
	*cpu = be32(f + at);
	*off = wide ? be64(f + at + 8) : be32(f + at + 8);
	*len = wide ? be64(f + at + 16) : be32(f + at + 12);
	return has(size, *off, *len);
}

static int fat_count(const uint8_t *f, size_t size, uint32_t *n)
{
	if (size < 8)
		return -1;
	*n = be32(f + 4);
	return *n == 0 || *n > MAX_SLICES ? -1 : 0;
}

static void *map_file(const char *path, size_t *size)
{
	struct stat st;
	void *p;
	int fd;

	if (tool_file_check(path, false, NULL))
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 32) {
		fprintf(stderr, "uwind: %s: not a Mach-O file\n", path);
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	*size = (size_t)st.st_size;
	return p;
}

int macho_slices(const char *path, const char **names, int max)
{
	uint32_t n, i, cpu;
	uint64_t off, len;
	size_t size;
	uint8_t *f = map_file(path, &size);
	int ret = 0;

	if (!f)
		return -1;
	if (be32(f) == FAT_MAGIC || be32(f) == FAT_MAGIC_64) {
		if (fat_count(f, size, &n)) {
			fprintf(stderr, "uwind: %s: bad fat header\n", path);
			ret = -1;
		}
		for (i = 0; !ret && i < n && (int)i < max; i++) {
			if (!fat_slice(f, size, i, &cpu, &off, &len)) {
				fprintf(stderr, "uwind: %s: fat slice %u outside"
					" the file\n", path, i);
				ret = -1;
			}
			names[i] = cpu_name(cpu);
		}
		if (!ret)
			ret = (int)i;
	}
	munmap(f, size);
	return ret;
}

/* Pick the slice of a fat file (or check a thin one) for arch. */
static int pick_slice(const char *path, const char *arch, struct macho *m)
{
	uint32_t n, i, cpu, want = arch ? cpu_of(arch) : 0;
	uint64_t off, len;
	char names[256] = "";
	size_t used = 0;

	if (arch && !want) {
		fprintf(stderr, "uwind: unknown --arch '%s' (x86_64, arm64)\n",
			arch);
		return -1;
	}
	m->img = m->file;
	m->size = m->file_size;
	if (be32(m->file) != FAT_MAGIC && be32(m->file) != FAT_MAGIC_64)
		return 0;
	if (fat_count(m->file, m->file_size, &n)) {
		fprintf(stderr, "uwind: %s: bad fat header\n", path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!fat_slice(m->file, m->file_size, i, &cpu, &off, &len)) {
			fprintf(stderr, "uwind: %s: fat slice %u outside the"
				" file\n", path, i);
			return -1;
		}
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%s%s", i ? " " : "", cpu_name(cpu));
		if (used >= sizeof(names))
			used = sizeof(names) - 1;
		if (want && cpu == want) {
			m->img = m->file + off;
			m->size = (size_t)len;
			return 0;
		}
	}
	if (want)
		fprintf(stderr, "uwind: %s: no %s slice (slices: %s)\n", path,
			arch, names);
	else
		fprintf(stderr, "uwind: %s: a universal file: pick a slice"
			" with --arch (%s)\n", path, names);
	return -1;
}

static bool name_is(const uint8_t *field, const char *s)
{
	return !strncmp((const char *)field, s, 16);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct macho_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void segment(struct macho *m, const uint8_t *c, uint32_t size,
		    uint32_t *nsect, uint32_t *text_sect)
{
	uint32_t i, ns = le32(c + 64);
	struct macho_seg *s;
	const uint8_t *sc;
	struct macho_sect *want;

	if (size < 72 || ns > (size - 72) / 80)
		return;
	m->segs = realloc(m->segs, (m->nsegs + 1) * sizeof(*m->segs));
	if (!m->segs)
		exit(1);
	s = &m->segs[m->nsegs++];
	s->vmaddr = le64(c + 24);
	s->vmsize = le64(c + 32);
	s->fileoff = le64(c + 40);
	s->filesize = le64(c + 48);
	if (name_is(c + 8, "__TEXT"))
		m->base = s->vmaddr;
	for (i = 0; i < ns; i++) {
		sc = c + 72 + 80 * i;
		(*nsect)++;
		want = NULL;
		if (!name_is(sc + 16, "__TEXT"))
			continue;
		if (name_is(sc, "__unwind_info"))
			want = &m->unwind_info;
		else if (name_is(sc, "__eh_frame"))
			want = &m->eh_frame;
		else if (name_is(sc, "__text"))
			want = &m->text, *text_sect = *nsect;
		if (!want)
			continue;
		want->addr = le64(sc + 32);
		want->size = le64(sc + 40);
		want->off = le32(sc + 48);
		want->found = has(m->size, want->off, want->size);
	}
}

static void symtab(struct macho *m, const uint8_t *c, uint32_t text_sect)
{
	uint32_t symoff = le32(c + 8), nsyms = le32(c + 12);
	uint32_t stroff = le32(c + 16), strsize = le32(c + 20), i, strx;
	const uint8_t *e;

	if (!has(m->size, symoff, (uint64_t)nsyms * 16) ||
	    !has(m->size, stroff, strsize))
		return;
	m->syms = calloc(nsyms ? nsyms : 1, sizeof(*m->syms));
	if (!m->syms)
		exit(1);
	for (i = 0; i < nsyms; i++) {
		e = m->img + symoff + 16 * (uint64_t)i;
		strx = le32(e);
		if ((e[4] & N_STAB) || (e[4] & N_TYPE) != N_SECT ||
		    e[5] != text_sect || strx >= strsize ||
		    !memchr(m->img + stroff + strx, 0, strsize - strx))
			continue;
		m->syms[m->nsyms].addr = le64(e + 8);
		m->syms[m->nsyms].name = (const char *)m->img + stroff + strx;
		if (m->syms[m->nsyms].name[0] == '_')
			m->syms[m->nsyms].name++;
		m->nsyms++;
	}
	qsort(m->syms, m->nsyms, sizeof(*m->syms), cmp_sym);
}

static int load_commands(const char *path, struct macho *m)
{
	uint32_t ncmds, sizeofcmds, i, cmd, size, nsect = 0, text_sect = 0;
	uint64_t at = 32, end;
	const uint8_t *symcmd = NULL;

	if (m->size < 32 || le32(m->img) != MH_MAGIC_64) {
		fprintf(stderr, "uwind: %s: %s\n", path,
			m->size >= 4 && le32(m->img) == MH_MAGIC ?
			"32-bit Mach-O is not supported" :
			"not a 64-bit Mach-O image");
		return -1;
	}
	switch (le32(m->img + 4)) {
	case CPU_X86_64:
		m->arch = UW_ARCH_X86_64;
		break;
	case CPU_ARM64:
		m->arch = UW_ARCH_AARCH64;
		break;
	default:
		fprintf(stderr, "uwind: %s: CPU type %#x not supported\n",
			path, le32(m->img + 4));
		return -1;
	}
	m->arch_name = cpu_name(le32(m->img + 4));
	ncmds = le32(m->img + 16);
	sizeofcmds = le32(m->img + 20);
	if (!has(m->size, 32, sizeofcmds)) {
		fprintf(stderr, "uwind: %s: load commands leave the file\n",
			path);
		return -1;
	}
	end = 32 + (uint64_t)sizeofcmds;
	for (i = 0; i < ncmds; i++) {
		if (at + 8 > end)
			break;
		cmd = le32(m->img + at);
		size = le32(m->img + at + 4);
		if (size < 8 || size > end - at) {
			fprintf(stderr, "uwind: %s: bad load command %u\n",
				path, i);
			return -1;
		}
		if (cmd == LC_SEGMENT_64)
			segment(m, m->img + at, size, &nsect, &text_sect);
		else if (cmd == LC_SYMTAB && size >= 24)
			symcmd = m->img + at;
		else if (cmd == LC_UUID && size >= 24) {
			memcpy(m->uuid, m->img + at + 8, 16);
			m->has_uuid = true;
		}
		at += size;
	}
	if (symcmd)
		symtab(m, symcmd, text_sect);
	return 0;
}

int macho_open(const char *path, const char *arch, struct macho *m)
{
	memset(m, 0, sizeof(*m));
	m->file = map_file(path, &m->file_size);
	if (!m->file)
		return -1;
	if (pick_slice(path, arch, m) || load_commands(path, m)) {
		macho_close(m);
		return -1;
	}
	if (arch && cpu_of(arch) && strcmp(cpu_name(cpu_of(arch)),
					  m->arch_name)) {
		fprintf(stderr, "uwind: %s: a %s image, not %s\n", path,
			m->arch_name, arch);
		macho_close(m);
		return -1;
	}
	return 0;
}

void macho_close(struct macho *m)
{
	if (m->file)
		munmap(m->file, m->file_size);
	free(m->segs);
	free(m->syms);
	memset(m, 0, sizeof(*m));
}

int macho_read(const struct macho *m, uint64_t addr, void *dst, size_t len)
{
	const struct macho_seg *s;
	uint64_t off;
	size_t i;

	for (i = 0; i < m->nsegs; i++) {
		s = &m->segs[i];
		if (addr < s->vmaddr || addr - s->vmaddr >= s->vmsize ||
		    len > s->vmsize - (addr - s->vmaddr))
			continue;
		off = addr - s->vmaddr;
		/* Past the file's bytes a segment is zero-filled. */
		if (off >= s->filesize || len > s->filesize - off) {
			if (off < s->filesize)
				return -1;
			memset(dst, 0, len);
			return 0;
		}
		if (!has(m->size, s->fileoff + off, len))
			return -1;
		memcpy(dst, m->img + s->fileoff + off, len);
		return 0;
	}
	return -1;
}

const struct macho_sym *macho_sym(const struct macho *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &m->syms[lo - 1] : NULL;
}
