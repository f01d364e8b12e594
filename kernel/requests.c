// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The agent's requests: files that a scan found without the table they
 * want (no PT_GNU_SFRAME and none installed, or an installed one
 * refused), for `uwind agent` to make from their DWARF CFI and install
 * (the device it reads them from: dev.c; the records: uwind_uapi.h).
 *
 * A request names the file by a process that maps it and the mapping's
 * range, which the agent opens as /proc/PID/map_files/START-END: the very
 * file mapped, in whatever mount namespace, even deleted or replaced
 * since; never a path.  It holds a reference to the process's struct pid,
 * not its number, so a process gone is seen as gone, not as whichever
 * process has its number now (another process mapping the file is then
 * asked for instead: uwk_kmm_each_need()).
 *
 * Any user can make a scan ask (run a program), so what requests hold is
 * bounded by construction: a pool of UWK_REQ_POOL entries allocated at
 * load, of which at most UWK_REQ_PENDING are queued or with the agent,
 * at most UWK_REQ_USER of them one uid's (the uid of the process whose
 * scan asked), from at most UWK_REQ_USERS uids at once.  A request that
 * does not fit is dropped and counted; once there is room again every
 * registered mapping whose file still wants a table is asked for again
 * (a refill, at most once a second).  The agent is handed the queued
 * requests round-robin between uids, so one user's thousand files do not
 * come before another user's first.  One request per file (the same
 * inode, unchanged: struct uwk_kid), whatever the processes mapping it.
 *
 * The answers are remembered in the rest of the pool, the oldest given up
 * first when room is needed: a file the agent could not make a table for
 * is not asked for again for the time the agent says (a malformed file
 * is not converted again at every scan); a file it made one for, for
 * UWK_REQ_DONE_S, so that a table made and then refused by the module
 * (the file changed while it was converted) is not made again and again
 * (failed, "refused").  A request the agent was given and did not answer
 * (it stopped or died) goes back to its user's queue, first.
 *
 * Everything here runs in task context: scans (the module's workqueue,
 * or a deferred walk's task), the device's read and ioctl.  Never from
 * the NMI hook, which only asks for scans (events.c).  One spinlock, taken
 * inside RCU read sections (the refill walks the registry under RCU) and
 * never around anything that sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "uwind_kmod.h"

#define UWK_REQ_POOL		1024	/* requests and answers kept */
#define UWK_REQ_PENDING		512	/* ... queued or with the agent */
#define UWK_REQ_USER		64	/* ... of them one uid's */
#define UWK_REQ_USERS		64	/* uids with requests pending */
#define UWK_REQ_SENT_S		300	/* the agent's: back to the queue after */
#define UWK_REQ_DONE_S		60	/* an answered request kept */
#define UWK_REQ_RETRY_MAX_S	86400	/* longest "not again before" */
#define UWK_REQ_REFUSED_S	600	/* a table made, then refused */

enum uwk_rq_state {
	UWK_RQ_FREE, UWK_RQ_QUEUED, UWK_RQ_SENT, UWK_RQ_INSTALLED,
	UWK_RQ_FAILED,
};

struct uwk_req {
	struct hlist_node hnode;	/* uwk_req_hash, unless free */
	/* Its user's queue, uwk_req_sent, uwk_req_kept or uwk_req_free. */
	struct list_head node;
	struct uwk_kid kid;
	u64 id;
	struct pid *pid;		/* queued or sent: the process asked for */
	u64 start, end;
	kuid_t uid;
	u32 why, flags;			/* UWIND_WHY_*, UWIND_REQ_* */
	u8 state;			/* enum uwk_rq_state */
	u8 result;			/* failed: UWIND_DONE_* */
	u8 user;			/* pending: its uwk_req_users slot */
	unsigned long when;		/* jiffies: queued, sent or answered */
	unsigned long until;		/* failed: not asked for before */
	unsigned long seq;		/* installed: scan order when answered */
};

/* The requests one uid has pending; a slot with none is free. */
struct uwk_req_user {
	kuid_t uid;
	struct list_head queue;		/* queued, oldest first */
	unsigned int pending;		/* queued or sent */
};

enum uwk_rq_stat {
	UWK_RS_QUEUED, UWK_RS_SENT, UWK_RS_INSTALLED, UWK_RS_FAILED,
	UWK_RS_REFUSED, UWK_RS_GONE, UWK_RS_DROPPED, UWK_RS_REQUEUED,
	UWK_RS_REFILLS, UWK_RS_COUNT,
};

static const char *const uwk_rs_names[UWK_RS_COUNT] = {
	"requests_queued", "requests_sent", "requests_installed",
	"requests_failed", "requests_refused", "requests_gone",
	"requests_dropped", "requests_requeued", "requests_refills",
};

static const char *const uwk_done_names[UWIND_DONE_COUNT] = {
	[UWIND_DONE_OK] = "installed",
	[UWIND_DONE_GONE] = "gone",
	[UWIND_DONE_NO_CFI] = "failed:no-cfi",
	[UWIND_DONE_NO_ID] = "failed:no-identity",
	[UWIND_DONE_TOO_BIG] = "failed:too-big",
	[UWIND_DONE_FAILED] = "failed:conversion",
	[UWIND_DONE_TIMEOUT] = "failed:timeout",
	[UWIND_DONE_BUDGET] = "failed:user-budget",
	[UWIND_DONE_STORE_FULL] = "failed:store-full",
	[UWIND_DONE_REFUSED] = "failed:refused",
};

static DEFINE_SPINLOCK(uwk_req_lock);
static struct uwk_req *uwk_req_pool;
static struct uwk_req_user uwk_req_users[UWK_REQ_USERS];
static DEFINE_HASHTABLE(uwk_req_hash, 8);
static LIST_HEAD(uwk_req_free);
static LIST_HEAD(uwk_req_sent);
static LIST_HEAD(uwk_req_kept);		/* answered, oldest first */
static unsigned int uwk_req_pending, uwk_req_pending_max, uwk_req_queued;
static unsigned int uwk_req_user_max;	/* the most one uid had pending */
static unsigned int uwk_req_next_user;	/* round-robin */
static u64 uwk_req_next_id = 1;
static void *uwk_req_owner;		/* the agent's open file */
static bool uwk_req_want_refill;	/* dropped or gone since the last */
static unsigned long uwk_req_stats[UWK_RS_COUNT];

DECLARE_WAIT_QUEUE_HEAD(uwk_req_wait);

static void uwk_req_refill_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(uwk_req_refill_work, uwk_req_refill_fn);

/* The hash table's key of a file (hash_add() hashes it). */
static u64 uwk_kid_key(const struct uwk_kid *id)
{
	return id->vdso_id_len ? get_unaligned_le64(id->vdso_id) :
	       id->ino ^ ((u64)id->dev << 32);
}

static struct uwk_req *uwk_req_find(const struct uwk_kid *id)
{
	struct uwk_req *r;

	lockdep_assert_held(&uwk_req_lock);
	hash_for_each_possible(uwk_req_hash, r, hnode, uwk_kid_key(id))
		if (uwk_kid_eq(&r->kid, id))
			return r;
	return NULL;
}

static bool uwk_req_is_pending(const struct uwk_req *r)
{
	return r->state == UWK_RQ_QUEUED || r->state == UWK_RQ_SENT;
}

/* r no longer pending: its counts given back (still listed somewhere). */
static void uwk_req_unpend(struct uwk_req *r)
{
	if (r->state == UWK_RQ_QUEUED)
		uwk_req_queued--;
	uwk_req_pending--;
	uwk_req_users[r->user].pending--;
	put_pid(r->pid);
	r->pid = NULL;
}

/* Forget r: back to the free list. */
static void uwk_req_forget(struct uwk_req *r)
{
	lockdep_assert_held(&uwk_req_lock);
	if (uwk_req_is_pending(r))
		uwk_req_unpend(r);
	hash_del(&r->hnode);
	list_move(&r->node, &uwk_req_free);
	r->state = UWK_RQ_FREE;
}

/* A free entry: a free one, else the oldest answer given up; or NULL. */
static struct uwk_req *uwk_req_alloc(void)
{
	struct uwk_req *r;

	if (list_empty(&uwk_req_free)) {
		r = list_first_entry_or_null(&uwk_req_kept, struct uwk_req,
					     node);
		if (!r)
			return NULL;
		uwk_req_forget(r);
	}
	return list_first_entry(&uwk_req_free, struct uwk_req, node);
}

/* uid's slot, claimed if it has none: its index, or -1 if none is free. */
static int uwk_req_user_slot(kuid_t uid)
{
	int i, free = -1;

	for (i = 0; i < UWK_REQ_USERS; i++) {
		if (!uwk_req_users[i].pending) {
			if (free < 0)
				free = i;
		} else if (uid_eq(uwk_req_users[i].uid, uid)) {
			return i;
		}
	}
	if (free >= 0)
		uwk_req_users[free].uid = uid;
	return free;
}

/*
 * Whether an earlier request for the file of kf, r, answers this one
 * (nothing to queue); else r is forgotten and the caller queues anew.
 */
static bool uwk_req_answers(struct uwk_req *r, const struct uwk_kfile *kf)
{
	if (uwk_req_is_pending(r))
		return true;
	if (r->state == UWK_RQ_FAILED && time_before(jiffies, r->until))
		return true;
	if (r->state == UWK_RQ_INSTALLED &&
	    time_before(jiffies, r->when + UWK_REQ_DONE_S * HZ)) {
		/*
		 * Loaded after the answer, and still without a usable table:
		 * the module refused what the agent made (the file changed
		 * while it was read).  Made again, it would be refused again.
		 * A lookup made before the answer says nothing.
		 */
		if (uwk_kfile_seq(kf) > r->seq) {
			r->state = UWK_RQ_FAILED;
			r->result = UWIND_DONE_REFUSED;
			r->when = jiffies;
			r->until = jiffies + UWK_REQ_REFUSED_S * HZ;
			list_move_tail(&r->node, &uwk_req_kept);
			uwk_req_stats[UWK_RS_REFUSED]++;
		}
		return true;
	}
	uwk_req_forget(r);
	return false;
}

/* Queue a request for kf's file in r, for uid's slot u. */
static void uwk_req_queue(struct uwk_req *r, int u, const struct uwk_kfile *kf,
			  u32 why, u32 flags, struct pid *pid, u64 start,
			  u64 end)
{
	r->kid = *uwk_kfile_kid(kf);
	r->id = uwk_req_next_id++;
	r->pid = get_pid(pid);
	r->start = start;
	r->end = end;
	r->uid = uwk_req_users[u].uid;
	r->why = why;
	r->flags = flags;
	r->state = UWK_RQ_QUEUED;
	r->user = u;
	r->when = jiffies;
	hash_add(uwk_req_hash, &r->hnode, uwk_kid_key(&r->kid));
	list_move_tail(&r->node, &uwk_req_users[u].queue);
	if (++uwk_req_users[u].pending > uwk_req_user_max)
		uwk_req_user_max = uwk_req_users[u].pending;
	uwk_req_queued++;
	if (++uwk_req_pending > uwk_req_pending_max)
		uwk_req_pending_max = uwk_req_pending;
	uwk_req_stats[UWK_RS_QUEUED]++;
}

void uwk_req_ask(const struct uwk_kfile *kf, struct pid *pid, kuid_t uid,
		 u64 start, u64 end)
{
	u32 flags, why = uwk_kfile_need(kf, &flags);
	struct uwk_req *r;
	bool queued = false;
	int u;

	if (!why || !pid || !uwk_req_pool)
		return;
	spin_lock(&uwk_req_lock);
	r = uwk_req_find(uwk_kfile_kid(kf));
	if (r && uwk_req_answers(r, kf))
		goto out;
	u = uwk_req_user_slot(uid);
	r = uwk_req_pending < UWK_REQ_PENDING && u >= 0 &&
	    uwk_req_users[u].pending < UWK_REQ_USER ? uwk_req_alloc() : NULL;
	if (!r) {
		uwk_req_stats[UWK_RS_DROPPED]++;
		uwk_req_want_refill = true;
		goto out;
	}
	uwk_req_queue(r, u, kf, why, flags, pid, start, end);
	queued = true;
out:
	spin_unlock(&uwk_req_lock);
	if (queued)
		wake_up_interruptible(&uwk_req_wait);
}

/* ---- the agent ---- */

static void uwk_req_refill_fn(struct work_struct *w)
{
	spin_lock(&uwk_req_lock);
	uwk_req_stats[UWK_RS_REFILLS]++;
	spin_unlock(&uwk_req_lock);
	uwk_kmm_each_need();
}

/*
 * Requests were dropped (no room) or forgotten (their process gone): once
 * fewer than half the pending requests are left, every mapping that still
 * wants a table is asked for again, at most once a second.
 */
static void uwk_req_refill_check(void)
{
	bool due;

	spin_lock(&uwk_req_lock);
	due = uwk_req_want_refill && uwk_req_owner &&
	      uwk_req_pending < UWK_REQ_PENDING / 2;
	if (due)
		uwk_req_want_refill = false;
	spin_unlock(&uwk_req_lock);
	if (due)
		uwk_queue_delayed_work(&uwk_req_refill_work, HZ);
}

int uwk_req_agent(void *owner)
{
	spin_lock(&uwk_req_lock);
	if (uwk_req_owner) {
		spin_unlock(&uwk_req_lock);
		return -EBUSY;
	}
	uwk_req_owner = owner;
	uwk_req_want_refill = false;
	spin_unlock(&uwk_req_lock);
	/* What is registered already: processes running before the agent. */
	uwk_kmm_each_need();
	return 0;
}

bool uwk_req_is_agent(const void *owner)
{
	return owner && READ_ONCE(uwk_req_owner) == owner;
}

/* r, which was with the agent, first in its user's queue again. */
static void uwk_req_requeue(struct uwk_req *r)
{
	r->state = UWK_RQ_QUEUED;
	r->when = jiffies;
	list_move(&r->node, &uwk_req_users[r->user].queue);
	uwk_req_queued++;
	uwk_req_stats[UWK_RS_REQUEUED]++;
}

void uwk_req_agent_gone(void *owner)
{
	struct uwk_req *r, *tmp;

	spin_lock(&uwk_req_lock);
	if (uwk_req_owner != owner) {
		spin_unlock(&uwk_req_lock);
		return;
	}
	uwk_req_owner = NULL;
	list_for_each_entry_safe_reverse(r, tmp, &uwk_req_sent, node)
		uwk_req_requeue(r);
	spin_unlock(&uwk_req_lock);
}

/* Requests with the agent for longer than UWK_REQ_SENT_S: queued again. */
static void uwk_req_expire_sent(void)
{
	struct uwk_req *r, *tmp;

	list_for_each_entry_safe(r, tmp, &uwk_req_sent, node)
		if (time_after(jiffies, r->when + UWK_REQ_SENT_S * HZ))
			uwk_req_requeue(r);
}

/* The next uid's oldest queued request, round-robin; or NULL. */
static struct uwk_req *uwk_req_next(void)
{
	struct uwk_req_user *u;
	unsigned int i;

	for (i = 0; i < UWK_REQ_USERS; i++) {
		u = &uwk_req_users[(uwk_req_next_user + i) % UWK_REQ_USERS];
		if (list_empty(&u->queue))
			continue;
		uwk_req_next_user = (uwk_req_next_user + i + 1) % UWK_REQ_USERS;
		return list_first_entry(&u->queue, struct uwk_req, node);
	}
	return NULL;
}

static void uwk_req_record(const struct uwk_req *r, pid_t nr,
			   struct uwind_req *out)
{
	memset(out, 0, sizeof(*out));
	out->id = r->id;
	out->start = r->start;
	out->end = r->end;
	out->ino = r->kid.ino;
	out->size = r->kid.size;
	out->mtime_sec = r->kid.mtime.tv_sec;
	out->mtime_nsec = r->kid.mtime.tv_nsec;
	out->dev_major = MAJOR(r->kid.dev);
	out->dev_minor = MINOR(r->kid.dev);
	out->pid = nr;
	out->uid = from_kuid_munged(&init_user_ns, r->uid);
	out->why = r->why;
	out->flags = r->flags;
}

/*
 * Up to max queued requests into out, now with the agent: how many.  A
 * request whose process is gone, or not visible from the agent's pid
 * namespace, is forgotten (another process mapping its file is asked for
 * at the next refill).
 */
ssize_t uwk_req_take(struct uwind_req *out, size_t max)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct uwk_req *r;
	size_t n = 0;
	pid_t nr;

	rcu_read_lock();
	spin_lock(&uwk_req_lock);
	uwk_req_expire_sent();
	while (n < max && (r = uwk_req_next())) {
		nr = pid_task(r->pid, PIDTYPE_TGID) ? pid_nr_ns(r->pid, ns) : 0;
		if (!nr) {
			uwk_req_stats[UWK_RS_GONE]++;
			uwk_req_want_refill = true;
			uwk_req_forget(r);
			continue;
		}
		uwk_req_record(r, nr, &out[n++]);
		r->state = UWK_RQ_SENT;
		r->when = jiffies;
		uwk_req_queued--;
		list_move_tail(&r->node, &uwk_req_sent);
		uwk_req_stats[UWK_RS_SENT]++;
	}
	spin_unlock(&uwk_req_lock);
	rcu_read_unlock();
	uwk_req_refill_check();
	return n;
}

/* Requests taken by uwk_req_take() that did not reach the agent. */
void uwk_req_untake(const struct uwind_req *out, size_t n)
{
	struct uwk_req *r, *tmp;
	size_t i;

	spin_lock(&uwk_req_lock);
	for (i = 0; i < n; i++)
		list_for_each_entry_safe(r, tmp, &uwk_req_sent, node)
			if (r->id == out[i].id)
				uwk_req_requeue(r);
	spin_unlock(&uwk_req_lock);
}

bool uwk_req_ready(void)
{
	return READ_ONCE(uwk_req_queued) > 0;
}

/* The pending request with this id, or NULL. */
static struct uwk_req *uwk_req_by_id(u64 id)
{
	unsigned int i;

	for (i = 0; i < UWK_REQ_POOL; i++)
		if (uwk_req_is_pending(&uwk_req_pool[i]) &&
		    uwk_req_pool[i].id == id)
			return &uwk_req_pool[i];
	return NULL;
}

/* Remember r's answer (not OK, not GONE): failed, until retry_s pass. */
static void uwk_req_failed(struct uwk_req *r, const struct uwind_done *d)
{
	uwk_req_unpend(r);
	r->state = UWK_RQ_FAILED;
	r->result = d->result;
	r->when = jiffies;
	r->until = jiffies + min_t(u32, d->retry_s, UWK_REQ_RETRY_MAX_S) * HZ;
	list_move_tail(&r->node, &uwk_req_kept);
	uwk_req_stats[UWK_RS_FAILED]++;
}

/*
 * The agent's answer to request d->id: 0, -ENOENT (no such request
 * pending: answered already, or queued again since), -EINVAL (a result
 * that is none of UWIND_DONE_*).  A table installed: the file's tables
 * are looked up again and the processes that map it are rescanned at
 * their next sample.
 */
int uwk_req_done(const struct uwind_done *d)
{
	struct uwk_kid kid;
	struct uwk_req *r;

	if (d->result >= UWIND_DONE_COUNT || d->result == UWIND_DONE_REFUSED)
		return -EINVAL;
	spin_lock(&uwk_req_lock);
	r = uwk_req_by_id(d->id);
	if (!r) {
		spin_unlock(&uwk_req_lock);
		return -ENOENT;
	}
	kid = r->kid;
	if (d->result == UWIND_DONE_OK) {
		uwk_req_unpend(r);
		r->state = UWK_RQ_INSTALLED;
		r->when = jiffies;
		/* Before the files are marked: what is loaded later is newer. */
		r->seq = uwk_next_seq();
		list_move_tail(&r->node, &uwk_req_kept);
		uwk_req_stats[UWK_RS_INSTALLED]++;
	} else if (d->result == UWIND_DONE_GONE) {
		uwk_req_stats[UWK_RS_GONE]++;
		uwk_req_want_refill = true;
		uwk_req_forget(r);
	} else {
		uwk_req_failed(r, d);
	}
	spin_unlock(&uwk_req_lock);
	if (d->result == UWIND_DONE_OK) {
		if (kid.vdso_id_len)
			uwk_vdso_forget();
		uwk_kfile_retry(&kid);
		uwk_kmm_retable();
	}
	uwk_req_refill_check();
	return 0;
}

/*
 * Tables were installed by hand (UWIND_IOC_RESCAN, debugfs "installed"):
 * every file is looked up again, so no remembered answer holds any more.
 */
void uwk_req_rescan(void)
{
	struct uwk_req *r, *tmp;

	spin_lock(&uwk_req_lock);
	list_for_each_entry_safe(r, tmp, &uwk_req_kept, node)
		uwk_req_forget(r);
	spin_unlock(&uwk_req_lock);
}

/*
 * What became of the request for the file id (the status text's word
 * after a mapping's state): "requested" (queued), "converting" (with the
 * agent), "installed" (answered; the process's next sample rescans it),
 * "failed:WHY", or "unrequested" (dropped for want of room, or no scan
 * asked yet).  Any task context, RCU read sections included.
 */
const char *uwk_req_state(const struct uwk_kid *id)
{
	const char *s = "unrequested";
	struct uwk_req *r;

	spin_lock(&uwk_req_lock);
	r = uwk_req_pool ? uwk_req_find(id) : NULL;
	if (r && r->state == UWK_RQ_QUEUED)
		s = "requested";
	else if (r && r->state == UWK_RQ_SENT)
		s = "converting";
	else if (r && r->state == UWK_RQ_INSTALLED)
		s = "installed";
	else if (r && r->state == UWK_RQ_FAILED)
		s = uwk_done_names[r->result];
	spin_unlock(&uwk_req_lock);
	return s;
}

/* The counters, and what is pending now (debugfs "stats", the device). */
void uwk_req_show(struct seq_file *m)
{
	unsigned long st[UWK_RS_COUNT];
	unsigned int pending, max, queued, umax, users = 0, i;
	bool agent;

	spin_lock(&uwk_req_lock);
	memcpy(st, uwk_req_stats, sizeof(st));
	pending = uwk_req_pending;
	max = uwk_req_pending_max;
	queued = uwk_req_queued;
	umax = uwk_req_user_max;
	agent = uwk_req_owner;
	for (i = 0; i < UWK_REQ_USERS; i++)
		users += !!uwk_req_users[i].pending;
	spin_unlock(&uwk_req_lock);
	for (i = 0; i < UWK_RS_COUNT; i++)
		seq_printf(m, "%s %lu\n", uwk_rs_names[i], st[i]);
	seq_printf(m, "requests_pending %u\nrequests_pending_max %u\n",
		   pending, max);
	seq_printf(m, "requests_user_pending_max %u\n", umax);
	seq_printf(m, "requests_waiting %u\nrequests_users %u\nagent %d\n",
		   queued, users, agent);
}

/* ---- load and unload ---- */

int uwk_req_init(void)
{
	unsigned int i;

	uwk_req_pool = uwk_nomem(kvcalloc(UWK_REQ_POOL, sizeof(*uwk_req_pool),
				UWK_GFP));
	if (!uwk_req_pool)
		return -ENOMEM;
	for (i = 0; i < UWK_REQ_POOL; i++)
		list_add_tail(&uwk_req_pool[i].node, &uwk_req_free);
	for (i = 0; i < UWK_REQ_USERS; i++)
		INIT_LIST_HEAD(&uwk_req_users[i].queue);
	atomic_long_add(UWK_REQ_POOL * sizeof(*uwk_req_pool), &uwk_bytes_held);
	return 0;
}

/* The refill: before the registry goes (the device is gone already). */
void uwk_req_stop(void)
{
	cancel_delayed_work_sync(&uwk_req_refill_work);
}

/* Once no scan can run: the requests' references, and the pool. */
void uwk_req_exit(void)
{
	unsigned int i;

	for (i = 0; i < UWK_REQ_POOL; i++)
		put_pid(uwk_req_pool[i].pid);
	atomic_long_sub(UWK_REQ_POOL * sizeof(*uwk_req_pool), &uwk_bytes_held);
	kvfree(uwk_req_pool);
	uwk_req_pool = NULL;
}
