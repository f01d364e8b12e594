// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind sframe --gc [--dir DIR] [-v] [--json]: remove the installed
 * tables (install.c) that no file on the system has the build-id of any
 * more: what a library upgrade leaves behind, since a table is named by
 * its file's build-id and the new file has another.
 *
 * A table DIR/XX/REST.uwsf is kept when an ELF file with that build-id
 * is found, and a table of a file without one, DIR/cfi/XX/REST.uwsf (the
 * CRC, size and place of its CFI), when a file without a build-id has
 * that CFI; among, in this order (the search ends once every table has
 * its file):
 *   1. the files it was installed from, named or found by --pid (its
 *      REST.paths note), so that a program's table in a home directory
 *      lives as long as the program is not rebuilt;
 *   2. the running kernel's vDSO, and every file a running process maps
 *      (an upgraded library's old table serves the processes that still
 *      run the old file, and the module looks tables up again after
 *      every install);
 *   3. every file under the directories --system scans
 *      (inst_system_dirs: /usr/bin, /usr/lib, ...; not /usr/lib/debug).
 * The others are removed, with their note; so are notes without a table
 * and temporary files an interrupted install left (over a day old), and
 * XX directories left empty.  The directory's lock (inst_lock) is held
 * throughout, so an install running at the same time waits.
 *
 * One line a table removed, "removed TABLE" (and with -v one a table
 * kept, "kept TABLE FILE"), then the counts.  Exit status: 0, or 1 when
 * a table could not be removed (or the directory read).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cfi.h"
#include "install.h"
#include "json.h"
#include "uwind.h"

struct gc_table {
	char *path;		/* DIR/XX/REST.uwsf, DIR/cfi/XX/REST.uwsf */
	bool cfi;		/* id: the CFI's key, not a build-id */
	uint8_t id[UWSF_MAX_ID];
	size_t id_len;
	char *file;		/* a file with its build-id: kept */
};

struct gc_ctx {
	struct gc_table *t;
	size_t n, left;		/* left: tables without a file yet */
	struct inst_seen seen;	/* files read */
	unsigned int removed, failed;
};

/* A path made with printf: false when it does not fit in PATH_MAX. */
static bool __attribute__((format(printf, 2, 3)))
pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n >= 0 && n < PATH_MAX;
}

static int id_cmp(const uint8_t *a, size_t alen, const uint8_t *b,
		  size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static int table_cmp(const void *a, const void *b)
{
	const struct gc_table *x = a, *y = b;

	if (x->cfi != y->cfi)
		return x->cfi ? 1 : -1;
	return id_cmp(x->id, x->id_len, y->id, y->id_len);
}

/* The bytes of a hex string of n digits (n even, at most 2 * max). */
static bool unhex(const char *s, size_t n, uint8_t *out, size_t max)
{
	size_t i;

	if (n % 2 || n / 2 > max)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	for (i = 0; i < n / 2; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 };

		out[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	return true;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n > m && !strcmp(s + n - m, end);
}

/* Remove path; counted as a failure (and said) when it cannot be. */
static void remove_file(struct gc_ctx *c, const char *path)
{
	if (unlink(path) && errno != ENOENT) {
		tool_err(path, "cannot remove: %s", strerror(errno));
		c->failed++;
	}
}

/*
 * One XX directory: its tables into c (cfi: under DIR/cfi); notes without
 * a table, and temporary files over a day old, removed.
 */
static int read_subdir(struct gc_ctx *c, const char *dir, const char *xx,
		       bool cfi)
{
	char sub[PATH_MAX], path[PATH_MAX], *hex;
	struct gc_table *t;
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = pathf(sub, "%s/%s", dir, xx) ? opendir(sub) : NULL;
	if (!d) {
		tool_err(sub, "%s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		size_t n = strlen(name);

		if (name[0] == '.' || !pathf(path, "%s/%s", sub, name))
			continue;
		if (ends_with(name, ".tmp")) {
			if (!lstat(path, &st) &&
			    st.st_mtime < time(NULL) - 24 * 3600)
				remove_file(c, path);
			continue;
		}
		if (ends_with(name, ".paths")) {
			char table[PATH_MAX];

			if (pathf(table, "%s/%.*s.uwsf", sub, (int)(n - 6),
				  name) && lstat(table, &st) && errno == ENOENT)
				remove_file(c, path);
			continue;
		}
		if (!ends_with(name, ".uwsf"))
			continue;
		t = realloc(c->t, (c->n + 1) * sizeof(*t));
		if (!t)
			break;
		c->t = t;
		t += c->n;
		memset(t, 0, sizeof(*t));
		hex = malloc(2 + n);
		if (!hex)
			break;
		/* XX, then REST: the build-id's hex digits. */
		snprintf(hex, 2 + n, "%s%.*s", xx, (int)(n - 5), name);
		if (unhex(hex, strlen(hex), t->id, sizeof(t->id))) {
			t->id_len = strlen(hex) / 2;
			t->cfi = cfi;
			t->path = strdup(path);
			if (t->path)
				c->n++;
		}
		free(hex);
	}
	closedir(d);
	return 0;
}

/* The XX directories of dir into c; -1 if dir is unreadable. */
static int read_xx(struct gc_ctx *c, const char *dir, bool cfi)
{
	uint8_t b;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(dir);

	if (!d) {
		tool_err(dir, "%s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (strlen(de->d_name) == 2 && unhex(de->d_name, 2, &b, 1))
			ret |= read_subdir(c, dir, de->d_name, cfi);
	closedir(d);
	return ret;
}

/*
 * Every table of dir (and of dir/cfi, when there) into c, sorted by key;
 * -1 if dir is unreadable.
 */
static int read_tables(struct gc_ctx *c, const char *dir)
{
	char cfi[PATH_MAX];
	struct stat st;
	int ret = read_xx(c, dir, false);

	if (pathf(cfi, "%s/" UWSF_CFI_SUB, dir) && !lstat(cfi, &st) &&
	    S_ISDIR(st.st_mode))
		ret |= read_xx(c, cfi, true);
	qsort(c->t, c->n, sizeof(*c->t), table_cmp);
	c->left = c->n;
	return ret;
}

/*
 * A build-id (cfi: a CFI key) found in the file at name: its table, if
 * any, is kept.
 */
static void found_id(struct gc_ctx *c, const uint8_t *id, size_t len,
		     bool cfi, const char *name)
{
	struct gc_table key, *t;

	memcpy(key.id, id, len);
	key.id_len = len;
	key.cfi = cfi;
	t = bsearch(&key, c->t, c->n, sizeof(*c->t), table_cmp);
	if (t && !t->file) {
		t->file = strdup(name);
		c->left--;
	}
}

/*
 * The CFI key of elf, a file without a build-id (name for the record):
 * the table named by it (install.c's inst_cfi_path()) is kept.  Its CRC
 * is computed only when such tables are there.
 */
static void found_cfi(struct gc_ctx *c, Elf *elf, const char *name)
{
	struct uwsf_check k;
	uint8_t id[16];
	char hex[40];

	if (!c->n || !c->t[c->n - 1].cfi || uwsf_check_range(elf, &k))
		return;
	snprintf(hex, sizeof(hex), "%08x%08x%016" PRIx64, (unsigned int)k.crc,
		 (unsigned int)k.size, k.off);
	if (unhex(hex, 32, id, sizeof(id)))
		found_id(c, id, sizeof(id), true, name);
}

/*
 * The build-id of the ELF file at open (name for the record): found_id.
 * Each file is read once, whatever its names (seen: dev and inode).
 */
static void look_at(struct gc_ctx *c, const char *open_path, const char *name,
		    bool check_seen)
{
	uint8_t id[UWSF_MAX_ID];
	unsigned char magic[4];
	struct stat st;
	size_t len;
	Elf *elf;
	int fd;

	fd = open(open_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, magic, 4, 0) != 4 || memcmp(magic, ELFMAG, 4))
		goto out;
	if (check_seen && inst_seen_before(&c->seen, &st))
		goto out;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		len = cfi_build_id(elf, id, sizeof(id));
		if (len)
			found_id(c, id, len, false, name);
		else
			found_cfi(c, elf, name);
	}
	if (elf)
		elf_end(elf);
out:
	close(fd);
}

/* 1. The files each table was installed from (its .paths note). */
static void look_at_notes(struct gc_ctx *c)
{
	char paths[PATH_MAX], line[PATH_MAX + 2];
	size_t i, n;
	FILE *f;

	for (i = 0; i < c->n && c->left; i++) {
		n = strlen(c->t[i].path);
		f = pathf(paths, "%.*s.paths", (int)(n - 5), c->t[i].path) ?
		    fopen(paths, "r") : NULL;
		while (f && !c->t[i].file && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '/')
				look_at(c, line, line, false);
		}
		if (f)
			fclose(f);
	}
}

struct gc_pid {
	struct gc_ctx *c;
	int pid;
};

static int map_cb(const struct tool_map *m, void *arg)
{
	struct gc_pid *p = arg;
	struct gc_ctx *c = p->c;
	char link[96];

	if (!strchr(m->perms, 'x') || m->path[0] != '/')
		return 0;
	/* The very file mapped, even if its path was replaced since. */
	snprintf(link, sizeof(link), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 p->pid, m->start, m->end);
	look_at(c, access(link, R_OK) ? m->path : link, m->path, true);
	return c->left ? 0 : 1;
}

/* 2. The running kernel's vDSO, and what running processes map. */
static void look_at_processes(struct gc_ctx *c)
{
	uint8_t id[UWSF_MAX_ID];
	struct inst_src s;
	struct dirent *de;
	size_t len;
	DIR *d;

	if (!inst_open("[vdso]", 0, true, &s)) {
		len = cfi_build_id(s.elf, id, sizeof(id));
		if (len)
			found_id(c, id, len, false, "[vdso]");
		else
			found_cfi(c, s.elf, "[vdso]");
		inst_close(&s);
	}
	d = opendir("/proc");
	while (d && c->left && (de = readdir(d))) {
		struct gc_pid p = { .c = c };

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		p.pid = atoi(de->d_name);
		/*
		 * Quietly: a process that exits meanwhile, or another user's
		 * (without root), has nothing to say.
		 */
		tool_each_map_quiet(p.pid, map_cb, &p);
	}
	if (d)
		closedir(d);
}

static int system_cb(const char *path, void *arg)
{
	struct gc_ctx *c = arg;

	look_at(c, path, path, true);
	return c->left ? 0 : 1;
}

/* Remove the tables without a file, say what became of each. */
static void sweep(struct gc_ctx *c, bool verbose)
{
	char paths[PATH_MAX];
	struct gc_table *t;
	size_t i, n;

	for (i = 0; i < c->n; i++) {
		t = &c->t[i];
		if (!t->file) {
			n = strlen(t->path);
			/* It fits: t->path did, and is longer. */
			pathf(paths, "%.*s.paths", (int)(n - 5), t->path);
			if (unlink(t->path) && errno != ENOENT) {
				tool_err(t->path, "cannot remove: %s",
					 strerror(errno));
				c->failed++;
				continue;
			}
			remove_file(c, paths);
			c->removed++;
		}
		if (json_wanted) {
			json_begin(NULL);
			json_str("status", t->file ? "kept" : "removed");
			json_str("table", t->path);
			json_str("file", t->file);
			json_end();
		} else if (!t->file) {
			printf("removed %s\n", t->path);
		} else if (verbose) {
			printf("kept %s %s\n", t->path, t->file);
		}
	}
}

/* The XX directories of dir left empty (rmdir refuses the others). */
static void remove_empty_xx(const char *dir)
{
	char sub[PATH_MAX];
	struct dirent *de;
	uint8_t b;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) != 2 || !unhex(de->d_name, 2, &b, 1))
			continue;
		if (pathf(sub, "%s/%s", dir, de->d_name))
			rmdir(sub);
	}
	if (d)
		closedir(d);
}

/* Those of dir and of dir/cfi (which stays). */
static void remove_empty(const char *dir)
{
	char cfi[PATH_MAX];

	remove_empty_xx(dir);
	if (pathf(cfi, "%s/" UWSF_CFI_SUB, dir))
		remove_empty_xx(cfi);
}

int cmd_gc(const struct inst_opts *o)
{
	const char *dir = o->dir ? o->dir : UWSF_DIR;
	struct gc_ctx c = { 0 };
	struct stat st;
	int lock = -1, ret = 0;
	size_t i;

	if (!o->dir && geteuid()) {
		fprintf(stderr, "uwind: --gc removes files from %s, which only"
			" root may do (--dir DIR works elsewhere)\n", UWSF_DIR);
		return 1;
	}
	elf_version(EV_CURRENT);
	/* No directory, no tables: nothing to do, and nothing is made. */
	if (!stat(dir, &st)) {
		lock = inst_lock(dir);
		ret = read_tables(&c, dir);
	}
	if (c.left)
		look_at_notes(&c);
	if (c.left)
		look_at_processes(&c);
	if (c.left)
		inst_each_system_file(system_cb, &c);
	if (json_wanted) {
		json_begin(NULL);
		json_str("dir", dir);
		json_begin_array("results");
	}
	sweep(&c, o->verbose);
	if (c.removed)
		remove_empty(dir);
	if (json_wanted) {
		json_end_array();
		json_int("removed", c.removed);
		json_int("kept", (long long)(c.n - c.removed - c.failed));
		json_int("failed", c.failed);
		json_end();
	} else {
		printf("uwind: %u removed, %zu kept, %u failed\n", c.removed,
		       c.n - c.removed - c.failed, c.failed);
	}
	for (i = 0; i < c.n; i++) {
		free(c.t[i].path);
		free(c.t[i].file);
	}
	free(c.t);
	free(c.seen.st);
	if (lock >= 0)
		close(lock);
	return ret || c.failed ? 1 : 0;
}
