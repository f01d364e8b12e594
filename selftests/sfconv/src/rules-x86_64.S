/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * x86-64 functions whose CFI spans what `uwind sframe` must do with a
 * row: express it (DEFAULT or FLEX), or leave it out.  Never run; only
 * converted and compared with libdw's reading of the same CFI.
 */
	.text

/* Plain frame: DEFAULT rows. */
	.globl	r_plain
	.type	r_plain, @function
r_plain:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register rbp
	nop
	pop	%rbp
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	r_plain, .-r_plain

/* CFA = *(rsp) + 8, "load, then add": SFrame has no such rule. */
	.globl	r_loadadd
	.type	r_loadadd, @function
r_loadadd:
	.cfi_startproc
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset rbx, -16
	nop
	/* DW_CFA_def_cfa_expression: breg7 0; deref; plus_uconst 8 */
	.cfi_escape 0x0f, 0x05, 0x77, 0x00, 0x06, 0x23, 0x08
	nop
	nop
	.cfi_def_cfa rsp, 16
	pop	%rbx
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	r_loadadd, .-r_loadadd

/* RA given as a value (val_offset), not a slot: left out. */
	.globl	r_raval
	.type	r_raval, @function
r_raval:
	.cfi_startproc
	nop
	.cfi_val_offset rip, -8
	nop
	.cfi_restore rip
	ret
	.cfi_endproc
	.size	r_raval, .-r_raval

/* Frame pointer undefined while the RA is known: left out. */
	.globl	r_fpundef
	.type	r_fpundef, @function
r_fpundef:
	.cfi_startproc
	nop
	.cfi_undefined rbp
	nop
	.cfi_same_value rbp
	ret
	.cfi_endproc
	.size	r_fpundef, .-r_fpundef

/* Stack realignment with DRAP: CFA = *(rbp - 8), rbp saved at rbp: FLEX. */
	.globl	r_drap
	.type	r_drap, @function
r_drap:
	.cfi_startproc
	lea	8(%rsp), %r10
	.cfi_def_cfa r10, 0
	and	$-32, %rsp
	push	-8(%r10)
	push	%rbp
	mov	%rsp, %rbp
	/* DW_CFA_expression rbp: breg6 0 */
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
	push	%r10
	/* DW_CFA_def_cfa_expression: breg6 -8; deref */
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
	nop
	pop	%r10
	.cfi_def_cfa r10, 0
	pop	%rbp
	.cfi_restore rbp
	lea	-8(%r10), %rsp
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	r_drap, .-r_drap

/* RA saved at rsp + 8 (an expression, not CFA-relative): FLEX. */
	.globl	r_raexpr
	.type	r_raexpr, @function
r_raexpr:
	.cfi_startproc
	sub	$8, %rsp
	.cfi_def_cfa_offset 16
	/* DW_CFA_expression rip: breg7 8 */
	.cfi_escape 0x10, 0x10, 0x02, 0x77, 0x08
	nop
	add	$8, %rsp
	.cfi_def_cfa_offset 8
	.cfi_offset rip, -8
	ret
	.cfi_endproc
	.size	r_raexpr, .-r_raexpr

/* A signal frame (CIE 'S'): left to the walker's trampoline reader. */
	.globl	r_sigframe
	.type	r_sigframe, @function
	nop
r_sigframe:
	.cfi_startproc
	.cfi_signal_frame
	/* DW_CFA_def_cfa_expression: breg7 160; deref */
	.cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06
	/* DW_CFA_expression rip: breg7 168 */
	.cfi_escape 0x10, 0x10, 0x03, 0x77, 0xa8, 0x01
	mov	$15, %rax
	syscall
	.cfi_endproc
	.size	r_sigframe, .-r_sigframe

/* The outermost frame: RA undefined. */
	.globl	r_outer
	.type	r_outer, @function
r_outer:
	.cfi_startproc
	.cfi_undefined rip
	xor	%ebp, %ebp
	hlt
	.cfi_endproc
	.size	r_outer, .-r_outer

	.section .note.GNU-stack, "", @progbits
