// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * kvmspin: the smallest KVM virtual machine monitor, for the test of
 * samples taken while a guest runs.  It creates a VM with one page of
 * memory holding "jmp ." at 0x1000, one vCPU in real mode there, and calls
 * KVM_RUN until MILLISECONDS (default 1000) have passed: the thread then
 * spends nearly all its time in guest mode.  Its own call chain (main ->
 * vmm_run -> vmm_loop -> ioctl) is what a walker must not report for a
 * sample taken while the guest runs.  Usage: kvmspin [MILLISECONDS].
 * Exit status 0 once it ran, 2 when /dev/kvm cannot run a guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static volatile unsigned long runs;

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

__attribute__((noinline)) static int vmm_loop(int vcpu, struct kvm_run *run)
{
	while (!done) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0 && errno != EINTR) {
			perror("kvmspin: KVM_RUN");
			return 1;
		}
		runs++;
		if (!done && run->exit_reason != KVM_EXIT_INTR) {
			fprintf(stderr, "kvmspin: exit reason %u\n",
				run->exit_reason);
			return 1;
		}
	}
	return 0;
}

__attribute__((noinline)) static int vmm_run(void)
{
	static const unsigned char code[] = { 0xeb, 0xfe };	/* jmp . */
	struct kvm_userspace_memory_region mem;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu;
	long sz;
	void *ram;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	vm = kvm < 0 ? -1 : ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		perror("kvmspin: /dev/kvm");
		return 2;
	}
	ram = mmap(NULL, 0x2000, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED)
		return 2;
	memcpy((char *)ram + 0x1000, code, sizeof(code));
	memset(&mem, 0, sizeof(mem));
	mem.guest_phys_addr = 0;
	mem.memory_size = 0x2000;
	mem.userspace_addr = (unsigned long)ram;
	vcpu = ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem) < 0 ? -1 :
	       ioctl(vm, KVM_CREATE_VCPU, 0);
	sz = vcpu < 0 ? -1 : ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	run = sz <= 0 ? MAP_FAILED :
	      mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED || ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0) {
		perror("kvmspin: vcpu");
		return 2;
	}
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	memset(&regs, 0, sizeof(regs));
	regs.rip = 0x1000;
	regs.rflags = 2;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0 ||
	    ioctl(vcpu, KVM_SET_REGS, &regs) < 0) {
		perror("kvmspin: registers");
		return 2;
	}
	return vmm_loop(vcpu, run);
}

int main(int argc, char **argv)
{
	unsigned long ms = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	struct itimerval it = {
		.it_value = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 },
	};
	struct sigaction sa;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	ret = vmm_run();
	printf("kvmspin: %lu KVM_RUN calls\n", runs);
	return ret;
}
