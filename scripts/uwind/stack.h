/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * `uwind stack`: the target (core file or live process) behind a walk.
 *
 * A target is a set of threads (registers in DWARF numbering), a list of
 * file mappings, and memory: the core's PT_LOAD contents first, then the
 * bytes of the mapped files; or, for a live process, its memory.  The
 * mapped ELF files give the modules the walker needs (text range and
 * SFrame or, on 32-bit ARM, EHABI tables) and the symbols the output
 * names frames with.
 */
#ifndef UWIND_TOOL_STACK_H
#define UWIND_TOOL_STACK_H

#include <gelf.h>
#include <stdbool.h>
#include <sys/types.h>
#include "uwind.h"

struct stk_sym {
	uint64_t addr, size;	/* run-time address */
	const char *name;
	int bind;		/* STB_*: prefer global names on ties */
};

/* One ELF image: a mapped file, or the vDSO read from the target. */
struct stk_file {
	char *path;		/* name printed in frames */
	char *open_path;	/* file opened (--exe, /proc/PID/map_files) */
	uint8_t *img;		/* whole file, NULL when it cannot be read */
	size_t size;
	bool heap;		/* img is malloc'ed, not mmap'ed */
	bool tried;		/* opening was attempted */
	Elf *elf;
	bool placed;		/* bias known */
	int64_t bias;		/* run-time address - ELF vaddr */
	struct tool_table tab;
	struct uw_sframe sf;
	bool has_sframe;
	struct uw_ehabi eh;	/* ARM: .ARM.exidx/.ARM.extab, read in img */
	bool has_ehabi;
	struct stk_sym *syms;
	size_t nsyms;
};

/* [start, end) maps file bytes from offset off on (off in bytes). */
struct stk_map {
	uint64_t start, end, off;
	struct stk_file *file;
};

/* Memory the core holds: [start, start + size) = data. */
struct stk_seg {
	uint64_t start, size;
	const uint8_t *data;
};

struct stk_thread {
	int tid;
	bool ok;		/* registers known */
	struct uw_regs regs;
};

struct stk_target {
	enum uw_arch arch;
	bool big_endian;
	bool elf32;		/* ELFCLASS32 core: 4-byte note words */
	uint64_t pac_mask;
	uint64_t page_size;
	bool convert;		/* SFrame from DWARF CFI for files without */
	int pid;

	struct stk_thread *threads;
	size_t nthreads;
	struct stk_file **files;
	size_t nfiles;
	struct stk_map *maps;	/* sorted by start once loaded */
	size_t nmaps;
	struct stk_seg *segs;	/* sorted by start once loaded */
	size_t nsegs;

	bool has_entry, has_vdso;
	uint64_t at_entry, at_vdso;

	/* core */
	uint8_t *core_img;
	size_t core_size;
	Elf *core_elf;

	/* live */
	bool live;
	int memfd;
	int *attached;
	size_t nattached;

	struct uw_module *mods;	/* sorted by start */
	struct stk_file **mod_file;
	size_t nmods;
};

/* Helpers shared by the core and live readers (stack.c). */
void *stk_xrealloc(void *p, size_t n, size_t size);
struct stk_file *stk_file_get(struct stk_target *t, const char *path);
int stk_add_map(struct stk_target *t, uint64_t start, uint64_t end,
		uint64_t off, const char *path);
int stk_add_thread(struct stk_target *t, int tid, const uint8_t *regs,
		   size_t len);
int stk_file_open(struct stk_file *f);
/* mmap a regular file of at least min_size bytes privately; NULL on error. */
void *stk_map_file(const char *path, size_t min_size, const char *what,
		   size_t *size);
void stk_add_vdso(struct stk_target *t, uint64_t base, uint8_t *img,
		  size_t size);
int stk_load_image(struct stk_file *f, uint8_t *img, size_t size, bool heap);
int stk_read(void *ctx, uint64_t addr, void *dst, size_t len);
uint64_t stk_load_u64(const uint8_t *p, bool big_endian);

/* stack_core.c */
int stk_core_open(struct stk_target *t, const char *core, const char *exe);
void stk_core_close(struct stk_target *t);

/* stack_live.c */
int stk_live_open(struct stk_target *t, int pid);
void stk_live_close(struct stk_target *t);

#endif
