/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* A Breakpad symbol file mapped for the core (bp_print.c). */
#ifndef UWIND_TOOL_BP_FILE_H
#define UWIND_TOOL_BP_FILE_H

#include <stdio.h>
#include <uwind/breakpad.h>

struct bp_file {
	uint8_t *map;		/* the file, mapped (tool_file_map) */
	size_t size;
	struct uw_bp bp;
	struct uw_bp_idx *idx;	/* bp_file_index(): the index in use */
};

/* Map path and read it with uw_bp_init at base: 0, or -1 with a message. */
int bp_file_open(const char *path, uint64_t base, struct bp_file *f);
/* Build the fixed-size index and make lookups use it. */
int bp_file_index(struct bp_file *f);
void bp_file_close(struct bp_file *f);
/* `ADDR cfa=... ra=... fp=...` for pc; 1 on an error line. */
int bp_lookup_line(const struct bp_file *f, uint64_t pc, bool verbose,
		   FILE *out);

#endif
