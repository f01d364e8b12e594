// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* JSON output on stdout (see json.h), indented two spaces a level. */
#include <stdio.h>
#include <string.h>
#include "json.h"

bool json_wanted;

#define MAX_DEPTH	16

static int depth;
static bool has_item[MAX_DEPTH];	/* the open container has an item */

static void indent(void)
{
	int i;

	for (i = 0; i < depth; i++)
		fputs("  ", stdout);
}

/* The length of the UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int c = s[0];

	if (c < 0x80)
		return 1;
	len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	if (c >= 0xf5 || !len || len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong three- and four-byte forms, and surrogates. */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xed && s[1] >= 0xa0) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

static void put_string(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	putchar('"');
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			printf("\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", stdout);
		} else if (c == '\t') {
			fputs("\\t", stdout);
		} else if (c < 0x20 || c == 0x7f) {
			printf("\\u%04x", c);
		} else if (c >= 0x80) {
			len = utf8_len(s + i, n - i);
			if (!len) {
				fputs("\\ufffd", stdout);
				i++;
				continue;
			}
			fwrite(s + i, 1, len, stdout);
			i += len;
			continue;
		} else {
			putchar(c);
		}
		i++;
	}
	putchar('"');
}

/* Start an item: the comma after the one before, the key. */
static void item(const char *key)
{
	if (depth && has_item[depth - 1])
		putchar(',');
	if (depth) {
		putchar('\n');
		has_item[depth - 1] = true;
	}
	indent();
	if (key) {
		put_string(key, strlen(key));
		fputs(": ", stdout);
	}
}

static void open_container(const char *key, char c)
{
	item(key);
	putchar(c);
	if (depth < MAX_DEPTH)
		has_item[depth] = false;
	depth++;
}

static void close_container(char c)
{
	depth--;
	if (depth < MAX_DEPTH && has_item[depth]) {
		putchar('\n');
		indent();
	}
	putchar(c);
	if (!depth)
		putchar('\n');
}

void json_begin(const char *key)
{
	open_container(key, '{');
}

void json_end(void)
{
	close_container('}');
}

void json_begin_array(const char *key)
{
	open_container(key, '[');
}

void json_end_array(void)
{
	close_container(']');
}

void json_strn(const char *key, const char *s, size_t n)
{
	item(key);
	put_string(s, n);
}

void json_str(const char *key, const char *s)
{
	if (!s) {
		item(key);
		fputs("null", stdout);
		return;
	}
	json_strn(key, s, strlen(s));
}

void json_int(const char *key, long long v)
{
	item(key);
	printf("%lld", v);
}

void json_hex(const char *key, uint64_t v)
{
	item(key);
	printf("\"0x%llx\"", (unsigned long long)v);
}

void json_bool(const char *key, bool v)
{
	item(key);
	fputs(v ? "true" : "false", stdout);
}

void json_double(const char *key, double v)
{
	item(key);
	printf("%.2f", v);
}
