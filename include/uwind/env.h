/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind environment: the one header that knows where the basic types
 * come from, and nothing else.
 *
 * The core needs uint8_t..uint64_t, int8_t..int64_t, uintptr_t, size_t,
 * bool and NULL.  In a Linux kernel build they come from
 * <linux/types.h>; everywhere else from the three freestanding C
 * headers.  A host with types of its own replaces this header whole:
 * either edit the copy it vendors, or compile with
 * -DUW_ENV_HEADER='"my_env.h"' and that header is included instead of
 * anything below.  Compiler hints are not here:
 * they are private to lib/ (lib/compiler.h).
 */
#ifndef UWIND_ENV_H
#define UWIND_ENV_H

#if defined(UW_ENV_HEADER)
#include UW_ENV_HEADER
#elif defined(__KERNEL__)
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#endif

#endif /* UWIND_ENV_H */
