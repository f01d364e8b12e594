// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack`: backtraces of every thread of a core file or a live
 * process (stack.c, stack_core.c, stack_live.c), printed by stack_print.c.
 *
 *   uwind stack --core CORE [--exe FILE] [--chrome TABLE [--text ADDR]]
 *               [--breakpad SYM...]
 *   uwind stack -p PID
 *
 * Warnings and errors go to stderr, prefixed "uwind: ".  Exit status: 0
 * when every thread was printed, 1 when the target cannot be read, 2 for
 * bad usage.
 */
#include <stdlib.h>
#include <string.h>
#include "stack.h"
#include "bp_file.h"

/*
 * --chrome TABLE: unwind the executable's code (ARM) from a Chrome table
 * instead of its EHABI tables.  The table's offsets count from --text,
 * by default the run-time address of the executable's first PT_LOAD
 * segment, which is what `uwind convert --chrome` assumes.
 */
static int apply_chrome(struct stk_target *t, const char *exe,
			const char *table, const char *text,
			struct tool_table *tab, struct uw_chrome *ct)
{
	struct stk_file *f = NULL;
	uint64_t text_start = 0;
	GElf_Phdr ph;
	size_t i, n;
	struct uw_check chk;
	int err;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i]->open_path &&
		    !strcmp(t->files[i]->open_path, exe))
			f = t->files[i];
	if (!f || !f->elf || !f->placed) {
		fprintf(stderr, "uwind: --chrome: %s is not placed in the core\n",
			exe);
		return -1;
	}
	if (text) {
		if (parse_addr(text, &text_start)) {
			fprintf(stderr, "uwind: bad --text '%s'\n", text);
			return -1;
		}
	} else if (!elf_getphdrnum(f->elf, &n)) {
		for (i = 0; i < n; i++) {
			if (gelf_getphdr(f->elf, (int)i, &ph) &&
			    ph.p_type == PT_LOAD) {
				text_start = ph.p_vaddr;
				break;
			}
		}
	}
	if (tool_load_raw(table, 0, tab))
		return -1;
	/* The table, as the file's other tables, at link-time addresses. */
	if (text)
		text_start -= (uint64_t)f->bias;
	err = uw_chrome_init(ct, &tab->span, text_start, t->big_endian);
	uw_check_start(&chk, 0);
	err = err ? err : uw_chrome_check(ct, &chk);
	if (err) {
		fprintf(stderr, "uwind: %s: bad Chrome table: %s\n", table,
			uw_strerror(err));
		return -1;
	}
	for (i = 0; i < t->nmods; i++)
		if (t->mod_file[i] == f)
			t->mods[i].chrome = ct;
	return 0;
}

/* The first PT_LOAD's address (Breakpad's addresses count from it). */
static bool first_load(Elf *elf, uint64_t *vaddr)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/* Does the MODULE line of f name file (base name and id)? */
static bool bp_matches(const struct bp_file *f, const struct stk_file *file)
{
	const char *base = strrchr(file->path, '/');
	const char *name = (const char *)f->bp.text.data + f->bp.name_off;
	const char *id = (const char *)f->bp.text.data + f->bp.id_off;
	uint8_t bid[64];
	size_t bidlen;
	char want[34];

	base = base ? base + 1 : file->path;
	if (!file->elf || !file->placed || strlen(base) != f->bp.name_len ||
	    memcmp(base, name, f->bp.name_len))
		return false;
	elf_breakpad_id(file->elf, want, bid, &bidlen);
	return strlen(want) == f->bp.id_len && !memcmp(want, id, f->bp.id_len);
}

/*
 * --breakpad SYM: the module its MODULE line names (base name and id, as
 * `uwind convert --breakpad` writes them) unwinds from the file's STACK
 * records instead of its SFrame or EHABI tables.
 */
static int apply_breakpad(struct stk_target *t, const char *sym,
			  struct bp_file *f)
{
	struct stk_file *file = NULL;
	uint64_t load;
	size_t i;

	if (bp_file_open(sym, 0, f))
		return -1;
	if (!f->bp.name_len) {
		fprintf(stderr, "uwind: %s: no MODULE line\n", sym);
		return -1;
	}
	if (f->bp.arch != t->arch) {
		fprintf(stderr, "uwind: %s: for %s, not %s\n", sym,
			uw_arch_name(f->bp.arch), uw_arch_name(t->arch));
		return -1;
	}
	for (i = 0; i < t->nmods && !file; i++)
		if (bp_matches(f, t->mod_file[i]))
			file = t->mod_file[i];
	if (!file || !first_load(file->elf, &load)) {
		fprintf(stderr, "uwind: %s: no file in the target matches its"
			" MODULE line\n", sym);
		return -1;
	}
	/* The table space is the file's: the module's bias does the rest. */
	f->bp.base = load;
	if (bp_file_index(f)) {
		fprintf(stderr, "uwind: %s: cannot index it\n", sym);
		return -1;
	}
	for (i = 0; i < t->nmods; i++) {
		if (t->mod_file[i] != file)
			continue;
		t->mods[i].bp = &f->bp;
		t->mods[i].sframe = NULL;
		t->mods[i].ehabi = NULL;
		t->mods[i].chrome = NULL;
	}
	return 0;
}

static int stack_usage(void)
{
	fprintf(stderr, "usage: uwind stack [--no-sframe|--no-convert] --core CORE"
			" [--exe FILE]\n"
			"                   [--chrome TABLE [--text ADDR]]\n"
			"                   [--breakpad SYM...]\n"
			"       uwind stack [--no-sframe|--no-convert] -p PID\n");
	return 2;
}

int cmd_stack(int argc, char **argv)
{
	const char *core = NULL, *exe = NULL, *pid_s = NULL;
	const char *chrome = NULL, *text = NULL;
	const char **syms = NULL;
	size_t nsyms = 0;
	struct bp_file *bps = NULL;
	struct tool_table chrome_tab = { 0 };
	struct uw_chrome ct;
	bool no_sframe = false, no_convert = false;
	struct stk_target t;
	uint64_t pid = 0;
	size_t i;
	int ret;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--core") && i + 1 < (size_t)argc)
			core = argv[++i];
		else if (!strcmp(argv[i], "--exe") && i + 1 < (size_t)argc)
			exe = argv[++i];
		else if (!strcmp(argv[i], "-p") && i + 1 < (size_t)argc)
			pid_s = argv[++i];
		else if (!strcmp(argv[i], "--no-sframe"))
			no_sframe = true;
		else if (!strcmp(argv[i], "--no-convert"))
			no_convert = true;
		else if (!strcmp(argv[i], "--chrome") && i + 1 < (size_t)argc)
			chrome = argv[++i];
		else if (!strcmp(argv[i], "--text") && i + 1 < (size_t)argc)
			text = argv[++i];
		else if (!strcmp(argv[i], "--breakpad") && i + 1 < (size_t)argc)
			/* one or more files, up to the next option */
			while (i + 1 < (size_t)argc && argv[i + 1][0] != '-') {
				syms = stk_xrealloc(syms, nsyms + 1,
						    sizeof(*syms));
				syms[nsyms++] = argv[++i];
			}
		else {
			free(syms);
			return stack_usage();
		}
	}
	if (!!core == !!pid_s || (exe && !core) || (chrome && !exe) ||
	    (text && !chrome)) {
		free(syms);
		return stack_usage();
	}
	if (pid_s && parse_count(pid_s, INT32_MAX, &pid)) {
		fprintf(stderr, "uwind: bad pid '%s'\n", pid_s);
		return 2;
	}

	memset(&t, 0, sizeof(t));
	t.convert = !no_convert;
	t.memfd = -1;
	t.page_size = 4096;
	ret = core ? stk_core_open(&t, core, exe) : stk_live_open(&t, (int)pid);
	if (!ret) {
		if (stk_target_load(&t))
			ret = 1;
		/* --no-sframe: what a plain frame-pointer unwinder sees. */
		for (i = 0; no_sframe && i < t.nmods; i++)
			t.mods[i].sframe = NULL;
		if (chrome &&
		    apply_chrome(&t, exe, chrome, text, &chrome_tab, &ct))
			ret = 1;
		if (nsyms) {
			bps = stk_xrealloc(NULL, nsyms, sizeof(*bps));
			memset(bps, 0, nsyms * sizeof(*bps));
		}
		for (i = 0; !ret && i < nsyms; i++)
			if (apply_breakpad(&t, syms[i], &bps[i]))
				ret = 1;
	}
	if (!ret)
		stk_print(&t);
	if (core)
		stk_core_close(&t);
	else
		stk_live_close(&t);
	stk_target_free(&t);
	tool_table_free(&chrome_tab);
	for (i = 0; i < nsyms; i++)
		bp_file_close(&bps[i]);
	free(bps);
	free(syms);
	return ret ? 1 : 0;
}
