// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The files the tool is given (see input.h).  A path is checked with
 * stat() first, so that a FIFO is refused without being opened (opening
 * one blocks until a writer comes), and /dev/zero or a directory are
 * named for what they are instead of being read; then the file is
 * mapped, and only the pages the tool looks at are ever read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"
#include "uwind.h"

void tool_err(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uwind: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISCHR(m))
		return "not a regular file (a character device)";
	if (S_ISBLK(m))
		return "not a regular file (a block device)";
	if (S_ISFIFO(m))
		return "not a regular file (a FIFO)";
	if (S_ISSOCK(m))
		return "not a regular file (a socket)";
	return "not a regular file";
}

int tool_file_check(const char *path, bool quiet, const char **why)
{
	const char *w = NULL;
	struct stat st;

	if (stat(path, &st))
		w = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		w = type_name(st.st_mode);
	else if (!st.st_size)
		w = "empty file";
	if (why)
		*why = w;
	if (w && !quiet)
		tool_err(path, "%s", w);
	return w ? -1 : 0;
}

int tool_file_map(const char *path, struct tool_file *f)
{
	struct stat st;
	void *p;
	int fd;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if (tool_file_check(path, false, NULL))
		return -1;
	/* O_NONBLOCK: a FIFO put in its place since the check must not block. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		tool_err(path, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size) {
		tool_err(path, "%s", st.st_size ? type_name(st.st_mode) :
			 "empty file");
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		tool_err(path, "%s", strerror(errno));
		return -1;
	}
	f->data = p;
	f->size = (size_t)st.st_size;
	return 0;
}

void tool_file_unmap(struct tool_file *f)
{
	if (f->data)
		munmap(f->data, f->size);
	f->data = NULL;
	f->size = 0;
}

enum tool_kind tool_kind_of(const uint8_t *d, size_t size)
{
	static const uint8_t macho[][4] = {
		{ 0xca, 0xfe, 0xba, 0xbe }, { 0xca, 0xfe, 0xba, 0xbf },
		{ 0xcf, 0xfa, 0xed, 0xfe }, { 0xce, 0xfa, 0xed, 0xfe },
	};
	size_t i;

	if (size >= SELFMAG && !memcmp(d, ELFMAG, SELFMAG))
		return TOOL_KIND_ELF;
	if (size >= 8 && !memcmp(d, UWSF_MAGIC, 8))
		return TOOL_KIND_UWSF;
	for (i = 0; size >= 4 && i < sizeof(macho) / sizeof(macho[0]); i++)
		if (!memcmp(d, macho[i], 4))
			return TOOL_KIND_MACHO;
	return TOOL_KIND_OTHER;
}

/* Whether [off, off + n * each) lies inside size bytes. */
static bool inside(uint64_t off, uint64_t n, uint64_t each, size_t size)
{
	return off <= size && (!each || n <= (size - off) / each);
}

const char *tool_elf_defect(Elf *elf, size_t size, char *buf, size_t len)
{
	uint64_t ph_end, sh_end;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t shnum;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return "not an ELF file";
	if (elf_getshdrnum(elf, &shnum))
		shnum = eh.e_shnum;
	if (!inside(eh.e_phoff, eh.e_phnum, eh.e_phentsize, size) ||
	    !inside(eh.e_shoff, shnum, eh.e_shentsize, size)) {
		ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
		sh_end = eh.e_shoff + (uint64_t)shnum * eh.e_shentsize;
		snprintf(buf, len, "truncated ELF file: %zu bytes, its headers"
			 " end at %llu", size, (unsigned long long)
			 (ph_end > sh_end ? ph_end : sh_end));
		return buf;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    inside(sh.sh_offset, 1, sh.sh_size, size))
			continue;
		snprintf(buf, len, "truncated ELF file: %zu bytes, section %zu"
			 " ends at %llu", size, elf_ndxscn(scn),
			 (unsigned long long)(sh.sh_offset + sh.sh_size));
		return buf;
	}
	return NULL;
}

int tool_elf_check(const char *path, Elf *elf)
{
	const char *why = "not an ELF file";
	char buf[160];
	size_t size;

	if (elf && elf_kind(elf) == ELF_K_ELF && elf_rawfile(elf, &size))
		why = tool_elf_defect(elf, size, buf, sizeof(buf));
	if (why)
		tool_err(path, "%s", why);
	return why ? -1 : 0;
}

Elf *tool_file_elf(const struct tool_file *f)
{
	const char *why;
	char buf[160];
	Elf *elf;

	elf_version(EV_CURRENT);
	if (tool_kind_of(f->data, f->size) != TOOL_KIND_ELF) {
		tool_err(f->path, "not an ELF file");
		return NULL;
	}
	elf = elf_memory((char *)f->data, f->size);
	why = elf ? tool_elf_defect(elf, f->size, buf, sizeof(buf)) :
	      f->size < sizeof(Elf32_Ehdr) ?
	      "truncated ELF file: shorter than its ELF header" :
	      elf_errmsg(-1);
	if (why) {
		tool_err(f->path, "%s", why);
		if (elf)
			elf_end(elf);
		return NULL;
	}
	return elf;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_addr(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -1;
	for (; *s; s++) {
		d = hex_digit(*s);
		if (d < 0 || x >> 60)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

int parse_count(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (!x)
		return -1;
	*v = x;
	return 0;
}

uint64_t *parse_addr_args(char *const *args, int n, uint64_t max)
{
	uint64_t *v;
	int i;

	if (n <= 0) {
		tool_usage("no address");
		return NULL;
	}
	v = calloc((size_t)n, sizeof(*v));
	if (!v) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (parse_addr(args[i], &v[i]) || v[i] > max) {
			tool_usage("'%s' is not a hex address%s", args[i],
				   max < UINT64_MAX ? " of 32 bits" : "");
			free(v);
			return NULL;
		}
	}
	return v;
}
