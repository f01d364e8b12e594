// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM EHABI: `uwind dump FILE` and `uwind lookup FILE ADDR...` for 32-bit
 * ARM ELF files (.ARM.exidx/.ARM.extab).
 *
 * dump prints every index entry the way `readelf -u` does: the function
 * address (and its symbol), the entry (inline word, @extab address or
 * [cantunwind]), the personality and each opcode with its bytes.
 *
 * lookup prints, like SFrame's lookup, `ADDR cfa=RULE ra=RULE fp=RULE`.
 * The rules come from running the entry's opcodes with the core's
 * interpreter on a synthetic frame: every register starts with a value
 * of its own, and every stack read returns a fresh marker, so the result
 * shows where each register came from.
 *   cfa  the caller's sp: sp+N, or rN+N after a `vsp = rN` opcode, or
 *        [sp+N]+M when the sp itself was popped;
 *   ra   the return address: c+N / c-N (saved at CFA+N) or lr;
 *   fp   r11 for ARM code, r7 for Thumb code: u (unchanged) or c+N.
 * Thumb code: ADDR with bit 0 set, else the mapping symbols ($a/$t), else
 * the FUNC symbol holding ADDR; ARM if none says.
 * Other answers: `ADDR none` (no entry covers it, or it is not in an
 * executable section), `ADDR cantunwind` (EXIDX_CANTUNWIND), `ADDR
 * refuse` (opcode 80 00), `ADDR error MESSAGE` (a malformed entry).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uwind.h"

#ifndef SHT_ARM_EXIDX
#define SHT_ARM_EXIDX	0x70000001
#endif
#ifndef PT_ARM_EXIDX
#define PT_ARM_EXIDX	0x70000001
#endif
#ifndef EM_ARM
#define EM_ARM		40
#endif

struct sym {
	uint64_t addr, size;
	const char *name;
	char kind;		/* 'f' FUNC, 'a'/'t'/'d' mapping symbol */
	char thumb;
};

struct range {
	uint64_t lo, hi;
};

struct arm_elf {
	const char *path;
	int fd;
	Elf *elf;
	void *xbuf, *tbuf;
	struct uw_span exidx, extab;
	uint64_t exidx_off;	/* file offset, for the header line */
	const char *exidx_name;
	bool be;
	struct uw_ehabi eh;
	struct sym *syms;
	size_t nsyms;
	struct range *text;
	size_t ntext;
};

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

static bool is_arm(Elf *elf)
{
	GElf_Ehdr eh;

	return elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	       eh.e_machine == EM_ARM && eh.e_ident[EI_CLASS] == ELFCLASS32;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* FUNC symbols from .symtab (read first) before .dynsym ones. */
	return x < y ? -1 : x > y;
}

static void add_text(struct arm_elf *a, uint64_t lo, uint64_t hi)
{
	struct range *r = realloc(a->text, (a->ntext + 1) * sizeof(*r));

	if (!r)
		return;
	a->text = r;
	r[a->ntext].lo = lo;
	r[a->ntext].hi = hi;
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
		struct sym *ns, *t;
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

static void arm_close(struct arm_elf *a)
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
				add_text(a, sh.sh_addr, sh.sh_addr + sh.sh_size);
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
			add_text(a, ph.p_vaddr, ph.p_vaddr + ph.p_memsz);
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

static int arm_open(struct arm_elf *a, const char *path)
{
	GElf_Ehdr ehdr;
	int err;

	memset(a, 0, sizeof(*a));
	a->path = path;
	elf_version(EV_CURRENT);
	a->fd = open(path, O_RDONLY);
	if (a->fd < 0) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	a->elf = elf_begin(a->fd, ELF_C_READ_MMAP, NULL);
	if (!a->elf || !is_arm(a->elf) || !gelf_getehdr(a->elf, &ehdr)) {
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

/* Is argv[1] an ARM ELF file (the EHABI commands handle it)? */
bool ehabi_wanted(int argc, char **argv)
{
	bool arm = false;
	Elf *elf;
	int fd;

	if (argc < 2 || argv[1][0] == '-')
		return false;
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		arm = is_arm(elf);
		elf_end(elf);
	}
	close(fd);
	return arm;
}

/* The FUNC symbol starting exactly at addr (Thumb bit ignored). */
static const char *sym_at(const struct arm_elf *a, uint64_t addr)
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
			return a->syms[lo].name;
	return NULL;
}

/* Thumb code at addr: see the comment at the top. */
static bool is_thumb(const struct arm_elf *a, uint64_t addr)
{
	const struct sym *map = NULL, *fn = NULL;
	size_t i;

	if (addr & 1)
		return true;
	for (i = 0; i < a->nsyms && a->syms[i].addr <= addr; i++) {
		if (a->syms[i].kind == 'a' || a->syms[i].kind == 't')
			map = &a->syms[i];
		else if (a->syms[i].kind == 'd')
			map = NULL;
		else if (addr < a->syms[i].addr + a->syms[i].size && !fn)
			fn = &a->syms[i];
	}
	if (map)
		return map->thumb;
	return fn && fn->thumb;
}

static bool in_text(const struct arm_elf *a, uint64_t addr)
{
	size_t i;

	if (!a->ntext)
		return true;
	for (i = 0; i < a->ntext; i++)
		if (addr >= a->text[i].lo && addr < a->text[i].hi)
			return true;
	return false;
}

/* ---- dump ---- */

/* Opcode bytes read one at a time, remembered for the listing. */
struct opsrc {
	const struct uw_ehabi *eh;
	struct uw_ehabi_ops o;
	uint8_t bytes[16];
	unsigned int n, more;	/* bytes kept, bytes past the 16 */
};

static int get_op(struct opsrc *s, uint8_t *b)
{
	int ret = uw_ehabi_next_op(s->eh, &s->o, b);

	if (ret)
		return ret;
	if (s->n < sizeof(s->bytes))
		s->bytes[s->n++] = *b;
	else
		s->more++;
	return 0;
}

static void reg_list(char *buf, size_t len, uint32_t mask, const char *pfx,
		     unsigned int first)
{
	size_t used;
	unsigned int r;

	snprintf(buf, len, "pop {");
	for (r = 0; r < 32; r++) {
		if (!(mask & (1u << r)))
			continue;
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s%u",
			 buf[used - 1] == '{' ? "" : ", ", pfx, first + r);
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, "}");
}

static void reg_range(char *buf, size_t len, const char *pfx,
		      unsigned int first, unsigned int count, unsigned int max)
{
	if (first + count > max)
		snprintf(buf, len, "[bad range %s%u-%s%u]", pfx, first, pfx,
			 first + count);
	else if (count)
		snprintf(buf, len, "pop {%s%u-%s%u}", pfx, first, pfx,
			 first + count);
	else
		snprintf(buf, len, "pop {%s%u}", pfx, first);
}

/* Describe the instruction starting with op; its bytes go to s. */
static void describe(struct opsrc *s, uint8_t op, char *buf, size_t len)
{
	unsigned int i;
	uint64_t val;
	uint8_t b = 0;

	if (op < 0x80) {
		snprintf(buf, len, "vsp = vsp %c %u", op < 0x40 ? '+' : '-',
			 ((op & 0x3f) << 2) + 4);
		return;
	}
	if (op < 0x90 || op == 0xb1 || op == 0xb3 || (op >= 0xc6 && op <= 0xc9)) {
		if (get_op(s, &b)) {
			snprintf(buf, len, "[truncated]");
			return;
		}
	}
	if (op < 0x90) {
		if (op == 0x80 && b == 0)
			snprintf(buf, len, "refuse to unwind");
		else
			reg_list(buf, len, ((op & 0xfu) << 8 | b) << 4, "r", 0);
	} else if (op < 0xa0) {
		if (op == 0x9d || op == 0x9f)
			snprintf(buf, len, "[reserved]");
		else
			snprintf(buf, len, "vsp = r%u", op & 0xf);
	} else if (op < 0xb0) {
		reg_list(buf, len, ((1u << ((op & 7) + 1)) - 1) << 4 |
			 (op & 8 ? 1u << 14 : 0), "r", 0);
	} else if (op == 0xb0) {
		snprintf(buf, len, "finish");
	} else if (op == 0xb1) {
		if (b == 0 || (b & 0xf0))
			snprintf(buf, len, "[spare]");
		else
			reg_list(buf, len, b, "r", 0);
	} else if (op == 0xb2) {
		val = 0;
		for (i = 0;; i++) {
			if (get_op(s, &b)) {
				snprintf(buf, len, "[truncated]");
				return;
			}
			if (i < 5)
				val |= (uint64_t)(b & 0x7f) << (7 * i);
			if (!(b & 0x80))
				break;
		}
		if (i >= 5)
			snprintf(buf, len, "[uleb128 too long]");
		else
			snprintf(buf, len, "vsp = vsp + %llu",
				 (unsigned long long)(0x204 + (val << 2)));
	} else if (op == 0xb3) {
		reg_range(buf, len, "D", b >> 4, b & 0xf, 16);
	} else if (op == 0xb4) {
		snprintf(buf, len, "pop {ra_auth_code}");
	} else if (op == 0xb5) {
		snprintf(buf, len, "vsp as modifier for PAC validation");
	} else if (op == 0xb6 || op == 0xb7) {
		snprintf(buf, len, "[spare]");
	} else if (op < 0xc0 || (op >= 0xd0 && op <= 0xd7)) {
		reg_range(buf, len, "D", 8, op & 7, 32);
	} else if (op <= 0xc5) {
		reg_range(buf, len, "wR", 10, op & 7, 16);
	} else if (op == 0xc6) {
		reg_range(buf, len, "wR", b >> 4, b & 0xf, 16);
	} else if (op == 0xc7) {
		if (b == 0 || (b & 0xf0))
			snprintf(buf, len, "[spare]");
		else
			reg_list(buf, len, b, "wCGR", 0);
	} else if (op == 0xc8) {
		reg_range(buf, len, "D", 16 + (b >> 4), b & 0xf, 32);
	} else if (op == 0xc9) {
		reg_range(buf, len, "D", b >> 4, b & 0xf, 32);
	} else {
		snprintf(buf, len, "[spare]");
	}
}

static void print_ops(const struct arm_elf *a, const struct uw_ehabi_ops *ops)
{
	struct opsrc s = { .eh = &a->eh, .o = *ops };
	char text[160], bytes[80];
	unsigned int i;
	uint8_t op;
	int ret;

	for (;;) {
		s.n = s.more = 0;
		ret = get_op(&s, &op);
		if (ret > 0)
			return;
		if (ret < 0) {
			printf("  [cannot read opcodes: %s]\n", uw_strerror(ret));
			return;
		}
		describe(&s, op, text, sizeof(text));
		bytes[0] = 0;
		for (i = 0; i < s.n; i++)
			snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes),
				 "%s0x%02x", i ? " " : "", s.bytes[i]);
		if (s.more)
			snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes),
				 " (+%u)", s.more);
		printf("  %-9s %s\n", bytes, text);
	}
}

static void print_addr(const struct arm_elf *a, uint64_t addr)
{
	const char *name = sym_at(a, addr);

	printf("0x%llx", (unsigned long long)addr);
	if (name)
		printf(" <%s>", name);
}

/* A prel31 field of the index at byte offset off. */
static uint64_t prel31_at(const struct arm_elf *a, uint64_t off, uint32_t w)
{
	int64_t d = (int64_t)((w & 0x7fffffff) ^ 0x40000000) - 0x40000000;

	return a->exidx.addr + off + (uint64_t)d;
}

static uint32_t exidx_word(const struct arm_elf *a, uint64_t off)
{
	const uint8_t *p = a->exidx.data + off;

	return a->be ? (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		       (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

static int dump_entry(const struct arm_elf *a, uint32_t i)
{
	struct uw_ehabi_entry e;
	uint32_t w0 = exidx_word(a, 8 * (uint64_t)i);
	uint32_t w1 = exidx_word(a, 8 * (uint64_t)i + 4);
	int err;

	printf("\n");
	err = uw_ehabi_entry(&a->eh, i, &e);
	print_addr(a, err ? prel31_at(a, 8 * (uint64_t)i, w0) & ~1ull :
		   e.fn_start);
	printf(": ");
	if (w1 == UW_EHABI_CANTUNWIND) {
		printf("0x1 [cantunwind]\n");
		return err ? 1 : 0;
	}
	if (w1 & 0x80000000)
		printf("0x%08x\n", w1);
	else
		printf("@0x%llx\n", (unsigned long long)
		       prel31_at(a, 8 * (uint64_t)i + 4, w1));
	if (err) {
		printf("  <bad entry: %s>\n", uw_strerror(err));
		return 1;
	}
	if (e.kind == UW_EHABI_KIND_GENERIC) {
		printf("  Personality routine: ");
		print_addr(a, e.personality);
		printf("\n");
	} else {
		printf("  Compact model index: %u\n", e.pr);
	}
	print_ops(a, &e.ops);
	return 0;
}

int cmd_ehabi_dump(int argc, char **argv)
{
	struct arm_elf a;
	uint32_t i;
	int ret = 0;

	if (argc != 2) {
		fprintf(stderr, "uwind: dump: unexpected argument %s\n",
			argv[2]);
		return 2;
	}
	if (arm_open(&a, argv[1])) {
		arm_close(&a);
		return 1;
	}
	printf("\nUnwind section '%s' at offset 0x%llx contains %u entries:\n",
	       a.exidx_name, (unsigned long long)a.exidx_off, a.eh.count);
	for (i = 0; i < a.eh.count; i++)
		ret |= dump_entry(&a, i);
	printf("\n");
	arm_close(&a);
	return ret;
}

/* ---- lookup: the opcodes run on a synthetic frame ---- */

#define SYN_SP		0x10000000u
#define SYN_REG(n)	(0x20000000u + ((uint32_t)(n) << 24))	/* r0-r14 */
#define SYN_MARK(k)	(0x90000000u + ((uint32_t)(k) << 16))
#define SYN_NEAR	0x800000	/* a value within this of its base */
#define SYN_READS	4096

struct syn_mem {
	uint32_t addr[SYN_READS];	/* read k was at addr[k] */
	unsigned int n;
};

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

static bool near(uint32_t v, uint32_t base, int32_t *off)
{
	int64_t d = (int64_t)v - base;

	if (d <= -SYN_NEAR || d >= SYN_NEAR)
		return false;
	*off = (int32_t)d;
	return true;
}

/* The stack read a marker value came from: its index, and the offset. */
static bool marker(const struct syn_mem *m, uint32_t v, unsigned int *k,
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

	if (near(v, SYN_SP, &off)) {
		fprintf(f, "sp%+d", off);
		return;
	}
	for (n = 0; n <= 14; n++) {
		if (n != 13 && near(v, SYN_REG(n), &off)) {
			fprintf(f, "r%u%+d", n, off);
			return;
		}
	}
	if (depth < 4 && marker(m, v, &k, &off)) {
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
static void syn_rule(const struct syn_mem *m, uint32_t cfa, uint32_t v,
		     unsigned int self, const char *self_name)
{
	unsigned int n, k;
	int32_t off;
	int64_t d;

	for (n = 0; n <= 14; n++) {
		if (n != 13 && v == SYN_REG(n)) {
			if (n == self)
				printf("%s", self_name);
			else if (n == 14)
				printf("lr");
			else
				printf("r%u", n);
			return;
		}
	}
	if (marker(m, v, &k, &off) && !off) {
		d = (int64_t)m->addr[k] - cfa;
		if (d > -SYN_NEAR && d < SYN_NEAR) {
			printf("c%+d", (int)d);
			return;
		}
	}
	syn_desc(stdout, m, v, 0);
}

static int lookup_one(const struct arm_elf *a, uint64_t addr,
		      struct syn_mem *m)
{
	struct uw_ehabi_entry e;
	struct uw_walk_cfg cfg;
	struct uw_regs r;
	unsigned int n, fpreg = is_thumb(a, addr) ? 7 : 11;
	int err;

	printf("0x%llx", (unsigned long long)addr);
	if (!in_text(a, addr & ~(uint64_t)1)) {
		printf(" none\n");
		return 0;
	}
	err = uw_ehabi_find(&a->eh, addr, &e);
	if (err == UW_ENOENT) {
		printf(" none\n");
		return 0;
	}
	if (!err && e.kind == UW_EHABI_KIND_CANTUNWIND) {
		printf(" cantunwind\n");
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = UW_ARCH_ARM;
	cfg.mem.read = syn_read;
	cfg.mem.ctx = m;
	m->n = 0;
	memset(&r, 0, sizeof(r));
	for (n = 0; n <= 14; n++)
		uw_reg_set(&r, n, n == 13 ? SYN_SP : SYN_REG(n));
	uw_reg_set(&r, 15, addr);
	err = err ? err : uw_ehabi_exec(&a->eh, &e.ops, &cfg, &r);
	if (err == UW_EREFUSE) {
		printf(" refuse\n");
		return 0;
	}
	if (err) {
		printf(" error %s\n", uw_strerror(err));
		return 1;
	}
	printf(" cfa=");
	syn_desc(stdout, m, (uint32_t)r.r[13], 0);
	printf(" ra=");
	syn_rule(m, (uint32_t)r.r[13], (uint32_t)r.r[15], 14, "lr");
	printf(" fp=");
	syn_rule(m, (uint32_t)r.r[13], (uint32_t)r.r[fpreg], fpreg, "u");
	printf("\n");
	return 0;
}

int cmd_ehabi_lookup(int argc, char **argv)
{
	struct syn_mem *m;
	struct arm_elf a;
	uint64_t addr;
	int i, ret = 0;

	if (argc < 3) {
		fprintf(stderr, "uwind: lookup: no address\n");
		return 2;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return 1;
	if (arm_open(&a, argv[1])) {
		free(m);
		arm_close(&a);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		if (parse_u64(argv[i], &addr) || addr > 0xffffffffu) {
			fprintf(stderr, "uwind: lookup: bad address '%s'\n",
				argv[i]);
			ret = 2;
			continue;
		}
		ret |= lookup_one(&a, addr, m);
	}
	free(m);
	arm_close(&a);
	return ret;
}
