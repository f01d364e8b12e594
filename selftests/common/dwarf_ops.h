/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The DWARF expression operators the test oracles evaluate on two
 * concrete stack values (dwarf_rules, sfverify).  Header-only.
 */
#ifndef UWIND_SELFTESTS_DWARF_OPS_H
#define UWIND_SELFTESTS_DWARF_OPS_H

#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>

/* *a = *a OP b; false for an operator that is not a binary one here. */
static inline bool dw_binop(unsigned int op, uint64_t *a, uint64_t b)
{
	uint64_t x = *a;

	switch (op) {
	case DW_OP_plus: x += b; break;
	case DW_OP_minus: x -= b; break;
	case DW_OP_mul: x *= b; break;
	case DW_OP_and: x &= b; break;
	case DW_OP_or: x |= b; break;
	case DW_OP_xor: x ^= b; break;
	case DW_OP_shl: x = b < 64 ? x << b : 0; break;
	case DW_OP_shr: x = b < 64 ? x >> b : 0; break;
	case DW_OP_ge: x = (int64_t)x >= (int64_t)b; break;
	case DW_OP_gt: x = (int64_t)x > (int64_t)b; break;
	case DW_OP_le: x = (int64_t)x <= (int64_t)b; break;
	case DW_OP_lt: x = (int64_t)x < (int64_t)b; break;
	case DW_OP_eq: x = x == b; break;
	case DW_OP_ne: x = x != b; break;
	default: return false;
	}
	*a = x;
	return true;
}

#endif
