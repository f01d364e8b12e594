/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * A small Mach-O reader for the uwind tool: 64-bit images (x86-64,
 * arm64) and universal ("fat") files holding them.  Only what the tool
 * needs: segments (to read text by address), the __TEXT,__unwind_info,
 * __eh_frame and __text sections, function symbols and the UUID.  Every
 * header, load command and table is checked against the file's size.
 */
#ifndef UWIND_TOOL_MACHO_H
#define UWIND_TOOL_MACHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uwind/uwind.h>

struct macho_sect {
	uint64_t addr, size, off;	/* off: from the slice's start */
	bool found;
};

struct macho_seg {
	uint64_t vmaddr, vmsize, fileoff, filesize;
};

struct macho_sym {
	uint64_t addr;
	const char *name;	/* without the leading '_' */
};

struct macho {
	uint8_t *file;		/* the whole file (mmap) */
	size_t file_size;
	const uint8_t *img;	/* the selected slice */
	size_t size;
	enum uw_arch arch;
	const char *arch_name;	/* "x86_64", "arm64" */
	uint64_t base;		/* __TEXT's vmaddr: the image's base */
	struct macho_sect unwind_info, eh_frame, text;
	struct macho_seg *segs;
	size_t nsegs;
	struct macho_sym *syms;	/* sorted by address */
	size_t nsyms;
	uint8_t uuid[16];
	bool has_uuid;
};

/* Does the file start with a Mach-O or fat magic number? */
bool macho_is(const char *path);

/*
 * Open path; arch (NULL or "x86_64", "arm64", also "x86-64", "aarch64")
 * picks a fat file's slice and must match a thin file.  0 or -1 with a
 * message on stderr.
 */
int macho_open(const char *path, const char *arch, struct macho *m);
void macho_close(struct macho *m);

/*
 * The slices of a fat file: up to max architecture names ("x86_64",
 * "arm64", ...) into names, and how many; 0 for a thin file; -1 with a
 * message.
 */
int macho_slices(const char *path, const char **names, int max);

/* Read len bytes at address addr from the image's segments: 0 or -1. */
int macho_read(const struct macho *m, uint64_t addr, void *dst, size_t len);

/* The function symbol at or before addr (NULL if none). */
const struct macho_sym *macho_sym(const struct macho *m, uint64_t addr);

/* Take --arch NAME out of argv (shifting the rest): NULL if absent. */
const char *take_arch(int *argc, char **argv);

#endif
