/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * `uwind sframe --check`: what a table made from a file's DWARF CFI
 * covers, file by file and in total over them, as text or JSON
 * (sframe_report.c).
 */
#ifndef UWIND_TOOL_SFRAME_REPORT_H
#define UWIND_TOOL_SFRAME_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "sframe_gen.h"

/* The sum over the files reported. */
struct sg_total {
	struct sg_stats st;
	uint64_t size;			/* bytes of tables */
	unsigned int files, failed;
};

/* Around the reports of one run (JSON: the object and its array). */
void sg_report_begin(void);
void sg_report_end(const struct sg_total *t);
/* One file's report on f (with --json: stdout), added to t if not NULL. */
void sg_report(FILE *f, const char *path, const struct sg_result *r,
	       bool verbose, struct sg_total *t);
/* A file that could not be converted (JSON: its entry with why). */
void sg_report_failed(const char *path, const char *why, struct sg_total *t);

#endif
