// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Host unit test of the Cortex-M exception-frame code (lib/cortexm.c and
 * the walker's EXC_RETURN step) on hand-built stacks: frame sizes 0x20
 * and 0x68, the xPSR bit 9 alignment word, the Thumb bit, the PSP, and
 * the refusals (misaligned frame, no PSP, a second return to thread mode,
 * flag off); ARMv8-M's wider EXC_RETURN: Non-secure values, the
 * additional state context (r4-r11 stacked behind an integrity
 * signature), FP frames with s16-s31 (FPCCR_S.TS) and frames on the
 * other security state's stack.  Expected
 * values are worked out by hand from the ARMv7-M and ARMv8-M exception
 * entry rules.  Prints TAP.
 */
#include <stdio.h>
#include <string.h>
#include <uwind/uwind.h>
#include <uwind/cortexm.h>
#include "../common/tap.h"

#define BASE	0x20000000u
static uint8_t g_mem[0x400];

static int rd(void *ctx, uint64_t addr, void *dst, size_t len)
{
	(void)ctx;
	if (addr < BASE || addr - BASE > sizeof(g_mem) ||
	    len > sizeof(g_mem) - (addr - BASE))
		return -1;
	memcpy(dst, g_mem + (addr - BASE), len);
	return 0;
}

static void put32(uint32_t addr, uint32_t v)
{
	uint8_t *p = g_mem + (addr - BASE);

	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

/* r0 r1 r2 r3 r12 lr pc xpsr */
static void frame(uint32_t at, uint32_t lr, uint32_t pc, uint32_t xpsr)
{
	uint32_t i;

	for (i = 0; i < 4; i++)
		put32(at + 4 * i, 0x100 + i);
	put32(at + 16, 0x112);
	put32(at + 20, lr);
	put32(at + 24, pc);
	put32(at + 28, xpsr);
}

static struct uw_walk_cfg cfg(uint32_t flags, uint64_t psp)
{
	struct uw_walk_cfg c = {
		.arch = UW_ARCH_ARM,
		.mem = { rd, NULL },
		.stack_lo = BASE,
		.stack_hi = BASE + sizeof(g_mem),
		.flags = flags | UW_WALK_NO_FP,
		.cm_psp = psp,
	};
	return c;
}

/* The ARMv8-M additional state context at at: signature, 0, r4-r11. */
static void callee_context(uint32_t at, uint32_t sig)
{
	uint32_t i;

	put32(at, sig);
	put32(at + 4, 0);
	for (i = 0; i < 8; i++)
		put32(at + 8 + 4 * i, 0x404 + i);
}

static void v8m(void)
{
	struct uw_walk_cfg c = cfg(UW_WALK_CORTEX_M, 0);
	struct uw_regs r = { .valid = 0 };
	struct uw_cursor cur;
	unsigned int v, valid = 0, invalid = 0;
	uint64_t x;

	/* Every value with bits 31-7 set and bit 1 clear, but handler+PSP. */
	for (v = 0xffffff80u; v != 0; v++) {
		bool want = !(v & 2) && (v & 0x0c) != 0x04;

		if (uw_cortexm_is_exc_return(v) != want)
			invalid++;
		valid += want;
	}
	ok(!invalid && valid == 48 &&
	      !uw_cortexm_is_exc_return(0x1fffffff9ull) &&
	      !uw_cortexm_is_exc_return(0xffffff79),
	      "ARMv8-M EXC_RETURN set: 48 values, nothing else");

	/* Non-secure thread on PSP, basic frame: 0xffffffbc. */
	frame(BASE + 0x200, 0x77, 0x7000, 1u << 24);
	ok(uw_cortexm_exc_regs(&c, 0xffffffbc, BASE + 0x200, &r) == 0 &&
	      r.r[15] == 0x7001 && r.r[13] == BASE + 0x220 && r.r[14] == 0x77,
	      "0xffffffbc (Non-secure, PSP): basic frame");
	ok(uw_cortexm_exc_regs(&c, 0xffffffac, BASE + 0x200, &r) == 0 &&
	      r.r[13] == BASE + 0x268, "0xffffffac: FP frame, sp + 0x68");

	/* DCRS clear: callee context first, then the basic frame. */
	r.valid = 0;
	callee_context(BASE + 0x100, 0xfefa125b);
	frame(BASE + 0x128, 0x88, 0x8000, 1u << 24 | 1u << 9);
	ok(uw_cortexm_exc_regs(&c, 0xffffffd9, BASE + 0x100, &r) == 0 &&
	      r.r[15] == 0x8001 && r.r[14] == 0x88 && r.r[0] == 0x100 &&
	      r.r[13] == BASE + 0x100 + 0x28 + 0x20 + 4,
	      "DCRS clear: basic frame after 0x28 bytes, sp past both");
	ok(uw_reg_get(&r, 4, &x) && x == 0x404 &&
	      uw_reg_get(&r, 11, &x) && x == 0x40b,
	      "DCRS clear: r4-r11 restored from the callee context");
	callee_context(BASE + 0x100, 0xfefa125a);
	ok(uw_cortexm_exc_regs(&c, 0xffffffc9, BASE + 0x100, &r) == 0 &&
	      r.r[13] == BASE + 0x100 + 0x28 + 0x68 + 4,
	      "DCRS clear with an FP frame: sp + 0x28 + 0x68");
	callee_context(BASE + 0x100, 0x12345678);
	r.valid = 0;
	ok(uw_cortexm_exc_regs(&c, 0xffffffd9, BASE + 0x100, &r) ==
	      UW_EBADDATA && !uw_reg_get(&r, 4, &x),
	      "DCRS clear, bad integrity signature: refused, nothing set");

	/*
	 * FPCCR_S.TS: a Secure FP frame holds s16-s31 too, 0xa8 bytes; the
	 * alignment word still sits above all of it.
	 */
	c = cfg(UW_WALK_CORTEX_M | UW_WALK_CM_FPCCR_TS, 0);
	frame(BASE + 0x200, 0x99, 0x9000, 1u << 24 | 1u << 9);
	ok(uw_cortexm_exc_regs(&c, 0xffffffe1, BASE + 0x200, &r) == 0 &&
	      r.r[15] == 0x9001 && r.r[14] == 0x99 &&
	      r.r[13] == BASE + 0x200 + 0xa8 + 4,
	      "FPCCR_S.TS: Secure FP frame 0xffffffe1, sp + 0xa8 + 4");
	ok(uw_cortexm_exc_regs(&c, 0xffffffac, BASE + 0x200, &r) == 0 &&
	      r.r[13] == BASE + 0x200 + 0x68 + 4,
	      "FPCCR_S.TS: a Non-secure FP frame stays 0x68");
	ok(uw_cortexm_exc_regs(&c, 0xfffffff1, BASE + 0x200, &r) == 0 &&
	      r.r[13] == BASE + 0x200 + 0x20 + 4,
	      "FPCCR_S.TS: a Secure basic frame stays 0x20");
	callee_context(BASE + 0x100, 0xfefa125a);
	frame(BASE + 0x128, 0xaa, 0xa000, 1u << 24);
	ok(uw_cortexm_exc_regs(&c, 0xffffffc1, BASE + 0x100, &r) == 0 &&
	      r.r[15] == 0xa001 && r.r[13] == BASE + 0x100 + 0x28 + 0xa8,
	      "FPCCR_S.TS with DCRS clear: sp + 0x28 + 0xa8");
	c = cfg(UW_WALK_CORTEX_M, 0);
	frame(BASE + 0x200, 0x99, 0x9000, 1u << 24);
	ok(uw_cortexm_exc_regs(&c, 0xffffffe1, BASE + 0x200, &r) == 0 &&
	      r.r[13] == BASE + 0x268,
	      "no UW_WALK_CM_FPCCR_TS: the Secure FP frame is 0x68");
	/* Walker: Secure handler, Secure thread with FP context on PSP. */
	frame(BASE + 0x300, 0, 0x5000, 1u << 24);
	r.valid = 0;
	uw_reg_set(&r, UW_ARM_PC, 0xffffffed);
	uw_reg_set(&r, UW_ARM_SP, BASE + 0x100);
	c = cfg(UW_WALK_CORTEX_M | UW_WALK_CM_FPCCR_TS, BASE + 0x300);
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) == 1 &&
	      cur.regs.r[15] == 0x5001 && cur.regs.r[13] == BASE + 0x3a8,
	      "walker: FPCCR_S.TS, 0xffffffed restores sp past s16-s31");

	/* Walker: Non-secure handler, Non-secure thread on PSP. */
	frame(BASE + 0x300, 0, 0x6000, 1u << 24);
	r.valid = 0;
	uw_reg_set(&r, UW_ARM_PC, 0xffffffbc);
	uw_reg_set(&r, UW_ARM_SP, BASE + 0x100);
	c = cfg(UW_WALK_CORTEX_M, BASE + 0x300);
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) == 1 &&
	      cur.regs.r[15] == 0x6001 && cur.regs.r[13] == BASE + 0x320 &&
	      cur.source == UW_SRC_EXCFRAME,
	      "walker: 0xffffffbc restores the Non-secure PSP frame");
	/* A Non-secure handler cannot reach the Secure stack, nor back. */
	uw_reg_set(&r, UW_ARM_PC, 0xfffffffc);
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) < 0 &&
	      cur.stop == UW_STOP_NO_INFO,
	      "walker: frame on the Secure stack from Non-secure: stops");
	uw_reg_set(&r, UW_ARM_PC, 0xffffffbd);
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) < 0 &&
	      cur.stop == UW_STOP_NO_INFO,
	      "walker: frame on the Non-secure stack from Secure: stops");
}

int main(void)
{
	struct uw_walk_cfg c = cfg(UW_WALK_CORTEX_M, 0);
	struct uw_regs r = { .valid = 0 };
	struct uw_cursor cur;
	uint64_t v;

	tap_begin(32);

	/* Basic frame at 0x100, xPSR T set, no alignment word. */
	frame(BASE + 0x100, 0x1235, 0x4000, 1u << 24);
	ok(uw_cortexm_exc_regs(&c, 0xfffffff9, BASE + 0x100, &r) == 0 &&
	      r.r[0] == 0x100 && r.r[3] == 0x103 && r.r[12] == 0x112 &&
	      r.r[14] == 0x1235, "basic frame: r0-r3, r12, lr");
	ok(r.r[15] == 0x4001 && r.r[13] == BASE + 0x120,
	      "basic frame: pc | Thumb bit, sp = frame + 0x20");
	ok(!uw_reg_get(&r, 4, &v), "r4 not made valid");

	/* xPSR bit 9: one more word. */
	frame(BASE + 0x100, 0, 0x4000, 1u << 24 | 1u << 9);
	ok(uw_cortexm_exc_regs(&c, 0xfffffff9, BASE + 0x100, &r) == 0 &&
	      r.r[13] == BASE + 0x124, "xPSR bit 9: sp = frame + 0x24");

	/* FP frame (bit 4 clear): 0x68 bytes. */
	frame(BASE + 0x100, 0, 0x4000, 1u << 24);
	ok(uw_cortexm_exc_regs(&c, 0xffffffe9, BASE + 0x100, &r) == 0 &&
	      r.r[13] == BASE + 0x168, "FP frame: sp = frame + 0x68");
	ok(uw_cortexm_exc_regs(&c, 0xfffffff9, BASE + 0x102, &r) ==
	      UW_EALIGN, "misaligned frame refused");
	ok(uw_cortexm_exc_regs(&c, 0xfffffff5, BASE + 0x100, &r) ==
	      UW_EINVAL, "0xfffffff5 is not an EXC_RETURN value");
	ok(uw_cortexm_exc_regs(&c, 0xfffffff9, BASE + 0x3f0, &r) ==
	      UW_ESTACK, "frame past the stack bound refused");

	/* Walker: pc = EXC_RETURN 0xfffffff1 at sp 0x100 (MSP), then 0xfffffffd (PSP 0x300). */
	frame(BASE + 0x100, 0, 0x5000, 1u << 24);
	frame(BASE + 0x300, 0, 0x6000, 1u << 24);
	r.valid = 0;
	uw_reg_set(&r, UW_ARM_PC, 0xfffffff1);
	uw_reg_set(&r, UW_ARM_SP, BASE + 0x100);
	uw_reg_set(&r, 4, 0x44);
	c = cfg(UW_WALK_CORTEX_M, BASE + 0x300);
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) == 1 &&
	      cur.regs.r[15] == 0x5001 && cur.regs.r[13] == BASE + 0x120 &&
	      cur.source == UW_SRC_EXCFRAME && (cur.flags & UW_FRAME_SIGNAL),
	      "walker: 0xfffffff1 restores the MSP frame at sp");
	ok(uw_reg_get(&cur.regs, 4, &v) && v == 0x44,
	      "walker: r4 (not stacked) kept");
	/* Now stand at another EXC_RETURN, to thread mode on the PSP. */
	uw_reg_set(&cur.regs, UW_ARM_PC, 0xfffffffd);
	ok(uw_step(&cur, &c) == 1 && cur.regs.r[15] == 0x6001 &&
	      cur.regs.r[13] == BASE + 0x320,
	      "walker: 0xfffffffd restores the frame at cm_psp");
	uw_reg_set(&cur.regs, UW_ARM_PC, 0xfffffffd);
	ok(uw_step(&cur, &c) < 0 && cur.stop == UW_STOP_BAD_DATA,
	      "walker: a second return to thread mode is refused");

	c = cfg(UW_WALK_CORTEX_M, 0);
	r.r[15] = 0xfffffffd;
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) < 0 &&
	      cur.stop == UW_STOP_NO_INFO, "walker: PSP frame without cm_psp");
	c = cfg(0, BASE + 0x300);
	r.r[15] = 0xfffffff1;
	ok(uw_cursor_init(&cur, &c, &r) == 0 && uw_step(&cur, &c) <= 0 &&
	      cur.source != UW_SRC_EXCFRAME,
	      "walker: EXC_RETURN is an ordinary address without the flag");
	ok(!uw_cortexm_is_exc_return(0xffffffff) &&
	      uw_cortexm_is_exc_return(0xffffffed),
	      "EXC_RETURN set: 0xffffffff no, 0xffffffed yes");
	ok(strcmp(uw_source_name(UW_SRC_EXCFRAME), "excframe") == 0,
	      "source name");
	v8m();
	return tap_done();
}
