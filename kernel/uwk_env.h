/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The module's environment header for the core (UW_ENV_HEADER, named by
 * Kbuild; include/uwind/env.h says what one holds): the kernel's types,
 * and the module's user-memory read given to the core inline.
 *
 * The module walks user stacks through uwk_user_read() (hook.c).  Through
 * the accessor pointer each stack word costs an indirect call, a
 * retpoline in most distribution kernels, around a user-access section
 * of one 8- or 16-byte read; the kernel's own walker makes two
 * __get_user() a frame.  With UW_ENV_READ naming uwk_user_read() and
 * UW_ENV_READ_INLINE its body below, the core's reads of a walk whose
 * accessor is uwk_user_read() are that body, inlined where the walker
 * reads (its fast loops, its general step): the same read, no call.
 */
#ifndef UWK_ENV_H
#define UWK_ENV_H

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * User memory, never faulting.  copy_from_user_nofault() also checks that
 * the user address space is the one loaded (nmi_uaccess_okay(), which is
 * not exported); once one read has passed that check the walk's aligned
 * stack reads of one or two 8-byte words (a frame record, an SFrame
 * row's return address and frame pointer) take the cheaper path the
 * kernel's own walker uses: user accesses with page faults disabled.
 */
struct uwk_read_ctx {
	bool checked;
	u64 fault;	/* the last address a read could not take */
};

/* The accessor (hook.c): uwk_user_read_inline() out of line. */
int uwk_user_read(void *ctx, u64 addr, void *dst, size_t len);

static __always_inline int uwk_user_read_inline(void *ctx, u64 addr,
						void *dst, size_t len)
{
	struct uwk_read_ctx *c = ctx;
	const u64 __user *p = (const u64 __user *)(unsigned long)addr;
	u64 w0, w1 = 0;	/* scalars: no array for the kernel to zero */

	if (!c->checked || (len != 8 && len != 16) || !IS_ALIGNED(addr, 8)) {
		if (copy_from_user_nofault(dst, p, len)) {
			c->fault = addr;
			return -EFAULT;
		}
		c->checked = true;
		return 0;
	}
	pagefault_disable();
	if (!user_access_begin(p, len))
		goto fault;
	unsafe_get_user(w0, p, fault_end);
	if (len == 16)
		unsafe_get_user(w1, p + 1, fault_end);
	user_access_end();
	pagefault_enable();
	/* Of a constant size: no call to memcpy(). */
	memcpy(dst, &w0, 8);
	if (len == 16)
		memcpy((u8 *)dst + 8, &w1, 8);
	return 0;

fault_end:
	user_access_end();
fault:
	pagefault_enable();
	c->fault = addr;
	return -EFAULT;
}

#define UW_ENV_READ		uwk_user_read
#define UW_ENV_READ_INLINE	uwk_user_read_inline

#endif /* UWK_ENV_H */
