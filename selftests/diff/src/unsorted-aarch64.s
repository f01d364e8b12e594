/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Three functions whose SFrame FDEs gas writes out of address order:
 * uns_c and uns_b go to subsection 1, which follows subsection 0 (uns_a)
 * in .text, but uns_c comes first in the source.  FDE order c, a, b;
 * address order a, c, b.
 */
	.text 1
	.globl	uns_c
	.type	uns_c, %function
uns_c:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	uns_c, .-uns_c

	.text 0
	.globl	uns_a
	.type	uns_a, %function
uns_a:
	.cfi_startproc
	sub	sp, sp, #64
	.cfi_def_cfa_offset 64
	add	sp, sp, 64
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	uns_a, .-uns_a

	.text 1
	.globl	uns_b
	.type	uns_b, %function
uns_b:
	.cfi_startproc
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	uns_a
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	uns_b, .-uns_b
	.section	.note.GNU-stack,"",@progbits
