// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwspawn: start N processes at the same moment, as an ordinary user.
 *
 *   uwspawn UID N PROGRAM [ARG...]
 *
 * Forks N children; each drops to uid and gid UID (no supplementary
 * groups) and waits on a pipe.  Once all exist, the parent prints their
 * pids, one a line, and closes the pipe: they all exec at once (their
 * own output goes to /dev/null).  "%d" in
 * PROGRAM becomes the child's number (0 ... N-1), so each may run a file
 * of its own.  Waits for them all; exit status 0 when every child exited
 * with 0.  Run as root (setuid needs it).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#define MAX_N 64

static void child(int rd, unsigned int uid, int idx, char **argv)
{
	char prog[4096], c;

	snprintf(prog, sizeof(prog), argv[0], idx);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("uwspawn: dropping to the user");
		_exit(126);
	}
	/* EOF once the parent closes its end: the signal to go. */
	if (read(rd, &c, 1) < 0)
		_exit(126);
	close(rd);
	/* stdout carries the pids; the children's output goes nowhere. */
	rd = open("/dev/null", O_WRONLY);
	if (rd >= 0)
		dup2(rd, 1);
	argv[0] = prog;
	execv(prog, argv);
	perror("uwspawn: exec");
	_exit(127);
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_N];
	unsigned int uid;
	int fds[2], n, i, st, bad = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: uwspawn UID N PROGRAM [ARG...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 0);
	n = atoi(argv[2]);
	if (n < 1 || n > MAX_N || pipe(fds))
		return 2;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("uwspawn: fork");
			return 1;
		}
		if (pids[i] == 0) {
			close(fds[1]);
			child(fds[0], uid, i, argv + 3);
		}
	}
	close(fds[0]);
	for (i = 0; i < n; i++)
		printf("%d\n", (int)pids[i]);
	fflush(stdout);
	close(fds[1]);
	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad++;
	return bad ? 1 : 0;
}
