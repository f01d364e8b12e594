// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM self-unwinding with a Chrome unwind table: built statically with
 * -g -funwind-tables in ARM (-marm) and in Thumb-2 (-mthumb), its table
 * made at build time from its own DWARF CFI by `uwind convert --breakpad`
 * then `uwind convert --chrome` (or from EHABI: SELFUNWIND_EHABI below),
 * and run under qemu-arm as
 *
 *   selfunwind TABLE
 *
 * The program reads TABLE into memory, runs a known call chain, captures
 * its registers in the innermost function and walks its own stack with a
 * uw_module whose only table is the Chrome one (no EHABI, no frame
 * pointer fallback).
 *
 * The chain (selftests/common/chain.h): main -> chain_big_frame (a
 * 50000-byte local array: the table needs b2 uleb128) -> chain_alloca
 * (alloca: a frame pointer, r11 in ARM and r7 in Thumb, so the CFA is
 * "rN K +" and the table says vsp = rN) -> chain_recurse x3 ->
 * chain_dispatch -(function pointer)-> cu_leaf.
 *
 * Oracle for the frame names: the ELF symbol table of /proc/self/exe.
 * Expected: every frame from cu_leaf up to main unwound by the Chrome
 * table (UW_SRC_CHROME), then main's caller in libc, where the table
 * says refuse-to-unwind (libc.a has no DWARF CFI to convert).
 *
 * Built with -DSELFUNWIND_EHABI, the program has no -g: it is built with
 * -fasynchronous-unwind-tables, so its only unwind tables are EHABI, and
 * `uwind convert --breakpad` derives the STACK CFI from .ARM.exidx.  That
 * covers libc.a's functions too (Debian builds them with unwind tables),
 * so the table then also unwinds main's caller, __libc_start_call_main,
 * to its caller __libc_start_main.
 */
#define _GNU_SOURCE
#include <uwind/uwind.h>
#include <uwind/chrome.h>

#include "../common/selfproc.h"
#include "../common/chain.h"
#include "../common/tap.h"
#include "../common/cachewalk.h"

#if !defined(__arm__)
#error "32-bit ARM only"
#endif

#ifdef __thumb__
#define MODE	"thumb"
#else
#define MODE	"arm"
#endif

#define MAX_FRAMES	32

extern const char __executable_start[], etext[];

static uint32_t g_cap[16];	/* r0..r15 at the capture point */
static struct uw_chrome g_ct;

static void check(int cond, const char *desc, const char *detail)
{
	ok(cond, "%s: %s%s%s", MODE, desc, detail ? " " : "",
	   detail ? detail : "");
}

/* The function pc is in, by the ELF symbol table of /proc/self/exe. */
static const char *sym_name(uint64_t pc)
{
	const struct sp_sym *s = sp_sym_at(pc);

	return s ? s->name : "?";
}

/* ---- memory of this process, bounded by the stack ---- */

struct mem {
	uint64_t lo, hi;
};

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct mem *m = ctx;

	if (addr < m->lo || addr > m->hi || len > m->hi - addr)
		return -1;
	memcpy(dst, (const void *)(uintptr_t)addr, len);
	return 0;
}

/* The top of the stack mapping, from /proc/self/maps. */
static uint64_t stack_top(uint64_t sp)
{
	static struct sp_mem maps;
	const struct sp_map *e;

	if (sp_load_maps(&maps))
		return 0;
	e = sp_find_map(&maps, sp);
	return e ? e->hi : 0;
}

/* ---- the walk ---- */

static const char *const expect[] = {
	"cu_leaf", "chain_dispatch", "chain_recurse", "chain_recurse",
	"chain_recurse", "chain_alloca", "chain_big_frame", "main",
};
#define NEXPECT	(sizeof(expect) / sizeof(expect[0]))

static CHAIN_NOINL void walk_now(void)
{
	struct uw_frame fr[MAX_FRAMES];
	struct uw_walk_result res;
	struct uw_walk_cfg cfg;
	struct uw_module mod;
	struct uw_cursor cur;
	struct uw_regs r;
	struct mem m;
	char detail[256];
	size_t n, i;
	int good, chrome;
	unsigned int k;

	memset(&r, 0, sizeof(r));
	for (k = 0; k < 16; k++)
		uw_reg_set(&r, k, g_cap[k]);
	m.lo = g_cap[13];
	m.hi = stack_top(g_cap[13]);
	memset(&mod, 0, sizeof(mod));
	mod.start = (uintptr_t)__executable_start;
	mod.end = (uintptr_t)etext;
	mod.chrome = &g_ct;		/* and nothing else */
	chain_walk_cfg(&cfg, UW_ARCH_ARM, &mod, mem_read, &m, m.lo, m.hi);
	cfg.flags = UW_WALK_NO_FP;
	/* Again cached (rows, the ARM fast loop) and not: the same walk. */
	n = uwt_walk(&cur, &cfg, &r, fr, MAX_FRAMES, &res);

	for (i = 0; i < n; i++)
		printf("# frame %zu: pc 0x%llx sp 0x%llx %s%s source %s\n", i,
		       (unsigned long long)fr[i].pc,
		       (unsigned long long)fr[i].sp,
		       sym_name(i ? fr[i].pc - 1 : fr[i].pc),
		       fr[i].flags & UW_FRAME_THUMB ? " (thumb)" : "",
		       uw_source_name(fr[i].source));
	printf("# stop: %s (%s)\n", uw_stop_name(res.stop),
	       res.err ? uw_strerror(res.err) : "no error");

	good = n > NEXPECT;
	chrome = n >= NEXPECT;
	for (i = 0; i < NEXPECT && i < n; i++) {
		if (strcmp(sym_name(i ? fr[i].pc - 1 : fr[i].pc), expect[i]))
			good = 0;
		if (fr[i].source != UW_SRC_CHROME)
			chrome = 0;
	}
	snprintf(detail, sizeof(detail), "(%zu frames)", n);
	check(good, "frames cu_leaf, chain_dispatch, chain_recurse x3,"
	      " chain_alloca, chain_big_frame, main, then main's caller",
	      detail);
	check(chrome, "every frame up to main unwound from the Chrome table",
	      NULL);
	check(n > NEXPECT && fr[0].pc == (g_cap[15] & ~1u) &&
	      fr[0].sp == g_cap[13],
	      "frame 0 is the captured pc and sp", NULL);
	snprintf(detail, sizeof(detail), "(%s)", n > NEXPECT ?
		 sym_name(fr[NEXPECT].pc - 1) : "none");
#ifdef SELFUNWIND_EHABI
	check(n > NEXPECT + 1 && !strcmp(sym_name(fr[NEXPECT].pc - 1),
				      "__libc_start_call_main") &&
	      fr[NEXPECT].source == UW_SRC_CHROME &&
	      !strncmp(sym_name(fr[NEXPECT + 1].pc - 1), "__libc_start_main",
		    17) &&
	      fr[NEXPECT + 1].source == UW_SRC_CHROME,
	      "main's caller __libc_start_call_main and its caller"
	      " __libc_start_main, from the table (libc.a's EHABI)", detail);
#else
	check(n > NEXPECT && !strcmp(sym_name(fr[NEXPECT].pc - 1),
				  "__libc_start_call_main") &&
	      fr[NEXPECT].source != UW_SRC_CHROME && res.err == UW_EREFUSE,
	      "main's caller is __libc_start_call_main, where the table refuses",
	      detail);
#endif
#ifdef __thumb__
	good = n >= NEXPECT;
	for (i = 0; i < NEXPECT && i < n; i++)
		good = good && (fr[i].flags & UW_FRAME_THUMB);
	check(good, "every chain frame is Thumb code", NULL);
#endif
}

/* Capture r0..r15 at a label, then walk from there. */
static CHAIN_NOINL long cu_leaf(long x)
{
	uint32_t *c = g_cap;

	__asm__ volatile(
		"str r0, [%0, #0]\n\t"
		"str r1, [%0, #4]\n\t"
		"str r2, [%0, #8]\n\t"
		"str r3, [%0, #12]\n\t"
		"str r4, [%0, #16]\n\t"
		"str r5, [%0, #20]\n\t"
		"str r6, [%0, #24]\n\t"
		"str r7, [%0, #28]\n\t"
		"str r8, [%0, #32]\n\t"
		"str r9, [%0, #36]\n\t"
		"str r10, [%0, #40]\n\t"
		"str r11, [%0, #44]\n\t"
		"str r12, [%0, #48]\n\t"
		"mov r12, sp\n\t"
		"str r12, [%0, #52]\n\t"
		"str lr, [%0, #56]\n\t"
		"1: adr r12, 1b\n\t"
#ifdef __thumb__
		"orr r12, r12, #1\n\t"
#endif
		"str r12, [%0, #60]\n\t"
		: : "r"(c) : "r12", "memory");
	walk_now();
	CHAIN_OPAQUE(x);
	return x + 1;
}

int main(int argc, char **argv)
{
	struct uw_span span;
	FILE *f;
	uint8_t *buf = NULL;
	long size;
	int err;

	tap_begin(-1);
	if (argc != 2) {
		fprintf(stderr, "usage: %s TABLE\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)size)) ||
	    fread(buf, 1, (size_t)size, f) != (size_t)size) {
		check(0, "cannot read the table", strerror(errno));
		return tap_done();
	}
	fclose(f);
	span.data = buf;
	span.size = (size_t)size;
	span.addr = 0;
	/* The table's offsets count from the module's load address. */
	err = uw_chrome_init(&g_ct, &span, (uintptr_t)__executable_start,
			     false);
	check(!err, "the Chrome table from uwind convert loads", NULL);
	check(!sp_load_syms(0) && sp_nsyms > 0, "symbol table of /proc/self/exe read",
	      NULL);
	if (!err) {
		chain_end = cu_leaf;
		chain_big_frame(CHAIN_LEVELS, argc);
	}
	free(buf);
	uwt_cache_report();
	return tap_done();
}
