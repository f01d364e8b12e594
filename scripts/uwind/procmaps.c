// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * /proc/PID/maps, line by line: what `uwind stack -p` maps, what
 * `uwind sframe --install --pid` installs, what `--gc` keeps and what
 * `uwind status` reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "uwind.h"

/*
 * Call fn for each mapping of process pid ("start-end perms offset dev
 * inode path"; path "" for an anonymous one), until it returns non-zero.
 * 0, or -1 when the file cannot be read (said on stderr).
 */
static int each_map(int pid, int (*fn)(const struct tool_map *m, void *ctx),
		    void *ctx, bool quiet)
{
	char path[64], line[4096 + 128];
	struct tool_map m;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f) {
		if (!quiet)
			fprintf(stderr, "uwind: %s: %s\n", path,
				strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		int name = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %*u %n", &m.start, &m.end, m.perms, &m.off,
			   &name) < 4 || !name)
			continue;
		m.path = line + name;
		if (fn(&m, ctx))
			break;
	}
	fclose(f);
	return 0;
}

int tool_each_map(int pid, int (*fn)(const struct tool_map *m, void *ctx),
		  void *ctx)
{
	return each_map(pid, fn, ctx, false);
}

int tool_each_map_quiet(int pid,
			int (*fn)(const struct tool_map *m, void *ctx),
			void *ctx)
{
	return each_map(pid, fn, ctx, true);
}
