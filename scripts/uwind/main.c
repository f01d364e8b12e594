// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind: dump, look up and use unwind tables from the command line.
 *
 *   uwind dump FILE | --sframe RAW --vaddr ADDR
 *   uwind lookup FILE ADDR... | --sframe RAW --vaddr ADDR ADDR...
 *     (a 32-bit ARM FILE: its .ARM.exidx/.ARM.extab, see ehabi_print.c)
 *   uwind stack --core CORE [--exe FILE] | -p PID
 *   uwind dump|lookup --chrome TABLE --text ADDR [ADDR...] (chrome_print.c)
 *   uwind convert --breakpad ELF | --chrome SYM -o TABLE (convert.c)
 *   uwind sframe FILE -o OUT | --check FILE... (sframe_cmd.c)
 *   uwind verify FILE... | --sframe RAW --vaddr ADDR | --chrome TABLE |
 *     --breakpad SYM... (verify.c, verify_fmt.c)
 */
#include <stdio.h>
#include <string.h>
#include "uwind.h"
#include "cu_rules.h"

static void usage(FILE *f)
{
	fputs("usage: uwind dump FILE\n"
	      "       uwind dump --sframe RAW --vaddr ADDR\n"
	      "       uwind lookup FILE ADDR...\n"
	      "       uwind lookup --sframe RAW --vaddr ADDR ADDR...\n"
	      "       uwind stack --core CORE [--exe FILE]\n"
	      "       uwind stack -p PID\n"
	      "       uwind dump --chrome TABLE --text ADDR\n"
	      "       uwind lookup --chrome TABLE --text ADDR [--thumb] ADDR...\n"
	      "       uwind dump|lookup MACHO [--arch NAME] [ADDR...]\n"
	      "       uwind lookup --breakpad SYM [--base ADDR] [--index]"
	      " ADDR...\n"
	      "       uwind stack --core CORE --breakpad SYM...\n"
	      "       uwind convert --breakpad ELF|MACHO [--arch NAME]\n"
	      "       uwind convert --chrome SYM -o TABLE [--text ADDR]\n"
	      "       uwind sframe FILE -o OUT [--raw] [-v]\n"
	      "       uwind sframe --check [-v] FILE...\n"
	      "       uwind verify [--arch NAME] FILE...\n"
	      "       uwind verify --sframe RAW --vaddr ADDR\n"
	      "       uwind verify --chrome TABLE [--text ADDR]\n"
	      "       uwind verify --breakpad SYM...\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lookup") && bp_wanted(argc - 1, argv + 1))
		return cmd_bp_lookup(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dump") && macho_wanted(argc - 1, argv + 1))
		return cmd_cu_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lookup") && macho_wanted(argc - 1, argv + 1))
		return cmd_cu_lookup(argc - 1, argv + 1);
	if (chrome_wanted(argc - 1, argv + 1) && !strcmp(argv[1], "dump"))
		return cmd_chrome_dump(argc - 1, argv + 1);
	if (chrome_wanted(argc - 1, argv + 1) && !strcmp(argv[1], "lookup"))
		return cmd_chrome_lookup(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dump"))
		return ehabi_wanted(argc - 1, argv + 1) ?
		       cmd_ehabi_dump(argc - 1, argv + 1) :
		       cmd_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lookup"))
		return ehabi_wanted(argc - 1, argv + 1) ?
		       cmd_ehabi_lookup(argc - 1, argv + 1) :
		       cmd_lookup(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sframe"))
		return cmd_sframe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stack"))
		return cmd_stack(argc - 1, argv + 1);
	if (!strcmp(argv[1], "verify"))
		return cmd_verify(argc - 1, argv + 1);
	fprintf(stderr, "uwind: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
