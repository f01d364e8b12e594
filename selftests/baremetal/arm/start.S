// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM Cortex-A15 (qemu virt) start-up, always ARM state (the C code may
 * be Thumb-2: the linker turns bl into blx).  _start runs in SVC mode:
 * the vector table goes to VBAR (SCTLR.V and TE clear: vectors at VBAR,
 * taken in ARM state), UND and ABT get stacks of their own, painted so
 * the handler can measure how much of them it used.  _start is the
 * outermost frame: it pushes r11 = 0 and lr = 0, and says so both in its
 * EHABI entry and in its DWARF CFI (.debug_frame, which
 * `uwind convert --breakpad` reads for the Chrome table), so every walk
 * ends there on a zero return address.
 *
 * The UND and ABT vectors push r0-r12 below room for five more words and
 * fill those with the interrupted mode's banked sp and lr (read by
 * switching to that mode, SYS for USR), LR_<mode>, SPSR and the kind of
 * exception (1 undefined, 2 data abort), then call a15_exc(frame).
 */
	.syntax unified
	.arm
	.cfi_sections .debug_frame

#define MODE_SVC	0x13
#define MODE_ABT	0x17
#define MODE_UND	0x1b
#define STACK_PAINT	0x5afe57acu

	.section .text.boot, "ax", %progbits
	/*
	 * The vector table first: text starts with data, not a function.
	 * (`uwind convert --breakpad` writes offsets from the text start,
	 * and `--chrome` takes a function at offset 0 for dead code's
	 * tombstone and drops it.)
	 */
	.balign	32
a15_vectors:
	b	a15_other_stub			// reset
	b	a15_und_stub			// undefined instruction
	b	a15_other_stub			// SVC
	b	a15_other_stub			// prefetch abort
	b	a15_abt_stub			// data abort
	b	a15_other_stub
	b	a15_other_stub			// IRQ
	b	a15_other_stub			// FIQ

	.global _start
	.type _start, %function
_start:
	.fnstart
	.cfi_startproc
	ldr	r0, =a15_vectors
	mcr	p15, 0, r0, c12, c0, 0		// VBAR
	mrc	p15, 0, r0, c1, c0, 0		// SCTLR
	bic	r0, r0, #(1 << 13)		// V: vectors at VBAR
	bic	r0, r0, #(1 << 30)		// TE: exceptions in ARM state
	mcr	p15, 0, r0, c1, c0, 0
	isb
	cps	#MODE_UND
	ldr	sp, =__und_stack_top
	cps	#MODE_ABT
	ldr	sp, =__abt_stack_top
	cps	#MODE_SVC
	ldr	sp, =__stack_top
	ldr	r0, =__exc_stack_bottom
	ldr	r1, =__exc_stack_top
	ldr	r2, =STACK_PAINT
1:	str	r2, [r0], #4
	cmp	r0, r1
	blo	1b
	mov	r0, #0
	mov	r11, r0
	mov	lr, r0
	.save	{r11, lr}
	push	{r11, lr}
	.cfi_def_cfa_offset 8
	.cfi_offset lr, -4
	.cfi_offset r11, -8
	bl	a15_main
	bl	bm_halt
	.cfi_endproc
	.fnend
	.size	_start, . - _start
	.ltorg

#define FRAME_WORDS	18		// r0-r12, sp, lr, lr_exc, spsr, kind

	.type	a15_und_stub, %function
a15_und_stub:
	sub	sp, sp, #20
	push	{r0-r12}
	mov	r0, #1
	b	a15_exc_common
	.size	a15_und_stub, . - a15_und_stub

	.type	a15_abt_stub, %function
a15_abt_stub:
	sub	sp, sp, #20
	push	{r0-r12}
	mov	r0, #2
	b	a15_exc_common
	.size	a15_abt_stub, . - a15_abt_stub

	.type	a15_exc_common, %function
a15_exc_common:
	str	lr, [sp, #60]			// LR_<mode>
	mrs	r1, spsr
	str	r1, [sp, #64]
	str	r0, [sp, #68]
	mrs	r4, cpsr
	and	r2, r1, #0x1f			// the interrupted mode
	cmp	r2, #0x10			// USR: its registers via SYS
	moveq	r2, #0x1f
	bic	r3, r4, #0x1f
	orr	r3, r3, r2
	orr	r3, r3, #0xc0			// IRQ, FIQ masked
	msr	cpsr_c, r3
	mov	r5, sp
	mov	r6, lr
	msr	cpsr_c, r4
	str	r5, [sp, #52]
	str	r6, [sp, #56]
	mov	r0, sp
	mov	r11, #0
	bl	a15_exc				// does not return
	b	.
	.size	a15_exc_common, . - a15_exc_common

	.type	a15_other_stub, %function
a15_other_stub:
	mrs	r0, cpsr
	bl	a15_other
	b	.
	.size	a15_other_stub, . - a15_other_stub
