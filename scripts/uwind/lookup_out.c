// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind lookup`'s lines (see lookup_out.h): on stdout as they are, or
 * with --json collected one at a time in memory and written as a result
 * object: {"address", "status", "rules": {KEY: RULE...}, "raw"} or
 * {"address", "status", "detail"}.
 */
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "lookup_out.h"

static FILE *mem;
static char *buf;
static size_t len;

void lk_begin(const char *file, const char *format)
{
	if (!json_wanted)
		return;
	json_begin(NULL);
	json_str("file", file);
	json_str("format", format);
	json_begin_array("results");
}

FILE *lk_line(void)
{
	if (!json_wanted)
		return stdout;
	mem = open_memstream(&buf, &len);
	if (!mem) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	return mem;
}

/* The rules of a line: KEY=RULE words up to a "#" and the raw text. */
static void put_rules(char *p)
{
	char *word, *eq, *raw = strstr(p, " # ");

	if (raw) {
		*raw = '\0';
		raw += 3;
	}
	json_str("status", "ok");
	json_begin("rules");
	for (word = strtok(p, " "); word; word = strtok(NULL, " ")) {
		eq = strchr(word, '=');
		if (!eq)
			continue;
		*eq = '\0';
		json_str(word, eq + 1);
	}
	json_end();
	if (raw)
		json_str("raw", raw);
}

static void put_line(char *line)
{
	char *p, *sp, *eq;

	line[strcspn(line, "\n")] = '\0';
	p = strchr(line, ' ');
	if (p)
		*p++ = '\0';
	json_begin(NULL);
	json_str("address", line);
	while (p && *p == ' ')
		p++;
	if (p && *p) {
		/* Rules when the first word is one. */
		sp = strchr(p, ' ');
		eq = strchr(p, '=');
		if (eq && (!sp || eq < sp)) {
			put_rules(p);
		} else {
			if (sp)
				*sp++ = '\0';
			json_str("status", p);
			if (sp && *sp)
				json_str("detail", sp);
		}
	}
	json_end();
}

void lk_line_end(void)
{
	if (!json_wanted)
		return;
	fclose(mem);
	mem = NULL;
	put_line(buf);
	free(buf);
	buf = NULL;
}

int lk_end(int ret)
{
	if (json_wanted) {
		json_end_array();
		json_end();
	}
	fflush(stdout);
	return ret;
}
