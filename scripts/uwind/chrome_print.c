// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Chrome's ARM unwind tables: `uwind dump --chrome TABLE --text ADDR`
 * and `uwind lookup --chrome TABLE --text ADDR [--thumb] ADDR...`.
 *
 * dump prints the header, the pages, and every function entry with its
 * (offset, instruction index) list and each instruction sequence decoded.
 * lookup prints the line every lookup prints, "ADDR cfa=RULE ra=RULE
 * fp=RULE": the sequence for ADDR runs through the core on the synthetic
 * frame EHABI's lookup uses (ehabi_rules.h), and the results say where
 * the CFA, the return address and the frame pointer (r11, or r7 for
 * Thumb code: an odd ADDR or --thumb) came from.
 */
#include <stdlib.h>
#include <string.h>
#include "ehabi_rules.h"
#include "lookup_out.h"

struct ctab {
	struct tool_table t;
	struct uw_chrome ct;
	const char *path;
	uint64_t text;
	bool thumb;
	int first;		/* first address argument */
};

static int parse_ctab(int argc, char **argv, struct ctab *c)
{
	const char *text = NULL;
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chrome") && i + 1 < argc)
			c->path = argv[++i];
		else if (!strcmp(argv[i], "--text") && i + 1 < argc)
			text = argv[++i];
		else if (!strcmp(argv[i], "--thumb"))
			c->thumb = true;
		else if (argv[i][0] == '-' && argv[i][1] == '-')
			return tool_usage("unknown option %s", argv[i]);
		else
			break;
	}
	c->first = i;
	if (!c->path)
		return tool_usage("--chrome needs a TABLE");
	if (text && parse_addr(text, &c->text))
		return tool_usage("--text '%s' is not a hex address", text);
	return 0;
}

static int load_ctab(struct ctab *c)
{
	int err;

	if (tool_load_raw(c->path, c->text, &c->t))
		return -1;
	err = uw_chrome_init(&c->ct, &c->t.span, c->text, false);
	if (err) {
		fprintf(stderr, "uwind: %s: bad Chrome unwind table: %s\n",
			c->path, uw_strerror(err));
		tool_table_free(&c->t);
		return -1;
	}
	return 0;
}

static uint32_t rd32(const struct ctab *c, uint64_t off)
{
	const uint8_t *p = c->t.span.data + off;

	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const struct ctab *c, uint64_t off)
{
	const uint8_t *p = c->t.span.data + off;

	return (uint16_t)(p[0] | p[1] << 8);
}

/* A uleb128 in the function offset table; -1 if cut short or too long. */
static int fot_uleb(const struct ctab *c, uint32_t *pos, uint32_t *v)
{
	uint64_t x = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (*pos >= c->ct.fot_size || shift > 28)
			return -1;
		b = c->t.span.data[c->ct.fot_off + *pos];
		(*pos)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (x > 0xffffffffu)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Operand bytes from the instruction table, up to its end. */
struct insn_src {
	const uint8_t *insn;
	uint32_t size, pos;
};

static int next_insn(void *ctx, uint8_t *b)
{
	struct insn_src *in = ctx;

	if (in->pos >= in->size)
		return -1;
	*b = in->insn[in->pos++];
	return 0;
}

static void print_sequence(const struct ctab *c, uint32_t at)
{
	const uint8_t *insn = c->t.span.data + c->ct.insn_off;
	struct insn_src in = { insn, c->ct.insn_size, at };
	const struct arm_op_src src = { next_insn, &in };
	uint32_t start, i;
	char text[96], bytes[48];
	int r = 0;

	while (r == 0) {
		if (in.pos >= c->ct.insn_size) {
			printf("        [no finish before the table's end]\n");
			return;
		}
		start = in.pos++;
		r = arm_op_describe(insn[start], &src, true, text,
				    sizeof(text));
		if (r < 0) {
			printf("        [truncated instruction]\n");
			return;
		}
		bytes[0] = '\0';
		for (i = start; i < in.pos && i < start + 8; i++)
			snprintf(bytes + strlen(bytes),
				 sizeof(bytes) - strlen(bytes), "%s0x%02x",
				 i > start ? " " : "", insn[i]);
		printf("        %-14s %s\n", bytes, text);
	}
}

static int dump_fn(const struct ctab *c, uint32_t i, uint32_t page)
{
	uint64_t fn_off = c->ct.fn_off + 4 * (uint64_t)i;
	uint16_t pio = rd16(c, fn_off), fot = rd16(c, fn_off + 2);
	uint64_t hw = ((uint64_t)page << 16) + pio;
	uint32_t pos = fot, off, idx;
	unsigned int guard = 0;

	printf("    [%u] 0x%llx (page %u +0x%x): offsets @%u\n", i,
	       (unsigned long long)(c->text + 2 * hw), page, 2u * pio, fot);
	do {
		if (fot_uleb(c, &pos, &off) || fot_uleb(c, &pos, &idx)) {
			printf("      [offset list runs out of its table]\n");
			return 1;
		}
		printf("      +0x%llx (+%u halfwords): instructions @%u\n",
		       2ull * off, off, idx);
		if (idx >= c->ct.insn_size) {
			printf("        [index outside the instruction table]\n");
			return 1;
		}
		print_sequence(c, idx);
	} while (off && ++guard < c->ct.fot_size);
	return 0;
}

int cmd_chrome_dump(int argc, char **argv)
{
	struct ctab c;
	uint32_t p, lo, hi, i;
	int ret = 0;

	if (parse_ctab(argc, argv, &c))
		return 2;
	if (c.first != argc)
		return tool_usage("unexpected argument %s", argv[c.first]);
	if (load_ctab(&c))
		return 1;
	printf("Chrome unwind table %s: %zu bytes, text at 0x%llx\n", c.path,
	       c.t.span.size, (unsigned long long)c.text);
	printf("  Header:\n");
	printf("    page table:            offset 0x%x, %u entries\n",
	       c.ct.page_off, c.ct.pages);
	printf("    function table:        offset 0x%x, %u entries\n",
	       c.ct.fn_off, c.ct.fns);
	printf("    function offset table: offset 0x%x, %u bytes\n",
	       c.ct.fot_off, c.ct.fot_size);
	printf("    instruction table:     offset 0x%x, %u bytes\n",
	       c.ct.insn_off, c.ct.insn_size);
	printf("\n  Pages:\n");
	for (p = 0; p < c.ct.pages; p++) {
		lo = rd32(&c, c.ct.page_off + 4 * (uint64_t)p);
		hi = p + 1 < c.ct.pages ?
		     rd32(&c, c.ct.page_off + 4 * (uint64_t)(p + 1)) : c.ct.fns;
		printf("    page %u: 0x%llx-0x%llx, ", p,
		       (unsigned long long)(c.text + ((uint64_t)p << 17)),
		       (unsigned long long)(c.text + ((uint64_t)(p + 1) << 17)));
		if (lo == hi)
			printf("empty\n");
		else
			printf("functions %u-%u\n", lo, hi - 1);
	}
	printf("\n  Functions:\n");
	for (p = 0; p < c.ct.pages; p++) {
		lo = rd32(&c, c.ct.page_off + 4 * (uint64_t)p);
		hi = p + 1 < c.ct.pages ?
		     rd32(&c, c.ct.page_off + 4 * (uint64_t)(p + 1)) : c.ct.fns;
		for (i = lo; i < hi; i++)
			ret |= dump_fn(&c, i, p);
	}
	tool_table_free(&c.t);
	return ret;
}

static int lookup_one(FILE *out, const struct ctab *c, uint64_t addr,
		      struct syn_mem *m)
{
	struct uw_chrome_loc loc;
	struct uw_walk_cfg cfg;
	struct uw_regs r;
	unsigned int fp = (c->thumb || (addr & 1)) ? 7 : 11;
	int err;

	fprintf(out, "0x%llx", (unsigned long long)addr);
	err = uw_chrome_find(&c->ct, addr, &loc);
	if (err == UW_ENOENT) {
		fputs(" none\n", out);
		return 0;
	}
	syn_begin(m, &cfg, &r, addr);
	err = err ? err : uw_chrome_exec(&c->ct, &loc, &cfg, &r);
	return syn_print_result(out, m, &r, fp, err);
}

int cmd_chrome_lookup(int argc, char **argv)
{
	struct syn_mem *m;
	struct ctab c;
	uint64_t *addrs;
	int i, ret = 0;

	if (parse_ctab(argc, argv, &c))
		return 2;
	addrs = parse_addr_args(argv + c.first, argc - c.first, 0xffffffffu);
	if (!addrs)
		return 2;
	m = malloc(sizeof(*m));
	if (!m || load_ctab(&c)) {
		free(m);
		free(addrs);
		return 1;
	}
	lk_begin(c.path, "chrome");
	for (i = 0; i < argc - c.first; i++) {
		ret |= lookup_one(lk_line(), &c, addrs[i], m);
		lk_line_end();
	}
	free(m);
	free(addrs);
	tool_table_free(&c.t);
	return lk_end(ret);
}
