/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * A host's own environment header, as UW_ENV_HEADER names it: the types
 * uwind needs, from the compiler alone (no libc header at all).  Used by
 * selftests/core/api.sh to show env.h is replaced whole.
 */
#ifndef TEST_ENV_MIN_H
#define TEST_ENV_MIN_H

typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
typedef _Bool bool;
#define true	1
#define false	0
#define NULL	((void *)0)

#endif
