// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The deferred walk: Linux 7.x's unwind_user(), diverted to uwind.
 *
 * With CONFIG_UNWIND_USER, perf --call-graph fp,defer (attr
 * defer_callchain) no longer walks the user stack in the sample's NMI:
 * get_perf_callchain() stores a cookie, and the task walks its own stack
 * on its way back to user space, in task_work, through
 * unwind_user_faultable() -> unwind_user(trace, max_entries).  That
 * kernel walker follows frame pointers only.  An ftrace_ops on
 * unwind_user() (IPMODIFY, as the perf hook's on perf_callchain_user())
 * sends the call to uwk_unwind_user(), which fills the trace with
 * uwind's walk.
 *
 * The walk runs where page faults and sleeping are allowed, and uses
 * that:
 *   - a stack page that is not present (swapped out, or a file page
 *     whose mapping was dropped) ends the NMI walk, which must not fault;
 *     here the page is faulted in and the walk made again, a few times
 *     at most (UWK_DEFER_FAULTS);
 *   - a process the module has not scanned yet (its first samples), or
 *     whose mappings changed since the scan (a library dlopen'ed) when
 *     the walk met a frame no mapping covers, is scanned right here and
 *     walked again, instead of being walked with frame pointers until the
 *     workqueue gets to it; at most once a walk, and without such a frame
 *     once per rescan_ms.
 * The walk itself is the hook's (uwk_walk_current(): the per-CPU cache,
 * the stats), with preemption off around it, and its own time limit
 * (max_defer_walk_us: interrupts taken during the walk count in it).
 *
 * Unloading: a task may sleep in here (a fault, a scan).  Each call holds
 * a reference to the module (try_module_get(): rmmod waits for no one
 * and fails while it is held), and after the ops are unregistered
 * synchronize_rcu_tasks() waits for every task that ftrace sent here but
 * that had not taken the reference yet to leave.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include "uwind_kmod.h"

#if UWK_HAVE_UNWIND_USER

#define UWK_DEFER_SYM		"unwind_user"
#define UWK_DEFER_FAULTS	8	/* stack pages faulted in per walk */

/*
 * Scan the current task's process now if the module has not seen it, or
 * its table is untrusted (a mapping unmapped), or its mappings or the
 * installed tables changed since the scan (uwk_kmm_changed()) and either the last walk met a
 * frame no mapping covers or rescan_ms have passed.  True if it scanned.
 */
static bool uwk_defer_scan(bool uncovered)
{
	struct mm_struct *mm = current->mm;
	struct uwk_kmm *kmm;
	bool need;

	rcu_read_lock();
	kmm = uwk_kmm_find(mm);
	need = !kmm;
	if (kmm && READ_ONCE(kmm->stale_seq))
		need = true;
	else if (kmm && uwk_kmm_changed(kmm, mm))
		need = uncovered || time_after_eq(jiffies, kmm->scanned +
				msecs_to_jiffies(uwk_rescan_ms));
	rcu_read_unlock();
	if (!need)
		return false;
	uwk_stat_inc(UWK_ST_SYNC_SCANS);
	uwk_scan_mm(current, mm, uwk_next_seq());
	return true;
}

/* Fault in the user page at addr; false if it cannot be read at all. */
static bool uwk_fault_in(u64 addr)
{
	u8 b;

	return !get_user(b, (const u8 __user *)addr);
}

/* Same signature as unwind_user(), which it stands in for. */
static int notrace uwk_unwind_user(struct unwind_stacktrace *trace,
				   unsigned int max_entries)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct uwk_sink sink = {
		.ips = trace->entries, .max = max_entries, .self_scan = true,
		.limit_us = READ_ONCE(uwk_max_defer_walk_us),
	};
	unsigned int tries = 0;
	bool rescanned;

	trace->nr = 0;
	if (!max_entries)
		return -EINVAL;
	if (!try_module_get(THIS_MODULE))
		return 0;	/* unloading: an empty trace, as for a kthread */
	uwk_stat_inc(UWK_ST_DEFERRED);
	rescanned = uwk_defer_scan(false);
	for (;;) {
		sink.nr = 0;
		uwk_walk_current(&sink, regs);
		/* A library mapped since the scan: once, scan and walk again. */
		if (sink.uncovered && !rescanned) {
			rescanned = true;
			if (uwk_defer_scan(true))
				continue;
		}
		if (!sink.fault || tries++ == UWK_DEFER_FAULTS ||
		    !uwk_fault_in(sink.fault))
			break;
		uwk_stat_inc(UWK_ST_DEFERRED_FAULTS);
	}
	trace->nr = sink.nr;
	module_put(THIS_MODULE);
	return 0;
}

static void notrace uwk_defer_hook(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct uwk_fregs *fregs)
{
	struct pt_regs *regs;

	if ((current->flags & PF_KTHREAD) || !current->mm)
		return;
	regs = task_pt_regs(current);
	if (!READ_ONCE(uwk_enable) || !user_mode(regs) ||
	    !uwk_arch_takes(regs)) {
		uwk_stat_inc(UWK_ST_PASSED);
		return;
	}
	uwk_ftrace_set_pc(fregs, (unsigned long)uwk_unwind_user);
}

static struct ftrace_ops uwk_defer_ops = {
	.func = uwk_defer_hook,
	.flags = UWK_FTRACE_FL_REGS | FTRACE_OPS_FL_IPMODIFY |
		 UWK_FTRACE_FL_GUARD,
};

static const char *uwk_defer_state = "off";

/*
 * Not fatal: perf -g and BPF go through the perf hook.  A kernel whose
 * unwind_user() takes other arguments, or has none that ftrace can hook,
 * loads without this part and says so once.
 */
void uwk_defer_init(void)
{
	int ret;

	if (!__same_type(&unwind_user, &uwk_unwind_user)) {
		uwk_defer_state = "off (unwind_user() has another prototype)";
		pr_warn("deferred callchains (perf --call-graph fp,defer): not walked by uwind: unwind_user() has another prototype in this kernel\n");
		return;
	}
	ret = ftrace_set_filter(&uwk_defer_ops, UWK_DEFER_SYM,
				strlen(UWK_DEFER_SYM), 1);
	if (!ret)
		ret = register_ftrace_function(&uwk_defer_ops);
	if (ret) {
		uwk_ftrace_free_filter(&uwk_defer_ops);
		uwk_defer_state = "off (cannot hook unwind_user())";
		pr_warn("deferred callchains (perf --call-graph fp,defer): not walked by uwind: cannot hook %s (%d)\n",
			UWK_DEFER_SYM, ret);
		return;
	}
	uwk_defer_state = "on";
}

void uwk_defer_exit(void)
{
	if (strcmp(uwk_defer_state, "on"))
		return;
	unregister_ftrace_function(&uwk_defer_ops);
	uwk_ftrace_free_filter(&uwk_defer_ops);
	synchronize_rcu_tasks();
	uwk_defer_state = "off";
}

const char *uwk_defer_show(void)
{
	return uwk_defer_state;
}

#else /* !UWK_HAVE_UNWIND_USER */

void uwk_defer_init(void)
{
}

void uwk_defer_exit(void)
{
}

const char *uwk_defer_show(void)
{
	return "off (no CONFIG_UNWIND_USER in this kernel)";
}

#endif
