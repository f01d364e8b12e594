/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* uwind sframe --install (install.c), and ELF files or the vDSO opened. */
#ifndef UWIND_TOOL_INSTALL_H
#define UWIND_TOOL_INSTALL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <gelf.h>

struct uwsf_check;

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
/* Remove the tables no file on the system has (sframe_gc.c). */
int cmd_gc(const struct inst_opts *o);

/*
 * The directories --system scans and --gc counts as the system
 * (NULL-terminated), and a walk of them: fn for every regular file of at
 * least 64 bytes (none under /usr/lib/debug: separate debug files), until
 * it returns non-zero.
 */
extern const char *const inst_system_dirs[];
void inst_each_system_file(int (*fn)(const char *path, void *ctx), void *ctx);

/* DIR/XX/REST.uwsf for a build-id, and the XX directory in sub. */
void inst_table_path(const char *dir, const uint8_t *id, size_t len,
		     char *path, size_t max, char *sub, size_t submax);
/*
 * Whether the table at path is one the module would use for this file:
 * a regular file owned by owner that nobody else may write, made for
 * this machine and build-id from these CFI bytes.
 */
bool inst_table_current(const char *path, uint16_t machine, const uint8_t *id,
			size_t len, const struct uwsf_check *c, uid_t owner);
/* Whether the ELF has a segment of this type (PT_GNU_SFRAME: its own table). */
bool inst_has_phdr(Elf *elf, uint32_t type);

/* A set of files (st_dev, st_ino), each read once. */
struct inst_seen {
	struct stat *st;
	size_t n;
};

/* Whether st's file is in the set; if not, it is added. */
bool inst_seen_before(struct inst_seen *seen, const struct stat *st);
/* Lock the table directory dir (made if missing): a descriptor, or -1. */
int inst_lock(const char *dir);

#endif
