// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* `uwind stack`: backtraces of core files and live processes. */
#include "uwind.h"

int cmd_stack(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "uwind: stack: not implemented yet\n");
	return 2;
}
