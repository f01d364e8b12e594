/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The known call chain of the self-unwinding programs
 * (selftests/selfunwind, selftests/armunwind, selftests/chrome):
 *
 *   chain_big_frame   50000 bytes of locals: 4-byte SFrame offsets,
 *                     EHABI's and Chrome's b2 (uleb128) opcode
 *   [chain_fp_mid]    fpmid.c: frame pointers, no unwind tables (opt.)
 *   chain_alloca      alloca: the CFA is frame-pointer based
 *   [chain_fp_mid]
 *   chain_recurse x3
 *   chain_dispatch    calls chain_end through a function pointer
 *
 * Each program calls chain_big_frame(CHAIN_LEVELS, x) and supplies the
 * innermost function (chain_end, given chain_end_arg), which captures
 * the registers.  chain_fp_mid, when the program links fpmid.c and sets
 * chain_fp_mid_ptr, is entered above chain_alloca or above chain_recurse
 * (chain_fp_mid_at): the frame a frame-pointer walk must cross, placed
 * where the table-driven step after it can resume (see each program).
 *
 * chain_check() makes the checks every program makes of a walk through
 * the chain.
 *
 * Header-only and static: every program compiles the chain with its own
 * flags (no frame pointers, its unwind tables, ARM or Thumb).  Nothing
 * here is inlined or cloned, and no call is a tail call, so the frames
 * are exactly these.
 */
#ifndef UWIND_SELFTESTS_CHAIN_H
#define UWIND_SELFTESTS_CHAIN_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <uwind/uwind.h>

#define CHAIN_NOINL	__attribute__((noinline, noclone))
/* Keep a value live in a register across a point: no folding, no tail call. */
#define CHAIN_OPAQUE(v)	__asm__ volatile("" : "+r"(v) : : "memory")

#define CHAIN_LEVELS	3	/* chain_recurse frames on the stack */
#define CHAIN_BIG_FRAME	50000

enum chain_fp_mid_at {
	CHAIN_NO_FP_MID,
	CHAIN_FP_MID_ABOVE_ALLOCA,	/* chain_big_frame -> fp_mid -> alloca */
	CHAIN_FP_MID_ABOVE_RECURSE,	/* chain_alloca -> fp_mid -> recurse */
};

typedef long chain_next_fn(int n, long x);
/* fpmid.c: calls next(n, x + 1) from a frame with a frame record. */
long chain_fp_mid(int n, long x, chain_next_fn *next);

static long (*volatile chain_end)(long);	/* what chain_dispatch calls */
static volatile long chain_end_arg;		/* and passes */
/* chain_fp_mid where the program links fpmid.c, else NULL. */
static long (*volatile chain_fp_mid_ptr)(int, long, chain_next_fn *);
static volatile int chain_fp_mid_at;		/* enum chain_fp_mid_at */
static volatile int chain_alloca_len = 200;

static CHAIN_NOINL long chain_dispatch(long x)
{
	long r = chain_end(chain_end_arg);	/* through a function pointer */

	CHAIN_OPAQUE(r);
	return r + x;
}

static CHAIN_NOINL long chain_recurse(int n, long x)
{
	long r;

	if (n > 1)
		r = chain_recurse(n - 1, x + n);
	else
		r = chain_dispatch(x);
	CHAIN_OPAQUE(r);
	return r + n;
}

static CHAIN_NOINL long chain_alloca(int n, long x)
{
	volatile char *p = __builtin_alloca((unsigned long)chain_alloca_len);
	long r;

	p[0] = (char)x;
	p[chain_alloca_len - 1] = 1;
	if (chain_fp_mid_ptr && chain_fp_mid_at == CHAIN_FP_MID_ABOVE_RECURSE)
		r = chain_fp_mid_ptr(n, x, chain_recurse);
	else
		r = chain_recurse(n, x);
	CHAIN_OPAQUE(r);
	return r + p[0] + p[chain_alloca_len - 1];
}

static CHAIN_NOINL long chain_big_frame(int n, long x)
{
	volatile char buf[CHAIN_BIG_FRAME];
	long r;

	buf[0] = (char)x;
	buf[CHAIN_BIG_FRAME - 1] = 2;
	if (chain_fp_mid_ptr && chain_fp_mid_at == CHAIN_FP_MID_ABOVE_ALLOCA)
		r = chain_fp_mid_ptr(n, x + 1, chain_alloca);
	else
		r = chain_alloca(n, x + 1);
	CHAIN_OPAQUE(r);
	return r + buf[0] + buf[CHAIN_BIG_FRAME - 1];
}

/* ---- walking it ---- */

/*
 * The walk every program makes: one module, memory read by read(ctx),
 * the stack [lo, hi]; the caller adds its own limits and flags.
 */
static inline void chain_walk_cfg(struct uw_walk_cfg *cfg, uint8_t arch,
				  const struct uw_module *mod,
				  uw_read_fn read, void *ctx, uint64_t lo,
				  uint64_t hi)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = arch;
	cfg->mods = mod;
	cfg->nmods = 1;
	cfg->mem.read = read;
	cfg->mem.ctx = ctx;
	cfg->stack_lo = lo;
	cfg->stack_hi = hi;
}

/* ---- checking a walk ---- */

struct chain_want {
	const char *fn;		/* function name; NULL: the caller checks it */
	uint8_t src;		/* enum uw_source that unwound it */
};

/* The function frame i is in (its name, or NULL), and a label in buf. */
typedef const char *chain_name_fn(const struct uw_frame *f, size_t i,
				  char *buf, size_t len);

/*
 * The checks of every scenario, each failure printed as "# SCENARIO:
 * FAIL: ...": frames 0..nwant-1 are want's functions, unwound by want's
 * sources; main is the last of them; the walk then stopped for a sane
 * reason (no limit, no malformed table); and each frame's sp lies inside
 * [stack_lo, stack_hi], never below the one before.  Returns whether all
 * hold; *main_at is main's frame (or (size_t)-1).
 */
static inline bool chain_check(const char *scenario,
			       const struct uw_frame *fr, size_t n,
			       const struct uw_walk_result *res,
			       const struct chain_want *want, size_t nwant,
			       chain_name_fn *name_of, uint64_t stack_lo,
			       uint64_t stack_hi, size_t *main_at)
{
	char buf[256];
	const char *name;
	bool good = true;
	size_t i;

	*main_at = (size_t)-1;
	for (i = 0; i < n && *main_at == (size_t)-1; i++) {
		name = name_of(&fr[i], i, buf, sizeof(buf));
		if (name && !strcmp(name, "main"))
			*main_at = i;
	}
	for (i = 0; i < nwant; i++) {
		if (i >= n) {
			printf("# %s: FAIL: walk ended after %zu frames, "
			       "expected %s at frame %zu\n", scenario, n,
			       want[i].fn ? want[i].fn : "?", i);
			good = false;
			break;
		}
		name = name_of(&fr[i], i, buf, sizeof(buf));
		if (want[i].fn && (!name || strcmp(name, want[i].fn))) {
			printf("# %s: FAIL: frame %zu is %s, expected %s\n",
			       scenario, i, buf, want[i].fn);
			good = false;
		}
		if (fr[i].source != want[i].src) {
			printf("# %s: FAIL: frame %zu (%s) unwound by %s, "
			       "expected %s\n", scenario, i, buf,
			       uw_source_name((enum uw_source)fr[i].source),
			       uw_source_name((enum uw_source)want[i].src));
			good = false;
		}
	}
	if (good && *main_at != nwant - 1) {
		printf("# %s: FAIL: main at frame %zd, expected %zu\n", scenario,
		       (ssize_t)*main_at, nwant - 1);
		good = false;
	}
	if (res->stop == UW_STOP_NONE || res->stop == UW_STOP_DEPTH ||
	    res->stop == UW_STOP_BAD_DATA) {
		printf("# %s: FAIL: walk stopped with %s after %zu frames\n",
		       scenario, uw_stop_name((enum uw_stop)res->stop), n);
		good = false;
	}
	for (i = 1; i < n; i++) {
		if (fr[i].sp < fr[i - 1].sp || fr[i].sp < stack_lo ||
		    fr[i].sp > stack_hi) {
			printf("# %s: FAIL: frame %zu sp 0x%llx out of order or "
			       "outside the stack\n", scenario, i,
			       (unsigned long long)fr[i].sp);
			good = false;
		}
	}
	return good;
}

#endif /* UWIND_SELFTESTS_CHAIN_H */
