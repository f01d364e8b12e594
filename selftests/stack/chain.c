// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A program with a known call chain for `uwind stack` tests, built without
 * frame pointers and with SFrame (-Wa,--gsframe):
 *
 *   main -> run -> recurse x4 -> (function pointer) with_alloca ->
 *   big_frame -> leaf
 *
 * `chain stop`: a second thread runs worker -> worker_mid -> worker_leaf
 * and spins; once it is there, the main thread's leaf stops the whole
 * process with SIGSTOP (raw syscall, so the pc stays in leaf) and prints
 * nothing further.  `chain crash`: leaf writes through NULL (no thread).
 *
 * `chain sigstop` / `chain sigcrash`: a signal handler frame in between,
 * no thread:
 *
 *   main -> run_sig -> sig_raise =(SIGUSR1, raw kill)=> [sigreturn
 *   trampoline] -> on_usr1 -> handler_mid -> leaf
 *
 * The pid is printed on stdout first, so a test can find the process.
 */
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

static volatile int crash_mode;
static volatile int worker_ready;
static volatile int spin = 1;
static volatile int sink;

/* kill(getpid(), sig) as inline system calls: no libc frame on top. */
static inline __attribute__((always_inline)) void raise_raw(long sig)
{
#if defined(__x86_64__)
	long pid, ret;

	asm volatile("syscall" : "=a"(pid) : "0"(39L) : "rcx", "r11", "memory");
	asm volatile("syscall" : "=a"(ret) : "0"(62L), "D"(pid), "S"(sig)
		     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 asm("x8") = 172;	/* getpid */
	register long x0 asm("x0");
	register long x1 asm("x1") = sig;

	asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	x8 = 129;				/* kill */
	asm volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
#endif
}

noinline int leaf(int n)
{
	if (crash_mode) {
		*(volatile int *)0 = n;
	} else {
		while (!worker_ready)
			;
		raise_raw(SIGSTOP);
	}
	return n + 1;
}

noinline int big_frame(int n)
{
	volatile char buf[8192];
	int r;

	buf[n] = (char)n;
	r = leaf(n);
	return r + buf[n];
}

noinline int with_alloca(int n)
{
	char *p = alloca(64 + n * 32);
	int r;

	memset(p, n, 64 + n * 32);
	sink = p[n];
	r = big_frame(n);
	return r + p[3];
}

static int (*volatile indirect)(int) = with_alloca;

noinline int recurse(int n)
{
	int r;

	if (n > 0)
		r = recurse(n - 1);
	else
		r = indirect(n + 5);
	return r + 1;
}

noinline int run(int n)
{
	int r = recurse(n);

	sink = r;
	return r;
}

noinline int worker_leaf(int n)
{
	worker_ready = 1;
	while (spin)
		sink = n;
	return n;
}

noinline int worker_mid(int n)
{
	int r = worker_leaf(n + 1);

	sink = r;
	return r + 1;
}

noinline void *worker(void *arg)
{
	sink = worker_mid(arg != NULL);
	return NULL;
}

noinline int handler_mid(int n)
{
	int r = leaf(n);

	sink = r;
	return r + 1;
}

noinline void on_usr1(int sig)
{
	sink = handler_mid(sig);
}

noinline int sig_raise(int n)
{
	raise_raw(SIGUSR1);
	sink = n;
	return n + 1;
}

noinline int run_sig(int n)
{
	int r = sig_raise(n);

	sink = r;
	return r;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "stop";
	struct sigaction sa;
	pthread_t t;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	crash_mode = !strcmp(mode, "crash") || !strcmp(mode, "sigcrash");
	if (!strncmp(mode, "sig", 3)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		worker_ready = 1;
		return run_sig(3) == 0;
	}
	if (!crash_mode && pthread_create(&t, NULL, worker, NULL))
		return 1;
	return run(3) == 0;
}
