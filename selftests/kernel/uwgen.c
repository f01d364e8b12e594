// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwgen: files for the agent's tests (guest-agent.sh), made in the guest.
 *
 *   uwgen newid SRC DST SEED [COUNT]
 *       DST: a copy of the ELF file SRC with another GNU build-id (its
 *       bytes from SEED), a file no table was ever made for: a program
 *       "built" after the agent started.  With COUNT, COUNT copies, DST a
 *       printf pattern for their number (%d), SEED + number each.
 *   uwgen junk DST MIB SEED
 *       DST: an ELF shared object of this machine with 1 MiB of code and
 *       MIB MiB of malformed CFI in its .eh_frame: one valid CIE, then
 *       FDEs over the code whose instructions are noise, some of them
 *       claiming far more code than there is (MIB 0: an empty .eh_frame,
 *       no CFI at all).
 *   uwgen map SECONDS FILE...
 *       map each FILE executable (as a loader maps a library) and spin
 *       for SECONDS, so that samples make the module scan this process.
 *   uwgen sleep SECONDS
 *       sleep: a program that is started and waits (its copies made by
 *       newid, a user starting many distinct programs).
 *
 * Exit status 0, or 1 with a message.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The machine's CIE rules (junk): code alignment, return address column,
 * the CFA at the call and where the return address is then.
 */
#if defined(__x86_64__)
#define MACHINE	EM_X86_64
#define CIE_RULES \
	1, 0x78, 16,			/* code 1, data -8, RA rip (16) */ \
	1, 0x1b,			/* aug: pcrel|sdata4 */ \
	0x0c, 7, 8,			/* def_cfa rsp+8 */ \
	0x90, 1			/* offset rip at cfa-8 */
#elif defined(__aarch64__)
#define MACHINE	EM_AARCH64
#define CIE_RULES \
	4, 0x78, 30,			/* code 4, data -8, RA x30 */ \
	1, 0x1b,			/* aug: pcrel|sdata4 */ \
	0x0c, 31, 0,			/* def_cfa sp+0 */ \
	0x9e, 1			/* offset x30 at cfa-8 */
#else
#error "uwgen: x86-64 and AArch64 only"
#endif

static int die(const char *what)
{
	perror(what);
	return 1;
}

/* xorshift: the same noise for the same seed. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The offset and length of the GNU build-id in the ELF image p. */
static int find_id(const uint8_t *p, size_t n, size_t *off, size_t *len)
{
	const Elf64_Ehdr *eh = (const void *)p;
	size_t i, o, end, desc;

	if (n < sizeof(*eh) || memcmp(p, ELFMAG, SELFMAG) ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > n)
		return -1;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(p + eh->e_phoff +
						     i * sizeof(*ph));

		if (ph->p_type != PT_NOTE || ph->p_offset + ph->p_filesz > n)
			continue;
		for (o = ph->p_offset, end = o + ph->p_filesz; o + 12 <= end;) {
			const Elf64_Nhdr *nh = (const void *)(p + o);

			desc = o + 12 + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + o + 12, "GNU", 4) &&
			    desc + nh->n_descsz <= end) {
				*off = desc;
				*len = nh->n_descsz;
				return 0;
			}
			o = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return -1;
}

static int write_file(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n || close(fd))
		return die(path);
	return 0;
}

static int newid(const char *src, const char *dst, unsigned long seed,
		 unsigned long count)
{
	char path[4096];
	struct stat st;
	size_t off, len, i;
	uint8_t *p;
	uint64_t s;
	unsigned long k;
	int fd = open(src, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return die(src);
	p = malloc((size_t)st.st_size);
	if (!p || read(fd, p, (size_t)st.st_size) != st.st_size)
		return die(src);
	close(fd);
	if (find_id(p, (size_t)st.st_size, &off, &len)) {
		fprintf(stderr, "uwgen: %s: no GNU build-id\n", src);
		return 1;
	}
	for (k = 0; k < (count ? count : 1); k++) {
		s = 0x9e3779b97f4a7c15ull ^ (seed + k) * 0x100000001b3ull;
		for (i = 0; i < len; i++)
			p[off + i] = (uint8_t)rnd(&s);
		snprintf(path, sizeof(path), dst, (int)k);
		if (write_file(path, p, (size_t)st.st_size, st.st_mode & 0777))
			return 1;
	}
	free(p);
	return 0;
}

/* ---- junk: an ELF with malformed CFI ---- */

#define CODE_SIZE	(1u << 20)
#define NSEC		5		/* null .text .note .eh_frame .shstrtab */

static const char shstr[] = "\0.text\0.note.gnu.build-id\0.eh_frame\0.shstrtab";

/* The CFI: a CIE (augmentation "zR", pcrel sdata4), then noise FDEs. */
static size_t make_cfi(uint8_t *q, size_t size, uint64_t cfi_addr,
		       uint64_t *s)
{
	static const uint8_t cie[] = {
		0x14, 0, 0, 0, 0, 0, 0, 0,	/* length 20, CIE id 0 */
		1, 'z', 'R', 0,			/* version 1, "zR" */
		CIE_RULES,
		0, 0,				/* pad */
	};
	size_t o = sizeof(cie), len, i;
	int32_t pc;
	uint32_t range;

	if (size < 64)
		return 0;	/* no CFI at all: the section is empty */
	memcpy(q, cie, sizeof(cie));
	while (o + 64 <= size) {
		len = 20 + (rnd(s) % 40) * 4;	/* a multiple of 4 */
		if (o + 4 + len > size)
			break;
		memcpy(q + o, &(uint32_t){ (uint32_t)len }, 4);
		memcpy(q + o + 4, &(uint32_t){ (uint32_t)(o + 4) }, 4);
		/* pc_begin, pc-relative: somewhere in the code (at vaddr 0). */
		pc = (int32_t)(rnd(s) % CODE_SIZE) -
		     (int32_t)(cfi_addr + o + 8);
		memcpy(q + o + 8, &pc, 4);
		/* Mostly small ranges; one in 16 claims 16 MiB. */
		range = rnd(s) % 16 ? (uint32_t)(rnd(s) % 4096) + 1 : 16u << 20;
		memcpy(q + o + 12, &range, 4);
		q[o + 16] = 0;			/* augmentation data length */
		for (i = 17; i < 4 + len; i++)
			q[o + i] = (uint8_t)rnd(s);
		o += 4 + len;
	}
	memset(q + o, 0, size - o);		/* the zero terminator, and pad */
	return size;
}

static int junk(const char *dst, unsigned long mib, unsigned long seed)
{
	size_t cfi = (size_t)mib << 20, note = 36;
	size_t code_off = 0x1000, note_off = code_off + CODE_SIZE;
	size_t cfi_off = note_off + 0x100;
	size_t str_off = cfi_off + cfi, sh_off = (str_off + sizeof(shstr) + 7) & ~7ul;
	size_t total = sh_off + NSEC * sizeof(Elf64_Shdr);
	uint8_t *p = calloc(1, total);
	Elf64_Ehdr *eh = (void *)p;
	Elf64_Phdr *ph = (void *)(p + sizeof(*eh));
	Elf64_Shdr *sh = (void *)(p + sh_off);
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	int r;

	if (!p)
		return die("uwgen");
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = MACHINE;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = sh_off;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = NSEC;
	eh->e_shstrndx = 4;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_filesz = str_off, .p_memsz = str_off,
			      .p_align = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R,
			      .p_offset = note_off, .p_vaddr = note_off,
			      .p_filesz = note, .p_memsz = note, .p_align = 4 };
	memset(p + code_off, 0xc3, CODE_SIZE);	/* ret, or anything */
	memcpy(p + note_off, &(uint32_t[3]){ 4, 20, NT_GNU_BUILD_ID }, 12);
	memcpy(p + note_off + 12, "GNU", 4);
	for (r = 0; r < 20; r++)
		p[note_off + 16 + r] = (uint8_t)rnd(&s);
	make_cfi(p + cfi_off, cfi, cfi_off, &s);
	memcpy(p + str_off, shstr, sizeof(shstr));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = code_off, .sh_offset = code_off,
			      .sh_size = CODE_SIZE, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_NOTE,
			      .sh_flags = SHF_ALLOC, .sh_addr = note_off,
			      .sh_offset = note_off, .sh_size = note,
			      .sh_addralign = 4 };
	sh[3] = (Elf64_Shdr){ .sh_name = 26, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC, .sh_addr = cfi_off,
			      .sh_offset = cfi_off, .sh_size = cfi,
			      .sh_addralign = 8 };
	sh[4] = (Elf64_Shdr){ .sh_name = 36, .sh_type = SHT_STRTAB,
			      .sh_offset = str_off, .sh_size = sizeof(shstr),
			      .sh_addralign = 1 };
	r = write_file(dst, p, total, 0644);
	free(p);
	return r;
}

/* ---- map ---- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int map(double secs, char **files, int n)
{
	volatile unsigned long spin = 0;
	struct stat st;
	double end;
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = open(files[i], O_RDONLY);
		if (fd < 0 || fstat(fd, &st) ||
		    mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return die(files[i]);
		close(fd);
	}
	for (end = now() + secs; now() < end;)
		spin++;
	(void)spin;	/* gcc 16: a volatile only written is "unused" */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "newid"))
		return newid(argv[2], argv[3], strtoul(argv[4], NULL, 0),
			     argc > 5 ? strtoul(argv[5], NULL, 0) : 0);
	if (argc == 5 && !strcmp(argv[1], "junk"))
		return junk(argv[2], strtoul(argv[3], NULL, 0),
			    strtoul(argv[4], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "sleep"))
		return sleep((unsigned int)strtoul(argv[2], NULL, 0)) ? 1 : 0;
	if (argc >= 4 && !strcmp(argv[1], "map"))
		return map(strtod(argv[2], NULL), argv + 3, argc - 3);
	fprintf(stderr, "usage: uwgen newid SRC DST SEED [COUNT] | junk DST MIB SEED | map SECONDS FILE... | sleep SECONDS\n");
	return 2;
}
