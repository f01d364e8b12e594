/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind environment shim: the one header a host adapts.
 *
 * The core needs fixed-width integers, size_t, bool and NULL.  In the
 * Linux kernel they come from <linux/types.h>; everywhere else from the
 * three freestanding C headers.  A firmware with its own types can
 * define UW_ENV_CUSTOM and provide them before including uwind headers.
 */
#ifndef UWIND_ENV_H
#define UWIND_ENV_H

#if defined(UW_ENV_CUSTOM)
/* The firmware provides uint8_t..uint64_t, int8_t..int64_t, size_t, bool. */
#elif defined(__KERNEL__)
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define uw_likely(x)	__builtin_expect(!!(x), 1)
#define uw_unlikely(x)	__builtin_expect(!!(x), 0)
/* For helpers whose constant arguments select the code: always inlined. */
#define uw_always_inline inline __attribute__((__always_inline__))
/* Cold paths kept out of a hot caller's frame. */
#define uw_noinline __attribute__((__noinline__))
/* A coin toss: the compiler should select (cmov, csel), not branch. */
#define uw_unpredictable(x) __builtin_expect_with_probability(!!(x), 1, 0.5)
#else
#define uw_likely(x)	(x)
#define uw_unlikely(x)	(x)
#define uw_unpredictable(x) (x)
#define uw_always_inline inline
#define uw_noinline
#endif

#endif /* UWIND_ENV_H */
