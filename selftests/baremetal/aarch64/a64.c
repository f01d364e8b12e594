// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AArch64 panic handler under qemu-system-aarch64 -M virt -cpu cortex-a57:
 * PL011 console, semihosting exit, and the synchronous exception handler
 * that unwinds the faulting code with the image's own .sframe (frame
 * pointers as the fallback).
 *
 * Faults: BM_KIND_UNDEF executes udf (EC 0x00); BM_KIND_DABORT loads
 * from A64_BAD_ADDR (EC 0x25, a synchronous external abort).
 */
#include <uwind/uwind.h>
#include <uwind/sframe.h>
#include "../bm.h"

/*
 * Past the end of RAM (run.sh passes -m 128M: RAM is 0x40000000 to
 * 0x48000000) nothing is mapped: with the MMU off the load is a
 * synchronous external abort (run.sh checks EC 0x25 and DFSC 0x10).
 */
#define A64_BAD_ADDR	0x50000000ULL

struct a64_exc_frame {
	uint64_t x[31];
	uint64_t sp;
	uint64_t elr, esr, far, spsr;
};

extern const uint8_t __sframe_start[], __sframe_end[];
extern const uint8_t __text_start[], __text_end[];
extern uint8_t __stack_bottom[], __stack_top[];
extern uint8_t __bss_start[], __bss_end[];
extern const uint8_t __executable_start[];

static struct uw_sframe a64_sframe;
static int a64_sframe_err;

/* Semihosting SYS_EXIT with ADP_Stopped_ApplicationExit and a status. */
BM_NORET void bm_exit(int ok)
{
	uint64_t blk[2] = { 0x20026, ok ? 0 : 1 };
	register uint64_t x0 __asm__("x0") = 0x18;
	register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)blk;

	__asm__ volatile("hlt #0xf000" : : "r"(x0), "r"(x1) : "memory");
	for (;;)
		;
}

/* The faulting leaf: no frame, no stack. */
BM_NOINL BM_NORET void bm_fault(int kind)
{
	if (kind == BM_KIND_DABORT) {
		uint32_t v = *(volatile uint32_t *)(uintptr_t)A64_BAD_ADDR;

		BM_OPAQUE(v);
	} else {
		__asm__ volatile("udf #0");
	}
	__builtin_unreachable();
}

BM_NORET void a64_other_handler(uint64_t esr)
{
	bm_puts("error: unexpected exception, esr ");
	bm_puthex(esr);
	bm_putc('\n');
	bm_exit(0);
}

BM_NORET void a64_sync_handler(const struct a64_exc_frame *f)
{
	static const struct bm_mem_range stack = {
		(uintptr_t)__stack_bottom, (uintptr_t)__stack_top
	};
	struct uw_module mod = {
		.start = (uintptr_t)__text_start,
		.end = (uintptr_t)__text_end,
		.sframe = a64_sframe_err ? NULL : &a64_sframe,
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_AARCH64,
		.mods = &mod,
		.nmods = 1,
		.mem = { bm_mem_read, (void *)&stack },
		.stack_lo = f->sp,
		.stack_hi = (uintptr_t)__stack_top,
	};
	static struct uw_regs regs;
	unsigned int i;

	bm_puts("fault esr ");
	bm_puthex(f->esr);
	bm_puts(" ec ");
	bm_puthex(f->esr >> 26);
	bm_puts(" far ");
	bm_puthex(f->far);
	bm_puts(" elr ");
	bm_puthex(f->elr);
	bm_putc('\n');
	regs.valid = 0;
	for (i = 0; i < 31; i++)
		uw_reg_set(&regs, i, f->x[i]);
	uw_reg_set(&regs, UW_AARCH64_SP, f->sp);
	uw_reg_set(&regs, UW_AARCH64_PC, f->elr);
	bm_backtrace(&cfg, &regs);
	bm_exit(1);
}

int a64_main(void)
{
	struct uw_span sec = bm_span(__sframe_start, __sframe_end);

	bm_zero(__bss_start, __bss_end);
	a64_sframe_err = uw_sframe_init(&a64_sframe, &sec);
	bm_puts("uwind baremetal aarch64 kind ");
	bm_putdec((uint32_t)bm_get_kind());
	bm_puts(" sframe ");
	bm_puts(a64_sframe_err ? uw_strerror(a64_sframe_err) : "ok");
	bm_puts(" fdes ");
	bm_putdec(a64_sframe_err ? 0 : a64_sframe.num_fdes);
	bm_putc('\n');
	bm_run(bm_get_kind());
}
