// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack --core`: whether each file placed in the target is the
 * one the core's process had mapped (see stk_core_check_file() in
 * stack.h).  A file rebuilt since the crash, or --exe naming another
 * program, would give wrong names and a wrong walk that still looks
 * like one.
 *
 * The check reads nothing of the file but its own build-id note, and
 * compares those bytes with the core's at the address the note has in
 * the process: the kernel and gcore dump the first page of every mapped
 * ELF file, where the note lies.  qemu-user dumps no text: then the
 * program's entry point and program headers are compared with the
 * auxiliary vector (AT_ENTRY, AT_PHDR, AT_PHNUM) instead.
 */
#include <string.h>
#include "stack.h"

/*
 * The file's GNU build-id note: its vaddr, raw bytes (header to the end
 * of the id, as they lie in the file and in memory) and the id in them.
 */
static bool id_note(const struct stk_file *f, uint64_t *vaddr,
		    const uint8_t **raw, size_t *len, size_t *id_off)
{
	size_t i, n, off, next, name_off, desc_off;
	Elf_Data *d;
	GElf_Nhdr nh;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset)
			continue;
		d = elf_getdata_rawchunk(f->elf, ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		for (off = 0; d && off < d->d_size; off = next) {
			next = gelf_getnote(d, off, &nh, &name_off, &desc_off);
			if (!next)
				break;
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
				continue;
			*vaddr = ph.p_vaddr + off;
			*raw = f->img + ph.p_offset + off;
			*len = desc_off + nh.n_descsz - off;
			*id_off = desc_off - off;
			return true;
		}
	}
	return false;
}

static void print_id(const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(stderr, "%02x", id[i]);
}

/* The ELF vaddr of the program headers in memory (PT_PHDR, else the
 * first page's), as the loader gives it in AT_PHDR. */
static bool phdr_vaddr(Elf *elf, const GElf_Ehdr *eh, size_t n,
		       uint64_t *v)
{
	GElf_Phdr ph;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_PHDR) {
			*v = ph.p_vaddr;
			return true;
		}
		if (ph.p_type == PT_LOAD && ph.p_offset == 0 &&
		    eh->e_phoff < ph.p_filesz) {
			*v = ph.p_vaddr + eh->e_phoff;
			return true;
		}
	}
	return false;
}

/*
 * The program's entry and program headers where the core's auxiliary
 * vector has them: 0 they are, 1 nothing to compare, -1 they are not.
 */
static int check_auxv(const struct stk_target *t, const struct stk_file *f)
{
	uint64_t phdr;
	GElf_Ehdr eh;
	size_t n;

	if (!t->has_entry || !gelf_getehdr(f->elf, &eh) ||
	    elf_getphdrnum(f->elf, &n))
		return 1;
	if (eh.e_entry + (uint64_t)f->bias != t->at_entry)
		return -1;
	if (!t->has_phdr || !phdr_vaddr(f->elf, &eh, n, &phdr))
		return 0;
	return phdr + (uint64_t)f->bias == t->at_phdr &&
	       (!t->at_phnum || t->at_phnum == n) ? 0 : -1;
}

/* f is not the file the process had: say so, and what the core has. */
static void mismatch(struct stk_target *t, struct stk_file *f,
		     const uint8_t *raw, size_t len, size_t id_off,
		     const uint8_t *mem)
{
	bool is_exe = f == t->exe && t->exe_arg;
	const char *name = is_exe ? t->exe_arg : f->path;

	fprintf(stderr, "uwind: %s: not the %s the core's process %s", name,
		f == t->exe ? "program" : "file",
		f == t->exe ? "ran" : "had mapped");
	if (raw) {
		fputs(": its build-id is ", stderr);
		print_id(raw + id_off, len - id_off);
		/* The core's own id, when a note of the same shape is there. */
		if (!memcmp(mem, raw, id_off)) {
			fputs(", the core's is ", stderr);
			print_id(mem + id_off, len - id_off);
		} else {
			fputs(", the core has no such note there", stderr);
		}
	} else {
		fputs(": its entry point and program headers are not where the"
		      " core's auxiliary vector has them", stderr);
	}
	if (is_exe)
		t->exe_refused = true;
	fputs(is_exe ? "\n" : f == t->exe ? "; left out: name the program"
	      " with --exe FILE\n" : "; left out\n", stderr);
}

int stk_core_check_file(struct stk_target *t, struct stk_file *f)
{
	const uint8_t *raw, *mem;
	uint64_t vaddr;
	size_t len, id_off;
	int aux;

	if (t->live || !f->elf || !f->placed || f->heap)
		return 0;
	if (id_note(f, &vaddr, &raw, &len, &id_off)) {
		mem = stk_core_bytes(t, vaddr + (uint64_t)f->bias, len);
		if (mem && !memcmp(mem, raw, len))
			return 0;
		if (mem) {
			mismatch(t, f, raw, len, id_off, mem);
			return -1;
		}
	}
	if (f != t->exe)
		return 0;
	aux = check_auxv(t, f);
	if (aux < 0) {
		mismatch(t, f, NULL, 0, 0, NULL);
		return -1;
	}
	if (aux > 0 && t->exe_arg)
		fprintf(stderr, "uwind: %s: cannot check it against the core:"
			" the core holds neither its build-id note nor an"
			" auxiliary vector\n", t->exe_arg);
	return 0;
}
