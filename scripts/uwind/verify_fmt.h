/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* uwind verify for Mach-O and Breakpad files (verify_fmt.c). */
#ifndef UWIND_TOOL_VERIFY_FMT_H
#define UWIND_TOOL_VERIFY_FMT_H

/* Every slice of a Mach-O file, or arch's: 0 all passed, 1 not. */
int verify_macho(const char *path, const char *arch);
/* A Breakpad symbol file: 0 passed, 1 not. */
int verify_breakpad(const char *path);

#endif
