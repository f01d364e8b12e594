/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* The uwind host tool: shared declarations. */
#ifndef UWIND_TOOL_H
#define UWIND_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gelf.h>
#include <uwind/uwind.h>
#include <uwind/sframe.h>
#include "input.h"
#include "uwsf.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554	/* older elf.h lacks it */
#endif

/* A table section loaded from an ELF file or a raw dump. */
struct tool_table {
	struct uw_span span;
	void *owned;		/* heap copy to free, or NULL */
	struct tool_file file;	/* or the file mapped, data NULL if not */
	const char *name;	/* section name */
};

/* Load the .sframe of an ELF file (section, else PT_GNU_SFRAME). */
int tool_load_elf_sframe(const char *path, struct tool_table *t);
/* The same for an ELF open in libelf: 0 found, 1 none, -1 error; quiet. */
struct Elf;
int tool_elf_sframe(struct Elf *elf, struct tool_table *t);
/* Load a raw section file placed at vaddr. */
int tool_load_raw(const char *path, uint64_t vaddr, struct tool_table *t);
void tool_table_free(struct tool_table *t);

/*
 * Relocatable objects and unsorted tables (sframe_obj.c): resolve an
 * object's .rela.sframe into t; init a table also when unsorted (then
 * only for uw_sframe_fde/fre); a sorted copy of an unsorted table.
 */
int tool_elf_relocate(struct Elf *elf, size_t secndx, uint64_t sec_addr,
		      struct tool_table *t);
int tool_sframe_open(struct tool_table *t, struct uw_sframe *sf,
		     bool *unsorted);
int tool_sframe_sort(const struct tool_table *t, const struct uw_sframe *sf,
		     struct tool_table *out, struct uw_sframe *sf2);

/* Print a rule in the lookup line syntax. */
void tool_print_cfa(FILE *f, const struct uw_sframe *sf, const struct uw_rule *r);
void tool_print_rule(FILE *f, const struct uw_sframe *sf, const struct uw_rule *r);

/*
 * Usage errors (usage.c): main.c names the command running and its
 * usage (its forms, a line each); tool_usage() prints "uwind: COMMAND: "
 * and the message, then the usage, on stderr, and returns 2.
 */
void tool_usage_of(const char *name, const char *usage);
void tool_print_usage(FILE *f, const char *usage);
int tool_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_dump(int argc, char **argv);
/* ARM ELF files: EHABI dump and lookup (ehabi_print.c). */
int cmd_ehabi_dump(int argc, char **argv);
int cmd_ehabi_lookup(int argc, char **argv);
int cmd_lookup(int argc, char **argv);
/* Chrome's ARM unwind tables (chrome_print.c) and conversions (convert.c). */
int cmd_chrome_dump(int argc, char **argv);
int cmd_chrome_lookup(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_stack(int argc, char **argv);
/* Breakpad's id of an ELF file (convert.c): id 34 bytes, bid 64. */
void elf_breakpad_id(struct Elf *elf, char *id, uint8_t *bid, size_t *bidlen);
/* A Mach-O file's compact unwind as STACK CFI (cu_convert.c). */
int cu_to_breakpad(const char *path, const char *arch, FILE *out);
/* Breakpad symbol files (bp_print.c). */
int cmd_bp_lookup(int argc, char **argv);
/* SFrame tables made from DWARF CFI (sframe_cmd.c). */
int cmd_sframe(int argc, char **argv);
int tool_load_uwsf(const char *path, const uint8_t *img, size_t size,
		   uint64_t bias, struct tool_table *t);
/* The module and each process's coverage (status.c). */
int cmd_status(int argc, char **argv);
int cmd_agent(int argc, char **argv);
/* The core's whole-table checks (verify.c). */
int cmd_verify(int argc, char **argv);

/* Common option parsing for --sframe RAW --vaddr ADDR or FILE. */
struct table_opts {
	const char *raw;
	const char *vaddr;
	uint64_t vaddr_v;	/* vaddr, parsed */
	const char *file;
};
int load_table_opts(const struct table_opts *o, struct tool_table *t);

/* One line of /proc/PID/maps (procmaps.c). */
struct tool_map {
	uint64_t start, end, off;
	char perms[8];
	const char *path;	/* "" when anonymous; valid during the call */
};

int tool_each_map(int pid, int (*fn)(const struct tool_map *m, void *ctx),
		  void *ctx);
/* The same, saying nothing when the file cannot be read. */
int tool_each_map_quiet(int pid,
			int (*fn)(const struct tool_map *m, void *ctx),
			void *ctx);

/*
 * The module's device (moddev.c): its path (UWIND_DEVICE overrides it,
 * for tests); opened; its status text whole (from path, NULL: the
 * device), malloc'ed (NULL, errno, when it cannot be read); one "[NAME]"
 * section of that text, malloc'ed (NULL if absent); tables were
 * installed, look again: 0, or -1 (errno).
 */
const char *mod_dev_path(void);
int mod_dev_open(int flags);
char *mod_dev_status(const char *path, size_t *len);
char *mod_dev_section(const char *text, const char *name);
int mod_dev_rescan(void);

/* The table file (uwsf.h, uwsf.c). */
struct sg_result;

/* The bytes of FILE a reader checks (check_off, _size, _crc). */
struct uwsf_check {
	uint64_t off;
	uint32_t size, crc;
};

/* A header, decoded (uwsf_parse). */
struct uwsf_hdr {
	uint16_t machine;
	bool big_endian;
	bool cfi_key;		/* no build-id: keyed by check */
	uint8_t id_len;
	uint8_t build_id[UWSF_MAX_ID];
	uint64_t vaddr;
	uint32_t sframe_size;
	struct uwsf_check check;
};

uint32_t uwsf_crc32(const uint8_t *p, size_t n);
/* The CRC of n more bytes after those whose CRC is crc (0 to start). */
uint32_t uwsf_crc32_more(uint32_t crc, const uint8_t *p, size_t n);
int uwsf_check_range(Elf *elf, struct uwsf_check *c);
void uwsf_header(const struct sg_result *r, const struct uwsf_check *c,
		 uint8_t *h);
bool uwsf_parse(const uint8_t *h, size_t size, struct uwsf_hdr *d);
int uwsf_read_header(const char *path, const uint8_t *img, size_t size,
		     struct uwsf_hdr *d);
int uwsf_check_machine(const char *path, const struct uwsf_hdr *d,
		       const struct uw_sframe *sf);

#endif
