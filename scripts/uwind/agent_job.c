// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * One conversion of uwind agent (agent.c), in a worker process of its
 * own, so that whatever a file does to the converter (a malformed or huge
 * CFI, a FUSE file whose reads never end, a file truncated under its
 * mapping, which kills a reader with SIGBUS) ends that worker alone.  The
 * agent itself never opens, reads or maps a file a user controls: only
 * the worker does, and the agent kills it at its time limit.
 *
 * The worker, in order:
 *  1. as root: opens the mapping's /proc/PID/map_files/START-END (the very
 *     file mapped, in whatever mount namespace; only root may), and checks
 *     it is the file the module asked for (device, inode, size, mtime);
 *  2. as root, before it has parsed anything with libelf or libdw: reads
 *     the file's key with pread alone (its GNU build-id from its PT_NOTE
 *     segments, the CRC-32 of its CFI section: what the module checks)
 *     and sends it to the agent, the first and only record the agent
 *     reads from it; returns early if the store has a current table;
 *  3. drops to the nobody user (no groups, no new privileges), under
 *     limits of CPU time, data size (RLIMIT_DATA: the file's own read-only
 *     mapping is not counted) and file size, converts (sframe_gen.c) and
 *     writes the table into a temporary file the agent made for it.
 * The agent then checks the table's header against the key of step 2
 * (a worker subverted by its input cannot install a table under another
 * file's key) and renames it into place: a worker killed at any point
 * leaves no table, only its temporary file, which the agent removes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agent.h"
#include "cfi.h"
#include "install.h"
#include "sframe_gen.h"
#include "uwind.h"
#include "uwsf.h"

#define NOBODY		65534
#define VDSO_MAX	(64u << 10)	/* as the module's */
#define NOTE_MAX	4096		/* as the module's */
#define SHDRS_MAX	4096
#define SHSTR_MAX	(64u << 10)
#define CRC_CHUNK	(64u << 10)

/* The worker's exit codes, besides 0 (a table written). */
enum {
	W_CURRENT = 10,		/* the store has a current table */
	W_GONE,			/* not the file asked for, or none */
	W_NO_CFI,
	W_NO_KEY,
	W_TOO_BIG,
	W_FAILED,
	W_OWN_SFRAME,
	W_ERROR,
};

/* What step 2 sends: the key the file's table must have. */
struct key_msg {
	uint32_t magic;
	uint16_t machine;
	uint8_t id_len;
	uint8_t pad;
	uint8_t id[UWSF_MAX_ID];
	struct uwsf_check chk;
};

#define KEY_MAGIC	0x75774b59	/* "uwKY" */

/* ---- the key, read with pread only (step 2) ---- */

/* A file, or the vDSO's image. */
struct src {
	int fd;
	const uint8_t *img;
	uint64_t size;
};

static int src_read(const struct src *s, void *buf, size_t n, uint64_t off)
{
	ssize_t r;

	if (off > s->size || n > s->size - off)
		return -1;
	if (s->img) {
		memcpy(buf, s->img + off, n);
		return 0;
	}
	r = pread(s->fd, buf, n, (off_t)off);
	return r == (ssize_t)n ? 0 : -1;
}

/* The GNU build-id in n bytes of notes p aligned to align: its length. */
static size_t note_build_id(const uint8_t *p, size_t n, size_t align,
			    uint8_t *id)
{
	uint64_t off = 0, desc, next;
	uint32_t namesz, descsz, type;

	while (off + 12 <= n) {
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		desc = (off + 12 + namesz + align - 1) & ~(uint64_t)(align - 1);
		next = (desc + descsz + align - 1) & ~(uint64_t)(align - 1);
		if (desc + descsz > n || next <= off)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + off + 12, "GNU", 4) && descsz &&
		    descsz <= UWSF_MAX_ID) {
			memcpy(id, p + desc, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}

static size_t key_build_id(const struct src *s, const Elf64_Ehdr *eh,
			   uint8_t *id)
{
	uint8_t notes[NOTE_MAX];
	Elf64_Phdr ph;
	size_t len = 0, n;
	unsigned int i;

	for (i = 0; i < eh->e_phnum && !len; i++) {
		if (src_read(s, &ph, sizeof(ph),
			     eh->e_phoff + (uint64_t)i * sizeof(ph)))
			return 0;
		n = ph.p_filesz < NOTE_MAX ? ph.p_filesz : NOTE_MAX;
		if (ph.p_type != PT_NOTE || n < 12 ||
		    src_read(s, notes, n, ph.p_offset))
			continue;
		len = note_build_id(notes, n, ph.p_align == 8 ? 8 : 4, id);
	}
	return len;
}

static bool has_sframe(const struct src *s, const Elf64_Ehdr *eh)
{
	Elf64_Phdr ph;
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++)
		if (!src_read(s, &ph, sizeof(ph),
			      eh->e_phoff + (uint64_t)i * sizeof(ph)) &&
		    ph.p_type == PT_GNU_SFRAME)
			return true;
	return false;
}

/*
 * The CFI section a table is made from and checked against (as
 * uwsf_check_range() and the module pick it): 0, or -1 for none.
 */
static int key_cfi(const struct src *s, const Elf64_Ehdr *eh,
		   struct uwsf_check *c)
{
	static const char *const names[] = { ".eh_frame", ".debug_frame" };
	Elf64_Shdr *sh = NULL, *str;
	char *strs = NULL;
	uint8_t *buf = NULL;
	uint32_t crc = 0, n;
	uint64_t done;
	int ret = -1;
	size_t k, i, len;

	if (!eh->e_shoff || eh->e_shentsize != sizeof(*sh) || !eh->e_shnum ||
	    eh->e_shnum > SHDRS_MAX || eh->e_shstrndx >= eh->e_shnum)
		return -1;
	sh = malloc(eh->e_shnum * sizeof(*sh));
	if (!sh || src_read(s, sh, eh->e_shnum * sizeof(*sh), eh->e_shoff))
		goto out;
	str = &sh[eh->e_shstrndx];
	if (!str->sh_size || str->sh_size > SHSTR_MAX)
		goto out;
	strs = malloc(str->sh_size);
	if (!strs || src_read(s, strs, str->sh_size, str->sh_offset))
		goto out;
	for (k = 0; k < 2 && ret; k++) {
		len = strlen(names[k]) + 1;
		for (i = 0; i < eh->e_shnum && ret; i++) {
			if (!UWSF_CFI_SECTION(sh[i].sh_type, eh->e_machine) ||
			    !sh[i].sh_size ||
			    sh[i].sh_name >= str->sh_size ||
			    str->sh_size - sh[i].sh_name < len ||
			    memcmp(strs + sh[i].sh_name, names[k], len) ||
			    sh[i].sh_offset > s->size ||
			    sh[i].sh_size > s->size - sh[i].sh_offset ||
			    sh[i].sh_size > UINT32_MAX)
				continue;
			c->off = sh[i].sh_offset;
			c->size = (uint32_t)sh[i].sh_size;
			ret = 0;
		}
	}
	buf = ret ? NULL : malloc(CRC_CHUNK);
	for (done = 0; buf && done < c->size; done += n) {
		n = c->size - done < CRC_CHUNK ? (uint32_t)(c->size - done) :
						 CRC_CHUNK;
		if (src_read(s, buf, n, c->off + done)) {
			ret = -1;
			break;
		}
		crc = uwsf_crc32_more(crc, buf, n);
	}
	if (!ret && !buf)
		ret = -1;
	c->crc = crc;
out:
	free(buf);
	free(strs);
	free(sh);
	return ret;
}

/*
 * The key of the ELF in s into m: 0, or a worker's exit code (not an
 * ELF of ours, no CFI, no key, too big, its own SFrame).
 */
static int key_of(const struct src *s, const struct agent_cfg *cfg,
		  uint16_t machine, struct key_msg *m)
{
	Elf64_Ehdr eh;

	memset(m, 0, sizeof(*m));
	m->magic = KEY_MAGIC;
	if (src_read(s, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != machine ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 128)
		return W_NO_CFI;
	if (has_sframe(s, &eh))
		return W_OWN_SFRAME;
	m->machine = eh.e_machine;
	m->id_len = (uint8_t)key_build_id(s, &eh, m->id);
	if (key_cfi(s, &eh, &m->chk))
		return m->id_len ? W_NO_CFI : W_NO_KEY;
	if (m->chk.size > cfg->cfi_max)
		return W_TOO_BIG;
	return 0;
}

static void key_to_inst(const struct key_msg *m, const char *dir,
			struct inst_key *k)
{
	memset(k, 0, sizeof(*k));
	k->machine = m->machine;
	k->id_len = m->id_len;
	memcpy(k->id, m->id, m->id_len);
	k->chk = m->chk;
	inst_key_path(dir, k);
}

/* ---- the worker ---- */

/* The machine whose tables the module takes: this tool's. */
static uint16_t own_machine(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#else
	return EM_NONE;
#endif
}

/* Step 1: the file at fd is the one the request names. */
static bool is_asked(int fd, const struct uwind_req *r)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       major(st.st_dev) == r->dev_major &&
	       minor(st.st_dev) == r->dev_minor &&
	       (uint64_t)st.st_ino == r->ino && st.st_size == r->size &&
	       st.st_mtim.tv_sec == r->mtime_sec &&
	       (uint32_t)st.st_mtim.tv_nsec == r->mtime_nsec;
}

/* Step 3's limits, then nobody's identity for good. */
static int confine(const struct agent_cfg *cfg, pid_t parent)
{
	struct rlimit cpu = { (rlim_t)cfg->time_s + 1, (rlim_t)cfg->time_s + 2 };
	struct rlimit data = { cfg->mem_bytes, cfg->mem_bytes };
	struct rlimit fsize = { cfg->table_max + UWSF_HDR_SIZE,
				cfg->table_max + UWSF_HDR_SIZE };
	struct rlimit zero = { 0, 0 };

	if (setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_DATA, &data) ||
	    setrlimit(RLIMIT_FSIZE, &fsize) || setrlimit(RLIMIT_CORE, &zero))
		return -1;
	if (!geteuid() && (setgroups(0, NULL) || setresgid(NOBODY, NOBODY,
							   NOBODY) ||
			   setresuid(NOBODY, NOBODY, NOBODY)))
		return -1;
	/* A change of identity clears the parent-death signal: again. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Step 3: convert the ELF at fd (or the image) into the table file tmp. */
static int convert(const struct agent_cfg *cfg, const struct src *s,
		   const struct key_msg *m, int tmp, pid_t parent)
{
	uint8_t hdr[UWSF_HDR_SIZE];
	struct sg_result r;
	char err[160];
	Elf *elf;
	int ret;

	if (confine(cfg, parent))
		return W_ERROR;
	elf_version(EV_CURRENT);
	elf = s->img ? elf_memory((char *)s->img, s->size) :
		       elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return W_FAILED;
	ret = sg_convert(elf, SG_TABLE_ONLY, &r, err, sizeof(err));
	if (ret)
		return ret > 0 ? W_NO_CFI : W_FAILED;
	if (r.size > cfg->table_max)
		return W_TOO_BIG;
	uwsf_header(&r, &m->chk, hdr);
	if (write(tmp, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr) ||
	    write(tmp, r.sec, r.size) != (ssize_t)r.size)
		return errno == EFBIG ? W_TOO_BIG : W_ERROR;
	return 0;
}

static int worker(const struct agent_cfg *cfg, struct agent_job *job,
		  int keyfd, pid_t parent)
{
	const struct uwind_req *r = &job->req;
	struct src s = { .fd = -1 };
	struct inst_key k;
	struct key_msg m;
	struct stat st;
	char link[96];
	int ret;

	if (job->img) {
		s.img = job->img;
		s.size = job->img_size;
	} else {
		snprintf(link, sizeof(link), "/proc/%u/map_files/%" PRIx64
			 "-%" PRIx64, r->pid, (uint64_t)r->start,
			 (uint64_t)r->end);
		s.fd = open(link, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (s.fd < 0 || !is_asked(s.fd, r) || fstat(s.fd, &st)) {
			if (cfg->verbose)
				fprintf(stderr, "uwind: agent: %s: %s\n", link,
					s.fd < 0 ? strerror(errno) :
					"not the file asked for");
			return W_GONE;
		}
		s.size = (uint64_t)st.st_size;
	}
	ret = key_of(&s, cfg, own_machine(), &m);
	if (ret)
		return ret;
	if (write(keyfd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return W_ERROR;
	close(keyfd);
	key_to_inst(&m, cfg->dir, &k);
	if (inst_key_current(&k, 0))
		return W_CURRENT;
	return convert(cfg, &s, &m, job->tmp, parent);
}

int agent_job_start(const struct agent_cfg *cfg, struct agent_job *job)
{
	static unsigned long seq;
	pid_t pid, parent = getpid();
	int p[2];

	snprintf(job->tmp_path, sizeof(job->tmp_path), "%s/.agent.%d.%lu.tmp",
		 cfg->dir, (int)getpid(), ++seq);
	job->tmp = open(job->tmp_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0644);
	if (job->tmp < 0)
		return -1;
	/* Whatever the umask: the module takes only tables 0644 or less. */
	if (fchmod(job->tmp, 0644) || pipe2(p, O_CLOEXEC)) {
		agent_job_drop(job);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		agent_job_drop(job);
		return -1;
	}
	if (!pid) {
		close(p[0]);
		/* Nothing of the agent's: the device, the other jobs. */
		if (dup2(p[1], 3) < 0 || dup2(job->tmp, 4) < 0)
			_exit(W_ERROR);
		job->tmp = 4;
		close_range(5, ~0u, 0);
		/* An agent killed (SIGKILL) takes its workers with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(W_ERROR);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		_exit(worker(cfg, job, 3, parent));
	}
	close(p[1]);
	job->keyfd = p[0];
	job->child = pid;
	return 0;
}

/* ---- the agent's side ---- */

void agent_job_drop(struct agent_job *job)
{
	/* Killed, never waited for here: the agent reaps it (wait4). */
	if (job->child > 0) {
		kill(job->child, SIGKILL);
		job->child = 0;
	}
	if (job->keyfd >= 0)
		close(job->keyfd);
	job->keyfd = -1;
	if (job->tmp >= 0) {
		close(job->tmp);
		unlink(job->tmp_path);
	}
	job->tmp = -1;
	free(job->img);
	job->img = NULL;
}

static void verdict(struct agent_out *out, uint32_t result, uint32_t retry,
		    const char *why)
{
	out->result = result;
	out->retry_s = retry;
	out->why = why;
}

/* The key step 2 sent, the first record of the pipe: 0, or -1. */
static int read_key(struct agent_job *job, struct key_msg *m)
{
	ssize_t n = read(job->keyfd, m, sizeof(*m));

	return n == (ssize_t)sizeof(*m) && m->magic == KEY_MAGIC &&
	       m->id_len <= UWSF_MAX_ID ? 0 : -1;
}

/* Install the table the worker wrote: its header must say the key. */
static void install(const struct agent_cfg *cfg, struct agent_job *job,
		    uint64_t room, struct agent_out *out)
{
	uint8_t h[UWSF_HDR_SIZE];
	struct uwsf_hdr d;
	struct key_msg m;
	struct inst_key k;
	struct stat st, old;

	if (read_key(job, &m) || fstat(job->tmp, &st) ||
	    st.st_size < UWSF_HDR_SIZE ||
	    pread(job->tmp, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    !uwsf_parse(h, (size_t)st.st_size, &d)) {
		verdict(out, UWIND_DONE_FAILED, 86400, "no table written");
		return;
	}
	key_to_inst(&m, cfg->dir, &k);
	if (!inst_hdr_is(&d, &k) || !k.path[0]) {
		verdict(out, UWIND_DONE_FAILED, 86400,
			"the table's header is not the file's key");
		return;
	}
	if (agent_cost(&st) > room) {
		snprintf(out->why_buf, sizeof(out->why_buf),
			 "no room for its table (%llu bytes on disk) in the store or the user's share (%llu left)",
			 (unsigned long long)agent_cost(&st),
			 (unsigned long long)room);
		verdict(out, UWIND_DONE_STORE_FULL, 600, out->why_buf);
		return;
	}
	if (inst_make_dirs(k.sub) || fsync(job->tmp)) {
		verdict(out, UWIND_DONE_STORE_FULL, 600, strerror(errno));
		return;
	}
	if (stat(k.path, &old))
		old.st_size = 0;
	if (rename(job->tmp_path, k.path)) {
		verdict(out, UWIND_DONE_STORE_FULL, 600, strerror(errno));
		return;
	}
	close(job->tmp);
	job->tmp = -1;
	snprintf(out->table, sizeof(out->table), "%s", k.path);
	out->bytes = agent_cost(&st);
	out->replaced = old.st_size ? agent_cost(&old) : 0;
	verdict(out, UWIND_DONE_OK, 0, NULL);
}

void agent_job_finish(const struct agent_cfg *cfg, struct agent_job *job,
		      int st, uint64_t room, struct agent_out *out)
{
	struct key_msg m;
	struct inst_key k;
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;

	memset(out, 0, sizeof(*out));
	job->child = 0;
	if (job->timed_out || (WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU))
		verdict(out, UWIND_DONE_TIMEOUT, 3600,
			"the conversion took longer than its limit");
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ)
		verdict(out, UWIND_DONE_TOO_BIG, 86400, "table over the limit");
	else if (WIFSIGNALED(st))
		verdict(out, UWIND_DONE_FAILED, 86400, strsignal(WTERMSIG(st)));
	else if (code == 0)
		install(cfg, job, room, out);
	else if (code == W_CURRENT && !read_key(job, &m)) {
		key_to_inst(&m, cfg->dir, &k);
		snprintf(out->table, sizeof(out->table), "%s", k.path);
		verdict(out, UWIND_DONE_OK, 0, "up to date");
	} else if (code == W_GONE)
		verdict(out, UWIND_DONE_GONE, 0,
			"gone, or not the file asked for (changed since)");
	else if (code == W_NO_CFI)
		verdict(out, UWIND_DONE_NO_CFI, 86400, "no DWARF CFI");
	else if (code == W_NO_KEY)
		verdict(out, UWIND_DONE_NO_ID, 86400,
			"no GNU build-id and no CFI section");
	else if (code == W_TOO_BIG)
		verdict(out, UWIND_DONE_TOO_BIG, 86400, "over the size limits");
	else if (code == W_OWN_SFRAME)
		verdict(out, UWIND_DONE_FAILED, 86400, "has its own SFrame");
	else
		verdict(out, UWIND_DONE_FAILED, 3600, "the conversion failed");
	agent_job_drop(job);
}

/* ---- the store ---- */

/*
 * What a table costs the disk: its size in whole blocks of its file
 * system (a 600-byte table takes 4 KiB, as du says); the blocks the file
 * has, where more (the same once written back).
 */
uint64_t agent_cost(const struct stat *st)
{
	uint64_t blk = st->st_blksize > 0 ? (uint64_t)st->st_blksize : 4096;
	uint64_t n = ((uint64_t)st->st_size + blk - 1) / blk * blk;
	uint64_t used = (uint64_t)st->st_blocks * 512;

	return used > n ? used : n;
}

static uint64_t store_bytes;
static bool store_tidy;

static int store_fn(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t n = strlen(base);

	if (type != FTW_F)
		return 0;
	if (store_tidy && !strncmp(base, ".agent.", 7) && n > 4 &&
	    !strcmp(base + n - 4, ".tmp")) {
		unlink(path);
		return 0;
	}
	if (n > 5 && !strcmp(base + n - 5, ".uwsf"))
		store_bytes += agent_cost(st);
	return 0;
}

uint64_t agent_store_scan(const char *dir, bool tidy)
{
	store_bytes = 0;
	store_tidy = tidy;
	nftw(dir, store_fn, 8, FTW_PHYS);
	return store_bytes;
}
