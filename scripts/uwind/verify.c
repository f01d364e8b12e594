// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind verify: the core's whole-table checks from the command line.
 *
 *   uwind verify FILE...                    its SFrame table, and in a
 *                                           32-bit ARM ELF its EHABI index;
 *                                           a table file's header and section
 *   uwind verify --sframe RAW --vaddr ADDR  a raw SFrame section
 *   uwind verify --chrome TABLE [--text ADDR] a Chrome ARM unwind table
 *   uwind verify [--arch NAME] MACHO...     its __unwind_info (every
 *                                           slice, or --arch's)
 *   uwind verify --breakpad SYM...          Breakpad symbol files
 *
 * One line per table: "ok" with its size, or the entry the check refused
 * and why.  A table that passes never fails a later lookup with a format
 * error (uw_sframe_check(), uw_ehabi_check(), uw_chrome_check(),
 * uw_cu_check(), uw_bp_check(); the last two in verify_fmt.c).  Exit
 * status 0 when every table passed, 1 when one did not, 2 on bad usage.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <uwind/ehabi.h>
#include <uwind/chrome.h>
#include "uwind.h"
#include "ehabi_rules.h"
#include "macho.h"
#include "verify_fmt.h"

/* 0 passed, 1 refused. */
static int verify_sframe(const char *name, const struct tool_table *t)
{
	struct uw_sframe sf;
	struct uw_check c;
	int err;

	err = uw_sframe_init(&sf, &t->span);
	if (err) {
		printf("%s: %s: header: %s\n", name, t->name, uw_strerror(err));
		return 1;
	}
	/* In one call: nothing to reschedule here. */
	uw_check_start(&c, 0);
	err = uw_sframe_check(&sf, &c);
	if (err) {
		printf("%s: %s: FDE %u: %s\n", name, t->name, c.item,
		       uw_strerror(err));
		return 1;
	}
	printf("%s: %s: ok (SFrame V%u, %u FDEs, %u FREs)\n", name, t->name,
	       sf.version, sf.num_fdes, sf.num_fres);
	return 0;
}

static int verify_ehabi(const char *path)
{
	struct arm_elf a;
	struct uw_check c;
	int err, ret = 1;

	if (arm_open(&a, path)) {
		arm_close(&a);
		return 1;
	}
	uw_check_start(&c, 0);
	err = uw_ehabi_check(&a.eh, &c);
	if (err) {
		printf("%s: %s: entry %u: %s\n", path, a.exidx_name, c.item,
		       uw_strerror(err));
	} else {
		printf("%s: %s: ok (%u entries)\n", path, a.exidx_name,
		       a.eh.count);
		ret = 0;
	}
	arm_close(&a);
	return ret;
}

/* An ELF file: its SFrame table if it has one, its EHABI index if ARM. */
static int verify_elf(const struct tool_file *f)
{
	struct tool_table t;
	int ret = 0, found;
	bool arm;
	Elf *elf = tool_file_elf(f);

	if (!elf)
		return 1;
	arm = arm_is_elf32(elf);
	found = tool_elf_sframe(elf, &t);
	elf_end(elf);
	if (found < 0) {
		tool_err(f->path, "cannot read its SFrame section");
		return 1;
	}
	if (found == 0) {
		ret |= verify_sframe(f->path, &t);
		tool_table_free(&t);
	}
	if (arm)
		return ret | verify_ehabi(f->path);
	if (found > 0) {
		tool_err(f->path, "no unwind tables: no .sframe section or"
			 " PT_GNU_SFRAME segment");
		return 1;
	}
	return ret;
}

/* A table file: its header, the machine it names, the section. */
static int verify_uwsf(const struct tool_file *f)
{
	struct tool_table t;
	struct uwsf_hdr d;
	struct uw_sframe sf;
	int ret;

	if (uwsf_read_header(f->path, f->data, f->size, &d) ||
	    tool_load_uwsf(f->path, f->data, f->size, 0, &t))
		return 1;
	if (!uw_sframe_init(&sf, &t.span) &&
	    uwsf_check_machine(f->path, &d, &sf)) {
		tool_table_free(&t);
		return 1;
	}
	ret = verify_sframe(f->path, &t);
	tool_table_free(&t);
	return ret;
}

/* One file named on the command line, by what its first bytes say. */
static int verify_file(const char *path, const char *arch)
{
	struct tool_file f;
	int ret;

	if (tool_file_map(path, &f))
		return 1;
	switch (tool_kind_of(f.data, f.size)) {
	case TOOL_KIND_MACHO:
		ret = verify_macho(path, arch);
		break;
	case TOOL_KIND_UWSF:
		ret = verify_uwsf(&f);
		break;
	case TOOL_KIND_ELF:
		ret = verify_elf(&f);
		break;
	default:
		tool_err(path, "not an ELF file, a uwind table file or a"
			 " Mach-O file");
		ret = 1;
		break;
	}
	tool_file_unmap(&f);
	return ret;
}

static int verify_chrome(const char *path, const char *text)
{
	struct tool_table t;
	struct uw_chrome ct;
	struct uw_check c;
	uint64_t text_start = 0;
	int err;

	if (text && parse_addr(text, &text_start))
		return tool_usage("--text '%s' is not a hex address", text);
	if (tool_load_raw(path, 0, &t))
		return 1;
	err = uw_chrome_init(&ct, &t.span, text_start, false);
	if (err) {
		printf("%s: header: %s\n", path, uw_strerror(err));
	} else {
		uw_check_start(&c, 0);
		err = uw_chrome_check(&ct, &c);
		if (err)
			printf("%s: function %u: %s\n", path, c.item,
			       uw_strerror(err));
		else
			printf("%s: ok (Chrome table, %u pages, %u functions)\n",
			       path, ct.pages, ct.fns);
	}
	tool_table_free(&t);
	return err ? 1 : 0;
}

int cmd_verify(int argc, char **argv)
{
	struct table_opts o = { 0 };
	struct tool_table t;
	const char *chrome = NULL, *text = NULL, *arch;
	int i, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "--breakpad")) {
		if (argc < 3)
			return tool_usage("--breakpad needs SYM files");
		for (i = 2; i < argc; i++)
			ret |= verify_breakpad(argv[i]);
		return ret;
	}
	if (argc > 1 && (!strcmp(argv[1], "--chrome") ||
			 !strcmp(argv[1], "--sframe"))) {
		for (i = 1; i + 1 < argc; i += 2) {
			if (!strcmp(argv[i], "--chrome"))
				chrome = argv[i + 1];
			else if (!strcmp(argv[i], "--text"))
				text = argv[i + 1];
			else if (!strcmp(argv[i], "--sframe"))
				o.raw = argv[i + 1];
			else if (!strcmp(argv[i], "--vaddr"))
				o.vaddr = argv[i + 1];
			else
				break;
		}
		if (i != argc)
			return tool_usage("unexpected argument %s, or an option"
					  " without its value", argv[i]);
		if (chrome && o.raw)
			return tool_usage("--chrome or --sframe, not both");
		if (text && !chrome)
			return tool_usage("--text is for --chrome");
		if (chrome)
			return verify_chrome(chrome, text);
		if (!o.vaddr || parse_addr(o.vaddr, &o.vaddr_v))
			return tool_usage("--sframe needs --vaddr ADDR (hex)");
		if (load_table_opts(&o, &t))
			return 1;
		ret = verify_sframe(o.raw, &t);
		tool_table_free(&t);
		return ret;
	}
	arch = take_arch(&argc, argv);
	if (argc < 2)
		return tool_usage("no input file");
	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return tool_usage("unknown option %s", argv[i]);
	for (i = 1; i < argc; i++)
		ret |= verify_file(argv[i], arch);
	return ret;
}
