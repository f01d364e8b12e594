// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The part of a firmware panic handler that uses uwind, shared by every
 * target: walk from the faulting registers and print one line per frame
 * over the console.  The per-target handler fills cfg (tables, stack
 * bounds, memory accessor) and regs (the registers at the fault).
 *
 * Output, parsed by run.sh:
 *   bt <i> <pc> <flags> <source>	one per frame, frame 0 faulted
 *   bt-end <frames> <stop> <err>
 * The walker's scratch (struct uw_cursor) and the frame array are static:
 * a panic handler should not put ~400 bytes of state on a stack that may
 * be nearly exhausted.
 */
#include <uwind/uwind.h>
#include "bm.h"

#define BM_MAX_FRAMES	32

static struct uw_cursor bm_cur;
static struct uw_frame bm_frames[BM_MAX_FRAMES];

int bm_mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct bm_mem_range *r = ctx;
	const volatile uint8_t *src;
	uint8_t *d = dst;
	size_t i;

	if (addr < r->lo || addr > r->hi || len > r->hi - addr)
		return -1;
	src = (const volatile uint8_t *)(uintptr_t)addr;
	for (i = 0; i < len; i++)
		d[i] = src[i];
	return 0;
}

/* A table between two linker-script symbols, read where it is linked. */
struct uw_span bm_span(const uint8_t *start, const uint8_t *end)
{
	struct uw_span s = {
		.data = start,
		.size = (size_t)(end - start),
		.addr = (uintptr_t)start,
	};

	return s;
}

size_t bm_backtrace(const struct uw_walk_cfg *cfg, const struct uw_regs *regs)
{
	struct uw_walk_result res;
	size_t i, n;

	n = uw_walk(&bm_cur, cfg, regs, bm_frames, BM_MAX_FRAMES, &res);
	for (i = 0; i < n; i++) {
		bm_puts("bt ");
		bm_putdec((uint32_t)i);
		bm_putc(' ');
		bm_puthex(bm_frames[i].pc);
		bm_putc(' ');
		bm_putdec(bm_frames[i].flags);
		bm_putc(' ');
		bm_puts(uw_source_name((enum uw_source)bm_frames[i].source));
		bm_putc('\n');
	}
	bm_puts("bt-end ");
	bm_putdec((uint32_t)n);
	bm_putc(' ');
	bm_puts(uw_stop_name((enum uw_stop)res.stop));
	bm_putc(' ');
	bm_puts(res.err ? uw_strerror(res.err) : "ok");
	bm_putc('\n');
	return n;
}
