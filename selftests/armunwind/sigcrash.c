// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A 32-bit ARM program that crashes inside a signal handler, for `uwind
 * stack --core` across the signal frame on the cores qemu-arm writes:
 *
 *   main -> sc_outer -> sc_spin (traps: SIGILL) => sc_handler -> sc_leaf
 *   (stores through NULL: SIGSEGV, a core)
 *
 * The handler returns (would return) through a sigreturn trampoline, and
 * which one depends on argv[1]:
 *   libc     sigaction(): glibc's __default_sa_restorer, which carries an
 *            EHABI entry describing the signal frame
 *   frame    rt_sigaction without SA_RESTORER: the kernel's (qemu's)
 *            trampoline page, sigreturn and a struct sigframe
 *   rtframe  the same with SA_SIGINFO: rt_sigreturn and a struct
 *            rt_sigframe (siginfo first)
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NOINL __attribute__((noinline, noclone))

static volatile int g_sink;

NOINL void sc_leaf(int n)
{
	*(volatile int *)0 = n;
	__builtin_trap();
}

NOINL void sc_handler(int sig)
{
	sc_leaf(sig + g_sink);
}

NOINL int sc_spin(int n)
{
	if (n > 0)
		__builtin_trap();
	return n + g_sink;
}

NOINL int sc_outer(int n)
{
	return sc_spin(n + 1) + 1;
}

/* The kernel's struct sigaction, for rt_sigaction without libc's help. */
struct k_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask[2];
};

int main(int argc, char **argv)
{
	struct k_sigaction k;
	struct sigaction sa;

	if (argc > 1 && strcmp(argv[1], "libc") != 0) {
		memset(&k, 0, sizeof(k));
		k.handler = sc_handler;
		k.flags = strcmp(argv[1], "rtframe") == 0 ? SA_SIGINFO : 0;
		syscall(SYS_rt_sigaction, SIGILL, &k, NULL, sizeof(k.mask));
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = sc_handler;
		sigaction(SIGILL, &sa, NULL);
	}
	return sc_outer(argc);
}
