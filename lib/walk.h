/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Walker internals shared between the lib/ files (never installed: the
 * uwi_ prefix marks them).
 *
 * A step (uw_step()) runs named phases in the order the architecture
 * table gives, until one of them takes the frame:
 *
 *   excframe  a Cortex-M exception boundary (an EXC_RETURN value as pc)
 *   sigframe  a Linux sigreturn trampoline at pc
 *   tables    the tables of the frame's module, format by format in the
 *             order of lib/formats.h
 *   fp        the frame-pointer record
 *
 * and then commits: checks that the step made progress, counts the
 * frame and finds the module of the caller's pc, once.
 */
#ifndef UWIND_LIB_WALK_H
#define UWIND_LIB_WALK_H

#include <uwind/config.h>
#include <uwind/uwind.h>
#include "compiler.h"

/*
 * What a phase, and a format's step, returns when it does not fail (a
 * negative UW_E* code): whether it took the frame, and how.
 */
enum uwi_res {
	UWI_NEXT = 0,		/* not this phase's frame: try the next */
	UWI_STEPPED,		/* the cursor holds the caller of a call */
	UWI_RESTORED,		/* ... restored whole from a saved context
				 * (signal or exception frame): its pc is
				 * exact, and it may be on another stack */
	UWI_OUTERMOST,		/* the table marks the outermost frame */
	UWI_CHAIN_END,		/* a zero frame pointer ends the chain */
};

/* The phases of a step (see above); 0 ends an architecture's list. */
enum uwi_phase {
	UWI_PHASE_END = 0,
	UWI_PHASE_EXCFRAME,
	UWI_PHASE_SIGFRAME,
	UWI_PHASE_TABLES,
	UWI_PHASE_FP,
};

#define UWI_NPHASES	4

/* Frame-pointer records: none, [fp] = caller's fp and [fp + word] = ra, ARM. */
enum uwi_fp_kind {
	UWI_FP_NONE = 0,
	UWI_FP_PAIR,
	UWI_FP_ARM,
};

/* An architecture: its registers, its phase order, its frame records. */
struct uwi_arch {
	struct uw_arch_info info;
	uint8_t fp_kind;		/* enum uwi_fp_kind */
	uint8_t thumb;			/* bit 0 of a code address: Thumb */
	int16_t sp_from_cfa;		/* the caller's sp is CFA + this */
	uint8_t phases[UWI_NPHASES];	/* enum uwi_phase, in order */
};

/* The architecture, or NULL when unknown or left out of the build. */
const struct uwi_arch *uwi_arch_get(enum uw_arch arch);

/* A code address: ARM keeps the Thumb state in bit 0, not an address bit. */
static inline uint64_t uwi_code_addr(const struct uwi_arch *a, uint64_t pc)
{
	return a->thumb ? pc & ~(uint64_t)1 : pc;
}

/*
 * UW_WALK_DIRECT_STACK: whether the walk's stack bounds can be read in
 * place: set, not empty, and a range this address space can hold (at an
 * address other than 0 when the stack is read where it lies).
 */
static uwi_always_inline bool uwi_direct_ok(const struct uw_walk_cfg *cfg)
{
	return cfg->stack_lo < cfg->stack_hi &&
	       cfg->stack_hi - cfg->stack_lo - 1 <= (size_t)-1 &&
	       (cfg->stack_mem ||
		(cfg->stack_lo && cfg->stack_hi - 1 <= (uintptr_t)-1));
}

/*
 * UW_WALK_DIRECT_STACK: where the len bytes at addr of the program's
 * stack are in this address space, or NULL when they are not all within
 * the bounds (or the bounds are unusable: see uwi_direct_ok()).
 */
static uwi_always_inline const uint8_t *
uwi_direct(const struct uw_walk_cfg *cfg, uint64_t addr, unsigned int len)
{
	const uint8_t *base = cfg->stack_mem;
	uint64_t off = addr - cfg->stack_lo;

	if (!uwi_direct_ok(cfg) || addr < cfg->stack_lo ||
	    cfg->stack_hi - cfg->stack_lo < len ||
	    off > cfg->stack_hi - cfg->stack_lo - len)
		return NULL;
	if (!base)
		base = (const uint8_t *)(uintptr_t)cfg->stack_lo;
	return base + (size_t)off;
}

/* Read one size-byte word of program memory, in the program's byte order. */
uwi_must_check int uwi_read_word(const struct uw_walk_cfg *cfg,
				 unsigned int size, uint64_t addr,
				 uint64_t *v);

/* Copy a register set without a struct assignment (no memcpy call). */
static inline void uwi_regs_copy(struct uw_regs *dst,
				 const struct uw_regs *src)
{
	unsigned int i;

	for (i = 0; i < UW_NREGS; i++)
		dst->r[i] = src->r[i];
	dst->valid = src->valid;
}

/*
 * Apply a row a table gave for the cursor's frame: UWI_STEPPED,
 * UWI_OUTERMOST or an error.  Row-based formats call it.
 */
int uwi_apply_row(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		  const struct uwi_arch *a, const struct uw_row *row);

/*
 * If the cursor's pc is a Linux sigreturn trampoline, restore the
 * interrupted registers from the signal frame at its sp: UWI_RESTORED,
 * UWI_NEXT (not a trampoline) or an error.  *other is set when the
 * code at pc was read and is no trampoline (with UWI_NEXT), left alone
 * otherwise (unread code may be one later).  lib/sigframe.c.
 */
int uwi_sigframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		      bool *other);

/*
 * Cortex-M: the cursor's pc is an EXC_RETURN value; restore the
 * interrupted registers from the exception frame it names: UWI_RESTORED
 * or an error.  lib/cortexm.c.
 */
int uwi_cortexm_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg);

/*
 * ARM frame records (lib/walk_arm.c): UWI_STEPPED, UWI_CHAIN_END or an
 * error.
 */
int uwi_arm_fp_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg);

/*
 * The walker's cache (include/uwind/cache.h, lib/cache.c).  A format's
 * step takes a cached answer with uwi_cache_hit() (checking it as if it
 * came from outside, and looking pc up when it will not do), and after a
 * lookup writes its answer into uwi_cache_fill()'s slot, if any, then
 * tags it with uwi_cache_tag().  A format whose answers are not worth
 * keeping fills nothing.
 */
static inline uint64_t uwi_cache_key(const struct uw_module *m)
{
	return (uint64_t)m->cache_id << 32 | m->cache_gen;
}

/*
 * Fibonacci hashing of the pc's low 32 bits (one 32-bit multiply by an
 * immediate): call sites sit a few bytes apart.
 */
static inline struct uw_cache_entry *
uwi_cache_slot_in(struct uw_cache_entry *entries, uint32_t mask, uint64_t pc)
{
	return &entries[(((uint32_t)pc * 0x9e3779b1u) >> 8) & mask];
}

static inline struct uw_cache_entry *uwi_cache_slot(const struct uw_cache *c,
						   uint64_t pc)
{
	return uwi_cache_slot_in(c->entries, c->mask, pc);
}

static inline const struct uw_cache_entry *
uwi_cache_hit(const struct uw_cursor *cur, uint8_t src)
{
	const struct uw_cache_entry *e = cur->step.hit;

	return UW_HAS_CACHE && e && e->src == src ? e : NULL;
}

static inline struct uw_cache_entry *uwi_cache_fill(const struct uw_cursor *cur)
{
	return UW_HAS_CACHE ? cur->step.fill : NULL;
}

/*
 * An SFrame row kept: its rules, and whether it has a shape the walker's
 * fast path takes (lib/walk.c, fast_run()): the CFA at sp or fp +
 * offset, the return address saved, and the frame pointer
 *   - saved at the CFA + pair_off, the return address in the word above
 *     it (every x86-64 and AArch64 frame record), or
 *   - not saved (UWI_SHAPE_SAMEFP: code built without frame pointers,
 *     most frames of an -O2 program), or
 *   - saved apart (UWI_SHAPE_FPAPART: such code using it as a
 *     callee-saved register), at the CFA + u.rule[2].off;
 * in the last two, the return address is at the CFA + pair_off.  fast is
 * UWI_FAST_ON with the architecture (one compare checks both), and
 * says which of the loop's three paths takes the row: a plain frame
 * record (nothing more), UWI_FAST_SAMEFP (the return address alone,
 * unsigned) or UWI_FAST_OTHER (see shape); shape the details.
 */
enum {
	UWI_FAST_ON	= 0x80,		/* fast: | enum uw_arch */
	UWI_FAST_SAMEFP	= 0x40,		/* fast: fp not saved, ra not signed */
	UWI_FAST_OTHER	= 0x20,		/* fast: see shape */
	UWI_SHAPE_FP	= 0x01,		/* shape: the CFA is fp + offset, else sp */
	UWI_SHAPE_PAC	= 0x02,		/* shape: the return address is signed */
	UWI_SHAPE_SAMEFP = 0x04,	/* shape: fp not saved */
	UWI_SHAPE_FPAPART = 0x08,	/* shape: fp saved apart */
};

/*
 * The fast byte of a row (0: no fast shape), its shape bits and the
 * offset from the CFA of what the fast path reads (0 and 0 when none).
 * arch is the walk's, which uwi_arch_get() accepted: below
 * UWI_FAST_OTHER.  The fast path runs only on architectures with 8-byte
 * words (fast_on()), so a row of another is never taken there, whatever
 * its bits.
 */
_Static_assert((int)UW_ARCH_COUNT <= (int)UWI_FAST_OTHER,
	       "fast: ON | SAMEFP | OTHER | arch");

static inline uint8_t uwi_fast_byte(const struct uw_row *row,
				    const struct uw_arch_info *ai,
				    uint8_t arch, uint8_t *shape, int32_t *off)
{
	uint8_t s = 0;

	*shape = 0;
	*off = 0;
	if (row->cfa.kind != UW_RULE_REG_OFF ||
	    row->ra.kind != UW_RULE_CFA_OFF ||
	    (row->flags & UW_ROW_OUTERMOST))
		return 0;
	if (row->cfa.reg == ai->fp)
		s = UWI_SHAPE_FP;
	else if (row->cfa.reg != ai->sp)
		return 0;
	if (row->fp.kind == UW_RULE_SAME)
		s |= UWI_SHAPE_SAMEFP;
	else if (row->fp.kind != UW_RULE_CFA_OFF)
		return 0;
	else if ((int64_t)row->ra.off - row->fp.off != 8)
		s |= UWI_SHAPE_FPAPART;
	if (row->flags & UW_ROW_RA_MANGLED)
		s |= UWI_SHAPE_PAC;
	*shape = s;
	/* A frame record is read from fp's slot, the others from ra's. */
	*off = s & (UWI_SHAPE_SAMEFP | UWI_SHAPE_FPAPART) ? row->ra.off :
							     row->fp.off;
	s &= (uint8_t)~UWI_SHAPE_FP;
	return UWI_FAST_ON | arch | (s == UWI_SHAPE_SAMEFP ? UWI_FAST_SAMEFP :
				     s ? UWI_FAST_OTHER : 0);
}

/* What the fast path reads of an entry: its CFA rule and the fast bits. */
static inline void uwi_cache_fast(struct uw_cache_entry *e,
				  const struct uw_row *row,
				  const struct uw_arch_info *ai, uint8_t arch)
{
	e->u.rule[0] = row->cfa;
	e->fast = uwi_fast_byte(row, ai, arch, &e->shape, &e->pair_off);
}

/* The whole row, for the general path's cached_row() too. */
static inline void uwi_cache_row(struct uw_cache_entry *e,
				 const struct uw_row *row,
				 const struct uw_arch_info *ai, uint8_t arch)
{
	uwi_cache_fast(e, row, ai, arch);
	e->u.rule[1] = row->ra;
	e->u.rule[2] = row->fp;
	e->flags = (uint8_t)row->flags;
}

/*
 * A "no table row" entry (UW_SRC_NONE) of a frame whose pc is a return
 * address (the entry's pc + 1) also keeps, in its flags, that the code
 * there is no sigreturn trampoline: the frame-pointer fallback's frames
 * then skip reading their code (lib/walk.c, phase_sigframe()).  A wrong
 * bit (a cache overwritten) can only make a signal frame be walked with
 * frame pointers.
 */
#define UWI_CACHE_NO_SIGFRAME	0x01

static inline void uwi_cache_tag(struct uw_cursor *cur,
				 struct uw_cache_entry *e, uint8_t src,
				 uint8_t flags)
{
	e->src = src;
	e->flags = flags;
	if (src != UW_SRC_SFRAME)
		e->fast = 0;
	e->pc = cur->step.lookup;
	e->key = cur->step.key;
	cur->step.fill = NULL;
}

#include "formats.h"

#endif /* UWIND_LIB_WALK_H */
