// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The per-process registry: a struct uw_kmm describes one address space,
 * its executable mappings, each with its file's table (files.c) and the
 * mapping's load bias, in the array form the core's walker takes.  The
 * hook finds a uw_kmm by mm in an RCU hash table and only reads it; it
 * never walks VMAs (6.1 frees them without RCU) and never touches a file.
 *
 * Everything that reads files or VMAs runs on the module's workqueue, in
 * task context, when a scan is asked for (events.c).  A workqueue rather
 * than task_work: 6.1 does not export task_work_cancel, so a task_work
 * still pending at unload (its task asleep in a syscall) would call into
 * freed module text; work items can be flushed.
 *
 * Tables of processes that are gone are dropped by uw_gc(), which the
 * exec and exit tracepoints schedule; each uw_kmm pins its mm_struct
 * (mmgrab) so the pointer used as a key cannot be reused meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "uwind_kmod.h"

#define UW_MAX_MAPS	1024	/* executable mappings per process */

/* One executable mapping of a process. */
struct uw_kmap {
	struct uw_kfile *kf;
	char name[48];
};

static DEFINE_HASHTABLE(uw_mm_hash, 8);
static DEFINE_MUTEX(uw_mm_lock);	/* writers; the hook reads under RCU */

static struct workqueue_struct *uw_wq;
static LLIST_HEAD(uw_free_list);
static void uw_free_work_fn(struct work_struct *w);
static DECLARE_WORK(uw_free_work, uw_free_work_fn);
static void uw_gc_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(uw_gc_work, uw_gc_work_fn);

/*
 * Scan order: a request takes a number, a scan takes one when it starts
 * reading the mappings.  A request is answered by any scan that started
 * after it (jiffies are too coarse for that: a scan made during exec, of
 * a half-built address space, must not answer the request exec makes).
 */
static atomic_long_t uw_scan_seq = ATOMIC_LONG_INIT(0);

atomic_long_t uw_bytes_held = ATOMIC_LONG_INIT(0);
atomic_t uw_nr_mms = ATOMIC_INIT(0);

/* The next number in scan order (see uw_scan_seq). */
unsigned long uw_next_seq(void)
{
	return atomic_long_inc_return(&uw_scan_seq);
}

/* Queue w on the module's workqueue. */
void uw_queue_work(struct work_struct *w)
{
	queue_work(uw_wq, w);
}

/* ---- processes ---- */

struct uw_kmm *uw_kmm_find(struct mm_struct *mm)
{
	struct uw_kmm *kmm;

	hash_for_each_possible_rcu(uw_mm_hash, kmm, node, (unsigned long)mm)
		if (kmm->mm == mm)
			return kmm;
	return NULL;
}

static struct uw_kmm *uw_kmm_find_locked(struct mm_struct *mm)
{
	struct uw_kmm *kmm;

	lockdep_assert_held(&uw_mm_lock);
	hash_for_each_possible(uw_mm_hash, kmm, node, (unsigned long)mm)
		if (kmm->mm == mm)
			return kmm;
	return NULL;
}

static void uw_kmm_free_now(struct uw_kmm *kmm)
{
	u32 i;

	for (i = 0; i < kmm->n; i++)
		uw_kfile_put(kmm->maps[i].kf);
	mmdrop(kmm->mm);
	atomic_long_sub(kmm->bytes, &uw_bytes_held);
	atomic_dec(&uw_nr_mms);
	kvfree(kmm);
}

/* After a grace period, in task context: file references need the mutex. */
static void uw_free_work_fn(struct work_struct *w)
{
	struct llist_node *list = llist_del_all(&uw_free_list);
	struct uw_kmm *kmm, *next;

	llist_for_each_entry_safe(kmm, next, list, free_node)
		uw_kmm_free_now(kmm);
}

static void uw_kmm_rcu_cb(struct rcu_head *rcu)
{
	struct uw_kmm *kmm = container_of(rcu, struct uw_kmm, rcu);

	llist_add(&kmm->free_node, &uw_free_list);
	queue_work(uw_wq, &uw_free_work);
}

/* One executable mapping found by the scan. */
struct uw_vma_snap {
	u64 start, end, pgoff;
	struct file *file;
};

static struct uw_kmm *uw_kmm_alloc(u32 n)
{
	size_t size = sizeof(struct uw_kmm) +
		      n * (sizeof(struct uw_kmap) + sizeof(struct uw_module) +
			   sizeof(struct uw_sframe));
	struct uw_kmm *kmm = kvzalloc(size, GFP_KERNEL);

	if (!kmm)
		return NULL;
	kmm->bytes = size;
	kmm->maps = (struct uw_kmap *)(kmm + 1);
	kmm->mods = (struct uw_module *)(kmm->maps + n);
	kmm->sfs = (struct uw_sframe *)(kmm->mods + n);
	return kmm;
}

/* Fill mapping i of kmm from a snapshot (consumes the file reference). */
static void uw_kmm_fill(struct uw_kmm *kmm, u32 i, struct uw_vma_snap *v,
			kuid_t uid)
{
	struct uw_kfile *kf;

	kmm->mods[i].start = v->start;
	kmm->mods[i].end = v->end;
	kmm->mods[i].sframe = NULL;
	if (!v->file) {
		strscpy(kmm->maps[i].name, "[anon]", sizeof(kmm->maps[i].name));
		return;
	}
	kf = uw_kfile_get(v->file, uid);
	snprintf(kmm->maps[i].name, sizeof(kmm->maps[i].name), "%pD",
		 v->file);
	fput(v->file);
	kmm->maps[i].kf = kf;
	if (uw_kfile_sframe(kf, v->start, v->pgoff << PAGE_SHIFT,
			    &kmm->sfs[i]))
		kmm->mods[i].sframe = &kmm->sfs[i];
}

/* Snapshot the executable file mappings of mm; returns how many. */
static u32 uw_snap_vmas(struct mm_struct *mm, struct uw_vma_snap *snap,
			int *map_count)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, 0);
	u32 n = 0;

	mmap_read_lock(mm);
	*map_count = mm->map_count;
	for_each_vma(vmi, vma) {
		/*
		 * Anonymous executable mappings (the vDSO, JIT code) are kept
		 * too, without a table: a pc there is known, and does not ask
		 * for a rescan with every sample.
		 */
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (n == UW_MAX_MAPS)
			break;
		snap[n].start = vma->vm_start;
		snap[n].end = vma->vm_end;
		snap[n].pgoff = vma->vm_pgoff;
		snap[n].file = vma->vm_file ? get_file(vma->vm_file) : NULL;
		n++;
	}
	mmap_read_unlock(mm);
	return n;
}

/* Build and publish the table of task's address space mm. */
void uw_scan_mm(struct task_struct *task, struct mm_struct *mm,
		unsigned long asked)
{
	kuid_t uid = task_uid(task);	/* who is charged for new tables */
	struct uw_vma_snap *snap;
	struct uw_kmm *kmm, *old;
	unsigned long seq;
	int map_count;
	u32 i, n;

	/* A scan started after the request already answered it. */
	rcu_read_lock();
	old = uw_kmm_find(mm);
	if (old && old->seq > asked) {
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	seq = uw_next_seq();

	snap = kvmalloc_array(UW_MAX_MAPS, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;
	n = uw_snap_vmas(mm, snap, &map_count);
	kmm = uw_kmm_alloc(n);
	if (!kmm) {
		for (i = 0; i < n; i++)
			if (snap[i].file)
				fput(snap[i].file);
		kvfree(snap);
		return;
	}
	for (i = 0; i < n; i++)
		uw_kmm_fill(kmm, i, &snap[i], uid);
	kvfree(snap);
	kmm->n = n;
	kmm->mm = mm;
	mmgrab(mm);
	kmm->tgid = task->tgid;
	get_task_comm(kmm->comm, task);
	kmm->scanned = jiffies;
	kmm->seq = seq;
	kmm->map_count = map_count;
	atomic_long_add(kmm->bytes, &uw_bytes_held);
	atomic_inc(&uw_nr_mms);
	uw_stat_inc(UW_ST_SCANS);

	mutex_lock(&uw_mm_lock);
	old = uw_kmm_find_locked(mm);
	if (old && old->seq > seq) {
		/* A scan that started later published first: it is newer. */
		mutex_unlock(&uw_mm_lock);
		uw_kmm_free_now(kmm);
		return;
	}
	/* A mapping unmapped after this scan read them: still stale. */
	if (old && READ_ONCE(old->stale_seq) > seq)
		kmm->stale_seq = old->stale_seq;
	if (old)
		hlist_replace_rcu(&old->node, &kmm->node);
	else
		hash_add_rcu(uw_mm_hash, &kmm->node, (unsigned long)mm);
	mutex_unlock(&uw_mm_lock);
	if (old)
		call_rcu(&old->rcu, uw_kmm_rcu_cb);
}

/*
 * A walk broke at a pc in mapping module of kmm, for want of a table row:
 * count it against the mapping's file (true), or leave it to the caller
 * (false: an anonymous mapping, or none).  Runs in the hook, under RCU:
 * the file lives until kmm is freed after a grace period.
 */
bool uw_kmm_note_break(const struct uw_kmm *kmm, u16 module)
{
	struct uw_kfile *kf = module < kmm->n ? kmm->maps[module].kf : NULL;

	if (!kf)
		return false;
	uw_kfile_note_break(kf);
	return true;
}

/* ---- garbage collection ---- */

void uw_gc(void)
{
	struct hlist_node *tmp;
	struct uw_kmm *kmm;
	int bkt;

	mutex_lock(&uw_mm_lock);
	hash_for_each_safe(uw_mm_hash, bkt, tmp, kmm, node) {
		if (atomic_read(&kmm->mm->mm_users))
			continue;
		hash_del_rcu(&kmm->node);
		call_rcu(&kmm->rcu, uw_kmm_rcu_cb);
	}
	mutex_unlock(&uw_mm_lock);
}

static void uw_gc_work_fn(struct work_struct *w)
{
	uw_gc();
}

/* Wait for the frees queued so far (debugfs "gc" wants them done). */
void uw_tables_flush(void)
{
	flush_workqueue(uw_wq);
}

void uw_gc_soon(void)
{
	queue_delayed_work(uw_wq, &uw_gc_work, msecs_to_jiffies(100));
}

/* Whether an executable mapping of kmm overlaps [start, end). */
bool uw_kmm_covers(const struct uw_kmm *kmm, u64 start, u64 end)
{
	u32 i;

	for (i = 0; i < kmm->n; i++)
		if (kmm->mods[i].start < end && start < kmm->mods[i].end)
			return true;
	return false;
}

/* ---- debugfs listing ---- */

void uw_tables_show(struct seq_file *m)
{
	struct uw_kmm *kmm;
	u32 i;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(uw_mm_hash, bkt, kmm, node) {
		seq_printf(m, "pid %d %s%s\n", kmm->tgid, kmm->comm,
			   READ_ONCE(kmm->stale_seq) ? " stale" : "");
		for (i = 0; i < kmm->n; i++) {
			struct uw_kfile *kf = kmm->maps[i].kf;

			seq_printf(m, "  %llx-%llx %s %s\n",
				   kmm->mods[i].start, kmm->mods[i].end,
				   kmm->maps[i].name,
				   uw_kfile_state(kf));
		}
	}
	rcu_read_unlock();
}

/* ---- load and unload ---- */

int uw_registry_init(void)
{
	uw_wq = alloc_workqueue("uwind", WQ_UNBOUND, 0);
	return uw_wq ? 0 : -ENOMEM;
}

/* Called once the hook and the events can no longer run. */
void uw_registry_exit(void)
{
	struct hlist_node *tmp;
	struct uw_kmm *kmm;
	int bkt;

	/*
	 * Pending scans publish, then stop; they may schedule a collection,
	 * so it is cancelled after them (before, it could be queued again
	 * and fire on the destroyed workqueue).
	 */
	flush_workqueue(uw_wq);
	cancel_delayed_work_sync(&uw_gc_work);

	mutex_lock(&uw_mm_lock);
	hash_for_each_safe(uw_mm_hash, bkt, tmp, kmm, node) {
		hash_del_rcu(&kmm->node);
		call_rcu(&kmm->rcu, uw_kmm_rcu_cb);
	}
	mutex_unlock(&uw_mm_lock);
	rcu_barrier();			/* every callback has queued its free */
	flush_workqueue(uw_wq);
	destroy_workqueue(uw_wq);
	uw_files_exit();
}
