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
 *
 * A host's own header may also give the core its memory accessor's body
 * at compile time, the way libfdt_env.h gives libfdt its byte swaps: it
 * declares the accessor it passes in &struct uw_mem.read (a uw_read_fn
 * with external linkage) and the same read as an inline function, and
 * defines
 *
 *   #define UW_ENV_READ         the accessor's name
 *   #define UW_ENV_READ_INLINE  the inline function's name
 *
 * A walk whose accessor is UW_ENV_READ then reads through
 * UW_ENV_READ_INLINE, inlined where the walker reads (no indirect call:
 * a retpoline in a kernel); any other accessor is called as always, so
 * the run-time accessor stays the contract, and the inline read must do
 * exactly what the accessor does.  The kernel module does this
 * (kernel/uwk_env.h); no other host need.
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
