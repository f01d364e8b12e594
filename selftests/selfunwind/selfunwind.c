// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Self-unwinding test: the program runs a known call chain, captures its
 * registers deep inside it and walks its own stack with the uwind core,
 * using the program's own SFrame table (PT_GNU_SFRAME).  Built for x86-64
 * (run natively) and AArch64 (run under qemu-aarch64).
 *
 * The chain (selftests/common/chain.h): main -> chain_big_frame (a
 * 50000-byte local array) -> chain_alloca -> [chain_fp_mid, fpmid.c:
 * no SFrame, frame pointers] -> chain_recurse x3 -> chain_dispatch
 * -(function pointer)-> leaf.
 *
 * Scenarios:
 *  plain   registers captured by inline asm in a frameless leaf (on
 *          AArch64 the return address is still in x30); the leaf also
 *          copies the live stack, and the walk reads that snapshot.
 *  fp-mid  the same with chain_fp_mid in the chain: that one frame must be
 *          crossed by the frame-pointer fallback, the rest by SFrame.
 *          Its caller is chain_alloca on purpose: on AArch64 a frame record
 *          does not tell where the caller's sp was (the fallback can only
 *          say fp + 16), so only a caller whose CFA is frame-pointer
 *          based, as alloca forces, can be resumed exactly with SFrame.
 *  segv    the leaf loads from a bad address; the SIGSEGV handler
 *          captures its own registers and walks the live stack through
 *          the kernel signal frame back into the leaf (exact pc) and on.
 *  signal  the leaf sends itself SIGUSR1 with a raw tgkill system call
 *          (no libc call, so it stays a leaf); the handler walks as above
 *          and returns normally.
 *
 * Each walk is made again reading the stack in place
 * (UW_WALK_DIRECT_STACK, within the same bounds: the snapshot, or the
 * live stack from the handler's sp up), as a program unwinding itself
 * would; it must give the same frames.
 *
 * "--no-signals" reports the two signal scenarios as skipped.
 *
 * The oracle for frame names is the ELF symbol table of /proc/self/exe
 * (function start and size as the linker wrote them); for the
 * trampoline frame it is the handler's own return address, and for the
 * interrupted frame the pc/sp the kernel passed in the ucontext.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include <uwind/uwind.h>
#include <uwind/sframe.h>

#include "../common/selfproc.h"
#include "../common/chain.h"
#include "../common/tap.h"

#if defined(__x86_64__)
#define SW_ARCH		UW_ARCH_X86_64
#define SW_ARCH_NAME	"x86_64"
#elif defined(__aarch64__)
#define SW_ARCH		UW_ARCH_AARCH64
#define SW_ARCH_NAME	"aarch64"
#else
#error "selfunwind: x86-64 or AArch64 only"
#endif

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define NOINL		CHAIN_NOINL
#define NOSAN		__attribute__((no_sanitize_address, no_sanitize_undefined))
#define OPAQUE(v)	CHAIN_OPAQUE(v)

#define MAX_FRAMES	64

/* ---- state shared by the chain, the handler and the checks ---- */

#define BAD_ADDR	16			/* unmapped: sw_fault's target */
static volatile long g_pid, g_tid;

/* Registers and stack snapshot taken by sw_leaf. */
static struct uw_regs g_leaf_regs;
static uint64_t g_stack_hi;		/* top of the stack mapping */
static uint64_t g_snap_lo, g_snap_len;
#define SNAP_WORDS	(1u << 17)	/* 1 MiB */
static uint64_t g_snap[SNAP_WORDS];

/* What the signal handler saw and found. */
static sigjmp_buf g_jmp;
static volatile int g_handler_ran;
static uint64_t g_tramp;		/* the handler's return address */
static uint64_t g_uc_pc, g_uc_sp;	/* interrupted pc/sp from the ucontext */

/* The program's own table and text. */
static struct uw_sframe g_sframe;
static struct uw_module g_mod;
static int g_sframe_err = UW_ENOENT;
static uint64_t g_bias;

static struct sp_mem g_mem;

/* ---- the walk ---- */

struct walk_out {
	struct uw_frame frames[MAX_FRAMES];
	struct uw_walk_result res;
	struct uw_cursor cur;
	size_t n;
	uint64_t stack_lo, stack_hi;
	int maps_err;
};

static struct walk_out g_out, g_direct;
static bool g_direct_copy;		/* g_direct read a snapshot */

/*
 * Walk from regs.  snap: stack snapshot (NULL: the live stack).  Then
 * again in place into g_direct: the snapshot as the stack's copy, or the
 * live stack where it is.  Async-signal-safe: no allocation, no stdio.
 */
static void do_walk(const struct uw_regs *regs, const uint8_t *snap,
		    uint64_t snap_lo, uint64_t snap_len, struct walk_out *out)
{
	struct uw_walk_cfg cfg;
	const struct sp_map *st;
	uint64_t sp = regs->r[SW_ARCH == UW_ARCH_X86_64 ? UW_X86_64_RSP :
			      UW_AARCH64_SP];

	memset(out, 0, sizeof(*out));
	out->maps_err = sp_load_maps(&g_mem);
	g_mem.snap = snap;
	g_mem.snap_lo = snap_lo;
	g_mem.snap_hi = snap_lo + snap_len;
	g_mem.nreads = g_mem.nfails = 0;
	st = sp_find_map(&g_mem, sp);
	out->stack_lo = sp;
	out->stack_hi = st ? st->hi : 0;
	if (snap && snap_lo + snap_len < out->stack_hi)
		out->stack_hi = snap_lo + snap_len;

	chain_walk_cfg(&cfg, SW_ARCH, &g_mod, sp_mem_read, &g_mem,
		       out->stack_lo, out->stack_hi);
	/* User addresses are below 2^48: the rest of a signed RA is PAC. */
	cfg.pac_mask = SW_ARCH == UW_ARCH_AARCH64 ? 0xffff000000000000ull : 0;
	cfg.max_depth = MAX_FRAMES;
	out->n = uw_walk(&out->cur, &cfg, regs, out->frames, MAX_FRAMES,
			  &out->res);

	memset(&g_direct, 0, sizeof(g_direct));
	g_direct.stack_lo = out->stack_lo;
	g_direct.stack_hi = out->stack_hi;
	cfg.flags |= UW_WALK_DIRECT_STACK;
	cfg.stack_mem = snap ? snap + (out->stack_lo - snap_lo) : NULL;
	g_direct_copy = snap != NULL;
	g_direct.n = uw_walk(&g_direct.cur, &cfg, regs, g_direct.frames,
			     MAX_FRAMES, &g_direct.res);
}

/* ---- register capture ---- */

#if defined(__x86_64__)
#define CAPTURE(regs) do {						\
	uint64_t pc_, sp_, fp_;						\
	__asm__ volatile("1: lea 1b(%%rip), %0\n\t"			\
			 "mov %%rsp, %1\n\t"				\
			 "mov %%rbp, %2"				\
			 : "=&r"(pc_), "=&r"(sp_), "=&r"(fp_));		\
	(regs)->valid = 0;						\
	uw_reg_set((regs), UW_X86_64_RIP, pc_);				\
	uw_reg_set((regs), UW_X86_64_RSP, sp_);				\
	uw_reg_set((regs), UW_X86_64_RBP, fp_);				\
} while (0)
#define GET_SP(regs)	((regs)->r[UW_X86_64_RSP])
#else
#define CAPTURE(regs) do {						\
	uint64_t pc_, sp_, fp_, lr_;					\
	__asm__ volatile("1: adr %0, 1b\n\t"				\
			 "mov %1, sp\n\t"				\
			 "mov %2, x29\n\t"				\
			 "mov %3, x30"					\
			 : "=&r"(pc_), "=&r"(sp_), "=&r"(fp_), "=&r"(lr_)); \
	(regs)->valid = 0;						\
	uw_reg_set((regs), UW_AARCH64_PC, pc_);				\
	uw_reg_set((regs), UW_AARCH64_SP, sp_);				\
	uw_reg_set((regs), UW_AARCH64_X29, fp_);			\
	uw_reg_set((regs), UW_AARCH64_X30, lr_);			\
} while (0)
#define GET_SP(regs)	((regs)->r[UW_AARCH64_SP])
#endif

/* ---- the chain ---- */

/*
 * The leaf: no calls, no stack frame.  It captures its registers and
 * copies the stack from its sp to the top, so the walk can run after the
 * chain has returned.  A plain loop of volatile loads cannot become a
 * memcpy call.
 */
NOSAN NOINL long sw_leaf(long x)
{
	const volatile uint64_t *s;
	uint64_t n, i;

	CAPTURE(&g_leaf_regs);
	s = (const volatile uint64_t *)(uintptr_t)GET_SP(&g_leaf_regs);
	n = g_stack_hi > GET_SP(&g_leaf_regs) ?
	    (g_stack_hi - GET_SP(&g_leaf_regs)) / 8 : 0;
	if (n > SNAP_WORDS)
		n = SNAP_WORDS;
	for (i = 0; i < n; i++)
		g_snap[i] = s[i];
	g_snap_lo = GET_SP(&g_leaf_regs);
	g_snap_len = n * 8;
	return x * 3 + 1;
}

/*
 * A frameless leaf that faults on its very first instruction, so the
 * interrupted pc is the function's start: a walker that looked up pc - 1
 * there would land in the previous function.
 */
NOSAN NOINL long sw_fault(long p)
{
	return *(volatile int *)p;
}

/* A frameless leaf that signals itself with a raw system call. */
NOSAN NOINL long sw_kill(long x)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_tgkill), "D"(g_pid), "S"(g_tid),
			   "d"((long)SIGUSR1)
			 : "rcx", "r11", "memory");
#else
	register long x8 __asm__("x8") = SYS_tgkill;
	register long x0 __asm__("x0") = g_pid;
	register long x1 __asm__("x1") = g_tid;
	register long x2 __asm__("x2") = SIGUSR1;
	long ret;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2)
			 : "memory");
	ret = x0;
#endif
	return x + ret;
}

static struct uw_regs g_handler_regs;

NOINL void sw_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)si;
	CAPTURE(&g_handler_regs);
	g_tramp = (uint64_t)(uintptr_t)__builtin_extract_return_addr(
		__builtin_return_address(0));
#if defined(__x86_64__)
	g_uc_pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	g_uc_sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
#else
	g_uc_pc = uc->uc_mcontext.pc;
	g_uc_sp = uc->uc_mcontext.sp;
#endif
	do_walk(&g_handler_regs, NULL, 0, 0, &g_out);
	g_handler_ran = 1;
	if (sig == SIGSEGV)
		siglongjmp(g_jmp, 1);
}

/* The function a frame is in: return addresses are looked up at pc - 1. */
static uint64_t frame_lookup_pc(const struct uw_frame *f, size_t i)
{
	return i == 0 || (f->flags & UW_FRAME_SIGNAL) || f->pc == 0 ?
	       f->pc : f->pc - 1;
}

static const char *frame_name(const struct uw_frame *f, size_t i,
			      char *buf, size_t len)
{
	uint64_t pc = frame_lookup_pc(f, i);
	const struct sp_sym *s = sp_sym_at(pc);
	Dl_info di;

	if (s) {
		snprintf(buf, len, "%s+0x%llx", s->name,
			 (unsigned long long)(pc - s->start));
		return s->name;
	}
	if (dladdr((void *)(uintptr_t)pc, &di) && di.dli_fname) {
		snprintf(buf, len, "%s(%s)", di.dli_sname ? di.dli_sname : "?",
			 di.dli_fname);
		return NULL;
	}
	snprintf(buf, len, "?");
	return NULL;
}

/* ---- table discovery ---- */

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const ElfW(Phdr) *sf = NULL;
	struct uw_span span;
	size_t i;

	(void)size;
	(void)data;
	g_bias = info->dlpi_addr;
	/* The first object is the executable; only its table is used. */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_SFRAME)
			sf = ph;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    !g_mod.end) {
			g_mod.start = info->dlpi_addr + ph->p_vaddr;
			g_mod.end = g_mod.start + ph->p_memsz;
		}
	}
	if (sf) {
		span.data = (const uint8_t *)(uintptr_t)(info->dlpi_addr +
							  sf->p_vaddr);
		span.size = sf->p_memsz;
		span.addr = info->dlpi_addr + sf->p_vaddr;
		g_sframe_err = uw_sframe_init(&g_sframe, &span);
		if (!g_sframe_err)
			g_mod.sframe = &g_sframe;
	}
	return 1;
}

/* ---- checks ---- */

#define TRAMP	NULL	/* the sigreturn trampoline: no symbol */
#define NONE	((size_t)-1)

/* A frameless leaf's CFA: the return address pushed by the call, or none. */
#define LEAF_CFA_OFF	(SW_ARCH == UW_ARCH_X86_64 ? 8 : 0)

/* The sanitizers may give the leaves a frame: do not insist on their shape. */
#if defined(__SANITIZE_ADDRESS__)
#define SW_SAN	1
#else
#define SW_SAN	0
#endif

static const char *src_name(unsigned int s)
{
	return uw_source_name((enum uw_source)s);
}

/* The walk in place (g_direct) against the walk through the accessor. */
static int check_direct(const char *scenario, const struct walk_out *out)
{
	const struct walk_out *d = &g_direct;
	bool same = d->n == out->n && d->res.stop == out->res.stop &&
		    d->res.err == out->res.err;
	size_t i;

	for (i = 0; same && i < out->n; i++)
		same = d->frames[i].pc == out->frames[i].pc &&
		       d->frames[i].sp == out->frames[i].sp &&
		       d->frames[i].cfa == out->frames[i].cfa &&
		       d->frames[i].source == out->frames[i].source &&
		       d->frames[i].flags == out->frames[i].flags;
	if (!same)
		printf("# %s: in place: %zu frames, stop=%s err=%d\n",
		       scenario, d->n, uw_stop_name((enum uw_stop)d->res.stop),
		       d->res.err);
	return ok(same && out->n > 1, "%s: %s, the stack read in place "
		  "(%s): the same %zu frames", SW_ARCH_NAME, scenario,
		  g_direct_copy ? "its copy" : "where it lies", d->n);
}

/*
 * Print the frames and check them against want[0..nwant).  interrupted:
 * index of the frame the signal interrupted (NONE: no signal); leaf:
 * index of the frameless leaf; at_start: the interrupted pc must be the
 * first instruction of its function.
 */
static int check_walk(const char *scenario, const struct walk_out *out,
		      const struct chain_want *want, size_t nwant,
		      size_t interrupted, size_t leaf, bool at_start)
{
	char buf[256], fps[256] = "";
	const char *name;
	size_t i, main_at;
	int good;

	printf("# %s: %zu frames, stop=%s err=%d (%s), stack [0x%llx, 0x%llx)\n",
	       scenario, out->n, uw_stop_name((enum uw_stop)out->res.stop),
	       out->res.err, uw_strerror(out->res.err),
	       (unsigned long long)out->stack_lo,
	       (unsigned long long)out->stack_hi);
	printf("# %s: accessor: %zu reads, %zu refused, maps %s\n", scenario,
	       g_mem.nreads, g_mem.nfails, out->maps_err ? "FAILED" : "ok");
	for (i = 0; i < out->n; i++) {
		const struct uw_frame *f = &out->frames[i];

		name = frame_name(f, i, buf, sizeof(buf));
		printf("#   %2zu pc=0x%llx sp=0x%llx cfa=0x%llx src=%s%s %s\n",
		       i, (unsigned long long)f->pc, (unsigned long long)f->sp,
		       (unsigned long long)f->cfa, src_name(f->source),
		       (f->flags & UW_FRAME_SIGNAL) ? " [signal]" : "", buf);
		if (f->source == UW_SRC_FP) {
			size_t l = strlen(fps);

			snprintf(fps + l, sizeof(fps) - l, " %zu:%s", i,
				 name ? name : "?");
		}
	}
	printf("# %s: frames from the frame-pointer fallback:%s\n", scenario,
	       fps[0] ? fps : " none");

	/* Names and sources; the trampoline frame (no name) is ours. */
	good = chain_check(scenario, out->frames, out->n, &out->res, want,
			   nwant, frame_name, out->stack_lo, out->stack_hi,
			   &main_at);
	for (i = 0; i < nwant && i < out->n; i++) {
		const struct uw_frame *f = &out->frames[i];

		if (!want[i].fn && f->pc != g_tramp) {
			printf("# %s: FAIL: frame %zu pc 0x%llx is not "
			       "the handler's return address 0x%llx\n",
			       scenario, i, (unsigned long long)f->pc,
			       (unsigned long long)g_tramp);
			good = 0;
		}
		/* Exactly the frame the kernel interrupted follows the trampoline. */
		if (!!(f->flags & UW_FRAME_SIGNAL) != (i == interrupted)) {
			printf("# %s: FAIL: frame %zu signal flag %s\n",
			       scenario, i,
			       (f->flags & UW_FRAME_SIGNAL) ? "set" : "clear");
			good = 0;
		}
		if (i == interrupted && (f->pc != g_uc_pc || f->sp != g_uc_sp)) {
			printf("# %s: FAIL: interrupted frame pc/sp 0x%llx/0x%llx,"
			       " the ucontext says 0x%llx/0x%llx\n", scenario,
			       (unsigned long long)f->pc,
			       (unsigned long long)f->sp,
			       (unsigned long long)g_uc_pc,
			       (unsigned long long)g_uc_sp);
			good = 0;
		}
	}
	if (!SW_SAN && leaf < out->n &&
	    out->frames[leaf].cfa != out->frames[leaf].sp + LEAF_CFA_OFF) {
		printf("# %s: FAIL: leaf frame %zu is not frameless (cfa - sp "
		       "= %lld)\n", scenario, leaf,
		       (long long)(out->frames[leaf].cfa - out->frames[leaf].sp));
		good = 0;
	}
	if (!SW_SAN && at_start && interrupted < out->n) {
		const struct sp_sym *s = sp_sym_at(out->frames[interrupted].pc);

		if (!s || s->start != out->frames[interrupted].pc) {
			printf("# %s: FAIL: interrupted pc 0x%llx is not a "
			       "function's first instruction\n", scenario,
			       (unsigned long long)out->frames[interrupted].pc);
			good = 0;
		}
	}
	printf("# %s: after main: %zu more frame(s), stop reason %s\n",
	       scenario, main_at == (size_t)-1 ? 0 : out->n - main_at - 1,
	       uw_stop_name((enum uw_stop)out->res.stop));
	ok(good, "%s: %s", SW_ARCH_NAME, scenario);
	return check_direct(scenario, out);
}

#define S UW_SRC_SFRAME
#define CHAIN_TAIL						\
	{ "chain_dispatch", S }, { "chain_recurse", S },		\
	{ "chain_recurse", S }, { "chain_recurse", S }

static const struct chain_want want_plain[] = {
	{ "sw_leaf", S }, CHAIN_TAIL,
	{ "chain_alloca", S }, { "chain_big_frame", S }, { "main", S },
};

static const struct chain_want want_fp_mid[] = {
	{ "sw_leaf", S }, CHAIN_TAIL, { "chain_fp_mid", UW_SRC_FP },
	{ "chain_alloca", S }, { "chain_big_frame", S }, { "main", S },
};

static const struct chain_want want_segv[] = {
	{ "sw_handler", S }, { TRAMP, UW_SRC_SIGFRAME }, { "sw_fault", S },
	CHAIN_TAIL, { "chain_alloca", S }, { "chain_big_frame", S }, { "main", S },
};

static const struct chain_want want_signal[] = {
	{ "sw_handler", S }, { TRAMP, UW_SRC_SIGFRAME }, { "sw_kill", S },
	CHAIN_TAIL, { "chain_alloca", S }, { "chain_big_frame", S }, { "main", S },
};

#define NWANT(a)	(sizeof(a) / sizeof((a)[0]))

static void skip_or_fail(const char *scenario, const char *why, int fail)
{
	if (fail) {
		ok(false, "%s: %s # %s", SW_ARCH_NAME, scenario, why);
		ok(false, "%s: %s, in place # %s", SW_ARCH_NAME, scenario,
		   why);
	} else {
		tap_skip(why, "%s: %s", SW_ARCH_NAME, scenario);
		tap_skip(why, "%s: %s, in place", SW_ARCH_NAME, scenario);
	}
}

static int install(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sw_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
	const struct sp_map *st;
	const struct sp_sym *s;
	int ntests = 8;
	bool no_signals = argc > 1 && !strcmp(argv[1], "--no-signals");
	long r;
	volatile int here = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_begin(ntests);

	dl_iterate_phdr(phdr_cb, NULL);
	if (g_sframe_err) {
		printf("Bail out! no usable PT_GNU_SFRAME: %s\n",
		       uw_strerror(g_sframe_err));
		return 1;
	}
	printf("# %s: SFrame v%u, %u FDEs, %u FREs at 0x%llx; text "
	       "[0x%llx, 0x%llx)\n", SW_ARCH_NAME, g_sframe.version,
	       g_sframe.num_fdes, g_sframe.num_fres,
	       (unsigned long long)g_sframe.sec.addr,
	       (unsigned long long)g_mod.start, (unsigned long long)g_mod.end);
	if (sp_load_syms(g_bias)) {
		printf("Bail out! cannot read the symbol table of /proc/self/exe\n");
		return 1;
	}
	/* The symbol table and the running code must agree. */
	s = sp_sym_named("sw_leaf");
	if (!s || s->start != (uint64_t)(uintptr_t)sw_leaf ||
	    !sp_sym_named("chain_fp_mid") || !sp_sym_named("main")) {
		printf("Bail out! symbol table does not match the program\n");
		return 1;
	}
	if (sp_load_maps(&g_mem) ||
	    !(st = sp_find_map(&g_mem, (uint64_t)(uintptr_t)&here))) {
		printf("Bail out! cannot find the stack in /proc/self/maps\n");
		return 1;
	}
	g_stack_hi = st->hi;
	chain_fp_mid_ptr = chain_fp_mid;
	g_pid = getpid();
	g_tid = syscall(SYS_gettid);

	/* 1: frameless leaf, registers from inline asm, stack snapshot. */
	chain_end = sw_leaf;
	chain_end_arg = 1;
	chain_fp_mid_at = CHAIN_NO_FP_MID;
	g_snap_len = 0;
	r = chain_big_frame(CHAIN_LEVELS, 1);
	OPAQUE(r);
	do_walk(&g_leaf_regs, (const uint8_t *)g_snap, g_snap_lo, g_snap_len,
		&g_out);
	check_walk("plain", &g_out, want_plain, NWANT(want_plain),
			     NONE, 0, false);

	/* 2: the same with a frame-pointer-only function in the middle. */
	chain_fp_mid_at = CHAIN_FP_MID_ABOVE_RECURSE;
	g_snap_len = 0;
	r = chain_big_frame(CHAIN_LEVELS, 2);
	OPAQUE(r);
	chain_fp_mid_at = CHAIN_NO_FP_MID;
	do_walk(&g_leaf_regs, (const uint8_t *)g_snap, g_snap_lo, g_snap_len,
		&g_out);
	check_walk("fp-mid", &g_out, want_fp_mid,
			     NWANT(want_fp_mid), NONE, 0, false);

	/* 3: SIGSEGV in a frameless leaf; the handler walks the live stack. */
	if (no_signals) {
		skip_or_fail("segv", "signal scenarios disabled", 0);
	} else if (install(SIGSEGV)) {
		skip_or_fail("segv", "sigaction failed", 1);
	} else {
		chain_end = sw_fault;
		chain_end_arg = BAD_ADDR;
		g_handler_ran = 0;
		if (sigsetjmp(g_jmp, 1) == 0) {
			r = chain_big_frame(CHAIN_LEVELS, 3);
			OPAQUE(r);
		}
		signal(SIGSEGV, SIG_DFL);
		if (!g_handler_ran) {
			skip_or_fail("segv", "no SIGSEGV delivered", 1);
		} else {
			check_walk("segv", &g_out, want_segv,
					     NWANT(want_segv), 2, 2, true);
		}
	}

	/* 4: SIGUSR1 from a raw tgkill in a leaf; the handler returns. */
	if (no_signals) {
		skip_or_fail("signal", "signal scenarios disabled", 0);
	} else if (install(SIGUSR1)) {
		skip_or_fail("signal", "sigaction failed", 1);
	} else {
		chain_end = sw_kill;
		chain_end_arg = 4;
		g_handler_ran = 0;
		r = chain_big_frame(CHAIN_LEVELS, 4);
		OPAQUE(r);
		signal(SIGUSR1, SIG_DFL);
		if (!g_handler_ran) {
			skip_or_fail("signal", "no SIGUSR1 delivered", 1);
		} else {
			check_walk("signal", &g_out, want_signal,
					     NWANT(want_signal), 2, 2, false);
		}
	}
	return tap_done();
}
