/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The walker's own state in a cursor, private to lib/.
 *
 * struct uw_cursor (uwind.h) shows a host the current frame and keeps
 * the rest in an opaque area of fixed size and alignment: the step in
 * progress, and the scratch that one format's step or one fast loop
 * uses at a time (a step's state lives in the caller's cursor, not on
 * the stack of an NMI or panic handler).  uwi_state() gives that area
 * as struct uwi_state; the asserts below keep the state inside it in
 * every build, so the public layout never depends on the switches.
 */
#ifndef UWIND_LIB_CURSOR_H
#define UWIND_LIB_CURSOR_H

#include <uwind/uwind.h>
#include "compiler.h"

struct uwi_arch;

/*
 * The ARM opcode interpreter's state: the virtual register set and where
 * its opcodes come from (lib/arm_exec.c).
 */
struct uwi_arm_vrs {
	struct uw_regs *regs;
	const struct uw_ehabi *eh;
	struct uw_ehabi_ops *ops;
	const uint8_t *bytes;
	uint32_t nbytes;
	uint32_t off;
	uint32_t vsp;
	bool pc_set;
	bool chrome;
	bool be;		/* the stack's byte order, for pop_block() */
	uint8_t *buf;		/* 64 bytes for a pop's block, or NULL */
};

/* Compact unwind's step (lib/compact_unwind.c): its rule, the values read. */
struct uwi_cu_work {
	struct uw_cu_entry e;
	struct uw_cu_rule r;
	uint64_t val[UW_CU_MAX_SAVED];
	uint64_t cfa, ra, fp, tmp[2];
	const struct uw_cu *cu;
	const struct uw_walk_cfg *cfg;
	uint64_t pc;
	uint64_t bias;
};

/* The step in progress (lib/walk.c), and what a step leaves the next. */
struct uwi_step {
	uint64_t pc, sp;
	uint64_t lookup;		/* the address tables are asked for */
	uint64_t key;			/* the module's cache tag */
	const struct uw_cache_entry *hit; /* a format's cached answer */
	struct uw_cache_entry *fill;	/* the slot a table's answer goes
					 * to, or NULL */
	struct uw_cache_entry *none;	/* the slot saying no table row
					 * covers the frame, or NULL */
	bool ra_in_reg;			/* the return address came from a
					 * register: an unchanged sp is
					 * progress */
	bool sp_guess;			/* uwi_sp_guessed() */
	uint8_t cm_thread;		/* Cortex-M: thread mode reached */
	bool sig_other;			/* the code at pc was read: no
					 * sigreturn trampoline */
	bool arm_keep;			/* the cache's entry for lookup in
					 * module keep_mod is to keep its
					 * opcodes' row (uwi_arm_keep_row()) */
	uint16_t keep_mod;
	uint32_t bp_params, bp_depth;	/* Breakpad STACK WIN: the
					 * .cbParams of the frame at depth
					 * bp_depth, for its caller */
	const struct uw_sframe *row_sf;	/* the scratch row is this table's */
	uint64_t row_pc;		/* ... row for this pc, or row_sf NULL */
};

/*
 * The SFrame fast loop's view of the walk and of the frame's module
 * (lib/walk_fast.c): read in place by the loop, so that its own frame
 * stays small under the lookup a miss makes.
 */
struct uwi_fast {
	const struct uw_walk_cfg *cfg;
	const struct uwi_arch *a;
	const struct uw_module *mod;
	const uint8_t *ents;		/* the cache's slots, or the cursor's
					 * own entry */
	uint64_t mask16, key, mstart, mlen;
	uint64_t lo;			/* the stack bounds: stack_lo, */
	uint64_t last16, last8;		/* the last offsets a 16- and an
					 * 8-byte read may start at */
	const uint8_t *mem;		/* in place: the byte at lo */
	uw_read_fn read;		/* else the accessor */
	void *ctx;
	uint64_t pac, ra, fp;
	struct uw_frame *fill_fr, *fr0;
	size_t fills;
	uint32_t want;
	uint16_t module;
};

/*
 * The ARM fast loop's view of the walk and of the frame's module
 * (lib/walk_fast.c), read in place: the loop's registers are few.
 */
struct uwi_fast_arm {
	const struct uw_walk_cfg *cfg;
	const uint8_t *ents;		/* the cache's slots */
	uint32_t mask16;
	uint32_t mstart, mlen;		/* the module's range */
	uint32_t key_lo, key_hi;	/* its cache key */
	uint32_t srcs;			/* 1 << each source it may take */
	uint32_t lo, last;		/* the stack: stack_lo, the last
					 * offset a byte may be read at */
	uint32_t hi;			/* stack_hi, or 0: none (Chrome) */
	const uint8_t *mem;		/* in place: the byte at lo */
	uw_read_fn read;		/* else the accessor */
	void *ctx;
	uint64_t tmp;
	uint16_t module;
	bool sig;			/* the walk probes for trampolines */
};

/* What one step or one fast loop uses at a time. */
union uwi_scratch {
	struct uw_row row;
	struct {
		struct uw_row row;
		struct uw_cache_entry e;
		uint8_t buf[16];
		struct uwi_fast v;
	} fast;
	struct {
		struct uw_ehabi_entry e;
		struct uwi_arm_vrs vrs;
		struct uw_ehabi_ops ops0;	/* where e's opcodes start */
		uint8_t buf[64];		/* vrs.buf */
	} ehabi;
	struct {
		struct uw_chrome_loc loc;
		struct uwi_arm_vrs vrs;
		uint8_t buf[64];		/* vrs.buf */
	} chrome;
	struct {
		uint8_t buf[64];	/* a cached ARM row's popped words */
		uint32_t r[16];		/* the ARM loop's r0-r15 */
		struct uwi_fast_arm v;
	} arm;
	struct uwi_cu_work cu;
	struct uw_bp_work bp;
};

/*
 * The cursor's private area.  may_alias: the area is declared as bytes
 * in uwind.h and used as this structure only here.
 */
struct uwi_state {
	struct uwi_step step;
	union uwi_scratch scratch;
} uwi_may_alias;

_Static_assert(sizeof(struct uwi_state) <=
	       sizeof(((struct uw_cursor *)0)->priv),
	       "the walker's state outgrew struct uw_cursor's private area");
_Static_assert(_Alignof(struct uwi_state) <=
	       _Alignof(struct uw_cursor),
	       "the walker's state needs more alignment than uw_cursor has");

static uwi_always_inline struct uwi_state *uwi_state(struct uw_cursor *cur)
{
	return (struct uwi_state *)(void *)&cur->priv;
}

static uwi_always_inline const struct uwi_state *
uwi_cstate(const struct uw_cursor *cur)
{
	return (const struct uwi_state *)(const void *)&cur->priv;
}

#endif /* UWIND_LIB_CURSOR_H */
