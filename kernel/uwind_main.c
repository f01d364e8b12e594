// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind kernel module: correct user callchains for programs built without
 * frame pointers, from their SFrame tables, for every caller of the
 * kernel's perf_callchain_user(): perf samples of every event type, perf
 * trace --call-graph, BPF's bpf_get_stack() and bpf_get_stackid().  (Not
 * ftrace's userstacktrace, which walks user stacks itself.)
 *
 * insmod with no parameters is all it takes: from then on every process,
 * new or already running, is covered.  /dev/uwind (dev.c) is root's
 * interface: the agent's requests for tables, the status text.  For
 * statistics and tests, /sys/kernel/debug/uwind/ holds:
 *   enable   Y/N, writable (the "enable" parameter's value)
 *   stats    counters, "key value" lines
 *   tables   each registered process and its executable mappings
 *   users    each uid holding tables: "uid bytes"
 *   breaks   the files where walks broke for want of a table, "count
 *            path", most frequent first
 *   caches   each CPU's unwind cache (hook.c): "cpu slots hits misses"
 *   hooks    the kernel functions the module diverts or traces, each
 *            "function state": what this kernel gave it (compat.h)
 *   gc       write anything: drop the tables of processes that are gone,
 *            and the installed tables kept for later (keep_s)
 *   installed  where installed tables are looked for, and those held;
 *            write anything (root: `uwind sframe --install` does) to
 *            have them looked for again (installed.c)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include "uwind_kmod.h"

bool uwk_enable = true;
module_param_named(enable, uwk_enable, bool, 0644);
MODULE_PARM_DESC(enable, "walk user callchains with uwind (default: yes)");

unsigned int uwk_max_table_kb = 64 * 1024;
module_param_named(max_table_kb, uwk_max_table_kb, uint, 0644);
MODULE_PARM_DESC(max_table_kb, "largest SFrame section accepted, KiB (default 65536)");

unsigned int uwk_max_total_mb = 256;
module_param_named(max_total_mb, uwk_max_total_mb, uint, 0644);
MODULE_PARM_DESC(max_total_mb, "kernel memory all tables may hold, MiB (default 256)");

/*
 * One uid's share: with the default, four users' tables fill the cap, and
 * no single user can leave the others' processes without tables.
 */
unsigned int uwk_max_user_pct = 25;
module_param_named(max_user_pct, uwk_max_user_pct, uint, 0644);
MODULE_PARM_DESC(max_user_pct, "share of max_total_mb the tables of one uid may hold, percent (default 25)");

unsigned int uwk_rescan_ms = 100;
module_param_named(rescan_ms, uwk_rescan_ms, uint, 0644);
MODULE_PARM_DESC(rescan_ms, "least time between two scans of a process, ms (default 100)");

/*
 * The unwind cache of each CPU (hook.c): 1024 slots, 48 KiB a CPU, hold
 * the rows of a few hundred hot return addresses.
 */
unsigned int uwk_cache_slots = 1024;
module_param_named(cache_slots, uwk_cache_slots, uint, 0444);
MODULE_PARM_DESC(cache_slots, "slots of each CPU's unwind cache, rounded down to a power of two, at most 65536; 0: no cache (default 1024)");

/*
 * The longest a walk may take (hook.c), sized for hardware: 1024 frames
 * at the 20-30 ns a cached frame and its user access should cost there
 * (an estimate from the user-space figures); an emulated walk (QEMU's
 * TCG) is 20-30 times slower, and longer ones are cut.
 */
unsigned int uwk_max_walk_us = 50;
module_param_named(max_walk_us, uwk_max_walk_us, uint, 0644);
MODULE_PARM_DESC(max_walk_us, "longest time one user callchain walk may take, microseconds, checked every 16 frames; 0: no limit (default 50)");

/*
 * The deferred walk's (deferred.c) limit: it runs in the task, on its way
 * back to user space, with interrupts on, so its time also counts every
 * interrupt taken meanwhile (under TCG a sample's own interrupt costs
 * hundreds of microseconds, and 2000 of them a second cut deep walks at
 * max_walk_us); it bounds how long the task runs with preemption off.
 */
unsigned int uwk_max_defer_walk_us = 500;
module_param_named(max_defer_walk_us, uwk_max_defer_walk_us, uint, 0644);
MODULE_PARM_DESC(max_defer_walk_us, "longest time one deferred user callchain walk (task context, interrupts on) may take, microseconds, checked every 16 frames; 0: no limit (default 500)");

/*
 * An installed table no process uses is kept this long (files.c), within
 * the caps: a table that needs its room frees it first.
 */
unsigned int uwk_keep_s = 300;
module_param_named(keep_s, uwk_keep_s, uint, 0644);
MODULE_PARM_DESC(keep_s, "seconds an installed table is kept after its last user exits, within max_total_mb; 0: not kept (default 300)");

static DEFINE_PER_CPU(unsigned long[UWK_ST_COUNT], uwk_stats);
static DEFINE_PER_CPU(unsigned long[UWK_KSTOP_COUNT], uwk_stops);

static const char *const uwk_stat_names[UWK_ST_COUNT] = {
	[UWK_ST_SAMPLES] = "samples",
	[UWK_ST_PASSED] = "passed_to_kernel",
	[UWK_ST_PASSED_VCPU] = "passed_vcpu",
	[UWK_ST_FRAMES_SFRAME] = "frames_sframe",
	[UWK_ST_FRAMES_FP] = "frames_fp",
	[UWK_ST_FRAMES_SIGFRAME] = "frames_sigframe",
	[UWK_ST_TABLES_LOADED] = "tables_loaded",
	[UWK_ST_TABLES_REJECTED] = "tables_rejected",
	[UWK_ST_TABLES_OVER] = "tables_over_max_total",
	[UWK_ST_TABLES_OVER_USER] = "tables_over_max_user",
	[UWK_ST_TABLES_INSTALLED] = "tables_installed",
	[UWK_ST_INSTALLED_REFUSED] = "installed_refused",
	[UWK_ST_SCANS] = "scans",
	[UWK_ST_SCANS_GONE] = "scans_gone",
	[UWK_ST_LAZY_REQUESTS] = "lazy_requests",
	[UWK_ST_LAZY_DROPPED] = "lazy_dropped",
	[UWK_ST_END_ENTRY] = "end_past_entry",
	[UWK_ST_END_NO_TABLE] = "end_no_table",
	[UWK_ST_END_OTHER] = "end_other",
	[UWK_ST_END_DEPTH] = "end_depth",
	[UWK_ST_END_TIME] = "end_time",
	[UWK_ST_CACHE_BUSY] = "cache_busy",
	[UWK_ST_DEFERRED] = "deferred_walks",
	[UWK_ST_DEFERRED_FAULTS] = "deferred_faults",
	[UWK_ST_SYNC_SCANS] = "sync_scans",
	[UWK_ST_KEPT_REUSED] = "kept_reused",
	[UWK_ST_KEPT_EVICTED] = "kept_evicted",
	[UWK_ST_VDSO_CACHED] = "vdso_cached",
	[UWK_ST_VDSO_READ] = "vdso_read",
	[UWK_ST_NOMEM] = "alloc_failed",
};

static const char *const uwk_stop_keys[UWK_KSTOP_COUNT] = {
	[UW_STOP_NONE] = "stop_none",
	[UW_STOP_OUTERMOST] = "stop_outermost",
	[UW_STOP_END] = "stop_end",
	[UW_STOP_NO_INFO] = "stop_no_info",
	[UW_STOP_READ_FAULT] = "stop_read_fault",
	[UW_STOP_NO_PROGRESS] = "stop_no_progress",
	[UW_STOP_DEPTH] = "stop_depth",
	[UW_STOP_BAD_DATA] = "stop_bad_data",
	[UWK_STOP_FP_OUTSIDE] = "stop_fp_outside",
	[UWK_STOP_TIME] = "stop_time",
};

void uwk_stat_inc(enum uwk_stat s)
{
	this_cpu_inc(uwk_stats[s]);
}

void uwk_stat_add(enum uwk_stat s, unsigned long n)
{
	this_cpu_add(uwk_stats[s], n);
}

void uwk_stat_stop(unsigned int stop)
{
	if (stop < UWK_KSTOP_COUNT)
		this_cpu_inc(uwk_stops[stop]);
}

static unsigned long uwk_sum(unsigned long __percpu *v)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(v, cpu);
	return sum;
}

void uwk_stats_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < UWK_ST_COUNT; i++)
		seq_printf(m, "%s %lu\n", uwk_stat_names[i],
			   uwk_sum(&uwk_stats[i]));
	for (i = UW_STOP_OUTERMOST; i < UWK_KSTOP_COUNT; i++)
		seq_printf(m, "%s %lu\n", uwk_stop_keys[i], uwk_sum(&uwk_stops[i]));
	seq_printf(m, "mms %d\n", atomic_read(&uwk_nr_mms));
	seq_printf(m, "files %d\n", atomic_read(&uwk_nr_files));
	seq_printf(m, "bytes_held %ld\n", atomic_long_read(&uwk_bytes_held));
	seq_printf(m, "table_bytes %ld\n", atomic_long_read(&uwk_table_bytes));
	uwk_inflight_show(m);
	uwk_req_show(m);
	uwk_cache_show(m);
}

/* debugfs "hooks", and the device's status text. */
void uwk_hooks_show(struct seq_file *m)
{
	seq_puts(m, "perf_callchain_user on\n");
	seq_printf(m, "unwind_user %s\n", uwk_defer_show());
	uwk_unlink_show(m);
}

/*
 * The read-only debugfs files: each one's show function is its inode's
 * private data (single_open() hands it over as m->private).
 */
static int uwk_dbg_show(struct seq_file *m, void *v)
{
	void (*show)(struct seq_file *m) = m->private;

	show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uwk_dbg);

static ssize_t uwk_gc_write(struct file *f, const char __user *buf,
			    size_t len, loff_t *pos)
{
	/*
	 * The scans queued so far first: one that read a process before it
	 * exited publishes its table after the exit, and this collection
	 * must see it.
	 */
	uwk_tables_flush();
	uwk_gc();
	/* Let the grace period pass and the frees run before returning. */
	synchronize_rcu();
	rcu_barrier();
	uwk_tables_flush();
	/* And the installed tables kept for later: every one. */
	uwk_files_gc(true);
	return len;
}

static const struct file_operations uwk_gc_fops = {
	.owner = THIS_MODULE,
	.write = uwk_gc_write,
};

/* debugfs "installed": reads as uwk_inst_show(), a write looks again. */
static int uwk_inst_open_dbg(struct inode *inode, struct file *f)
{
	return single_open(f, uwk_dbg_show, uwk_inst_show);
}

static ssize_t uwk_inst_write(struct file *f, const char __user *buf,
			      size_t len, loff_t *pos)
{
	uwk_inst_rescan();
	uwk_req_rescan();
	return len;
}

static const struct file_operations uwk_inst_fops = {
	.owner = THIS_MODULE,
	.open = uwk_inst_open_dbg,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = uwk_inst_write,
	.release = single_release,
};

static struct dentry *uwk_dir;

static int __init uwk_init(void)
{
	int ret;

	ret = uwk_registry_init();
	if (ret)
		return ret;
	ret = uwk_req_init();
	if (ret)
		goto out_registry;
	ret = uwk_events_init();
	if (ret)
		goto out_req;
	ret = uwk_hook_init();
	if (ret)
		goto out_events;
	uwk_defer_init();
	ret = uwk_dev_init();
	if (ret)
		goto out_hook;
	uwk_dir = debugfs_create_dir("uwind", NULL);
	debugfs_create_bool("enable", 0644, uwk_dir, &uwk_enable);
	debugfs_create_file("stats", 0444, uwk_dir, uwk_stats_show,
			    &uwk_dbg_fops);
	debugfs_create_file("tables", 0444, uwk_dir, uwk_tables_show,
			    &uwk_dbg_fops);
	debugfs_create_file("breaks", 0444, uwk_dir, uwk_breaks_show,
			    &uwk_dbg_fops);
	debugfs_create_file("users", 0444, uwk_dir, uwk_users_show,
			    &uwk_dbg_fops);
	debugfs_create_file("caches", 0444, uwk_dir, uwk_caches_show,
			    &uwk_dbg_fops);
	debugfs_create_file("hooks", 0444, uwk_dir, uwk_hooks_show,
			    &uwk_dbg_fops);
	debugfs_create_file("gc", 0200, uwk_dir, NULL, &uwk_gc_fops);
	debugfs_create_file("installed", 0600, uwk_dir, NULL, &uwk_inst_fops);
	pr_info("user callchains from SFrame tables: on\n");
	return 0;

out_hook:
	uwk_defer_exit();
	uwk_hook_exit();
out_events:
	uwk_events_exit();
out_req:
	uwk_req_stop();
	uwk_registry_exit();
	uwk_req_exit();
	return ret;
out_registry:
	uwk_registry_exit();
	return ret;
}

static void __exit uwk_exit(void)
{
	debugfs_remove_recursive(uwk_dir);
	uwk_dev_exit();
	uwk_defer_exit();
	uwk_hook_exit();
	uwk_events_exit();
	uwk_req_stop();
	uwk_registry_exit();
	uwk_req_exit();
	pr_info("unloaded\n");
}

module_init(uwk_init);
module_exit(uwk_exit);

MODULE_LICENSE("Dual MIT/GPL");
/* A build that names its version (DKMS's, from dkms.conf) says it. */
#ifdef UWIND_MODULE_VERSION
MODULE_VERSION(UWIND_MODULE_VERSION);
#endif
MODULE_DESCRIPTION("uwind: user callchains from SFrame tables");
