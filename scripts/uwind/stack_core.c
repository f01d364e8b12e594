// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack --core`: the target behind an ELF core file.
 *
 * Threads come from NT_PRSTATUS, mapped files from NT_FILE, memory from
 * the PT_LOAD segments' file contents (a segment the core left empty, as
 * kernels, gdb and qemu do for unmodified file-backed text, is read from
 * the mapped file instead), the executable's entry, program headers and
 * the vDSO from NT_AUXV, AArch64's pointer-auth mask from
 * NT_ARM_PAC_MASK, the signal the process got from NT_SIGINFO (else the
 * threads' pr_cursig), its pid and command line from NT_PRPSINFO.
 *
 * 64-bit cores (x86-64, AArch64) and 32-bit ARM cores: their notes have
 * 4-byte words (elf_prstatus with pr_reg at 72, r0-r15 then cpsr, whose
 * T bit gives the pc's Thumb state; 32-bit NT_AUXV and NT_FILE entries).
 *
 * qemu-user writes NT_PRSTATUS, NT_PRPSINFO and NT_AUXV but no NT_FILE:
 * then the executable named by --exe is placed from its program headers,
 * at its linked address (ET_EXEC) or moved by AT_ENTRY - e_entry (PIE).
 * Every offset and size read from the core is checked against the file.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "stack.h"

#ifndef NT_FILE
#define NT_FILE		0x46494c45
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO	0x53494749
#endif
#ifndef NT_ARM_PAC_MASK
#define NT_ARM_PAC_MASK	0x406
#endif

#define PRSTATUS_PID	32	/* pr_pid in the 64-bit elf_prstatus */
#define PRSTATUS_REG	112	/* pr_reg in the 64-bit elf_prstatus */
#define PRSTATUS32_PID	24	/* the same in the 32-bit elf_prstatus */
#define PRSTATUS32_REG	72
#define PRSTATUS_CURSIG	12	/* pr_cursig, in both */
/* elf_prpsinfo: its size, pr_pid and pr_psargs, 64-bit then 32-bit ARM. */
#define PRPSINFO_SIZE	136
#define PRPSINFO_PID	24
#define PRPSINFO_ARGS	56
#define PRPSINFO32_SIZE	124
#define PRPSINFO32_PID	12
#define PRPSINFO32_ARGS	44

static uint32_t load_u32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
		    (uint32_t)p[1] << 8 | p[0];
}

/* A note word: 4 bytes in 32-bit cores, 8 in 64-bit ones. */
static uint64_t load_word(const struct stk_target *t, const uint8_t *p)
{
	return t->elf32 ? load_u32(p, t->big_endian) :
			  stk_load_u64(p, t->big_endian);
}

static void note_prstatus(struct stk_target *t, const char *core,
			  const uint8_t *d, size_t n)
{
	size_t pid = t->elf32 ? PRSTATUS32_PID : PRSTATUS_PID;
	size_t reg = t->elf32 ? PRSTATUS32_REG : PRSTATUS_REG;

	if (n < reg) {
		fprintf(stderr, "uwind: %s: short NT_PRSTATUS note\n", core);
		return;
	}
	if (stk_add_thread(t, (int)load_u32(d + pid, t->big_endian),
			   d + reg, n - reg))
		fprintf(stderr, "uwind: %s: NT_PRSTATUS of LWP %u too short\n",
			core, load_u32(d + pid, t->big_endian));
	/* pr_cursig: a short after pr_info's three ints, in both layouts. */
	t->threads[t->nthreads - 1].cursig =
		(int16_t)(t->big_endian ? d[PRSTATUS_CURSIG] << 8 |
			  d[PRSTATUS_CURSIG + 1] : d[PRSTATUS_CURSIG + 1] << 8 |
			  d[PRSTATUS_CURSIG]);
}

/* Signals whose si_code > 0 carries the faulting address. */
static bool fault_signal(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGILL ||
	       signo == SIGFPE || signo == SIGTRAP;
}

/*
 * NT_SIGINFO, the kernel's siginfo_t of the thread before it: si_signo,
 * si_errno, si_code, then (after padding to the pointer's alignment) the
 * union: si_addr for a fault, si_pid and si_uid for a sent signal.  The
 * first note with a signal is the one the process died of.
 */
static void note_siginfo(struct stk_target *t, const uint8_t *d, size_t n)
{
	size_t u = t->elf32 ? 12 : 16;
	struct stk_signal *s = &t->sig;
	int signo;

	if (n < u + 8 || s->has_code || !t->nthreads)
		return;
	signo = (int)load_u32(d, t->big_endian);
	if (signo <= 0)
		return;
	memset(s, 0, sizeof(*s));
	s->signo = signo;
	s->code = (int)load_u32(d + 8, t->big_endian);
	s->has_code = true;
	s->tid = t->threads[t->nthreads - 1].tid;
	if (s->code > 0 && fault_signal(signo)) {
		s->has_addr = true;
		s->addr = load_word(t, d + u);
	} else if (s->code <= 0) {
		s->has_sender = true;
		s->pid = (int)load_u32(d + u, t->big_endian);
		s->uid = (int)load_u32(d + u + 4, t->big_endian);
	}
}

/* NT_PRPSINFO: the pid and command line (the layout's size tells it). */
static void note_psinfo(struct stk_target *t, const uint8_t *d, size_t n)
{
	size_t pid, args;

	if (n == PRPSINFO_SIZE) {
		pid = PRPSINFO_PID;
		args = PRPSINFO_ARGS;
	} else if (n == PRPSINFO32_SIZE) {
		pid = PRPSINFO32_PID;
		args = PRPSINFO32_ARGS;
	} else {
		return;
	}
	t->ps_pid = (int)load_u32(d + pid, t->big_endian);
	memcpy(t->ps_args, d + args, 80);
	t->ps_args[80] = '\0';
	/* Arguments are NUL-separated when the kernel copies them. */
	while (strlen(t->ps_args) && t->ps_args[strlen(t->ps_args) - 1] == ' ')
		t->ps_args[strlen(t->ps_args) - 1] = '\0';
}

/* Without NT_SIGINFO: the first thread's pr_cursig. */
static void cursig_signal(struct stk_target *t)
{
	size_t i;

	for (i = 0; !t->sig.signo && i < t->nthreads; i++) {
		if (t->threads[i].cursig > 0) {
			t->sig.signo = t->threads[i].cursig;
			t->sig.tid = t->threads[i].tid;
		}
	}
}

const char *stk_sigcode_name(int signo, int code)
{
	static const char *const segv[] = { NULL, "SEGV_MAPERR",
		"SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR" };
	static const char *const bus[] = { NULL, "BUS_ADRALN", "BUS_ADRERR",
		"BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO" };
	static const char *const ill[] = { NULL, "ILL_ILLOPC", "ILL_ILLOPN",
		"ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG",
		"ILL_COPROC", "ILL_BADSTK" };
	static const char *const fpe[] = { NULL, "FPE_INTDIV", "FPE_INTOVF",
		"FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND", "FPE_FLTRES",
		"FPE_FLTINV", "FPE_FLTSUB" };
	static const char *const trap[] = { NULL, "TRAP_BRKPT", "TRAP_TRACE",
		"TRAP_BRANCH", "TRAP_HWBKPT" };
	static const char *const user[] = { "SI_USER", "SI_QUEUE", "SI_TIMER",
		"SI_MESGQ", "SI_ASYNCIO", "SI_SIGIO", "SI_TKILL" };
#define PICK(a) (code < (int)(sizeof(a) / sizeof(a[0])) ? a[code] : NULL)

	if (code == 0x80)
		return "SI_KERNEL";
	if (code <= 0)
		return -code < (int)(sizeof(user) / sizeof(user[0])) ?
		       user[-code] : NULL;
	switch (signo) {
	case SIGSEGV: return PICK(segv);
	case SIGBUS: return PICK(bus);
	case SIGILL: return PICK(ill);
	case SIGFPE: return PICK(fpe);
	case SIGTRAP: return PICK(trap);
	default: return NULL;
	}
#undef PICK
}

/*
 * NT_FILE: word count, word page_size, count x {start, end, file page
 * offset}, then count NUL-terminated paths (words: 8 bytes, 4 in 32-bit
 * cores).
 */
static int note_file(struct stk_target *t, const char *core, const uint8_t *d,
		     size_t n)
{
	uint64_t count, page, i, w = t->elf32 ? 4 : 8;
	const uint8_t *name, *end = d + n;

	if (n < 2 * w)
		goto bad;
	count = load_word(t, d);
	page = load_word(t, d + w);
	if (count > (n - 2 * w) / (3 * w) || !page || (page & (page - 1)))
		goto bad;
	t->page_size = page;
	name = d + 2 * w + count * 3 * w;
	for (i = 0; i < count; i++) {
		const uint8_t *e = d + 2 * w + i * 3 * w, *nul;
		uint64_t start = load_word(t, e);
		uint64_t stop = load_word(t, e + w);
		uint64_t pgoff = load_word(t, e + 2 * w);

		nul = name < end ? memchr(name, 0, end - name) : NULL;
		if (!nul || pgoff > UINT64_MAX / page)
			goto bad;
		stk_add_map(t, start, stop, pgoff * page, (const char *)name);
		name = nul + 1;
	}
	return 1;
bad:
	fprintf(stderr, "uwind: %s: malformed NT_FILE note\n", core);
	return 0;
}

static void note_auxv(struct stk_target *t, const uint8_t *d, size_t n)
{
	size_t i, w = t->elf32 ? 4 : 8;

	for (i = 0; i + 2 * w <= n; i += 2 * w) {
		uint64_t type = load_word(t, d + i);
		uint64_t val = load_word(t, d + i + w);

		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY) {
			t->at_entry = val;
			t->has_entry = true;
		} else if (type == AT_PHDR) {
			t->at_phdr = val;
			t->has_phdr = true;
		} else if (type == AT_PHNUM) {
			t->at_phnum = val;
		} else if (type == AT_SYSINFO_EHDR && val) {
			t->at_vdso = val;
			t->has_vdso = true;
		}
	}
}

/* Walk one PT_NOTE segment; returns whether an NT_FILE note was seen. */
static bool read_notes(struct stk_target *t, const char *core,
		       const GElf_Phdr *ph)
{
	size_t off = 0, name_off, desc_off, size = ph->p_filesz;
	bool has_file = false;
	Elf_Data *data;
	GElf_Nhdr nh;

	if (ph->p_offset >= t->core_size)
		return false;
	if (size > t->core_size - ph->p_offset)
		size = t->core_size - ph->p_offset;
	data = elf_getdata_rawchunk(t->core_elf, ph->p_offset, size,
				    ELF_T_NHDR);
	if (!data)
		return false;
	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;
		const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;

		if (nh.n_namesz == 5 && !memcmp(name, "CORE", 5)) {
			if (nh.n_type == NT_PRSTATUS)
				note_prstatus(t, core, desc, nh.n_descsz);
			else if (nh.n_type == NT_AUXV)
				note_auxv(t, desc, nh.n_descsz);
			else if (nh.n_type == NT_SIGINFO)
				note_siginfo(t, desc, nh.n_descsz);
			else if (nh.n_type == NT_PRPSINFO)
				note_psinfo(t, desc, nh.n_descsz);
			else if (nh.n_type == NT_FILE && !has_file)
				has_file = note_file(t, core, desc,
						     nh.n_descsz);
		} else if (nh.n_namesz == 6 && !memcmp(name, "LINUX", 6) &&
			   nh.n_type == NT_ARM_PAC_MASK && nh.n_descsz >= 16) {
			/* data_mask, insn_mask: return addresses are code. */
			t->pac_mask = stk_load_u64(desc + 8, t->big_endian);
		}
	}
	return has_file;
}

static void add_seg(struct stk_target *t, const char *core,
		    const GElf_Phdr *ph, bool *warned)
{
	uint64_t size = ph->p_filesz < ph->p_memsz ? ph->p_filesz : ph->p_memsz;
	struct stk_seg *s;

	if (!size)
		return;
	if (ph->p_offset >= t->core_size ||
	    size > t->core_size - ph->p_offset) {
		if (!*warned)
			fprintf(stderr, "uwind: %s: truncated core: memory "
				"beyond the end of the file is missing\n", core);
		*warned = true;
		if (ph->p_offset >= t->core_size)
			return;
		size = t->core_size - ph->p_offset;
	}
	if (ph->p_vaddr + size < ph->p_vaddr)
		return;
	t->segs = stk_xrealloc(t->segs, t->nsegs + 1, sizeof(*t->segs));
	s = &t->segs[t->nsegs++];
	s->start = ph->p_vaddr;
	s->size = size;
	s->data = t->core_img + ph->p_offset;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct stk_seg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Without NT_FILE: map the executable's PT_LOADs where it was loaded. */
static int place_exe(struct stk_target *t, const char *exe)
{
	struct stk_file *f = stk_file_get(t, exe);
	uint64_t bias = 0, prev_end = 0;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;

	if (!f->open_path)
		f->open_path = strdup(exe);
	if (stk_file_open(f))
		return -1;
	if (!f->elf || !gelf_getehdr(f->elf, &eh) ||
	    elf_getphdrnum(f->elf, &n)) {
		fprintf(stderr, "uwind: %s: not an ELF file\n", exe);
		return -1;
	}
	/* ET_EXEC runs at its own addresses; check_auxv() compares. */
	if (t->has_entry && eh.e_type == ET_DYN)
		bias = t->at_entry - eh.e_entry;
	else if (eh.e_type == ET_DYN)
		fprintf(stderr, "uwind: %s: position-independent and the core "
			"has no AT_ENTRY: assuming it is loaded at 0\n", exe);
	for (i = 0; i < n; i++) {
		uint64_t start, end, off;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !ph.p_filesz)
			continue;
		start = (ph.p_vaddr + bias) & ~(t->page_size - 1);
		off = ph.p_offset & ~(t->page_size - 1);
		end = ph.p_vaddr + bias + ph.p_filesz;
		if (start < prev_end) {		/* shares a page */
			off += prev_end - start;
			start = prev_end;
		}
		if (end > start)
			stk_add_map(t, start, end, off, exe);
		prev_end = end > prev_end ? end : prev_end;
	}
	f->bias = (int64_t)bias;
	f->placed = true;
	t->exe = f;
	return 0;
}

/* With NT_FILE: the program is the file mapping AT_ENTRY. */
static struct stk_file *find_exe(struct stk_target *t)
{
	size_t i;

	for (i = 0; i < t->nmaps && t->has_entry; i++)
		if (t->at_entry >= t->maps[i].start &&
		    t->at_entry < t->maps[i].end)
			return t->maps[i].file;
	return t->nmaps ? t->maps[0].file : NULL;
}

/* With NT_FILE and --exe: read the main executable from FILE instead. */
static void override_exe(struct stk_target *t, const char *exe)
{
	struct stk_file *f = find_exe(t);

	if (!f)
		return;
	free(f->open_path);
	f->open_path = strdup(exe);
}

static void load_vdso(struct stk_target *t)
{
	size_t i;

	for (i = 0; t->has_vdso && i < t->nsegs; i++) {
		const struct stk_seg *s = &t->segs[i];
		uint64_t n = s->size - (t->at_vdso - s->start);
		uint8_t *img;

		if (t->at_vdso < s->start || t->at_vdso - s->start >= s->size)
			continue;
		img = stk_xrealloc(NULL, n, 1);
		memcpy(img, s->data + (t->at_vdso - s->start), n);
		stk_add_vdso(t, t->at_vdso, img, n);
		return;
	}
}

int stk_core_open(struct stk_target *t, const char *core, const char *exe)
{
	bool has_file = false, warned = false;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;
	void *img;

	img = stk_map_file(core, sizeof(Elf64_Ehdr), "not an ELF core file",
			   &t->core_size);
	if (!img)
		return -1;
	t->core_img = img;
	elf_version(EV_CURRENT);
	t->core_elf = elf_memory(img, t->core_size);
	if (!t->core_elf || elf_kind(t->core_elf) != ELF_K_ELF ||
	    !gelf_getehdr(t->core_elf, &eh) || eh.e_type != ET_CORE) {
		fprintf(stderr, "uwind: %s: not an ELF core file\n", core);
		return -1;
	}
	t->elf32 = gelf_getclass(t->core_elf) == ELFCLASS32;
	/* 32-bit cores: ARM only; ARM cores: 32-bit only. */
	if (t->elf32 != (eh.e_machine == EM_ARM)) {
		fprintf(stderr, "uwind: %s: unsupported machine %u in a %d-bit "
			"core\n", core, eh.e_machine, t->elf32 ? 32 : 64);
		return -1;
	}
	t->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	switch (eh.e_machine) {
	case EM_ARM:
		t->arch = UW_ARCH_ARM;
		break;
	case EM_X86_64:
		t->arch = UW_ARCH_X86_64;
		break;
	case EM_AARCH64:
		t->arch = UW_ARCH_AARCH64;
		/* Linux user space: bits above a 48-bit VA, TBI byte included. */
		t->pac_mask = 0xff7f000000000000ull;
		break;
	default:
		fprintf(stderr, "uwind: %s: unsupported machine %u\n", core,
			eh.e_machine);
		return -1;
	}
	if (elf_getphdrnum(t->core_elf, &n)) {
		fprintf(stderr, "uwind: %s: bad program headers: %s\n", core,
			elf_errmsg(-1));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(t->core_elf, (int)i, &ph)) {
			fprintf(stderr, "uwind: %s: bad program header %zu\n",
				core, i);
			return -1;
		}
		if (ph.p_type == PT_NOTE)
			has_file |= read_notes(t, core, &ph);
		else if (ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz >
			 ph.p_vaddr) {
			add_seg(t, core, &ph, &warned);
			stk_add_vma(t, ph.p_vaddr, ph.p_vaddr + ph.p_memsz);
		}
	}
	if (!t->nthreads) {
		fprintf(stderr, "uwind: %s: no NT_PRSTATUS note: no threads\n",
			core);
		return -1;
	}
	if (t->nsegs)
		qsort(t->segs, t->nsegs, sizeof(*t->segs), cmp_seg);
	cursig_signal(t);
	t->exe_arg = exe;
	if (has_file && exe) {
		override_exe(t, exe);
	} else if (exe) {
		if (place_exe(t, exe))
			return -1;
	} else if (!has_file) {
		fprintf(stderr, "uwind: %s: no NT_FILE note, mapped files "
			"unknown: name the executable with --exe\n", core);
	}
	if (has_file)
		t->exe = find_exe(t);
	load_vdso(t);
	return 0;
}

void stk_core_close(struct stk_target *t)
{
	if (t->core_elf)
		elf_end(t->core_elf);
	if (t->core_img)
		munmap(t->core_img, t->core_size);
	t->core_elf = NULL;
	t->core_img = NULL;
}
