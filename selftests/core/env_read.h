/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * An environment header (UW_ENV_HEADER) that gives the core its memory
 * accessor inline, as the kernel module's does (kernel/uwk_env.h): the
 * types from the freestanding headers, and UW_ENV_READ naming the
 * accessor test_kwalk.c walks with.  The inline body counts its calls,
 * then reads as the accessor does (by calling it): the test checks that
 * a walk whose accessor is uwt_env_read() reads only through here, that
 * a walk with another accessor never does, and that the frames are the
 * same.  selftests/core/build.mk builds the core and test_kwalk with it.
 */
#ifndef TEST_ENV_READ_H
#define TEST_ENV_READ_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

int uwt_env_read(void *ctx, uint64_t addr, void *dst, size_t len);
extern unsigned long uwt_env_inline_reads;

static inline int uwt_env_read_inline(void *ctx, uint64_t addr, void *dst,
				      size_t len)
{
	uwt_env_inline_reads++;
	return uwt_env_read(ctx, addr, dst, len);
}

#define UW_ENV_READ		uwt_env_read
#define UW_ENV_READ_INLINE	uwt_env_read_inline

#endif
