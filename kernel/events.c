// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The events that make the registry (registry.c) scan a process, or mark
 * its table stale:
 *
 * - exec (the sched_process_exec tracepoint) queues a scan of the new
 *   address space, and exec and exit schedule the collection of tables of
 *   processes that are gone; at load, every process already running is
 *   scanned the same way;
 * - a sample that meets a process or a pc not yet known asks for a scan
 *   from NMI or IRQ context: irq_work -> work;
 * - an unmapped executable mapping (dlclose, munmap, MAP_FIXED over it):
 *   another file may come to the same addresses, with as many mappings,
 *   which nothing else would notice.  An ftrace hook on the function that
 *   unlinks a removed file mapping (which one depends on the kernel, see
 *   uwk_unlink_hooks) marks the process's table, and the hook walks a
 *   marked process with frame pointers until the rescan that the mark
 *   asks for has published a fresh table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/ftrace.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include "uwind_kmod.h"

struct uwk_scan_req {
	struct list_head node;		/* its user's queue */
	struct uwk_scan_user *user;
	struct task_struct *task;
	unsigned long asked;
	struct mm_struct *pending;	/* a sample's request: its mark */
};

/*
 * The scans waiting, a queue per uid (the real uid of the process to
 * scan), served round-robin by UWK_SCAN_WORKERS work items, of which one
 * uid's scans hold at most UWK_SCAN_WORKERS - 1: a user whose processes
 * exec by the hundred (each exec asks for a scan), or map files whose
 * tables are slow to read and check, delays another user's scan by none
 * of its own.  A uid finds a slot of its own while one of UWK_SCAN_USERS
 * is free, else shares the slot its number hashes to.  Any context:
 * irqsave.
 */
#define UWK_SCAN_USERS		64
#define UWK_SCAN_WORKERS	4

struct uwk_scan_user {
	kuid_t uid;
	struct list_head queue;
	unsigned int n;			/* queued */
	unsigned int running;		/* being scanned; both 0: free */
};

static struct uwk_scan_user uwk_scan_users[UWK_SCAN_USERS];
static unsigned int uwk_scan_turn;
static DEFINE_SPINLOCK(uwk_scan_lock);
static void uwk_scan_work_fn(struct work_struct *w);
static struct work_struct uwk_scan_workers[UWK_SCAN_WORKERS];

/*
 * The address spaces that have a sample's scan request in flight: one
 * each, whatever the number of samples meanwhile (a busy process sampled
 * on every CPU would queue a request per sample until the first scan
 * ran).  A fixed set, claimed and given back with cmpxchg (NMI-safe); a
 * request for a process already in it, or when it is full, is dropped
 * (counted): the scan in flight answers it, or a later sample asks again.
 */
#define UWK_PENDING	64
static struct mm_struct *uwk_pending[UWK_PENDING];

/*
 * One uid's processes hold at most UWK_PENDING_USER of the marks (a hint:
 * checked before the claim, so CPUs claiming at once may pass it by one
 * each), so that a user with hundreds of busy processes cannot keep every
 * other user's samples from asking for a scan.
 */
#define UWK_PENDING_USER	16
static uid_t uwk_pending_uid[UWK_PENDING];

/*
 * Claim mm's mark for a process of uid: false if it is marked already, or
 * the uid holds its share of the marks, or no mark is free.
 */
static bool uwk_pending_claim(struct mm_struct *mm, uid_t uid)
{
	unsigned int i, own = 0;

	for (i = 0; i < UWK_PENDING; i++) {
		struct mm_struct *m = READ_ONCE(uwk_pending[i]);

		if (m == mm)
			return false;
		own += m && READ_ONCE(uwk_pending_uid[i]) == uid;
	}
	if (own >= UWK_PENDING_USER)
		return false;
	for (i = 0; i < UWK_PENDING; i++) {
		if (!READ_ONCE(uwk_pending[i]) &&
		    !cmpxchg(&uwk_pending[i], NULL, mm)) {
			WRITE_ONCE(uwk_pending_uid[i], uid);
			return true;
		}
	}
	return false;
}

static void uwk_pending_give(struct mm_struct *mm)
{
	unsigned int i;

	for (i = 0; mm && i < UWK_PENDING; i++)
		if (cmpxchg(&uwk_pending[i], mm, NULL) == mm)
			return;
}

/*
 * Scan requests queued and not yet done, those of them not yet started
 * (a sample's request holds its process's mark until then), and the most
 * there ever were of each since load (debugfs "stats": scans_inflight,
 * scans_queued and their _max).
 */
static atomic_t uwk_scans_inflight = ATOMIC_INIT(0);
static atomic_t uwk_scans_inflight_max = ATOMIC_INIT(0);
static atomic_t uwk_scans_queued = ATOMIC_INIT(0);
static atomic_t uwk_scans_queued_max = ATOMIC_INIT(0);

static void uwk_count_up(atomic_t *now, atomic_t *most)
{
	int n = atomic_inc_return(now);
	int max = atomic_read(most);

	while (n > max && !atomic_try_cmpxchg(most, &max, n))
		;
}

void uwk_inflight_show(struct seq_file *m)
{
	seq_printf(m, "scans_inflight %d\n", atomic_read(&uwk_scans_inflight));
	seq_printf(m, "scans_inflight_max %d\n",
		   atomic_read(&uwk_scans_inflight_max));
	seq_printf(m, "scans_queued %d\n", atomic_read(&uwk_scans_queued));
	seq_printf(m, "scans_queued_max %d\n",
		   atomic_read(&uwk_scans_queued_max));
}

/* The scan req asks for (consumes it). */
static void uwk_scan_one(struct uwk_scan_req *req)
{
	struct mm_struct *mm;

	/* From here on a sample may ask again: this scan may be too early. */
	uwk_pending_give(req->pending);
	atomic_dec(&uwk_scans_queued);
	mm = get_task_mm(req->task);

	if (mm) {
		uwk_scan_mm(req->task, mm, req->asked);
		mmput(mm);
		/*
		 * If the task exited meanwhile, this mmput may have been the
		 * last: the collection its exit scheduled skipped this mm.
		 */
		if (req->task->flags & PF_EXITING)
			uwk_gc_soon();
	} else {
		uwk_stat_inc(UWK_ST_SCANS_GONE);
	}
	put_task_struct(req->task);
	kfree(req);
	atomic_dec(&uwk_scans_inflight);
}

/* The next uid's oldest request, round-robin; NULL when none waits. */
static struct uwk_scan_req *uwk_scan_next(void)
{
	struct uwk_scan_req *req = NULL;
	struct uwk_scan_user *u;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&uwk_scan_lock, flags);
	for (i = 0; i < UWK_SCAN_USERS && !req; i++) {
		u = &uwk_scan_users[(uwk_scan_turn + i) % UWK_SCAN_USERS];
		if (!u->n || u->running >= UWK_SCAN_WORKERS - 1)
			continue;
		uwk_scan_turn = (uwk_scan_turn + i + 1) % UWK_SCAN_USERS;
		req = list_first_entry(&u->queue, struct uwk_scan_req, node);
		list_del(&req->node);
		u->n--;
		u->running++;
	}
	spin_unlock_irqrestore(&uwk_scan_lock, flags);
	return req;
}

/* A worker: the scans waiting, in turn, until none is left. */
static void uwk_scan_work_fn(struct work_struct *w)
{
	struct uwk_scan_req *req;

	struct uwk_scan_user *u;
	unsigned long flags;

	while ((req = uwk_scan_next())) {
		u = req->user;
		uwk_scan_one(req);
		spin_lock_irqsave(&uwk_scan_lock, flags);
		u->running--;
		spin_unlock_irqrestore(&uwk_scan_lock, flags);
		cond_resched();
	}
}

/* uid's queue: its own slot, a free one, or the one its number hashes to. */
static struct uwk_scan_user *uwk_scan_user_of(kuid_t uid)
{
	struct uwk_scan_user *free = NULL;
	unsigned int i;

	lockdep_assert_held(&uwk_scan_lock);
	for (i = 0; i < UWK_SCAN_USERS; i++) {
		struct uwk_scan_user *u = &uwk_scan_users[i];

		if ((u->n || u->running) && uid_eq(u->uid, uid))
			return u;
		if (!u->n && !u->running && !free)
			free = u;
	}
	if (!free)
		return &uwk_scan_users[__kuid_val(uid) % UWK_SCAN_USERS];
	free->uid = uid;
	return free;
}

/*
 * Queue a scan of task's mappings; takes over a task reference, and the
 * mark of pending (a sample's request), if not NULL.  Any context.
 */
static void uwk_queue_scan(struct task_struct *task, struct mm_struct *pending)
{
	struct uwk_scan_req *req = uwk_nomem(kmalloc(sizeof(*req), UWK_GFP_ATOMIC));
	struct uwk_scan_user *u;
	unsigned long flags;
	kuid_t uid;
	int i;

	if (!req) {
		uwk_pending_give(pending);
		put_task_struct(task);
		return;
	}
	req->task = task;
	req->asked = uwk_next_seq();
	req->pending = pending;
	uwk_count_up(&uwk_scans_inflight, &uwk_scans_inflight_max);
	uwk_count_up(&uwk_scans_queued, &uwk_scans_queued_max);
	rcu_read_lock();
	uid = task_uid(task);
	rcu_read_unlock();
	spin_lock_irqsave(&uwk_scan_lock, flags);
	u = uwk_scan_user_of(uid);
	req->user = u;
	list_add_tail(&req->node, &u->queue);
	u->n++;
	spin_unlock_irqrestore(&uwk_scan_lock, flags);
	/*
	 * The workers not yet queued start (one running takes it too, before
	 * it stops: it stops only when it finds no request).
	 */
	for (i = 0; i < UWK_SCAN_WORKERS; i++)
		uwk_queue_work(&uwk_scan_workers[i]);
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
	struct mm_struct *mm;		/* its mark */
};

static DEFINE_PER_CPU(struct uwk_lazy, uwk_lazy);

static void uwk_lazy_fn(struct irq_work *iw)
{
	struct uwk_lazy *l = container_of(iw, struct uwk_lazy, iw);
	struct mm_struct *mm = READ_ONCE(l->mm);
	struct task_struct *task = xchg(&l->task, NULL);

	if (task)
		uwk_queue_scan(task, mm);
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
	 * tables were installed since (installed.c, the agent's answers:
	 * uwk_kmm_changed()).  Both at most
	 * every uwk_rescan_ms, except that an uncovered pc in changed
	 * mappings asks at once.  map_count is read racily: a hint.
	 */
	if (kmm) {
		bool changed = uwk_kmm_changed(kmm, current->mm);
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
	if (!uwk_pending_claim(current->mm,
			       __kuid_val(current_real_cred()->uid))) {
		uwk_stat_inc(UWK_ST_LAZY_DROPPED);
		return;
	}
	/* The task is running: this cannot be its last reference. */
	get_task_struct(current);
	WRITE_ONCE(l->mm, current->mm);
	if (cmpxchg(&l->task, NULL, current)) {
		uwk_pending_give(current->mm);
		put_task_struct(current);
		return;
	}
	uwk_stat_inc(UWK_ST_LAZY_REQUESTS);
	irq_work_queue(&l->iw);
}

/* ---- unmapped executable mappings ---- */

/*
 * The function munmap, mremap, an mmap over a mapping and exit call for
 * each file mapping they remove, with the mmap lock held for writing,
 * and which argument is the vma:
 *
 *   unlink_file_vma(vma)                   6.1 to 6.8
 *   unlink_file_vma_batch_add(vb, vma)     6.9 on (free_pgtables() calls
 *                                          it; 6.12 keeps unlink_file_vma()
 *                                          for other paths, 7.x drops it)
 *
 * Every one of them the kernel has is traced.  Neither is declared where
 * a module can see its prototype (mm/ internals), so the argument is
 * not trusted blindly: it must point (read without faulting) at a vma of
 * the current process, as every caller's does.
 */
struct uwk_unlink_hook {
	const char *sym;
	unsigned int arg;
	struct ftrace_ops ops;
	bool on;
};

static void notrace uwk_on_unlink(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct uwk_fregs *fregs);

static struct uwk_unlink_hook uwk_unlink_hooks[] = {
	{ .sym = "unlink_file_vma_batch_add", .arg = 1 },
	{ .sym = "unlink_file_vma", .arg = 0 },
};

/* Marks the table of vma's process if it holds the mapping. */
static void notrace uwk_on_unlink(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct uwk_fregs *fregs)
{
	struct uwk_unlink_hook *h = container_of(ops, struct uwk_unlink_hook,
						 ops);
	struct vm_area_struct *vma = (struct vm_area_struct *)
		uwk_ftrace_arg(fregs, h->arg);
	struct mm_struct *mm = current->mm;
	unsigned long start, end, flags;
	struct mm_struct *vmm;
	struct uwk_kmm *kmm;

	if (!vma || !mm || get_kernel_nofault(vmm, &vma->vm_mm) || vmm != mm ||
	    get_kernel_nofault(flags, &vma->vm_flags) || !(flags & VM_EXEC) ||
	    get_kernel_nofault(start, &vma->vm_start) ||
	    get_kernel_nofault(end, &vma->vm_end))
		return;
	rcu_read_lock();
	kmm = uwk_kmm_find(mm);
	if (kmm && !READ_ONCE(kmm->stale_seq) &&
	    uwk_kmm_covers(kmm, start, end))
		WRITE_ONCE(kmm->stale_seq, uwk_next_seq());
	rcu_read_unlock();
}

/*
 * Not fatal: without any, the map_count hint and uncovered pcs remain, and
 * the module says what it loses.
 */
static void uwk_unlink_hook_init(void)
{
	unsigned int i, on = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(uwk_unlink_hooks); i++) {
		struct uwk_unlink_hook *h = &uwk_unlink_hooks[i];

		h->ops.func = uwk_on_unlink;
		h->ops.flags = UWK_FTRACE_FL_REGS | UWK_FTRACE_FL_GUARD;
		ret = ftrace_set_filter(&h->ops, (unsigned char *)h->sym,
					strlen(h->sym), 1);
		if (ret) {
			/* Not in this kernel (-EINVAL): the next one. */
			uwk_ftrace_free_filter(&h->ops);
			continue;
		}
		ret = register_ftrace_function(&h->ops);
		if (ret) {
			pr_warn("cannot trace %s (%d)\n", h->sym, ret);
			uwk_ftrace_free_filter(&h->ops);
			continue;
		}
		h->on = true;
		on++;
	}
	if (!on)
		pr_warn("traces none of unlink_file_vma_batch_add, unlink_file_vma: a library replaced at the same address may be unwound with the old table until the process is rescanned\n");
}

static void uwk_unlink_hook_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uwk_unlink_hooks); i++) {
		struct uwk_unlink_hook *h = &uwk_unlink_hooks[i];

		if (!h->on)
			continue;
		unregister_ftrace_function(&h->ops);
		uwk_ftrace_free_filter(&h->ops);
		h->on = false;
	}
}

/* debugfs "hooks": the unmap hooks, each "function on|off". */
void uwk_unlink_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uwk_unlink_hooks); i++)
		seq_printf(m, "%s %s\n", uwk_unlink_hooks[i].sym,
			   uwk_unlink_hooks[i].on ? "on" : "off");
}

/* ---- tracepoints ---- */

static void uwk_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			struct linux_binprm *bprm)
{
	get_task_struct(p);
	uwk_queue_scan(p, NULL);
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
	bool on;		/* registered: the only ones to unregister */
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

	for (i = 0; i < ARRAY_SIZE(uwk_tps); i++) {
		if (!uwk_tps[i].on)
			continue;
		tracepoint_probe_unregister(uwk_tps[i].tp, uwk_tps[i].probe,
					    NULL);
		uwk_tps[i].on = false;
	}
	tracepoint_synchronize_unregister();
}

/* ---- load and unload ---- */

/*
 * At load, scan every process already running, as exec would have, and
 * wait for the scans: once insmod returns, a sample of any process finds
 * its tables.  Left to the lazy request of its first sample, a process's
 * first few milliseconds of samples would be walked with frame pointers
 * (about 1% of a 2-second perf record -p at 499 Hz in the arm64 guest).
 */
static void uwk_scan_running(void)
{
	struct task_struct *p;

	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & PF_KTHREAD) || !READ_ONCE(p->mm))
			continue;
		get_task_struct(p);
		uwk_queue_scan(p, NULL);
	}
	rcu_read_unlock();
	uwk_tables_flush();
}

int uwk_events_init(void)
{
	size_t i;
	int cpu, ret;

	for (i = 0; i < UWK_SCAN_USERS; i++)
		INIT_LIST_HEAD(&uwk_scan_users[i].queue);
	for (i = 0; i < UWK_SCAN_WORKERS; i++)
		INIT_WORK(&uwk_scan_workers[i], uwk_scan_work_fn);
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
		if (ret)
			goto fail;
		uwk_tps[i].on = true;
	}
	uwk_unlink_hook_init();
	uwk_scan_running();
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
		if (task) {
			uwk_pending_give(l->mm);
			put_task_struct(task);
		}
	}
}
