/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* uwind sframe --install (install.c), and ELF files or the vDSO opened. */
#ifndef UWIND_TOOL_INSTALL_H
#define UWIND_TOOL_INSTALL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <gelf.h>
#include "uwind.h"

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
 * What a file's table is known by and where it goes: its build-id
 * (DIR/XX/REST.uwsf), or without one its CFI (DIR/cfi/XX/REST.uwsf), and
 * the CFI bytes it is checked against.
 */
struct inst_key {
	uint16_t machine;
	uint8_t id[UWSF_MAX_ID];
	size_t id_len;		/* 0: keyed by chk */
	struct uwsf_check chk;
	char path[PATH_MAX], sub[PATH_MAX];	/* the table, its directory */
};

/* inst_key_of()'s answers other than 0. */
#define INST_OWN_SFRAME	1	/* PT_GNU_SFRAME: a table of its own */
#define INST_NO_CFI	2	/* no .eh_frame or .debug_frame */
#define INST_NO_KEY	3	/* ... and no build-id either */

int inst_key_of(Elf *elf, const char *dir, struct inst_key *k);
/* k's path and directory under dir, from its id (or its chk). */
void inst_key_path(const char *dir, struct inst_key *k);
/*
 * Note in table's REST.paths that it was installed from the file name
 * (an absolute path), for --gc: best effort.
 */
void inst_note_source(const char *table, const char *name);
/* The same for abs, a path already absolute and resolved. */
void inst_note_path(const char *table, const char *abs);
/* Whether the header d is the one a table of key k has. */
struct uwsf_hdr;
bool inst_hdr_is(const struct uwsf_hdr *d, const struct inst_key *k);
/*
 * Whether the table of k is one the module would use for its file: a
 * regular file owned by owner that nobody else may write, made for this
 * machine and key from these CFI bytes.
 */
bool inst_key_current(const struct inst_key *k, uid_t owner);
/* mkdir -p, each directory 0755: 0, or -1 (errno). */
int inst_make_dirs(const char *path);
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
