// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind convert --breakpad MACHO [--arch NAME]`: a Mach-O image's
 * compact unwind entries as Breakpad STACK CFI.
 *
 * A MODULE line (os "mac", the slice's architecture, the LC_UUID as
 * Breakpad writes Mach-O ids: 32 upper-case hex digits and an age of 0,
 * the file's base name), then per entry with a compact rule one "STACK
 * CFI INIT offset size" record holding the rule for the whole entry,
 * as the encoding says: it describes the function's body, not its
 * prologue and epilogue (compact unwind has nothing for those).  Names
 * are sorted as std::map sorts them, as dump_syms does; addresses count
 * from the image's base.  Entries in DWARF mode, or without unwind
 * information, are left out (and counted on stderr): this tool does not
 * read __eh_frame in Mach-O files.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/breakpad.h>
#include "uwind.h"
#include "cu_rules.h"

struct rule {
	char name[16];
	char expr[48];
};

static int rule_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rule *)a)->name,
		      ((const struct rule *)b)->name);
}

static const char *bp_name(enum uw_arch arch, unsigned int reg, char *buf)
{
	const char *n = uw_bp_reg_name(arch, reg, buf, 4);

	if (n)
		return n;
	/* arm64 d8-d15: Breakpad's dump_syms calls them v8-v15 */
	snprintf(buf, 16, "v%u", reg >= 64 ? reg - 64 : reg);
	return buf;
}

static void entry_rules(const struct macho *m, const struct cu_rules *cr,
			FILE *out)
{
	struct uw_arch_info ai;
	struct rule r[UW_CU_MAX_SAVED + 3];
	unsigned int n = 0, i;
	char buf[16];

	uw_arch_info(m->arch, &ai);
	snprintf(r[n].name, sizeof(r[n].name), ".cfa");
	snprintf(r[n++].expr, sizeof(r[0].expr), "%s %u +",
		 bp_name(m->arch, cr->r.kind == UW_CU_FRAME ? ai.fp : ai.sp,
			 buf), cr->cfa_off);
	snprintf(r[n].name, sizeof(r[n].name), ".ra");
	if (cr->r.ra_in_lr)
		snprintf(r[n++].expr, sizeof(r[0].expr), "%s",
			 bp_name(m->arch, ai.ra, buf));
	else
		snprintf(r[n++].expr, sizeof(r[0].expr), ".cfa %d + ^",
			 cr->ra_off);
	if (cr->fp_saved) {
		snprintf(r[n].name, sizeof(r[n].name), "%s",
			 bp_name(m->arch, ai.fp, buf));
		snprintf(r[n++].expr, sizeof(r[0].expr), ".cfa %d + ^",
			 cr->fp_off);
	}
	for (i = 0; i < cr->r.nsaved; i++) {
		if (i == cr->fp_index)
			continue;
		snprintf(r[n].name, sizeof(r[n].name), "%s",
			 bp_name(m->arch, cr->r.saved[i].reg, buf));
		snprintf(r[n++].expr, sizeof(r[0].expr), ".cfa %d + ^",
			 cr->r.saved[i].off);
	}
	qsort(r, n, sizeof(r[0]), rule_cmp);
	for (i = 0; i < n; i++)
		fprintf(out, " %s: %s", r[i].name, r[i].expr);
}

int cu_to_breakpad(const char *path, const char *arch, FILE *out)
{
	uint32_t page = 0, index = 0, i;
	unsigned long skipped = 0, total = 0;
	const char *base = strrchr(path, '/');
	struct cu_rules cr;
	struct uw_cu_entry e;
	struct macho m;
	struct uw_cu cu;
	int err;

	if (cu_open(path, arch, &m, &cu))
		return 1;
	fprintf(out, "MODULE mac %s ", m.arch_name);
	for (i = 0; i < 16; i++)
		fprintf(out, "%02X", m.has_uuid ? m.uuid[i] : 0);
	fprintf(out, "0 %s\n", base ? base + 1 : path);
	while ((err = uw_cu_next(&cu, &page, &index, &e)) == 0) {
		total++;
		if (e.fn_end == e.fn_start)
			continue;	/* a duplicate's empty first entry */
		err = cu_rules(&m, &cu, &e, &cr);
		if (err || cr.r.kind == UW_CU_NONE ||
		    cr.r.kind == UW_CU_DWARF) {
			skipped++;
			continue;
		}
		fprintf(out, "STACK CFI INIT %llx %llx",
			(unsigned long long)(e.fn_start - cu.base),
			(unsigned long long)(e.fn_end - e.fn_start));
		entry_rules(&m, &cr, out);
		fputc('\n', out);
	}
	if (err < 0)
		fprintf(stderr, "uwind: %s: __unwind_info: %s\n", path,
			uw_strerror(err));
	if (skipped)
		fprintf(stderr, "uwind: %s: %lu of %lu entries not written"
			" (DWARF mode, no unwind information or malformed)\n",
			path, skipped, total);
	macho_close(&m);
	return err < 0 || fflush(out) ? 1 : 0;
}
