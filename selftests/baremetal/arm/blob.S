// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The Chrome unwind table that `uwind convert --chrome` wrote for this
 * image, as a blob in .uwind_chrome (link.ld puts __chrome_start and
 * __chrome_end around it).  BM_BLOB names the file.
 */
	.section .uwind_chrome, "a", %progbits
	.balign	4
	.incbin	BM_BLOB
