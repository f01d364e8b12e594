// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind kernel module: correct user callchains for programs built without
 * frame pointers, from their SFrame tables, for every caller of the
 * kernel's perf_callchain_user(): perf samples of every event type, perf
 * trace --call-graph, BPF's bpf_get_stack() and bpf_get_stackid().  (Not
 * ftrace's userstacktrace, which walks user stacks itself.)
 *
 * insmod with no parameters is all it takes: from then on every process,
 * new or already running, is covered.  /sys/kernel/debug/uwind/ holds:
 *   enable   Y/N, writable (the "enable" parameter's value)
 *   stats    counters, "key value" lines
 *   tables   each registered process and its executable mappings
 *   users    each uid holding tables: "uid bytes"
 *   breaks   the files where walks broke for want of a table, "count
 *            path", most frequent first
 *   gc       write anything: drop the tables of processes that are gone
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include "uwind_kmod.h"

bool uw_enable = true;
module_param_named(enable, uw_enable, bool, 0644);
MODULE_PARM_DESC(enable, "walk user callchains with uwind (default: yes)");

unsigned int uw_max_table_kb = 64 * 1024;
module_param_named(max_table_kb, uw_max_table_kb, uint, 0644);
MODULE_PARM_DESC(max_table_kb, "largest SFrame section accepted, KiB (default 65536)");

unsigned int uw_max_total_mb = 256;
module_param_named(max_total_mb, uw_max_total_mb, uint, 0644);
MODULE_PARM_DESC(max_total_mb, "kernel memory all tables may hold, MiB (default 256)");

/*
 * One uid's share: with the default, four users' tables fill the cap, and
 * no single user can leave the others' processes without tables.
 */
unsigned int uw_max_user_pct = 25;
module_param_named(max_user_pct, uw_max_user_pct, uint, 0644);
MODULE_PARM_DESC(max_user_pct, "share of max_total_mb the tables of one uid may hold, percent (default 25)");

unsigned int uw_rescan_ms = 100;
module_param_named(rescan_ms, uw_rescan_ms, uint, 0644);
MODULE_PARM_DESC(rescan_ms, "least time between two scans of a process, ms (default 100)");

static DEFINE_PER_CPU(unsigned long[UW_ST_COUNT], uw_stats);
static DEFINE_PER_CPU(unsigned long[UW_KSTOP_COUNT], uw_stops);

static const char *const uw_stat_names[UW_ST_COUNT] = {
	[UW_ST_SAMPLES] = "samples",
	[UW_ST_PASSED] = "passed_to_kernel",
	[UW_ST_PASSED_VCPU] = "passed_vcpu",
	[UW_ST_FRAMES_SFRAME] = "frames_sframe",
	[UW_ST_FRAMES_FP] = "frames_fp",
	[UW_ST_FRAMES_SIGFRAME] = "frames_sigframe",
	[UW_ST_TABLES_LOADED] = "tables_loaded",
	[UW_ST_TABLES_REJECTED] = "tables_rejected",
	[UW_ST_TABLES_OVER] = "tables_over_max_total",
	[UW_ST_TABLES_OVER_USER] = "tables_over_max_user",
	[UW_ST_SCANS] = "scans",
	[UW_ST_LAZY_REQUESTS] = "lazy_requests",
	[UW_ST_END_ENTRY] = "end_past_entry",
	[UW_ST_END_NO_TABLE] = "end_no_table",
	[UW_ST_END_OTHER] = "end_other",
	[UW_ST_END_DEPTH] = "end_depth",
};

static const char *const uw_stop_keys[UW_KSTOP_COUNT] = {
	[UW_STOP_NONE] = "stop_none",
	[UW_STOP_OUTERMOST] = "stop_outermost",
	[UW_STOP_END] = "stop_end",
	[UW_STOP_NO_INFO] = "stop_no_info",
	[UW_STOP_READ_FAULT] = "stop_read_fault",
	[UW_STOP_NO_PROGRESS] = "stop_no_progress",
	[UW_STOP_DEPTH] = "stop_depth",
	[UW_STOP_BAD_DATA] = "stop_bad_data",
	[UW_STOP_FP_OUTSIDE] = "stop_fp_outside",
};

void uw_stat_inc(enum uw_stat s)
{
	this_cpu_inc(uw_stats[s]);
}

void uw_stat_stop(unsigned int stop)
{
	if (stop < UW_KSTOP_COUNT)
		this_cpu_inc(uw_stops[stop]);
}

static unsigned long uw_sum(unsigned long __percpu *v)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(v, cpu);
	return sum;
}

void uw_stats_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < UW_ST_COUNT; i++)
		seq_printf(m, "%s %lu\n", uw_stat_names[i],
			   uw_sum(&uw_stats[i]));
	for (i = UW_STOP_OUTERMOST; i < UW_KSTOP_COUNT; i++)
		seq_printf(m, "%s %lu\n", uw_stop_keys[i], uw_sum(&uw_stops[i]));
	seq_printf(m, "mms %d\n", atomic_read(&uw_nr_mms));
	seq_printf(m, "files %d\n", atomic_read(&uw_nr_files));
	seq_printf(m, "bytes_held %ld\n", atomic_long_read(&uw_bytes_held));
	seq_printf(m, "table_bytes %ld\n", atomic_long_read(&uw_table_bytes));
}

static int uw_dbg_stats_show(struct seq_file *m, void *v)
{
	uw_stats_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uw_dbg_stats);

static int uw_dbg_tables_show(struct seq_file *m, void *v)
{
	uw_tables_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uw_dbg_tables);

static int uw_dbg_users_show(struct seq_file *m, void *v)
{
	uw_users_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uw_dbg_users);

static int uw_dbg_breaks_show(struct seq_file *m, void *v)
{
	uw_breaks_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uw_dbg_breaks);

static ssize_t uw_gc_write(struct file *f, const char __user *buf,
			   size_t len, loff_t *pos)
{
	uw_gc();
	/* Let the grace period pass and the frees run before returning. */
	synchronize_rcu();
	rcu_barrier();
	uw_tables_flush();
	return len;
}

static const struct file_operations uw_gc_fops = {
	.owner = THIS_MODULE,
	.write = uw_gc_write,
};

static struct dentry *uw_dir;

static int __init uw_init(void)
{
	int ret;

	ret = uw_registry_init();
	if (ret)
		return ret;
	ret = uw_events_init();
	if (ret)
		goto out_registry;
	ret = uw_hook_init();
	if (ret)
		goto out_events;
	uw_dir = debugfs_create_dir("uwind", NULL);
	debugfs_create_bool("enable", 0644, uw_dir, &uw_enable);
	debugfs_create_file("stats", 0444, uw_dir, NULL, &uw_dbg_stats_fops);
	debugfs_create_file("tables", 0444, uw_dir, NULL, &uw_dbg_tables_fops);
	debugfs_create_file("breaks", 0444, uw_dir, NULL, &uw_dbg_breaks_fops);
	debugfs_create_file("users", 0444, uw_dir, NULL, &uw_dbg_users_fops);
	debugfs_create_file("gc", 0200, uw_dir, NULL, &uw_gc_fops);
	pr_info("user callchains from SFrame tables: on\n");
	return 0;

out_events:
	uw_events_exit();
out_registry:
	uw_registry_exit();
	return ret;
}

static void __exit uw_exit(void)
{
	debugfs_remove_recursive(uw_dir);
	uw_hook_exit();
	uw_events_exit();
	uw_registry_exit();
	pr_info("unloaded\n");
}

module_init(uw_init);
module_exit(uw_exit);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("uwind: user callchains from SFrame tables");
