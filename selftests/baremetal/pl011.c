// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Console of qemu's virt machine (the AArch64 and Cortex-A15 images): the
 * PL011 UART at 0x09000000, polled.
 */
#include "bm.h"

#define PL011_DR	0x09000000u
#define PL011_FR	(PL011_DR + 0x18)
#define PL011_FR_TXFF	(1u << 5)

void bm_putc(char c)
{
	volatile uint32_t *fr = (volatile uint32_t *)(uintptr_t)PL011_FR;
	volatile uint32_t *dr = (volatile uint32_t *)(uintptr_t)PL011_DR;

	if (c == '\n')
		bm_putc('\r');
	while (*fr & PL011_FR_TXFF)
		;
	*dr = (uint8_t)c;
}
