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
 * A sample uwind does not handle (x86's 32-bit tasks and vm86, a KVM
 * guest running, uwind switched off) is not diverted: the hook looks at
 * the pt_regs argument itself and lets the kernel's own walker run.
 * (Calling that walker back from the module would need an indirect call
 * to the address ftrace reports, which with IBT lies past the function's
 * ENDBR and would fault.)  arm64's 32-bit tasks are walked, as 32-bit
 * ARM (arch_arm64.c).
 *
 * It runs in NMI or hard-irq context: no sleeping, no locks, no faults.
 * Stack words are read with copy_from_user_nofault(); the tables are
 * kernel copies found under rcu_read_lock().  A sample from a process, or
 * at a pc, that the tables do not know yet asks for a scan (events.c) and
 * is walked with frame pointers meanwhile, as the kernel would have.
 *
 * Each CPU has an unwind cache (include/uwind/cache.h): the rows of the
 * return addresses its walks met, tagged with the mapping's cache tag
 * (registry.c: never given twice, so a rescanned process's old entries
 * answer nothing).  A walk is bounded by the sample's depth and by
 * max_walk_us.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include "uwind_kmod.h"

#define UWK_HOOK_SYM	"perf_callchain_user"

#define UWK_TIME_EVERY	16	/* frames between two looks at the clock */

/*
 * The walker's state is too large for an NMI stack, so it lives per CPU,
 * one slot per context that can interrupt another: task, softirq, hard
 * irq, NMI.  Allocated at load (10 KiB a CPU: more than the static per-CPU
 * space a module may take).
 */
struct uwk_walk_slot {
	struct uw_cursor cur;
	struct uw_regs start;
	struct uw_frame frames[UWK_TIME_EVERY + 1];	/* a batch */
};

struct uwk_walk_slots {
	struct uwk_walk_slot s[4];
};

static struct uwk_walk_slots __percpu *uwk_slots;

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
 * The unwind cache of each CPU.  Only the callchain hook uses it, with
 * preemption off, so a walk on this CPU has it alone unless it
 * interrupted another walk here (an NMI sample in an interrupt's, an
 * interrupt's sample in a task's tracepoint sample): busy says so, and
 * the inner walk goes without the cache.  The inner walk ends before the
 * outer one resumes, so a flag set after its test is never missed.
 */
struct uwk_cpu_cache {
	struct uw_cache cache;
	bool busy;
};

static DEFINE_PER_CPU(struct uwk_cpu_cache, uwk_cpu_cache);
static size_t uwk_cache_bytes;

static struct uw_cache *uwk_cache_take(void)
{
	struct uwk_cpu_cache *c = this_cpu_ptr(&uwk_cpu_cache);

	if (!c->cache.entries)
		return NULL;
	if (READ_ONCE(c->busy)) {
		uwk_stat_inc(UWK_ST_CACHE_BUSY);
		return NULL;
	}
	WRITE_ONCE(c->busy, true);
	barrier();
	return &c->cache;
}

static void uwk_cache_give(struct uw_cache *cache)
{
	if (!cache)
		return;
	barrier();
	WRITE_ONCE(this_cpu_ptr(&uwk_cpu_cache)->busy, false);
}

/* Allocate and empty every CPU's cache: uwk_cache_slots slots each. */
static int uwk_cache_init(void)
{
	unsigned int n = min(uwk_cache_slots, 65536u);
	int cpu;

	if (!n)
		return 0;
	n = rounddown_pow_of_two(n);
	for_each_possible_cpu(cpu) {
		struct uw_cache *c = &per_cpu_ptr(&uwk_cpu_cache, cpu)->cache;
		struct uw_cache_entry *e;

		e = uwk_nomem(kvmalloc_node(array_size(n, sizeof(*e)), UWK_GFP,
				  cpu_to_node(cpu)));
		if (!e)
			return -ENOMEM;
		uw_cache_init(c, e, n);
		uwk_cache_bytes += array_size(n, sizeof(*e));
	}
	return 0;
}

/* After the hook is gone and its last caller has left (uwk_hook_exit()). */
static void uwk_cache_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct uw_cache *c = &per_cpu_ptr(&uwk_cpu_cache, cpu)->cache;

		kvfree(c->entries);
		c->entries = NULL;
	}
	uwk_cache_bytes = 0;
}

/* debugfs "stats": the caches' memory, hits and misses (all CPUs). */
void uwk_cache_show(struct seq_file *m)
{
	u64 hits = 0, misses = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct uw_cache *c = &per_cpu_ptr(&uwk_cpu_cache, cpu)->cache;

		hits += READ_ONCE(c->hits);
		misses += READ_ONCE(c->misses);
	}
	seq_printf(m, "cache_bytes %zu\n", uwk_cache_bytes);
	seq_printf(m, "cache_hits %llu\n", hits);
	seq_printf(m, "cache_misses %llu\n", misses);
}

/* debugfs "caches": each CPU's, "cpu slots hits misses". */
void uwk_caches_show(struct seq_file *m)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct uw_cache *c = &per_cpu_ptr(&uwk_cpu_cache, cpu)->cache;

		seq_printf(m, "%d %u %llu %llu\n", cpu,
			   c->entries ? c->mask + 1 : 0, READ_ONCE(c->hits),
			   READ_ONCE(c->misses));
	}
}

/*
 * User memory, never faulting: the walk's accessor.  Its body is
 * uwk_user_read_inline() (uwk_env.h, with struct uwk_read_ctx), which
 * the core also inlines where it reads the stack of a walk whose
 * accessor this is (UW_ENV_READ): one read, two ways to reach it.
 */
int uwk_user_read(void *ctx, u64 addr, void *dst, size_t len)
{
	return uwk_user_read_inline(ctx, addr, dst, len);
}

/* Frames of a walk by source, counted in the stats once it ends. */
struct uwk_frames {
	unsigned long sframe, fp, sig;
};

static void uwk_count_frame(struct uwk_frames *n, u8 source)
{
	switch (source) {
	case UW_SRC_SFRAME:
		n->sframe++;
		break;
	case UW_SRC_FP:
		n->fp++;
		break;
	case UW_SRC_SIGFRAME:
		n->sig++;
		break;
	}
}

static void uwk_count_frames(const struct uwk_frames *n)
{
	if (n->sframe)
		uwk_stat_add(UWK_ST_FRAMES_SFRAME, n->sframe);
	if (n->fp)
		uwk_stat_add(UWK_ST_FRAMES_FP, n->fp);
	if (n->sig)
		uwk_stat_add(UWK_ST_FRAMES_SIGFRAME, n->sig);
}

/*
 * The time limit: the clock is read every UWK_TIME_EVERY frames (a walk
 * shorter than that never reads it after its start), and a walk that has
 * taken more than max_walk_us ends there.  The clock is the NMI-safe
 * monotonic one: local_clock() with an unstable TSC (QEMU's TCG) stops
 * one tick past the last tick, and with interrupts off the walk saw it
 * stand still (walks of 1024 frames under max_walk_us=1).
 */
static u64 uwk_now(void)
{
	return ktime_get_mono_fast_ns();
}

static bool uwk_too_long(u64 t0, u64 limit_ns)
{
	return uwk_now() - t0 > limit_ns;
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
	if (stop == UWK_STOP_TIME) {
		uwk_stat_inc(UWK_ST_END_TIME);
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

/* Where a walk's frames go: perf's callchain entry, or unwind_user()'s. */
static bool uwk_store(struct uwk_sink *sink, u64 ip)
{
	if (sink->entry)
		return !perf_callchain_store(sink->entry, ip);
	if (sink->nr >= sink->max)
		return false;
	sink->ips[sink->nr++] = ip;
	return true;
}

/*
 * Ask the workqueue to scan the process (events.c decides whether it is
 * due), unless the walk's caller scans it itself (sink->self_scan).
 */
static void uwk_ask_scan(struct uwk_sink *sink, struct uwk_kmm *found)
{
	if (!sink->self_scan)
		uwk_request_scan(found, sink->uncovered);
}

/* What a walk needs besides the core's cursor and configuration. */
struct uwk_walk {
	struct uwk_sink *sink;
	struct uwk_kmm *found, *kmm;
	struct uwk_frames frames;
	struct uwk_walk_end end;
	u64 t0, limit;
};

/*
 * Take the frames a batch of the walk found: frames[0] is the one taken
 * last (the sample's pc, or the previous batch's last frame), at depth
 * depth; each other one goes to perf.  A stop reason, or UW_STOP_NONE.
 */
static unsigned int uwk_take(struct uwk_walk *w, const struct uw_frame *fr,
			     size_t n, u32 depth)
{
	size_t i;

	for (i = 1; i < n; i++) {
		u8 src = fr[i - 1].source;

		/*
		 * A return address the frame-pointer fallback guessed,
		 * outside every executable mapping of a process whose
		 * mappings the module knows: not a frame (a stale %rbp in
		 * code built without frame pointers), and nothing sensible
		 * follows it.
		 */
		if (w->kmm && fr[i].module == UW_NO_MODULE &&
		    src == UW_SRC_FP) {
			w->end.module = fr[i - 1].module;
			w->end.depth = depth + i - 1;
			w->end.sp = fr[i - 1].sp;
			w->end.no_row = true;
			return UWK_STOP_FP_OUTSIDE;
		}
		uwk_count_frame(&w->frames, src);
		/*
		 * A return address a table or the kernel's signal frame gave,
		 * outside every mapping: a mapping the scan missed.  One the
		 * frame-pointer fallback guessed proves nothing (it is often
		 * garbage past main), and asking for a scan on it made such
		 * processes rescan every rescan_ms for ever.
		 */
		if (fr[i].module == UW_NO_MODULE && src != UW_SRC_FP &&
		    !w->sink->uncovered) {
			w->sink->uncovered = true;
			uwk_ask_scan(w->sink, w->found);
		}
		/* The sink is full: the sample's max_stack was reached. */
		if (!uwk_store(w->sink, fr[i].pc |
			       (fr[i].flags & UW_FRAME_THUMB ? 1 : 0))) {
			w->end.module = fr[i].module;
			w->end.depth = depth + i;
			w->end.no_row = false;
			return UW_STOP_DEPTH;
		}
	}
	return UW_STOP_NONE;
}

/*
 * The walk, in batches of UWK_BATCH frames (uw_walk_more(): the core's
 * fast loop, not a call per frame); between two, the time limit.
 */
#define UWK_BATCH	UWK_TIME_EVERY

static unsigned int uwk_walk_batches(struct uwk_walk *w, struct uw_cursor *cur,
				     const struct uw_walk_cfg *cfg,
				     struct uw_frame *fr)
{
	struct uw_walk_result res;
	unsigned int stop;
	u32 depth = 0;
	size_t n;

	for (;;) {
		n = uw_walk_more(cur, cfg, fr, UWK_BATCH + 1, &res);
		if (!n) {
			w->end.module = cur->module;
			w->end.depth = depth;
			w->end.sp = 0;
			w->end.no_row = false;
			return UW_STOP_BAD_DATA;
		}
		stop = uwk_take(w, fr, n, depth);
		if (stop != UW_STOP_NONE)
			return stop;
		depth += n - 1;
		if (cur->stop != UW_STOP_NONE) {
			w->end.module = fr[n - 1].module;
			w->end.depth = depth;
			w->end.sp = fr[n - 1].sp;
			w->end.no_row = cur->source == UW_SRC_FP;
			return cur->stop;
		}
		if (w->limit && uwk_too_long(w->t0, w->limit))
			return UWK_STOP_TIME;
	}
}

static void uwk_walk_user(struct uwk_sink *sink, struct pt_regs *regs,
			  struct uwk_walk_slot *slot, struct uw_cache *cache)
{
	struct uwk_read_ctx rctx = { .checked = false };
	struct uw_walk_cfg cfg = {
		.mem = { .read = uwk_user_read, .ctx = &rctx },
		.max_depth = sink->entry ? sink->entry->max_stack + 1 : sink->max,
		.cache = cache,
	};
	struct uwk_walk w = {
		.sink = sink,
		.limit = (u64)sink->limit_us * NSEC_PER_USEC,
	};
	struct uw_cursor *cur = &slot->cur;
	unsigned int stop;

	if (w.limit)
		w.t0 = uwk_now();
	w.found = uwk_kmm_find(current->mm);
	/* A mapping was unmapped since the scan: trust no table (events.c). */
	w.kmm = w.found && !READ_ONCE(w.found->stale_seq) ? w.found : NULL;
	if (w.kmm) {
		cfg.mods = w.kmm->mods;
		cfg.nmods = w.kmm->n;
	}
	/* The walk's architecture: a compat task's is not the kernel's. */
	uwk_arch_regs(&cfg, &slot->start, regs);
	if (uw_cursor_init(cur, &cfg, &slot->start)) {
		uwk_stat_inc(UWK_ST_END_OTHER);
		return;
	}
	/*
	 * A process not known yet, a pc no mapping covers (a new library),
	 * or mappings changed since the scan: ask for a scan.
	 */
	if (!w.kmm || cur->module == UW_NO_MODULE)
		sink->uncovered = true;
	uwk_ask_scan(sink, w.found);
	stop = uwk_walk_batches(&w, cur, &cfg, slot->frames);
	sink->fault = stop == UW_STOP_READ_FAULT ? rctx.fault : 0;
	uwk_count_frames(&w.frames);
	uwk_stat_stop(stop);
	uwk_count_end(w.kmm, stop, &w.end);
}

/*
 * Walk the user stack of the current task from regs into sink: the pc,
 * then the frames.  Any context; never faults, never sleeps.
 */
void notrace uwk_walk_current(struct uwk_sink *sink, struct pt_regs *regs)
{
	struct uwk_walk_slot *slot;
	struct uw_cache *cache;

	sink->fault = 0;
	sink->uncovered = false;
	if (!uwk_store(sink, instruction_pointer(regs)))
		return;
	preempt_disable_notrace();
	rcu_read_lock();
	slot = &this_cpu_ptr(uwk_slots)->s[uwk_context_level()];
	cache = uwk_cache_take();
	uwk_walk_user(sink, regs, slot, cache);
	uwk_cache_give(cache);
	rcu_read_unlock();
	preempt_enable_notrace();
}

/* Same signature as perf_callchain_user(), which it stands in for. */
static void notrace uwk_callchain_user(struct perf_callchain_entry_ctx *entry,
				       struct pt_regs *regs)
{
	struct uwk_sink sink = {
		.entry = entry, .limit_us = READ_ONCE(uwk_max_walk_us),
	};

	uwk_stat_inc(UWK_ST_SAMPLES);
	uwk_walk_current(&sink, regs);
}

/* Whether uwind walks this sample; else the kernel's walker does. */
static bool uwk_takes(struct pt_regs *regs)
{
	return regs && READ_ONCE(uwk_enable) && uwk_arch_takes(regs);
}

static void notrace uwk_hook(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *ops, struct uwk_fregs *fregs)
{
	/* perf_callchain_user(entry, regs): its second argument. */
	struct pt_regs *regs = (struct pt_regs *)uwk_ftrace_arg(fregs, 1);

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
	uwk_ftrace_set_pc(fregs, (unsigned long)uwk_callchain_user);
}

/*
 * The kernel's function and its stand-in must take the same arguments: a
 * kernel that changed them is refused here, at build time.
 */
static_assert(__same_type(&perf_callchain_user, &uwk_callchain_user),
	      "uwind: this kernel's perf_callchain_user() has another prototype");

static struct ftrace_ops uwk_ops = {
	.func = uwk_hook,
	.flags = UWK_FTRACE_FL_REGS | FTRACE_OPS_FL_IPMODIFY |
		 UWK_FTRACE_FL_GUARD,
};

/*
 * The hooked function's filter is set by address where kprobes can tell
 * it (kallsyms_lookup_name() is not exported): by name, 6.12's
 * ftrace_set_filter() returns 0 with an empty filter, which traces every
 * function, when one of its allocations fails (match_records()'s -ENOMEM
 * is taken for a match); the callback would then run on every function
 * of the kernel, with another function's arguments.  By address, a failed
 * allocation is an error (ftrace_match_addr()).
 */
static int uwk_set_filter(void)
{
#ifdef CONFIG_KPROBES
	struct kprobe kp = { .symbol_name = UWK_HOOK_SYM };
	int ret;

	ret = register_kprobe(&kp);
	if (!ret) {
		unsigned long addr = (unsigned long)kp.addr;

		unregister_kprobe(&kp);
		return ftrace_set_filter_ip(&uwk_ops, addr, 0, 1);
	}
	/* Out of memory is not a reason to try the name. */
	if (ret == -ENOMEM)
		return ret;
	pr_info("kprobes cannot place %s (%d): its filter set by name\n",
		UWK_HOOK_SYM, ret);
#endif
	return ftrace_set_filter(&uwk_ops, UWK_HOOK_SYM, strlen(UWK_HOOK_SYM),
				 1);
}

int uwk_hook_init(void)
{
	int ret;

	uwk_slots = uwk_nomem(alloc_percpu_gfp(struct uwk_walk_slots, UWK_GFP));
	ret = uwk_slots ? uwk_cache_init() : -ENOMEM;
	if (ret) {
		pr_err("cannot allocate the walks' state and caches\n");
		goto out_cache;
	}
	ret = uwk_set_filter();
	if (ret) {
		pr_err("cannot filter on %s: %d\n", UWK_HOOK_SYM, ret);
		uwk_ftrace_free_filter(&uwk_ops);
		goto out_cache;
	}
	ret = register_ftrace_function(&uwk_ops);
	if (ret) {
		pr_err("cannot hook %s: %d\n", UWK_HOOK_SYM, ret);
		uwk_ftrace_free_filter(&uwk_ops);
		goto out_cache;
	}
	return 0;

out_cache:
	uwk_cache_free();
	free_percpu(uwk_slots);
	return ret;
}

void uwk_hook_exit(void)
{
	unregister_ftrace_function(&uwk_ops);
	uwk_ftrace_free_filter(&uwk_ops);
	/*
	 * A caller diverted just before the unregistration may still be in
	 * uwk_callchain_user(): it runs with preemption off, so a grace
	 * period waits for it.
	 */
	synchronize_rcu();
	uwk_cache_free();
	free_percpu(uwk_slots);
}
