// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind sframe --install: tables made from DWARF CFI, installed for the
 * kernel module (kernel/README.md, "Stock binaries: installed tables").
 *
 *   uwind sframe --install [--dir DIR] [-v] FILE...|--vdso
 *   uwind sframe --install [--dir DIR] [-v] --pid PID
 *   uwind sframe --install [--dir DIR] [-v] --system
 *
 * Each file without a PT_GNU_SFRAME segment gets its table at
 * DIR/XX/REST.uwsf (DIR: /var/lib/uwind/build-id; XX the first byte of
 * its GNU build-id in hex, REST the others), written to a temporary name
 * and renamed, mode 0644, the directories 0755: the module uses a table
 * only when the file and its directories belong to root and nobody else
 * may write them.  A table already there for the same build-id and the
 * same CFI bytes is left as it is (a second run costs a CRC a file).
 * --pid takes every executable mapping of a process (the files through
 * /proc/PID/map_files, so the very file mapped, and its vDSO through
 * /proc/PID/mem), --system every ELF program and library of this machine's
 * architecture under the usual directories, and the vDSO.  When the
 * module is loaded, it is told to look again (/dev/uwind, moddev.c),
 * so processes already running get their tables too.
 *
 * One line a file: "installed NAME PATH", "up-to-date NAME PATH",
 * "own-sframe NAME", "skipped NAME: why" (a file --pid or --system found
 * that can have no table: no build-id, no CFI), "failed NAME: why"; then
 * the counts.  Exit status: 0 when every file got its table or already
 * had one (or was skipped), 1 otherwise, 2 bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cfi.h"
#include "input.h"
#include "install.h"
#include "json.h"
#include "sframe_gen.h"
#include "uwind.h"
#include "uwsf.h"

struct inst_ctx {
	const char *dir;
	bool verbose;
	bool filter;		/* --pid, --system: skip others' quietly */
	bool record;		/* note where a table came from (record_source) */
	uint16_t machine;	/* with filter: the machine of this tool */
	unsigned int installed, uptodate, own, skipped, failed;
	struct inst_seen seen;	/* files done */
};

/* The bytes of pid's (0: our own) vDSO, malloc'ed; NULL if it has none. */
static void *read_vdso(int pid, size_t *size)
{
	char path[64], line[512];
	unsigned long lo, hi;
	void *img = NULL;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), pid ? "/proc/%d/maps" : "/proc/self/maps",
		 pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " [vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi > lo &&
		    hi - lo <= (64ul << 20))
			break;
		lo = hi = 0;
	}
	fclose(f);
	if (hi <= lo)
		return NULL;
	snprintf(path, sizeof(path), pid ? "/proc/%d/mem" : "/proc/self/mem",
		 pid);
	fd = open(path, O_RDONLY);
	img = fd >= 0 ? malloc(hi - lo) : NULL;
	if (img && pread(fd, img, hi - lo, (off_t)lo) != (ssize_t)(hi - lo)) {
		free(img);
		img = NULL;
	}
	if (fd >= 0)
		close(fd);
	*size = hi - lo;
	return img;
}

/*
 * Open NAME for reading (a path, or "[vdso]": the vDSO of pid, 0 for
 * ours) into s.  0, or -1 with a message printed unless quiet.
 */
static int open_file(const char *name, struct inst_src *s)
{
	size_t size;

	if (tool_file_check(name, true, &s->why))
		return -1;
	s->fd = open(name, O_RDONLY);
	if (s->fd < 0) {
		s->why = strerror(errno);
		return -1;
	}
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF ||
	    !elf_rawfile(s->elf, &size)) {
		s->why = "not an ELF file";
		return -1;
	}
	s->why = tool_elf_defect(s->elf, size, s->whybuf, sizeof(s->whybuf));
	return s->why ? -1 : 0;
}

int inst_open(const char *name, int pid, bool quiet, struct inst_src *s)
{
	size_t size = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	elf_version(EV_CURRENT);
	if (!strcmp(name, "[vdso]")) {
		s->heap = read_vdso(pid, &size);
		s->elf = s->heap ? elf_memory(s->heap, size) : NULL;
		s->why = s->heap ? "the vDSO is not an ELF image" :
			 "cannot read the vDSO";
		ret = s->elf && elf_kind(s->elf) == ELF_K_ELF ? 0 : -1;
	} else {
		ret = open_file(name, s);
	}
	if (ret) {
		if (!quiet)
			tool_err(name, "%s", s->why);
		/* Kept for the caller's message, past inst_close(). */
		snprintf(s->whybuf, sizeof(s->whybuf), "%s", s->why);
		inst_close(s);
		s->why = s->whybuf;
		return -1;
	}
	s->why = NULL;
	return 0;
}

void inst_close(struct inst_src *s)
{
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s->heap);
	s->elf = NULL;
	s->heap = NULL;
	s->fd = -1;
}

bool inst_has_phdr(Elf *elf, uint32_t type)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == type)
			return true;
	return false;
}

/* A program or library of our machine, with code: what --system takes. */
static bool is_ours(Elf *elf, uint16_t machine)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != machine ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && ph.p_filesz)
			return true;
	return false;
}

void inst_table_path(const char *dir, const uint8_t *id, size_t len,
		     char *path, size_t max, char *sub, size_t submax)
{
	size_t i, o;

	snprintf(sub, submax, "%s/%02x", dir, id[0]);
	o = (size_t)snprintf(path, max, "%s/", sub);
	for (i = 1; i < len && o + 3 < max; i++)
		o += (size_t)snprintf(path + o, max - o, "%02x", id[i]);
	snprintf(path + o, max - o, ".uwsf");
}

/* DIR/cfi/XX/REST.uwsf for a file without a build-id (uwsf.h). */
static void inst_cfi_path(const char *dir, const struct uwsf_check *c,
			  char *path, size_t max, char *sub, size_t submax)
{
	int n;

	snprintf(sub, submax, "%s/" UWSF_CFI_SUB "/%02x", dir,
		 (unsigned int)(c->crc >> 24));
	n = snprintf(path, max, "%s/%06x%08x%016" PRIx64 ".uwsf", sub,
		     (unsigned int)(c->crc & 0xffffff), (unsigned int)c->size,
		     c->off);
	if (n < 0 || (size_t)n >= max)
		path[0] = '\0';	/* too long: no table there */
}

void inst_key_path(const char *dir, struct inst_key *k)
{
	if (k->id_len)
		inst_table_path(dir, k->id, k->id_len, k->path,
				sizeof(k->path), k->sub, sizeof(k->sub));
	else
		inst_cfi_path(dir, &k->chk, k->path, sizeof(k->path), k->sub,
			      sizeof(k->sub));
}

int inst_key_of(Elf *elf, const char *dir, struct inst_key *k)
{
	GElf_Ehdr eh;

	memset(k, 0, sizeof(*k));
	if (inst_has_phdr(elf, PT_GNU_SFRAME))
		return INST_OWN_SFRAME;
	if (!gelf_getehdr(elf, &eh))
		return INST_NO_CFI;
	k->machine = eh.e_machine;
	k->id_len = cfi_build_id(elf, k->id, sizeof(k->id));
	if (uwsf_check_range(elf, &k->chk))
		return k->id_len ? INST_NO_CFI : INST_NO_KEY;
	inst_key_path(dir, k);
	return 0;
}

bool inst_hdr_is(const struct uwsf_hdr *d, const struct inst_key *k)
{
	return d->machine == k->machine && d->id_len == k->id_len &&
	       d->cfi_key == !k->id_len &&
	       !memcmp(d->build_id, k->id, k->id_len) &&
	       d->check.off == k->chk.off && d->check.size == k->chk.size &&
	       d->check.crc == k->chk.crc;
}

bool inst_key_current(const struct inst_key *k, uid_t owner)
{
	uint8_t h[UWSF_HDR_SIZE];
	struct uwsf_hdr d;
	struct stat st;
	bool ok;
	int fd = open(k->path, O_RDONLY | O_NOFOLLOW);

	if (fd < 0)
		return false;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     st.st_size >= UWSF_HDR_SIZE &&
	     st.st_uid == owner && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
	     pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     uwsf_parse(h, (size_t)st.st_size, &d) && inst_hdr_is(&d, k);
	close(fd);
	return ok;
}

/* mkdir -p path, each directory made 0755 whatever the umask. */
int inst_make_dirs(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i])
			continue;
		buf[i] = '\0';
		if (!mkdir(buf, 0755))
			chmod(buf, 0755);
		else if (errno != EEXIST)
			return -1;
		buf[i] = path[i];
	}
	return 0;
}

/* Write header and section to path, atomically (a temporary, renamed). */
static int write_table(const char *path, const uint8_t *hdr,
		       const struct sg_result *r)
{
	char tmp[PATH_MAX + 32];
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0644) ||
	    write(fd, hdr, UWSF_HDR_SIZE) != UWSF_HDR_SIZE ||
	    write(fd, r->sec, r->size) != (ssize_t)r->size)
		ret = -1;
	if (close(fd))
		ret = -1;
	if (!ret && rename(tmp, path))
		ret = -1;
	if (ret)
		unlink(tmp);
	return ret;
}

/*
 * One file's outcome: "STATUS NAME[ TABLE][: WHY]" (the size of a table
 * made, with -v), or a result object with --json.
 */
static void result(const struct inst_ctx *c, const char *status,
		   const char *name, const char *table, const char *why,
		   const struct sg_result *r)
{
	if (json_wanted) {
		json_begin(NULL);
		json_str("status", status);
		json_str("file", name);
		if (table)
			json_str("table", table);
		if (why)
			json_str("reason", why);
		if (r) {
			json_int("bytes", (long long)r->size);
			json_int("version", r->st.version);
			json_int("fdes", (long long)r->st.out_fdes);
		}
		json_end();
		return;
	}
	printf("%s %s%s%s%s%s\n", status, name, table ? " " : "",
	       table ? table : "", why ? ": " : "", why ? why : "");
	if (r && c->verbose)
		printf("  %zu bytes, SFrame V%u, %llu FDEs\n", r->size,
		       r->st.version, (unsigned long long)r->st.out_fdes);
}

static void failed(struct inst_ctx *c, const char *name, const char *why)
{
	result(c, "failed", name, NULL, why, NULL);
	c->failed++;
}

/*
 * A file that can have no table (no build-id, no CFI): a failure when it
 * was named, skipped when --pid or --system found it.
 */
static void cannot(struct inst_ctx *c, const char *name, const char *why)
{
	if (!c->filter) {
		failed(c, name, why);
		return;
	}
	result(c, "skipped", name, NULL, why, NULL);
	c->skipped++;
}

/*
 * Note that the table at table was installed from the file at name, in
 * the table's ".paths" file (one absolute path a line), so that --gc
 * keeps a table whose file lies outside the directories --system scans
 * (a program in a home directory) while that file still has its
 * build-id.  Only for files named or found by --pid: --gc finds the
 * --system ones by itself.  Best effort: a table without its note is
 * kept only while a file --gc looks at has its build-id.
 */
void inst_note_source(const char *table, const char *name)
{
	char abs[PATH_MAX];

	if (realpath(name, abs))
		inst_note_path(table, abs);
}

void inst_note_path(const char *table, const char *abs)
{
	char paths[PATH_MAX], tmp[PATH_MAX + 32];
	char line[PATH_MAX + 2];
	bool found = false;
	FILE *in, *out;
	size_t n;

	if (abs[0] != '/' || strchr(abs, '\n'))
		return;
	n = strlen(table);
	if (n < 5 || n + 2 >= sizeof(paths))
		return;
	snprintf(paths, sizeof(paths), "%.*s.paths", (int)(n - 5), table);
	in = fopen(paths, "r");
	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, abs))
			found = true;
	}
	if (found) {
		fclose(in);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", paths, (int)getpid());
	out = fopen(tmp, "w");
	if (out && in) {
		rewind(in);
		while (fgets(line, sizeof(line), in))
			fputs(line, out);
	}
	if (in)
		fclose(in);
	if (!out)
		return;
	fprintf(out, "%s\n", abs);
	if (fchmod(fileno(out), 0644) | fclose(out) || rename(tmp, paths))
		unlink(tmp);
}

static void record_source(const struct inst_ctx *c, const char *table,
			  const char *name)
{
	if (c->record)
		inst_note_source(table, name);
}

/* Install the table of one opened file (name for messages). */
static void install_elf(struct inst_ctx *c, Elf *elf, const char *name)
{
	char err[160] = "";
	uint8_t hdr[UWSF_HDR_SIZE];
	struct inst_key k;
	struct sg_result r;
	int ret;

	if (c->filter && !is_ours(elf, c->machine))
		return;
	ret = inst_key_of(elf, c->dir, &k);
	if (ret == INST_OWN_SFRAME) {
		result(c, "own-sframe", name, NULL, NULL, NULL);
		c->own++;
		return;
	}
	if (ret) {
		cannot(c, name, ret == INST_NO_KEY ?
		       "no GNU build-id and no CFI section to key a table to" :
		       "no .eh_frame or .debug_frame");
		return;
	}
	if (inst_key_current(&k, geteuid())) {
		result(c, "up-to-date", name, k.path, NULL, NULL);
		c->uptodate++;
		record_source(c, k.path, name);
		return;
	}
	ret = sg_convert(elf, SG_TABLE_ONLY, &r, err, sizeof(err));
	if (ret) {
		if (ret > 0)
			cannot(c, name, "no DWARF CFI");
		else
			failed(c, name, err);
		if (ret > 0)
			sg_result_free(&r);
		return;
	}
	uwsf_header(&r, &k.chk, hdr);
	if (inst_make_dirs(k.sub) || write_table(k.path, hdr, &r)) {
		/* Where it could not write, and why. */
		result(c, "failed", name, k.path, strerror(errno), NULL);
		c->failed++;
	} else {
		result(c, "installed", name, k.path, NULL, &r);
		c->installed++;
		record_source(c, k.path, name);
	}
	sg_result_free(&r);
}

bool inst_seen_before(struct inst_seen *seen, const struct stat *st)
{
	struct stat *n;
	size_t i;

	for (i = 0; i < seen->n; i++)
		if (seen->st[i].st_dev == st->st_dev &&
		    seen->st[i].st_ino == st->st_ino)
			return true;
	n = realloc(seen->st, (seen->n + 1) * sizeof(*n));
	if (n) {
		seen->st = n;
		seen->st[seen->n++] = *st;
	}
	return false;
}

/* Whether the file open at fd was done already (else remember it). */
static bool seen_before(struct inst_ctx *c, int fd)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && inst_seen_before(&c->seen, &st);
}

/*
 * One file or the vDSO ("[vdso]" of pid); open is the path to open (a
 * /proc/PID/map_files link) when it differs from name.
 */
static void install_one(struct inst_ctx *c, const char *name, const char *open,
			int pid)
{
	struct inst_src s;

	if (inst_open(open ? open : name, pid, true, &s)) {
		if (!c->filter)
			failed(c, name, s.why);
		return;
	}
	if (!seen_before(c, s.fd))
		install_elf(c, s.elf, name);
	inst_close(&s);
}

struct pid_ctx {
	struct inst_ctx *c;
	int pid;
};

/* One mapping of the process: its file, or its vDSO, if executable. */
static int install_map(const struct tool_map *m, void *arg)
{
	struct pid_ctx *p = arg;
	char link[96];

	if (!strchr(m->perms, 'x'))
		return 0;
	if (!strcmp(m->path, "[vdso]")) {
		install_one(p->c, "[vdso]", NULL, p->pid);
		return 0;
	}
	if (m->path[0] != '/')
		return 0;
	/* The very file mapped, even if its path now names another. */
	snprintf(link, sizeof(link), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 p->pid, m->start, m->end);
	install_one(p->c, m->path, access(link, R_OK) ? NULL : link, p->pid);
	return 0;
}

/* Every executable mapping of process pid. */
static int install_pid(struct inst_ctx *c, int pid)
{
	struct pid_ctx p = { .c = c, .pid = pid };

	return tool_each_map(pid, install_map, &p);
}

/*
 * The directories --system scans, and --gc counts as the system: where
 * programs and libraries are installed.  A directory that is a symbolic
 * link (/lib on a merged-/usr system) is not followed: what it points to
 * is in the list.
 */
const char *const inst_system_dirs[] = {
	"/bin", "/sbin", "/lib", "/lib64", "/libexec",
	"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64",
	"/usr/libexec", "/usr/local/bin", "/usr/local/sbin",
	"/usr/local/lib", "/usr/local/lib64", "/usr/local/libexec",
	NULL,
};

/* nftw() passes no context: the walk's, one walk at a time. */
static int (*walk_fn_user)(const char *path, void *ctx);
static void *walk_arg;
static bool walk_stop;

static int walk_fn(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	static const char debug[] = "/usr/lib/debug";

	(void)ftw;
	if (type == FTW_D && !strncmp(path, debug, sizeof(debug) - 1))
		return FTW_SKIP_SUBTREE;	/* separate debug files */
	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size < 64)
		return FTW_CONTINUE;
	if (walk_fn_user(path, walk_arg)) {
		walk_stop = true;
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

void inst_each_system_file(int (*fn)(const char *path, void *ctx), void *ctx)
{
	size_t i;

	walk_fn_user = fn;
	walk_arg = ctx;
	walk_stop = false;
	for (i = 0; inst_system_dirs[i] && !walk_stop; i++)
		nftw(inst_system_dirs[i], walk_fn, 16,
		     FTW_PHYS | FTW_ACTIONRETVAL);
}

static int install_path(const char *path, void *ctx)
{
	install_one(ctx, path, NULL, 0);
	return 0;
}

/* Every program and library under the usual directories, and the vDSO. */
static void install_all(struct inst_ctx *c)
{
	inst_each_system_file(install_path, c);
	install_one(c, "[vdso]", NULL, 0);
}

/* Tell a loaded module to look for installed tables again. */
static void notify_module(void)
{
	if (!mod_dev_rescan())
		return;
	if (!access("/sys/module/uwind", F_OK))
		fprintf(stderr, "uwind: the module is loaded but %s cannot be"
			" used (%s): processes already running keep their"
			" tables until they map or unmap a file\n",
			mod_dev_path(), strerror(errno));
}

/* The e_machine of this program (what --pid and --system install for). */
static uint16_t own_machine(void)
{
	struct inst_src s;
	GElf_Ehdr eh;
	uint16_t m = 0;

	if (!inst_open("/proc/self/exe", 0, true, &s)) {
		if (gelf_getehdr(s.elf, &eh))
			m = eh.e_machine;
		inst_close(&s);
	}
	return m;
}

/*
 * Hold DIR's lock (DIR/.lock, which is no table: the module looks only
 * for XX/REST.uwsf): an install and a --gc running at once (the service
 * starting while dpkg's trigger runs) would otherwise see each other's
 * half-done work.  The descriptor to close, or -1 when the directory
 * cannot be made or locked (then without: nothing worse than before).
 */
int inst_lock(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	if (inst_make_dirs(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int cmd_install(const struct inst_opts *o, const char *const *files, int n)
{
	struct inst_ctx c = { .dir = o->dir ? o->dir : UWSF_DIR,
			      .verbose = o->verbose };
	int i, lock;

	if (!o->dir && geteuid()) {
		fprintf(stderr, "uwind: --install writes %s, which only root"
			" may do: the module uses only tables that root owns"
			" (--dir DIR writes elsewhere)\n", UWSF_DIR);
		return 1;
	}
	c.filter = o->pid || o->system;
	c.machine = own_machine();
	if (json_wanted) {
		json_begin(NULL);
		json_str("dir", c.dir);
		json_begin_array("results");
	}
	lock = inst_lock(c.dir);
	c.record = true;
	if (o->pid && install_pid(&c, o->pid))
		c.failed++;
	c.record = false;
	if (o->system)
		install_all(&c);
	c.record = true;
	for (i = 0; i < n; i++)
		install_one(&c, files[i], NULL, 0);
	if (c.installed)
		notify_module();
	if (json_wanted) {
		json_end_array();
		json_int("installed", c.installed);
		json_int("up_to_date", c.uptodate);
		json_int("own_sframe", c.own);
		json_int("skipped", c.skipped);
		json_int("failed", c.failed);
		json_end();
	} else {
		printf("uwind: %u installed, %u up to date, %u with their own"
		       " SFrame, %u skipped, %u failed\n", c.installed,
		       c.uptodate, c.own, c.skipped, c.failed);
	}
	free(c.seen.st);
	if (lock >= 0)
		close(lock);
	return c.failed ? 1 : 0;
}
