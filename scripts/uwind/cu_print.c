// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Apple compact unwind: `uwind dump` and `uwind lookup` on Mach-O files
 * (64-bit images and universal files, --arch NAME picking the slice).
 *
 * dump prints the header, then every second-level entry in order, one
 * line each:
 *
 *   page P (compressed|regular)
 *     fo=0xFUNCOFF enc=0xENCODING size=N [SYMBOL] RULE
 *
 * fo is the function's offset from the image base, as llvm-objdump
 * --unwind-info prints it.  lookup prints, as for ELF files, one line
 * per address: `ADDR cfa=... ra=... fp=...`, then the other registers
 * the encoding restores (`rbx=c-24`), or `ADDR none` (no entry, or
 * encoding 0), or `ADDR dwarf eh_frame+0xOFF` (the function's rules are
 * DWARF CFI in __eh_frame, which this tool does not read for Mach-O).
 * A frameless-indirect encoding's stack size is read from the function's
 * "sub" instruction in the file.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/compact_unwind.h>
#include "uwind.h"
#include "macho.h"
#include "cu_rules.h"
#include "lookup_out.h"

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	return macho_read(ctx, addr, dst, len);
}

void cu_cfg(const struct macho *m, struct uw_walk_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = m->arch;
	cfg->mem.read = mem_read;
	cfg->mem.ctx = (void *)m;
}

const char *cu_reg_name(enum uw_arch arch, unsigned int reg, char *buf,
			size_t len)
{
	static const char *const x64[16] = {
		[3] = "rbx", [6] = "rbp", [12] = "r12", [13] = "r13",
		[14] = "r14", [15] = "r15",
	};
	static const char *const x86[8] = {
		[1] = "ecx", [2] = "edx", [3] = "ebx", [5] = "ebp",
		[6] = "esi", [7] = "edi",
	};

	if (arch == UW_ARCH_X86_64 && reg < 16 && x64[reg])
		return x64[reg];
	if (arch == UW_ARCH_X86 && reg < 8 && x86[reg])
		return x86[reg];
	if (arch == UW_ARCH_AARCH64 && reg <= 30)
		snprintf(buf, len, "x%u", reg);
	else if (arch == UW_ARCH_AARCH64 && reg >= 64 && reg < 96)
		snprintf(buf, len, "d%u", reg - 64);
	else
		snprintf(buf, len, "r%u", reg);
	return buf;
}

int cu_open(const char *path, const char *arch, struct macho *m,
	    struct uw_cu *cu)
{
	struct uw_span sec;
	int err;

	if (macho_open(path, arch, m))
		return -1;
	if (!m->unwind_info.found) {
		fprintf(stderr, "uwind: %s: no __TEXT,__unwind_info section\n",
			path);
		macho_close(m);
		return -1;
	}
	sec.data = m->img + m->unwind_info.off;
	sec.size = m->unwind_info.size;
	sec.addr = m->unwind_info.addr;
	err = uw_cu_init(cu, &sec, m->base, m->arch);
	if (err) {
		fprintf(stderr, "uwind: %s: bad __unwind_info: %s\n", path,
			uw_strerror(err));
		macho_close(m);
		return -1;
	}
	return 0;
}

/* The rule of an entry, in the lookup line's syntax (after the address). */
void cu_print_rule(FILE *f, const struct macho *m, const struct uw_cu *cu,
		   const struct uw_cu_entry *e)
{
	struct cu_rules cr;
	unsigned int i;
	char buf[16];
	int err = cu_rules(m, cu, e, &cr);

	if (err) {
		fprintf(f, "error %s", uw_strerror(err));
		return;
	}
	switch (cr.r.kind) {
	case UW_CU_NONE:
		fputs("none", f);
		return;
	case UW_CU_DWARF:
		fprintf(f, "dwarf eh_frame+0x%x", cr.r.dwarf_off);
		return;
	}
	if (cr.r.kind == UW_CU_FRAME)
		fprintf(f, "cfa=fp+%u", cr.cfa_off);
	else
		fprintf(f, "cfa=sp+%u", cr.cfa_off);
	if (cr.r.ra_in_lr)
		fputs(" ra=lr", f);
	else
		fprintf(f, " ra=c%+d", cr.ra_off);
	if (cr.fp_saved)
		fprintf(f, " fp=c%+d", cr.fp_off);
	else
		fputs(" fp=u", f);
	for (i = 0; i < cr.r.nsaved; i++) {
		if (i == cr.fp_index)
			continue;	/* shown as fp */
		fprintf(f, " %s=c%+d",
			cu_reg_name(m->arch, cr.r.saved[i].reg, buf,
				    sizeof(buf)), cr.r.saved[i].off);
	}
}

int cu_rules(const struct macho *m, const struct uw_cu *cu,
	     const struct uw_cu_entry *e, struct cu_rules *cr)
{
	struct uw_walk_cfg cfg;
	struct uw_arch_info ai;
	uint64_t size;
	unsigned int i;
	int err;

	memset(cr, 0, sizeof(*cr));
	cr->fp_index = UW_CU_MAX_SAVED;
	err = uw_cu_decode(cu, e->encoding, &cr->r);
	if (err || cr->r.kind == UW_CU_NONE || cr->r.kind == UW_CU_DWARF)
		return err;
	uw_arch_info(m->arch, &ai);
	cr->ra_off = -(int)ai.ptr_size;
	switch (cr->r.kind) {
	case UW_CU_FRAME:
		cr->cfa_off = 2 * ai.ptr_size;
		cr->fp_saved = true;
		cr->fp_off = -2 * (int)ai.ptr_size;
		break;
	case UW_CU_FRAMELESS:
		cr->cfa_off = cr->r.stack_size;
		break;
	default:
		cu_cfg(m, &cfg);
		err = uw_cu_ind_size(&cr->r, e->fn_start, &cfg, &size);
		if (err)
			return err;
		if (size > UINT32_MAX)
			return UW_EOVERFLOW;
		cr->cfa_off = (uint32_t)size;
		break;
	}
	for (i = 0; i < cr->r.nsaved; i++) {
		if (cr->r.saved[i].reg != ai.fp)
			continue;
		cr->fp_saved = true;
		cr->fp_off = cr->r.saved[i].off;
		cr->fp_index = i;
	}
	return 0;
}

static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case UW_CU_FRAME: return "frame";
	case UW_CU_FRAMELESS: return "frameless";
	case UW_CU_FRAMELESS_IND: return "frameless-indirect";
	case UW_CU_DWARF: return "dwarf";
	default: return "none";
	}
}

int cmd_cu_dump(int argc, char **argv)
{
	const char *arch = take_arch(&argc, argv);
	uint32_t page = 0, index = 0, last = UINT32_MAX;
	const struct macho_sym *s;
	struct uw_cu_entry e;
	struct uw_cu_rule r;
	struct macho m;
	struct uw_cu cu;
	int err, ret = 0;

	if (argc != 2)
		return tool_usage(argc < 2 ? "no input file" :
				  "unexpected argument %s", argv[2]);
	if (cu_open(argv[1], arch, &m, &cu))
		return 1;
	printf("Contents of the __unwind_info section (%s):\n", m.arch_name);
	printf("  Version: %u\n", UW_CU_VERSION);
	printf("  Common encodings: %u\n", cu.enc_count);
	printf("  Personalities: %u\n", cu.pers_count);
	printf("  First-level index: %u entries\n", cu.idx_count);
	while ((err = uw_cu_next(&cu, &page, &index, &e)) == 0) {
		if (e.page != last) {
			printf("\n  page %u (%s)\n", e.page,
			       e.compressed ? "compressed" : "regular");
			last = e.page;
		}
		printf("    fo=0x%08llx enc=0x%08x size=%llu",
		       (unsigned long long)(e.fn_start - cu.base), e.encoding,
		       (unsigned long long)(e.fn_end - e.fn_start));
		s = macho_sym(&m, e.fn_start);
		if (s && s->addr == e.fn_start)
			printf(" %s", s->name);
		if (!uw_cu_decode(&cu, e.encoding, &r) &&
		    r.kind != UW_CU_NONE && r.kind != UW_CU_DWARF)
			printf(": %s ", kind_name(r.kind));
		else
			printf(": ");
		cu_print_rule(stdout, &m, &cu, &e);
		putchar('\n');
	}
	if (err < 0) {
		printf("    <bad entry: %s>\n", uw_strerror(err));
		ret = 1;
	}
	macho_close(&m);
	return ret;
}

int cmd_cu_lookup(int argc, char **argv)
{
	const char *arch = take_arch(&argc, argv);
	struct uw_cu_entry e;
	struct macho m;
	struct uw_cu cu;
	uint64_t pc, *addrs;
	int i, err, ret = 0;

	if (argc < 3)
		return tool_usage("no address");
	addrs = parse_addr_args(argv + 2, argc - 2, UINT64_MAX);
	if (!addrs)
		return 2;
	if (cu_open(argv[1], arch, &m, &cu)) {
		free(addrs);
		return 1;
	}
	lk_begin(argv[1], "compact");
	for (i = 0; i < argc - 2; i++) {
		FILE *out = lk_line();

		pc = addrs[i];
		fprintf(out, "0x%llx ", (unsigned long long)pc);
		err = uw_cu_find(&cu, pc, &e);
		if (err == UW_ENOENT)
			fputs("none", out);
		else if (err)
			fprintf(out, "error %s", uw_strerror(err));
		else
			cu_print_rule(out, &m, &cu, &e);
		fputc('\n', out);
		lk_line_end();
		if (err && err != UW_ENOENT)
			ret = 1;
	}
	free(addrs);
	macho_close(&m);
	return lk_end(ret);
}
