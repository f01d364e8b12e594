/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Every walk of a unit test, again reading the stack in place
 * (UW_WALK_DIRECT_STACK): cachewalk.h's uwt_walk() calls
 * uwt_direct_walk() after the walk the test asked for.
 *
 * The walk is made once more through an accessor that forwards to the
 * test's and logs each read (it must give the same walk); then every
 * word that accessor returned is copied, at its offset, into a buffer
 * standing for the stack between the test's bounds (or, without any,
 * the span of the words read), the rest of it a poison pattern, and the
 * walk is made in place, stack_mem that buffer, the test's accessor kept
 * for what is not the stack (program text).  It must give the same
 * frames and the same stop, with a cache too; only the error of a read
 * outside the bounds may differ (UW_ESTACK in place, where the test's
 * accessor said UW_EREAD).  A walk whose accessor refused a read inside
 * those bounds cannot be made in place (the caller vouches that the
 * whole range is readable): it is counted, not compared.
 *
 * Header-only, static: each test program has its own counters.
 */
#ifndef UWIND_SELFTESTS_DIRECTWALK_H
#define UWIND_SELFTESTS_DIRECTWALK_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "tap.h"
#include "walkcmp.h"

#define UWT_DIRECT_LOG		4096
#define UWT_DIRECT_MAX		(1u << 20)	/* bytes of stack copied */
#define UWT_DIRECT_MAXF		256
#define UWT_DIRECT_POISON	0xa5

static unsigned int uwt_direct_walks, uwt_direct_diffs, uwt_direct_apart;

/*
 * The fast loops' differential (cachewalk.h sets it): the walk just made
 * in place, again with UW_WALK_NO_FAST, must be the same exactly.
 */
static void (*uwt_direct_nofast)(const struct uw_walk_cfg *cfg,
				 const struct uw_regs *regs, size_t max,
				 const struct uw_frame *frames, size_t n,
				 const struct uw_walk_result *res,
				 const char *what);

struct uwt_direct_log {
	uw_read_fn read;
	void *ctx;
	size_t n;
	bool overflow;
	struct {
		uint64_t addr;
		uint8_t len;
		bool ok;
		uint8_t b[16];
	} e[UWT_DIRECT_LOG];
};

static int uwt_direct_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct uwt_direct_log *l = ctx;
	int ret = l->read(l->ctx, addr, dst, len);

	if (l->n == UWT_DIRECT_LOG || len > 16) {
		l->overflow = true;
		return ret;
	}
	l->e[l->n].addr = addr;
	l->e[l->n].len = (uint8_t)len;
	l->e[l->n].ok = ret == 0;
	if (!ret)
		memcpy(l->e[l->n].b, dst, len);
	l->n++;
	return ret;
}

/* Frames and stop the same; a read fault's error may be either. */
static inline bool uwt_direct_same(const struct uw_frame *a, size_t na,
				   const struct uw_walk_result *ra,
				   const struct uw_frame *b, size_t nb,
				   const struct uw_walk_result *rb)
{
	struct uw_walk_result r = *rb;

	if (ra->err != r.err && ra->stop == UW_STOP_READ_FAULT &&
	    r.stop == UW_STOP_READ_FAULT &&
	    (ra->err == UW_EREAD || ra->err == UW_ESTACK) &&
	    (r.err == UW_EREAD || r.err == UW_ESTACK))
		r.err = ra->err;
	return uwt_frames_same(a, na, ra, b, nb, &r);
}

static inline void uwt_direct_diff(const char *what, size_t n,
				   const struct uw_walk_result *res,
				   size_t n2, const struct uw_walk_result *r2)
{
	uwt_direct_diffs++;
	diag("in place (%s) changed a walk: %zu frames, stop %s (%d), "
	     "not %zu, %s (%d)", what, n2, uw_stop_name(r2->stop), r2->err,
	     n, uw_stop_name(res->stop), res->err);
}

/*
 * The walk (cfg, regs, max) that gave frames[0..n) and res, again in
 * place.  cfg has no cache (cachewalk.h's walks with one are the tests'
 * own).
 */
static inline void uwt_direct_walk(const struct uw_walk_cfg *cfg,
				   const struct uw_regs *regs, size_t max,
				   const struct uw_frame *frames, size_t n,
				   const struct uw_walk_result *res)
{
	static struct uwt_direct_log log;
	static struct uw_module mods[64];
	static struct uw_frame fr[UWT_DIRECT_MAXF];
	static struct uw_cache_entry mem[256];
	static struct uw_cursor cur;
	struct uw_walk_cfg cc = *cfg;
	struct uw_walk_result r2;
	struct uw_cache cache;
	uint64_t lo = ~(uint64_t)0, hi = 0, a, b;
	uint8_t *stack;
	size_t n2, i, j;
	int pass;

	if (!cfg->mem.read || max > UWT_DIRECT_MAXF || cfg->nmods > 64 ||
	    (cfg->flags & UW_WALK_DIRECT_STACK))
		return;
	/* 1. Through the logging accessor: the same walk. */
	log.read = cfg->mem.read;
	log.ctx = cfg->mem.ctx;
	log.n = 0;
	log.overflow = false;
	cc.mem.read = uwt_direct_read;
	cc.mem.ctx = &log;
	n2 = uw_walk(&cur, &cc, regs, fr, max, &r2);
	uwt_direct_walks++;
	if (!uwt_frames_same(frames, n, res, fr, n2, &r2)) {
		uwt_direct_diff("logged", n, res, n2, &r2);
		return;
	}
	/* 2. The bounds: the test's, or the span of what was read. */
	if (cfg->stack_hi) {
		lo = cfg->stack_lo;
		hi = cfg->stack_hi;
	} else {
		for (i = 0; i < log.n; i++) {
			if (!log.e[i].ok)
				continue;
			if (log.e[i].addr < lo)
				lo = log.e[i].addr;
			if (log.e[i].addr + log.e[i].len > hi)
				hi = log.e[i].addr + log.e[i].len;
		}
		if (hi <= lo) {		/* nothing read: a word at sp */
			uw_reg_get(regs, cfg->arch == UW_ARCH_AARCH64 ?
				   UW_AARCH64_SP : cfg->arch == UW_ARCH_ARM ?
				   UW_ARM_SP : cfg->arch == UW_ARCH_X86 ?
				   UW_X86_ESP : cfg->arch == UW_ARCH_S390X ?
				   UW_S390X_R15 : UW_X86_64_RSP, &lo);
			hi = lo + 8;
		}
	}
	if (log.overflow || hi <= lo || hi - lo > UWT_DIRECT_MAX) {
		uwt_direct_apart++;
		return;
	}
	/* A refused read inside: the range is not all readable. */
	for (i = 0; i < log.n; i++) {
		a = log.e[i].addr;
		b = a + log.e[i].len;
		if (!log.e[i].ok && a < hi && b > lo) {
			uwt_direct_apart++;
			return;
		}
	}
	/* 3. The copy: what was read, at its offsets; poison elsewhere. */
	stack = malloc(hi - lo);
	if (!stack) {
		uwt_direct_apart++;
		return;
	}
	memset(stack, UWT_DIRECT_POISON, hi - lo);
	for (i = 0; i < log.n; i++)
		for (j = 0; j < log.e[i].len; j++)
			if (log.e[i].ok && log.e[i].addr + j >= lo &&
			    log.e[i].addr + j < hi)
				stack[log.e[i].addr + j - lo] = log.e[i].b[j];
	cc = *cfg;
	cc.flags |= UW_WALK_DIRECT_STACK;
	cc.stack_lo = lo;
	cc.stack_hi = hi;
	cc.stack_mem = stack;
	/*
	 * 4. In place: the same walk, with a cache (cold, warm) too; each
	 * again with the fast loops off, which must give what they give on.
	 */
	n2 = uw_walk(&cur, &cc, regs, fr, max, &r2);
	uwt_direct_walks++;
	if (!uwt_direct_same(frames, n, res, fr, n2, &r2))
		uwt_direct_diff("no cache", n, res, n2, &r2);
	if (uwt_direct_nofast)
		uwt_direct_nofast(&cc, regs, max, fr, n2, &r2, "in place");
	uwt_cached_cfg(&cc, &cc, mods, &cache);
	uw_cache_init(&cache, mem, 256);
	for (pass = 0; pass < 2; pass++) {
		n2 = uw_walk(&cur, &cc, regs, fr, max, &r2);
		uwt_direct_walks++;
		if (!uwt_direct_same(frames, n, res, fr, n2, &r2))
			uwt_direct_diff(pass ? "cache, warm" : "cache, cold",
					n, res, n2, &r2);
		if (uwt_direct_nofast)
			uwt_direct_nofast(&cc, regs, max, fr, n2, &r2,
					  pass ? "in place, cache, warm" :
						 "in place, cache, cold");
	}
	free(stack);
}

static inline void uwt_direct_report(void)
{
	ok(uwt_direct_walks > 0 && uwt_direct_diffs == 0,
	   "every walk the same reading the stack in place (%u walks, "
	   "%u differ; %u apart: the accessor refused a read inside the "
	   "stack)", uwt_direct_walks, uwt_direct_diffs, uwt_direct_apart);
}

#endif /* UWIND_SELFTESTS_DIRECTWALK_H */
