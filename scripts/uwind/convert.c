// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind convert:
 *
 *   --breakpad ELF     DWARF CFI (.debug_frame, else .eh_frame), read with
 *                      elfutils' libdw, as Breakpad STACK CFI text
 *   --chrome SYM -o TABLE [--text ADDR]
 *                      ARM STACK CFI records to a Chrome unwind table
 *
 * The Breakpad text follows dump_syms: a MODULE line, then per FDE a
 * "STACK CFI INIT addr size" record with the rules at the function's
 * start (.cfa, .ra - the return address register's own name when the CFI
 * gives no rule - and every register with a rule) and a "STACK CFI addr"
 * record wherever rules change, listing the changed ones.  Addresses are
 * relative to the first PT_LOAD segment's address, rules are postfix
 * ("sp 16 +", ".cfa -4 + ^"), names sorted as std::map sorts them.
 * Like dump_syms, "undefined" rules and DWARF expressions are not
 * written; a register whose rule ends (DW_CFA_restore to nothing) is
 * written as its own name.
 *
 * A 32-bit ARM file without DWARF CFI (no FDE in .debug_frame or
 * .eh_frame: ARM GCC writes none without -g, only EHABI tables) gets its
 * records from .ARM.exidx/.ARM.extab instead, as dump_syms does; where
 * the rules go is explained in ehabi_rules.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include "uwind.h"
#include "cfi.h"
#include "chrome_gen.h"
#include "ehabi_rules.h"
#include "macho.h"

#define MAX_RULE	96

struct conv {
	Elf *elf;
	GElf_Ehdr eh;
	struct cfi_sec sec;	/* .debug_frame, else .eh_frame */
	uint64_t load;		/* first PT_LOAD address */
	const char *path;
	unsigned long skipped;
};

/* Breakpad's register names (DwarfCFIToModule::RegisterNames). */
static const char *const arm_names[16] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
	"r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc",
};

static const char *const x86_64_names[33] = {
	"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp",
	"$r8", "$r9", "$r10", "$r11", "$r12", "$r13", "$r14", "$r15",
	"$rip", "$xmm0", "$xmm1", "$xmm2", "$xmm3", "$xmm4", "$xmm5",
	"$xmm6", "$xmm7", "$xmm8", "$xmm9", "$xmm10", "$xmm11", "$xmm12",
	"$xmm13", "$xmm14", "$xmm15",
};

static const char *const x86_names[9] = {
	"$eax", "$ecx", "$edx", "$ebx", "$esp", "$ebp", "$esi", "$edi", "$eip",
};

static const char *arch_module_name(int machine)
{
	switch (machine) {
	case EM_ARM: return "arm";
	case EM_AARCH64: return "arm64";
	case EM_X86_64: return "x86_64";
	case EM_386: return "x86";
	case EM_PPC: return "ppc";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390x";
	case EM_RISCV: return "riscv";
	default: return "unknown";
	}
}

/* The stack pointer's DWARF number, or -1. */
static int sp_reg(int machine)
{
	switch (machine) {
	case EM_ARM: return 13;
	case EM_AARCH64: return 31;
	case EM_X86_64: return 7;
	case EM_386: return 4;
	default: return -1;
	}
}

static const char *reg_name(int machine, unsigned int r, char *buf, size_t len)
{
	switch (machine) {
	case EM_ARM:
		if (r < 16)
			return arm_names[r];
		if (r >= 64 && r <= 95) {	/* legacy VFP numbering */
			snprintf(buf, len, "s%u", r - 64);
			return buf;
		}
		break;
	case EM_AARCH64:
		if (r <= 30) {
			snprintf(buf, len, "x%u", r);
			return buf;
		}
		if (r == 31)
			return "sp";
		if (r == 32)
			return "pc";
		if (r >= 64 && r <= 95) {
			snprintf(buf, len, "v%u", r - 64);
			return buf;
		}
		break;
	case EM_X86_64:
		if (r < 33)
			return x86_64_names[r];
		break;
	case EM_386:
		if (r < 9)
			return x86_names[r];
		break;
	}
	snprintf(buf, len, "unnamed_register%u", r);
	return buf;
}

/* The registers worth asking libdw about. */
static unsigned int reg_list(int machine, unsigned int *regs)
{
	unsigned int n = 0, r;

	switch (machine) {
	case EM_ARM:
		/* Not pc: libdw's ARM defaults give it lr's value. */
		for (r = 0; r < 15; r++)
			regs[n++] = r;
		for (r = 64; r < 96; r++)	/* VFP s0-s31 (GCC) */
			regs[n++] = r;
		for (r = 256; r < 288; r++)	/* VFP d0-d31 */
			regs[n++] = r;
		break;
	case EM_AARCH64:
		for (r = 0; r <= 31; r++)
			regs[n++] = r;
		for (r = 64; r < 96; r++)
			regs[n++] = r;
		break;
	case EM_X86_64:
		for (r = 0; r < 33; r++)
			regs[n++] = r;
		break;
	case EM_386:
		for (r = 0; r < 9; r++)
			regs[n++] = r;
		break;
	default:
		for (r = 0; r < 64; r++)
			regs[n++] = r;
		break;
	}
	return n;
}

#define MAX_REGS	128

/* One row's rules: index 0 .cfa, 1 .ra, 2.. the registers of reg_list. */
struct rules {
	char v[MAX_REGS + 2][MAX_RULE];	/* "" = no rule */
};

static void cfa_rule(struct conv *c, Dwarf_Frame *fr, char *out)
{
	Dwarf_Op *ops;
	size_t nops;
	char buf[32];

	out[0] = '\0';
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_bregx)
		return;		/* an expression: dump_syms writes none */
	snprintf(out, MAX_RULE, "%s %" PRId64 " +",
		 reg_name(c->eh.e_machine, (unsigned int)ops[0].number, buf,
			  sizeof(buf)),
		 (int64_t)ops[0].number2);
}

static void reg_rule(struct conv *c, Dwarf_Frame *fr, unsigned int r,
		     char *out)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0, i = 1;
	int64_t off = 0;
	int value = 0;
	char buf[32];

	out[0] = '\0';
	if (dwarf_frame_register(fr, (int)r, mem, &ops, &nops) || !nops)
		return;		/* same value or undefined: no rule */
	if (ops[0].atom == DW_OP_regx && nops == 1) {
		snprintf(out, MAX_RULE, "%s",
			 reg_name(c->eh.e_machine, (unsigned int)ops[0].number,
				  buf, sizeof(buf)));
		return;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return;		/* an expression */
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		off = (int64_t)ops[i++].number;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		value = 1;
		i++;
	}
	if (i != nops)
		return;
	/* The stack pointer is the CFA unless said otherwise: implicit. */
	if (value && off == 0 && (int)r == sp_reg(c->eh.e_machine))
		return;
	snprintf(out, MAX_RULE, ".cfa %" PRId64 " +%s", off, value ? "" : " ^");
}

struct kv {
	const char *k, *v;
};

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

/* Print the rules of row cur that differ from prev (all of them if !prev). */
static void print_rules(struct conv *c, unsigned int nregs, unsigned int ra,
			const struct rules *prev, const struct rules *cur,
			char names[][32], FILE *out)
{
	struct kv kv[MAX_REGS + 2];
	unsigned int i, n = 0;
	char rabuf[32];
	const char *ra_default = reg_name(c->eh.e_machine, ra, rabuf,
					  sizeof(rabuf));

	for (i = 0; i < nregs + 2; i++) {
		const char *v = cur->v[i];

		if (i == 1 && !v[0])
			v = ra_default;		/* the RA register itself */
		if (prev) {
			const char *pv = prev->v[i];

			if (i == 1 && !pv[0])
				pv = ra_default;
			if (!strcmp(v, pv))
				continue;
			if (!v[0] && i == 0)
				continue;	/* CFA became an expression */
			if (!v[0])
				v = names[i];	/* back to "same value" */
		}
		if (!v[0])
			continue;
		kv[n].k = names[i];
		kv[n].v = v;
		n++;
	}
	qsort(kv, n, sizeof(kv[0]), kv_cmp);
	for (i = 0; i < n; i++)
		fprintf(out, " %s: %s", kv[i].k, kv[i].v);
}

static int fde_cmp(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Rows of one FDE, as STACK CFI INIT then STACK CFI records. */
static void write_fde(struct conv *c, const struct cfi_fde *f, FILE *out)
{
	unsigned int regs[MAX_REGS], nregs, i, ra = 0;
	char nbuf[32];
	static char names[MAX_REGS + 2][32];
	struct rules *prev = NULL, *cur, *tmp;
	Dwarf_Addr s, e, addr = f->start, end = f->start + f->len;
	Dwarf_Frame *fr;
	int first = 1, rc;

	nregs = reg_list(c->eh.e_machine, regs);
	prev = calloc(1, sizeof(*prev));
	cur = calloc(1, sizeof(*cur));
	if (!prev || !cur)
		goto out;
	while (addr < end) {
		if (dwarf_cfi_addrframe(c->sec.cfi, addr, &fr))
			break;
		rc = dwarf_frame_info(fr, &s, &e, NULL);
		if (rc < 0 || e <= addr) {
			free(fr);
			break;
		}
		ra = (unsigned int)rc;
		snprintf(names[0], sizeof(names[0]), ".cfa");
		snprintf(names[1], sizeof(names[1]), ".ra");
		cfa_rule(c, fr, cur->v[0]);
		reg_rule(c, fr, ra, cur->v[1]);
		for (i = 0; i < nregs; i++) {
			cur->v[i + 2][0] = '\0';
			if (regs[i] == ra)
				continue;	/* written as .ra */
			snprintf(names[i + 2], sizeof(names[i + 2]), "%s",
				 reg_name(c->eh.e_machine, regs[i], nbuf,
					  sizeof(nbuf)));
			reg_rule(c, fr, regs[i], cur->v[i + 2]);
		}
		free(fr);
		if (first) {
			fprintf(out, "STACK CFI INIT %" PRIx64 " %" PRIx64,
				f->start - c->load, f->len);
			print_rules(c, nregs, ra, NULL, cur, names, out);
			fputc('\n', out);
			first = 0;
		} else {
			/*
			 * Empty first: a row with nothing to print (its CFA is
			 * an expression) writes nothing, and glibc's fmemopen
			 * leaves the buffer as it was, the last row's line.
			 */
			char line[4096] = "";
			FILE *m = fmemopen(line, sizeof(line), "w");

			if (!m)
				break;
			print_rules(c, nregs, ra, prev, cur, names, m);
			fclose(m);
			if (line[0])
				fprintf(out, "STACK CFI %" PRIx64 "%s\n",
					(uint64_t)addr - c->load, line);
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
		addr = e;
	}
out:
	free(prev);
	free(cur);
}

/*
 * Breakpad's module id of an ELF file: its build id (else a hash of the
 * first 4 KiB of .text) as a GUID, the first three fields byte-swapped,
 * and an age of 0.  id: 34 bytes; bid/bidlen: the raw build id.
 */
void elf_breakpad_id(Elf *elf, char *id, uint8_t *bid, size_t *bidlen)
{
	uint8_t g[16] = { 0 };
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t i;

	*bidlen = cfi_build_id(elf, bid, 64);
	if (*bidlen) {
		memcpy(g, bid, *bidlen < 16 ? *bidlen : 16);
	} else if ((scn = cfi_find_scn(elf, ".text", &sh))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? (d->d_size < 4096 ? d->d_size : 4096) : 0;

		for (i = 0; i < n; i++)
			g[i % 16] ^= ((uint8_t *)d->d_buf)[i];
	}
	sprintf(id, "%02X%02X%02X%02X%02X%02X%02X%02X", g[3], g[2], g[1],
		g[0], g[5], g[4], g[7], g[6]);
	for (i = 8; i < 16; i++)
		sprintf(id + 16 + 2 * (i - 8), "%02X", g[i]);
	strcat(id, "0");
}

static void print_module(struct conv *c, FILE *out)
{
	uint8_t bid[64];
	size_t bidlen, i;
	char id[34];
	const char *base = strrchr(c->path, '/');

	elf_breakpad_id(c->elf, id, bid, &bidlen);
	fprintf(out, "MODULE Linux %s %s %s\n",
		arch_module_name(c->eh.e_machine), id,
		base ? base + 1 : c->path);
	if (bidlen) {
		fprintf(out, "INFO CODE_ID ");
		for (i = 0; i < bidlen; i++)
			fprintf(out, "%02x", bid[i]);
		fputc('\n', out);
	}
}

/* .debug_frame if it has CFI, else .eh_frame: 0, or -1 for none. */
static int open_cfi(struct conv *c)
{
	size_t i, n;
	GElf_Phdr ph;

	if (!elf_getphdrnum(c->elf, &n)) {
		for (i = 0; i < n; i++) {
			if (gelf_getphdr(c->elf, (int)i, &ph) &&
			    ph.p_type == PT_LOAD) {
				c->load = ph.p_vaddr;
				break;
			}
		}
	}
	if (!cfi_sec_open(&c->sec, c->elf, ".debug_frame"))
		return 0;
	return cfi_sec_open(&c->sec, c->elf, ".eh_frame") ? -1 : 0;
}

/* Dead code's FDEs keep address 0 (or -1, -2): not written. */
static bool fde_usable(const struct conv *c, const struct cfi_fde *f)
{
	return f->len && f->start >= c->load && f->start &&
	       f->start + f->len >= f->start &&
	       (c->eh.e_ident[EI_CLASS] == ELFCLASS64 ||
		f->start < 0xfffffffeu);
}

/* No DWARF CFI in a 32-bit ARM file: the records from its EHABI tables. */
static int ehabi_breakpad(struct conv *c, FILE *out)
{
	struct ehabi_cfi_stats st;
	struct arm_elf a;
	int ret = 1;

	memset(&a, 0, sizeof(a));
	a.fd = -1;
	if (c->eh.e_type == ET_REL) {
		fprintf(stderr, "uwind: %s: no DWARF CFI, and .ARM.exidx is not"
			" relocated in a relocatable file\n", c->path);
		goto out;
	}
	if (arm_open(&a, c->path) || !a.eh.count) {
		fprintf(stderr, "uwind: %s: no DWARF CFI (.debug_frame or"
			" .eh_frame) and no .ARM.exidx entries\n", c->path);
		goto out;
	}
	print_module(c, out);
	if (ehabi_write_cfi(&a, c->load, out, &st)) {
		fprintf(stderr, "uwind: out of memory\n");
		goto out;
	}
	if (st.errors || st.inexpr)
		fprintf(stderr, "uwind: %s: .ARM.exidx: %lu of %lu entries"
			" skipped (%lu malformed, %lu with rules STACK CFI"
			" cannot say)\n", c->path, st.errors + st.inexpr,
			st.entries, st.errors, st.inexpr);
	ret = fflush(out) ? 1 : 0;
out:
	arm_close(&a);
	return ret;
}

static int to_breakpad(const char *path, const char *arch, FILE *out)
{
	struct conv c;
	struct cfi_list l = { 0 };
	struct cfi_fde *f = NULL;
	size_t n = 0, i, usable = 0;
	int fd, ret = 1, nocfi;

	if (tool_file_check(path, false, NULL))
		return 1;
	if (macho_is(path))
		return cu_to_breakpad(path, arch, out);
	if (arch)
		return tool_usage("--arch is for Mach-O files");
	memset(&c, 0, sizeof(c));
	c.path = path;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return 1;
	}
	c.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (tool_elf_check(path, c.elf) || !gelf_getehdr(c.elf, &c.eh))
		goto out;
	if (cfi_is_object(c.elf)) {
		tool_err(path, "%s", CFI_OBJECT_REFUSED);
		goto out;
	}
	nocfi = open_cfi(&c);
	if (!nocfi && cfi_list_fdes(&c.sec, &l)) {
		fprintf(stderr, "uwind: out of memory\n");
		goto out;
	}
	f = l.fdes;
	n = l.nfdes;
	for (i = 0; i < n; i++)
		usable += fde_usable(&c, &f[i]);
	if (!usable && arm_is_elf32(c.elf)) {
		ret = ehabi_breakpad(&c, out);
		goto out;
	}
	if (nocfi) {
		fprintf(stderr, "uwind: %s: no DWARF CFI (.debug_frame or"
			" .eh_frame)\n", path);
		goto out;
	}
	if (n)
		qsort(f, n, sizeof(*f), fde_cmp);
	print_module(&c, out);
	for (i = 0; i < n; i++) {
		if (!fde_usable(&c, &f[i])) {
			c.skipped++;
			continue;
		}
		write_fde(&c, &f[i], out);
	}
	ret = fflush(out) ? 1 : 0;
out:
	cfi_list_free(&l);
	cfi_sec_close(&c.sec);
	if (c.elf)
		elf_end(c.elf);
	close(fd);
	return ret;
}

static int to_chrome(const char *sym, const char *outp, const char *text,
		     int verbose)
{
	struct cg_funcs fs;
	uint64_t text_start = 0;
	uint8_t *blob = NULL;
	size_t size = 0;
	char err[160];
	FILE *in, *out;
	int ret = 1;

	if (text && parse_addr(text, &text_start))
		return tool_usage("--text '%s' is not a hex address", text);
	if (strcmp(sym, "-") && tool_file_check(sym, false, NULL))
		return 1;
	in = strcmp(sym, "-") ? fopen(sym, "r") : stdin;
	if (!in) {
		fprintf(stderr, "uwind: %s: %s\n", sym, strerror(errno));
		return 1;
	}
	if (cg_parse_sym(in, &fs, verbose ? stderr : NULL)) {
		fprintf(stderr, "uwind: %s: malformed STACK CFI records\n", sym);
		goto out;
	}
	if (verbose)
		fprintf(stderr, "uwind: convert: %zu functions, %zu/%zu rows"
			" handled, %zu epilogues, %zu unrecognized, %zu"
			" refused\n", fs.n, fs.handled, fs.rows, fs.epilogues,
			fs.unrecognized, fs.refused);
	if (cg_build(&fs, text_start, &blob, &size, err, sizeof(err))) {
		fprintf(stderr, "uwind: %s: %s\n", sym, err);
		goto out;
	}
	out = fopen(outp, "wb");
	if (!out || fwrite(blob, 1, size, out) != size) {
		fprintf(stderr, "uwind: %s: %s\n", outp, strerror(errno));
		if (out)
			fclose(out);
		goto out;
	}
	if (fclose(out)) {
		fprintf(stderr, "uwind: %s: %s\n", outp, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(blob);
	cg_free(&fs);
	if (in != stdin)
		fclose(in);
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	const char *bp = NULL, *chrome = NULL, *outp = NULL, *text = NULL;
	const char *arch = take_arch(&argc, argv);
	int i, verbose = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--breakpad") && i + 1 < argc)
			bp = argv[++i];
		else if (!strcmp(argv[i], "--chrome") && i + 1 < argc)
			chrome = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			outp = argv[++i];
		else if (!strcmp(argv[i], "--text") && i + 1 < argc)
			text = argv[++i];
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			return tool_usage("unexpected argument %s, or an option"
					  " without its value", argv[i]);
	}
	if (bp && !chrome && !outp && !text)
		return to_breakpad(bp, arch, stdout);
	if (chrome && !bp && outp)
		return to_chrome(chrome, outp, text, verbose);
	return tool_usage(bp && chrome ? "--breakpad or --chrome, not both" :
			  chrome ? "--chrome needs -o TABLE" :
			  bp ? "--breakpad takes neither -o nor --text" :
			  "--breakpad FILE or --chrome SYM");
}
