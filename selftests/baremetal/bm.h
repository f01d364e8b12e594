/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Bare-metal harness: what the per-target start-up code and the shared
 * call chain (chain.c) provide to each other.  No libc: the images are
 * linked with -nostdlib.
 */
#ifndef UWIND_BM_H
#define UWIND_BM_H

#include <stdint.h>
#include <stddef.h>

#define BM_NOINL	__attribute__((noinline, noclone))
#define BM_NORET	__attribute__((noreturn))
#define BM_OPAQUE(v)	__asm__ volatile("" : "+r"(v) : : "memory")

/* Fault kinds, chosen per image at link time (--defsym bm_kind=N). */
enum {
	BM_KIND_UNDEF = 1,	/* undefined instruction */
	BM_KIND_DABORT = 2,	/* load from an unmapped address */
	BM_KIND_DIV0 = 3,	/* Cortex-M: sdiv by zero with DIV_0_TRP */
	BM_KIND_IRQ = 4,	/* Cortex-M: udf in PendSV, thread on PSP */
};

extern char bm_kind[];		/* absolute symbol: its address is the kind */
static inline int bm_get_kind(void)
{
	return (int)(uintptr_t)bm_kind;
}

/* chain.c: the deep call chain; never returns, it ends in bm_fault. */
BM_NORET void bm_run(int kind);

/* Per target: the faulting leaf (no frame), reached from bm_noret. */
BM_NORET void bm_fault(int kind);

/* Per target: console (pl011.c on qemu's virt machine) and exit. */
void bm_putc(char c);
BM_NORET void bm_exit(int ok);

/* io.c: tiny formatted output; bm_run returning; clearing .bss. */
void bm_puts(const char *s);
void bm_puthex(uint64_t v);
void bm_putdec(uint32_t v);
BM_NORET void bm_halt(void);
void bm_zero(uint8_t *lo, uint8_t *hi);

/* panic.c: the uwind part of the panic handler. */
struct uw_walk_cfg;
struct uw_regs;
struct uw_span;

/* Memory the walker may read: [lo, hi). */
struct bm_mem_range {
	uint64_t lo, hi;
};

int bm_mem_read(void *ctx, uint64_t addr, void *dst, size_t len);
struct uw_span bm_span(const uint8_t *start, const uint8_t *end);
size_t bm_backtrace(const struct uw_walk_cfg *cfg, const struct uw_regs *regs);

#endif /* UWIND_BM_H */
