// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM Cortex-A15 panic handler under qemu-system-arm -M virt -cpu
 * cortex-a15, built as A32 (-marm) or Thumb-2 (-mthumb): PL011 console,
 * semihosting exit, and the undefined-instruction and data-abort handler
 * (start.S saves the interrupted registers) that unwinds the faulting
 * code with the image's own tables: EHABI (.ARM.exidx/.ARM.extab), or,
 * when the image carries one (the *-chrome images), the Chrome unwind
 * table that `uwind convert` made from the same ELF's DWARF CFI, linked
 * in as a blob between __chrome_start and __chrome_end.  The Chrome
 * table's offsets count from the ELF's first PT_LOAD address, which the
 * linker script puts at __text_start.
 *
 * Faults: BM_KIND_UNDEF executes udf; BM_KIND_DABORT loads from
 * A15_BAD_ADDR, where nothing is mapped on virt: with the MMU off a
 * synchronous external abort (DFSR 0x8, checked by run.sh).
 */
#include <uwind/uwind.h>
#include <uwind/ehabi.h>
#include <uwind/chrome.h>
#include "../bm.h"

/* run.sh passes -m 128M: RAM is 0x40000000 to 0x48000000. */
#define A15_BAD_ADDR	0x50000000u

#define STACK_PAINT	0x5afe57acu
#define PSR_T		(1u << 5)

/* Built by start.S on the exception mode's stack. */
struct a15_exc_frame {
	uint32_t r[13];
	uint32_t sp, lr;	/* the interrupted mode's banked registers */
	uint32_t lr_exc;	/* LR_und / LR_abt */
	uint32_t spsr;
	uint32_t kind;		/* 1: undefined instruction, 2: data abort */
};

extern const uint8_t __exidx_start[], __exidx_end[];
extern const uint8_t __extab_start[], __extab_end[];
extern const uint8_t __chrome_start[], __chrome_end[];
extern const uint8_t __text_start[], __text_end[];
extern uint8_t __stack_bottom[], __stack_top[];
extern uint32_t __exc_stack_bottom[], __exc_stack_top[];
extern uint8_t __bss_start[], __bss_end[];

void a15_exc(const struct a15_exc_frame *f);
void a15_other(uint32_t cpsr);
int a15_main(void);

static struct uw_ehabi a15_eh;
static struct uw_chrome a15_ct;
static int a15_err;
static bool a15_use_chrome;

/* Semihosting SYS_EXIT: ApplicationExit (status 0) or RunTimeErrorUnknown. */
BM_NORET void bm_exit(int ok)
{
	register uint32_t r0 __asm__("r0") = 0x18;
	register uint32_t r1 __asm__("r1") = ok ? 0x20026 : 0x20023;

#ifdef __thumb__
	__asm__ volatile("svc 0xab" : : "r"(r0), "r"(r1) : "memory");
#else
	__asm__ volatile("svc 0x123456" : : "r"(r0), "r"(r1) : "memory");
#endif
	for (;;)
		;
}

/* The faulting leaf: no frame, no stack. */
BM_NOINL BM_NORET void bm_fault(int kind)
{
	if (kind == BM_KIND_DABORT) {
		uint32_t v = *(volatile uint32_t *)A15_BAD_ADDR;

		BM_OPAQUE(v);
	}
	__asm__ volatile("udf #0");
	__builtin_unreachable();
}

/*
 * -funwind-tables entries name the EHABI personality routines; nothing
 * here throws, so they only keep libgcc's unwinder out of the image.
 */
void __aeabi_unwind_cpp_pr0(void);
void __aeabi_unwind_cpp_pr1(void);
void __aeabi_unwind_cpp_pr2(void);
void __aeabi_unwind_cpp_pr0(void) { }
void __aeabi_unwind_cpp_pr1(void) { }
void __aeabi_unwind_cpp_pr2(void) { }

BM_NORET void a15_other(uint32_t cpsr)
{
	bm_puts("error: unexpected exception, cpsr ");
	bm_puthex(cpsr);
	bm_putc('\n');
	bm_exit(0);
}

static void put_kv(const char *k, uint32_t v)
{
	bm_putc(' ');
	bm_puts(k);
	bm_putc(' ');
	bm_puthex(v);
}

/* Bytes of the painted exception stacks (UND and ABT) ever written. */
static uint32_t exc_stack_used(void)
{
	const volatile uint32_t *p = __exc_stack_bottom;
	uint32_t used = 0, size;

	/* Two stacks, each half of the region: the deeper one counts. */
	size = (uint32_t)(__exc_stack_top - __exc_stack_bottom) / 2;
	for (p = __exc_stack_bottom; p < __exc_stack_bottom + size; p++)
		if (*p != STACK_PAINT)
			break;
	used = (uint32_t)(__exc_stack_bottom + size - p);
	for (p = __exc_stack_bottom + size; p < __exc_stack_top; p++)
		if (*p != STACK_PAINT)
			break;
	if ((uint32_t)(__exc_stack_top - p) > used)
		used = (uint32_t)(__exc_stack_top - p);
	return used * 4;
}

BM_NORET void a15_exc(const struct a15_exc_frame *f)
{
	const struct bm_mem_range stack = {
		(uintptr_t)__stack_bottom, (uintptr_t)__stack_top
	};
	struct uw_module mod = {
		.start = (uintptr_t)__text_start,
		.end = (uintptr_t)__text_end,
		.ehabi = a15_err || a15_use_chrome ? NULL : &a15_eh,
		.chrome = a15_err || !a15_use_chrome ? NULL : &a15_ct,
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_ARM,
		.mods = &mod,
		.nmods = 1,
		.mem = { bm_mem_read, (void *)&stack },
		.stack_lo = f->sp,
		.stack_hi = (uintptr_t)__stack_top,
	};
	static struct uw_regs regs;
	bool thumb = f->spsr & PSR_T;
	uint32_t pc, dfsr = 0, dfar = 0;
	unsigned int i;

	if (f->kind == BM_KIND_DABORT) {
		/* The aborting instruction is 8 bytes back, ARM or Thumb. */
		pc = f->lr_exc - 8;
		__asm__ volatile("mrc p15, 0, %0, c5, c0, 0" : "=r"(dfsr));
		__asm__ volatile("mrc p15, 0, %0, c6, c0, 0" : "=r"(dfar));
	} else {
		pc = f->lr_exc - (thumb ? 2 : 4);
	}
	bm_puts("fault");
	bm_puts(f->kind == BM_KIND_DABORT ? " abt" : " und");
	put_kv("spsr", f->spsr);
	put_kv("pc", pc);
	put_kv("dfsr", dfsr);
	put_kv("dfar", dfar);
	bm_putc('\n');
	regs.valid = 0;
	for (i = 0; i < 13; i++)
		uw_reg_set(&regs, i, f->r[i]);
	uw_reg_set(&regs, UW_ARM_SP, f->sp);
	uw_reg_set(&regs, UW_ARM_LR, f->lr);
	uw_reg_set(&regs, UW_ARM_PC, pc | (thumb ? 1 : 0));
	bm_backtrace(&cfg, &regs);
	bm_puts("exc-stack ");
	bm_putdec(exc_stack_used());
	bm_putc('\n');
	bm_exit(1);
}

int a15_main(void)
{
	struct uw_span exidx = bm_span(__exidx_start, __exidx_end);
	struct uw_span extab = bm_span(__extab_start, __extab_end);
	struct uw_span blob = bm_span(__chrome_start, __chrome_end);

	bm_zero(__bss_start, __bss_end);
	a15_use_chrome = blob.size != 0;
	if (a15_use_chrome)
		a15_err = uw_chrome_init(&a15_ct, &blob,
					 (uintptr_t)__text_start, false);
	else
		a15_err = uw_ehabi_init(&a15_eh, &exidx, &extab, false);
	bm_puts("uwind baremetal cortex-a15 ");
	bm_puts(a15_use_chrome ? "chrome" : "ehabi");
	bm_puts(" kind ");
	bm_putdec((uint32_t)bm_get_kind());
	bm_puts(a15_err ? " tables " : " tables ok");
	if (a15_err)
		bm_puts(uw_strerror(a15_err));
	bm_putc('\n');
	bm_run(bm_get_kind());
}
