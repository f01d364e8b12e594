// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker's step for the tables a host hands in per module beside
 * the built-in ones: a module's Breakpad rules, else its Apple compact
 * unwind.  Kept apart from walk.c so the walker calls one function, in
 * tail position, and its own frame does not grow; tail calls here too.
 */
#include <uwind/uwind.h>
#include "walk.h"

int uw_fmt_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		const struct uw_module *mod, uint64_t lookup, bool *ra_in_reg,
		uint64_t *new_sp)
{
	if (mod->bp)
		return uw_bp_walk_step(cur, cfg, mod, lookup, ra_in_reg, new_sp);
	return uw_cu_walk_step(cur, cfg, mod, lookup, ra_in_reg, new_sp);
}
