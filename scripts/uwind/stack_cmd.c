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
 * bad usage, 3 (STK_EXIT_DIFFER) when --check-walk found a walk made
 * again another way that differs from the one printed (stack_verify.c).
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

/* -t TID[,TID...], added to o's list. */
static int parse_tids(struct stk_opts *o, const char *s)
{
	char buf[32];
	uint64_t v;
	size_t n;

	while (*s) {
		n = strcspn(s, ",");
		if (!n || n >= sizeof(buf))
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (parse_count(buf, INT32_MAX, &v))
			return -1;
		o->tids = stk_xrealloc(o->tids, o->ntids + 1, sizeof(*o->tids));
		o->tids[o->ntids++] = (int)v;
		s += n + (s[n] == ',');
	}
	return 0;
}

/* The value of the option at argv[*i], or NULL when it has none. */
static const char *value(int argc, char **argv, int *i)
{
	return *i + 1 < argc ? argv[++*i] : NULL;
}

static int parse_opts(int argc, char **argv, struct stk_opts *o)
{
	const char *v, *pid = NULL, *n = NULL;
	uint64_t x;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;

		if (!strcmp(a, "--no-sframe")) {
			o->no_sframe = true;
		} else if (!strcmp(a, "--no-convert")) {
			o->no_convert = true;
		} else if (!strcmp(a, "--check-walk")) {
			o->check_walk = true;
		} else if (!strcmp(a, "--breakpad") && has) {
			/* one or more files, up to the next option */
			while (i + 1 < argc && argv[i + 1][0] != '-') {
				o->syms = stk_xrealloc(o->syms, o->nsyms + 1,
						       sizeof(*o->syms));
				o->syms[o->nsyms++] = argv[++i];
			}
		} else if (!strcmp(a, "-t") && has) {
			v = value(argc, argv, &i);
			if (parse_tids(o, v))
				return tool_usage("-t '%s' is not a list of"
						  " thread ids", v);
		} else if (!strcmp(a, "--core") && has) {
			o->core = value(argc, argv, &i);
		} else if (!strcmp(a, "--exe") && has) {
			o->exe = value(argc, argv, &i);
		} else if (!strcmp(a, "-p") && has) {
			pid = value(argc, argv, &i);
		} else if (!strcmp(a, "-n") && has) {
			n = value(argc, argv, &i);
		} else if (!strcmp(a, "--chrome") && has) {
			o->chrome = value(argc, argv, &i);
		} else if (!strcmp(a, "--text") && has) {
			o->text = value(argc, argv, &i);
		} else {
			return tool_usage("unexpected argument %s, or an option"
					  " without its value", a);
		}
	}
	if (!o->core == !pid)
		return tool_usage("--core CORE or -p PID, one of them");
	if (o->exe && !o->core)
		return tool_usage("--exe is for --core");
	if (o->chrome && !o->exe)
		return tool_usage("--chrome needs --exe, the program it is for");
	if (o->text && !o->chrome)
		return tool_usage("--text is for --chrome");
	if (pid && parse_count(pid, INT32_MAX, &x))
		return tool_usage("-p '%s' is not a process id", pid);
	o->pid = pid ? (int)x : 0;
	if (n && parse_count(n, STK_MAX_FRAMES, &x))
		return tool_usage("-n '%s' is not a count from 1 to %u", n,
				  STK_MAX_FRAMES);
	o->max_frames = n ? (unsigned int)x : STK_MAX_FRAMES;
	return 0;
}

/* Every thread -t names is one of the target's: 0, or -1 (said). */
static int check_tids(const struct stk_target *t, const struct stk_opts *o)
{
	size_t i, k;

	for (i = 0; i < o->ntids; i++) {
		for (k = 0; k < t->nthreads; k++)
			if (t->threads[k].tid == o->tids[i])
				break;
		if (k < t->nthreads)
			continue;
		fprintf(stderr, "uwind: %s: no thread %d; its threads:",
			o->core ? o->core : "the process", o->tids[i]);
		for (k = 0; k < t->nthreads; k++)
			fprintf(stderr, " %d", t->threads[k].tid);
		fputc('\n', stderr);
		return -1;
	}
	return 0;
}

/* The core's program cannot be read: say how to name it. */
static void exe_hint(const struct stk_target *t, const struct stk_opts *o)
{
	if (o->core && !o->exe && t->exe && t->exe->tried && !t->exe->img &&
	    !t->exe->wrong)
		fprintf(stderr, "uwind: %s: the program %s cannot be read: its"
			" frames are not named; name it with --exe FILE\n",
			o->core, t->exe->path);
}

/* The tables the options give instead of the files' own. */
static int apply_options(struct stk_target *t, const struct stk_opts *o,
			 struct tool_table *chrome_tab, struct uw_chrome *ct,
			 struct bp_file *bps)
{
	size_t i;

	/* --no-sframe: what a plain frame-pointer unwinder sees. */
	for (i = 0; o->no_sframe && i < t->nmods; i++)
		t->mods[i].sframe = NULL;
	if (o->chrome &&
	    apply_chrome(t, o->exe, o->chrome, o->text, chrome_tab, ct))
		return -1;
	for (i = 0; i < o->nsyms; i++)
		if (apply_breakpad(t, o->syms[i], &bps[i]))
			return -1;
	return 0;
}

int cmd_stack(int argc, char **argv)
{
	struct stk_opts o = { 0 };
	struct bp_file *bps;
	struct tool_table chrome_tab = { 0 };
	struct uw_chrome ct;
	struct stk_target t;
	size_t i;
	int ret, differ = 0;

	ret = parse_opts(argc, argv, &o);
	if (ret) {
		free(o.syms);
		free(o.tids);
		return ret;
	}
	bps = stk_xrealloc(NULL, o.nsyms + 1, sizeof(*bps));
	memset(bps, 0, (o.nsyms + 1) * sizeof(*bps));
	memset(&t, 0, sizeof(t));
	t.convert = !o.no_convert;
	t.memfd = -1;
	t.page_size = 4096;
	ret = o.core ? stk_core_open(&t, o.core, o.exe) :
	      stk_live_open(&t, o.pid);
	if (!ret)
		ret = stk_target_load(&t);
	if (!ret)
		ret = check_tids(&t, &o);
	if (!ret) {
		exe_hint(&t, &o);
		ret = apply_options(&t, &o, &chrome_tab, &ct, bps);
	}
	if (!ret)
		differ = stk_print(&t, &o);
	if (o.core)
		stk_core_close(&t);
	else
		stk_live_close(&t);
	stk_target_free(&t);
	tool_table_free(&chrome_tab);
	for (i = 0; i < o.nsyms; i++)
		bp_file_close(&bps[i]);
	free(bps);
	free(o.syms);
	free(o.tids);
	return ret ? 1 : differ;
}
