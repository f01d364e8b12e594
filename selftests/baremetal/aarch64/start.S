// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AArch64 (qemu virt, cortex-a57) start-up: EL1, MMU off.  _start is the
 * reset entry and the outermost frame of every backtrace: it clears x29
 * and x30 before calling into C, so the walk ends on a zero frame pointer.
 * The vector table sends synchronous exceptions from EL1 to a stub that
 * saves x0-x30, the interrupted sp, ELR, ESR, FAR and SPSR into a struct
 * a64_exc_frame on the stack and calls a64_sync_handler(frame).
 */
	.section .text.boot, "ax"
	.global _start
	.type _start, %function
_start:
	ldr	x0, =__stack_top
	mov	sp, x0
	ldr	x0, =a64_vectors
	msr	vbar_el1, x0
	mov	x0, #(3 << 20)		// CPACR_EL1.FPEN: no FP/SIMD traps
	msr	cpacr_el1, x0
	isb
	mov	x29, #0
	mov	x30, #0
	bl	a64_main
	bl	bm_halt
	.size _start, . - _start

#define FRAME_SIZE	(36 * 8)

	.type a64_sync_stub, %function
a64_sync_stub:
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	add	x0, sp, #FRAME_SIZE	// sp before the exception
	stp	x30, x0, [sp, #240]
	mrs	x0, elr_el1
	mrs	x1, esr_el1
	stp	x0, x1, [sp, #256]
	mrs	x0, far_el1
	mrs	x1, spsr_el1
	stp	x0, x1, [sp, #272]
	mov	x0, sp
	mov	x29, #0
	bl	a64_sync_handler	// does not return
	b	.
	.size a64_sync_stub, . - a64_sync_stub

	.type a64_other_stub, %function
a64_other_stub:
	mrs	x0, esr_el1
	bl	a64_other_handler
	b	.
	.size a64_other_stub, . - a64_other_stub

	.macro	vec target
	.balign	0x80
	b	\target
	.endm

	.balign	0x800
a64_vectors:
	vec	a64_sync_stub		// current EL, SP_EL0: synchronous
	vec	a64_other_stub
	vec	a64_other_stub
	vec	a64_other_stub
	vec	a64_sync_stub		// current EL, SP_ELx: synchronous
	vec	a64_other_stub
	vec	a64_other_stub
	vec	a64_other_stub
	.rept	8
	vec	a64_other_stub		// lower ELs
	.endr
