// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind: dump, look up, convert, check and use unwind tables from the
 * command line.  The commands and their usage are the table below; the
 * man page (scripts/uwind/uwind.1) says the rest.
 *
 * One convention for every command: `-h`/`--help` prints its usage on
 * stdout and exits 0; a usage error prints "uwind: COMMAND: what is
 * wrong" and the usage on stderr and exits 2; an input error prints
 * "uwind: FILE: what is wrong" on stderr and exits 1.  `--json` (stack,
 * lookup, sframe --check, --install and --gc, status) prints one JSON
 * object instead of the text (json.c).
 */
#include <stdio.h>
#include <string.h>
#include "uwind.h"
#include "cu_rules.h"
#include "ehabi_rules.h"
#include "json.h"

#ifndef UWIND_VERSION
#define UWIND_VERSION	"unknown"
#endif

struct tool_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	bool json;		/* takes --json */
	const char *what;	/* one line for `uwind --help` */
	const char *usage;	/* its forms, each "uwind NAME ..." */
};

static int run_dump(int argc, char **argv);
static int run_lookup(int argc, char **argv);

static const struct tool_cmd cmds[] = {
	{ "dump", run_dump, false, "print the unwind tables of a file",
	  "uwind dump FILE              (ELF: SFrame, or 32-bit ARM EHABI;\n"
	  "                              a uwind table file; Mach-O)\n"
	  "uwind dump --sframe RAW --vaddr ADDR\n"
	  "uwind dump --chrome TABLE --text ADDR\n"
	  "uwind dump MACHO [--arch NAME]\n" },
	{ "lookup", run_lookup, true, "the unwind rule at each address",
	  "uwind lookup [--json] FILE ADDR...\n"
	  "uwind lookup [--json] --sframe RAW --vaddr ADDR ADDR...\n"
	  "uwind lookup [--json] --chrome TABLE --text ADDR [--thumb] ADDR...\n"
	  "uwind lookup [--json] MACHO [--arch NAME] ADDR...\n"
	  "uwind lookup [--json] --breakpad SYM [--base ADDR] [--index] [-v]"
	  " ADDR...\n"
	  "(addresses are hex, 0x optional, as addr2line reads them)\n" },
	{ "stack", cmd_stack, true,
	  "backtraces of a core file or of a live process",
	  "uwind stack [OPTIONS] --core CORE [--exe FILE]\n"
	  "uwind stack [OPTIONS] -p PID\n"
	  "  --json           one JSON object\n"
	  "  -t TID[,TID...]  only these threads\n"
	  "  -n N             at most N frames a thread\n"
	  "  --no-sframe      frame pointers only\n"
	  "  --no-convert     only the tables the files carry\n"
	  "  --chrome TABLE [--text ADDR]  the program's ARM code from a"
	  " Chrome table\n"
	  "  --breakpad SYM...  modules from Breakpad symbol files\n"
	  "  --check-walk     walk each thread again with a cache and without\n"
	  "                   the fast loops: exit 3 if a walk differs\n" },
	{ "sframe", cmd_sframe, true,
	  "SFrame tables made from DWARF CFI: write, check, install them",
	  "uwind sframe FILE -o OUT [--raw] [-v]\n"
	  "uwind sframe --check [-v] [--json] FILE...\n"
	  "uwind sframe --install [--dir DIR] [-v] [--json] FILE..."
	  " | --pid PID | --system\n"
	  "uwind sframe --gc [--dir DIR] [-v] [--json]\n"
	  "(--vdso stands for a FILE: the running kernel's vDSO)\n" },
	{ "status", cmd_status, true,
	  "the kernel module, and where each process's frames come from",
	  "uwind status [-p PID] [--dir DIR] [--json]\n" },
	{ "agent", cmd_agent, false,
	  "make the tables the kernel module asks for, as they are needed",
	  "uwind agent [--dir DIR] [--workers N] [--time-limit S]"
	  " [--mem-limit MB]\n"
	  "            [--cfi-max MB] [--table-max MB] [--user-cpu S]"
	  " [--window S]\n"
	  "            [--user-store MB] [--store-max MB] [-v]\n" },
	{ "convert", cmd_convert, false, "unwind tables in other formats",
	  "uwind convert --breakpad ELF|MACHO [--arch NAME]\n"
	  "uwind convert --chrome SYM -o TABLE [--text ADDR] [-v]\n" },
	{ "verify", cmd_verify, false, "check unwind tables whole",
	  "uwind verify [--arch NAME] FILE...\n"
	  "uwind verify --sframe RAW --vaddr ADDR\n"
	  "uwind verify --chrome TABLE [--text ADDR]\n"
	  "uwind verify --breakpad SYM...\n" },
};

#define NCMDS	(sizeof(cmds) / sizeof(cmds[0]))

static void print_usage(FILE *f, const struct tool_cmd *c)
{
	tool_print_usage(f, c->usage);
}

static void print_help(FILE *f)
{
	size_t i;

	fputs("usage: uwind COMMAND [ARG]...\n"
	      "       uwind COMMAND --help\n"
	      "       uwind --version\n\ncommands:\n", f);
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].what);
	fputs("\nuwind(1) says more.\n", f);
}

static const struct tool_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/*
 * Options every command shares, taken out of argv: -h/--help (up to a
 * "--"), and --json where the command has it.  1 when help was asked.
 */
static int common_options(const struct tool_cmd *c, int *argc, char **argv)
{
	int i, k = 1;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	for (i = 1; i < *argc; i++) {
		if (c->json && !strcmp(argv[i], "--json"))
			json_wanted = true;
		else
			argv[k++] = argv[i];
	}
	*argc = k;
	argv[k] = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	const struct tool_cmd *c;

	if (argc < 2) {
		print_help(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		c = argc > 2 ? find_cmd(argv[2]) : NULL;
		if (c)
			print_usage(stdout, c);
		else
			print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("uwind %s\n", UWIND_VERSION);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "uwind: '%s' is not a command\n", argv[1]);
		print_help(stderr);
		return 2;
	}
	tool_usage_of(c->name, c->usage);
	argc--;
	argv++;
	if (common_options(c, &argc, argv)) {
		print_usage(stdout, c);
		return 0;
	}
	return c->run(argc, argv);
}

/* ---- dump and lookup: the reader of their input ---- */

/* A reader picked by an option naming the input's format. */
struct by_option {
	const char *option;
	int (*dump)(int argc, char **argv);
	int (*lookup)(int argc, char **argv);
};

static const struct by_option by_option[] = {
	{ "--sframe", cmd_dump, cmd_lookup },
	{ "--chrome", cmd_chrome_dump, cmd_chrome_lookup },
	{ "--breakpad", NULL, cmd_bp_lookup },
};

/* The first argument that is no option nor an option's value. */
static const char *first_file(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--arch")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-')
			return argv[i];
	}
	return NULL;
}

/*
 * The reader of FILE by what its first bytes say: Mach-O, 32-bit ARM
 * ELF (EHABI), else SFrame (ELF or table file; what is neither is said
 * there).  NULL when the file cannot be read (said).
 */
static int (*by_kind(const char *path, bool lookup))(int, char **)
{
	struct tool_file f;
	enum tool_kind kind;
	bool arm = false;
	Elf *elf;

	if (tool_file_map(path, &f))
		return NULL;
	kind = tool_kind_of(f.data, f.size);
	if (kind == TOOL_KIND_ELF) {
		elf_version(EV_CURRENT);
		elf = elf_memory((char *)f.data, f.size);
		arm = elf && arm_is_elf32(elf);
		if (elf)
			elf_end(elf);
	}
	tool_file_unmap(&f);
	if (kind == TOOL_KIND_MACHO)
		return lookup ? cmd_cu_lookup : cmd_cu_dump;
	if (arm)
		return lookup ? cmd_ehabi_lookup : cmd_ehabi_dump;
	return lookup ? cmd_lookup : cmd_dump;
}

static int run_format(int argc, char **argv, bool lookup)
{
	int (*run)(int, char **) = NULL;
	const char *file;
	size_t i;
	int k;

	for (i = 0; i < sizeof(by_option) / sizeof(by_option[0]); i++)
		for (k = 1; k < argc; k++)
			if (!strcmp(argv[k], by_option[i].option)) {
				run = lookup ? by_option[i].lookup :
				      by_option[i].dump;
				if (!run)
					return tool_usage("%s is for lookup"
							  " and verify",
							  argv[k]);
				return run(argc, argv);
			}
	file = first_file(argc, argv);
	/* No file: SFrame's reader says what is wrong with the options. */
	if (!file)
		return lookup ? cmd_lookup(argc, argv) : cmd_dump(argc, argv);
	run = by_kind(file, lookup);
	return run ? run(argc, argv) : 1;
}

static int run_dump(int argc, char **argv)
{
	return run_format(argc, argv, false);
}

static int run_lookup(int argc, char **argv)
{
	return run_format(argc, argv, true);
}
