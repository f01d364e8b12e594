// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sfverify: check an SFrame table made by `uwind sframe` against
 * independent oracles, at every pc of the file's executable sections.
 *
 *   sfverify dwarf FILE TABLE
 *       the DWARF CFI row libdw gives at each pc (.eh_frame, else
 *       .debug_frame)
 *   sfverify rows FILE TABLE < ROWS
 *       rows read from `readelf --debug-dump=frames-interp` (readelf.awk):
 *       "START END CFA RA FP" per line, in readelf's notation
 *   sfverify gas FILE TABLE
 *       the assembler-made .sframe of FILE, looked up through the core
 *
 * TABLE is the file `uwind sframe -o` writes (its header is read here
 * from the layout scripts/uwind/README.md documents) or, with a "raw:"
 * prefix, a bare section laid out at vaddr 0.  The SFrame row comes from uw_sframe_find.
 *
 * Rules are compared by value, not by form: both rows are evaluated with
 * the same made-up registers (random 64-bit values, the pc exact) and
 * memory (a hash of the address), twice with different values, and the
 * caller's CFA, return address and frame pointer must come out equal.
 * A row that approximates another cannot pass; two notations of one rule
 * (DWARF's many, SFrame's few) do.  The DWARF side is a small concrete
 * stack machine over libdw's operations, written for this test.
 *
 * Prints "# " lines and a summary:
 *   pcs N compared N dwarf-only N sframe-only N skipped N outermost N
 *   flex N plt-from-code N mismatches N
 * (plt-from-code: AArch64 .plt pcs with a row and no CFI, which the
 * table describes from the stub code; sfconv.sh checks those).
 * and exits 1 on a mismatch or when the table has a row where the oracle
 * has none.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uwind/uwind.h>
#include <uwind/sframe.h>
#include "../common/dwarf_ops.h"
#include "../common/elfscn.h"

#define NTRIALS	2
#define NREGS	128

struct env {
	uint64_t reg[NREGS];
	uint64_t seed;
};

struct val {
	bool outermost;
	uint64_t cfa, ra, fp;
	bool signal, mangled;
};

struct ctx {
	int machine;
	unsigned int sp, fp, ra, pcreg;
	struct env env[NTRIALS];
	struct uw_sframe sf;
	uint8_t *img;		/* the table file's bytes */
	unsigned long pcs, compared, dwarf_only, sframe_only, skipped;
	unsigned long mismatches, outer, flex_like, plt_only;
	const char *mode;
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t mem(const struct env *e, uint64_t a)
{
	return mix(a ^ e->seed);
}

static uint64_t regval(const struct ctx *c, const struct env *e,
		       unsigned int r, uint64_t pc)
{
	if (r == c->pcreg)
		return pc;
	return r < NREGS ? e->reg[r] : mix(r ^ e->seed ^ 0x55);
}

/*
 * Run DWARF operations; push_cfa: start with the CFA on the stack (libdw
 * register rules begin with DW_OP_call_frame_cfa anyway).  Returns 0 and
 * the top of the stack, or -1 for an operation this machine lacks.
 */
static int run(const struct ctx *c, const struct env *e, const Dwarf_Op *ops,
	       size_t n, uint64_t pc, uint64_t cfa, uint64_t *out,
	       bool *value)
{
	uint64_t st[32], a, b;
	size_t i, k = 0;

	*value = false;
	for (i = 0; i < n; i++) {
		unsigned int op = ops[i].atom;

		if (k >= 31)
			return -1;
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			st[k++] = regval(c, e, op - DW_OP_breg0, pc) +
				  ops[i].number;
			continue;
		}
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			st[k++] = op - DW_OP_lit0;
			continue;
		}
		switch (op) {
		case DW_OP_bregx:
			st[k++] = regval(c, e, (unsigned int)ops[i].number, pc) +
				  ops[i].number2;
			continue;
		case DW_OP_call_frame_cfa:
			st[k++] = cfa;
			continue;
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			st[k++] = ops[i].number;
			continue;
		case DW_OP_stack_value:
			*value = true;
			continue;
		case DW_OP_nop:
			continue;
		}
		if (!k)
			return -1;
		switch (op) {
		case DW_OP_plus_uconst:
			st[k - 1] += ops[i].number;
			continue;
		case DW_OP_deref:
			st[k - 1] = mem(e, st[k - 1]);
			continue;
		case DW_OP_dup:
			st[k] = st[k - 1];
			k++;
			continue;
		case DW_OP_drop:
			k--;
			continue;
		}
		if (k < 2)
			return -1;
		b = st[--k];
		a = st[k - 1];
		if (op == DW_OP_swap) {
			st[k - 1] = b;
			st[k++] = a;
			continue;
		}
		if (!dw_binop(op, &a, b))
			return -1;
		st[k - 1] = a;
	}
	if (!k)
		return -1;
	*out = st[k - 1];
	return 0;
}

/* A register's value in the caller; 1: undefined; -1: cannot evaluate. */
static int dwarf_reg(const struct ctx *c, const struct env *e,
		     Dwarf_Frame *fr, unsigned int r, uint64_t pc, uint64_t cfa,
		     uint64_t *v)
{
	Dwarf_Op mem_ops[3], *ops = NULL;
	size_t nops = 0;
	bool value;

	if (dwarf_frame_register(fr, (int)r, mem_ops, &ops, &nops))
		return -1;
	if (!nops) {
		if (ops)
			return 1;
		*v = regval(c, e, r, pc);
		return 0;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx) {
		*v = regval(c, e, (unsigned int)ops[0].number, pc);
		return 0;
	}
	if (run(c, e, ops, nops, pc, cfa, v, &value))
		return -1;
	if (!value)
		*v = mem(e, *v);
	return 0;
}

/* The DWARF row at pc as values; 1: the test cannot evaluate it. */
static int dwarf_val(const struct ctx *c, const struct env *e,
		     Dwarf_Frame *fr, uint64_t pc, struct val *v)
{
	Dwarf_Op *ops;
	size_t nops;
	bool value;
	int ret;

	memset(v, 0, sizeof(*v));
	ret = dwarf_reg(c, e, fr, c->ra, pc, 0, &v->ra);
	if (ret > 0) {
		v->outermost = true;
		return 0;
	}
	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops ||
	    run(c, e, ops, nops, pc, 0, &v->cfa, &value) || value)
		return 1;
	if (dwarf_reg(c, e, fr, c->ra, pc, v->cfa, &v->ra) ||
	    dwarf_reg(c, e, fr, c->fp, pc, v->cfa, &v->fp))
		return 1;
	return 0;
}

static int rule_val(const struct ctx *c, const struct env *e,
		    const struct uw_rule *r, unsigned int self, uint64_t pc,
		    uint64_t cfa, uint64_t *v)
{
	switch (r->kind) {
	case UW_RULE_SAME:
		*v = regval(c, e, self, pc);
		return 0;
	case UW_RULE_CFA_OFF:
		*v = mem(e, cfa + (int64_t)r->off);
		return 0;
	case UW_RULE_REG:
		*v = regval(c, e, r->reg, pc);
		return 0;
	case UW_RULE_REG_OFF:
		*v = regval(c, e, r->reg, pc) + (int64_t)r->off;
		return 0;
	case UW_RULE_REG_DEREF:
		*v = mem(e, regval(c, e, r->reg, pc) + (int64_t)r->off);
		return 0;
	default:
		return -1;
	}
}

static int sframe_val(const struct ctx *c, const struct env *e,
		      const struct uw_row *row, uint64_t pc, struct val *v)
{
	memset(v, 0, sizeof(*v));
	v->signal = row->flags & UW_ROW_SIGNAL;
	v->mangled = row->flags & UW_ROW_RA_MANGLED;
	if ((row->flags & UW_ROW_OUTERMOST) || row->ra.kind == UW_RULE_UNDEF) {
		v->outermost = true;
		return 0;
	}
	if (row->cfa.kind == UW_RULE_REG_OFF)
		v->cfa = regval(c, e, row->cfa.reg, pc) + (int64_t)row->cfa.off;
	else if (row->cfa.kind == UW_RULE_REG_DEREF)
		v->cfa = mem(e, regval(c, e, row->cfa.reg, pc) +
			     (int64_t)row->cfa.off);
	else
		return -1;
	if (rule_val(c, e, &row->ra, c->ra, pc, v->cfa, &v->ra) ||
	    rule_val(c, e, &row->fp, c->fp, pc, v->cfa, &v->fp))
		return -1;
	return 0;
}

static bool val_eq(const struct val *a, const struct val *b)
{
	if (a->outermost || b->outermost)
		return a->outermost == b->outermost;
	return a->cfa == b->cfa && a->ra == b->ra && a->fp == b->fp;
}

static void report(struct ctx *c, uint64_t pc, const char *what)
{
	c->mismatches++;
	if (c->mismatches <= 20)
		printf("# %s: 0x%" PRIx64 ": %s\n", c->mode, pc, what);
}

/* ---- files ---- */

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
		r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*size = n;
	return buf;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The table file (scripts/uwind/README.md's layout) or "raw:PATH". */
static int load_table(struct ctx *c, const char *arg)
{
	struct uw_span s;
	size_t size;
	uint8_t *img;
	int err;

	if (!strncmp(arg, "raw:", 4)) {
		img = c->img = read_file(arg + 4, &size);
		if (!img)
			return -1;
		s.data = img;
		s.size = size;
		s.addr = 0;
	} else {
		img = c->img = read_file(arg, &size);
		if (!img || size < 128 || memcmp(img, "UWSFRAME", 8) ||
		    le(img + 8, 2) != 1 || le(img + 10, 2) != 128 ||
		    le(img + 0x28, 4) != size - 128) {
			fprintf(stderr, "sfverify: %s: not a table file\n", arg);
			return -1;
		}
		if (le(img + 0x0c, 2) != (uint64_t)c->machine) {
			fprintf(stderr, "sfverify: %s: for machine %u\n", arg,
				(unsigned int)le(img + 0x0c, 2));
			return -1;
		}
		s.data = img + 128;
		s.size = size - 128;
		s.addr = le(img + 0x10, 8);
	}
	err = uw_sframe_init(&c->sf, &s);
	if (err) {
		fprintf(stderr, "sfverify: %s: %s\n", arg, uw_strerror(err));
		return -1;
	}
	return 0;
}

/* The file's own .sframe section, at its address. */
static int load_gas(Elf *elf, struct uw_sframe *sf)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;
	struct uw_span s;

	scn = test_find_scn(elf, ".sframe", &sh);
	d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d)
		return -1;
	s.data = d->d_buf;
	s.size = d->d_size;
	s.addr = sh.sh_addr;
	return uw_sframe_init(sf, &s) ? -1 : 0;
}

struct text {
	uint64_t lo, hi;
	bool plt;		/* the section is .plt */
};

static size_t exec_sections(Elf *elf, struct text *t, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0, shstr = 0;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstr))
		shstr = 0;
	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		name = shstr ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		t[n].lo = sh.sh_addr;
		t[n].hi = sh.sh_addr + sh.sh_size;
		t[n].plt = name && !strcmp(name, ".plt");
		n++;
	}
	return n;
}

/* ---- the three oracles ---- */

static void check_pc_dwarf(struct ctx *c, Dwarf_Frame *fr, uint64_t pc,
			   bool signal, bool plt)
{
	struct uw_row row;
	struct val d, s;
	int t, have = uw_sframe_find(&c->sf, pc, &row) == 0;

	c->pcs++;
	if (!fr && have && plt && c->machine == EM_AARCH64) {
		/* PLT rows made from the code: sfconv.sh checks them. */
		c->plt_only++;
		return;
	}
	if (!fr) {
		if (have) {
			c->sframe_only++;
			report(c, pc, "a table row where DWARF has none");
		}
		return;
	}
	if (!have) {
		c->dwarf_only++;
		return;
	}
	for (t = 0; t < NTRIALS; t++) {
		if (dwarf_val(c, &c->env[t], fr, pc, &d)) {
			/* Beyond this test's machine: no SFrame form either. */
			c->skipped++;
			report(c, pc, "a table row where DWARF's rule is"
			       " beyond simple evaluation");
			return;
		}
		if (sframe_val(c, &c->env[t], &row, pc, &s)) {
			report(c, pc, "table row cannot be evaluated");
			return;
		}
		if (!val_eq(&d, &s)) {
			report(c, pc, d.outermost != s.outermost ?
			       "outermost differs" : "rules differ");
			return;
		}
	}
	/* V3 carries DWARF's signal-frame mark. */
	if (c->sf.version == 3 && s.signal != signal) {
		report(c, pc, "signal-frame mark differs");
		return;
	}
	c->outer += s.outermost;
	c->flex_like += !s.outermost && (row.cfa.kind == UW_RULE_REG_DEREF ||
		(row.cfa.reg != UW_X86_64_RSP && row.cfa.reg != UW_X86_64_RBP &&
		 c->machine == EM_X86_64));
	c->compared++;
}

static int mode_dwarf(struct ctx *c, Elf *elf)
{
	Dwarf_CFI *cfis[2] = { dwarf_getcfi_elf(elf), NULL };
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	struct text t[64];
	size_t nt, i, k;

	if (dw)
		cfis[1] = dwarf_getcfi(dw);
	nt = exec_sections(elf, t, 64);
	for (i = 0; i < nt; i++) {
		uint64_t pc = t[i].lo;

		while (pc < t[i].hi) {
			Dwarf_Frame *fr = NULL;
			Dwarf_Addr s, e = 0;
			bool sig = false;

			for (k = 0; k < 2 && !fr; k++)
				if (cfis[k] &&
				    dwarf_cfi_addrframe(cfis[k], pc, &fr))
					fr = NULL;
			if (fr && (dwarf_frame_info(fr, &s, &e, &sig) < 0 ||
				   e <= pc)) {
				free(fr);
				fr = NULL;
			}
			if (!fr) {
				check_pc_dwarf(c, NULL, pc, false, t[i].plt);
				pc++;
				continue;
			}
			if (e > t[i].hi)
				e = t[i].hi;
			for (; pc < e; pc++)
				check_pc_dwarf(c, fr, pc, sig, t[i].plt);
			free(fr);
		}
	}
	if (dw)
		dwarf_end(dw);
	else if (cfis[0])
		dwarf_cfi_end(cfis[0]);
	return 0;
}

/* readelf's register names, to DWARF numbers. */
static int reg_num(const struct ctx *c, const char *s)
{
	static const char *const x86[17] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip" };
	int i;

	if (c->machine == EM_X86_64) {
		for (i = 0; i < 17; i++)
			if (!strcmp(s, x86[i]))
				return i;
		return -1;
	}
	if (!strcmp(s, "sp"))
		return 31;
	if (s[0] == 'x' && s[1] >= '0' && s[1] <= '9')
		return atoi(s + 1);
	return -1;
}

/*
 * A readelf column as a value.  Returns 0, 1 for "no rule" ("u" / "s":
 * the caller decides), -1 for a form this test does not evaluate.
 */
static int col_val(const struct ctx *c, const struct env *e, const char *s,
		   uint64_t pc, uint64_t cfa, uint64_t *v)
{
	char name[16];
	long long off;
	int r;

	if (!strcmp(s, "u") || !strcmp(s, "s"))
		return 1;
	if (s[0] == 'c' && (s[1] == '+' || s[1] == '-')) {
		*v = mem(e, cfa + (uint64_t)strtoll(s + 1, NULL, 10));
		return 0;
	}
	if (sscanf(s, "%15[a-z0-9]%lld", name, &off) == 2) {
		r = reg_num(c, name);
		if (r < 0)
			return -1;
		*v = regval(c, e, (unsigned int)r, pc) + (uint64_t)off;
		return 0;
	}
	r = reg_num(c, s);
	if (r < 0)
		return -1;
	*v = regval(c, e, (unsigned int)r, pc);
	return 0;
}

/*
 * One readelf row at one pc.  RA "u": undefined on x86-64 (its CIE
 * always gives one); on AArch64 readelf also prints "u" for a column
 * not yet given a rule, which means "still in x30": either is accepted.
 */
static void check_pc_rows(struct ctx *c, uint64_t pc, const char *cfa,
			  const char *ra, const char *fp)
{
	struct uw_row row;
	struct val s;
	uint64_t dcfa, dra, dfp;
	int t, rr, rf, have = uw_sframe_find(&c->sf, pc, &row) == 0;

	c->pcs++;
	if (!have) {
		c->dwarf_only++;
		return;
	}
	for (t = 0; t < NTRIALS; t++) {
		const struct env *e = &c->env[t];

		if (sframe_val(c, e, &row, pc, &s)) {
			report(c, pc, "table row cannot be evaluated");
			return;
		}
		rr = strcmp(ra, "u") ? 2 : c->machine == EM_AARCH64 ? 3 : 1;
		if (rr == 1 || (rr == 3 && s.outermost)) {
			if (!s.outermost)
				report(c, pc, "RA undefined, row not outermost");
			else
				c->compared += t == NTRIALS - 1;
			continue;
		}
		if (col_val(c, e, cfa, pc, 0, &dcfa)) {
			c->skipped += t == 0;
			return;
		}
		if (rr == 3 || !strcmp(ra, "s"))
			dra = regval(c, e, c->ra, pc);
		else if (col_val(c, e, ra, pc, dcfa, &dra)) {
			c->skipped += t == 0;
			return;
		}
		rf = col_val(c, e, fp, pc, dcfa, &dfp);
		if (rf < 0) {
			c->skipped += t == 0;
			return;
		}
		if (rf > 0)
			dfp = regval(c, e, c->fp, pc);
		if (s.outermost || s.cfa != dcfa || s.ra != dra ||
		    s.fp != dfp) {
			report(c, pc, "rules differ from readelf's");
			return;
		}
		c->compared += t == NTRIALS - 1;
	}
}

static int mode_rows(struct ctx *c)
{
	char line[256], cfa[64], ra[64], fp[64];
	unsigned long long lo, hi, pc;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%llx %llx %63s %63s %63s", &lo, &hi, cfa, ra,
			   fp) != 5 || hi < lo || hi - lo > (1u << 24))
			continue;
		for (pc = lo; pc < hi; pc++)
			check_pc_rows(c, pc, cfa, ra, fp);
	}
	return 0;
}

static int mode_gas(struct ctx *c, Elf *elf)
{
	struct uw_sframe gas;
	struct text t[64];
	size_t nt, i;
	int k;

	if (load_gas(elf, &gas)) {
		fprintf(stderr, "sfverify: no readable .sframe\n");
		return -1;
	}
	nt = exec_sections(elf, t, 64);
	for (i = 0; i < nt; i++) {
		uint64_t pc;

		for (pc = t[i].lo; pc < t[i].hi; pc++) {
			struct uw_row a, b;
			struct val va, vb;
			int ha = uw_sframe_find(&gas, pc, &a) == 0;
			int hb = uw_sframe_find(&c->sf, pc, &b) == 0;

			c->pcs++;
			if (ha && !hb)
				c->dwarf_only++;	/* here: gas only */
			if (hb && !ha)
				c->sframe_only++;
			if (!ha || !hb)
				continue;
			for (k = 0; k < NTRIALS; k++) {
				if (sframe_val(c, &c->env[k], &a, pc, &va) ||
				    sframe_val(c, &c->env[k], &b, pc, &vb) ||
				    !val_eq(&va, &vb) ||
				    va.mangled != vb.mangled)
					break;
			}
			if (k < NTRIALS)
				report(c, pc, va.mangled != vb.mangled ?
				       "RA signing differs from the assembler's" :
				       "rules differ from the assembler's");
			else
				c->compared++;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c;
	GElf_Ehdr eh;
	Elf *elf;
	int fd, i, t, ret;

	if (argc != 4) {
		fprintf(stderr, "usage: sfverify dwarf|rows|gas FILE TABLE\n");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	c.mode = argv[1];
	elf_version(EV_CURRENT);
	fd = open(argv[2], O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		fprintf(stderr, "sfverify: %s: not ELF\n", argv[2]);
		return 2;
	}
	c.machine = eh.e_machine;
	if (c.machine == EM_X86_64) {
		c.sp = 7, c.fp = 6, c.ra = 16, c.pcreg = 16;
	} else if (c.machine == EM_AARCH64) {
		c.sp = 31, c.fp = 29, c.ra = 30, c.pcreg = 32;
	} else {
		fprintf(stderr, "sfverify: unsupported machine\n");
		return 2;
	}
	for (t = 0; t < NTRIALS; t++) {
		c.env[t].seed = mix(0x5f5f + (uint64_t)t);
		for (i = 0; i < NREGS; i++)
			c.env[t].reg[i] = mix(c.env[t].seed + (uint64_t)i) &
					  ~(uint64_t)7;
	}
	if (load_table(&c, argv[3]))
		return 2;
	if (!strcmp(argv[1], "dwarf"))
		ret = mode_dwarf(&c, elf);
	else if (!strcmp(argv[1], "rows"))
		ret = mode_rows(&c);
	else if (!strcmp(argv[1], "gas"))
		ret = mode_gas(&c, elf);
	else
		ret = -1;
	if (ret)
		return 2;
	printf("pcs %lu compared %lu dwarf-only %lu sframe-only %lu skipped %lu"
	       " outermost %lu flex %lu plt-from-code %lu mismatches %lu\n",
	       c.pcs, c.compared, c.dwarf_only, c.sframe_only, c.skipped,
	       c.outer, c.flex_like, c.plt_only, c.mismatches);
	elf_end(elf);
	close(fd);
	free(c.img);
	return c.mismatches || (strcmp(c.mode, "gas") && c.sframe_only) ? 1 : 0;
}
