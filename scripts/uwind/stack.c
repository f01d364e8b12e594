// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack`: the target of a walk (stack.h), whichever reader filled
 * it (stack_core.c, stack_live.c): its memory, its mapped ELF files
 * placed in memory, and the modules the walker unwinds with, from their
 * SFrame tables (x86-64 and AArch64 files without one get a table made
 * from their DWARF CFI, in memory, unless --no-convert) or their EHABI
 * tables (.ARM.exidx/.ARM.extab) in 32-bit ARM cores, frame pointers
 * where a file has none; their symbols (.symtab, else .dynsym) for the
 * output (stack_print.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cfi.h"
#include "sframe_gen.h"
#include "stack.h"

void *stk_xrealloc(void *p, size_t n, size_t size)
{
	void *q;

	if (size && n > SIZE_MAX / size) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	q = realloc(p, (n && size) ? n * size : 1);
	if (!q) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	return d;
}

uint64_t stk_load_u64(const uint8_t *p, bool big_endian)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[big_endian ? 7 - i : i] << (8 * i);
	return v;
}

struct stk_file *stk_file_get(struct stk_target *t, const char *path)
{
	struct stk_file *f;
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i]->path, path))
			return t->files[i];
	f = calloc(1, sizeof(*f));
	if (!f) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	f->path = xstrdup(path);
	t->files = stk_xrealloc(t->files, t->nfiles + 1, sizeof(*t->files));
	t->files[t->nfiles++] = f;
	return f;
}

int stk_add_map(struct stk_target *t, uint64_t start, uint64_t end,
		uint64_t off, const char *path)
{
	struct stk_map *m;

	if (end <= start)
		return -1;
	t->maps = stk_xrealloc(t->maps, t->nmaps + 1, sizeof(*t->maps));
	m = &t->maps[t->nmaps++];
	m->start = start;
	m->end = end;
	m->off = off;
	m->file = stk_file_get(t, path);
	return 0;
}

/*
 * Registers as the kernel lays them out in NT_PRSTATUS's pr_reg and in
 * PTRACE_GETREGSET NT_PRSTATUS, into DWARF numbering.
 */
static const int8_t x86_64_prreg_dwarf[] = {
	15, 14, 13, 12, 6, 3, 11, 10, 9, 8, 0, 2, 1, 4, 5,
	-1,		/* orig_rax */
	16,		/* rip */
	-1, -1,		/* cs, eflags */
	7,		/* rsp */
};

#define ARM_CPSR_T	0x20

static uint32_t load_u32(const uint8_t *p, bool big_endian)
{
	return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			    (uint32_t)p[2] << 8 | p[3]
			  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
			    (uint32_t)p[1] << 8 | p[0];
}

int stk_add_thread(struct stk_target *t, int tid, const uint8_t *regs,
		   size_t len)
{
	struct stk_thread *th;
	unsigned int i;

	t->threads = stk_xrealloc(t->threads, t->nthreads + 1,
				  sizeof(*t->threads));
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	switch (t->arch) {
	case UW_ARCH_X86_64:
		if (len < sizeof(x86_64_prreg_dwarf) * 8)
			return -1;
		for (i = 0; i < sizeof(x86_64_prreg_dwarf); i++)
			if (x86_64_prreg_dwarf[i] >= 0)
				uw_reg_set(&th->regs, x86_64_prreg_dwarf[i],
					   stk_load_u64(regs + 8 * i,
							t->big_endian));
		break;
	case UW_ARCH_AARCH64:
		/* x0..x30, sp, pc (then pstate): DWARF 0..32 in order. */
		if (len < 33 * 8)
			return -1;
		for (i = 0; i <= UW_AARCH64_PC; i++)
			uw_reg_set(&th->regs, i,
				   stk_load_u64(regs + 8 * i, t->big_endian));
		break;
	case UW_ARCH_ARM:
		/* r0..r15 (DWARF 0..15), cpsr, orig_r0: 4-byte words. */
		if (len < 17 * 4)
			return -1;
		for (i = 0; i <= UW_ARM_PC; i++)
			uw_reg_set(&th->regs, i, load_u32(regs + 4 * i,
							  t->big_endian));
		/* CPSR.T: Thumb state, which the walker keeps in pc bit 0. */
		if (load_u32(regs + 4 * 16, t->big_endian) & ARM_CPSR_T)
			th->regs.r[UW_ARM_PC] |= 1;
		break;
	default:
		return -1;
	}
	th->ok = true;
	return 0;
}

/* Memory: the core's own bytes win, then the mapped files' contents. */
static const struct stk_seg *find_seg(const struct stk_target *t,
				      uint64_t addr)
{
	size_t lo = 0, hi = t->nsegs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < t->segs[mid].start)
			hi = mid;
		else if (addr - t->segs[mid].start >= t->segs[mid].size)
			lo = mid + 1;
		else
			return &t->segs[mid];
	}
	return NULL;
}

const uint8_t *stk_core_bytes(const struct stk_target *t, uint64_t addr,
			      size_t len)
{
	const struct stk_seg *s = find_seg(t, addr);

	if (!s || len > s->size - (addr - s->start))
		return NULL;
	return s->data + (addr - s->start);
}

void stk_add_vma(struct stk_target *t, uint64_t start, uint64_t end)
{
	if (end <= start)
		return;
	t->vmas = stk_xrealloc(t->vmas, t->nvmas + 1, sizeof(*t->vmas));
	t->vmas[t->nvmas].start = start;
	t->vmas[t->nvmas].end = end;
	t->nvmas++;
}

static int cmp_vma(const void *a, const void *b)
{
	const struct stk_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether addr lies in a mapping of the process (vmas sorted). */
bool stk_in_vma(const struct stk_target *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nvmas, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < t->vmas[mid].start)
			hi = mid;
		else if (addr >= t->vmas[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

const struct stk_map *stk_find_map(const struct stk_target *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < t->maps[mid].start)
			hi = mid;
		else if (addr >= t->maps[mid].end)
			lo = mid + 1;
		else
			return &t->maps[mid];
	}
	return NULL;
}

static size_t read_chunk(struct stk_target *t, uint64_t addr, uint8_t *dst,
			 size_t len)
{
	const struct stk_seg *s = find_seg(t, addr);
	const struct stk_map *m;
	uint64_t n, off;

	if (s) {
		n = s->size - (addr - s->start);
		n = n < len ? n : len;
		memcpy(dst, s->data + (addr - s->start), n);
		return n;
	}
	m = stk_find_map(t, addr);
	if (!m || stk_file_open(m->file))
		return 0;
	off = m->off + (addr - m->start);
	if (off < m->off || off >= m->file->size)
		return 0;
	n = m->end - addr;
	n = n < len ? n : len;
	n = n < m->file->size - off ? n : m->file->size - off;
	memcpy(dst, m->file->img + off, n);
	return n;
}

static int live_read(struct stk_target *t, uint64_t addr, void *dst,
		     size_t len)
{
	ssize_t n;

	if (addr > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - addr)
		return -1;
	n = pread(t->memfd, dst, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -1;
}

int stk_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct stk_target *t = ctx;
	uint8_t *d = dst;
	size_t n;

	if (t->live)
		return live_read(t, addr, dst, len);
	while (len) {
		n = read_chunk(t, addr, d, len);
		if (!n || addr + n < addr)
			return -1;
		addr += n;
		d += n;
		len -= n;
	}
	return 0;
}

/* ELF images: mapped files and the vDSO. */
static int cmp_sym(const void *a, const void *b)
{
	const struct stk_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Global before weak before local, so the first of a run wins. */
	if (x->bind != y->bind)
		return (x->bind == STB_GLOBAL ? 0 : x->bind == STB_WEAK ? 1 : 2) -
		       (y->bind == STB_GLOBAL ? 0 : y->bind == STB_WEAK ? 1 : 2);
	return strcmp(x->name, y->name);
}

static void add_sym(void *ctx, const GElf_Sym *sym, const char *name)
{
	struct stk_file *f = ctx;
	GElf_Ehdr eh;
	/* ARM: bit 0 of a function symbol's value marks Thumb code. */
	uint64_t mask = gelf_getehdr(f->elf, &eh) && eh.e_machine == EM_ARM ?
			~(uint64_t)1 : ~(uint64_t)0;

	if (!name || !*name)
		return;
	f->syms = stk_xrealloc(f->syms, f->nsyms + 1, sizeof(*f->syms));
	f->syms[f->nsyms].addr = sym->st_value & mask;
	f->syms[f->nsyms].size = sym->st_size;
	f->syms[f->nsyms].name = name;
	f->syms[f->nsyms].bind = GELF_ST_BIND(sym->st_info);
	f->nsyms++;
}

static void load_syms(struct stk_file *f, Elf64_Word type)
{
	elf_func_syms(f->elf, type, add_sym, f);
}

int stk_load_image(struct stk_file *f, uint8_t *img, size_t size, bool heap)
{
	f->img = img;
	f->size = size;
	f->heap = heap;
	elf_version(EV_CURRENT);
	f->elf = elf_memory((char *)img, size);
	if (f->elf && elf_kind(f->elf) != ELF_K_ELF) {
		elf_end(f->elf);
		f->elf = NULL;
	}
	if (!f->elf)
		return 0;	/* bytes still serve as memory */
	load_syms(f, SHT_SYMTAB);
	f->has_symtab = f->nsyms;
	if (!f->nsyms)
		load_syms(f, SHT_DYNSYM);
	return 0;
}

void *stk_map_file(const char *path, size_t min_size, const char *what,
		   size_t *size)
{
	struct stat st;
	void *img;
	int fd;

	if (tool_file_check(path, false, NULL))
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)min_size ||
	    !st.st_size) {
		fprintf(stderr, "uwind: %s: %s\n", path, what);
		close(fd);
		return NULL;
	}
	/* Private and writable: libelf may convert data in place. */
	img = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	*size = st.st_size;
	return img;
}

int stk_file_open(struct stk_file *f)
{
	const char *path = f->open_path ? f->open_path : f->path;
	size_t size;
	void *img;

	if (f->tried)
		return f->img ? 0 : -1;
	f->tried = true;
	if (f->path[0] != '/' && !f->open_path)
		return -1;
	img = stk_map_file(path, 0, "not a regular file", &size);
	if (!img)
		return -1;
	return stk_load_image(f, img, size, false);
}

static uint64_t page_down(const struct stk_target *t, uint64_t v)
{
	return v & ~(t->page_size - 1);
}

/*
 * The vDSO: an ELF image the kernel maps at base, read from the target.
 * Its first PT_LOAD starts at file offset 0 of the image.
 */
void stk_add_vdso(struct stk_target *t, uint64_t base, uint8_t *img,
		  size_t size)
{
	struct stk_file *f = stk_file_get(t, "[vdso]");
	size_t i, n;
	GElf_Phdr ph;

	if (f->tried) {
		free(img);
		return;
	}
	f->tried = true;
	stk_load_image(f, img, size, true);
	if (!f->elf || elf_getphdrnum(f->elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->bias = (int64_t)(base + ph.p_offset - ph.p_vaddr);
		f->placed = true;
		return;
	}
}

/* Bias from a mapping of the file that starts a PT_LOAD's pages. */
static void place_file(struct stk_target *t, struct stk_file *f)
{
	size_t i, j, n;
	GElf_Phdr ph;

	if (f->placed || elf_getphdrnum(f->elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		for (j = 0; j < t->nmaps; j++) {
			if (t->maps[j].file != f ||
			    t->maps[j].off != page_down(t, ph.p_offset))
				continue;
			f->bias = (int64_t)(t->maps[j].start -
					    page_down(t, ph.p_vaddr));
			f->placed = true;
			return;
		}
	}
}

static void add_module(struct stk_target *t, struct stk_file *f,
		       uint64_t start, uint64_t end)
{
	struct uw_module *m;

	t->mods = stk_xrealloc(t->mods, t->nmods + 1, sizeof(*t->mods));
	t->mod_file = stk_xrealloc(t->mod_file, t->nmods + 1,
				   sizeof(*t->mod_file));
	m = &t->mods[t->nmods];
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	/* The tables keep the file's addresses: the module carries the bias. */
	m->bias = (uint64_t)f->bias;
	m->sframe = f->has_sframe ? &f->sf : NULL;
	m->ehabi = f->has_ehabi ? &f->eh : NULL;
	t->mod_file[t->nmods++] = f;
}

/* A span of the file image, or false when it leaves the file. */
static bool file_span(const struct stk_file *f, uint64_t off, uint64_t size,
		      uint64_t addr, struct uw_span *s)
{
	if (off > f->size || size > f->size - off)
		return false;
	s->data = f->img + off;
	s->size = size;
	s->addr = addr;
	return true;
}

/*
 * ARM: the file's .ARM.exidx (SHT_ARM_EXIDX, else PT_ARM_EXIDX) and
 * .ARM.extab, read in place from the file image.  Without section
 * headers, the extab entries are only known to lie in the segment that
 * holds the index: that whole segment bounds them.
 */
static void load_ehabi(struct stk_target *t, struct stk_file *f)
{
	struct uw_span exidx = { 0 }, extab = { 0 }, seg = { 0 };
	Elf_Scn *scn = NULL;
	size_t shstr, i, n;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	struct uw_check chk;
	int err;

	if (t->arch != UW_ARCH_ARM || !gelf_getehdr(f->elf, &eh) ||
	    eh.e_machine != EM_ARM)
		return;
	if (elf_getshdrstrndx(f->elf, &shstr))
		shstr = 0;
	if (elf_getphdrnum(f->elf, &n))
		n = 0;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = shstr ? elf_strptr(f->elf, shstr, sh.sh_name) : NULL;
		if (sh.sh_type == SHT_ARM_EXIDX && !exidx.data)
			file_span(f, sh.sh_offset, sh.sh_size, sh.sh_addr,
				  &exidx);
		else if (sh.sh_type == SHT_PROGBITS && name &&
			 !strcmp(name, ".ARM.extab") && !extab.data)
			file_span(f, sh.sh_offset, sh.sh_size, sh.sh_addr,
				  &extab);
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_ARM_EXIDX && !exidx.data)
			file_span(f, ph.p_offset, ph.p_filesz, ph.p_vaddr,
				  &exidx);
	}
	if (!exidx.data)
		return;
	for (i = 0; !extab.data && i < n; i++) {
		if (gelf_getphdr(f->elf, (int)i, &ph) &&
		    ph.p_type == PT_LOAD && exidx.addr >= ph.p_vaddr &&
		    exidx.addr - ph.p_vaddr < ph.p_filesz &&
		    file_span(f, ph.p_offset, ph.p_filesz, ph.p_vaddr, &seg))
			extab = seg;
	}
	err = uw_ehabi_init(&f->eh, &exidx, extab.data ? &extab : NULL,
			    eh.e_ident[EI_DATA] == ELFDATA2MSB);
	/* Checked whole, as the kernel module does: a bad index is left out. */
	uw_check_start(&chk, 0);
	err = err ? err : uw_ehabi_check(&f->eh, &chk);
	if (err)
		fprintf(stderr, "uwind: %s: .ARM.exidx: %s\n", f->path,
			uw_strerror(err));
	else
		f->has_ehabi = true;
}

/*
 * A file without SFrame: its DWARF CFI made into an SFrame table in
 * memory (sframe_gen.c), laid out at ELF vaddr 0.  0 made, 1 not.
 */
static int convert_cfi(struct stk_target *t, struct stk_file *f)
{
	struct sg_result r;
	char err[160];
	int ret;

	if (t->arch != UW_ARCH_X86_64 && t->arch != UW_ARCH_AARCH64)
		return 1;
	ret = sg_convert(f->elf, SG_TABLE_ONLY, &r, err, sizeof(err));
	if (ret) {
		if (ret > 0)
			sg_result_free(&r);
		else
			fprintf(stderr, "uwind: %s: %s\n", f->path, err);
		return 1;
	}
	memset(&f->tab, 0, sizeof(f->tab));
	f->tab.owned = r.sec;
	f->tab.span.data = r.sec;
	f->tab.span.size = r.size;
	f->tab.span.addr = 0;
	f->tab.name = "SFrame from DWARF CFI";
	r.sec = NULL;
	sg_result_free(&r);
	return 0;
}

/* Forget a file's contents: not the one the process had mapped. */
static void unload_file(struct stk_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->img && f->heap)
		free(f->img);
	else if (f->img)
		munmap(f->img, f->size);
	free(f->syms);
	f->elf = NULL;
	f->img = NULL;
	f->syms = NULL;
	f->nsyms = 0;
}

static void file_modules(struct stk_target *t, struct stk_file *f)
{
	size_t i, n;
	GElf_Phdr ph;
	struct uw_check chk;
	int err;

	if (!f->elf)
		return;
	place_file(t, f);
	if (!f->placed) {
		fprintf(stderr, "uwind: %s: cannot place the file in memory\n",
			f->path);
		return;
	}
	if (stk_core_check_file(t, f)) {
		unload_file(f);
		f->wrong = true;
		return;
	}
	err = tool_elf_sframe(f->elf, &f->tab);
	if (err > 0 && t->convert)
		err = convert_cfi(t, f);
	if (err < 0)
		fprintf(stderr, "uwind: %s: cannot read SFrame section\n",
			f->path);
	if (!err) {
		err = uw_sframe_init(&f->sf, &f->tab.span);
		uw_check_start(&chk, 0);
		err = err ? err : uw_sframe_check(&f->sf, &chk);
		if (err)
			fprintf(stderr, "uwind: %s: SFrame: %s\n", f->path,
				uw_strerror(err));
		else if (f->sf.arch != t->arch)
			fprintf(stderr, "uwind: %s: SFrame for %s, not %s\n",
				f->path, uw_arch_name(f->sf.arch),
				uw_arch_name(t->arch));
		else
			f->has_sframe = true;
	}
	load_ehabi(t, f);
	if (elf_getphdrnum(f->elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    !ph.p_memsz || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		add_module(t, f, ph.p_vaddr + (uint64_t)f->bias,
			   ph.p_vaddr + ph.p_memsz + (uint64_t)f->bias);
	}
	for (i = 0; i < f->nsyms; i++)
		f->syms[i].addr += (uint64_t)f->bias;
	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
}

static int cmp_mod(const void *a, const void *b)
{
	const struct uw_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_map(const void *a, const void *b)
{
	const struct stk_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void build_modules(struct stk_target *t)
{
	struct stk_file **files;
	size_t i, k;

	for (i = 0; i < t->nfiles; i++) {
		stk_file_open(t->files[i]);
		file_modules(t, t->files[i]);
	}
	/* Sort modules and their files together: sort pairs by index. */
	if (t->nmods > 1) {
		struct { struct uw_module m; size_t i; } *tmp;

		tmp = stk_xrealloc(NULL, t->nmods, sizeof(*tmp));
		for (i = 0; i < t->nmods; i++) {
			tmp[i].m = t->mods[i];
			tmp[i].i = i;
		}
		qsort(tmp, t->nmods, sizeof(*tmp), cmp_mod);
		files = stk_xrealloc(NULL, t->nmods, sizeof(*files));
		/* Drop a module that overlaps the one before it. */
		for (i = 0, k = 0; i < t->nmods; i++) {
			if (k && tmp[i].m.start < t->mods[k - 1].end) {
				fprintf(stderr,
					"uwind: %s: text overlaps %s, ignored\n",
					t->mod_file[tmp[i].i]->path,
					files[k - 1]->path);
				continue;
			}
			files[k] = t->mod_file[tmp[i].i];
			t->mods[k++] = tmp[i].m;
		}
		free(tmp);
		free(t->mod_file);
		t->mod_file = files;
		t->nmods = k;
	}
}

int stk_target_load(struct stk_target *t)
{
	if (t->nmaps)
		qsort(t->maps, t->nmaps, sizeof(*t->maps), cmp_map);
	if (t->nvmas)
		qsort(t->vmas, t->nvmas, sizeof(*t->vmas), cmp_vma);
	build_modules(t);
	return t->exe_refused ? -1 : 0;
}

void stk_target_free(struct stk_target *t)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++) {
		struct stk_file *f = t->files[i];

		unload_file(f);
		tool_table_free(&f->tab);
		free(f->path);
		free(f->open_path);
		free(f);
	}
	free(t->files);
	free(t->maps);
	free(t->vmas);
	free(t->segs);
	free(t->threads);
	free(t->mods);
	free(t->mod_file);
}
