// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Whole-stack unwinding speed (`make bench`, not a test): the same stack,
 * 38 frames deep from the walker's caller, unwound by
 *
 *   uwind           uw_walk() over the program's own SFrame table
 *                   (x86-64) or EHABI / Chrome table (32-bit ARM), with
 *                   a warm struct uw_cache ("cache") and without one
 *                   ("nocache"), reading the stack in place
 *                   (UW_WALK_DIRECT_STACK within the thread's stack
 *                   bounds, as a program unwinding itself would), and
 *                   again through a memory accessor (".accessor")
 *   libunwind       nongnu libunwind's unw_backtrace() (libunwind.so.8,
 *                   opened with dlopen: linked, its weak backtrace()
 *                   would stand in for glibc's)
 *   backtrace       glibc's backtrace()
 *   libgcc          libgcc's _Unwind_Backtrace() (from libgcc_s.so.1; on
 *                   32-bit ARM the static program's libgcc_eh, over the
 *                   same EHABI tables uwind's EHABI walk reads)
 *   fp              a frame-pointer walk (the stack is built with frame
 *                   records so that every walker can walk it)
 *
 * Built with -DWB_NOFP (and -fomit-frame-pointer: walk_bench-nofp), the
 * stack has no frame records, as a distribution's -O2 code, and there is
 * no "fp" walker; its lines are named walk.nofp.NAME.
 *
 * Modes:
 *   walk_bench time [CHROME_TABLE]
 *       times each walker (best of 9 interleaved passes of 2000 unwinds,
 *       warm), then each cold (every CPU cache evicted before each
 *       unwind, by walking a 64 MiB buffer; the median of 301 unwinds),
 *       and prints "BENCH walk.NAME ns" lines per frame
 *   walk_bench count WALKER N [CHROME_TABLE]
 *       N unwinds with WALKER and nothing else: for instruction counts
 *       (callgrind, or qemu's per-instruction trace on ARM), taken as
 *       the difference between N and 0 unwinds
 *   walk_bench check [CHROME_TABLE]
 *       the frames each walker gives, which must agree
 *
 * The chain: main -> bench_main -> chain_N x 40 -> bench_leaf, where four
 * chain functions with different frame sizes take turns, and bench_leaf
 * calls each walker's wrapper; every walker is asked for 38 frames from
 * its wrapper's, all inside the program.  The ".accessor" walks read
 * memory through an accessor that copies from the stack the core has
 * already bounded (stack_lo/stack_hi); the others read it in place.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unwind.h>

#include <uwind/uwind.h>

#if defined(__x86_64__)
#define WB_ARCH		UW_ARCH_X86_64
#define WB_PEERS	1
#define WB_LIBGCC	1
#elif defined(__arm__)
#define WB_ARCH		UW_ARCH_ARM
#define WB_PEERS	0
#define WB_LIBGCC	1	/* libgcc alone: the program is static */
#else
#error "walk_bench: x86-64 or 32-bit ARM"
#endif

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define NOINL		__attribute__((noinline, noclone))
#define OPAQUE(v)	__asm__ volatile("" : "+r"(v) : : "memory")

#define FRAMES		38	/* every walker's frames */
#define CHAIN		40	/* chain frames below bench_main */
#define WARM_N		2000	/* unwinds a warm pass */
#define PASSES		9
#define COLD_N		301
#define EVICT_BYTES	(64u << 20)
#define CACHE_ENTRIES	1024

#ifdef WB_NOFP
#define WB_PREFIX	"walk.nofp."
#else
#define WB_PREFIX	"walk."
#endif

/* ---- the program's tables, for uwind ---- */

static struct uw_module g_mod;
static struct uw_walk_cfg g_cfg_nocache, g_cfg_cache;
static struct uw_walk_cfg g_cfg_nocache_mem, g_cfg_cache_mem;
static struct uw_cursor g_cur;
#ifdef UWIND_CACHE_H	/* a core without the cache: both walks without */
static struct uw_cache g_cache;
static struct uw_cache_entry g_cache_mem[CACHE_ENTRIES];
#endif
#if defined(__x86_64__)
static struct uw_sframe g_sframe;
#else
static struct uw_ehabi g_ehabi;
static struct uw_chrome g_chrome;
extern const uint8_t __exidx_start[], __exidx_end[];
#endif

static int find_tables(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Phdr) *ph = info->dlpi_phdr;
	int *found = arg;
	size_t i;

	(void)size;
	if (*found)
		return 1;
	/* The first object is the program itself. */
	*found = 1;
	g_mod.bias = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			g_mod.start = info->dlpi_addr + ph[i].p_vaddr;
			g_mod.end = g_mod.start + ph[i].p_memsz;
		}
#if defined(__x86_64__)
		if (ph[i].p_type == PT_GNU_SFRAME) {
			struct uw_span s = {
				(const uint8_t *)(uintptr_t)(info->dlpi_addr +
							     ph[i].p_vaddr),
				ph[i].p_memsz, ph[i].p_vaddr };

			if (uw_sframe_init(&g_sframe, &s) == 0)
				g_mod.sframe = &g_sframe;
		}
#endif
	}
	return 1;
}

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)addr;

	/* The core checked addr against the stack bounds. */
	(void)ctx;
	/* The sizes the walker reads, each a copy the compiler inlines. */
	switch (len) {
	case 16:
		memcpy(dst, p, 16);
		return 0;
	case 8:
		memcpy(dst, p, 8);
		return 0;
	case 4:
		memcpy(dst, p, 4);
		return 0;
	default:
		memcpy(dst, p, len);
		return 0;
	}
}

static int setup_uwind(const char *chrome_path)
{
	pthread_attr_t attr;
	void *stack;
	size_t size;
	int found = 0;

	dl_iterate_phdr(find_tables, &found);
#if defined(__x86_64__)
	(void)chrome_path;
	if (!g_mod.sframe) {
		fprintf(stderr, "walk_bench: no PT_GNU_SFRAME\n");
		return -1;
	}
#else
	{
		struct uw_span ex = { __exidx_start,
				      (size_t)(__exidx_end - __exidx_start),
				      (uintptr_t)__exidx_start };

		/* .ARM.extab sits in the text segment: that is its span. */
		struct uw_span et = {
			(const uint8_t *)(uintptr_t)g_mod.start,
			(size_t)(g_mod.end - g_mod.start), g_mod.start };

		if (uw_ehabi_init(&g_ehabi, &ex, &et, false))
			return -1;
		/* Static, not PIE: the text is where the tables say. */
		g_mod.bias = 0;
		g_mod.ehabi = &g_ehabi;
	}
	if (chrome_path) {
		static uint8_t blob[1 << 20];
		struct uw_span b = { blob, 0, 0 };
		FILE *f = fopen(chrome_path, "rb");

		if (!f)
			return -1;
		b.size = fread(blob, 1, sizeof(blob), f);
		fclose(f);
		/* The table's offsets count from the first PT_LOAD. */
		if (uw_chrome_init(&g_chrome, &b, 0x10000, false))
			return -1;
		g_mod.ehabi = NULL;
		g_mod.chrome = &g_chrome;
	}
#endif
	if (pthread_getattr_np(pthread_self(), &attr) ||
	    pthread_attr_getstack(&attr, &stack, &size))
		return -1;
	g_cfg_nocache.arch = WB_ARCH;
	g_cfg_nocache.mods = &g_mod;
	g_cfg_nocache.nmods = 1;
	g_cfg_nocache.mem.read = mem_read;
	g_cfg_nocache.stack_lo = (uintptr_t)stack;
	g_cfg_nocache.stack_hi = (uintptr_t)stack + size;
	g_cfg_cache = g_cfg_nocache;
#ifdef UWIND_CACHE_H
	g_mod.cache_id = 1;
	g_mod.cache_gen = 1;
	if (uw_cache_init(&g_cache, g_cache_mem, CACHE_ENTRIES))
		return -1;
	g_cfg_cache.cache = &g_cache;
#endif
	g_cfg_nocache_mem = g_cfg_nocache;
	g_cfg_cache_mem = g_cfg_cache;
	/* The thread's own stack, read in place (stack_mem NULL: at stack_lo). */
	g_cfg_nocache.flags |= UW_WALK_DIRECT_STACK;
	g_cfg_cache.flags |= UW_WALK_DIRECT_STACK;
	return 0;
}

/* ---- the walkers, each from its own frame ---- */

enum walker {
	W_CACHE, W_NOCACHE, W_CACHE_MEM, W_NOCACHE_MEM, W_LIBUNWIND,
	W_BACKTRACE, W_LIBGCC, W_FP, W_COUNT
};

static const char *const walker_name[W_COUNT] = {
	"cache.uwind", "nocache.uwind", "cache.uwind.accessor",
	"nocache.uwind.accessor", "libunwind", "backtrace", "libgcc", "fp",
};

static struct uw_walk_cfg *const walker_cfg[W_COUNT] = {
	&g_cfg_cache, &g_cfg_nocache, &g_cfg_cache_mem, &g_cfg_nocache_mem,
};

static uintptr_t g_pcs[W_COUNT][FRAMES];
static size_t g_n[W_COUNT];

#if defined(__x86_64__)
#define CAPTURE(pc, sp, fp)						\
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\t"	\
			 "mov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(fp))
#define REG_PC	UW_X86_64_RIP
#define REG_SP	UW_X86_64_RSP
#define REG_FP	UW_X86_64_RBP
#else
/* pc (with the Thumb bit), sp, r7 and r11: the frame pointers of both. */
static uint32_t g_cap[4];
#ifdef __thumb__
#define CAP_PC	"adr %0, 1f\n\tadd %0, %0, #1\n1:\n\t"
#else
#define CAP_PC	"adr %0, 1f\n1:\n\t"
#endif
#define CAPTURE(pc, sp, fp)						\
	__asm__ volatile(CAP_PC "mov %1, sp\n\tmov %2, r7\n\t"		\
			 "mov %3, r11"					\
			 : "=&r"(pc), "=&r"(sp), "=&r"(fp), "=&r"(g_cap[3]))
#define REG_PC	UW_ARM_PC
#define REG_SP	UW_ARM_SP
#define REG_FP	UW_ARM_R7
#endif

static NOINL size_t walk_uwind(struct uw_walk_cfg *cfg, struct uw_frame *f)
{
	struct uw_walk_result res;
	struct uw_regs regs;
	uintptr_t pc, sp, fp;

	CAPTURE(pc, sp, fp);
	/* Nothing below the walker's own sp is a frame (nor, in place, read). */
	cfg->stack_lo = sp;
	regs.valid = 0;
	uw_reg_set(&regs, REG_PC, pc);
	uw_reg_set(&regs, REG_SP, sp);
	uw_reg_set(&regs, REG_FP, fp);
#if defined(__arm__)
	uw_reg_set(&regs, UW_ARM_R11, g_cap[3]);
#endif
	return uw_walk(&g_cur, cfg, &regs, f, FRAMES, &res);
}

#if WB_LIBGCC
/*
 * libgcc's own, whatever else the program links (libunwind has them):
 * from libgcc_s.so.1 on x86-64; on 32-bit ARM the static program's own
 * (libgcc_eh.a), whose _Unwind_GetIP is a macro (pc, Thumb bit cleared).
 */
static _Unwind_Reason_Code (*g_gcc_backtrace)(_Unwind_Trace_Fn, void *);
static _Unwind_Ptr (*g_gcc_getip)(struct _Unwind_Context *);

struct gcc_state {
	void **buf;
	size_t n;
};

static _Unwind_Reason_Code gcc_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct gcc_state *s = arg;

	s->buf[s->n++] = (void *)g_gcc_getip(ctx);
	return s->n < FRAMES ? _URC_NO_REASON : _URC_END_OF_STACK;
}

#if !WB_PEERS
static _Unwind_Ptr arm_getip(struct _Unwind_Context *ctx)
{
	return _Unwind_GetIP(ctx);
}
#endif

static NOINL size_t walk_libgcc(void **buf)
{
	struct gcc_state s = { buf, 0 };

	g_gcc_backtrace(gcc_frame, &s);
	return s.n;
}

#endif

#if WB_PEERS
static int (*g_unw_backtrace)(void **, int);

static NOINL size_t walk_libunwind(void **buf)
{
	return (size_t)g_unw_backtrace(buf, FRAMES);
}

static NOINL size_t walk_backtrace(void **buf)
{
	return (size_t)backtrace(buf, FRAMES);
}

/*
 * Frame records: [fp] = caller's fp, [fp + 8] = return address; each
 * record above the last, below the top of the stack, aligned.
 */
static NOINL size_t fp_loop(uintptr_t *buf, uintptr_t pc, uintptr_t sp,
			    uintptr_t fp)
{
	uintptr_t lo = sp, hi = (uintptr_t)g_cfg_nocache.stack_hi;
	size_t n = 0;

	buf[n++] = pc;
	while (n < FRAMES) {
		const uintptr_t *rec = (const uintptr_t *)fp;

		if (fp < lo || fp > hi - 16 || (fp & 7))
			break;
		buf[n++] = rec[1];
		lo = fp + 16;
		fp = rec[0];
	}
	return n;
}

/* Not a leaf: GCC gives a leaf no frame record, even when told to. */
static NOINL size_t walk_fp(uintptr_t *buf)
{
	uintptr_t pc, sp, fp;
	size_t n;

	CAPTURE(pc, sp, fp);
	n = fp_loop(buf, pc, sp, fp);
	OPAQUE(n);
	return n;
}
#endif

static struct uw_frame g_frames[FRAMES];

/* One unwind with walker w; its pcs into g_pcs[w] when keep. */
static NOINL size_t walk_once(enum walker w, bool keep)
{
	void *buf[FRAMES];
	uintptr_t fp_buf[FRAMES];
	size_t n = 0, i;

	switch (w) {
	case W_CACHE:
	case W_NOCACHE:
	case W_CACHE_MEM:
	case W_NOCACHE_MEM:
		n = walk_uwind(walker_cfg[w], g_frames);
		if (keep)
			for (i = 0; i < n; i++)
				g_pcs[w][i] = (uintptr_t)g_frames[i].pc;
		break;
#if WB_PEERS
	case W_LIBUNWIND:
		n = walk_libunwind(buf);
		break;
	case W_BACKTRACE:
		n = walk_backtrace(buf);
		break;
#endif
#if WB_LIBGCC
	case W_LIBGCC:
		n = walk_libgcc(buf);
		break;
#endif
#if WB_PEERS
	case W_FP:
		n = walk_fp(fp_buf);
		if (keep)
			for (i = 0; i < n; i++)
				g_pcs[w][i] = fp_buf[i];
		break;
#endif
	default:
		(void)buf;
		(void)fp_buf;
		break;
	}
	/* The peers' pcs, as they give them. */
	if (keep && (w == W_LIBUNWIND || w == W_BACKTRACE || w == W_LIBGCC))
		for (i = 0; i < n; i++)
			g_pcs[w][i] = (uintptr_t)buf[i];
	if (keep)
		g_n[w] = n;
	return n;
}

static bool walker_on(enum walker w)
{
#ifdef WB_NOFP
	if (w == W_FP)
		return false;
#endif
	return WB_PEERS || walker_cfg[w] || (WB_LIBGCC && w == W_LIBGCC);
}

/* ---- the modes, run from bench_leaf ---- */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint8_t *g_evict;

/* Every CPU cache evicted: 64 MiB read and written, line by line. */
static void evict(void)
{
	size_t i;

	for (i = 0; i < EVICT_BYTES; i += 64)
		g_evict[i]++;
	__asm__ volatile("" : : "r"(g_evict) : "memory");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int mode_time(void)
{
	static double cold[COLD_N];
	double best[W_COUNT], t;
	int pass, i, w;

	for (w = 0; w < W_COUNT; w++)
		best[w] = 1e30;
	for (pass = 0; pass < PASSES; pass++) {
		for (w = 0; w < W_COUNT; w++) {
			if (!walker_on(w))
				continue;
			walk_once(w, false);	/* warm it */
			t = now_ns();
			for (i = 0; i < WARM_N; i++)
				walk_once(w, false);
			t = (now_ns() - t) / WARM_N;
			if (t < best[w])
				best[w] = t;
		}
	}
	for (w = 0; w < W_COUNT; w++)
		if (walker_on(w))
			printf("BENCH " WB_PREFIX "%s %.1f ns\n", walker_name[w],
			       best[w] / FRAMES);

	g_evict = malloc(EVICT_BYTES);
	if (!g_evict)
		return 1;
	memset(g_evict, 1, EVICT_BYTES);
	for (w = 0; w < W_COUNT; w++) {
		if (!walker_on(w))
			continue;
		walk_once(w, false);
		for (i = 0; i < COLD_N; i++) {
			evict();
			t = now_ns();
			walk_once(w, false);
			cold[i] = now_ns() - t;
		}
		qsort(cold, COLD_N, sizeof(cold[0]), cmp_double);
		/* uwind as a profiler would run it: with its cache. */
		printf("BENCH " WB_PREFIX "cold.%s %.1f ns\n",
		       w == W_CACHE ? "uwind" :
		       w == W_CACHE_MEM ? "uwind.accessor" : walker_name[w],
		       cold[COLD_N / 2] / FRAMES);
	}
	free(g_evict);
	return 0;
}

static int mode_count(const char *name, long n)
{
	int w;
	long i;

	for (w = 0; w < W_COUNT; w++)
		if (!strcmp(name, walker_name[w]) && walker_on(w))
			break;
	if (w == W_COUNT) {
		fprintf(stderr, "walk_bench: no walker %s\n", name);
		return 2;
	}
	/* The first unwind fills the caches: only warm ones are counted. */
	walk_once(w, false);
	for (i = 0; i < n; i++)
		walk_once(w, false);
	return 0;
}

/*
 * Every walker gives FRAMES frames, the same from walk_once's caller on
 * (frame 0 is in each walker's wrapper, frame 1 at its call site).
 */
static int mode_check(void)
{
	int w, pass, bad = 0;
	size_t i;

	for (pass = 0; pass < 2; pass++)	/* the second one warm */
		for (w = 0; w < W_COUNT; w++)
			if (walker_on(w))
				walk_once(w, true);
	for (w = 0; w < W_COUNT; w++) {
		if (!walker_on(w))
			continue;
		printf("%-14s %zu frames\n", walker_name[w], g_n[w]);
		if (g_n[w] != FRAMES) {
			bad = 1;
			continue;
		}
		for (i = 2; i < FRAMES; i++) {
			if (g_pcs[w][i] != g_pcs[W_NOCACHE][i]) {
				printf("%s: frame %zu at %#lx, uwind %#lx\n",
				       walker_name[w], i,
				       (unsigned long)g_pcs[w][i],
				       (unsigned long)g_pcs[W_NOCACHE][i]);
				bad = 1;
			}
		}
	}
#ifdef UWIND_CACHE_H
	printf("cache: %llu hits, %llu misses\n",
	       (unsigned long long)g_cache.hits,
	       (unsigned long long)g_cache.misses);
#endif
	puts(bad ? "walkers disagree" : "walkers agree");
	return bad;
}

static int g_argc;
static char **g_argv;

static NOINL int bench_leaf(void)
{
	const char *mode = g_argv[1];

	if (!strcmp(mode, "time"))
		return mode_time();
	if (!strcmp(mode, "count") && g_argc > 3)
		return mode_count(g_argv[2], atol(g_argv[3]));
	if (!strcmp(mode, "check"))
		return mode_check();
	fprintf(stderr, "usage: walk_bench time|check|count WALKER N\n");
	return 2;
}

/* Four frame shapes (other locals, other sizes), taking turns down the chain. */
static NOINL int chain_0(int n);

#define CHAIN_FN(name, next, type, count)				\
static NOINL int name(int n)						\
{									\
	volatile type pad[count];					\
	int r;								\
									\
	pad[0] = (type)n;						\
	r = n ? next(n - 1) : bench_leaf();				\
	OPAQUE(r);							\
	return r + (int)(pad[0] - (type)n);				\
}

CHAIN_FN(chain_3, chain_0, char, 72)
CHAIN_FN(chain_2, chain_3, long, 3)
CHAIN_FN(chain_1, chain_2, char, 1)
CHAIN_FN(chain_0, chain_1, int, 9)

int main(int argc, char **argv)
{
	const char *chrome = NULL;
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: walk_bench time|check|count WALKER N"
			" [CHROME_TABLE]\n");
		return 2;
	}
	g_argc = argc;
	g_argv = argv;
	if (!strcmp(argv[1], "count") ? argc > 4 : argc > 2)
		chrome = argv[argc - 1];
	if (setup_uwind(chrome))
		return 1;
#if WB_PEERS
	{
		void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW);

		g_gcc_backtrace = gcc ? dlsym(gcc, "_Unwind_Backtrace") : NULL;
		g_gcc_getip = gcc ? dlsym(gcc, "_Unwind_GetIP") : NULL;
		void *unw = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);

		g_unw_backtrace = unw ? dlsym(unw, "unw_backtrace") : NULL;
		if (!g_gcc_backtrace || !g_gcc_getip || !g_unw_backtrace) {
			fprintf(stderr, "walk_bench: %s\n", dlerror());
			return 1;
		}
	}
#endif
#if WB_LIBGCC && !WB_PEERS
	g_gcc_backtrace = _Unwind_Backtrace;
	g_gcc_getip = arm_getip;
#endif
	r = chain_0(CHAIN - 1);
	OPAQUE(r);
	return r;
}
