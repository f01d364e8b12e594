// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Minimal console output over the target's bm_putc, and start-up helpers. */
#include "bm.h"

void bm_puts(const char *s)
{
	while (*s)
		bm_putc(*s++);
}

void bm_puthex(uint64_t v)
{
	char buf[19];
	int i = 18;

	buf[i] = 0;
	do {
		buf[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	buf[--i] = 'x';
	buf[--i] = '0';
	bm_puts(&buf[i]);
}

void bm_putdec(uint32_t v)
{
	char buf[21];
	int i = 20;

	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	bm_puts(&buf[i]);
}

/*
 * The compiler may call these for struct initialisation in the harness
 * (never in the core: the freestanding gate checks that).
 */
void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

BM_NORET void bm_halt(void)
{
	bm_puts("error: bm_run returned\n");
	bm_exit(0);
}

/* Clear [lo, hi) (.bss) byte by byte: a loop GCC must not make memset. */
void bm_zero(uint8_t *lo, uint8_t *hi)
{
	volatile uint8_t *p;

	for (p = lo; p < hi; p++)
		*p = 0;
}
