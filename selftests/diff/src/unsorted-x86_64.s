/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Three functions whose SFrame FDEs gas writes out of address order:
 * uns_c and uns_b go to subsection 1, which follows subsection 0 (uns_a)
 * in .text, but uns_c comes first in the source.  FDE order c, a, b;
 * address order a, c, b.  pcrel-x86_64.s describes the same code with
 * hand-written V2 and V3 tables (.L*_end mark the functions' ends).
 */
	.text 1
	.globl	uns_c
	.type	uns_c, @function
uns_c:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movl	%edi, %eax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
.Luns_c_end:
	.cfi_endproc
	.size	uns_c, .-uns_c

	.text 0
	.globl	uns_a
	.type	uns_a, @function
uns_a:
	.cfi_startproc
	subq	$24, %rsp
	.cfi_def_cfa_offset 32
	call	uns_c
	addq	$24, %rsp
	.cfi_def_cfa_offset 8
	ret
.Luns_a_end:
	.cfi_endproc
	.size	uns_a, .-uns_a

	.text 1
	.globl	uns_b
	.type	uns_b, @function
uns_b:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	call	uns_a
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
.Luns_b_end:
	.cfi_endproc
	.size	uns_b, .-uns_b
	.section	.note.GNU-stack,"",@progbits
