/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Walker internals shared between the lib/ files (never installed: the
 * uwi_ prefix marks them).
 *
 * A step (uw_step(), lib/walk.c) runs named phases in the order the
 * architecture table gives, until one of them takes the frame:
 *
 *   excframe  a Cortex-M exception boundary (an EXC_RETURN value as pc)
 *   sigframe  a Linux sigreturn trampoline at pc
 *   tables    the tables of the frame's module, format by format in the
 *             order of lib/formats.h
 *   fp        the frame-pointer record
 *
 * and then commits: checks that the step made progress, counts the
 * frame and finds the module of the caller's pc, once.  uw_walk() also
 * has fast loops (lib/walk_fast.c) that take many frames of two common
 * kinds at a time.  Both obey the rules below, each written once; the
 * README's "Inside the walker" lists every path a frame can take.
 */
#ifndef UWIND_LIB_WALK_H
#define UWIND_LIB_WALK_H

#include <uwind/config.h>
#include <uwind/uwind.h>
#include "compiler.h"
#include "cursor.h"
#include "span.h"

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
	uint64_t frame_regs;		/* the pc, sp and fp bits of a
					 * register set's valid mask */
};

/* The architecture, or NULL when unknown or left out of the build. */
const struct uwi_arch *uwi_arch_get(enum uw_arch arch);

/* A code address: ARM keeps the Thumb state in bit 0, not an address bit. */
static inline uint64_t uwi_code_addr(const struct uwi_arch *a, uint64_t pc)
{
	return a->thumb ? pc & ~(uint64_t)1 : pc;
}

/* ---- the rules of a step ----
 *
 * Each rule every step obeys is one function here, used by the general
 * step (lib/walk.c) and by the fast loops (lib/walk_fast.c), so that a
 * rule is fixed in one place.  A fast loop that may skip a check does
 * so under a named condition its head comment documents (UWI_FAST_*),
 * never by writing the check again.
 */

/*
 * Rule: a frame's pc is exact (the first frame's, or one restored from
 * a signal or exception context), else a return address: the call is
 * the instruction before it.
 */
static uwi_always_inline bool uwi_pc_exact(uint32_t depth, uint8_t flags)
{
	return depth == 0 || (flags & UW_FRAME_SIGNAL);
}

/*
 * Rule: the cursor's frame was reached by a frame-record step (its
 * source, until the next step begins, is UW_SRC_FP) on an architecture
 * whose [fp], [fp + word] records do not give the caller's sp: one with
 * a link register, whose calls push nothing.  x86's do: the record is
 * pushed where the call left its return address, so the caller's sp is
 * the record's address plus two words.  AArch64's do not: GCC stores the
 * record at the bottom of a frame, its locals above it, so the record's
 * address plus 16 is the caller's sp only for a 16-byte frame.  Such a
 * frame's sp is a guess (the SFrame loop does not take the frame), and
 * a table row based on sp would read the wrong slots when the callee's
 * frame was larger: see uwi_row_at_record().
 */
static uwi_always_inline bool uwi_sp_guessed(const struct uw_cursor *cur,
					     const struct uwi_arch *a)
{
	return cur->source == UW_SRC_FP && a->fp_kind == UWI_FP_PAIR &&
	       a->info.has_lr;
}

/*
 * Rule: in a frame whose sp is a guess (uwi_sp_guessed()), a row with
 * the CFA at sp + N that saves a frame record (the caller's fp at
 * CFA + k, the return address above it) has its CFA at fp - k: the
 * frame's fp, which the callee's record gave exactly, points at that
 * record (AAPCS64 frame chains; GCC's prologue "stp x29, x30, [sp, -N]!;
 * mov x29, sp").  A row based on fp needs no sp, and any other is
 * applied at the guess, right when the callee's frame was 16 bytes.
 * The row is rewritten so (the table's, looked up for the step without
 * the cache).
 */
static uwi_always_inline void uwi_row_at_record(struct uw_row *row,
						const struct uw_arch_info *ai)
{
	if (row->cfa.kind == UW_RULE_REG_OFF && row->cfa.reg == ai->sp &&
	    row->ra.kind == UW_RULE_CFA_OFF &&
	    row->fp.kind == UW_RULE_CFA_OFF && row->fp.off < 0 &&
	    (int64_t)row->ra.off == (int64_t)row->fp.off + ai->ptr_size) {
		row->cfa.reg = (uint8_t)ai->fp;
		row->cfa.off = -row->fp.off;
	}
}

/*
 * Rule: the address a frame's tables are searched for: its code address,
 * less 1 for a return address (inside the call rather than after it: a
 * call may be the last instruction of a function).
 */
static uwi_always_inline uint64_t uwi_lookup_pc(uint64_t code, bool exact)
{
	return exact || code == 0 ? code : code - 1;
}

/*
 * Rule: the depth limit.  A step from a frame at depth d (d steps taken)
 * is allowed while d is below this: max_depth frames at most, the first
 * one taking no step.
 */
static uwi_always_inline uint32_t
uwi_depth_limit(const struct uw_walk_cfg *cfg)
{
	return cfg->max_depth ? cfg->max_depth - 1 : 0xffffffffu;
}

/*
 * Rule: a call's caller lies above it.  The caller's sp must be above
 * the callee's (equal only when the return address came from a
 * register, as in an AArch64 leaf: uwi_caller_above(), else
 * UW_ENOPROGRESS) and aligned to a word of w bytes (uwi_sp_aligned(),
 * else UW_EALIGN).  Not for a frame restored from a signal or exception
 * context, which may be on another stack.
 */
static uwi_always_inline bool uwi_caller_above(uint64_t callee_sp,
					       uint64_t sp, bool ra_in_reg)
{
	return sp > callee_sp || (sp == callee_sp && ra_in_reg);
}

static uwi_always_inline bool uwi_sp_aligned(uint64_t sp, unsigned int w)
{
	return !(sp & (w - 1));
}

/* Rule: the same pc on the same stack would be the same frame again. */
static uwi_always_inline bool uwi_same_frame(uint64_t pc0, uint64_t sp0,
					     uint64_t pc, uint64_t sp)
{
	return pc == pc0 && sp == sp0;
}

/* Rule: a return address of 0 ends the walk, after its frame. */
static uwi_always_inline bool uwi_ra_ends(uint64_t ra)
{
	return ra == 0;
}

/*
 * Rule: the AArch64 pointer-authentication bits a return address loses
 * (&struct uw_walk_cfg.pac_mask; none elsewhere): those of a row marked
 * signed, of a frame record (code built with pac-ret saves lr signed
 * there), of Breakpad's and compact unwind's rules.
 */
static uwi_always_inline uint64_t uwi_pac_bits(const struct uw_walk_cfg *cfg)
{
	return cfg->arch == UW_ARCH_AARCH64 ? cfg->pac_mask : 0;
}

static uwi_always_inline uint64_t uwi_strip_pac(uint64_t ra, uint64_t bits)
{
	return ra & ~bits;
}

/*
 * Rule: a frame record ([fp] = the caller's fp, [fp + w] = the return
 * address; the caller's sp, the CFA, is fp + 2w) may be read at fp: 0,
 * UWI_CHAIN_END (fp 0: the chain's end), UW_EALIGN or UW_EOVERFLOW.
 */
static uwi_always_inline int uwi_fp_record(uint64_t fp, unsigned int w)
{
	if (fp == 0)
		return UWI_CHAIN_END;
	if (fp & (w - 1))
		return UW_EALIGN;
	if (fp > ~(uint64_t)0 - 2 * w)
		return UW_EOVERFLOW;
	return 0;
}

/*
 * Rule: a module holds the pcs in [start, end).  For a module that holds
 * a pc already (the one uwi_find_module() found for the frame just
 * unwound, or for the loop's frame), whose start is below its end.
 */
static uwi_always_inline bool uwi_in_module(uint64_t start, uint64_t end,
					    uint64_t pc)
{
	return pc - start < end - start;
}

/*
 * Rule: the stack bounds.  When a walk has them (stack_hi not 0), a read
 * of len bytes at addr must lie in [stack_lo, stack_hi):
 * uwi_stack_has().  A loop that reads many words of the same length
 * finds, once, the last offset from stack_lo where one may start
 * (uwi_stack_last(): false when no read of len bytes fits), and checks
 * each read's offset addr - stack_lo against it (uwi_stack_in()): the
 * same rule, since stack_lo <= stack_hi - len there.
 */
static uwi_always_inline bool uwi_stack_has(uint64_t lo, uint64_t hi,
					    uint64_t addr, unsigned int len)
{
	return addr >= lo && hi >= len && addr <= hi - len;
}

static uwi_always_inline bool uwi_stack_last(const struct uw_walk_cfg *cfg,
					     unsigned int len, uint64_t *last)
{
	if (cfg->stack_hi < len || cfg->stack_lo > cfg->stack_hi - len)
		return false;
	*last = cfg->stack_hi - len - cfg->stack_lo;
	return true;
}

static uwi_always_inline bool uwi_stack_in(uint64_t off, uint64_t last)
{
	return off <= last;
}

/* ... for a read through the accessor: without bounds, any. */
static uwi_always_inline bool uwi_in_stack(const struct uw_walk_cfg *cfg,
					   uint64_t addr, unsigned int len)
{
	return !cfg->stack_hi ||
	       uwi_stack_has(cfg->stack_lo, cfg->stack_hi, addr, len);
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

/* UW_WALK_DIRECT_STACK: where the stack's byte at stack_lo is. */
static uwi_always_inline const uint8_t *
uwi_direct_base(const struct uw_walk_cfg *cfg)
{
	if (cfg->stack_mem)
		return cfg->stack_mem;
	return (const uint8_t *)(uintptr_t)cfg->stack_lo;
}

/*
 * UW_WALK_DIRECT_STACK: where the len bytes at addr of the program's
 * stack are in this address space, or NULL when they are not all within
 * the bounds (or the bounds are unusable: see uwi_direct_ok()).
 */
static uwi_always_inline const uint8_t *
uwi_direct(const struct uw_walk_cfg *cfg, uint64_t addr, unsigned int len)
{
	if (!uwi_direct_ok(cfg) ||
	    !uwi_stack_has(cfg->stack_lo, cfg->stack_hi, addr, len))
		return NULL;
	return uwi_direct_base(cfg) + (size_t)(addr - cfg->stack_lo);
}

/*
 * Rule: program memory is read only through the walk's accessor (read,
 * with its ctx), which may fail: 0 or its failure.  A host may give the
 * core its accessor's body at compile time (env.h: UW_ENV_READ names
 * the accessor, UW_ENV_READ_INLINE the same read inline): a walk whose
 * accessor is that one then reads inline, without an indirect call;
 * any other accessor is called as always.
 */
static uwi_always_inline int uwi_mem_read(uw_read_fn read, void *ctx,
					  uint64_t addr, void *dst, size_t len)
{
#ifdef UW_ENV_READ
	if (read == UW_ENV_READ)
		return UW_ENV_READ_INLINE(ctx, addr, dst, len);
#endif
	return read(ctx, addr, dst, len);
}

/* Index of the module whose text holds pc, or UW_NO_MODULE (walk.c). */
uint16_t uwi_find_module(const struct uw_walk_cfg *cfg, uint64_t pc);

/* Read one size-byte word of the program's stack, in its byte order. */
uwi_must_check int uwi_read_word(const struct uw_walk_cfg *cfg,
				 unsigned int size, uint64_t addr,
				 uint64_t *v);

/*
 * len bytes of the program's stack at addr, with one bounds check and
 * one call of the accessor (into buf, of len bytes) or in place: where
 * they are, or NULL when out of bounds or unreadable (the caller then
 * reads word by word, which says how).
 */
const uint8_t *uwi_read_block(const struct uw_walk_cfg *cfg, uint64_t addr,
			      unsigned int len, uint8_t *buf);

/*
 * Rule: the caller a row or a frame record gives: its pc, its sp and,
 * when known, its fp; every other register unknown (a row says nothing
 * about them).
 */
static uwi_always_inline void uwi_set_caller(struct uw_regs *regs,
					     const struct uwi_arch *a,
					     uint64_t pc, uint64_t sp,
					     uint64_t fp, bool fp_known)
{
	const struct uw_arch_info *ai = &a->info;

	regs->valid = a->frame_regs;
	regs->r[ai->pc] = pc;
	regs->r[ai->sp] = sp;
	if (fp_known)
		regs->r[ai->fp] = fp;
	else
		regs->valid &= ~((uint64_t)1 << ai->fp);
}

/*
 * Rule: a frame's record.  uwi_frame_set() writes its pc and sp when the
 * walk reaches it; uwi_frame_step() the rest once its own step is known:
 * its CFA (0 if not unwound) and, as one 32-bit word (uwi_frame_tag()),
 * how it was unwound to its caller, its flags and its module.  The
 * general step writes a frame whole before its step (uwi_frame_new(),
 * not unwound yet) and its step after (uwi_frame_unwound()).
 */
_Static_assert(__builtin_offsetof(struct uw_frame, flags) ==
	       __builtin_offsetof(struct uw_frame, source) + 1 &&
	       __builtin_offsetof(struct uw_frame, module) ==
	       __builtin_offsetof(struct uw_frame, source) + 2,
	       "uwi_frame_tag(): source, flags, module in four bytes");

static uwi_always_inline uint32_t uwi_frame_tag(uint8_t source, uint8_t flags,
						uint16_t module)
{
	const union {
		struct {
			uint8_t source, flags;
			uint16_t module;
		} f;
		uint32_t u;
	} tag = { { source, flags, module } };

	return tag.u;
}

static uwi_always_inline void uwi_frame_set(struct uw_frame *f, uint64_t pc,
					    uint64_t sp)
{
	f->pc = pc;
	f->sp = sp;
}

static uwi_always_inline void uwi_frame_step(struct uw_frame *f,
					     uint64_t cfa, uint32_t tag)
{
	f->cfa = cfa;
	__builtin_memcpy(&f->source, &tag, sizeof(tag));
}

static uwi_always_inline void uwi_frame_new(struct uw_frame *f, uint64_t pc,
					    uint64_t sp, uint8_t flags,
					    uint16_t module)
{
	uwi_frame_set(f, pc, sp);
	f->cfa = 0;
	f->source = UW_SRC_NONE;
	f->flags = flags;
	f->module = module;
}

/* ... or, its flags and module recorded already, the step alone. */
static uwi_always_inline void uwi_frame_unwound(struct uw_frame *f,
						uint64_t cfa, uint8_t source)
{
	f->cfa = cfa;
	f->source = source;
}

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
 * A cached ARM row (UWI_CACHE_ARM_ROW, an entry of the frame's module
 * mod) applied to the cursor's frame, as the opcodes it was made from
 * would: UWI_STEPPED (or Chrome's UW_EALIGN), or UWI_NEXT when the
 * opcodes must run instead (they may fail, and say how).
 * lib/walk_arm.c.
 */
int uwi_arm_row_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		     const struct uw_module *mod,
		     const struct uw_cache_entry *e);

/*
 * After an ARM format's step gave a frame and asked (step.arm_keep):
 * the row of the opcodes it ran into the cache's entry for the step's
 * lookup, if they are one.  lib/walk_arm.c.
 */
void uwi_arm_keep_row(struct uw_cursor *cur, const struct uw_walk_cfg *cfg);

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
 * The slot of a lookup address: Fibonacci hashing of its low 32 bits
 * (one 32-bit multiply by an immediate: call sites sit a few bytes
 * apart), slot (hash >> 8) & mask.  ents are the slots' bytes and mask16
 * the mask << 4: slot i is at byte ((hash >> 4) & mask16) * 3, one
 * shift fewer.
 */
_Static_assert(sizeof(struct uw_cache_entry) == 48,
	       "uwi_cache_slot_at() scales by 48");

static uwi_always_inline struct uw_cache_entry *
uwi_cache_slot_at(const uint8_t *ents, uint64_t mask16, uint64_t lookup)
{
	uint64_t off = (((uint32_t)lookup * 0x9e3779b1u) >> 4) & mask16;

	return (struct uw_cache_entry *)(uintptr_t)(ents + off * 3);
}

static inline struct uw_cache_entry *uwi_cache_slot(const struct uw_cache *c,
						   uint64_t lookup)
{
	return uwi_cache_slot_at((const uint8_t *)c->entries,
				 (uint64_t)c->mask << 4, lookup);
}

/*
 * Rule: a cache entry answers for this lookup address of this module.
 * Likely: a warm cache answers most steps (each test its own hint, so
 * that the compiler keeps the hit's path straight).
 */
static uwi_always_inline bool uwi_cache_is(const struct uw_cache_entry *e,
					   uint64_t lookup, uint64_t key)
{
	return uwi_likely(e->pc == lookup) && uwi_likely(e->key == key);
}

static inline const struct uw_cache_entry *
uwi_cache_hit(const struct uw_cursor *cur, uint8_t src)
{
	const struct uw_cache_entry *e = uwi_cstate(cur)->step.hit;

	return UW_HAS_CACHE && e && e->src == src ? e : NULL;
}

static inline struct uw_cache_entry *uwi_cache_fill(const struct uw_cursor *cur)
{
	return UW_HAS_CACHE ? uwi_cstate(cur)->step.fill : NULL;
}

/*
 * A "no table row" entry (UW_SRC_NONE) of a frame whose pc is a return
 * address (the entry's pc + 1) also keeps, in its flags, that the code
 * there is no sigreturn trampoline.  A wrong bit (a cache overwritten)
 * can only make a signal frame be walked with frame pointers.
 */
#define UWI_CACHE_NO_SIGFRAME	0x01

/*
 * Rule: the frame-pointer fallback's frames skip reading their code for
 * a trampoline (the costliest read a kernel walk makes) when the cache
 * knows there is none: e, an entry for lookup (uwi_cache_is()), says so
 * of the return address pc.
 */
static uwi_always_inline bool
uwi_cache_no_sigframe(const struct uw_cache_entry *e, uint64_t lookup,
		      uint64_t pc)
{
	return lookup + 1 == pc && e->src == UW_SRC_NONE &&
	       (e->flags & UWI_CACHE_NO_SIGFRAME);
}

/*
 * An ARM entry (UW_SRC_EHABI or UW_SRC_CHROME) keeps where its opcodes
 * are (u.w[0], and for EHABI u.w[1]) and, when they reduce to one fixed
 * row (UWI_CACHE_ARM_ROW: see struct uwi_arm_row, lib/arm_exec.h), that
 * row in u.w[2..4].  UWI_CACHE_NO_SIGFRAME then says that the code at
 * the return address (the entry's pc + 1, in the instruction set
 * UWI_CACHE_ARM_THUMB names) was read and is no sigreturn trampoline:
 * set only from a step whose probe said so.
 */
#define UWI_CACHE_ARM_ROW	0x02
#define UWI_CACHE_ARM_THUMB	0x04
#define UWI_CACHE_ARM_NOROW	0x08	/* decoded once: no row */

/*
 * Rule: the ARM trampoline probe may be skipped for a frame whose pc is
 * a return address (lookup + 1 its code address) when e, an entry for
 * lookup (uwi_cache_is()), is a row that says the code there, in the
 * same instruction set (thumb: pc's bit 0), is no trampoline:
 * uwi_cache_arm_nosig(), the entry's part uwi_arm_row_nosig().
 */
static uwi_always_inline bool uwi_arm_row_nosig(const struct uw_cache_entry *e,
						uint32_t thumb)
{
	const unsigned int want = UWI_CACHE_ARM_ROW | UWI_CACHE_NO_SIGFRAME;

	return (e->flags & (want | UWI_CACHE_ARM_THUMB)) ==
	       (want | (thumb & 1 ? UWI_CACHE_ARM_THUMB : 0));
}

static uwi_always_inline bool uwi_cache_arm_nosig(const struct uw_cache_entry *e,
						  uint64_t lookup, uint64_t pc)
{
	return lookup + 1 == (pc & ~(uint64_t)1) &&
	       uwi_arm_row_nosig(e, (uint32_t)pc);
}

/*
 * An SFrame row kept: its rules, and whether it has a shape the walker's
 * SFrame fast loop takes (lib/walk_fast.c): the CFA at sp or fp +
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
 * offset from the CFA of what the fast loop reads (0 and 0 when none).
 * arch is the walk's, which uwi_arch_get() accepted: below
 * UWI_FAST_OTHER.  The fast loop runs only on architectures with 8-byte
 * words, so a row of another is never taken there, whatever its bits.
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

/* What the fast loop reads of an entry: its CFA rule and the fast bits. */
static inline void uwi_cache_fast(struct uw_cache_entry *e,
				  const struct uw_row *row,
				  const struct uw_arch_info *ai, uint8_t arch)
{
	e->u.rule[0] = row->cfa;
	e->fast = uwi_fast_byte(row, ai, arch, &e->shape, &e->pair_off);
}

/* The whole row, for the general step's cached_row() too. */
static inline void uwi_cache_row(struct uw_cache_entry *e,
				 const struct uw_row *row,
				 const struct uw_arch_info *ai, uint8_t arch)
{
	uwi_cache_fast(e, row, ai, arch);
	e->u.rule[1] = row->ra;
	e->u.rule[2] = row->fp;
	e->flags = (uint8_t)row->flags;
}

static inline void uwi_cache_tag(struct uw_cursor *cur,
				 struct uw_cache_entry *e, uint8_t src,
				 uint8_t flags)
{
	struct uwi_step *st = &uwi_state(cur)->step;

	e->src = src;
	e->flags = flags;
	if (src != UW_SRC_SFRAME)
		e->fast = 0;
	e->pc = st->lookup;
	e->key = st->key;
	st->fill = NULL;
}

/*
 * The fast loops (lib/walk_fast.c, UW_HAS_FAST), which uw_walk() and
 * uw_walk_more() run before each general step: the callers of the
 * cursor's frame (its registers regs: the cursor's, or uw_walk()'s
 * first), recorded in fr[-1] (frames[n - 1]), into fr[0..fend - fr)
 * (frames[n..max)) while the loop takes them.  uwi_fast_sframe()
 * returns the frames it took, uwi_fast_fp() the frames written in all
 * (n when it took none); the cursor then holds the last one, as the
 * general step leaves it.
 */
/* UWI_FAST_ARCH (lib/walk_fast.c): x86-64 and AArch64. */
static uwi_always_inline bool uwi_fast_arch(const struct uwi_arch *a)
{
	/* 8-byte words: not ARM, the one with a Thumb bit (arch.c). */
	return a->info.ptr_size == 8 && a->sp_from_cfa == 0 &&
	       a->phases[0] == UWI_PHASE_TABLES;
}

/*
 * Whether the SFrame loop may run for this walk: the architecture
 * (UWI_FAST_ARCH), the stack mode it has a copy for, and the frame's pc,
 * sp and fp known (UWI_FAST_FP_KNOWN: a frame whose fp is unknown, rare,
 * takes the general step, which keeps it so).
 */
static uwi_always_inline bool uwi_sframe_on(const struct uw_regs *regs,
					const struct uw_walk_cfg *cfg,
					const struct uwi_arch *a)
{
	return UW_HAS_SFRAME && uwi_fast_arch(a) &&
	       !(cfg->flags & UW_WALK_NO_FAST) &&
	       ((cfg->flags & UW_WALK_DIRECT_STACK) ? UW_HAS_FAST_DIRECT :
		cfg->mem.read != NULL) &&
	       (regs->valid & a->frame_regs) == a->frame_regs;
}

size_t uwi_fast_sframe_direct(struct uw_cursor *cur,
			      const struct uw_walk_cfg *cfg,
			      const struct uwi_arch *a,
			      const struct uw_regs *regs,
			      struct uw_frame *fr, struct uw_frame *fend);
size_t uwi_fast_sframe_direct_nocache(struct uw_cursor *cur,
				      const struct uw_walk_cfg *cfg,
				      const struct uwi_arch *a,
				      const struct uw_regs *regs,
				      struct uw_frame *fr,
				      struct uw_frame *fend);
size_t uwi_fast_sframe_mem(struct uw_cursor *cur,
			   const struct uw_walk_cfg *cfg,
			   const struct uwi_arch *a,
			   const struct uw_regs *regs,
			   struct uw_frame *fr, struct uw_frame *fend);

/*
 * The SFrame loop's copy for the walk's mode, inlined in uw_walk(): the
 * frames written in all (n when it took none).
 */
static uwi_always_inline size_t uwi_fast_sframe(struct uw_cursor *cur,
						const struct uw_walk_cfg *cfg,
						const struct uwi_arch *a,
						const struct uw_regs *regs,
						struct uw_frame *frames,
						size_t n, size_t max)
{
	const uint32_t limit = uwi_depth_limit(cfg);
	struct uw_frame *fr = frames + n;

	if (!uwi_sframe_on(regs, cfg, a) || cur->depth >= limit)
		return n;
	/* Frame n comes with step depth + 1: none past the depth limit. */
	if (max - n > limit - cur->depth)
		max = n + (limit - cur->depth);
	if (!(cfg->flags & UW_WALK_DIRECT_STACK))
		return n + uwi_fast_sframe_mem(cur, cfg, a, regs, fr,
					       frames + max);
	if (UW_HAS_CACHE && cfg->cache)
		return n + uwi_fast_sframe_direct(cur, cfg, a, regs, fr,
						  frames + max);
	return n + uwi_fast_sframe_direct_nocache(cur, cfg, a, regs, fr,
						  frames + max);
}
/*
 * Whether the fp loop may run for this walk: a cache, frame records of
 * 8-byte words (UWI_FAST_ARCH) on an architecture whose step tries the
 * tables, then a trampoline, then the record (UWI_FAST_NO_SIGFRAME), the
 * frame-pointer fallback allowed, and a stack mode it reads.
 */
static uwi_always_inline bool uwi_fp_on(const struct uw_walk_cfg *cfg,
				    const struct uwi_arch *a)
{
	return UW_HAS_CACHE && cfg->cache && uwi_fast_arch(a) &&
	       !(cfg->flags & UW_WALK_NO_FAST) && a->fp_kind == UWI_FP_PAIR &&
	       a->phases[1] == UWI_PHASE_SIGFRAME &&
	       a->phases[2] == UWI_PHASE_FP &&
	       !(cfg->flags & UW_WALK_NO_FP) &&
	       ((cfg->flags & UW_WALK_DIRECT_STACK) ? UW_HAS_FAST_DIRECT :
		cfg->mem.read != NULL);
}

size_t uwi_fast_fp_direct(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			  const struct uwi_arch *a, struct uw_frame *frames,
			  size_t n, size_t max);
size_t uwi_fast_fp_mem(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		       const struct uwi_arch *a, struct uw_frame *frames,
		       size_t n, size_t max);

/* The fp loop's copy for the walk's mode, inlined in uw_walk(). */
static uwi_always_inline size_t uwi_fast_fp(struct uw_cursor *cur,
					    const struct uw_walk_cfg *cfg,
					    const struct uwi_arch *a,
					    struct uw_frame *frames, size_t n,
					    size_t max)
{
	if (!uwi_fp_on(cfg, a))
		return n;
	if (cfg->flags & UW_WALK_DIRECT_STACK)
		return uwi_fast_fp_direct(cur, cfg, a, frames, n, max);
	return uwi_fast_fp_mem(cur, cfg, a, frames, n, max);
}

/*
 * Whether the ARM loop may run for this walk: 32-bit ARM with EHABI or
 * Chrome, a cache (its rows are the loop's), not a Cortex-M walk
 * (UWI_FAST_ARM_NOT_M), and a stack mode it reads.
 */
static uwi_always_inline bool uwi_arm_on(const struct uw_walk_cfg *cfg)
{
	return UW_HAS_ARM_ROWS && cfg->cache && cfg->arch == UW_ARCH_ARM &&
	       !(cfg->flags & (UW_WALK_NO_FAST | UW_WALK_CORTEX_M)) &&
	       ((cfg->flags & UW_WALK_DIRECT_STACK) ? UW_HAS_FAST_DIRECT :
		cfg->mem.read != NULL);
}

size_t uwi_fast_arm_direct(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			   struct uw_frame *frames, size_t n, size_t max);
size_t uwi_fast_arm_mem(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			struct uw_frame *frames, size_t n, size_t max);

/* The ARM loop's copy for the walk's mode, inlined in uw_walk(). */
static uwi_always_inline size_t uwi_fast_arm(struct uw_cursor *cur,
					     const struct uw_walk_cfg *cfg,
					     struct uw_frame *frames, size_t n,
					     size_t max)
{
	if (!uwi_arm_on(cfg))
		return n;
	if (cfg->flags & UW_WALK_DIRECT_STACK)
		return uwi_fast_arm_direct(cur, cfg, frames, n, max);
	return uwi_fast_arm_mem(cur, cfg, frames, n, max);
}

#include "formats.h"

#endif /* UWIND_LIB_WALK_H */
