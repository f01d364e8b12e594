/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Helpers shared by the SFrame test programs. */
#ifndef UWIND_SFT_TESTUTIL_H
#define UWIND_SFT_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uwind/uwind.h>

/* The whole file in a malloc'ed buffer; NULL on any error. */
uint8_t *tu_read_file(const char *path, size_t *len);

/* A number in C syntax (0x.. hex, decimal); -1 if it is not one. */
int tu_parse_addr(const char *s, uint64_t *v);

/* Two rules are equal in the fields their kind gives meaning to. */
bool tu_rule_eq(const struct uw_rule *a, const struct uw_rule *b);

#endif
