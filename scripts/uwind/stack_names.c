// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack`: the names of a frame's pc.
 *
 * A file's own .symtab names its functions (stack.c loads it, else its
 * .dynsym).  A file without .symtab, as distributions ship their
 * libraries, is asked of libdwfl, which finds its separate debug info the
 * way gdb and eu-stack do (/usr/lib/debug/.build-id/XX/REST.debug by its
 * build-id, then its .gnu_debuglink next to it, in .debug/ and under
 * /usr/lib/debug) and that file's .symtab.  DWARF, from the file or its
 * debug file, gives the inline scopes around the pc: each is a frame of
 * its own.  A pc no symbol covers is named MODULE+0xOFFSET, OFFSET the
 * address in the file (pc minus the load bias), as addr2line -e MODULE
 * reads it.
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include "stack.h"

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Report every placed ELF file at its bias (the vDSO is in memory only). */
void stk_names_begin(struct stk_target *t)
{
	struct stk_file *f;
	size_t i;

	t->dwfl = dwfl_begin(&callbacks);
	if (!t->dwfl)
		return;
	dwfl_report_begin(t->dwfl);
	for (i = 0; i < t->nfiles; i++) {
		f = t->files[i];
		if (!f->elf || !f->placed || f->heap)
			continue;
		f->dwfl_mod = dwfl_report_elf(t->dwfl, f->path,
					      f->open_path ? f->open_path :
					      f->path, -1, (uint64_t)f->bias,
					      true);
	}
	dwfl_report_end(t->dwfl, NULL, NULL);
}

void stk_names_end(struct stk_target *t)
{
	if (t->dwfl)
		dwfl_end(t->dwfl);
	t->dwfl = NULL;
}

static const struct stk_sym *find_sym(const struct stk_file *f, uint64_t pc)
{
	size_t lo = 0, hi = f->nsyms, mid;
	const struct stk_sym *s;

	/* Last symbol starting at or below pc... */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &f->syms[lo - 1];
	/* ...and the first (preferred) one of its address. */
	while (s > f->syms && s[-1].addr == s->addr)
		s--;
	if (s->size && pc - s->addr >= s->size)
		return NULL;
	return s;
}

/* The function holding look, from libdwfl (debug info): true if named. */
static bool dwfl_name(const struct stk_file *f, uint64_t look,
		      struct stk_name *n)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name;

	if (!f->dwfl_mod)
		return false;
	name = dwfl_module_addrinfo(f->dwfl_mod, look, &off, &sym, NULL, NULL,
				    NULL);
	if (!name || !*name)
		return false;
	n->func = name;
	n->func_start = look - off;
	return true;
}

/* The name of an inline scope: its own, or its abstract origin's. */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		return dwarf_formstring(&a);
	return NULL;
}

/* The inline scopes holding look, innermost first (DWARF). */
static void inline_scopes(const struct stk_file *f, uint64_t look,
			  struct stk_name *n)
{
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias;
	int i, k;

	if (!f->dwfl_mod)
		return;
	cu = dwfl_module_addrdie(f->dwfl_mod, look, &bias);
	k = cu ? dwarf_getscopes(cu, look - bias, &scopes) : 0;
	for (i = 0; i < k && n->ninline < STK_MAX_INLINE; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		n->inlined[n->ninline] = scope_name(&scopes[i]);
		if (!n->inlined[n->ninline])
			n->inlined[n->ninline] = "??";
		n->ninline++;
	}
	free(scopes);
}

void stk_name(const struct stk_target *t, const struct stk_frame_at *at,
	      struct stk_name *n)
{
	const struct stk_file *f = at->file;
	const struct stk_sym *s;
	bool named;

	(void)t;
	memset(n, 0, sizeof(*n));
	if (!f)
		return;
	n->module = f->path;
	/* A file that is not the one mapped has no offsets to give. */
	if (f->placed && !f->wrong) {
		n->has_offset = true;
		n->offset = at->pc - (uint64_t)f->bias;
	}
	/* A file with a .symtab is named by it, else by its debug info. */
	named = !f->has_symtab && dwfl_name(f, at->look, n);
	if (!named && (s = find_sym(f, at->look))) {
		n->func = s->name;
		n->func_start = s->addr;
		named = true;
	}
	if (!named && f->has_symtab)
		dwfl_name(f, at->look, n);
	inline_scopes(f, at->look, n);
}
