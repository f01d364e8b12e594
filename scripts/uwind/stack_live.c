// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack -p PID`: the target behind a live process of the host's
 * architecture.
 *
 * Every thread in /proc/PID/task is seized and interrupted with ptrace
 * (a thread already stopped, by SIGSTOP say, is trapped all the same and
 * stays stopped after the detach), its registers read with
 * PTRACE_GETREGSET NT_PRSTATUS; memory is read from /proc/PID/mem,
 * mappings from /proc/PID/maps.  Files are opened through
 * /proc/PID/map_files when the path is gone, else by their path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "stack.h"

#if defined(__x86_64__)
#define HOST_ARCH	UW_ARCH_X86_64
#elif defined(__aarch64__)
#define HOST_ARCH	UW_ARCH_AARCH64
#else
#define HOST_ARCH	UW_ARCH_NONE
#endif

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Thread ids, the main thread first, then ascending. */
static int list_tasks(int pid, int **out, size_t *n)
{
	char path[64];
	struct dirent *de;
	int *tids = NULL;
	size_t k = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);

		if (*end || v <= 0)
			continue;
		tids = stk_xrealloc(tids, k + 1, sizeof(*tids));
		tids[k++] = (int)v;
	}
	closedir(d);
	if (k)
		qsort(tids, k, sizeof(*tids), cmp_int);
	for (size_t i = 0; i < k; i++) {
		if (tids[i] == pid) {
			memmove(tids + 1, tids, i * sizeof(*tids));
			tids[0] = pid;
			break;
		}
	}
	*out = tids;
	*n = k;
	return 0;
}

static int attach(struct stk_target *t, int tid)
{
	uint8_t regs[512];
	struct iovec iov = { regs, sizeof(regs) };
	int st;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
		if (errno != ESRCH)	/* ESRCH: the thread just exited */
			fprintf(stderr, "uwind: ptrace seize %d: %s\n", tid,
				strerror(errno));
		return -1;
	}
	t->attached = stk_xrealloc(t->attached, t->nattached + 1,
				   sizeof(*t->attached));
	t->attached[t->nattached++] = tid;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) ||
	    waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st)) {
		fprintf(stderr, "uwind: cannot stop thread %d\n", tid);
		return -1;
	}
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_PRSTATUS,
		   &iov)) {
		fprintf(stderr, "uwind: registers of %d: %s\n", tid,
			strerror(errno));
		return -1;
	}
	if (stk_add_thread(t, tid, regs, iov.iov_len)) {
		fprintf(stderr, "uwind: thread %d: unsupported register set "
			"(%zu bytes): not a 64-bit %s process?\n", tid,
			iov.iov_len, uw_arch_name(t->arch));
		return -1;
	}
	return 0;
}

struct maps_ctx {
	struct stk_target *t;
	int pid;
	uint64_t vdso_start, vdso_end;
};

/* One mapping of the process: a file's, or the vDSO (read after). */
static int add_map(const struct tool_map *m, void *arg)
{
	struct maps_ctx *c = arg;
	const char *del;

	stk_add_vma(c->t, m->start, m->end);
	if (!strcmp(m->path, "[vdso]")) {
		c->vdso_start = m->start;
		c->vdso_end = m->end;
	}
	if (m->path[0] != '/')
		return 0;
	stk_add_map(c->t, m->start, m->end, m->off, m->path);
	del = strstr(m->path, " (deleted)");
	if (del && !del[10]) {
		struct stk_file *sf = c->t->maps[c->t->nmaps - 1].file;
		char mf[96];

		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64
			 "-%" PRIx64, c->pid, m->start, m->end);
		if (!sf->open_path)
			sf->open_path = strdup(mf);
	}
	return 0;
}

static int read_maps(struct stk_target *t, int pid)
{
	struct maps_ctx c = { .t = t, .pid = pid };

	if (tool_each_map(pid, add_map, &c))
		return -1;
	if (c.vdso_end > c.vdso_start &&
	    c.vdso_end - c.vdso_start <= (64u << 20)) {
		size_t n = c.vdso_end - c.vdso_start;
		uint8_t *img = stk_xrealloc(NULL, n, 1);

		if (!stk_read(t, c.vdso_start, img, n))
			stk_add_vdso(t, c.vdso_start, img, n);
		else
			free(img);
	}
	return 0;
}

int stk_live_open(struct stk_target *t, int pid)
{
	char path[64];
	int *tids = NULL;
	size_t i, n = 0;

	t->arch = HOST_ARCH;
	t->pid = pid;
	t->live = true;
	if (t->arch == UW_ARCH_NONE) {
		fprintf(stderr, "uwind: -p is not supported on this host\n");
		return -1;
	}
	if (t->arch == UW_ARCH_AARCH64)
		t->pac_mask = 0xff7f000000000000ull;
	t->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (list_tasks(pid, &tids, &n))
		return -1;
	for (i = 0; i < n; i++)
		attach(t, tids[i]);
	free(tids);
	if (!t->nthreads) {
		fprintf(stderr, "uwind: process %d: no thread could be "
			"stopped\n", pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	t->memfd = open(path, O_RDONLY);
	if (t->memfd < 0) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return read_maps(t, pid);
}

void stk_live_close(struct stk_target *t)
{
	size_t i;

	for (i = 0; i < t->nattached; i++)
		ptrace(PTRACE_DETACH, t->attached[i], NULL, NULL);
	free(t->attached);
	t->attached = NULL;
	t->nattached = 0;
	if (t->memfd >= 0)
		close(t->memfd);
	t->memfd = -1;
}
