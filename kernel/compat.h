/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Every kernel interface change the module bridges, in this one file.
 * Each entry names the change and the release it came in, and tells the
 * kernels apart by a feature test: a header that exists, a configuration
 * option, a macro.  LINUX_VERSION_CODE only where nothing else tells (an
 * accessor that is a static inline function).  Tested on Linux 6.1, 6.12
 * and 7.2 (x86-64 and arm64); built, with no warning, against Debian 11's
 * 5.10 (not run there yet); a kernel in between takes the branch of its
 * features.  Older than 5.10 is refused.  What a newer kernel may have
 * removed is checked at build time where the compiler can see it (the
 * hooked functions' prototypes, below) and at load time where only
 * kallsyms can (hook.c, events.c).
 */
#ifndef UWIND_COMPAT_H
#define UWIND_COMPAT_H

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 0)
#error "uwind: the kernel module supports Linux 5.10 and later (kernel/compat.h); this kernel is older"
#endif

/*
 * What the module cannot do without, on any release: the callchain it
 * replaces, and ftrace to divert it.  Refused here, with the reason.
 */
#ifndef CONFIG_PERF_EVENTS
#error "uwind: this kernel has no CONFIG_PERF_EVENTS: there is no user callchain to walk"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE
#error "uwind: this kernel has no CONFIG_DYNAMIC_FTRACE: the module diverts perf_callchain_user() with an ftrace_ops"
#endif

/* 5.11: in_irq() became in_hardirq() (both macros of <linux/preempt.h>). */
#include <linux/preempt.h>
#ifndef in_hardirq
#define in_hardirq()	in_irq()
#endif

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.7: the inode's timestamps became private, read through
 * inode_get_mtime() (a static inline: nothing but the version tells).
 */
static inline struct timespec64 uwk_inode_mtime(const struct inode *in)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	return inode_get_mtime(in);
#else
	return in->i_mtime;
#endif
}

/*
 * 5.11: ftrace callbacks take a struct ftrace_regs (the pt_regs saved for
 * SAVE_REGS ops inside it, ftrace_get_regs()) instead of the pt_regs, and
 * FTRACE_OPS_FL_RECURSION_SAFE ("the callback guards itself") became
 * FTRACE_OPS_FL_RECURSION ("ftrace guards it"; no flag: it does not).
 * Both are an enum and a static inline: only the version tells.  The
 * callbacks are written for struct uwk_fregs, the type of the release.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define uwk_fregs		pt_regs
#define UWK_FTRACE_FL_GUARD	0	/* ftrace guards unless _SAFE */
static __always_inline struct pt_regs *uwk_get_regs(struct pt_regs *regs)
{
	return regs;
}
#else
#define uwk_fregs		ftrace_regs
#define UWK_FTRACE_FL_GUARD	FTRACE_OPS_FL_RECURSION
#define uwk_get_regs(fregs)	ftrace_get_regs(fregs)
#endif

/*
 * 6.2 (and 6.1's stable releases): ftrace_free_filter() exported, which
 * frees the hashes an ops' filter holds.  Before, resetting the filter to
 * nothing frees them the same way (an empty hash is ftrace's static
 * EMPTY_HASH).  The ops must not be registered.
 */
static inline void uwk_ftrace_free_filter(struct ftrace_ops *ops)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	ftrace_free_filter(ops);
#else
	ftrace_set_filter(ops, NULL, 0, 1);
#endif
}

/*
 * The ftrace callbacks that divert a function (IPMODIFY) and read its
 * arguments.  Where the architecture has DYNAMIC_FTRACE_WITH_REGS (x86-64
 * on every kernel, arm64 up to 6.1) the ops ask for SAVE_REGS and work on
 * the saved pt_regs.  arm64 from 6.2 has DYNAMIC_FTRACE_WITH_ARGS only:
 * ftrace refuses SAVE_REGS there, and its ftrace_regs accessors (which
 * came in the same release, with ftrace_regs_set_instruction_pointer())
 * read the arguments and set the pc that ftrace_caller returns to.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define UWK_FTRACE_FL_REGS	FTRACE_OPS_FL_SAVE_REGS

static __always_inline unsigned long uwk_ftrace_arg(struct uwk_fregs *fregs,
						    unsigned int n)
{
	return regs_get_kernel_argument(uwk_get_regs(fregs), n);
}

static __always_inline void uwk_ftrace_set_pc(struct uwk_fregs *fregs,
					      unsigned long pc)
{
	instruction_pointer_set(uwk_get_regs(fregs), pc);
}
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define UWK_FTRACE_FL_REGS	0

static __always_inline unsigned long uwk_ftrace_arg(struct uwk_fregs *fregs,
						    unsigned int n)
{
	return ftrace_regs_get_argument(fregs, n);
}

static __always_inline void uwk_ftrace_set_pc(struct uwk_fregs *fregs,
					      unsigned long pc)
{
	ftrace_regs_set_instruction_pointer(fregs, pc);
}
#else
#error "uwind: the kernel needs CONFIG_DYNAMIC_FTRACE_WITH_REGS or CONFIG_DYNAMIC_FTRACE_WITH_ARGS (the hook diverts perf_callchain_user() with ftrace)"
#endif

/*
 * 6.1: the maple tree; a process's mappings are walked with a VMA_ITERATOR
 * (for_each_vma()) instead of the mm->mmap list and vm_next.  Under the
 * mmap lock, read.
 */
#ifdef VMA_ITERATOR
#define uwk_for_each_vma(mm, vma)					\
	VMA_ITERATOR(uwk_vmi_, mm, 0);					\
	for_each_vma(uwk_vmi_, vma)
#else
#define uwk_for_each_vma(mm, vma)					\
	for (vma = (mm)->mmap; vma; vma = vma->vm_next)
#endif

/*
 * 7.x (CONFIG_UNWIND_USER): deferred user unwinding.  perf --call-graph
 * fp,defer (and any other user of unwind_deferred_request()) no longer
 * calls perf_callchain_user(); the task walks its own user stack on the
 * way back to user space, through unwind_user() (hook.c, "the deferred
 * walk").
 */
#if IS_ENABLED(CONFIG_UNWIND_USER) && __has_include(<linux/unwind_user.h>)
#include <linux/unwind_user.h>
#define UWK_HAVE_UNWIND_USER	1
#else
#define UWK_HAVE_UNWIND_USER	0
#endif

#endif /* UWIND_COMPAT_H */
