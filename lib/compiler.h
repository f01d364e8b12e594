/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Compiler hints for lib/ alone: nothing here reaches a program that
 * includes the public headers.
 *
 * In a kernel build the kernel's own likely(), unlikely(),
 * __always_inline and noinline are used.  Elsewhere each hint is used
 * where the compiler says it has it (__has_builtin, __has_attribute),
 * and is a no-op otherwise, so older or other compilers still build the
 * core: the hints change speed and stack depth, never behaviour.
 */
#ifndef UWIND_LIB_COMPILER_H
#define UWIND_LIB_COMPILER_H

#ifdef __has_builtin
#define UWI_HAS_BUILTIN(x)	__has_builtin(x)
#else
#define UWI_HAS_BUILTIN(x)	0
#endif
#ifdef __has_attribute
#define UWI_HAS_ATTRIBUTE(x)	__has_attribute(x)
#else
#define UWI_HAS_ATTRIBUTE(x)	0
#endif

#if defined(__KERNEL__)
#include <linux/compiler.h>
#define uwi_likely(x)		likely(x)
#define uwi_unlikely(x)		unlikely(x)
#define uwi_always_inline	__always_inline
#define uwi_noinline		noinline
#else
#if UWI_HAS_BUILTIN(__builtin_expect) || defined(__GNUC__)
#define uwi_likely(x)		__builtin_expect(!!(x), 1)
#define uwi_unlikely(x)		__builtin_expect(!!(x), 0)
#else
#define uwi_likely(x)		(x)
#define uwi_unlikely(x)		(x)
#endif
/* For helpers whose constant arguments select the code: always inlined. */
#if UWI_HAS_ATTRIBUTE(__always_inline__)
#define uwi_always_inline	inline __attribute__((__always_inline__))
#else
#define uwi_always_inline	inline
#endif
/* Cold paths kept out of a hot caller's frame. */
#if UWI_HAS_ATTRIBUTE(__noinline__)
#define uwi_noinline		__attribute__((__noinline__))
#else
#define uwi_noinline
#endif
#endif /* __KERNEL__ */

/* A coin toss: the compiler should select (cmov, csel), not branch. */
#if UWI_HAS_BUILTIN(__builtin_expect_with_probability) || \
	(defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9)
#define uwi_unpredictable(x)	__builtin_expect_with_probability(!!(x), 1, 0.5)
#else
#define uwi_unpredictable(x)	(x)
#endif

/*
 * Keep x in a register as computed here: the compiler cannot see through
 * it, so a rare branch that changes x stays a branch (rather than a
 * conditional move on the common path).
 */
#if defined(__GNUC__) || defined(__clang__)
#define uwi_opaque(x)		__asm__("" : "+r"(x))
#else
#define uwi_opaque(x)		((void)0)
#endif

/*
 * A type through which any memory may be read and written (the cursor's
 * private area, declared as bytes in the public header).
 */
#if UWI_HAS_ATTRIBUTE(__may_alias__)
#define uwi_may_alias		__attribute__((__may_alias__))
#else
#define uwi_may_alias
#endif

/*
 * A precondition the compiler may rely on (it drops the checks it makes
 * redundant): only for what the code just checked, or what its caller
 * guaranteed and says so in a comment.
 */
#if UWI_HAS_BUILTIN(__builtin_unreachable) || defined(__GNUC__)
#define uwi_assume(x)		do { if (!(x)) __builtin_unreachable(); } while (0)
#else
#define uwi_assume(x)		((void)0)
#endif

/* A result the caller must look at (a fallible read). */
#if UWI_HAS_ATTRIBUTE(__warn_unused_result__)
#define uwi_must_check		__attribute__((__warn_unused_result__))
#else
#define uwi_must_check
#endif

#endif /* UWIND_LIB_COMPILER_H */
