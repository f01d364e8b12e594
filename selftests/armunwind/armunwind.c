// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM self-unwinding test: the program runs a known call chain, captures
 * its registers in a frameless leaf and walks its own stack with the uwind
 * core, using the program's own .ARM.exidx/.ARM.extab tables.  Built
 * statically with -funwind-tables twice, in ARM state (-marm) and in
 * Thumb-2 (-mthumb), and run under qemu-arm.
 *
 * The chain (selftests/common/chain.h): main -> run_chain (not inlined:
 * it calls setjmp) -> chain_big_frame (a 50000-byte local array, so the
 * table needs the b2 uleb128 opcode) -> [chain_fp_mid] -> chain_alloca
 * (frame pointer: r11 in ARM, r7 in Thumb, 9b/97 opcodes) ->
 * chain_recurse x3 -> chain_dispatch -(function pointer)-> aw_noret ->
 * aw_leaf.
 *
 * aw_noret is noreturn and ends with its call to aw_leaf (noreturn too),
 * so its return address is the first byte after the function: a walker
 * that looked up the return address itself, not the call before it,
 * would use the next function's entry.  The leaf captures r0-r15 with
 * inline asm and branches (no call) to aw_after, which walks the live
 * stack from those registers (the chain's frames are intact above the
 * leaf's sp) and longjmps back to main.
 *
 * Scenarios:
 *  ehabi   every frame up to main unwound from the tables.
 *  fp-mid  chain_fp_mid (fpmid.c: -marm, frame pointers, no unwind
 *          tables) between chain_big_frame and chain_alloca: that frame
 *          must be crossed by the r11 frame-record fallback, the rest by
 *          EHABI.  Not above chain_recurse: after a frame record only pc,
 *          sp and r11 are known, and chain_alloca's CFA is r7 in Thumb.
 *
 * Oracle for frame names: the ELF symbol table of /proc/self/exe; for the
 * tables' location, the section headers, checked against the linker's
 * __exidx_start/__exidx_end and PT_ARM_EXIDX.
 */
#define _GNU_SOURCE
#include <setjmp.h>

#include <uwind/uwind.h>
#include <uwind/ehabi.h>

#include "../common/selfproc.h"
#include "../common/chain.h"
#include "../common/tap.h"
#include "../common/cachewalk.h"

#if !defined(__arm__)
#error "armunwind: 32-bit ARM only"
#endif

#if defined(__thumb__)
#define AW_MODE		"thumb"
#else
#define AW_MODE		"arm"
#endif

#ifndef PT_ARM_EXIDX
#define PT_ARM_EXIDX	0x70000001
#endif

#define NOINL		CHAIN_NOINL

#define MAX_FRAMES	64

void aw_after(void);

/* Linker script symbols around .ARM.exidx. */
extern const uint8_t __exidx_start[], __exidx_end[];

static jmp_buf g_jmp;
static uint32_t g_cap[16];		/* r0..r15 at the capture point */

static struct uw_ehabi g_eh;
static struct uw_module g_mod;
static uint64_t g_exidx_lo, g_exidx_hi;	/* from PT_ARM_EXIDX */

static struct sp_mem g_mem;

/* ---- the walk, done in aw_after ---- */

struct walk_out {
	struct uw_frame frames[MAX_FRAMES];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct uw_regs regs;	/* what the leaf captured */
	size_t n;
	uint64_t stack_lo, stack_hi;
	int maps_err;
	/* The same walk stepped by hand: registers after the fallback step. */
	bool fp_stepped;
	uint64_t fp_valid;
};

static struct walk_out g_out;

static void do_walk(struct walk_out *out)
{
	struct uw_walk_cfg cfg;
	const struct sp_map *st;
	unsigned int i;

	out->regs.valid = 0;
	for (i = 0; i < 16; i++)
		if (i != 12)		/* ip held the capture's base */
			uw_reg_set(&out->regs, i, g_cap[i]);
	out->maps_err = sp_load_maps(&g_mem);
	g_mem.nreads = g_mem.nfails = 0;
	st = sp_find_map(&g_mem, g_cap[13]);
	out->stack_lo = g_cap[13];
	out->stack_hi = st ? st->hi : 0;

	chain_walk_cfg(&cfg, UW_ARCH_ARM, &g_mod, sp_mem_read, &g_mem,
		       out->stack_lo, out->stack_hi);
	cfg.max_depth = MAX_FRAMES;
	/* Again cached (rows, the ARM fast loop) and not: the same walk. */
	out->n = uwt_walk(&out->cur, &cfg, &out->regs, out->frames, MAX_FRAMES,
			  &out->res);
	out->fp_stepped = false;
	if (uw_cursor_init(&out->cur, &cfg, &out->regs))
		return;
	while (uw_step(&out->cur, &cfg) > 0) {
		if (out->cur.source == UW_SRC_FP) {
			out->fp_stepped = true;
			out->fp_valid = out->cur.regs.valid;
			break;
		}
	}
}

/*
 * Entered by a branch from the leaf, on the leaf's stack pointer: every
 * frame of the chain is still intact above it.
 */
__attribute__((used, noinline, noclone, noreturn)) void aw_after(void)
{
	do_walk(&g_out);
	longjmp(g_jmp, 1);
}

/* ---- the chain ---- */

/*
 * r0-r11 by a store-multiple from ip (ip is caller-saved and holds
 * nothing the walk needs: it is left unknown), then sp, lr and the pc of
 * the capture itself, with the Thumb bit when in Thumb state.
 */
#if defined(__thumb__)
#define AW_THUMB_BIT	1u
#else
#define AW_THUMB_BIT	0u
#endif

#define CAPTURE() do {							\
	register uint32_t *base_ __asm__("ip") = g_cap;			\
	uint32_t pc_;							\
	__asm__ volatile("stmia %1, {r0-r11}\n\t"			\
			 "str sp, [%1, #52]\n\t"			\
			 "str lr, [%1, #56]\n\t"			\
			 "1: adr %0, 1b"				\
			 : "=&r"(pc_) : "r"(base_) : "memory");		\
	g_cap[15] = pc_ | AW_THUMB_BIT;					\
} while (0)

/*
 * The frameless leaf: capture, then leave by a plain branch to aw_after
 * (no call: lr still holds aw_noret's return address).
 */
NOINL __attribute__((noreturn)) void aw_leaf(long x)
{
	(void)x;
	CAPTURE();
	__asm__ volatile("b aw_after");
	__builtin_unreachable();
}

/* Ends with the call: its return address is the byte after it. */
NOINL __attribute__((noreturn)) long aw_noret(long x)
{
	volatile long pad[3];

	pad[0] = x;
	aw_leaf(pad[0] + 1);
}

/*
 * Placed right after aw_noret (the build packs functions with
 * -falign-functions=1), with a frame of another shape: a walker that
 * looked up aw_noret's return address itself would unwind with this
 * entry and go astray.
 */
NOINL __attribute__((used)) long aw_guard(long x)
{
	volatile long pad[37];

	pad[36] = x;
	return chain_recurse(1, pad[36]) + 1;
}

/* ---- the ELF file: symbols and table sections ---- */

static uint64_t g_extab_addr, g_extab_size, g_exidx_sec, g_exidx_sec_size;

/* Symbols, and where the section headers put .ARM.extab and .ARM.exidx. */
static int load_elf(void)
{
	const Elf32_Shdr *sh;

	if (sp_load_syms(0))
		return -1;
	sh = sp_section(".ARM.extab");
	if (sh) {
		g_extab_addr = sh->sh_addr;
		g_extab_size = sh->sh_size;
	}
	sh = sp_section(".ARM.exidx");
	if (sh && sh->sh_type == SHT_ARM_EXIDX) {
		g_exidx_sec = sh->sh_addr;
		g_exidx_sec_size = sh->sh_size;
	}
	return 0;
}

/* A return address belongs to the call before it: look up pc - 1. */
static const char *frame_name(const struct uw_frame *f, size_t i,
			      char *buf, size_t len)
{
	uint64_t pc = i == 0 || !f->pc ? f->pc : f->pc - 1;
	const struct sp_sym *s = sp_sym_at(pc);

	if (!s) {
		snprintf(buf, len, "?");
		return NULL;
	}
	snprintf(buf, len, "%s+0x%llx", s->name,
		 (unsigned long long)(f->pc - s->start));
	return s->name;
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	size_t i;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_ARM_EXIDX) {
			g_exidx_lo = info->dlpi_addr + ph->p_vaddr;
			g_exidx_hi = g_exidx_lo + ph->p_memsz;
		}
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    !g_mod.end) {
			g_mod.start = info->dlpi_addr + ph->p_vaddr;
			g_mod.end = g_mod.start + ph->p_memsz;
		}
	}
	return 1;	/* the executable only */
}

/* ---- checks ---- */

static const char *src_name(unsigned int s)
{
	return uw_source_name((enum uw_source)s);
}

static int check_walk(const char *scenario, const struct walk_out *out,
		      const struct chain_want *want, size_t nwant, bool fp_mid)
{
	const struct sp_sym *noret = sp_sym_named("aw_noret");
	const struct sp_sym *guard = sp_sym_named("aw_guard");
	char buf[256];
	size_t i, main_at;
	int good = 1;

	printf("# %s/%s: %zu frames, stop=%s err=%d (%s), stack [0x%llx, "
	       "0x%llx), %zu reads, %zu refused\n", AW_MODE, scenario, out->n,
	       uw_stop_name((enum uw_stop)out->res.stop), out->res.err,
	       uw_strerror(out->res.err), (unsigned long long)out->stack_lo,
	       (unsigned long long)out->stack_hi, g_mem.nreads, g_mem.nfails);
	for (i = 0; i < out->n; i++) {
		const struct uw_frame *f = &out->frames[i];

		frame_name(f, i, buf, sizeof(buf));
		printf("#   %2zu pc=0x%08llx sp=0x%08llx cfa=0x%08llx %s src=%s %s\n",
		       i, (unsigned long long)f->pc, (unsigned long long)f->sp,
		       (unsigned long long)f->cfa,
		       (f->flags & UW_FRAME_THUMB) ? "T" : "A",
		       src_name(f->source), buf);
	}
	if (out->maps_err) {
		printf("# %s: FAIL: cannot read /proc/self/maps\n", scenario);
		good = 0;
	}
	if (!chain_check(scenario, out->frames, out->n, &out->res, want, nwant,
			 frame_name, out->stack_lo, out->stack_hi, &main_at))
		good = 0;
	for (i = 0; i < nwant && i < out->n; i++) {
		const struct uw_frame *f = &out->frames[i];

		/* fpmid.c is ARM code in both builds; the rest is in AW_MODE. */
		if (!!(f->flags & UW_FRAME_THUMB) !=
		    (AW_THUMB_BIT && strcmp(want[i].fn, "chain_fp_mid"))) {
			printf("# %s: FAIL: frame %zu Thumb flag %s\n", scenario,
			       i, (f->flags & UW_FRAME_THUMB) ? "set" : "clear");
			good = 0;
		}
	}
	/*
	 * After an ARM frame record (chain_fp_mid) only pc, sp and the r11 the
	 * record saved are known, whatever state the caller runs in.
	 */
	if (fp_mid &&
	    (!out->fp_stepped || out->fp_valid != ((1ull << UW_ARM_PC) |
	     (1ull << UW_ARM_SP) | (1ull << UW_ARM_R11)))) {
		printf("# %s: FAIL: registers known after the frame-record "
		       "step: 0x%llx, expected pc, sp, r11\n", scenario,
		       (unsigned long long)out->fp_valid);
		good = 0;
	}
	/* Frame 0: the captured pc and sp, unchanged. */
	if (out->n && (out->frames[0].pc != (g_cap[15] & ~1u) ||
		       out->frames[0].sp != g_cap[13])) {
		printf("# %s: FAIL: frame 0 is not the captured pc/sp\n",
		       scenario);
		good = 0;
	}
	/* The leaf pushes nothing: its caller's sp is its own. */
	if (out->n > 1 && out->frames[1].sp != out->frames[0].sp) {
		printf("# %s: FAIL: the leaf is not frameless (%lld bytes)\n",
		       scenario,
		       (long long)(out->frames[1].sp - out->frames[0].sp));
		good = 0;
	}
	/*
	 * The scenario only tests the noreturn rule if the call ends aw_noret
	 * and its return address is the first byte of aw_guard.
	 */
	if (!noret || !guard || out->n < 2 ||
	    out->frames[1].pc != noret->start + noret->size ||
	    out->frames[1].pc != guard->start) {
		printf("# %s: FAIL: aw_noret's return address is not the end "
		       "of aw_noret and the start of aw_guard\n", scenario);
		good = 0;
	}
	return ok(good, "%s: %s", AW_MODE, scenario);
}

#define E UW_SRC_EHABI
#define CHAIN_HEAD							\
	{ "aw_leaf", E }, { "aw_noret", E }, { "chain_dispatch", E },	\
	{ "chain_recurse", E }, { "chain_recurse", E }, { "chain_recurse", E },	\
	{ "chain_alloca", E }

static const struct chain_want want_ehabi[] = {
	CHAIN_HEAD, { "chain_big_frame", E }, { "run_chain", E }, { "main", E },
};

static const struct chain_want want_fp_mid[] = {
	CHAIN_HEAD, { "chain_fp_mid", UW_SRC_FP }, { "chain_big_frame", E },
	{ "run_chain", E }, { "main", E },
};

#define NWANT(a)	(sizeof(a) / sizeof((a)[0]))

/* Run the chain down to the leaf; aw_after longjmps back here. */
static void run_chain(int via_fp_mid)
{
	volatile long r = 0;

	chain_fp_mid_at = via_fp_mid ? CHAIN_FP_MID_ABOVE_ALLOCA :
				       CHAIN_NO_FP_MID;
	g_out.n = 0;
	if (!setjmp(g_jmp)) {
		r = chain_big_frame(CHAIN_LEVELS, 1);
		printf("# the chain returned %ld: no capture\n", (long)r);
	}
	chain_fp_mid_at = CHAIN_NO_FP_MID;
}

int main(void)
{
	struct uw_span exidx, extab;
	struct uw_ehabi_entry e;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_begin(-1);

	dl_iterate_phdr(phdr_cb, NULL);
	if (load_elf()) {
		printf("Bail out! cannot read the ELF file /proc/self/exe\n");
		return 1;
	}
	/* Three independent views of the index must agree. */
	exidx.data = __exidx_start;
	exidx.size = (size_t)(__exidx_end - __exidx_start);
	exidx.addr = (uint64_t)(uintptr_t)__exidx_start;
	extab.data = (const uint8_t *)(uintptr_t)g_extab_addr;
	extab.size = g_extab_size;
	extab.addr = g_extab_addr;
	err = uw_ehabi_init(&g_eh, &exidx, g_extab_size ? &extab : NULL,
			    false);
	printf("# %s: .ARM.exidx [0x%llx, +0x%zx) %u entries, .ARM.extab "
	       "[0x%llx, +0x%llx), text [0x%llx, 0x%llx)\n", AW_MODE,
	       (unsigned long long)exidx.addr, exidx.size,
	       err ? 0 : g_eh.count, (unsigned long long)g_extab_addr,
	       (unsigned long long)g_extab_size,
	       (unsigned long long)g_mod.start, (unsigned long long)g_mod.end);
	if (!err && g_exidx_lo == exidx.addr &&
	    g_exidx_hi == exidx.addr + exidx.size &&
	    g_exidx_sec == exidx.addr && g_exidx_sec_size == exidx.size &&
	    g_extab_size && g_mod.end) {
		ok(true, "%s: tables found (linker symbols, PT_ARM_EXIDX "
		   "and section headers agree)", AW_MODE);
	} else {
		ok(false, "%s: tables found: %s, PT_ARM_EXIDX "
		   "0x%llx-0x%llx, section 0x%llx+0x%llx", AW_MODE,
		   uw_strerror(err), (unsigned long long)g_exidx_lo,
		   (unsigned long long)g_exidx_hi,
		   (unsigned long long)g_exidx_sec,
		   (unsigned long long)g_exidx_sec_size);
		return 1;
	}
	g_mod.ehabi = &g_eh;
	/* The tool chain's view of fpmid.c: no entry of its own. */
	if (!uw_ehabi_find(&g_eh, (uint64_t)(uintptr_t)chain_fp_mid & ~1u, &e))
		printf("# chain_fp_mid: entry %u at 0x%llx, %s\n", e.index,
		       (unsigned long long)e.fn_start,
		       e.kind == UW_EHABI_KIND_CANTUNWIND ? "EXIDX_CANTUNWIND" :
		       "unwind entry");
	if (!sp_sym_named("aw_leaf") || !sp_sym_named("chain_fp_mid") ||
	    sp_sym_named("aw_leaf")->start != ((uintptr_t)aw_leaf & ~1u)) {
		printf("Bail out! symbol table does not match the program\n");
		return 1;
	}
	chain_end = aw_noret;
	chain_fp_mid_ptr = chain_fp_mid;

	run_chain(0);
	check_walk("ehabi", &g_out, want_ehabi, NWANT(want_ehabi),
			     false);
	run_chain(1);
	check_walk("fp-mid", &g_out, want_fp_mid,
			     NWANT(want_fp_mid), true);
	uwt_cache_report();
	return tap_done();
}
