// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind status [-p PID] [--dir DIR] [--json]: whether the kernel module
 * is loaded and what it has done (sysfs /sys/module/uwind, and the status
 * text of its device /dev/uwind: kernel/dev.c; never debugfs, which a
 * kernel locked down refuses), whether the agent runs, and for every
 * process (or PID) each executable mapping and where the module takes
 * its frames from: the file's own SFrame, an installed table, EHABI
 * (32-bit ARM on arm64), or frame pointers only, with why, and whether a
 * table for it is pending (asked of the agent, being converted) or
 * cannot be made.
 *
 * The module's own answer (its "[tables]", the state of each mapping at
 * its last scan of the process, and what became of the request for its
 * file) when it is loaded and lists the
 * mapping; otherwise what the files say, by the module's rules: a
 * PT_GNU_SFRAME segment, else a table for the file's build-id in DIR
 * (/var/lib/uwind/build-id) that root owns, nobody else may write, and
 * that names the file's machine, build-id and CFI bytes (install.c).
 * Then a summary, with the files that could have a table and have none.
 *
 * UWIND_SYSFS_ROOT, for tests: a directory read in place of / for /sys
 * (sysfs, efivars), /dev/uwind (a text file there) and /lib/modules, so
 * that a made-up module state can be read on a machine without the
 * module.  /proc is always the machine's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cfi.h"
#include "ehabi_rules.h"
#include "install.h"
#include "json.h"
#include "uwind.h"
#include "uwsf.h"
#include "../../kernel/uwind_uapi.h"

#define MOD_SYS		"/sys/module/uwind"
#define MOD_DEV		"/dev/" UWIND_DEV_NAME
#define EFI_SECUREBOOT	"/sys/firmware/efi/efivars/" \
			"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define DKMS_MOK_KEY	"/var/lib/dkms/mok.key"
#define DKMS_MOK_CERT	"/var/lib/dkms/mok.pub"
#define PF_KTHREAD_FLAG	0x00200000	/* include/linux/sched.h */
#define PT_ARM_EXIDX_TYPE 0x70000001

/* Where a mapping's frames come from. */
enum source { SRC_SFRAME, SRC_INSTALLED, SRC_EHABI, SRC_FP, SRC_COUNT };

static const char *const src_names[SRC_COUNT] = {
	"sframe", "installed", "ehabi", "fp",
};

static const char *const src_text[SRC_COUNT] = {
	"own SFrame", "installed tables", "EHABI", "frame pointers only",
};

/* What the files say of one file (or vDSO image), once per file. */
struct file_info {
	dev_t dev;
	ino_t ino;		/* the vDSO: dev 0, ino from its build-id */
	char *name;
	enum source src;
	const char *reason;	/* SRC_FP: why */
	char *table;		/* the table that is or would be installed */
	bool installable;	/* a table could be made: build-id and CFI */
	bool listed;		/* in the summary's list already */
};

/* One mapping of the module's "[tables]". */
struct mod_map {
	int pid;
	uint64_t start, end;
	char *state;
	char *request;		/* what became of its file's request, or NULL */
};

/* One process of the module's "[tables]". */
struct mod_proc {
	int pid;
	bool stale;
};

struct status {
	const char *root;	/* UWIND_SYSFS_ROOT, or "" */
	const char *dir;	/* the installed tables */
	uid_t owner;		/* the owner a table must have */
	struct utsname uts;
	bool loaded, device;
	char *text;		/* the device's status text, or NULL */
	char *tables, *stats;	/* its sections, or NULL */
	struct mod_map *maps;
	size_t nmaps;
	struct mod_proc *procs;
	size_t nprocs;
	struct file_info *files;
	size_t nfiles;
	/* The summary. */
	unsigned int nproc, unreadable, nmappings, count[SRC_COUNT];
	unsigned int without;	/* files without tables that could have one */
};

/* ---- files under the root ---- */

/* Path of a system file under the root, in a static buffer. */
static const char *rooted(const struct status *s, const char *path)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s%s", s->root, path);
	return buf;
}

/* A whole small file, NUL-terminated, malloc'ed; NULL if unreadable. */
static char *read_text(const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* The first line of a file, without its newline; NULL if unreadable. */
static char *read_line(const char *path)
{
	char *t = read_text(path);

	if (t)
		t[strcspn(t, "\n")] = '\0';
	return t;
}

/* ---- the module ---- */

/* The states a mapping's table can be in (kernel/files.c). */
static bool is_state(const char *w, size_t n)
{
	static const char *const states[] = {
		"none", "sframe", "rejected", "over-max_total_mb",
		"over-max_user_pct", "installed", "ehabi",
	};
	size_t i;

	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (strlen(states[i]) == n && !strncmp(w, states[i], n))
			return true;
	return false;
}

/* The words after a state that say what became of a request (requests.c). */
static bool is_request(const char *w)
{
	return !strcmp(w, "requested") || !strcmp(w, "converting") ||
	       !strcmp(w, "installed") || !strcmp(w, "unrequested") ||
	       !strncmp(w, "failed:", 7);
}

/*
 * The module's "[tables]": "pid PID COMM[ stale]", then a line a mapping,
 * "  START-END NAME STATE[ REQUEST]" (kernel/registry.c); NAME may hold
 * spaces, STATE and REQUEST do not, and REQUEST follows only a state.
 */
static void parse_map(struct mod_map *m, char *line)
{
	char *sp = strrchr(line, ' '), *prev;

	m->request = NULL;
	m->state = sp + 1;
	if (!is_request(m->state))
		return;
	*sp = '\0';
	prev = strrchr(line, ' ');
	if (prev && is_state(prev + 1, strlen(prev + 1))) {
		m->request = sp + 1;
		m->state = prev + 1;
	} else {
		*sp = ' ';
	}
}

static void parse_tables(struct status *s)
{
	char *line, *save = NULL, *sp;
	int pid = 0;
	void *p;

	for (line = strtok_r(s->tables, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "pid ", 4)) {
			pid = atoi(line + 4);
			p = realloc(s->procs, (s->nprocs + 1) * sizeof(*s->procs));
			if (!p)
				return;
			s->procs = p;
			s->procs[s->nprocs].pid = pid;
			sp = line + strlen(line);
			s->procs[s->nprocs++].stale = sp - line > 6 &&
				!strcmp(sp - 6, " stale");
			continue;
		}
		if (strncmp(line, "  ", 2) || !pid || !strchr(line + 2, ' '))
			continue;
		p = realloc(s->maps, (s->nmaps + 1) * sizeof(*s->maps));
		if (!p)
			return;
		s->maps = p;
		if (sscanf(line, " %" SCNx64 "-%" SCNx64, &s->maps[s->nmaps].start,
			   &s->maps[s->nmaps].end) != 2)
			continue;
		s->maps[s->nmaps].pid = pid;
		parse_map(&s->maps[s->nmaps++], line);
	}
}

static const struct mod_proc *mod_proc(const struct status *s, int pid)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static const struct mod_map *mod_map(const struct status *s, int pid,
				     uint64_t start)
{
	size_t i;

	for (i = 0; i < s->nmaps; i++)
		if (s->maps[i].pid == pid && s->maps[i].start == start)
			return &s->maps[i];
	return NULL;
}

/* The module's .ko for the running kernel, from modules.dep; or NULL. */
static char *find_ko(const struct status *s)
{
	char path[PATH_MAX], *dep, *line, *save = NULL, *colon, *base, *ko = NULL;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep",
		 s->uts.release);
	dep = read_text(rooted(s, path));
	if (!dep)
		return NULL;
	for (line = strtok_r(dep, "\n", &save); line && !ko;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (!strncmp(base, "uwind.ko", 8) &&
		    asprintf(&ko, "/lib/modules/%s/%s", s->uts.release,
			     line) < 0)
			ko = NULL;
	}
	free(dep);
	return ko;
}

/* Secure Boot from its EFI variable: 1 on, 0 off, -1 no EFI or unknown. */
static int secure_boot(const struct status *s)
{
	unsigned char b[5];
	int fd = open(rooted(s, EFI_SECUREBOOT), O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	/* 4 bytes of attributes, then the value. */
	n = read(fd, b, sizeof(b));
	close(fd);
	return n == 5 ? b[4] == 1 : -1;
}

/* "key value" lines: the value of key, or -1. */
static long long stat_of(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

/* The module's parameters, sorted: each "NAME VALUE" into json or text. */
static void show_parameters(const struct status *s)
{
	char path[PATH_MAX], *v;
	struct dirent **names;
	int i, n;

	snprintf(path, sizeof(path), "%s", rooted(s, MOD_SYS "/parameters"));
	n = scandir(path, &names, NULL, alphasort);
	if (json_wanted)
		json_begin("parameters");
	else if (n > 0)
		fputs("parameters:", stdout);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			char file[PATH_MAX + 256];

			snprintf(file, sizeof(file), "%s/%s", path,
				 names[i]->d_name);
			v = read_line(file);
			if (json_wanted)
				json_str(names[i]->d_name, v ? v : "");
			else
				printf(" %s=%s", names[i]->d_name, v ? v : "?");
			free(v);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (json_wanted)
		json_end();
	else if (n > 0)
		putchar('\n');
}

/* "key value" lines as one JSON object (values are counts). */
static void json_counts(const char *key, const char *text)
{
	char name[128];
	long long v;
	const char *p = text;

	json_begin(key);
	while (p && *p) {
		if (sscanf(p, "%127s %lld", name, &v) == 2)
			json_int(name, v);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	json_end();
}

/* debugfs "hooks": "FUNCTION STATE" lines, STATE the rest of the line. */
static void show_hooks(const char *hooks)
{
	const char *p = hooks, *sp, *nl;
	bool first = true;

	if (json_wanted)
		json_begin("hooks");
	else if (hooks)
		fputs("hooks:", stdout);
	while (p && *p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		sp = memchr(p, ' ', (size_t)(nl - p));
		if (sp && json_wanted) {
			char *k = strndup(p, (size_t)(sp - p));

			json_strn(k, sp + 1, (size_t)(nl - sp - 1));
			free(k);
		} else if (sp) {
			printf("%s %.*s", first ? "" : ",", (int)(nl - p), p);
			first = false;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (json_wanted)
		json_end();
	else if (hooks)
		putchar('\n');
}

/* debugfs "breaks": "COUNT PATH", most frequent first; text: the top 5. */
static void show_breaks(const char *breaks)
{
	const char *p = breaks, *nl;
	unsigned long count;
	int n = 0, off;

	if (json_wanted)
		json_begin_array("breaks");
	while (p && *p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (sscanf(p, "%lu %n", &count, &off) == 1 && p + off <= nl) {
			if (json_wanted) {
				json_begin(NULL);
				json_int("count", (long long)count);
				json_strn("file", p + off,
					  (size_t)(nl - p - off));
				json_end();
			} else if (n < 5) {
				printf("%s %lu %.*s", n ? "," : "walks ended"
				       " for want of a table in:", count,
				       (int)(nl - p - off), p + off);
			}
			n++;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (json_wanted)
		json_end_array();
	else if (n)
		printf("%s\n", n > 5 ? ", ..." : "");
}

/* Share of x in all, for the text. */
static double pct(long long x, long long all)
{
	return all > 0 && x > 0 ? 100.0 * (double)x / (double)all : 0.0;
}

/* The counters that say how the walks went, as text. */
static void show_stats_text(const char *st)
{
	static const char *const ends[] = {
		"end_past_entry", "end_no_table", "end_other", "end_depth",
		"end_time",
	};
	static const char *const end_text[] = {
		"past the entry", "without a table", "other", "depth",
		"time limit",
	};
	long long all = 0, v;
	size_t i;

	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		all += stat_of(st, ends[i]) > 0 ? stat_of(st, ends[i]) : 0;
	printf("samples: %lld (%lld passed to the kernel's walker, %lld in"
	       " a KVM guest)\n", stat_of(st, "samples"),
	       stat_of(st, "passed_to_kernel"), stat_of(st, "passed_vcpu"));
	fputs("walks ended:", stdout);
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		v = stat_of(st, ends[i]);
		printf("%s %lld %s (%.1f%%)", i ? "," : "", v, end_text[i],
		       pct(v, all));
	}
	printf("\nframes: %lld from SFrame, %lld from frame pointers, %lld"
	       " signal frames\n", stat_of(st, "frames_sframe"),
	       stat_of(st, "frames_fp"), stat_of(st, "frames_sigframe"));
	printf("tables: %lld loaded, %lld installed, %lld rejected, %lld"
	       " over max_total_mb, %lld over max_user_pct, %lld installed"
	       " but refused; %lld bytes held\n",
	       stat_of(st, "tables_loaded"), stat_of(st, "tables_installed"),
	       stat_of(st, "tables_rejected"),
	       stat_of(st, "tables_over_max_total"),
	       stat_of(st, "tables_over_max_user"),
	       stat_of(st, "installed_refused"), stat_of(st, "bytes_held"));
}

/*
 * Whether the agent runs, and what became of the requests for tables
 * (kernel/requests.c's counters).
 */
static void show_agent(const char *st)
{
	static const char *const keys[] = {
		"agent", "requests_pending", "requests_waiting",
		"requests_installed", "requests_failed", "requests_refused",
		"requests_dropped", "requests_gone",
	};
	size_t i;

	if (stat_of(st, "agent") < 0)
		return;
	if (json_wanted) {
		json_begin("agent");
		json_bool("running", stat_of(st, "agent") > 0);
		for (i = 1; i < sizeof(keys) / sizeof(keys[0]); i++)
			json_int(keys[i] + 9, stat_of(st, keys[i]));
		json_end();
		return;
	}
	printf("agent: %s; tables asked for: %lld pending (%lld not yet"
	       " with the agent), %lld installed, %lld failed (%lld of them"
	       " refused), %lld dropped for want of room, %lld for processes"
	       " gone\n", stat_of(st, "agent") > 0 ? "running" :
	       "not running (the module's requests wait for `uwind agent`)",
	       stat_of(st, "requests_pending"), stat_of(st, "requests_waiting"),
	       stat_of(st, "requests_installed"), stat_of(st, "requests_failed"),
	       stat_of(st, "requests_refused"), stat_of(st, "requests_dropped"),
	       stat_of(st, "requests_gone"));
}

/* Why the module is not loaded, and what to do. */
static void show_not_loaded(const struct status *s, const char *ko, int sb)
{
	if (json_wanted)
		return;
	if (ko)
		printf("  built for this kernel: %s: load it with `systemctl"
		       " start uwind` (or `modprobe uwind`)\n", ko);
	else
		printf("  no uwind.ko for this kernel in /lib/modules/%s/"
		       "modules.dep: install the uwind-dkms package and"
		       " linux-headers-%s (DKMS builds it), or build it by"
		       " hand (kernel/README.md)\n", s->uts.release,
		       s->uts.release);
	if (sb == 1)
		printf("  Secure Boot is on: this kernel loads only modules"
		       " signed with a key it trusts, and an unsigned"
		       " uwind.ko cannot load.  DKMS signs the modules it"
		       " builds with %s; enroll its certificate once, with"
		       " `mokutil --import %s`, reboot and confirm it in"
		       " MokManager, then load the module (kernel/README.md,"
		       " \"Install\")\n", DKMS_MOK_KEY, DKMS_MOK_CERT);
}

static void show_module(struct status *s)
{
	char *version, *srcversion, *taint, *breaks = NULL, *hooks = NULL;
	char *ko = NULL;
	int sb = secure_boot(s), dev_errno = 0;

	s->loaded = !access(rooted(s, MOD_SYS), F_OK);
	version = read_line(rooted(s, MOD_SYS "/version"));
	srcversion = read_line(rooted(s, MOD_SYS "/srcversion"));
	taint = read_line(rooted(s, MOD_SYS "/taint"));
	if (s->loaded) {
		size_t len;

		s->text = mod_dev_status(*s->root ? rooted(s, MOD_DEV) : NULL,
					 &len);
		dev_errno = errno;
		if (s->text) {
			s->stats = mod_dev_section(s->text, "stats");
			s->tables = mod_dev_section(s->text, "tables");
			breaks = mod_dev_section(s->text, "breaks");
			hooks = mod_dev_section(s->text, "hooks");
		}
		s->device = s->stats && s->tables;
		if (s->tables)
			parse_tables(s);
	} else {
		ko = find_ko(s);
	}
	if (json_wanted) {
		json_str("kernel", s->uts.release);
		json_begin("module");
		json_bool("loaded", s->loaded);
		json_str("version", version);
		json_str("srcversion", srcversion);
		json_str("taint", taint);
		json_str("built", ko);
		if (sb < 0)
			json_str("secure_boot", NULL);
		else
			json_bool("secure_boot", sb);
		json_bool("device", s->device);
		if (s->loaded) {
			show_parameters(s);
			json_counts("stats", s->stats);
			show_agent(s->stats);
			show_breaks(breaks);
			show_hooks(hooks);
		}
		json_end();
	} else if (s->loaded) {
		printf("module: loaded%s%s%s%s%s%s, kernel %s\n",
		       version ? ", version " : "", version ? version : "",
		       srcversion ? ", srcversion " : "",
		       srcversion ? srcversion : "",
		       taint && *taint ? ", taint " : "",
		       taint && *taint ? taint : "", s->uts.release);
		show_parameters(s);
		if (s->stats) {
			show_stats_text(s->stats);
			show_agent(s->stats);
		}
		show_breaks(breaks);
		show_hooks(hooks);
		if (!s->device)
			printf("%s cannot be read (%s): the counters and the"
			       " module's tables need root; the processes"
			       " below are judged from their files\n", MOD_DEV,
			       dev_errno == EACCES || dev_errno == EPERM ?
			       "not root" : strerror(dev_errno));
	} else {
		printf("module: not loaded, kernel %s\n", s->uts.release);
		show_not_loaded(s, ko, sb);
	}
	free(version);
	free(srcversion);
	free(taint);
	free(breaks);
	free(hooks);
	free(ko);
}

/* ---- the files ---- */

static struct file_info *find_file(struct status *s, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].dev == dev && s->files[i].ino == ino)
			return &s->files[i];
	return NULL;
}

static struct file_info *new_file(struct status *s, dev_t dev, ino_t ino,
				  const char *name)
{
	struct file_info *f = realloc(s->files, (s->nfiles + 1) * sizeof(*f));

	if (!f)
		return NULL;
	s->files = f;
	f += s->nfiles++;
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	f->ino = ino;
	f->name = strdup(name);
	f->src = SRC_FP;
	return f;
}

/* Judge one ELF file by the module's rules into f. */
static void judge(const struct status *s, Elf *elf, struct file_info *f)
{
	struct inst_key k;
	struct stat st;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh)) {
		f->reason = "not an ELF file";
		return;
	}
	if (inst_has_phdr(elf, PT_GNU_SFRAME)) {
		f->src = SRC_SFRAME;
		return;
	}
	if (arm_is_elf32(elf)) {
		if (inst_has_phdr(elf, PT_ARM_EXIDX_TYPE))
			f->src = SRC_EHABI;
		else
			f->reason = "no EHABI index";
		return;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		/* The module leaves 32-bit x86 tasks to the kernel. */
		f->reason = "32-bit: the kernel's own walker";
		return;
	}
	switch (inst_key_of(elf, s->dir, &k)) {
	case INST_NO_KEY:
		f->reason = "no GNU build-id and no CFI section";
		return;
	case INST_NO_CFI:
		f->reason = "no DWARF CFI";
		return;
	}
	f->installable = true;
	f->table = strdup(k.path);
	if (inst_key_current(&k, s->owner)) {
		f->src = SRC_INSTALLED;
		return;
	}
	f->reason = stat(k.path, &st) ? "no table" :
		    "stale table (another file's, or not root's)";
}

/* What the files say of a file mapping (open: the path to open). */
static struct file_info *file_of(struct status *s, const char *name,
				 const char *open_path)
{
	struct file_info *f;
	struct inst_src src;
	struct stat st;

	if (inst_open(open_path, 0, true, &src)) {
		f = new_file(s, 0, 0, name);
		if (f)
			f->reason = "cannot be read";
		return f;
	}
	if (!fstat(src.fd, &st)) {
		f = find_file(s, st.st_dev, st.st_ino);
		if (f) {
			inst_close(&src);
			return f;
		}
	} else {
		st.st_dev = 0;
		st.st_ino = 0;
	}
	f = new_file(s, st.st_dev, st.st_ino, name);
	if (f)
		judge(s, src.elf, f);
	inst_close(&src);
	return f;
}

/* What the files say of a process's vDSO (its own, or ours). */
static struct file_info *vdso_of(struct status *s, int pid)
{
	uint8_t id[UWSF_MAX_ID] = { 0 };
	struct file_info *f;
	struct inst_src src;
	ino_t key = 0;
	size_t i;

	/* Another process's memory needs ptrace rights: else ours. */
	if (inst_open("[vdso]", pid, true, &src) &&
	    inst_open("[vdso]", 0, true, &src))
		return NULL;
	cfi_build_id(src.elf, id, sizeof(id));
	for (i = 0; i < sizeof(key); i++)
		key = key << 8 | id[i];
	f = find_file(s, 0, key);
	if (!f) {
		f = new_file(s, 0, key, "[vdso]");
		if (f)
			judge(s, src.elf, f);
	}
	inst_close(&src);
	return f;
}

/* ---- the processes ---- */

struct proc_ctx {
	struct status *s;
	int pid;
	const struct mod_proc *mp;
	unsigned int count[SRC_COUNT];
};

/* The module's state of a mapping as a source, and why. */
static enum source state_source(const char *state, const char **reason)
{
	if (!strcmp(state, "sframe"))
		return SRC_SFRAME;
	if (!strcmp(state, "installed"))
		return SRC_INSTALLED;
	if (!strcmp(state, "ehabi"))
		return SRC_EHABI;
	*reason = state;
	return SRC_FP;
}

/*
 * What a mapping without a table (coverage: what the files say) is, given
 * what became of its file's request (NULL: none asked, the module does
 * not ask for such a file); *reason says it in words.
 */
static const char *request_coverage(const char *req, const char *coverage,
				    const char **reason)
{
	static const struct {
		const char *req, *coverage, *reason;
	} says[] = {
		{ "requested", "pending", "pending: asked of the agent" },
		{ "converting", "pending", "pending: the agent is making it" },
		{ "installed", "pending",
		  "pending: made, used from the process's next sample" },
		{ "unrequested", "uncovered",
		  "no table, not asked for (no room in the module's queue yet)" },
		{ "failed:no-cfi", "not-coverable", "no DWARF CFI" },
		{ "failed:no-identity", "not-coverable",
		  "no GNU build-id and no CFI section" },
		{ "failed:too-big", "not-coverable",
		  "over the agent's size limit" },
		{ "failed:conversion", "not-coverable",
		  "the conversion failed" },
		{ "failed:timeout", "not-coverable",
		  "the conversion took longer than its limit" },
		{ "failed:user-budget", "uncovered",
		  "its user's conversion budget is spent for now" },
		{ "failed:store-full", "uncovered", "the table store is full" },
		{ "failed:refused", "not-coverable",
		  "the table made was refused (the file changed meanwhile)" },
	};
	size_t i;

	if (!req)
		return coverage;
	for (i = 0; i < sizeof(says) / sizeof(says[0]); i++) {
		if (!strcmp(req, says[i].req)) {
			*reason = says[i].reason;
			return says[i].coverage;
		}
	}
	return coverage;
}

static int show_map(const struct tool_map *m, void *arg)
{
	struct proc_ctx *p = arg;
	struct status *s = p->s;
	const struct mod_map *mm;
	struct file_info *f = NULL;
	const char *path = m->path, *reason = NULL, *from = "files", *cover;
	char link[96], *name = NULL;
	bool anon = false;
	enum source src = SRC_FP;
	size_t n;

	if (!strchr(m->perms, 'x') || !strcmp(path, "[vsyscall]"))
		return 0;
	if (!strcmp(path, "[vdso]")) {
		f = vdso_of(s, p->pid);
	} else if (path[0] == '/') {
		/* The very file mapped, even if its path was replaced since. */
		snprintf(link, sizeof(link), "/proc/%d/map_files/%" PRIx64
			 "-%" PRIx64, p->pid, m->start, m->end);
		n = strlen(path);
		if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
			name = strndup(path, n - 10);
		f = file_of(s, name ? name : path,
			    access(link, R_OK) ? (name ? name : path) : link);
	} else {
		anon = true;
		reason = "anonymous: no file, no table";
	}
	if (f) {
		src = f->src;
		reason = f->reason;
	}
	mm = p->mp ? mod_map(s, p->pid, m->start) : NULL;
	cover = src != SRC_FP ? "covered" :
		anon || (f && !f->installable) ? "not-coverable" : "uncovered";
	if (mm) {
		const char *why = reason;

		from = "module";
		src = state_source(mm->state, &reason);
		/* "none": the files say why, when they know. */
		if (src == SRC_FP && !strcmp(mm->state, "none"))
			reason = (f && f->src == SRC_FP && why) || anon ? why :
				 "no table";
		cover = src != SRC_FP ? "covered" :
			request_coverage(mm->request, cover, &reason);
	}
	/*
	 * Worth an install: no table the module would take, by the files
	 * and, when it knows the mapping, by the module ("none"; not a
	 * table it refused or had no room for).
	 */
	if (src == SRC_FP && f && f->installable && f->src == SRC_FP &&
	    !f->listed && (!mm || !strcmp(mm->state, "none"))) {
		f->listed = true;
		s->without++;
	}
	p->count[src]++;
	s->count[src]++;
	s->nmappings++;
	if (json_wanted) {
		json_begin(NULL);
		json_hex("start", m->start);
		json_hex("end", m->end);
		json_str("path", anon ? (path[0] ? path : "[anon]") :
			 f ? f->name : path);
		json_str("source", src_names[src]);
		json_str("reason", src == SRC_FP ? reason : NULL);
		json_str("table", f ? f->table : NULL);
		json_str("from", from);
		json_str("state", cover);
		json_str("request", mm ? mm->request : NULL);
		json_end();
	} else {
		printf("  %-9s %s%s%s%s\n", src_names[src],
		       anon ? (path[0] ? path : "[anon]") : f ? f->name : path,
		       src == SRC_FP && reason ? " (" : "",
		       src == SRC_FP && reason ? reason : "",
		       src == SRC_FP && reason ? ")" : "");
	}
	free(name);
	return 0;
}

/* Whether /proc/PID/stat says a kernel thread (no user stack to walk). */
static bool is_kthread(int pid)
{
	char path[64], *t, *p;
	unsigned long flags = 0;
	bool k = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	t = read_text(path);
	if (!t)
		return false;
	/* After "(comm)", which may hold anything: state, 5 fields, flags. */
	p = strrchr(t, ')');
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1)
		k = flags & PF_KTHREAD_FLAG;
	free(t);
	return k;
}

/* Whether process pid has an address space (a zombie has none). */
static bool has_mm(int pid)
{
	char path[64], c;
	bool ret;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES;	/* unreadable: not ours to tell */
	ret = read(fd, &c, 1) == 1;
	close(fd);
	return ret;
}

/* One process: 0, or -1 when it is gone (or a kernel thread). */
static int show_proc(struct status *s, int pid)
{
	struct proc_ctx p = { .s = s, .pid = pid };
	char path[64], exe[PATH_MAX], *comm;
	ssize_t n;
	bool readable;
	int i;

	if (is_kthread(pid) || !has_mm(pid))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	comm = read_line(path);
	if (!comm)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	readable = !access(path, R_OK);
	p.mp = s->device ? mod_proc(s, pid) : NULL;
	s->nproc++;
	if (json_wanted) {
		json_begin(NULL);
		json_int("pid", pid);
		json_str("comm", comm);
		json_str("exe", n > 0 ? exe : NULL);
		json_bool("readable", readable);
		json_str("from", p.mp ? "module" : "files");
		json_bool("stale", p.mp && p.mp->stale);
		json_begin_array("mappings");
	} else {
		printf("%d %s%s%s%s%s\n", pid, comm, n > 0 ? " (" : "",
		       n > 0 ? exe : "", n > 0 ? ")" : "",
		       p.mp && p.mp->stale ?
		       " [stale: the module rescans it at its next sample]" : "");
	}
	if (!readable || tool_each_map_quiet(pid, show_map, &p)) {
		s->unreadable++;
		if (!json_wanted)
			printf("  (its mappings cannot be read%s)\n",
			       geteuid() ? ": run as root" : "");
	}
	if (json_wanted) {
		json_end_array();
		json_begin("coverage");
		for (i = 0; i < SRC_COUNT; i++)
			json_int(src_names[i], p.count[i]);
		json_end();
		json_end();
	}
	free(comm);
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Every process, by pid. */
static void show_procs(struct status *s)
{
	struct dirent *de;
	int *pids = NULL, *np;
	size_t n = 0, i;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		np = realloc(pids, (n + 1) * sizeof(*pids));
		if (!np)
			break;
		pids = np;
		pids[n++] = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	qsort(pids, n, sizeof(*pids), pid_cmp);
	for (i = 0; i < n; i++)
		show_proc(s, pids[i]);
	free(pids);
}

static void show_summary(struct status *s)
{
	size_t i;
	int k;

	if (json_wanted) {
		json_begin("summary");
		json_int("processes", s->nproc);
		json_int("unreadable", s->unreadable);
		json_int("mappings", s->nmappings);
		for (k = 0; k < SRC_COUNT; k++)
			json_int(src_names[k], s->count[k]);
		json_begin_array("without_tables");
		for (i = 0; i < s->nfiles; i++)
			if (s->files[i].listed)
				json_str(NULL, s->files[i].name);
		json_end_array();
		json_end();
		return;
	}
	printf("\n%u process%s", s->nproc, s->nproc == 1 ? "" : "es");
	if (s->unreadable)
		printf(" (%u not readable%s)", s->unreadable,
		       geteuid() ? ": run as root" : "");
	printf(", %u executable mapping%s:", s->nmappings,
	       s->nmappings == 1 ? "" : "s");
	for (k = 0; k < SRC_COUNT; k++)
		printf("%s %u %s", k ? "," : "", s->count[k], src_text[k]);
	putchar('\n');
	if (!s->without) {
		puts("every file mapped that can have a table has one");
		return;
	}
	printf("%u file%s without tables: run `uwind sframe --install"
	       " FILE...` as root for %s, or `uwind sframe --install"
	       " --system`:\n", s->without, s->without == 1 ? "" : "s",
	       s->without == 1 ? "it" : "them");
	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].listed)
			printf("  %s\n", !strcmp(s->files[i].name, "[vdso]") ?
			       "--vdso" : s->files[i].name);
}

int cmd_status(int argc, char **argv)
{
	struct status s = { .root = getenv("UWIND_SYSFS_ROOT") };
	uint64_t pid = 0;
	size_t i;
	int a, ret = 0;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-p") && a + 1 < argc) {
			if (parse_count(argv[++a], INT32_MAX, &pid))
				return tool_usage("-p '%s' is not a process id",
						  argv[a]);
		} else if (!strcmp(argv[a], "--dir") && a + 1 < argc) {
			s.dir = argv[++a];
		} else {
			return tool_usage("unknown argument %s, or an option"
					  " without its value", argv[a]);
		}
	}
	if (pid && kill((pid_t)pid, 0) && errno == ESRCH) {
		fprintf(stderr, "uwind: no process %" PRIu64 "\n", pid);
		return 1;
	}
	if (!s.root)
		s.root = "";
	/* The module uses root's tables only; elsewhere, ours too. */
	s.owner = s.dir ? geteuid() : 0;
	if (!s.dir)
		s.dir = UWSF_DIR;
	uname(&s.uts);
	elf_version(EV_CURRENT);
	if (json_wanted)
		json_begin(NULL);
	show_module(&s);
	if (json_wanted)
		json_begin_array("processes");
	else
		putchar('\n');
	if (pid && show_proc(&s, (int)pid)) {
		fprintf(stderr, "uwind: process %" PRIu64 " has no address"
			" space (a kernel thread, or a zombie)\n", pid);
		ret = 1;
	} else if (!pid) {
		show_procs(&s);
	}
	if (json_wanted)
		json_end_array();
	show_summary(&s);
	if (json_wanted)
		json_end();
	for (i = 0; i < s.nfiles; i++) {
		free(s.files[i].name);
		free(s.files[i].table);
	}
	free(s.files);
	free(s.maps);
	free(s.procs);
	free(s.tables);
	free(s.stats);
	free(s.text);
	return ret;
}
