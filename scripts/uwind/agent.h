/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind agent (agent.c: the loop, the requests and who runs next;
 * agent_job.c: one conversion, in a worker process of its own).
 */
#ifndef UWIND_TOOL_AGENT_H
#define UWIND_TOOL_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "install.h"
#include "../../kernel/uwind_uapi.h"

/* The limits, from the command line (agent.c says their defaults). */
struct agent_cfg {
	const char *dir;		/* the store: UWSF_DIR */
	unsigned int workers;
	double time_s;			/* one conversion, wall and CPU */
	uint64_t mem_bytes;		/* one worker's data (RLIMIT_DATA) */
	uint64_t cfi_max;		/* largest CFI section converted */
	uint64_t table_max;		/* largest table written */
	double user_cpu_s, window_s;	/* one uid's conversion time a window */
	uint64_t user_bytes;		/* one uid's tables stored */
	uint64_t store_max;		/* the whole store */
	bool verbose;
};

struct agent_user;

/* One request, from its arrival to its answer. */
struct agent_job {
	struct agent_job *next;		/* its user's queue */
	struct agent_user *user;
	struct uwind_req req;
	unsigned int preempted;
	/* While it runs: */
	pid_t child;
	int fd;				/* the file (-1: the vDSO image) */
	void *img;			/* the vDSO's bytes */
	size_t img_size;
	int tmp;			/* the table being written */
	int keyfd;			/* what the worker says of the file */
	char tmp_path[PATH_MAX];
	char name[PATH_MAX];		/* for the log */
	double queued, started, deadline;
	bool timed_out;
};

/* What a finished worker left: agent_job.c's verdict on it. */
struct agent_out {
	uint32_t result;		/* UWIND_DONE_* */
	uint32_t retry_s;
	const char *why;		/* for the log */
	uint64_t bytes;			/* the table installed (result OK) */
	uint64_t replaced;		/* ... the one it replaced */
	char table[PATH_MAX];
	char why_buf[128];		/* why, when it has numbers */
};

/*
 * Start the worker converting job's file (job->img: the vDSO's image,
 * read by the agent from the process's memory; else the mapping's
 * map_files link, which only the worker opens): 0, or -1 (errno).
 */
int agent_job_start(const struct agent_cfg *cfg, struct agent_job *job);
/*
 * The worker ended with wait status st: check and install what it made
 * (its key checked against what the worker read before it parsed
 * anything; at most room bytes), into out.
 */
void agent_job_finish(const struct agent_cfg *cfg, struct agent_job *job,
		      int st, uint64_t room, struct agent_out *out);
/*
 * Whatever job holds: its worker killed (and left for the agent to reap),
 * its files closed or removed.
 */
void agent_job_drop(struct agent_job *job);
/* What the table st costs the store: its bytes on disk, in blocks. */
uint64_t agent_cost(const struct stat *st);
/* The store's tables, their cost; temporary files of an agent removed. */
uint64_t agent_store_scan(const char *dir, bool tidy);

#endif
