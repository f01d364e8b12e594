// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The user callchain walker that replaces perf_callchain_user().
 *
 * An ftrace_ops with SAVE_REGS | IPMODIFY, filtered on the function,
 * points the saved instruction pointer at uwk_callchain_user(), which has
 * the same signature.  Every caller of perf_callchain_user() then gets
 * uwind's walk: perf samples of every event type (hardware, software,
 * tracepoints), perf trace --call-graph, and BPF's bpf_get_stack() and
 * bpf_get_stackid(), all through get_perf_callchain().  ftrace's
 * userstacktrace option is not among them: it walks user stacks itself
 * (stack_trace_save_user()).
 *
 * A sample uwind does not handle (32-bit tasks, vm86, a KVM guest
 * running, uwind switched off) is not diverted: the hook looks at the
 * pt_regs argument itself and lets the kernel's own walker run.  (Calling
 * that walker back from the module would need an indirect call to the
 * address ftrace reports, which with IBT lies past the function's ENDBR
 * and would fault.)
 *
 * It runs in NMI or hard-irq context: no sleeping, no locks, no faults.
 * Stack words are read with copy_from_user_nofault(); the tables are
 * kernel copies found under rcu_read_lock().  A sample from a process, or
 * at a pc, that the tables do not know yet asks for a scan (events.c) and
 * is walked with frame pointers meanwhile, as the kernel would have.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/uaccess.h>
#include "uwind_kmod.h"

#define UWK_HOOK_SYM	"perf_callchain_user"

/*
 * The walker's state is too large for an NMI stack, so it lives per CPU,
 * one slot per context that can interrupt another: task, softirq, hard
 * irq, NMI.
 */
struct uwk_walk_slot {
	struct uw_cursor cur;
	struct uw_regs start;
};

static DEFINE_PER_CPU(struct uwk_walk_slot[4], uwk_slots);

static unsigned int uwk_context_level(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	if (in_serving_softirq())
		return 1;
	return 0;
}

/*
 * User memory, never faulting.  copy_from_user_nofault() also checks that
 * the user address space is the one loaded (nmi_uaccess_okay(), which is
 * not exported); once one read has passed that check the walk's aligned
 * 8-byte stack reads take the cheaper path the kernel's own walker uses:
 * __get_user() with page faults disabled.
 */
struct uwk_read_ctx {
	bool checked;
};

static int uwk_user_read(void *ctx, u64 addr, void *dst, size_t len)
{
	struct uwk_read_ctx *c = ctx;
	const void __user *p = (const void __user *)addr;
	u64 v;
	int ret;

	if (!c->checked || len != 8 || !IS_ALIGNED(addr, 8)) {
		if (copy_from_user_nofault(dst, p, len))
			return -EFAULT;
		c->checked = true;
		return 0;
	}
	if (!access_ok(p, 8))
		return -EFAULT;
	pagefault_disable();
	ret = __get_user(v, (const u64 __user *)p);
	pagefault_enable();
	if (ret)
		return -EFAULT;
	memcpy(dst, &v, 8);
	return 0;
}

static void uwk_count_frame(u8 source)
{
	switch (source) {
	case UW_SRC_SFRAME:
		uwk_stat_inc(UWK_ST_FRAMES_SFRAME);
		break;
	case UW_SRC_FP:
		uwk_stat_inc(UWK_ST_FRAMES_FP);
		break;
	case UW_SRC_SIGFRAME:
		uwk_stat_inc(UWK_ST_FRAMES_SIGFRAME);
		break;
	}
}

/*
 * The top of the main thread's stack holds, above main()'s frame, only the
 * C library's start-up frames and _start's: 256 bytes with Debian 12's
 * glibc (__libc_start_call_main, __libc_start_main_impl, _start's
 * alignment), less with musl.  A walk that stops there, after at least
 * one step, has come past main(): it ended, it did not break.
 */
#define UWK_ENTRY_WINDOW	512

/* Where a walk stopped: the frame that could not be unwound. */
struct uwk_walk_end {
	u16 module;	/* its mapping, or UW_NO_MODULE */
	bool no_row;	/* no table row for its pc: frame pointers tried */
	u32 depth;	/* steps taken before it */
	u64 sp;
};

/*
 * Count where a walk ended: past the program's entry, at a pc in a mapped
 * file that has no table row for it (per file: debugfs "breaks"),
 * elsewhere, or at the depth limit.
 * Past the entry means the table's outermost frame, or, after at least
 * one step, a zero frame pointer or return address (the ABI's end of the
 * chain: _start and the C library's thread start clear %rbp; at the first
 * frame a zero %rbp is only an unused register) or a frame without a
 * table row at the top of the main thread's stack (UWK_ENTRY_WINDOW: libc's
 * start-up code; a frame with a row there is main's callee, which a small
 * main() leaves in the window too).  kmm: the process's table, NULL when
 * none can be trusted.
 */
static void uwk_count_end(const struct uwk_kmm *kmm, unsigned int stop,
			  const struct uwk_walk_end *end)
{
	unsigned long top = current->mm->start_stack;

	if (stop == UW_STOP_DEPTH) {
		uwk_stat_inc(UWK_ST_END_DEPTH);
		return;
	}
	if (stop == UW_STOP_OUTERMOST ||
	    (end->depth && (stop == UW_STOP_END ||
			    (end->no_row && end->sp <= top &&
			     top - end->sp <= UWK_ENTRY_WINDOW)))) {
		uwk_stat_inc(UWK_ST_END_ENTRY);
		return;
	}
	if (kmm && end->no_row && uwk_kmm_note_break(kmm, end->module)) {
		uwk_stat_inc(UWK_ST_END_NO_TABLE);
		return;
	}
	uwk_stat_inc(UWK_ST_END_OTHER);
}

static void uwk_walk_user(struct perf_callchain_entry_ctx *entry,
			  struct pt_regs *regs, struct uw_cursor *cur,
			 struct uw_regs *start)
{
	struct uwk_read_ctx rctx = { .checked = false };
	struct uw_walk_cfg cfg = {
		.arch = uwk_arch.uw_arch,
		.mem = { .read = uwk_user_read, .ctx = &rctx },
		.max_depth = entry->max_stack + 1,
	};
	struct uwk_kmm *found, *kmm;
	struct uwk_walk_end end;
	unsigned int stop;
	int ret;

	found = uwk_kmm_find(current->mm);
	/* A mapping was unmapped since the scan: trust no table (events.c). */
	kmm = found && !READ_ONCE(found->stale_seq) ? found : NULL;
	if (kmm) {
		cfg.mods = kmm->mods;
		cfg.nmods = kmm->n;
	}
	uwk_arch_regs(start, regs);
	if (uw_cursor_init(cur, &cfg, start)) {
		uwk_stat_inc(UWK_ST_END_OTHER);
		return;
	}
	/*
	 * A process not known yet, a pc no mapping covers (a new library),
	 * or mappings changed since the scan: ask for a scan.
	 */
	uwk_request_scan(found, !kmm || cur->module == UW_NO_MODULE);
	for (;;) {
		end.module = cur->module;
		end.depth = cur->depth;
		end.sp = cur->regs.r[uwk_arch.sp];
		ret = uw_step(cur, &cfg);
		end.no_row = cur->source == UW_SRC_FP;
		if (ret <= 0) {
			stop = cur->stop;
			break;
		}
		/*
		 * A return address the frame-pointer fallback guessed, outside
		 * every executable mapping of a process whose mappings the
		 * module knows: not a frame (a stale %rbp in code built
		 * without frame pointers), and nothing sensible follows it.
		 */
		if (kmm && cur->module == UW_NO_MODULE &&
		    cur->source == UW_SRC_FP) {
			stop = UWK_STOP_FP_OUTSIDE;
			break;
		}
		uwk_count_frame(cur->source);
		/*
		 * A return address a table or the kernel's signal frame gave,
		 * outside every mapping: a mapping the scan missed.  One the
		 * frame-pointer fallback guessed proves nothing (it is often
		 * garbage past main), and asking for a scan on it made such
		 * processes rescan every rescan_ms for ever.
		 */
		if (cur->module == UW_NO_MODULE && cur->source != UW_SRC_FP)
			uwk_request_scan(found, true);
		/* perf's entry is full: the sample's max_stack was reached. */
		if (perf_callchain_store(entry, cur->regs.r[uwk_arch.pc])) {
			stop = UW_STOP_DEPTH;
			end.module = cur->module;
			end.no_row = false;
			end.depth = cur->depth;
			break;
		}
	}
	uwk_stat_stop(stop);
	uwk_count_end(kmm, stop, &end);
}

/* Same signature as perf_callchain_user(), which it stands in for. */
static void notrace uwk_callchain_user(struct perf_callchain_entry_ctx *entry,
				       struct pt_regs *regs)
{
	struct uwk_walk_slot *slot;

	uwk_stat_inc(UWK_ST_SAMPLES);
	perf_callchain_store(entry, instruction_pointer(regs));

	preempt_disable_notrace();
	rcu_read_lock();
	slot = this_cpu_ptr(&uwk_slots[uwk_context_level()]);
	uwk_walk_user(entry, regs, &slot->cur, &slot->start);
	rcu_read_unlock();
	preempt_enable_notrace();
}

/* Whether uwind walks this sample; else the kernel's walker does. */
static bool uwk_takes(struct pt_regs *regs)
{
	return regs && READ_ONCE(uwk_enable) && uwk_arch_takes(regs);
}

static void notrace uwk_hook(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	/* perf_callchain_user(entry, regs): its second argument. */
	struct pt_regs *regs = (struct pt_regs *)uwk_arch_ftrace_arg(fregs, 1);

	/*
	 * A KVM vCPU thread between guest entry and exit: a sample here is
	 * the guest's (perf_guest_state(), which the kernel's walker checks
	 * and which 6.1 does not export), and the user registers are the
	 * host VMM's, whose stack must not be reported for it.  KVM sets
	 * PF_VCPU around exactly that stretch (guest_timing_enter_irqoff()
	 * to guest_timing_exit_irqoff(), which encloses the interrupt
	 * window where perf_guest_state() is non-zero), so such a sample
	 * goes to the kernel's walker: it records no user chain for a guest
	 * sample, and walks the VMM for the rare host sample in that window
	 * as it always did.
	 */
	if (current->flags & PF_VCPU) {
		uwk_stat_inc(UWK_ST_PASSED_VCPU);
		return;
	}
	if (!uwk_takes(regs)) {
		uwk_stat_inc(UWK_ST_PASSED);
		return;
	}
	uwk_arch_ftrace_redirect(fregs, (unsigned long)uwk_callchain_user);
}

static struct ftrace_ops uwk_ops = {
	.func = uwk_hook,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_RECURSION,
};

int uwk_hook_init(void)
{
	int ret;

	ret = ftrace_set_filter(&uwk_ops, UWK_HOOK_SYM, strlen(UWK_HOOK_SYM), 1);
	if (ret) {
		pr_err("cannot filter on %s: %d\n", UWK_HOOK_SYM, ret);
		return ret;
	}
	ret = register_ftrace_function(&uwk_ops);
	if (ret) {
		pr_err("cannot hook %s: %d\n", UWK_HOOK_SYM, ret);
		ftrace_free_filter(&uwk_ops);
	}
	return ret;
}

void uwk_hook_exit(void)
{
	unregister_ftrace_function(&uwk_ops);
	ftrace_free_filter(&uwk_ops);
	/*
	 * A caller diverted just before the unregistration may still be in
	 * uwk_callchain_user(): it runs with preemption off, so a grace
	 * period waits for it.
	 */
	synchronize_rcu();
}
