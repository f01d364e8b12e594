// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The per-process registry: a struct uwk_kmm describes one address space,
 * its executable mappings, each with its file's table (files.c) and the
 * mapping's load bias, in the array form the core's walker takes.  The
 * hook finds a uwk_kmm by mm in an RCU hash table and only reads it; it
 * never walks VMAs (6.1 frees them without RCU) and never touches a file.
 *
 * Everything that reads files or VMAs runs on the module's workqueue, in
 * task context, when a scan is asked for (events.c).  A workqueue rather
 * than task_work: 6.1 does not export task_work_cancel, so a task_work
 * still pending at unload (its task asleep in a syscall) would call into
 * freed module text; work items can be flushed.
 *
 * Tables of processes that are gone are dropped by uwk_gc(), which the
 * exec and exit tracepoints schedule; each uwk_kmm pins its mm_struct
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
#include <linux/pid_namespace.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "uwind_kmod.h"

#define UWK_MAX_MAPS	1024	/* executable mappings per process */

/* One executable mapping of a process. */
struct uwk_kmap {
	struct uwk_kfile *kf;
	char name[48];
};

static DEFINE_HASHTABLE(uwk_mm_hash, 8);
static DEFINE_MUTEX(uwk_mm_lock);	/* writers; the hook reads under RCU */

static struct workqueue_struct *uwk_wq;
static LLIST_HEAD(uwk_free_list);
static void uwk_free_work_fn(struct work_struct *w);
static DECLARE_WORK(uwk_free_work, uwk_free_work_fn);
static void uwk_gc_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(uwk_gc_work, uwk_gc_work_fn);

/*
 * Scan order: a request takes a number, a scan takes one when it starts
 * reading the mappings.  A request is answered by any scan that started
 * after it (jiffies are too coarse for that: a scan made during exec, of
 * a half-built address space, must not answer the request exec makes).
 */
static atomic_long_t uwk_scan_seq = ATOMIC_LONG_INIT(0);

atomic_long_t uwk_bytes_held = ATOMIC_LONG_INIT(0);
atomic_t uwk_nr_mms = ATOMIC_INIT(0);

/*
 * The cache tags handed out so far (uwk_cache_ids()): 64 bits, counted
 * from 2^32 up, so that a tag's high half (the core's cache_id) is never
 * 0 and no tag is given twice (2^64 is centuries of scans away).
 */
static atomic64_t uwk_cache_tag = ATOMIC64_INIT(1ull << 32);

u64 uwk_cache_ids(u32 n)
{
	return atomic64_add_return(n, &uwk_cache_tag) - n;
}

/* The next number in scan order (see uwk_scan_seq). */
unsigned long uwk_next_seq(void)
{
	return atomic_long_inc_return(&uwk_scan_seq);
}

/* Queue w on the module's workqueue. */
void uwk_queue_work(struct work_struct *w)
{
	queue_work(uwk_wq, w);
}

/* Queue w on the module's workqueue after delay (if not queued yet). */
void uwk_queue_delayed_work(struct delayed_work *w, unsigned long delay)
{
	queue_delayed_work(uwk_wq, w, delay);
}

/* ---- processes ---- */

struct uwk_kmm *uwk_kmm_find(struct mm_struct *mm)
{
	struct uwk_kmm *kmm;

	hash_for_each_possible_rcu(uwk_mm_hash, kmm, node, (unsigned long)mm)
		if (kmm->mm == mm)
			return kmm;
	return NULL;
}

static struct uwk_kmm *uwk_kmm_find_locked(struct mm_struct *mm)
{
	struct uwk_kmm *kmm;

	lockdep_assert_held(&uwk_mm_lock);
	hash_for_each_possible(uwk_mm_hash, kmm, node, (unsigned long)mm)
		if (kmm->mm == mm)
			return kmm;
	return NULL;
}

static void uwk_kmm_free_now(struct uwk_kmm *kmm)
{
	u32 i;

	for (i = 0; i < kmm->n; i++)
		uwk_kfile_put(kmm->maps[i].kf);
	mmdrop(kmm->mm);
	atomic_long_sub(kmm->bytes, &uwk_bytes_held);
	atomic_dec(&uwk_nr_mms);
	kvfree(kmm);
}

/* After a grace period, in task context: file references need the mutex. */
static void uwk_free_work_fn(struct work_struct *w)
{
	struct llist_node *list = llist_del_all(&uwk_free_list);
	struct uwk_kmm *kmm, *next;

	llist_for_each_entry_safe(kmm, next, list, free_node)
		uwk_kmm_free_now(kmm);
}

static void uwk_kmm_rcu_cb(struct rcu_head *rcu)
{
	struct uwk_kmm *kmm = container_of(rcu, struct uwk_kmm, rcu);

	llist_add(&kmm->free_node, &uwk_free_list);
	queue_work(uwk_wq, &uwk_free_work);
}

/* One executable mapping found by the scan. */
struct uwk_vma_snap {
	u64 start, end, pgoff;
	struct file *file;
	bool vdso;
	const void *vdso_key;	/* the vDSO's special mapping */
};

static struct uwk_kmm *uwk_kmm_alloc(u32 n)
{
	size_t size = sizeof(struct uwk_kmm) +
		      n * (sizeof(struct uwk_kmap) + sizeof(struct uw_module));
	struct uwk_kmm *kmm = uwk_nomem(kvzalloc(size, UWK_GFP));

	if (!kmm)
		return NULL;
	kmm->bytes = size;
	kmm->maps = (struct uwk_kmap *)(kmm + 1);
	kmm->mods = (struct uw_module *)(kmm->maps + n);
	return kmm;
}

/*
 * The vDSO of task, mapped at v: its table (installed for its build-id),
 * as for a file mapped at v from offset 0 (the image maps whole).
 */
static void uwk_kmm_fill_vdso(struct uwk_kmm *kmm, u32 i,
			      struct task_struct *task, struct uwk_vma_snap *v,
			      kuid_t uid)
{
	struct uwk_kfile *kf;

	strscpy(kmm->maps[i].name, "[vdso]", sizeof(kmm->maps[i].name));
	kf = uwk_vdso_kfile(task, v->start, v->end, v->vdso_key, uid);
	if (!kf)
		return;
	kmm->maps[i].kf = kf;
	uwk_req_ask(kf, task_tgid(task), uid, v->start, v->end);
	kmm->mods[i].sframe = uwk_kfile_sframe(kf, v->start, 0,
					       &kmm->mods[i].bias);
}

/* Fill mapping i of kmm from a snapshot (consumes the file reference). */
static void uwk_kmm_fill(struct uwk_kmm *kmm, u32 i, struct task_struct *task,
			 struct uwk_vma_snap *v, kuid_t uid)
{
	struct uwk_kfile *kf;

	kmm->mods[i].start = v->start;
	kmm->mods[i].end = v->end;
	kmm->mods[i].sframe = NULL;
	kmm->mods[i].ehabi = NULL;
	kmm->mods[i].bias = 0;
	if (v->vdso) {
		uwk_kmm_fill_vdso(kmm, i, task, v, uid);
		return;
	}
	if (!v->file) {
		strscpy(kmm->maps[i].name, "[anon]", sizeof(kmm->maps[i].name));
		return;
	}
	kf = uwk_kfile_get(v->file, uid);
	snprintf(kmm->maps[i].name, sizeof(kmm->maps[i].name), "%pD",
		 v->file);
	fput(v->file);
	kmm->maps[i].kf = kf;
	uwk_req_ask(kf, task_tgid(task), uid, v->start, v->end);
	kmm->mods[i].sframe = uwk_kfile_sframe(kf, v->start,
					       v->pgoff << PAGE_SHIFT,
					       &kmm->mods[i].bias);
	/* A 32-bit ARM file (arm64's compat tasks) has EHABI tables instead. */
	if (!kmm->mods[i].sframe)
		kmm->mods[i].ehabi = uwk_kfile_ehabi(kf, v->start,
						     v->pgoff << PAGE_SHIFT,
						     &kmm->mods[i].bias);
}

/*
 * Tag the mappings of a new scan for the hook's caches: each mapping of a
 * file (or the vDSO) a tag of its own, which no other mapping, earlier
 * scan or process ever had, as cache_id (its high half) and cache_gen.
 * A rescan (a library swapped at the same address, tables installed)
 * thus invalidates every entry of the process at once, in every CPU's
 * cache, with no write to any of them.  Anonymous mappings (JIT code,
 * which may change in place) get none: their frames are never cached.
 */
static void uwk_kmm_cache_ids(struct uwk_kmm *kmm)
{
	u64 tag = uwk_cache_ids(kmm->n);
	u32 i;

	for (i = 0; i < kmm->n; i++, tag++) {
		if (!kmm->maps[i].kf)
			continue;
		kmm->mods[i].cache_id = upper_32_bits(tag);
		kmm->mods[i].cache_gen = lower_32_bits(tag);
	}
}

/* Snapshot the executable file mappings of mm; returns how many. */
static u32 uwk_snap_vmas(struct mm_struct *mm, struct uwk_vma_snap *snap,
			 int *map_count)
{
	struct vm_area_struct *vma;
	u32 n = 0;

	mmap_read_lock(mm);
	*map_count = mm->map_count;
	uwk_for_each_vma(mm, vma) {
		/*
		 * Anonymous executable mappings (JIT code) are kept too,
		 * without a table: a pc there is known, and does not ask for a
		 * rescan with every sample.  The vDSO has the table installed
		 * for it, if any.
		 */
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (n == UWK_MAX_MAPS)
			break;
		snap[n].start = vma->vm_start;
		snap[n].end = vma->vm_end;
		snap[n].pgoff = vma->vm_pgoff;
		snap[n].file = vma->vm_file ? get_file(vma->vm_file) : NULL;
		snap[n].vdso = uwk_vma_is_vdso(vma);
		snap[n].vdso_key = snap[n].vdso ? vma->vm_private_data : NULL;
		n++;
	}
	mmap_read_unlock(mm);
	return n;
}

static void uwk_kmm_check_retable(struct uwk_kmm *kmm);

/* Build and publish the table of task's address space mm. */
void uwk_scan_mm(struct task_struct *task, struct mm_struct *mm,
		 unsigned long asked)
{
	kuid_t uid = task_uid(task);	/* who is charged for new tables */
	struct uwk_vma_snap *snap;
	struct uwk_kmm *kmm, *old;
	unsigned long seq;
	int map_count;
	unsigned long inst_gen = uwk_inst_gen();
	u32 i, n;

	/* A scan started after the request already answered it. */
	rcu_read_lock();
	old = uwk_kmm_find(mm);
	if (old && old->seq > asked) {
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	seq = uwk_next_seq();

	uwk_arch_scan(task, mm);
	snap = uwk_nomem(kvmalloc_array(UWK_MAX_MAPS, sizeof(*snap), UWK_GFP));
	if (!snap)
		return;
	n = uwk_snap_vmas(mm, snap, &map_count);
	kmm = uwk_kmm_alloc(n);
	if (!kmm) {
		for (i = 0; i < n; i++)
			if (snap[i].file)
				fput(snap[i].file);
		kvfree(snap);
		return;
	}
	for (i = 0; i < n; i++)
		uwk_kmm_fill(kmm, i, task, &snap[i], uid);
	kvfree(snap);
	kmm->n = n;
	uwk_kmm_cache_ids(kmm);
	kmm->mm = mm;
	mmgrab(mm);
	kmm->tgid = task->tgid;
	get_task_comm(kmm->comm, task);
	kmm->scanned = jiffies;
	kmm->seq = seq;
	kmm->map_count = map_count;
	kmm->inst_gen = inst_gen;
	atomic_long_add(kmm->bytes, &uwk_bytes_held);
	atomic_inc(&uwk_nr_mms);
	uwk_stat_inc(UWK_ST_SCANS);

	mutex_lock(&uwk_mm_lock);
	old = uwk_kmm_find_locked(mm);
	if (old && old->seq > seq) {
		/* A scan that started later published first: it is newer. */
		mutex_unlock(&uwk_mm_lock);
		uwk_kmm_free_now(kmm);
		return;
	}
	/* A mapping unmapped after this scan read them: still stale. */
	if (old && READ_ONCE(old->stale_seq) > seq)
		kmm->stale_seq = old->stale_seq;
	if (old)
		hlist_replace_rcu(&old->node, &kmm->node);
	else
		hash_add_rcu(uwk_mm_hash, &kmm->node, (unsigned long)mm);
	rcu_read_lock();
	mutex_unlock(&uwk_mm_lock);
	if (old)
		call_rcu(&old->rcu, uwk_kmm_rcu_cb);
	uwk_kmm_check_retable(kmm);
	rcu_read_unlock();
}

/*
 * A file's table may have been installed while kmm was being made, after
 * its file was looked up (the agent's answer marks the files first, then
 * the published processes): a kmm published with such a file is marked
 * as uwk_kmm_retable() would have marked it.  Under RCU (kmm may be
 * replaced meanwhile).
 */
static void uwk_kmm_check_retable(struct uwk_kmm *kmm)
{
	u32 i;

	smp_mb();	/* published before the files' marks are read */
	for (i = 0; i < kmm->n; i++) {
		if (uwk_kfile_retrying(kmm->maps[i].kf)) {
			WRITE_ONCE(kmm->retable, true);
			return;
		}
	}
}

/*
 * A walk broke at a pc in mapping module of kmm, for want of a table row:
 * count it against the mapping's file (true), or leave it to the caller
 * (false: an anonymous mapping, or none).  Runs in the hook, under RCU:
 * the file lives until kmm is freed after a grace period.
 */
bool uwk_kmm_note_break(const struct uwk_kmm *kmm, u16 module)
{
	struct uwk_kfile *kf = module < kmm->n ? kmm->maps[module].kf : NULL;

	if (!kf)
		return false;
	uwk_kfile_note_break(kf);
	return true;
}

/* ---- garbage collection ---- */

void uwk_gc(void)
{
	struct hlist_node *tmp;
	struct uwk_kmm *kmm;
	int bkt;

	mutex_lock(&uwk_mm_lock);
	hash_for_each_safe(uwk_mm_hash, bkt, tmp, kmm, node) {
		if (atomic_read(&kmm->mm->mm_users))
			continue;
		hash_del_rcu(&kmm->node);
		call_rcu(&kmm->rcu, uwk_kmm_rcu_cb);
	}
	mutex_unlock(&uwk_mm_lock);
}

static void uwk_gc_work_fn(struct work_struct *w)
{
	uwk_gc();
	uwk_files_gc(false);
}

/* Wait for the frees queued so far (debugfs "gc" wants them done). */
void uwk_tables_flush(void)
{
	flush_workqueue(uwk_wq);
}

void uwk_gc_soon(void)
{
	queue_delayed_work(uwk_wq, &uwk_gc_work, msecs_to_jiffies(100));
}

/*
 * Whether the process's mappings or their tables changed since kmm was
 * scanned: mappings added or removed (map_count, read racily: a hint),
 * one unmapped (stale_seq), tables installed since (the generation), or
 * one of its files' installed by the agent since (retable).  Any context.
 */
bool uwk_kmm_changed(const struct uwk_kmm *kmm, struct mm_struct *mm)
{
	return READ_ONCE(mm->map_count) != kmm->map_count ||
	       READ_ONCE(kmm->stale_seq) || kmm->inst_gen != uwk_inst_gen() ||
	       READ_ONCE(kmm->retable);
}

/*
 * The agent installed a table for a file (files.c marked its tables to be
 * looked up again): each process that maps it is rescanned at its next
 * sample.  Task context.
 */
void uwk_kmm_retable(void)
{
	struct uwk_kmm *kmm;
	int bkt;
	u32 i;

	rcu_read_lock();
	hash_for_each_rcu(uwk_mm_hash, bkt, kmm, node) {
		for (i = 0; i < kmm->n; i++) {
			if (uwk_kfile_retrying(kmm->maps[i].kf)) {
				WRITE_ONCE(kmm->retable, true);
				break;
			}
		}
	}
	rcu_read_unlock();
}

/*
 * Ask the agent again for every registered mapping whose file wants a
 * table (uwk_req_ask() drops what it has asked already): when the agent
 * starts, and after requests were dropped for want of room or their
 * process went away.  A process is asked for as the process whose
 * number kmm holds, if that is still its address space.  Task context.
 */
void uwk_kmm_each_need(void)
{
	struct task_struct *task;
	struct uwk_kmm *kmm;
	u32 flags, i;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(uwk_mm_hash, bkt, kmm, node) {
		task = pid_task(find_pid_ns(kmm->tgid, &init_pid_ns),
				PIDTYPE_TGID);
		if (!task || READ_ONCE(task->mm) != kmm->mm)
			continue;
		for (i = 0; i < kmm->n; i++)
			if (uwk_kfile_need(kmm->maps[i].kf, &flags))
				uwk_req_ask(kmm->maps[i].kf, task_tgid(task),
					    task_uid(task), kmm->mods[i].start,
					    kmm->mods[i].end);
	}
	rcu_read_unlock();
}

/* Whether an executable mapping of kmm overlaps [start, end). */
bool uwk_kmm_covers(const struct uwk_kmm *kmm, u64 start, u64 end)
{
	u32 i;

	for (i = 0; i < kmm->n; i++)
		if (kmm->mods[i].start < end && start < kmm->mods[i].end)
			return true;
	return false;
}

/* ---- debugfs listing ---- */

void uwk_tables_show(struct seq_file *m)
{
	struct uwk_kmm *kmm;
	u32 i;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(uwk_mm_hash, bkt, kmm, node) {
		seq_printf(m, "pid %d %s%s\n", kmm->tgid, kmm->comm,
			   READ_ONCE(kmm->stale_seq) ? " stale" : "");
		for (i = 0; i < kmm->n; i++) {
			struct uwk_kfile *kf = kmm->maps[i].kf;
			const char *req = NULL;
			u32 flags;

			if (uwk_kfile_need(kf, &flags))
				req = uwk_req_state(uwk_kfile_kid(kf));
			seq_printf(m, "  %llx-%llx %s %s%s%s\n",
				   kmm->mods[i].start, kmm->mods[i].end,
				   kmm->maps[i].name, uwk_kfile_state(kf),
				   req ? " " : "", req ?: "");
		}
	}
	rcu_read_unlock();
}

/* ---- load and unload ---- */

int uwk_registry_init(void)
{
	uwk_wq = uwk_nomem(alloc_workqueue("uwind", WQ_UNBOUND, 0));
	return uwk_wq ? 0 : -ENOMEM;
}

/* Called once the hook and the events can no longer run. */
void uwk_registry_exit(void)
{
	struct hlist_node *tmp;
	struct uwk_kmm *kmm;
	int bkt;

	/*
	 * Pending scans publish, then stop; they may schedule a collection,
	 * so it is cancelled after them (before, it could be queued again
	 * and fire on the destroyed workqueue).
	 */
	flush_workqueue(uwk_wq);
	cancel_delayed_work_sync(&uwk_gc_work);

	mutex_lock(&uwk_mm_lock);
	hash_for_each_safe(uwk_mm_hash, bkt, tmp, kmm, node) {
		hash_del_rcu(&kmm->node);
		call_rcu(&kmm->rcu, uwk_kmm_rcu_cb);
	}
	mutex_unlock(&uwk_mm_lock);
	rcu_barrier();			/* every callback has queued its free */
	flush_workqueue(uwk_wq);
	destroy_workqueue(uwk_wq);
	uwk_vdso_exit();
	uwk_files_exit();
}
