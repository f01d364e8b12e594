/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Walker internals shared between walk.c and the per-arch helpers. */
#ifndef UWIND_LIB_WALK_H
#define UWIND_LIB_WALK_H

#include <uwind/uwind.h>

/* The register roles of arch, or NULL (no copy: the walker's stack is tight). */
const struct uw_arch_info *uw_arch_get(enum uw_arch arch);

/* Read one size-byte word of program memory, in the program's byte order. */
int uw_read_word(const struct uw_walk_cfg *cfg, unsigned int size,
		 uint64_t addr, uint64_t *v);

/* Copy a register set without a struct assignment (no memcpy call). */
static inline void uw_regs_copy(struct uw_regs *dst, const struct uw_regs *src)
{
	unsigned int i;

	for (i = 0; i < UW_NREGS; i++)
		dst->r[i] = src->r[i];
	dst->valid = src->valid;
}

/*
 * If pc is a Linux sigreturn trampoline, restore the interrupted
 * registers from the signal frame at sp: 1 restored, 0 not a trampoline,
 * <0 error.
 */
int uw_sigframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		     const struct uw_arch_info *ai, uint64_t pc, uint64_t sp);

/*
 * Cortex-M (UW_WALK_CORTEX_M): pc is an EXC_RETURN value; restore the
 * interrupted registers from the exception frame it names: 1 restored,
 * <0 error.
 */
int uw_cortexm_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    uint64_t pc, uint64_t sp);

/*
 * Steps with a module's Breakpad rules or compact unwind (walker glue
 * in breakpad_step.c, compact_unwind.c; uw_fmt_step in walk_fmt.c tries
 * both, in that order): 1 stepped, 0 outermost, UW_ENOENT where the
 * module has no such rule for lookup, <0 error.
 */
int uw_fmt_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uw_module *mod, uint64_t lookup, bool *ra_in_reg,
		uint64_t *new_sp);
int uw_cu_walk_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uw_module *mod, uint64_t lookup,
		    bool *ra_in_reg, uint64_t *new_sp);
int uw_bp_walk_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    const struct uw_module *mod, uint64_t lookup,
		    bool *ra_in_reg, uint64_t *new_sp);

#endif /* UWIND_LIB_WALK_H */
