// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind agent: makes, on demand, the tables the kernel module asks for.
 *
 *   uwind agent [--dir DIR] [--workers N] [--time-limit S] [--mem-limit MB]
 *               [--cfi-max MB] [--table-max MB] [--user-cpu S] [--window S]
 *               [--user-store MB] [--store-max MB] [-v]
 *
 * Runs in the foreground, as root (uwind.service runs it), until SIGTERM
 * or SIGINT (exit 0).  It takes the agent's part of /dev/uwind
 * (kernel/uwind_uapi.h): the module hands it a request for each file an
 * executable mapping of some process has without the table it wants
 * (processes that ran before the agent started included), and the agent
 * makes the table from the file's DWARF CFI in a worker process
 * (agent_job.c), installs it in the store as `uwind sframe --install`
 * does (DIR/XX/REST.uwsf by build-id, DIR/cfi/XX/REST.uwsf by CFI for a
 * file without one), and answers, so that the processes mapping the file
 * have it from their next sample.  One line a request answered on
 * stdout: "RESULT uid=UID pid=PID FILE[: why] (SECONDS s)".
 *
 * Any user can make the module ask (run a program, map a file), so what
 * the requests can make the agent spend is bounded, per uid (the uid of
 * the process asked for) and in all:
 * - workers: --workers at once (default: the CPUs, 2 to 4); each under a
 *   time limit (--time-limit, 60 s, wall and CPU), a data limit
 *   (--mem-limit, 512 MiB) and a table size limit (--table-max, 64 MiB,
 *   the module's largest table); a CFI section over --cfi-max (64 MiB) is
 *   not converted;
 * - fairness: the uids with requests waiting take the free workers in
 *   turn (the module hands requests round-robin too); and a uid with
 *   nothing running whose request waits while every worker is busy gets
 *   one: at once when another uid holds more than one worker (that uid's
 *   youngest conversion is stopped and put back first in its queue), else
 *   within QUANTUM_S (250 ms: the youngest conversion that has run that
 *   long is stopped), each conversion at most twice; so one user's
 *   thousand files, or files that take the whole time limit, on one
 *   worker or all, delay another user's first conversion by no more than
 *   a fork, and more users than workers by a quarter of a second;
 * - conversion time: a uid's workers may use --user-cpu seconds of CPU
 *   (default 120) in each --window (600 s), its running conversions'
 *   counted as they run (those started before it was spent run to
 *   their end); past it its requests are answered "user-budget" until
 *   the window ends;
 * - disk: the tables made for a uid's requests since the agent started
 *   at most --user-store MiB (256), the store as a whole --store-max MiB
 *   (1024; counted from the store at start, `uwind sframe --gc` is run
 *   when it is full): past either, "store-full". Both count the blocks
 *   the tables take on disk, as du does, not their lengths.
 * Root's requests (the system's own processes) are served in turn as any
 * uid's, but have no budget of their own: only the store's cap.
 * The agent's own memory is its queue (at most the module's 512 pending
 * requests) and the workers' bookkeeping; a conversion's is the worker's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "agent.h"
#include "uwind.h"
#include "uwsf.h"

#define MAX_WORKERS	16
#define MAX_PREEMPT	2
/* How long a conversion runs before a waiting uid may stop it. */
#define QUANTUM_S	0.25
#define READ_BATCH	64
#define VDSO_MAX	(64u << 10)

/* One uid's requests and what it has spent. */
struct agent_user {
	struct agent_user *next;
	uid_t uid;
	struct agent_job *head, *tail;	/* waiting, oldest first */
	unsigned int waiting, running;
	double cpu, window_start;	/* CPU seconds used in the window */
	uint64_t bytes;			/* tables stored for it */
};

/* A worker stopped for another uid, not yet reaped: its CPU is u's. */
struct agent_dying {
	pid_t pid;
	struct agent_user *user;
};

struct agent {
	struct agent_cfg cfg;
	int dev, sig;
	struct agent_job *slot[MAX_WORKERS];
	struct agent_dying dying[MAX_WORKERS * MAX_PREEMPT];
	struct agent_user *users, *turn;	/* turn: whose is next */
	uint64_t store;			/* bytes in the store */
	pid_t gc;			/* a running --gc, or 0 */
	bool stop;
	unsigned long done[UWIND_DONE_COUNT];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- answers ---- */

static const char *const result_names[UWIND_DONE_COUNT] = {
	"installed", "gone", "no-cfi", "no-identity", "too-big", "failed",
	"timeout", "user-budget", "store-full", "refused",
};

static void answer(struct agent *a, struct agent_job *job, uint32_t result,
		   uint32_t retry_s, const char *why, double secs)
{
	struct uwind_done d = { .id = job->req.id, .result = result,
				.retry_s = retry_s };

	if (ioctl(a->dev, UWIND_IOC_DONE, &d) && errno != ENOENT)
		fprintf(stderr, "uwind: agent: answering request %llu: %s\n",
			(unsigned long long)job->req.id, strerror(errno));
	a->done[result]++;
	printf("%s uid=%u pid=%u %s%s%s (%.2f s, %.2f s after the request)\n",
	       result_names[result], job->req.uid, job->req.pid,
	       job->name[0] ? job->name : "?", why ? ": " : "",
	       why ? why : "", secs, now_s() - job->queued);
	fflush(stdout);
}

/* ---- users and their queues ---- */

static struct agent_user *user_of(struct agent *a, uid_t uid)
{
	struct agent_user *u;

	for (u = a->users; u; u = u->next)
		if (u->uid == uid)
			return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	u->next = a->users;
	a->users = u;
	return u;
}

static void push(struct agent_user *u, struct agent_job *job, bool first)
{
	job->user = u;
	job->next = NULL;
	if (first) {
		job->next = u->head;
		u->head = job;
		if (!u->tail)
			u->tail = job;
	} else if (u->tail) {
		u->tail->next = job;
		u->tail = job;
	} else {
		u->head = u->tail = job;
	}
	u->waiting++;
}

static struct agent_job *pop(struct agent_user *u)
{
	struct agent_job *job = u->head;

	if (!job)
		return NULL;
	u->head = job->next;
	if (!u->head)
		u->tail = NULL;
	u->waiting--;
	return job;
}

/* The name of the request's file, for the log (readlink: no file read). */
static void name_job(struct agent_job *job)
{
	char link[96];
	ssize_t n;

	if (job->req.flags & UWIND_REQ_VDSO) {
		snprintf(job->name, sizeof(job->name), "[vdso]");
		return;
	}
	snprintf(link, sizeof(link), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
		 job->req.pid, (uint64_t)job->req.start, (uint64_t)job->req.end);
	n = readlink(link, job->name, sizeof(job->name) - 1);
	job->name[n > 0 ? n : 0] = '\0';
}

/* Every request the module has queued, into its user's queue. */
static void read_requests(struct agent *a)
{
	struct uwind_req reqs[READ_BATCH];
	struct agent_user *u;
	struct agent_job *job;
	ssize_t n, i;

	for (;;) {
		n = read(a->dev, reqs, sizeof(reqs));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (i = 0; i < n / (ssize_t)sizeof(reqs[0]); i++) {
			job = calloc(1, sizeof(*job));
			u = job ? user_of(a, reqs[i].uid) : NULL;
			if (!u) {
				free(job);
				continue;	/* the module asks again */
			}
			job->req = reqs[i];
			job->tmp = job->keyfd = job->fd = -1;
			job->queued = now_s();
			name_job(job);
			if (a->cfg.verbose)
				printf("request uid=%u pid=%u %s (at %.3f s)\n",
				       job->req.uid, job->req.pid, job->name,
				       job->queued);
			push(u, job, false);
		}
	}
}

/* ---- budgets ---- */

/* The CPU seconds process pid has used so far; 0 when it cannot be read. */
static double proc_cpu(pid_t pid)
{
	unsigned long ut, st;
	char path[40], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* utime and stime: the 14th and 15th fields, after "(comm) S". */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * The CPU u has used in the window: its finished conversions' and, so
 * that a uid with many conversions in flight is not let past its budget
 * until they end, its running ones' so far.
 */
static double cpu_used(const struct agent *a, const struct agent_user *u)
{
	double cpu = u->cpu;
	unsigned int i;

	for (i = 0; i < a->cfg.workers; i++)
		if (a->slot[i] && a->slot[i]->user == u && a->slot[i]->child > 0)
			cpu += proc_cpu(a->slot[i]->child);
	return cpu;
}

/*
 * Whether u's CPU budget is spent; *retry: until when, in seconds;
 * *used: what it has used.
 */
static bool over_cpu(struct agent *a, struct agent_user *u, uint32_t *retry,
		     double *used)
{
	double t = now_s();

	if (t - u->window_start >= a->cfg.window_s) {
		u->window_start = t;
		u->cpu = 0;
	}
	*retry = (uint32_t)(u->window_start + a->cfg.window_s - t) + 1;
	*used = cpu_used(a, u);
	return *used >= a->cfg.user_cpu_s;
}

/* Run `uwind sframe --gc` on the store, in a process of its own. */
static void start_gc(struct agent *a)
{
	struct inst_opts o = { .dir = a->cfg.dir };
	pid_t pid;

	if (a->gc)
		return;
	pid = fork();
	if (pid == 0) {
		close(a->dev);
		close(a->sig);
		if (!freopen("/dev/null", "w", stdout))
			_exit(1);
		_exit(cmd_gc(&o));
	}
	if (pid > 0)
		a->gc = pid;
}

static void note_source(const struct agent_job *job, const char *table);

/* ---- workers ---- */

static int free_slot(const struct agent *a)
{
	unsigned int i;

	for (i = 0; i < a->cfg.workers; i++)
		if (!a->slot[i])
			return (int)i;
	return -1;
}

/* Read the vDSO of the request's process (no file: /proc/PID/mem). */
static int read_vdso(struct agent_job *job)
{
	uint64_t size = job->req.end - job->req.start;
	char path[64];
	ssize_t n;
	int fd;

	if (!size || size > VDSO_MAX)
		return -1;
	snprintf(path, sizeof(path), "/proc/%u/mem", job->req.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	job->img = fd >= 0 ? malloc(size) : NULL;
	n = job->img ? pread(fd, job->img, size, (off_t)job->req.start) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)size)
		return -1;
	job->img_size = size;
	return 0;
}

/* Start job in slot i, or answer it at once. */
static void start(struct agent *a, int i, struct agent_job *job)
{
	struct agent_user *u = job->user;
	uint32_t retry;
	char why[96];
	double used;

	if (u->uid && over_cpu(a, u, &retry, &used)) {
		snprintf(why, sizeof(why),
			 "the user's conversion time is spent (%.1f s of %g in %g s)",
			 used, a->cfg.user_cpu_s, a->cfg.window_s);
		answer(a, job, UWIND_DONE_BUDGET, retry, why, 0);
		free(job);
		return;
	}
	if (a->store >= a->cfg.store_max ||
	    (u->uid && u->bytes >= a->cfg.user_bytes)) {
		if (a->store >= a->cfg.store_max)
			start_gc(a);
		answer(a, job, UWIND_DONE_STORE_FULL, 600,
		       a->store >= a->cfg.store_max ? "the store is full" :
		       "the user's share of the store is full", 0);
		free(job);
		return;
	}
	if ((job->req.flags & UWIND_REQ_VDSO) && read_vdso(job)) {
		answer(a, job, UWIND_DONE_GONE, 0, "cannot read the vDSO", 0);
		agent_job_drop(job);
		free(job);
		return;
	}
	if (agent_job_start(&a->cfg, job)) {
		answer(a, job, UWIND_DONE_FAILED, 60, strerror(errno), 0);
		free(job);
		return;
	}
	job->started = now_s();
	job->deadline = job->started + a->cfg.time_s;
	a->slot[i] = job;
	u->running++;
	if (a->cfg.verbose)
		printf("converting uid=%u pid=%u %s (at %.3f s)\n",
		       job->req.uid, job->req.pid, job->name, job->started);
}

/*
 * The next uid in turn that has a request waiting, or NULL: first among
 * those with nothing running (a worker that frees goes to a uid waiting
 * with none, not back to the one that holds the others), then any.
 */
static struct agent_user *next_user(struct agent *a)
{
	struct agent_user *first = a->turn && a->turn->next ? a->turn->next :
				   a->users;
	struct agent_user *u;
	int pass;

	if (!first)
		return NULL;
	for (pass = 0; pass < 2; pass++) {
		u = first;
		do {
			if (u->head && (pass || !u->running)) {
				a->turn = u;
				return u;
			}
			u = u->next ? u->next : a->users;
		} while (u != first);
	}
	return NULL;
}

static bool stop_job(struct agent *a, struct agent_job *job);

/*
 * A uid with requests waiting and none running, while every worker is
 * busy: one conversion is stopped for it and put back first in its uid's
 * queue (not one stopped MAX_PREEMPT times already).  The youngest of a
 * uid that runs more than one goes at once; else, every worker running a
 * different uid's, the youngest that has run QUANTUM_S: more uids than
 * workers take turns, instead of a uid waiting for the conversions ahead
 * (up to --time-limit each).  Returns 0 when it stopped one, else the ms
 * until one may be stopped, or -1.
 */
static int preempt(struct agent *a)
{
	struct agent_job *young = NULL, *ripe = NULL, *soon = NULL;
	double t = now_s();
	struct agent_user *u;
	unsigned int i;
	bool starved = false;

	if (free_slot(a) >= 0)
		return -1;
	for (u = a->users; u; u = u->next)
		starved |= u->head && !u->running;
	if (!starved)
		return -1;
	for (i = 0; i < a->cfg.workers; i++) {
		struct agent_job *j = a->slot[i];

		if (j->preempted >= MAX_PREEMPT)
			continue;
		if (j->user->running > 1 &&
		    (!young || j->started > young->started))
			young = j;
		if (t - j->started >= QUANTUM_S) {
			if (!ripe || j->started > ripe->started)
				ripe = j;
		} else if (!soon || j->started < soon->started) {
			soon = j;
		}
	}
	if (young || ripe)
		return stop_job(a, young ? young : ripe) ? 0 : -1;
	return soon ? (int)((soon->started + QUANTUM_S - t) * 1000) + 1 : -1;
}

/*
 * Stop job, running in a worker, for another uid: its slot is free at
 * once (the worker, killed, is reaped when it has gone, and its CPU
 * charged then), and it is first in its uid's queue again.  False when
 * too many stopped workers are still going: then it runs on.
 */
static bool stop_job(struct agent *a, struct agent_job *job)
{
	struct agent_user *u = job->user;
	unsigned int i;

	for (i = 0; i < MAX_WORKERS * MAX_PREEMPT; i++) {
		if (!a->dying[i].pid) {
			a->dying[i].pid = job->child;
			a->dying[i].user = u;
			break;
		}
	}
	if (i == MAX_WORKERS * MAX_PREEMPT)
		return false;
	for (i = 0; i < a->cfg.workers; i++)
		if (a->slot[i] == job)
			a->slot[i] = NULL;
	u->running--;
	if (a->cfg.verbose)
		printf("stopped uid=%u pid=%u %s (at %.3f s, for another uid)\n",
		       job->req.uid, job->req.pid, job->name, now_s());
	agent_job_drop(job);	/* killed, its files closed or removed */
	job->preempted++;
	push(u, job, true);
	return true;
}

/*
 * Fill the free workers, uid by uid in turn, and stop one for a uid left
 * waiting with none; the ms until that may be done, or -1.
 */
static int dispatch(struct agent *a)
{
	struct agent_user *u;
	int i, ms;

	do {
		while ((i = free_slot(a)) >= 0 && (u = next_user(a)))
			start(a, i, pop(u));
	} while (!(ms = preempt(a)));
	return ms;
}

/* What the store, and u's share of it, can still take. */
static uint64_t room(const struct agent *a, const struct agent_user *u)
{
	uint64_t all = a->store < a->cfg.store_max ?
		       a->cfg.store_max - a->store : 0;
	uint64_t own = !u->uid ? all : u->bytes < a->cfg.user_bytes ?
		       a->cfg.user_bytes - u->bytes : 0;

	return all < own ? all : own;
}

/* Worker i ended with wait status st, having used cpu seconds. */
static void finished(struct agent *a, unsigned int i, int st, double cpu)
{
	struct agent_job *job = a->slot[i];
	struct agent_user *u = job->user;
	struct agent_out out;

	a->slot[i] = NULL;
	u->running--;
	u->cpu += cpu;
	agent_job_finish(&a->cfg, job, st, room(a, u), &out);
	if (out.result == UWIND_DONE_OK && out.bytes) {
		a->store += out.bytes - out.replaced;
		u->bytes += out.bytes;
		note_source(job, out.table);
	}
	answer(a, job, out.result, out.retry_s, out.why, now_s() - job->started);
	free(job);
}

/* Collect every worker (and --gc) that ended. */
static void reap(struct agent *a)
{
	struct rusage ru;
	unsigned int i;
	pid_t pid;
	int st;

	while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0) {
		double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			     ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;

		if (pid == a->gc) {
			a->gc = 0;
			a->store = agent_store_scan(a->cfg.dir, false);
			continue;
		}
		for (i = 0; i < MAX_WORKERS * MAX_PREEMPT; i++) {
			if (a->dying[i].pid == pid) {
				a->dying[i].user->cpu += cpu;
				a->dying[i].pid = 0;
			}
		}
		for (i = 0; i < a->cfg.workers; i++)
			if (a->slot[i] && a->slot[i]->child == pid)
				finished(a, i, st, cpu);
	}
}

/* Kill the workers past their time limit; ms to the next limit, or -1. */
static int timeouts(struct agent *a)
{
	double t = now_s(), next = -1;
	unsigned int i;

	for (i = 0; i < a->cfg.workers; i++) {
		struct agent_job *j = a->slot[i];

		if (!j || j->timed_out)
			continue;
		if (t >= j->deadline) {
			j->timed_out = true;
			kill(j->child, SIGKILL);
		} else if (next < 0 || j->deadline - t < next) {
			next = j->deadline - t;
		}
	}
	return next < 0 ? -1 : (int)(next * 1000) + 1;
}

/* ---- the note for --gc ---- */

/*
 * A table made for a file of a process in our own mount namespace's root
 * gets the note `--install` writes (REST.paths: the file's path), so that
 * --gc keeps it while the file is there; a file deleted, or seen only in
 * another root (a container), has none: its table lives as long as some
 * process maps a file with its key (sframe_gc.c).
 */
static void note_source(const struct agent_job *job, const char *table)
{
	char root[64];
	struct stat ours, theirs;
	size_t n = strlen(job->name);

	if (job->name[0] != '/' || (n > 10 &&
				    !strcmp(job->name + n - 10, " (deleted)")))
		return;
	snprintf(root, sizeof(root), "/proc/%u/root", job->req.pid);
	if (stat("/", &ours) || stat(root, &theirs) ||
	    ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
		return;
	inst_note_path(table, job->name);
}

/* ---- the loop ---- */

static int setup(struct agent *a)
{
	sigset_t set;

	if (inst_make_dirs(a->cfg.dir)) {
		tool_err(a->cfg.dir, "%s", strerror(errno));
		return -1;
	}
	a->dev = mod_dev_open(O_RDONLY | O_NONBLOCK);
	if (a->dev < 0) {
		tool_err(mod_dev_path(), "%s%s", strerror(errno),
			 errno == ENOENT ? " (is the uwind module loaded?)" : "");
		return -1;
	}
	if (ioctl(a->dev, UWIND_IOC_AGENT)) {
		tool_err(mod_dev_path(), "%s", errno == EBUSY ?
			 "another agent runs" : strerror(errno));
		return -1;
	}
	/* The only agent: what an agent killed earlier left goes. */
	a->store = agent_store_scan(a->cfg.dir, true);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	a->sig = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	return a->sig < 0 ? -1 : 0;
}

static void on_signals(struct agent *a)
{
	struct signalfd_siginfo si;

	while (read(a->sig, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
			a->stop = true;
}

static void shutdown_all(struct agent *a)
{
	struct agent_user *u, *nu;
	struct agent_job *j;
	unsigned int i;

	for (i = 0; i < a->cfg.workers; i++) {
		if (!a->slot[i])
			continue;
		agent_job_drop(a->slot[i]);
		free(a->slot[i]);
	}
	if (a->gc)
		kill(a->gc, SIGKILL);
	/*
	 * The workers, killed, gone within a second: one stuck in the kernel
	 * (a FUSE read) is not waited for, and dies when it can.
	 */
	for (i = 0; i < 100 && waitpid(-1, NULL, WNOHANG) >= 0; i++)
		usleep(10000);
	for (u = a->users; u; u = nu) {
		nu = u->next;
		while ((j = pop(u)))
			free(j);
		free(u);
	}
	/* The requests it held go back to the module's queue. */
	close(a->dev);
	close(a->sig);
}

static int run(struct agent *a)
{
	struct pollfd p[2];
	int ms, wait;

	printf("uwind agent: ready: %u workers, store %s (%" PRIu64
	       " bytes)\n", a->cfg.workers, a->cfg.dir, a->store);
	fflush(stdout);
	while (!a->stop) {
		read_requests(a);
		wait = dispatch(a);
		ms = timeouts(a);
		if (wait >= 0 && (ms < 0 || wait < ms))
			ms = wait;
		p[0] = (struct pollfd){ .fd = a->dev, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = a->sig, .events = POLLIN };
		if (poll(p, 2, ms) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			on_signals(a);
		reap(a);
	}
	shutdown_all(a);
	printf("uwind agent: stopped: %lu installed, %lu failed\n",
	       a->done[UWIND_DONE_OK],
	       a->done[UWIND_DONE_FAILED] + a->done[UWIND_DONE_TIMEOUT] +
	       a->done[UWIND_DONE_TOO_BIG] + a->done[UWIND_DONE_NO_CFI] +
	       a->done[UWIND_DONE_NO_ID]);
	return 0;
}

/* ---- options ---- */

static int num(const char *opt, const char *v, double lo, double hi,
	       double *out)
{
	char *end;
	double d = v ? strtod(v, &end) : 0;

	if (!v || end == v || *end || d < lo || d > hi)
		return tool_usage("%s takes a number from %g to %g", opt, lo,
				  hi);
	*out = d;
	return 0;
}

static int options(struct agent_cfg *c, int argc, char **argv)
{
	static const struct {
		const char *name;
		double lo, hi, scale;
		size_t off;
		bool is_u64, is_uint;
	} opts[] = {
#define O(n, lo, hi, sc, f, u64, ui) \
	{ n, lo, hi, sc, offsetof(struct agent_cfg, f), u64, ui }
		O("--workers", 1, MAX_WORKERS, 1, workers, false, true),
		O("--time-limit", 1, 86400, 1, time_s, false, false),
		O("--mem-limit", 16, 1 << 20, 1 << 20, mem_bytes, true, false),
		O("--cfi-max", 1, 4095, 1 << 20, cfi_max, true, false),
		O("--table-max", 1, 4095, 1 << 20, table_max, true, false),
		O("--user-cpu", 1, 1e7, 1, user_cpu_s, false, false),
		O("--window", 1, 1e7, 1, window_s, false, false),
		O("--user-store", 0.01, 1 << 24, 1 << 20, user_bytes, true, false),
		O("--store-max", 0.01, 1 << 24, 1 << 20, store_max, true, false),
#undef O
	};
	double d = 0;
	size_t k;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			c->verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			c->dir = argv[++i];
			continue;
		}
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (!strcmp(argv[i], opts[k].name))
				break;
		if (k == sizeof(opts) / sizeof(opts[0]))
			return tool_usage("unknown argument %s", argv[i]);
		if (num(argv[i], i + 1 < argc ? argv[i + 1] : NULL, opts[k].lo,
			opts[k].hi, &d))
			return 2;
		i++;
		d *= opts[k].scale;
		if (opts[k].is_u64)
			*(uint64_t *)((char *)c + opts[k].off) = (uint64_t)d;
		else if (opts[k].is_uint)
			*(unsigned int *)((char *)c + opts[k].off) =
				(unsigned int)d;
		else
			*(double *)((char *)c + opts[k].off) = d;
	}
	return 0;
}

int cmd_agent(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct agent a = {
		.cfg = {
			.dir = UWSF_DIR,
			.workers = cpus < 2 ? 2 : cpus > 4 ? 4 : (unsigned)cpus,
			.time_s = 60,
			.mem_bytes = 512ull << 20,
			.cfi_max = 64ull << 20,
			.table_max = 64ull << 20,
			.user_cpu_s = 120,
			.window_s = 600,
			.user_bytes = 256ull << 20,
			.store_max = 1024ull << 20,
		},
		.dev = -1, .sig = -1,
	};
	int ret = options(&a.cfg, argc, argv);

	if (ret)
		return ret;
	if (geteuid()) {
		fprintf(stderr, "uwind: agent: only root may run it (it opens"
			" other users' files through /proc/PID/map_files and"
			" writes root's table store)\n");
		return 1;
	}
	if (setup(&a))
		return 1;
	return run(&a);
}
