// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The two libraries of the swap test (swap.c), built from this file with
 * SWAP_A or SWAP_B: the same size and segments, so that one dlopen'ed
 * after the other was dlclose'd lands at the same address with the same
 * number of mappings.  Their first function differs in frame: A's keeps
 * a 64 KiB array on the stack, B's has no frame at all.  A's table used
 * for B's pcs therefore looks for the return address 64 KiB up, past
 * the top of the stack: the walk stops there without a hint that its
 * table is stale, which is what a module that missed the swap would do.
 */
#define NI __attribute__((noinline))

#ifdef SWAP_A
NI long swapa_leaf(long n)
{
	volatile char buf[65536];
	long i;

	for (i = 0; i < n; i++)
		buf[(i * 4099) & 65535] += (char)i;
	return buf[n & 65535];
}

NI long swapa_enter(long n)
{
	return swapa_leaf(n) + 1;
}
#else
static volatile long swapb_sink;

NI long swapb_leaf(long n)
{
	long i;

	for (i = 0; i < n; i++)
		swapb_sink += i;
	return swapb_sink;
}

NI long swapb_enter(long n)
{
	return swapb_leaf(n) + 1;
}
#endif
