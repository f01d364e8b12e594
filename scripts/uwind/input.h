/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The files the tool is given (input.c): checked before anything is read
 * (a directory, a device, a FIFO or an empty file is refused with what it
 * is), then mapped, never read whole; what kind of file the first bytes
 * say it is; and why an ELF file cannot be used (not ELF, truncated).
 * Every refusal is printed "uwind: FILE: why" on stderr.
 */
#ifndef UWIND_TOOL_INPUT_H
#define UWIND_TOOL_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* A file mapped private and writable (libelf may convert data in place). */
struct tool_file {
	const char *path;
	uint8_t *data;
	size_t size;
};

enum tool_kind {
	TOOL_KIND_OTHER,
	TOOL_KIND_ELF,
	TOOL_KIND_UWSF,		/* a table file of `uwind sframe -o` */
	TOOL_KIND_MACHO,
};

/* Print "uwind: PATH: " and the message, on stderr. */
void tool_err(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Whether path names a regular, non-empty file: 0, else -1 with why
 * printed (quiet: not printed), errno-style text in why when given.
 */
int tool_file_check(const char *path, bool quiet, const char **why);
/* Check, open and map path: 0, or -1 with why printed. */
int tool_file_map(const char *path, struct tool_file *f);
void tool_file_unmap(struct tool_file *f);
/* What the first bytes of a file say it is. */
enum tool_kind tool_kind_of(const uint8_t *data, size_t size);

/*
 * The ELF file of a mapped file: NULL with why printed ("not an ELF
 * file", "truncated ELF file ...") when libelf cannot read it or its
 * headers or sections reach past the end of the file.
 */
Elf *tool_file_elf(const struct tool_file *f);
/* 0 if elf (NULL or not) is a usable ELF file, else -1 with why printed. */
int tool_elf_check(const char *path, Elf *elf);
/* Why elf, whose file is size bytes, cannot be used; NULL if it can. */
const char *tool_elf_defect(Elf *elf, size_t size, char *buf, size_t len);

/* A hex address ("0x" optional, as addr2line reads them): 0, or -1. */
int parse_addr(const char *s, uint64_t *v);
/*
 * The n address arguments of a lookup, each at most max, in a malloc'ed
 * array; NULL (none, or one not a hex address) with why printed.
 */
uint64_t *parse_addr_args(char *const *args, int n, uint64_t max);
/* A decimal count or id, 1 to max: 0, or -1. */
int parse_count(const char *s, uint64_t max, uint64_t *v);

#endif
