/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* uwind sframe --install (install.c), and ELF files or the vDSO opened. */
#ifndef UWIND_TOOL_INSTALL_H
#define UWIND_TOOL_INSTALL_H

#include <stdbool.h>
#include <gelf.h>

/* An ELF file or image opened for reading. */
struct inst_src {
	Elf *elf;
	int fd;
	void *heap;		/* the vDSO's bytes, or NULL */
	const char *why;	/* after a failed inst_open: why */
	char whybuf[160];
};

/*
 * Open NAME, a path or "[vdso]" (the vDSO of process pid, 0: ours).
 * 0, or -1 with why in s->why, also printed unless quiet.
 */
int inst_open(const char *name, int pid, bool quiet, struct inst_src *s);
void inst_close(struct inst_src *s);

struct inst_opts {
	const char *dir;	/* NULL: UWSF_DIR */
	bool verbose;
	bool system;	/* every program and library, and the vDSO */
	int pid;		/* 0, or every executable mapping of pid */
};

/* Install the tables of files[] and what o names; the exit status. */
int cmd_install(const struct inst_opts *o, const char *const *files, int n);

#endif
