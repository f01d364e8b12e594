// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Cortex-M panic handler under qemu-system-arm -M mps2-an385 (Cortex-M3),
 * mps2-an386 (Cortex-M4F) or mps2-an505 (Cortex-M33, ARMv8-M, running
 * Secure with the FPU on and FPCCR_S.TS set): CMSDK UART0 console,
 * semihosting exit, and the fault handler that unwinds the faulting code
 * with the image's own EHABI tables (.ARM.exidx/.ARM.extab), across
 * exception frames.
 *
 * Reset_Handler switches thread mode to the PSP and calls cm_main, which
 * runs the chain (chain.c) to bm_fault:
 *  BM_KIND_UNDEF   udf -> UsageFault (UNDEFINSTR)
 *  BM_KIND_DIV0    sdiv by zero with CCR.DIV_0_TRP -> UsageFault (DIVBYZERO)
 *  BM_KIND_DABORT  load from CM_BAD_ADDR, BusFault disabled -> HardFault
 *  BM_KIND_IRQ     pend PendSV: its handler (on the MSP) runs cm_isr_mid
 *                  -> cm_isr_fault, udf -> UsageFault; the walk crosses
 *                  the UsageFault frame (MSP) and PendSV's (PSP).
 * Every fault vector enters cm_fault_entry, which saves r4-r11 (not
 * stacked by the core) and passes them with EXC_RETURN, PSP and IPSR to
 * cm_fault.
 */
#include <uwind/uwind.h>
#include <uwind/ehabi.h>
#include <uwind/cortexm.h>
#include "../bm.h"

#define REG32(a)	(*(volatile uint32_t *)(a))
#ifdef __ARM_ARCH_8M_MAIN__
#define UART0		0x50200000u	/* an505: Secure alias */
#else
#define UART0		0x40004000u
#endif
#define UART_DATA	REG32(UART0 + 0x00)
#define UART_STATE	REG32(UART0 + 0x04)
#define UART_CTRL	REG32(UART0 + 0x08)
#define UART_BAUDDIV	REG32(UART0 + 0x10)
#define SCB_ICSR	REG32(0xe000ed04u)
#define SCB_CCR		REG32(0xe000ed14u)
#define SCB_SHPR3	REG32(0xe000ed20u)
#define SCB_SHCSR	REG32(0xe000ed24u)
#define SCB_CFSR	REG32(0xe000ed28u)
#define SCB_HFSR	REG32(0xe000ed2cu)
#define SCB_BFAR	REG32(0xe000ed38u)
#define SCB_CPACR	REG32(0xe000ed88u)
#define FPCCR		REG32(0xe000ef34u)

#define FPCCR_TS		(1u << 26)	/* ARMv8-M; RES0 before */

#define ICSR_PENDSVSET		(1u << 28)
#define CCR_DIV_0_TRP		(1u << 4)
#define SHCSR_USGFAULTENA	(1u << 18)

/* Nothing answers there on mps2: a precise bus error (checked by run.sh). */
#define CM_BAD_ADDR	0x60000000u

extern const uint8_t __exidx_start[], __exidx_end[];
extern const uint8_t __extab_start[], __extab_end[];
extern const uint8_t __text_start[], __text_end[];
extern uint8_t __msp_bottom[], __msp_top[], __psp_top[];
extern uint8_t __bss_start[], __bss_end[];

void Reset_Handler(void);
void cm_fault_entry(void);
void PendSV_Handler(void);
int cm_main(void);

static struct uw_ehabi cm_eh;
static int cm_eh_err;
static volatile int cm_sink;

void bm_putc(char c)
{
	if (c == '\n')
		bm_putc('\r');
	while (UART_STATE & 1)
		;
	UART_DATA = (uint8_t)c;
}

/* Semihosting SYS_EXIT: ApplicationExit (status 0) or RunTimeErrorUnknown. */
BM_NORET void bm_exit(int ok)
{
	register uint32_t r0 __asm__("r0") = 0x18;
	register uint32_t r1 __asm__("r1") = ok ? 0x20026 : 0x20023;

	__asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
	for (;;)
		;
}

/* The faulting leaf: no frame. */
BM_NOINL BM_NORET void bm_fault(int kind)
{
	if (kind == BM_KIND_DABORT) {
		uint32_t v = REG32(CM_BAD_ADDR);

		BM_OPAQUE(v);
	} else if (kind == BM_KIND_DIV0) {
		int z = 0, q;

		BM_OPAQUE(z);
		q = kind / z;
		BM_OPAQUE(q);
	} else if (kind == BM_KIND_IRQ) {
		SCB_ICSR = ICSR_PENDSVSET;
		__asm__ volatile("dsb\n\tisb" : : : "memory");
	}
	__asm__ volatile("udf #0");
	__builtin_unreachable();
}

BM_NOINL BM_NORET void cm_isr_fault(int x)
{
	cm_sink = x;
	__asm__ volatile("udf #1");
	__builtin_unreachable();
}

/* Not noreturn, so PendSV_Handler keeps a normal frame. */
BM_NOINL int cm_isr_mid(int x)
{
	volatile int buf[8];

	buf[0] = x;
	if (x >= 0)
		cm_isr_fault(buf[0]);
	return buf[0] + buf[7];
}

void PendSV_Handler(void)
{
	int r = cm_isr_mid(cm_sink);

	cm_sink = r;
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

static void cm_default_handler(void)
{
	bm_puts("error: unexpected exception\n");
	bm_exit(0);
}

__attribute__((section(".vectors"), used))
static void (*const cm_vectors[32])(void) = {
	(void (*)(void))__msp_top,
	Reset_Handler,
	cm_default_handler,	/* NMI */
	cm_fault_entry,		/* HardFault */
	cm_fault_entry,		/* MemManage */
	cm_fault_entry,		/* BusFault */
	cm_fault_entry,		/* UsageFault */
	[11] = cm_default_handler,	/* SVCall */
	[14] = PendSV_Handler,
	[15] = cm_default_handler,	/* SysTick */
};

/*
 * The reset handler is the outermost frame: it moves thread mode to the
 * PSP, then pushes r7 = 0 and lr = 0 and says so in its unwind entry, so
 * the walk ends there on a zero return address.
 */
__asm__(
"	.pushsection .text.Reset_Handler, \"ax\", %progbits\n"
"	.global Reset_Handler\n"
"	.type Reset_Handler, %function\n"
"	.thumb_func\n"
"Reset_Handler:\n"
"	.fnstart\n"
#ifdef __ARM_FP
"	ldr	r0, =0xe000ed88\n"	/* CPACR: CP10, CP11 full access */
"	ldr	r1, [r0]\n"
"	orr	r1, r1, #(0xf << 20)\n"
"	str	r1, [r0]\n"
#ifdef __ARM_ARCH_8M_MAIN__
	/*
	 * FPCCR_S.TS: Secure FP frames stack s16-s31 too (0xa8 bytes), the
	 * layout UW_WALK_CM_FPCCR_TS tells the walker about.
	 */
"	ldr	r0, =0xe000ef34\n"
"	ldr	r1, [r0]\n"
"	orr	r1, r1, #(1 << 26)\n"
"	str	r1, [r0]\n"
#endif
"	dsb\n"
"	isb\n"
#endif
"	ldr	r0, =__psp_top\n"
"	msr	psp, r0\n"
"	movs	r0, #2\n"
"	msr	control, r0\n"
"	isb\n"
"	movs	r0, #0\n"
"	mov	r7, r0\n"
"	mov	lr, r0\n"
"	.save	{r7, lr}\n"
"	push	{r7, lr}\n"
"	bl	cm_main\n"
"	bl	bm_halt\n"
"	.fnend\n"
"	.size Reset_Handler, . - Reset_Handler\n"
"	.ltorg\n"
"	.popsection\n"
"	.pushsection .text.cm_fault_entry, \"ax\", %progbits\n"
"	.global cm_fault_entry\n"
"	.type cm_fault_entry, %function\n"
"	.thumb_func\n"
"cm_fault_entry:\n"
"	.fnstart\n"
"	.cantunwind\n"
"	push	{r4-r11}\n"
"	mov	r0, sp\n"
"	mov	r1, lr\n"
"	mrs	r2, psp\n"
"	mrs	r3, ipsr\n"
"	bl	cm_fault\n"
"	b	.\n"
"	.fnend\n"
"	.size cm_fault_entry, . - cm_fault_entry\n"
"	.popsection\n");

static void put_kv(const char *k, uint32_t v)
{
	bm_putc(' ');
	bm_puts(k);
	bm_putc(' ');
	bm_puthex(v);
}

/*
 * hi: r4-r11 as at the fault; the core stacked its exception frame just
 * above them (MSP) or on the PSP, as EXC_RETURN bit 2 says.
 */
BM_NORET void cm_fault(const uint32_t *hi, uint32_t exc_return, uint32_t psp,
		       uint32_t ipsr)
{
	const struct bm_mem_range stacks = {
		(uintptr_t)__msp_bottom, (uintptr_t)__psp_top
	};
	struct uw_module mod = {
		.start = (uintptr_t)__text_start,
		.end = (uintptr_t)__text_end,
		.ehabi = cm_eh_err ? NULL : &cm_eh,
	};
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_ARM,
		.mods = &mod,
		.nmods = 1,
		.mem = { bm_mem_read, (void *)&stacks },
		.stack_lo = (uintptr_t)__msp_bottom,
		.stack_hi = (uintptr_t)__psp_top,
		.flags = UW_WALK_CORTEX_M,
		.cm_psp = psp,
	};
#ifdef __ARM_FP
	uint32_t fpccr = FPCCR;
#else
	uint32_t fpccr = 0;
#endif
	static struct uw_regs regs;
	uint32_t frame = (exc_return & 4) ? psp : (uint32_t)(uintptr_t)(hi + 8);
	unsigned int i;
	int err;

	bm_puts("fault");
	put_kv("exc", ipsr & 0x1ff);
	put_kv("exc_return", exc_return);
	put_kv("cfsr", SCB_CFSR);
	put_kv("hfsr", SCB_HFSR);
	put_kv("bfar", SCB_BFAR);
	put_kv("psp", psp);
	put_kv("fpccr", fpccr);
	bm_putc('\n');
	/* The frame does not say whether s16-s31 are in it: FPCCR_S does. */
	if (fpccr & FPCCR_TS)
		cfg.flags |= UW_WALK_CM_FPCCR_TS;
	regs.valid = 0;
	for (i = 4; i <= 11; i++)
		uw_reg_set(&regs, i, hi[i - 4]);
	err = uw_cortexm_exc_regs(&cfg, exc_return, frame, &regs);
	if (err) {
		bm_puts("error: exception frame: ");
		bm_puts(uw_strerror(err));
		bm_putc('\n');
		bm_exit(0);
	}
	bm_backtrace(&cfg, &regs);
	bm_exit(1);
}

int cm_main(void)
{
	struct uw_span exidx = bm_span(__exidx_start, __exidx_end);
	struct uw_span extab = bm_span(__extab_start, __extab_end);

	bm_zero(__bss_start, __bss_end);
	UART_BAUDDIV = 16;
	UART_CTRL = 1;			/* TX enable */
	SCB_SHCSR |= SHCSR_USGFAULTENA;	/* BusFault stays off: HardFault */
	SCB_CCR |= CCR_DIV_0_TRP;
	SCB_SHPR3 |= 0xffu << 16;	/* PendSV lowest: UsageFault preempts */
#ifdef __ARM_FP
	{
		/*
		 * An FP instruction in thread mode: CONTROL.FPCA is set from
		 * here on, so exceptions taken from thread code stack the
		 * extended frame (EXC_RETURN 0xffffffed).
		 */
		volatile float f = 1.5f;

		f = f * f;
		__asm__ volatile("vmov s0, %0" : : "r"(f) : "s0");
	}
#endif
	cm_eh_err = uw_ehabi_init(&cm_eh, &exidx, &extab, false);
	bm_puts("uwind baremetal cortex-m kind ");
	bm_putdec((uint32_t)bm_get_kind());
	bm_puts(" ehabi ");
	bm_puts(cm_eh_err ? uw_strerror(cm_eh_err) : "ok");
	bm_puts(" entries ");
	bm_putdec(cm_eh_err ? 0 : cm_eh.count);
	bm_putc('\n');
	bm_run(bm_get_kind());
}
