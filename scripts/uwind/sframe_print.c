// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* SFrame: `uwind dump` and `uwind lookup`. */
#include <stdlib.h>
#include <string.h>
#include "lookup_out.h"
#include "uwind.h"

static const char *reg_name(const struct uw_sframe *sf, unsigned int reg,
			    char *buf, size_t len)
{
	struct uw_arch_info ai;

	if (!uw_arch_info(sf->arch, &ai)) {
		if (reg == ai.sp)
			return "sp";
		if (reg == ai.fp)
			return "fp";
		if (ai.has_lr && reg == ai.ra)
			return "lr";
	}
	snprintf(buf, len, "r%u", reg);
	return buf;
}

void tool_print_cfa(FILE *f, const struct uw_sframe *sf, const struct uw_rule *r)
{
	char buf[16];
	const char *base = reg_name(sf, r->reg, buf, sizeof(buf));

	if (r->kind == UW_RULE_REG_DEREF)
		fprintf(f, "[%s%+d]", base, r->off);
	else if (r->kind == UW_RULE_REG_OFF)
		fprintf(f, "%s%+d", base, r->off);
	else
		fputs("u", f);
}

void tool_print_rule(FILE *f, const struct uw_sframe *sf, const struct uw_rule *r)
{
	char buf[16];

	switch (r->kind) {
	case UW_RULE_CFA_OFF:
		fprintf(f, "c%+d", r->off);
		break;
	case UW_RULE_REG:
		fputs(reg_name(sf, r->reg, buf, sizeof(buf)), f);
		break;
	case UW_RULE_REG_OFF:
		fprintf(f, "%s%+d", reg_name(sf, r->reg, buf, sizeof(buf)), r->off);
		break;
	case UW_RULE_REG_DEREF:
		fprintf(f, "[%s%+d]", reg_name(sf, r->reg, buf, sizeof(buf)),
			r->off);
		break;
	default:
		fputs("u", f);
		break;
	}
}

static int parse_table_args(int argc, char **argv, struct table_opts *o,
			    int *first_free)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sframe") && i + 1 < argc) {
			o->raw = argv[++i];
		} else if (!strcmp(argv[i], "--vaddr") && i + 1 < argc) {
			o->vaddr = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage("unknown option %s", argv[i]);
		} else {
			break;
		}
	}
	if (!o->raw) {
		if (i >= argc)
			return tool_usage("no input file");
		o->file = argv[i++];
	} else if (!o->vaddr || parse_addr(o->vaddr, &o->vaddr_v)) {
		return tool_usage("--sframe needs --vaddr ADDR (hex)");
	}
	*first_free = i;
	return 0;
}

/* Load and decode the table; an unsorted one (an object file's) too. */
static int open_table(const struct table_opts *o, struct tool_table *t,
		      struct uw_sframe *sf, bool *unsorted)
{
	int err;

	if (load_table_opts(o, t))
		return -1;
	err = tool_sframe_open(t, sf, unsorted);
	if (err) {
		fprintf(stderr, "uwind: %s: bad SFrame section: %s\n",
			o->raw ? o->raw : o->file, uw_strerror(err));
		tool_table_free(t);
		return -1;
	}
	return 0;
}

static const char *abi_name(uint8_t abi)
{
	switch (abi) {
	case UW_SFRAME_ABI_AARCH64_BE: return "AARCH64_ENDIAN_BIG";
	case UW_SFRAME_ABI_AARCH64_LE: return "AARCH64_ENDIAN_LITTLE";
	case UW_SFRAME_ABI_AMD64_LE: return "AMD64_ENDIAN_LITTLE";
	case UW_SFRAME_ABI_S390X_BE: return "S390X_ENDIAN_BIG";
	default: return "unknown";
	}
}

static void print_flags(const struct uw_sframe *sf)
{
	const char *sep = "";

	printf("    Flags: ");
	if (sf->flags & UW_SFRAME_F_FDE_SORTED) {
		printf("%sSFRAME_F_FDE_SORTED", sep);
		sep = ",\n           ";
	}
	if (sf->flags & UW_SFRAME_F_FRAME_POINTER) {
		printf("%sSFRAME_F_FRAME_POINTER", sep);
		sep = ",\n           ";
	}
	if (sf->flags & UW_SFRAME_F_FDE_FUNC_START_PCREL)
		printf("%sSFRAME_F_FDE_FUNC_START_PCREL", sep);
	if (!sf->flags)
		printf("NONE");
	printf("\n");
}

static void print_header(const struct uw_sframe *sf, const struct tool_table *t)
{
	printf("Contents of the SFrame section %s:\n", t->name);
	printf("  Header :\n\n");
	printf("    Version: SFRAME_VERSION_%u\n", sf->version);
	print_flags(sf);
	printf("    ABI: %s\n", abi_name(sf->abi));
	if (sf->fixed_fp)
		printf("    CFA fixed FP offset: %d\n", sf->fixed_fp);
	if (sf->fixed_ra)
		printf("    CFA fixed RA offset: %d\n", sf->fixed_ra);
	if (sf->auxhdr_len)
		printf("    Auxiliary header length: %u\n", sf->auxhdr_len);
	printf("    Num FDEs: %u\n", sf->num_fdes);
	printf("    Num FREs: %u\n", sf->num_fres);
	printf("\n  Function Index :\n\n");
}

static void print_fde_head(uint32_t i, const struct uw_sframe_fde *fde)
{
	printf("    func idx [%u]: pc = 0x%llx, size = %u bytes", i,
	       (unsigned long long)fde->func_start, fde->func_size);
	if (fde->fde_type == UW_SFRAME_FDE_FLEX)
		printf(", flex");
	if (fde->signal)
		printf(", signal");
	if (fde->pauth_key_b)
		printf(", pauth key B");
	if (fde->pc_type == UW_SFRAME_PC_MASK)
		printf(", rep size = %u", fde->rep_size);
	printf("\n    STARTPC%-9s CFA       FP        RA\n",
	       fde->pc_type == UW_SFRAME_PC_MASK ? "[m]" : "");
}

/* One FRE line: start, then CFA, FP, RA rules as in objdump --sframe. */
static void print_fre_line(const struct uw_sframe *sf,
			   const struct uw_sframe_fde *fde,
			   const struct uw_sframe_fre *fre)
{
	struct uw_row row;
	uint64_t start = fde->pc_type == UW_SFRAME_PC_MASK ?
			 fre->start : fde->func_start + fre->start;
	char cfa[64], fp[64], ra[64];
	FILE *m;
	int err;

	printf("    %016llx  ", (unsigned long long)start);
	err = uw_sframe_row(sf, fde, fre, &row);
	if (err) {
		printf("<bad FRE: %s>\n", uw_strerror(err));
		return;
	}
	m = fmemopen(cfa, sizeof(cfa), "w");
	tool_print_cfa(m, sf, &row.cfa);
	fclose(m);
	m = fmemopen(fp, sizeof(fp), "w");
	tool_print_rule(m, sf, &row.fp);
	fclose(m);
	m = fmemopen(ra, sizeof(ra), "w");
	if (row.flags & UW_ROW_OUTERMOST)
		fputs("undef", m);
	else if (sf->fixed_ra && row.ra.kind == UW_RULE_CFA_OFF)
		fputs("f", m);	/* fixed by the header, as objdump shows it */
	else
		tool_print_rule(m, sf, &row.ra);
	if (fre->ra_mangled)
		fputs("[s]", m);
	fclose(m);
	printf("%-9s %-9s %-9s\n", cfa, fp, ra);
}

int cmd_dump(int argc, char **argv)
{
	struct tool_table t;
	struct uw_sframe sf;
	struct uw_sframe_fde fde;
	struct uw_sframe_fre fre;
	struct table_opts o;
	uint32_t i, j, off;
	int first, err, ret = 0;
	bool unsorted;

	if (parse_table_args(argc, argv, &o, &first))
		return 2;
	if (first != argc)
		return tool_usage("unexpected argument %s", argv[first]);
	if (open_table(&o, &t, &sf, &unsorted))
		return 1;
	print_header(&sf, &t);
	for (i = 0; i < sf.num_fdes; i++) {
		err = uw_sframe_fde(&sf, i, &fde);
		if (err) {
			printf("    func idx [%u]: <bad FDE: %s>\n", i,
			       uw_strerror(err));
			ret = 1;
			continue;
		}
		print_fde_head(i, &fde);
		off = fde.fre_off;
		for (j = 0; j < fde.num_fres; j++) {
			err = uw_sframe_fre(&sf, &fde, &off, &fre);
			if (err) {
				printf("    <bad FRE: %s>\n", uw_strerror(err));
				ret = 1;
				break;
			}
			print_fre_line(&sf, &fde, &fre);
		}
		printf("\n");
	}
	tool_table_free(&t);
	return ret;
}

/*
 * An unsorted table (an object file's) answers lookups from a copy with
 * its FDEs sorted: the core's own search, as on a linked file.
 */
static int sort_table(struct tool_table *t, struct uw_sframe *sf)
{
	struct tool_table sorted;
	struct uw_sframe sf2;
	int err = tool_sframe_sort(t, sf, &sorted, &sf2);

	tool_table_free(t);
	if (err) {
		fprintf(stderr, "uwind: lookup: cannot sort the FDEs: %s\n",
			uw_strerror(err));
		return -1;
	}
	*t = sorted;
	*sf = sf2;
	return 0;
}

/* One address: its rules, "none", or the error; 1 for an error. */
static int lookup_line(FILE *out, const struct uw_sframe *sf, uint64_t pc)
{
	struct uw_row row;
	int err = uw_sframe_find(sf, pc, &row);

	fprintf(out, "0x%llx", (unsigned long long)pc);
	if (err == UW_ENOENT) {
		fputs(" none\n", out);
		return 0;
	}
	if (err) {
		fprintf(out, " error %s\n", uw_strerror(err));
		return 1;
	}
	fputs(" cfa=", out);
	tool_print_cfa(out, sf, &row.cfa);
	fputs(" ra=", out);
	tool_print_rule(out, sf, &row.ra);
	fputs(" fp=", out);
	tool_print_rule(out, sf, &row.fp);
	fputc('\n', out);
	return 0;
}

int cmd_lookup(int argc, char **argv)
{
	struct tool_table t;
	struct uw_sframe sf;
	struct table_opts o;
	uint64_t *addrs;
	int first, i, ret = 0;
	bool unsorted;

	if (parse_table_args(argc, argv, &o, &first))
		return 2;
	addrs = parse_addr_args(argv + first, argc - first, UINT64_MAX);
	if (!addrs)
		return 2;
	if (open_table(&o, &t, &sf, &unsorted)) {
		free(addrs);
		return 1;
	}
	if (unsorted && sort_table(&t, &sf)) {
		free(addrs);
		return 1;
	}
	lk_begin(o.raw ? o.raw : o.file, "sframe");
	for (i = 0; i < argc - first; i++) {
		ret |= lookup_line(lk_line(), &sf, addrs[i]);
		lk_line_end();
	}
	free(addrs);
	tool_table_free(&t);
	return lk_end(ret);
}
