// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * A single function: its object file's SFrame table has one FDE and no
 * FDE_SORTED flag (gas leaves that to the linker), which the core takes
 * as sorted.
 */
volatile int one_sink;

int one(int n)
{
	volatile char buf[64];

	buf[n & 63] = (char)n;
	one_sink = buf[(n * 7) & 63];
	return one_sink + n;
}
