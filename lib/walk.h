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
 * UWI_NEXT (not a trampoline) or an error.  lib/sigframe.c.
 */
int uwi_sigframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg);

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

#include "formats.h"

#endif /* UWIND_LIB_WALK_H */
