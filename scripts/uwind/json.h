/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * JSON output (json.c): one document on stdout, written as it goes.
 * Objects and arrays nest; inside an object every value has a key,
 * inside an array none (key NULL).  Strings are escaped, and bytes that
 * are not UTF-8 (a path may hold any) become U+FFFD, so the document is
 * always valid JSON.  Addresses are strings "0x..." (json_hex): a JSON
 * number loses precision above 2^53.
 */
#ifndef UWIND_TOOL_JSON_H
#define UWIND_TOOL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --json was given (main.c). */
extern bool json_wanted;

void json_begin(const char *key);	/* an object */
void json_end(void);
void json_begin_array(const char *key);
void json_end_array(void);
void json_str(const char *key, const char *s);	/* s NULL: null */
void json_strn(const char *key, const char *s, size_t n);
void json_int(const char *key, long long v);
void json_hex(const char *key, uint64_t v);
void json_bool(const char *key, bool v);
void json_double(const char *key, double v);

#endif
