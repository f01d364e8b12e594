// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * selfwalk: a program that prints its own call stack with uwind, from
 * the SFrame table the linker gave it (PT_GNU_SFRAME).  The API example
 * of the documentation (lib/README.md shows this file; docs.sh checks
 * it is the same), built against an installed uwind:
 *
 *   cc -O2 -Wa,--gsframe -rdynamic -o selfwalk selfwalk.c \
 *           $(pkg-config --cflags --libs uwind)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <uwind/uwind.h>
#include <uwind/sframe.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554	/* glibc's elf.h has it from 2.39 */
#endif

static struct uw_sframe sf;
static struct uw_module mod = { .sframe = &sf };
static uint64_t stack_lo, stack_hi;

/* The program (the first object): its text and its SFrame table. */
static int find_tables(struct dl_phdr_info *info, size_t size, void *err)
{
	struct uw_span sec = { 0 };
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t at = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			mod.start = at;
			mod.end = at + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_SFRAME) {
			sec.data = (const uint8_t *)(uintptr_t)at;
			sec.size = ph->p_memsz;
			sec.addr = ph->p_vaddr;	/* link-time address */
		}
	}
	mod.bias = info->dlpi_addr;	/* run-time minus link-time */
	*(int *)err = sec.data ? uw_sframe_init(&sf, &sec) : UW_ENOENT;
	(void)size;
	return 1;
}

/* Memory reads may fail: only this thread's stack and the text. */
static int read_mem(void *ctx, uint64_t addr, void *dst, size_t len)
{
	(void)ctx;
	if (!(addr >= stack_lo && addr + len <= stack_hi) &&
	    !(addr >= mod.start && addr + len <= mod.end))
		return -1;
	memcpy(dst, (const void *)(uintptr_t)addr, len);
	return 0;
}

__attribute__((noinline)) int print_stack(void)
{
	struct uw_walk_cfg cfg = { .mods = &mod, .nmods = 1,
				   .mem = { read_mem, NULL } };
	static struct uw_cursor cur;	/* the walk's scratch */
	struct uw_frame frames[32];
	struct uw_walk_result res;
	struct uw_regs regs = { 0 };
	uint64_t pc, sp, fp;
	pthread_attr_t attr;
	void *base;
	size_t i, n, size;
	Dl_info dl;
	int err;

	dl_iterate_phdr(find_tables, &err);
	if (err) {
		printf("no SFrame table: %s\n", uw_strerror(err));
		return 1;
	}
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &base, &size);
	stack_hi = (uintptr_t)base + size;
#if defined(__x86_64__)
	__asm__ volatile("1: lea 1b(%%rip), %0; mov %%rsp, %1; mov %%rbp, %2"
			 : "=&r"(pc), "=&r"(sp), "=&r"(fp));
	cfg.arch = UW_ARCH_X86_64;
	uw_reg_set(&regs, UW_X86_64_RIP, pc);
	uw_reg_set(&regs, UW_X86_64_RSP, sp);
	uw_reg_set(&regs, UW_X86_64_RBP, fp);
#elif defined(__aarch64__)
	uint64_t lr;

	__asm__ volatile("1: adr %0, 1b; mov %1, sp; mov %2, x29; mov %3, x30"
			 : "=&r"(pc), "=&r"(sp), "=&r"(fp), "=&r"(lr));
	cfg.arch = UW_ARCH_AARCH64;
	uw_reg_set(&regs, UW_AARCH64_PC, pc);
	uw_reg_set(&regs, UW_AARCH64_SP, sp);
	uw_reg_set(&regs, UW_AARCH64_X29, fp);
	uw_reg_set(&regs, UW_AARCH64_X30, lr);
#endif
	stack_lo = sp;
	n = uw_walk(&cur, &cfg, &regs, frames, 32, &res);
	for (i = 0; i < n; i++) {
		/* A return address names the call before it. */
		void *at = (void *)(uintptr_t)(frames[i].pc - (i > 0));

		printf("#%zu 0x%llx %s [%s]\n", i,
		       (unsigned long long)frames[i].pc,
		       dladdr(at, &dl) && dl.dli_sname ? dl.dli_sname : "??",
		       uw_source_name(frames[i].source));
	}
	printf("stopped: %s (%s)\n", uw_stop_name(res.stop),
	       uw_strerror(res.err));
	return 0;
}

__attribute__((noinline)) int inner(int x)
{
	return print_stack() + x;
}

__attribute__((noinline)) int outer(int x)
{
	return inner(x + 1) * 2;
}

int main(int argc, char **argv)
{
	(void)argv;
	return outer(argc) > 100;
}
