/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The functions of unsorted-x86_64.s with a hand-written SFrame table
 * flagged FDE_FUNC_START_PCREL, as gas writes from binutils 2.45 on (no
 * assembler here does): V2 by default, V3 with --defsym V3=1.  The rows
 * are those gas 2.40 writes for the same code; FDEs in the same order
 * (uns_c, uns_a, uns_b: not sorted), no FDE_SORTED flag.  Each start
 * field is "function - field", an R_X86_64_PC32 (V3: PC64) relocation.
 * Assemble WITHOUT --gsframe, or gas adds its own rows to .sframe.
 */
	.include "unsorted-x86_64.s"

	.section .sframe, "a", @progbits
	.p2align 3
	.short	0xdee2			/* magic */
.ifdef V3
	.byte	3			/* version */
.else
	.byte	2
.endif
	.byte	0x4			/* flags: PCREL, not SORTED */
	.byte	3			/* ABI: AMD64, little-endian */
	.byte	0			/* CFA fixed FP offset */
	.byte	-8			/* CFA fixed RA offset */
	.byte	0			/* auxiliary header length */
	.long	3			/* FDEs */
	.long	10			/* FREs */
	.long	.Lfre_end - .Lfre	/* FRE subsection length */
	.long	0			/* FDE offset */
	.long	.Lfre - .Lfde		/* FRE offset */
.Lfde:
.ifdef V3
	/* start (s64, PCREL), size, attribute record offset */
	.quad	uns_c - .
	.long	.Luns_c_end - uns_c, .Lattr_c - .Lfre
	.quad	uns_a - .
	.long	.Luns_a_end - uns_a, .Lattr_a - .Lfre
	.quad	uns_b - .
	.long	.Luns_b_end - uns_b, .Lattr_b - .Lfre
.else
	/* start (s32, PCREL), size, FRE offset, FREs, info, rep size, pad */
	.long	uns_c - .
	.long	.Luns_c_end - uns_c, .Lfre_c - .Lfre, 3
	.byte	0, 0, 0, 0
	.long	uns_a - .
	.long	.Luns_a_end - uns_a, .Lfre_a - .Lfre, 3
	.byte	0, 0, 0, 0
	.long	uns_b - .
	.long	.Luns_b_end - uns_b, .Lfre_b - .Lfre, 4
	.byte	0, 0, 0, 0
.endif
.Lfre:
	/* FREs: start (1 byte), info, then 1-byte words: CFA (and FP) */
.ifdef V3
.Lattr_c:
	.short	3			/* FREs */
	.byte	0, 0, 0			/* info, info2 (DEFAULT), rep size */
.endif
.Lfre_c:
	.byte	0x00, 0x03, 8		/* sp+8 */
	.byte	0x01, 0x03, 16		/* sp+16 */
	.byte	0x04, 0x03, 8
.ifdef V3
.Lattr_a:
	.short	3
	.byte	0, 0, 0
.endif
.Lfre_a:
	.byte	0x00, 0x03, 8
	.byte	0x04, 0x03, 32		/* sp+32 */
	.byte	0x0d, 0x03, 8
.ifdef V3
.Lattr_b:
	.short	4
	.byte	0, 0, 0
.endif
.Lfre_b:
	.byte	0x00, 0x03, 8
	.byte	0x01, 0x05, 16, -16	/* sp+16, fp at c-16 */
	.byte	0x04, 0x04, 16, -16	/* fp+16 */
	.byte	0x0a, 0x05, 8, -16
.Lfre_end:
