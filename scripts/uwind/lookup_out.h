/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The answers of `uwind lookup`, one line an address whatever the
 * format (lookup_out.c):
 *
 *   ADDR KEY=RULE... [# RAW]        the rules (cfa, ra, fp, then others)
 *   ADDR STATUS [DETAIL]            none, cantunwind, refuse, outermost,
 *                                   dwarf (DETAIL: where), error (DETAIL:
 *                                   why)
 *
 * A format's printer writes each line to the FILE lk_line() gives; with
 * --json the lines become the results of one JSON object.
 */
#ifndef UWIND_TOOL_LOOKUP_OUT_H
#define UWIND_TOOL_LOOKUP_OUT_H

#include <stdio.h>

/* Start the output for file (of format "sframe", "ehabi", ...). */
void lk_begin(const char *file, const char *format);
/* Where the next line goes; lk_line_end() when it is written. */
FILE *lk_line(void);
void lk_line_end(void);
/* End the output; returns ret. */
int lk_end(int ret);

#endif
