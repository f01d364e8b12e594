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
#include <elfutils/libdwfl.h>
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
	bool wrong;		/* not the file the process had mapped */
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
	bool has_symtab;	/* syms are its .symtab's, else .dynsym's */
	Dwfl_Module *dwfl_mod;	/* its libdwfl module (stack_names.c) */
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

/* The signal a core's process died of (NT_SIGINFO, else pr_cursig). */
struct stk_signal {
	int signo, code, tid;
	bool has_code;		/* from NT_SIGINFO: code and what follows */
	bool has_addr;		/* a fault: addr is where */
	uint64_t addr;
	bool has_sender;	/* sent by a process: its pid and uid */
	int pid, uid;
};

/* An address range the process had mapped, file or not. */
struct stk_range {
	uint64_t start, end;
};

struct stk_thread {
	int tid;
	bool ok;		/* registers known */
	int cursig;		/* core: the signal it was stopped by, or 0 */
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

	bool has_entry, has_vdso, has_phdr;
	uint64_t at_entry, at_vdso, at_phdr, at_phnum;

	struct stk_range *vmas;	/* every mapping, sorted once loaded */
	size_t nvmas;

	/* The program: --exe's file, or the file mapping AT_ENTRY. */
	struct stk_file *exe;
	const char *exe_arg;	/* --exe as given, or NULL */
	bool exe_refused;	/* --exe is not the core's program */

	/* core */
	struct stk_signal sig;	/* signo 0: none known */
	int ps_pid;		/* NT_PRPSINFO, 0 without */
	char ps_args[81];	/* its command line (pr_psargs) */
	uint8_t *core_img;
	size_t core_size;
	Elf *core_elf;

	/* live */
	bool live;
	int memfd;
	int *attached;
	size_t nattached;

	Dwfl *dwfl;		/* the files, for their names (stack_names.c) */

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
void stk_add_vma(struct stk_target *t, uint64_t start, uint64_t end);
bool stk_in_vma(const struct stk_target *t, uint64_t addr);
/* The core's own bytes [addr, addr + len), or NULL if it lacks some. */
const uint8_t *stk_core_bytes(const struct stk_target *t, uint64_t addr,
			      size_t len);

/* Sort what the reader found, open and place the files, build the
 * modules: 0, or -1 when --exe is not the core's program. */
int stk_target_load(struct stk_target *t);
void stk_target_free(struct stk_target *t);
const struct stk_map *stk_find_map(const struct stk_target *t, uint64_t addr);

/* stack_names.c: a frame's names. */
#define STK_MAX_INLINE	16

/* A frame's pc, the address it is named at, the file holding it. */
struct stk_frame_at {
	const struct stk_file *file;	/* NULL: none */
	uint64_t pc, look;	/* look: pc - 1 for a return address */
};

struct stk_name {
	const char *func;	/* the function's symbol, or NULL */
	uint64_t func_start;
	const char *module;	/* the file's path, or NULL */
	bool has_offset;
	uint64_t offset;	/* pc in the file's addresses */
	const char *inlined[STK_MAX_INLINE];	/* innermost first */
	size_t ninline;
};

void stk_names_begin(struct stk_target *t);
void stk_names_end(struct stk_target *t);
void stk_name(const struct stk_target *t, const struct stk_frame_at *at,
	      struct stk_name *n);

/* What `uwind stack` was asked for (stack_cmd.c). */
#define STK_MAX_FRAMES	256

struct stk_opts {
	const char *core, *exe;	/* --core, --exe; else pid, -p */
	int pid;
	const char *chrome, *text;
	const char **syms;	/* --breakpad */
	size_t nsyms;
	int *tids;		/* -t: only these threads, in this order */
	size_t ntids;
	unsigned int max_frames;	/* -n, else STK_MAX_FRAMES */
	bool no_sframe, no_convert;
	bool check_walk;	/* --check-walk (stack_verify.c) */
};

/* The exit status of --check-walk when the walks differ. */
#define STK_EXIT_DIFFER	3

/*
 * stack_print.c: every thread's walk (o's), on stdout: 0, 1 (out of
 * memory, said), or STK_EXIT_DIFFER when --check-walk found walks that
 * differ.
 */
int stk_print(struct stk_target *t, const struct stk_opts *o);

/* stack_verify.c: --check-walk. */
#define STK_VERIFY_WALKS	4	/* the walks made again, a thread */
#define STK_VERIFY_WARM		1	/* the one with the cache warm */

/* One walk of a thread: its frames and how it ended. */
struct stk_walk {
	const struct uw_frame *frames;
	size_t n;
	struct uw_walk_result res;
};

/* The walks made again, for every thread; counters for the summary. */
struct stk_verify {
	struct uw_cache cache;
	struct uw_cache_entry *entries;
	struct uw_module *mods;	/* the target's, each with a cache_id */
	size_t threads;		/* threads walked again */
	size_t differ;		/* walks that differ from the plain one */
	uint64_t hits[STK_VERIFY_WALKS], misses[STK_VERIFY_WALKS];
};

/*
 * Where walk b first differs from walk a: -1 nowhere; else the index of
 * the first frame that differs (pc, sp, cfa, source, flags, module) or
 * that one walk lacks; or, every frame alike, a->n: they ended another
 * way (stop, error).
 */
long stk_walk_diff(const struct stk_walk *a, const struct stk_walk *b);
/* Say on f how walk w (with what) of a thread differs from plain at at. */
void stk_walk_report(FILE *f, size_t number, int tid, const char *what,
		     const struct stk_walk *plain, const struct stk_walk *w,
		     long at);
/* 0, or -1 (out of memory, said). */
int stk_verify_begin(struct stk_verify *v, const struct uw_module *mods,
		     size_t nmods);
/*
 * Thread number (LWP tid) walked again every way, from regs with cfg
 * (the plain walk's) and max frames, each walk compared with plain:
 * a difference is counted in v->differ and said on stderr.
 */
void stk_verify_thread(struct stk_verify *v, const struct uw_walk_cfg *cfg,
		       const struct uw_regs *regs, size_t max,
		       const struct stk_walk *plain, size_t number, int tid);
void stk_verify_end(struct stk_verify *v);

/* stack_core.c */
int stk_core_open(struct stk_target *t, const char *core, const char *exe);
void stk_core_close(struct stk_target *t);
/* The name of a signal's si_code ("SEGV_MAPERR", "SI_USER"), or NULL. */
const char *stk_sigcode_name(int signo, int code);

/* stack_check.c */
/*
 * Whether the file, placed, is the one the process had mapped: its
 * build-id note against the core's bytes there, and for the program
 * without them, its entry and program headers against the core's
 * auxiliary vector.  0 (it is, or nothing tells), -1 (it is not: said
 * on stderr, and t->exe_refused set when it is the program --exe named).
 */
int stk_core_check_file(struct stk_target *t, struct stk_file *f);

/* stack_live.c */
int stk_live_open(struct stk_target *t, int pid);
void stk_live_close(struct stk_target *t);

#endif
