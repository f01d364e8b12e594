// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sigleaf: a call chain through a signal frame, for perf to sample.
 * main() calls outer(), which spins; a timer signal every 10 ms runs
 * handler() -> sig_b() -> sig_c(), and sig_c() spins (8 ms).  A sample
 * in sig_c() has the chain sig_c, sig_b, handler, the kernel's sigreturn
 * trampoline, then the interrupted outer() and main().
 *
 * AArch64: glibc's sigaction, as programs install handlers; the handler
 * returns through the vDSO's __kernel_rt_sigreturn.  32-bit ARM: glibc
 * would give the handler its own restorer (SA_RESTORER, with EHABI
 * entries), so the rt_sigaction system call is made directly, without
 * one: the kernel then returns through its sigpage.
 *
 * Usage: sigleaf [MILLISECONDS [HANDLER_MS]] (defaults 1000 and 8: how
 * long sig_c() spins each call).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include "now.h"

static volatile unsigned long sink;
static volatile sig_atomic_t done;
static unsigned long long end_ms, handler_ms = 8;
static unsigned long signals;

/* The clock is read every 4096 iterations: the time is spent here. */
__attribute__((noinline)) void sig_c(void)
{
	unsigned long long until = now_ms() + handler_ms;
	unsigned long i;

	for (i = 1;; i++) {
		sink += i;
		if (!(i & 4095) && now_ms() >= until)
			break;
	}
}

__attribute__((noinline)) void sig_b(void)
{
	sig_c();
	sink++;
}

__attribute__((noinline)) void handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	sig_b();
	signals++;
	/*
	 * Time is up: stop the timer too.  A handler that outlasts the
	 * interval finds the next signal pending at its sigreturn, and
	 * outer() would never run again to see done.
	 */
	if (now_ms() >= end_ms) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
		done = 1;
	}
}

/*
 * Interrupted by the signal: a loop without calls until the handler says
 * the time is up, so the interrupted pc is here (and not in main, between
 * two calls); returns how many rounds it made.
 */
__attribute__((noinline)) unsigned long outer(void)
{
	unsigned long i, rounds = 0;

	while (!done) {
		for (i = 0; i < 100000; i++)
			sink += i;
		rounds++;
	}
	return rounds;
}

#ifdef __arm__
/* The kernel's struct sigaction for rt_sigaction: no restorer given. */
struct ksigaction {
	void (*handler)(int, siginfo_t *, void *);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask[2];
};

static int install(void)
{
	struct ksigaction ka;

	memset(&ka, 0, sizeof(ka));
	ka.handler = handler;
	ka.flags = SA_SIGINFO | SA_RESTART;
	return syscall(SYS_rt_sigaction, SIGALRM, &ka, NULL, sizeof(ka.mask));
}
#else
static int install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	return sigaction(SIGALRM, &sa, NULL);
}
#endif

int main(int argc, char **argv)
{
	struct itimerval it = {
		.it_interval = { .tv_usec = 10000 },
		.it_value = { .tv_usec = 10000 },
	};
	unsigned long rounds;
	sigset_t set;

	end_ms = now_ms() + (argc > 1 ? strtoull(argv[1], NULL, 0) : 1000);
	if (argc > 2)
		handler_ms = strtoull(argv[2], NULL, 0);
	if (install() || setitimer(ITIMER_REAL, &it, NULL)) {
		perror("sigleaf");
		return 1;
	}
	rounds = outer();
	/* No more handlers: they would interrupt libc's exit path. */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("sigleaf: %lu calls of handler(), %lu rounds in outer()\n",
	       signals, rounds);
	return 0;
}
