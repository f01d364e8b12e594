/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * AArch64 functions whose CFI spans what `uwind sframe` must do with a
 * row (see rules-x86_64.S).  Never run.
 */
	.text

/* Frame record: DEFAULT rows with RA and FP saved. */
	.globl	r_plain
	.type	r_plain, %function
r_plain:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	.cfi_def_cfa_register 29
	nop
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa 31, 0
	.cfi_restore 29
	.cfi_restore 30
	ret
	.cfi_endproc
	.size	r_plain, .-r_plain

/* FP saved, RA still in x30: FLEX, RA padded. */
	.globl	r_fponly
	.type	r_fponly, %function
r_fponly:
	.cfi_startproc
	str	x29, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	nop
	ldr	x29, [sp], #16
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	ret
	.cfi_endproc
	.size	r_fponly, .-r_fponly

/* RA moved to x1: FLEX register rule. */
	.globl	r_rareg
	.type	r_rareg, %function
r_rareg:
	.cfi_startproc
	mov	x1, x30
	.cfi_register 30, 1
	nop
	mov	x30, x1
	.cfi_restore 30
	ret
	.cfi_endproc
	.size	r_rareg, .-r_rareg

/* CFA = *(sp) + 16, load then add: left out. */
	.globl	r_loadadd
	.type	r_loadadd, %function
r_loadadd:
	.cfi_startproc
	nop
	/* DW_CFA_def_cfa_expression: breg31 0; deref; plus_uconst 16 */
	.cfi_escape 0x0f, 0x05, 0x8f, 0x00, 0x06, 0x23, 0x10
	nop
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	r_loadadd, .-r_loadadd

/* Signed return address (pointer authentication). */
	.globl	r_pac
	.type	r_pac, %function
r_pac:
	.cfi_startproc
	paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	nop
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	r_pac, .-r_pac

	.section .note.GNU-stack, "", @progbits
