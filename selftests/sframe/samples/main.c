// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Sample program for the SFrame re-encoding test (never run). */
#include <stdlib.h>

#include "samples.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	return (call_all(n) + call_many(n) + recurse(n)) & 0x7f;
}
