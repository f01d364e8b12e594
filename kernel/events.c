// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The events that make the registry (registry.c) scan a process, or mark
 * its table stale:
 *
 * - exec (the sched_process_exec tracepoint) queues a scan of the new
 *   address space, and exec and exit schedule the collection of tables of
 *   processes that are gone;
 * - a sample that meets a process or a pc not yet known asks for a scan
 *   from NMI or IRQ context: irq_work -> work;
 * - an unmapped executable mapping (dlclose, munmap, MAP_FIXED over it):
 *   another file may come to the same addresses, with as many mappings,
 *   which nothing else would notice.  An ftrace hook on unlink_file_vma()
 *   marks the process's table, and the hook walks a marked process with
 *   frame pointers until the rescan that the mark asks for has published
 *   a fresh table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "uwind_kmod.h"

struct uwk_scan_req {
	struct work_struct work;
	struct task_struct *task;
	unsigned long asked;
};

static void uwk_scan_work_fn(struct work_struct *w)
{
	struct uwk_scan_req *req = container_of(w, struct uwk_scan_req, work);
	struct mm_struct *mm = get_task_mm(req->task);

	if (mm) {
		uwk_scan_mm(req->task, mm, req->asked);
		mmput(mm);
		/*
		 * If the task exited meanwhile, this mmput may have been the
		 * last: the collection its exit scheduled skipped this mm.
		 */
		if (req->task->flags & PF_EXITING)
			uwk_gc_soon();
	}
	put_task_struct(req->task);
	kfree(req);
}

/* Queue a scan of task's mappings; takes over a task reference. */
static void uwk_queue_scan(struct task_struct *task)
{
	struct uwk_scan_req *req = kmalloc(sizeof(*req), GFP_ATOMIC);

	if (!req) {
		put_task_struct(task);
		return;
	}
	INIT_WORK(&req->work, uwk_scan_work_fn);
	req->task = task;
	req->asked = uwk_next_seq();
	uwk_queue_work(&req->work);
}

/*
 * Lazy requests from the hook.  An NMI can neither allocate nor queue
 * work, so it parks the task in a per-CPU slot and raises an irq_work,
 * which queues the scan from hard-irq context.  One request per CPU is in
 * flight at a time; the rest are dropped and come back with a later
 * sample.
 */
struct uwk_lazy {
	struct irq_work iw;
	struct task_struct *task;
};

static DEFINE_PER_CPU(struct uwk_lazy, uwk_lazy);

static void uwk_lazy_fn(struct irq_work *iw)
{
	struct uwk_lazy *l = container_of(iw, struct uwk_lazy, iw);
	struct task_struct *task = xchg(&l->task, NULL);

	if (task)
		uwk_queue_scan(task);
}

void uwk_request_scan(struct uwk_kmm *kmm, bool uncovered)
{
	struct uwk_lazy *l;

	/* Mid-exec the new address space is half built: exec will ask. */
	if (!current->mm || (current->flags & PF_KTHREAD) ||
	    current->in_execve)
		return;
	/*
	 * A known process is rescanned when a pc falls outside its table,
	 * or when its mappings changed since the scan (ld.so, dlopen,
	 * munmap): then a pc may be covered by a stale entry; also when
	 * tables were installed since (installed.c).  Both at most
	 * every uwk_rescan_ms, except that an uncovered pc in changed
	 * mappings asks at once.  map_count is read racily: a hint.
	 */
	if (kmm) {
		bool changed = READ_ONCE(current->mm->map_count) !=
			       kmm->map_count || READ_ONCE(kmm->stale_seq) ||
			       kmm->inst_gen != uwk_inst_gen();
		bool recent = time_before(jiffies, kmm->scanned +
					  msecs_to_jiffies(uwk_rescan_ms));

		if (!changed && (!uncovered || recent))
			return;
		if (changed && !uncovered && recent)
			return;
	}
	l = this_cpu_ptr(&uwk_lazy);
	if (READ_ONCE(l->task))
		return;
	/* The task is running: this cannot be its last reference. */
	get_task_struct(current);
	if (cmpxchg(&l->task, NULL, current)) {
		put_task_struct(current);
		return;
	}
	uwk_stat_inc(UWK_ST_LAZY_REQUESTS);
	irq_work_queue(&l->iw);
}

/* ---- unmapped executable mappings ---- */

/*
 * unlink_file_vma(vma): 6.1 calls it for every file mapping that munmap,
 * mremap, an mmap over it or exit removes, with the mmap lock held for
 * writing.  Marks the table of vma's process if it holds the mapping.
 */
static void notrace uwk_on_unlink(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct ftrace_regs *fregs)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)
		uwk_arch_ftrace_arg(fregs, 0);
	struct uwk_kmm *kmm;

	if (!vma || !(vma->vm_flags & VM_EXEC) || !vma->vm_mm)
		return;
	rcu_read_lock();
	kmm = uwk_kmm_find(vma->vm_mm);
	if (kmm && !READ_ONCE(kmm->stale_seq) &&
	    uwk_kmm_covers(kmm, vma->vm_start, vma->vm_end))
		WRITE_ONCE(kmm->stale_seq, uwk_next_seq());
	rcu_read_unlock();
}

static struct ftrace_ops uwk_unlink_ops = {
	.func = uwk_on_unlink,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION,
};

static bool uwk_unlink_on;

/* Not fatal: without it the map_count hint and uncovered pcs remain. */
static void uwk_unlink_hook_init(void)
{
	static const char sym[] = "unlink_file_vma";
	int ret;

	ret = ftrace_set_filter(&uwk_unlink_ops, (unsigned char *)sym,
				strlen(sym), 1);
	ret = ret ? ret : register_ftrace_function(&uwk_unlink_ops);
	if (ret) {
		pr_warn("cannot trace %s (%d): a library replaced at the same address may be unwound with the old table\n",
			sym, ret);
		ftrace_free_filter(&uwk_unlink_ops);
		return;
	}
	uwk_unlink_on = true;
}

static void uwk_unlink_hook_exit(void)
{
	if (!uwk_unlink_on)
		return;
	unregister_ftrace_function(&uwk_unlink_ops);
	ftrace_free_filter(&uwk_unlink_ops);
	uwk_unlink_on = false;
}

/* ---- tracepoints ---- */

static void uwk_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			struct linux_binprm *bprm)
{
	get_task_struct(p);
	uwk_queue_scan(p);
	uwk_gc_soon();		/* the old address space is gone */
}

static void uwk_on_exit(void *data, struct task_struct *p)
{
	uwk_gc_soon();
}

struct uwk_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct uwk_tp uwk_tps[] = {
	{ "sched_process_exec", uwk_on_exec },
	{ "sched_process_exit", uwk_on_exit },
};

static void uwk_tp_lookup(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uwk_tps); i++)
		if (!strcmp(tp->name, uwk_tps[i].name))
			uwk_tps[i].tp = tp;
}

static void uwk_tp_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uwk_tps); i++)
		if (uwk_tps[i].tp)
			tracepoint_probe_unregister(uwk_tps[i].tp,
						    uwk_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
}

/* ---- load and unload ---- */

int uwk_events_init(void)
{
	size_t i;
	int cpu, ret;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu(uwk_lazy, cpu).iw, uwk_lazy_fn);
	for_each_kernel_tracepoint(uwk_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(uwk_tps); i++) {
		if (!uwk_tps[i].tp) {
			pr_err("tracepoint %s not found\n", uwk_tps[i].name);
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register(uwk_tps[i].tp, uwk_tps[i].probe,
						NULL);
		if (ret) {
			uwk_tps[i].tp = NULL;
			goto fail;
		}
	}
	uwk_unlink_hook_init();
	return 0;
fail:
	uwk_tp_unregister();
	return ret;
}

/* Called once the hook can no longer run; scans may still be queued. */
void uwk_events_exit(void)
{
	int cpu;

	uwk_unlink_hook_exit();
	uwk_tp_unregister();
	for_each_possible_cpu(cpu) {
		struct uwk_lazy *l = &per_cpu(uwk_lazy, cpu);
		struct task_struct *task;

		irq_work_sync(&l->iw);
		task = xchg(&l->task, NULL);
		if (task)
			put_task_struct(task);
	}
}
