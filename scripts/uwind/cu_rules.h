/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Compact unwind entries as CFA-relative rules (cu_print.c). */
#ifndef UWIND_TOOL_CU_RULES_H
#define UWIND_TOOL_CU_RULES_H

#include <stdio.h>
#include <uwind/compact_unwind.h>
#include "macho.h"

/*
 * An entry's rule: CFA = (frame: fp, else sp) + cfa_off; the return
 * address at CFA + ra_off (or in lr); the frame pointer at CFA + fp_off
 * when fp_saved (saved[fp_index] if the encoding lists it), the other
 * registers in r.saved.
 */
struct cu_rules {
	struct uw_cu_rule r;
	uint32_t cfa_off;
	int32_t ra_off, fp_off;
	bool fp_saved;
	unsigned int fp_index;
};

int cu_open(const char *path, const char *arch, struct macho *m,
	    struct uw_cu *cu);
/* A walker configuration whose memory is the image's segments. */
void cu_cfg(const struct macho *m, struct uw_walk_cfg *cfg);
int cu_rules(const struct macho *m, const struct uw_cu *cu,
	     const struct uw_cu_entry *e, struct cu_rules *cr);
void cu_print_rule(FILE *f, const struct macho *m, const struct uw_cu *cu,
		   const struct uw_cu_entry *e);
const char *cu_reg_name(enum uw_arch arch, unsigned int reg, char *buf,
			size_t len);

int cmd_cu_dump(int argc, char **argv);
int cmd_cu_lookup(int argc, char **argv);

#endif
