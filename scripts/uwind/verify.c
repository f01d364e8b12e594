// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind verify: the core's whole-table checks from the command line.
 *
 *   uwind verify FILE...                    its SFrame table, and in a
 *                                           32-bit ARM ELF its EHABI index
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
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/*
 * The SFrame table of the ELF file at path (0 found, 1 none, -1 error,
 * with a message) and whether it is a 32-bit ARM file.
 */
static int open_elf(const char *path, struct tool_table *t, bool *arm)
{
	int fd, ret;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		fprintf(stderr, "uwind: %s: not an ELF file\n", path);
		ret = -1;
	} else {
		*arm = arm_is_elf32(elf);
		ret = tool_elf_sframe(elf, t);
		if (ret < 0)
			fprintf(stderr, "uwind: %s: cannot read SFrame section\n",
				path);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* An ELF file: its SFrame table if it has one, its EHABI index if ARM. */
static int verify_file(const char *path)
{
	struct tool_table t;
	bool arm = false;
	int ret = 0, found;

	found = open_elf(path, &t, &arm);
	if (found < 0)
		return 1;
	if (found == 0) {
		ret |= verify_sframe(path, &t);
		tool_table_free(&t);
	}
	if (arm)
		ret |= verify_ehabi(path);
	else if (found > 0) {
		printf("%s: no SFrame section\n", path);
		ret = 1;
	}
	return ret;
}

static int verify_chrome(const char *path, const char *text)
{
	struct tool_table t;
	struct uw_chrome ct;
	struct uw_check c;
	uint64_t text_start = 0;
	int err;

	if (text && parse_u64(text, &text_start)) {
		fprintf(stderr, "uwind: bad --text '%s'\n", text);
		return 2;
	}
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

static int usage(void)
{
	fprintf(stderr, "usage: uwind verify [--arch NAME] FILE...\n"
			"       uwind verify --sframe RAW --vaddr ADDR\n"
			"       uwind verify --chrome TABLE [--text ADDR]\n"
			"       uwind verify --breakpad SYM...\n");
	return 2;
}

int cmd_verify(int argc, char **argv)
{
	struct table_opts o = { 0 };
	struct tool_table t;
	const char *chrome = NULL, *text = NULL, *arch;
	int i, ret = 0;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "--breakpad")) {
		if (argc < 3)
			return usage();
		for (i = 2; i < argc; i++)
			ret |= verify_breakpad(argv[i]);
		return ret;
	}
	if (!strcmp(argv[1], "--chrome") || !strcmp(argv[1], "--sframe")) {
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
				return usage();
		}
		if (i != argc || !!chrome == !!o.raw || (text && !chrome))
			return usage();
		if (chrome)
			return verify_chrome(chrome, text);
		if (load_table_opts(&o, &t))
			return 1;
		ret = verify_sframe(o.raw, &t);
		tool_table_free(&t);
		return ret;
	}
	arch = take_arch(&argc, argv);
	if (argc < 2)
		return usage();
	for (i = 1; i < argc; i++)
		ret |= macho_is(argv[i]) ? verify_macho(argv[i], arch) :
		       verify_file(argv[i]);
	return ret;
}
