// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM EHABI in the tool (see ehabi_rules.h): the ELF file and its tables,
 * the synthetic frame the opcodes run on, and STACK CFI records from
 * them for `uwind convert --breakpad` on files without DWARF CFI.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ehabi_rules.h"

#ifndef SHT_ARM_EXIDX
#define SHT_ARM_EXIDX	0x70000001
#endif
#ifndef PT_ARM_EXIDX
#define PT_ARM_EXIDX	0x70000001
#endif
#ifndef EM_ARM
#define EM_ARM		40
#endif

static void *copy_out(Elf *elf, uint64_t off, uint64_t size)
{
	size_t fsize;
	char *img = elf_rawfile(elf, &fsize);
	void *p;

	if (!img || off > fsize || size > fsize - off)
		return NULL;
	p = malloc(size ? size : 1);
	if (p)
		memcpy(p, img + off, size);
	return p;
}

bool arm_is_elf32(Elf *elf)
{
	GElf_Ehdr eh;

	return elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	       eh.e_machine == EM_ARM && eh.e_ident[EI_CLASS] == ELFCLASS32;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct arm_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* FUNC symbols from .symtab (read first) before .dynsym ones. */
	return x < y ? -1 : x > y;
}

static void add_text(struct arm_elf *a, uint64_t lo, uint64_t hi,
		     uint64_t off)
{
	struct arm_range *r = realloc(a->text, (a->ntext + 1) * sizeof(*r));

	if (!r)
		return;
	a->text = r;
	r[a->ntext].lo = lo;
	r[a->ntext].hi = hi;
	r[a->ntext].off = off;
	a->ntext++;
}

/* FUNC and mapping symbols of one symbol table section. */
static void read_syms(struct arm_elf *a, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym s;

	if (!d || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;
		struct arm_sym *ns, *t;
		char kind = 0;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(a->elf, sh->sh_link, s.st_name);
		if (!name)
			continue;
		if (GELF_ST_TYPE(s.st_info) == STT_FUNC && *name)
			kind = 'f';
		else if (name[0] == '$' && strchr("atd", name[1]) &&
			 (name[2] == 0 || name[2] == '.'))
			kind = name[1];
		if (!kind)
			continue;
		ns = realloc(a->syms, (a->nsyms + 1) * sizeof(*ns));
		if (!ns)
			return;
		a->syms = ns;
		t = &ns[a->nsyms++];
		t->addr = kind == 'f' ? s.st_value & ~(GElf_Addr)1 : s.st_value;
		t->size = s.st_size;
		t->name = name;
		t->kind = kind;
		t->thumb = kind == 'f' ? (char)(s.st_value & 1) : kind == 't';
	}
}

/*
 * What arm_is_thumb() asks of the symbols before an address, summed up
 * per symbol in one pass, so that each question is a binary search (it
 * is asked once per table entry, and was a scan from the start).
 */
static void index_syms(struct arm_elf *a)
{
	uint64_t reach = 0, end;
	long map = -1;
	size_t i;

	for (i = 0; i < a->nsyms; i++) {
		struct arm_sym *s = &a->syms[i];

		if (s->kind == 'a' || s->kind == 't') {
			map = (long)i;
		} else if (s->kind == 'd') {
			map = -1;
		} else {
			end = s->addr + s->size < s->addr ? UINT64_MAX :
			      s->addr + s->size;
			if (end > reach)
				reach = end;
		}
		s->map = map;
		s->reach = reach;
	}
}

void arm_close(struct arm_elf *a)
{
	free(a->xbuf);
	free(a->tbuf);
	free(a->syms);
	free(a->text);
	if (a->elf)
		elf_end(a->elf);
	if (a->fd >= 0)
		close(a->fd);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}

/* The PT_LOAD segment holding vaddr, as the extab span (no sections). */
static int segment_extab(struct arm_elf *a, uint64_t vaddr)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(a->elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(a->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		a->tbuf = copy_out(a->elf, ph.p_offset, ph.p_filesz);
		if (!a->tbuf)
			return -1;
		a->extab.data = a->tbuf;
		a->extab.size = ph.p_filesz;
		a->extab.addr = ph.p_vaddr;
		return 0;
	}
	return -1;
}

/* Sections first, then PT_ARM_EXIDX: 0 loaded, 1 no table, -1 error. */
static int find_tables(struct arm_elf *a)
{
	GElf_Shdr sh, xsh = { 0 }, tsh = { 0 };
	Elf_Scn *scn = NULL;
	size_t shstrndx, i, n;
	GElf_Phdr ph;

	if (!elf_getshdrstrndx(a->elf, &shstrndx)) {
		while ((scn = elf_nextscn(a->elf, scn))) {
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(a->elf, shstrndx, sh.sh_name);
			if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
				read_syms(a, scn, &sh);
			if ((sh.sh_flags & SHF_EXECINSTR) &&
			    (sh.sh_flags & SHF_ALLOC) && sh.sh_size)
				add_text(a, sh.sh_addr, sh.sh_addr + sh.sh_size,
					 sh.sh_type == SHT_NOBITS ?
					 (uint64_t)-1 : sh.sh_offset);
			if (sh.sh_type == SHT_NOBITS || !name)
				continue;
			if (!xsh.sh_type && (sh.sh_type == SHT_ARM_EXIDX ||
					     !strcmp(name, ".ARM.exidx")))
				xsh = sh;
			else if (!tsh.sh_type && !strcmp(name, ".ARM.extab"))
				tsh = sh;
		}
	}
	if (a->nsyms)
		qsort(a->syms, a->nsyms, sizeof(*a->syms), cmp_sym);
	index_syms(a);
	if (xsh.sh_type) {
		a->exidx_name = ".ARM.exidx";
		a->exidx_off = xsh.sh_offset;
		a->exidx.addr = xsh.sh_addr;
		a->exidx.size = xsh.sh_size;
		a->xbuf = copy_out(a->elf, xsh.sh_offset, xsh.sh_size);
		if (tsh.sh_type) {
			a->extab.addr = tsh.sh_addr;
			a->extab.size = tsh.sh_size;
			a->tbuf = copy_out(a->elf, tsh.sh_offset, tsh.sh_size);
			if (!a->tbuf)
				return -1;
			a->extab.data = a->tbuf;
		}
		if (!a->xbuf)
			return -1;
		a->exidx.data = a->xbuf;
		return 0;
	}
	if (elf_getphdrnum(a->elf, &n))
		return 1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(a->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !a->ntext)
			add_text(a, ph.p_vaddr, ph.p_vaddr + ph.p_memsz,
				 ph.p_offset);
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(a->elf, (int)i, &ph) ||
		    ph.p_type != PT_ARM_EXIDX)
			continue;
		a->exidx_name = "PT_ARM_EXIDX";
		a->exidx_off = ph.p_offset;
		a->exidx.addr = ph.p_vaddr;
		a->exidx.size = ph.p_filesz;
		a->xbuf = copy_out(a->elf, ph.p_offset, ph.p_filesz);
		if (!a->xbuf)
			return -1;
		a->exidx.data = a->xbuf;
		/* extab lives in the same read-only segment. */
		segment_extab(a, ph.p_vaddr);
		return 0;
	}
	return 1;
}

int arm_open(struct arm_elf *a, const char *path)
{
	GElf_Ehdr ehdr;
	int err;

	memset(a, 0, sizeof(*a));
	a->path = path;
	a->fd = -1;
	if (tool_file_check(path, false, NULL))
		return -1;
	elf_version(EV_CURRENT);
	a->fd = open(path, O_RDONLY);
	if (a->fd < 0) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	a->elf = elf_begin(a->fd, ELF_C_READ_MMAP, NULL);
	if (!a->elf || !arm_is_elf32(a->elf) || !gelf_getehdr(a->elf, &ehdr)) {
		fprintf(stderr, "uwind: %s: not a 32-bit ARM ELF file\n", path);
		return -1;
	}
	a->be = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	err = find_tables(a);
	if (err) {
		fprintf(stderr, "uwind: %s: %s\n", path, err > 0 ?
			"no .ARM.exidx section" :
			"cannot read the ARM unwind tables");
		return -1;
	}
	err = uw_ehabi_init(&a->eh, &a->exidx,
			    a->extab.data ? &a->extab : NULL, a->be);
	if (err) {
		fprintf(stderr, "uwind: %s: bad .ARM.exidx: %s\n", path,
			uw_strerror(err));
		return -1;
	}
	return 0;
}

const struct arm_sym *arm_func_at(const struct arm_elf *a, uint64_t addr)
{
	size_t lo = 0, hi = a->nsyms, mid;

	addr &= ~(uint64_t)1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < a->nsyms && a->syms[lo].addr == addr; lo++)
		if (a->syms[lo].kind == 'f')
			return &a->syms[lo];
	return NULL;
}

bool arm_is_thumb(const struct arm_elf *a, uint64_t addr)
{
	size_t lo = 0, hi = a->nsyms, mid, n;

	if (addr & 1)
		return true;
	/* n: the symbols at or below addr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	n = lo;
	if (!n)
		return false;
	/* The last mapping symbol before addr decides... */
	if (a->syms[n - 1].map >= 0)
		return a->syms[a->syms[n - 1].map].thumb;
	/* ...else the first FUNC symbol (in address order) holding addr. */
	lo = 0;
	hi = n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->syms[mid].reach > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < n && a->syms[lo].thumb;
}

const struct arm_range *arm_text_at(const struct arm_elf *a, uint64_t addr)
{
	size_t i;

	for (i = 0; i < a->ntext; i++)
		if (addr >= a->text[i].lo && addr < a->text[i].hi)
			return &a->text[i];
	return NULL;
}

bool arm_in_text(const struct arm_elf *a, uint64_t addr)
{
	return !a->ntext || arm_text_at(a, addr);
}


/* ---- the synthetic frame ---- */

static int syn_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct syn_mem *m = ctx;
	uint32_t v;
	uint8_t *p = dst;

	if (len != 4 || m->n >= SYN_READS)
		return -1;
	m->addr[m->n] = (uint32_t)addr;
	v = SYN_MARK(m->n);
	m->n++;
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	return 0;
}

void syn_begin(struct syn_mem *m, struct uw_walk_cfg *cfg, struct uw_regs *r,
	       uint64_t pc)
{
	unsigned int n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = UW_ARCH_ARM;
	cfg->mem.read = syn_read;
	cfg->mem.ctx = m;
	m->n = 0;
	memset(r, 0, sizeof(*r));
	for (n = 0; n <= 14; n++)
		uw_reg_set(r, n, n == 13 ? SYN_SP : SYN_REG(n));
	uw_reg_set(r, 15, pc);
}

int syn_exec(const struct arm_elf *a, const struct uw_ehabi_entry *e,
	     uint64_t pc, struct syn_mem *m, struct uw_regs *r)
{
	struct uw_ehabi_ops ops = e->ops;
	struct uw_walk_cfg cfg;

	syn_begin(m, &cfg, r, pc);
	return uw_ehabi_exec(&a->eh, &ops, &cfg, r);
}

static bool near(uint32_t v, uint32_t base, int32_t *off)
{
	int64_t d = (int64_t)v - base;

	if (d <= -SYN_NEAR || d >= SYN_NEAR)
		return false;
	*off = (int32_t)d;
	return true;
}

bool syn_reg_off(uint32_t v, unsigned int *base, int32_t *off)
{
	unsigned int n;

	if (near(v, SYN_SP, off)) {
		*base = 13;
		return true;
	}
	for (n = 0; n <= 14; n++) {
		if (n != 13 && near(v, SYN_REG(n), off)) {
			*base = n;
			return true;
		}
	}
	return false;
}

bool syn_marker(const struct syn_mem *m, uint32_t v, unsigned int *k,
		int32_t *off)
{
	uint32_t d;

	if (v < SYN_MARK(0) || v >= SYN_MARK(SYN_READS))
		return false;
	d = v - SYN_MARK(0);
	*k = (d + 0x8000) >> 16;
	if (*k >= m->n)
		return false;
	*off = (int32_t)(v - SYN_MARK(*k));
	return true;
}

/* A value as base+offset: sp, rN, or [a stack slot]. */
static void syn_desc(FILE *f, const struct syn_mem *m, uint32_t v, int depth)
{
	unsigned int n, k;
	int32_t off;

	if (syn_reg_off(v, &n, &off)) {
		if (n == 13)
			fprintf(f, "sp%+d", off);
		else
			fprintf(f, "r%u%+d", n, off);
		return;
	}
	if (depth < 4 && syn_marker(m, v, &k, &off)) {
		fputc('[', f);
		syn_desc(f, m, m->addr[k], depth + 1);
		fputc(']', f);
		if (off)
			fprintf(f, "%+d", off);
		return;
	}
	fprintf(f, "0x%x", v);
}

/* A register's rule: unchanged, from a register, or saved at CFA+N. */
static void syn_rule(FILE *out, const struct syn_mem *m, uint32_t cfa,
		     uint32_t v, unsigned int self, const char *self_name)
{
	unsigned int n, k;
	int32_t off;
	int64_t d;

	for (n = 0; n <= 14; n++) {
		if (n != 13 && v == SYN_REG(n)) {
			if (n == self)
				fputs(self_name, out);
			else if (n == 14)
				fputs("lr", out);
			else
				fprintf(out, "r%u", n);
			return;
		}
	}
	if (syn_marker(m, v, &k, &off) && !off) {
		d = (int64_t)m->addr[k] - cfa;
		if (d > -SYN_NEAR && d < SYN_NEAR) {
			fprintf(out, "c%+d", (int)d);
			return;
		}
	}
	syn_desc(out, m, v, 0);
}

int syn_print_result(FILE *out, const struct syn_mem *m,
		     const struct uw_regs *r, unsigned int fpreg, int err)
{
	if (err == UW_EREFUSE) {
		fputs(" refuse\n", out);
		return 0;
	}
	if (err) {
		fprintf(out, " error %s\n", uw_strerror(err));
		return 1;
	}
	fputs(" cfa=", out);
	syn_desc(out, m, (uint32_t)r->r[13], 0);
	fputs(" ra=", out);
	syn_rule(out, m, (uint32_t)r->r[13], (uint32_t)r->r[15], 14, "lr");
	fputs(" fp=", out);
	syn_rule(out, m, (uint32_t)r->r[13], (uint32_t)r->r[fpreg], fpreg, "u");
	fputc('\n', out);
	return 0;
}

/* ---- STACK CFI records ---- */

/*
 * Breakpad's dump_syms reads .ARM.exidx when a 32-bit ARM file has no
 * DWARF CFI (arm_ex_reader.cc, arm_ex_to_module.cc): per index entry one
 * STACK CFI INIT record covering the function (up to the next entry),
 * whose rules are what the opcodes say, put at the function's first
 * address.  Those rules are those of the body: at the first instruction
 * nothing is pushed yet.  So here the INIT record says what holds there,
 * ".cfa: sp 0 + .ra: lr", and one STACK CFI record at the second
 * instruction (the first one's length read from the code: 4 in ARM code,
 * 2 or 4 in Thumb code, ARM unless the symbols say Thumb) gives the body's
 * rules, the way a DWARF row after the first instruction would.  Between
 * the second instruction and the end of the prologue (and in epilogues)
 * these rules are as wrong as EHABI itself is there; Breakpad's are wrong
 * at the first instruction too.
 *
 * The body rules are read off the synthetic frame:
 *   .cfa  "sp N +" or "rN N +" (a vsp = rN opcode); "B N + ^" (M +") when
 *         the sp itself was popped, B N + the slot's address;
 *   .ra   "lr" (not written) or ".cfa K + ^" for the slot r15 (r14 unless
 *         r15 was popped) came from;
 *   rN    every other core register popped, ".cfa K + ^" ("lr" for r14
 *         when r15 was popped too).  A slot not addressed off the CFA's
 *         base (popped before a vsp = rN) is "B N + ^".
 * Register names and order as Breakpad writes them (std::map order).
 * EXIDX_CANTUNWIND, refuse-to-unwind and malformed entries get no records,
 * as in Breakpad; so does an entry whose rules have no such form.
 * The size of the last entry's function is its FUNC symbol's, else up to
 * the end of its executable section.
 */

static const char *const bp_names[16] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
	"r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc",
};

struct bp_kv {
	const char *k;
	char v[48];
};

static int bp_kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bp_kv *)a)->k, ((const struct bp_kv *)b)->k);
}

/* The first instruction's length at addr: 2 or 4. */
static unsigned int insn_len(const struct arm_elf *a, uint64_t addr)
{
	const struct arm_range *t;
	GElf_Ehdr eh;
	size_t fsize;
	const uint8_t *img;
	uint64_t off;
	uint16_t h;
	bool be32;

	if (!arm_is_thumb(a, addr))
		return 4;
	t = arm_text_at(a, addr);
	img = (const uint8_t *)elf_rawfile(a->elf, &fsize);
	if (!t || !img || t->off == (uint64_t)-1 || !gelf_getehdr(a->elf, &eh))
		return 2;
	off = t->off + (addr - t->lo);
	if (off > fsize || fsize - off < 2)
		return 2;
	/* Code is little-endian except in big-endian images before BE8. */
	be32 = a->be && !(eh.e_flags & EF_ARM_BE8);
	h = be32 ? (uint16_t)(img[off] << 8 | img[off + 1]) :
		   (uint16_t)(img[off + 1] << 8 | img[off]);
	/* 32-bit Thumb-2 encodings start with 0b11101, 0b11110, 0b11111. */
	return (h & 0xf800) >= 0xe800 ? 4 : 2;
}

/* A slot's address as a rule: relative to the CFA when it can be. */
static bool slot_rule(const struct syn_mem *m, unsigned int k, bool cfa_reg,
		      unsigned int cfa_base, int32_t cfa_off, char *buf,
		      size_t len)
{
	unsigned int b;
	int32_t off;

	if (!syn_reg_off(m->addr[k], &b, &off))
		return false;
	if (cfa_reg && b == cfa_base)
		snprintf(buf, len, ".cfa %" PRId32 " + ^", off - cfa_off);
	else
		snprintf(buf, len, "%s %" PRId32 " + ^", bp_names[b], off);
	return true;
}

/*
 * The body's rules after the run on the synthetic frame, as "name: rule"
 * text (empty: the same as at the function start); false if a rule has
 * no STACK CFI form here.
 */
static bool body_rules(const struct syn_mem *m, const struct uw_regs *r,
		       char *out, size_t len)
{
	struct bp_kv kv[17];
	unsigned int n = 0, i, k, b, cfa_base = 13;
	uint32_t v = (uint32_t)r->r[13];
	int32_t cfa_off = 0, off, off2;
	bool cfa_reg = false, lr_is_ra;
	size_t used = 0;

	if (syn_reg_off(v, &cfa_base, &cfa_off)) {
		cfa_reg = true;
		if (cfa_base != 13 || cfa_off) {
			kv[n].k = ".cfa";
			snprintf(kv[n].v, sizeof(kv[n].v), "%s %" PRId32 " +",
				 bp_names[cfa_base], cfa_off);
			n++;
		}
	} else if (syn_marker(m, v, &k, &off2) &&
		   syn_reg_off(m->addr[k], &b, &off)) {
		kv[n].k = ".cfa";
		snprintf(kv[n].v, sizeof(kv[n].v), "%s %" PRId32 " + ^",
			 bp_names[b], off);
		if (off2)
			snprintf(kv[n].v + strlen(kv[n].v),
				 sizeof(kv[n].v) - strlen(kv[n].v),
				 " %" PRId32 " +", off2);
		n++;
	} else {
		return false;
	}
	/* Finish copies lr to pc unless pc was popped: then .ra is lr's. */
	lr_is_ra = r->r[15] == r->r[14];
	for (i = 0; i <= 15; i++) {
		if (i == 13 || (i == 14 && lr_is_ra))
			continue;
		v = (uint32_t)r->r[i];
		if (v == SYN_REG(i < 15 ? i : 14))
			continue;	/* unchanged (.ra: lr) */
		kv[n].k = i == 15 ? ".ra" : bp_names[i];
		if (syn_marker(m, v, &k, &off) && !off) {
			if (!slot_rule(m, k, cfa_reg, cfa_base, cfa_off,
				       kv[n].v, sizeof(kv[n].v)))
				return false;
		} else if (syn_reg_off(v, &b, &off) && !off && b != 13) {
			snprintf(kv[n].v, sizeof(kv[n].v), "%s", bp_names[b]);
		} else {
			return false;
		}
		n++;
	}
	qsort(kv, n, sizeof(kv[0]), bp_kv_cmp);
	out[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		snprintf(out + used, len - used, " %s: %s", kv[i].k, kv[i].v);
		used += strlen(out + used);
	}
	return true;
}

/* Where the function of entry i ends: the next entry, else its symbol. */
static uint64_t entry_end(const struct arm_elf *a, uint32_t i, uint64_t start)
{
	const struct arm_sym *s;
	const struct arm_range *t;
	struct uw_ehabi_entry next;

	if (i + 1 < a->eh.count && !uw_ehabi_entry(&a->eh, i + 1, &next))
		return next.fn_start;
	s = arm_func_at(a, start);
	if (s && s->size)
		return start + s->size;
	t = arm_text_at(a, start);
	return t ? t->hi : start;
}

int ehabi_write_cfi(struct arm_elf *a, uint64_t load, FILE *out,
		    struct ehabi_cfi_stats *st)
{
	struct uw_ehabi_entry e;
	struct syn_mem *m = malloc(sizeof(*m));
	struct uw_regs r;
	char body[17 * 64];
	uint64_t start, end;
	unsigned int ilen;
	uint32_t i;
	int err;

	if (!m)
		return -1;
	memset(st, 0, sizeof(*st));
	for (i = 0; i < a->eh.count; i++) {
		st->entries++;
		if (uw_ehabi_entry(&a->eh, i, &e)) {
			st->errors++;
			continue;
		}
		if (e.kind == UW_EHABI_KIND_CANTUNWIND) {
			st->cantunwind++;
			continue;
		}
		start = e.fn_start;
		end = entry_end(a, i, start);
		if (end <= start || start < load || !start) {
			st->errors++;
			continue;
		}
		err = syn_exec(a, &e, start, m, &r);
		if (err == UW_EREFUSE) {
			st->refused++;
			continue;
		}
		if (err) {
			st->errors++;
			continue;
		}
		if (!body_rules(m, &r, body, sizeof(body))) {
			st->inexpr++;
			continue;
		}
		fprintf(out, "STACK CFI INIT %" PRIx64 " %" PRIx64
			" .cfa: sp 0 + .ra: lr\n", start - load, end - start);
		ilen = insn_len(a, start);
		if (body[0] && ilen < end - start)
			fprintf(out, "STACK CFI %" PRIx64 "%s\n",
				start + ilen - load, body);
		st->written++;
	}
	free(m);
	return 0;
}
