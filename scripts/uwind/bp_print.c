// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad symbol files: `uwind lookup --breakpad SYM [--base ADDR]
 * [--index] [-v] ADDR...`.
 *
 * Each address (relative to the module, unless --base gives the load
 * address) prints one line in the syntax of the ELF lookup: `ADDR
 * cfa=sp+16 ra=c-8 fp=c-16`, or `ADDR none` (no record covers it, or no
 * .cfa/.ra rule is in force), `ADDR outermost` (.ra: .undef), `ADDR
 * error MESSAGE`.  The rules come from running the core's unwinder on a
 * synthetic frame: every register holds a value of its own and every
 * memory read returns a marker naming the address read, so each
 * register of the caller shows where it came from.  -v adds the other
 * registers restored (`rbx=c-24`) and the record's raw rules.  --index
 * builds the fixed-size index and searches that instead of the text.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <uwind/breakpad.h>
#include "uwind.h"
#include "bp_file.h"
#include "lookup_out.h"

#define SYN_SP64	0x7f0000000000ull
#define SYN_REG64	0x100000000ull	/* r[n] = (n + 1) * this */
#define SYN_MARK64	0x5a00000000000000ull
#define SYN_SP32	0x40000000ull
#define SYN_REG32	0x01000000ull
#define SYN_MARK32	0xa0000000ull

int bp_file_open(const char *path, uint64_t base, struct bp_file *f)
{
	struct tool_file tf;
	struct uw_span text;
	int err;

	memset(f, 0, sizeof(*f));
	if (tool_file_map(path, &tf))
		return -1;
	f->map = tf.data;
	f->size = tf.size;
	text.data = f->map;
	text.size = f->size;
	text.addr = 0;
	err = uw_bp_init(&f->bp, &text, base, UW_ARCH_NONE);
	if (err) {
		/* dump_syms starts every file with its MODULE line. */
		if (f->size < 7 || memcmp(f->map, "MODULE ", 7))
			tool_err(path, "not a Breakpad symbol file: it does not"
				 " start with a MODULE line");
		else
			tool_err(path, "%s", uw_strerror(err));
		bp_file_close(f);
		return -1;
	}
	return 0;
}

int bp_file_index(struct bp_file *f)
{
	int err;

	f->idx = calloc(f->bp.ncfi ? f->bp.ncfi : 1, sizeof(*f->idx));
	if (!f->idx)
		return -1;
	err = uw_bp_build_index(&f->bp, f->idx, f->bp.ncfi);
	err = err ? err : uw_bp_set_index(&f->bp, f->idx, f->bp.ncfi);
	return err ? -1 : 0;
}

void bp_file_close(struct bp_file *f)
{
	if (f->map)
		munmap(f->map, f->size);
	free(f->idx);
	memset(f, 0, sizeof(*f));
}

/* ---- the synthetic frame ---- */

struct syn {
	enum uw_arch arch;
	bool w32;
};

static uint64_t syn_sp(const struct syn *s)
{
	return s->w32 ? SYN_SP32 : SYN_SP64;
}

static uint64_t syn_reg(const struct syn *s, unsigned int n)
{
	return (n + 1) * (s->w32 ? SYN_REG32 : SYN_REG64);
}

static int syn_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	const struct syn *s = ctx;
	uint64_t v = addr ^ (s->w32 ? SYN_MARK32 : SYN_MARK64);
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = (uint8_t)(v >> (8 * i));
	return 0;
}

/*
 * Was v read from memory?  *addr: where.  Register values and the stack
 * pointer leave the marker bits clear (below 2^39, or 2^31 for 32-bit
 * words); every read address gets them set.
 */
static bool syn_marker(const struct syn *s, uint64_t v, uint64_t *addr)
{
	if (s->w32 ? !(v & 0x80000000u) : (v >> 56) != (SYN_MARK64 >> 56))
		return false;
	*addr = v ^ (s->w32 ? SYN_MARK32 : SYN_MARK64);
	return true;
}

static const char *rname(const struct uw_arch_info *ai, unsigned int r,
			 char *buf, size_t len)
{
	if (r == ai->sp)
		return "sp";
	if (r == ai->fp)
		return "fp";
	if (ai->has_lr && r == ai->ra)
		return "lr";
	snprintf(buf, len, "r%u", r);
	return buf;
}

/* v as BASE+OFF from a callee register, or from memory relative to cfa. */
static void value_rule(FILE *out, const struct syn *s,
		       const struct uw_arch_info *ai, uint64_t v, uint64_t cfa,
		       bool as_cfa)
{
	unsigned int r;
	uint64_t addr;
	int64_t d;
	char buf[16];

	if (!as_cfa && syn_marker(s, v, &addr)) {
		fprintf(out, "c%+lld", (long long)(addr - cfa));
		return;
	}
	for (r = 0; r < UW_NREGS; r++) {
		uint64_t base = r == ai->sp ? syn_sp(s) : syn_reg(s, r);

		d = (int64_t)(v - base);
		if (d < -0x100000 || d > 0x100000)
			continue;
		if (!as_cfa && !d && r != ai->sp)
			fputs(rname(ai, r, buf, sizeof(buf)), out);
		else
			fprintf(out, "%s%+lld", rname(ai, r, buf, sizeof(buf)),
				(long long)d);
		return;
	}
	fputs("?", out);
}

static void print_raw(FILE *out, const struct bp_file *f,
		      const struct uw_bp_work *w, bool win)
{
	const char *t = (const char *)f->bp.text.data;
	uint64_t p, e;
	char buf[8];
	const char *name;
	unsigned int k;

	if (win) {
		fprintf(out, " # STACK WIN %u %.*s", w->win.type,
			(int)w->prog_len, w->prog);
		return;
	}
	fputs(" #", out);
	for (k = 0; k < UW_BP_SLOTS; k++) {
		if (!w->slot[k])
			continue;
		name = k == 0 ? ".cfa" : k == 1 ? ".ra" :
		       uw_bp_reg_name((enum uw_arch)f->bp.arch, k - 2, buf,
				      sizeof(buf));
		/* The expression runs to the next "name:" or the line's end. */
		for (p = e = w->slot[k]; p < f->bp.text.size && t[p] != '\n';) {
			uint64_t q = p;

			while (q < f->bp.text.size && t[q] == ' ')
				q++;
			p = q;
			while (p < f->bp.text.size && t[p] != ' ' &&
			       t[p] != '\n')
				p++;
			if (p > q && t[p - 1] == ':')
				break;
			e = p;
		}
		fprintf(out, " %s:%.*s", name ? name : "?",
			(int)(e - w->slot[k]), t + w->slot[k]);
	}
}

/* One address: the caller the rules give on the synthetic frame. */
int bp_lookup_line(const struct bp_file *f, uint64_t pc, bool verbose,
		   FILE *out)
{
	static struct uw_bp_work w;
	struct uw_regs callee, caller;
	struct uw_walk_cfg cfg;
	struct uw_arch_info ai;
	struct syn s;
	unsigned int r;
	uint64_t v, fp = 0;
	int ret;

	s.arch = (enum uw_arch)f->bp.arch;
	uw_arch_info(s.arch, &ai);
	s.w32 = ai.ptr_size == 4;
	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = s.arch;
	cfg.mem.read = syn_read;
	cfg.mem.ctx = &s;
	memset(&callee, 0, sizeof(callee));
	for (r = 0; r < UW_NREGS; r++)
		uw_reg_set(&callee, r,
			   r == ai.sp ? syn_sp(&s) : syn_reg(&s, r));
	memset(&w, 0, sizeof(w));
	ret = uw_bp_unwind(&f->bp, pc, &cfg, &w, &callee, &caller);
	fprintf(out, "0x%llx", (unsigned long long)pc);
	if (ret == UW_ENOENT) {
		fputs(" none\n", out);
		return 0;
	}
	if (ret == 0) {
		fputs(" outermost\n", out);
		return 0;
	}
	if (ret < 0) {
		fprintf(out, " error %s\n", uw_strerror(ret));
		return 1;
	}
	fputs(" cfa=", out);
	value_rule(out, &s, &ai, w.cfa, w.cfa, true);
	fputs(" ra=", out);
	value_rule(out, &s, &ai, w.ra, w.cfa, false);
	fputs(" fp=", out);
	if (!uw_reg_get(&caller, ai.fp, &fp) || fp == syn_reg(&s, ai.fp))
		fputs("u", out);
	else
		value_rule(out, &s, &ai, fp, w.cfa, false);
	for (r = 0; verbose && r < UW_NREGS; r++) {
		char buf[8];
		const char *name;

		if (r == ai.pc || r == ai.sp || r == ai.fp ||
		    !uw_reg_get(&caller, r, &v) || v == syn_reg(&s, r))
			continue;
		name = uw_bp_reg_name(s.arch, r, buf, sizeof(buf));
		fprintf(out, " %s=", name ? name : "?");
		value_rule(out, &s, &ai, v, w.cfa, false);
	}
	if (verbose)
		print_raw(out, f, &w, w.flags & UW_BP_F_WIN);
	fputc('\n', out);
	return 0;
}

int cmd_bp_lookup(int argc, char **argv)
{
	const char *sym = NULL, *base_s = NULL;
	bool verbose = false, index = false;
	struct bp_file f;
	uint64_t base = 0, *pcs;
	int i, naddr = 0, ret = 0;
	char **addr = calloc((size_t)argc, sizeof(*addr));

	if (!addr)
		return 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--breakpad") && i + 1 < argc)
			sym = argv[++i];
		else if (!strcmp(argv[i], "--base") && i + 1 < argc)
			base_s = argv[++i];
		else if (!strcmp(argv[i], "--index"))
			index = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (argv[i][0] == '-' && argv[i][1]) {
			free(addr);
			return tool_usage("unknown option %s, or it lacks its"
					  " value", argv[i]);
		} else
			addr[naddr++] = argv[i];
	}
	if (!sym || (base_s && parse_addr(base_s, &base))) {
		free(addr);
		return tool_usage(sym ? "--base '%s' is not a hex address" :
				  "--breakpad needs a SYM file", base_s);
	}
	pcs = parse_addr_args(addr, naddr, UINT64_MAX);
	if (!pcs) {
		free(addr);
		return 2;
	}
	if (bp_file_open(sym, base, &f)) {
		free(addr);
		free(pcs);
		return 1;
	}
	if (index && bp_file_index(&f)) {
		fprintf(stderr, "uwind: %s: cannot build the index\n", sym);
		ret = 1;
		naddr = 0;
	}
	lk_begin(sym, "breakpad");
	for (i = 0; i < naddr; i++) {
		ret |= bp_lookup_line(&f, pcs[i], verbose, lk_line());
		lk_line_end();
	}
	bp_file_close(&f);
	free(addr);
	free(pcs);
	return lk_end(ret);
}
