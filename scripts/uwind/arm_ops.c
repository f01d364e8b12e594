// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The ARM unwind opcodes as text, for `uwind dump` of EHABI entries
 * (ehabi_print.c, the whole opcode set) and of Chrome's tables
 * (chrome_print.c, Chrome's subset of it): one printer, in the words
 * `readelf -u` uses.
 */
#include <string.h>
#include "ehabi_rules.h"

static void reg_list(char *buf, size_t len, uint32_t mask, const char *pfx)
{
	size_t used;
	unsigned int r;

	snprintf(buf, len, "pop {");
	for (r = 0; r < 32; r++) {
		if (!(mask & (1u << r)))
			continue;
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s%u",
			 buf[used - 1] == '{' ? "" : ", ", pfx, r);
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, "}");
}

static void reg_range(char *buf, size_t len, const char *pfx,
		      unsigned int first, unsigned int count, unsigned int max)
{
	if (first + count > max)
		snprintf(buf, len, "[bad range %s%u-%s%u]", pfx, first, pfx,
			 first + count);
	else if (count)
		snprintf(buf, len, "pop {%s%u-%s%u}", pfx, first, pfx,
			 first + count);
	else
		snprintf(buf, len, "pop {%s%u}", pfx, first);
}

/* b2: vsp = vsp + 0x204 + (uleb128 << 2). */
static int vsp_uleb(const struct arm_op_src *src, char *buf, size_t len)
{
	uint64_t val = 0;
	unsigned int i;
	uint8_t b;

	for (i = 0;; i++) {
		if (src->next(src->ctx, &b))
			return -1;
		if (i < 5)
			val |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	if (i >= 5)
		snprintf(buf, len, "[uleb128 too long]");
	else
		snprintf(buf, len, "vsp = vsp + %llu",
			 (unsigned long long)(0x204 + (val << 2)));
	return 0;
}

/* The opcodes past Chrome's subset (b1, b3 and up), with operand b. */
static void describe_more(uint8_t op, uint8_t b, char *buf, size_t len)
{
	if (op == 0xb1) {
		if (b == 0 || (b & 0xf0))
			snprintf(buf, len, "[spare]");
		else
			reg_list(buf, len, b, "r");
	} else if (op == 0xb3) {
		reg_range(buf, len, "D", b >> 4, b & 0xf, 16);
	} else if (op == 0xb4) {
		snprintf(buf, len, "pop {ra_auth_code}");
	} else if (op == 0xb5) {
		snprintf(buf, len, "vsp as modifier for PAC validation");
	} else if (op == 0xb6 || op == 0xb7) {
		snprintf(buf, len, "[spare]");
	} else if (op < 0xc0 || (op >= 0xd0 && op <= 0xd7)) {
		reg_range(buf, len, "D", 8, op & 7, 32);
	} else if (op <= 0xc5) {
		reg_range(buf, len, "wR", 10, op & 7, 16);
	} else if (op == 0xc6) {
		reg_range(buf, len, "wR", b >> 4, b & 0xf, 16);
	} else if (op == 0xc7) {
		if (b == 0 || (b & 0xf0))
			snprintf(buf, len, "[spare]");
		else
			reg_list(buf, len, b, "wCGR");
	} else if (op == 0xc8) {
		reg_range(buf, len, "D", 16 + (b >> 4), b & 0xf, 32);
	} else if (op == 0xc9) {
		reg_range(buf, len, "D", b >> 4, b & 0xf, 32);
	} else {
		snprintf(buf, len, "[spare]");
	}
}

int arm_op_describe(uint8_t op, const struct arm_op_src *src, bool chrome,
		    char *buf, size_t len)
{
	uint8_t b = 0;

	if (op < 0x80) {
		snprintf(buf, len, "vsp = vsp %c %u", op < 0x40 ? '+' : '-',
			 ((op & 0x3f) << 2) + 4);
		return 0;
	}
	/* The opcodes with one operand byte. */
	if ((op < 0x90 || (!chrome && (op == 0xb1 || op == 0xb3 ||
				       (op >= 0xc6 && op <= 0xc9)))) &&
	    src->next(src->ctx, &b)) {
		snprintf(buf, len, "[truncated]");
		return -1;
	}
	if (op < 0x90) {
		if (op == 0x80 && b == 0) {
			snprintf(buf, len, "refuse to unwind");
			return 1;
		}
		reg_list(buf, len, ((op & 0xfu) << 8 | b) << 4, "r");
	} else if (op < 0xa0) {
		if (op == 0x9d || op == 0x9f)
			snprintf(buf, len, "[reserved]");
		else
			snprintf(buf, len, "vsp = r%u", op & 0xf);
	} else if (op < 0xb0) {
		reg_list(buf, len, ((1u << ((op & 7) + 1)) - 1) << 4 |
			 (op & 8 ? 1u << 14 : 0), "r");
	} else if (op == 0xb0) {
		snprintf(buf, len, "finish");
		return 1;
	} else if (op == 0xb2) {
		if (vsp_uleb(src, buf, len)) {
			snprintf(buf, len, "[truncated]");
			return -1;
		}
	} else if (chrome) {
		snprintf(buf, len, "[not in Chrome's subset]");
	} else {
		describe_more(op, b, buf, len);
	}
	return 0;
}
