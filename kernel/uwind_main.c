// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind kernel module: skeleton.
 *
 * Hooks the kernel's user callchain collection (perf_callchain_user) with an
 * ftrace_ops that may rewrite the saved instruction pointer (IPMODIFY), so a
 * later version can divert it to an SFrame-based walker built on lib/.  For
 * now the callback only counts calls; the count is in
 * /sys/kernel/debug/uwind/stats.
 *
 * At load the core from lib/ is exercised once (SFrame header checks on
 * hand-built tables) to show that it is linked in and runs in kernel
 * context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/ftrace.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/percpu.h>
#include <linux/atomic.h>

#include <uwind/uwind.h>
#include <uwind/sframe.h>

#define UW_HOOK_SYM	"perf_callchain_user"

/*
 * Calls of the hook, and among them those made from inside this module
 * (which a replacement walker calling the original must not divert).
 */
static DEFINE_PER_CPU(unsigned long, uw_hook_calls);
static atomic_long_t uw_hook_self_calls = ATOMIC_LONG_INIT(0);
static struct dentry *uw_debugfs_dir;
static int uw_core_failures;

static unsigned long uw_sum_calls(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(uw_hook_calls, cpu);
	return sum;
}

/*
 * Runs in the context of perf_callchain_user(): NMI or hard irq.  Must not
 * sleep, fault or take locks.  FTRACE_OPS_FL_RECURSION makes ftrace guard
 * against recursion for us.
 */
static void notrace uw_hook(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	this_cpu_inc(uw_hook_calls);
	if (within_module(parent_ip, THIS_MODULE))
		atomic_long_inc(&uw_hook_self_calls);
}

static struct ftrace_ops uw_ops = {
	.func = uw_hook,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_RECURSION,
};

static int uw_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "hook_calls %lu\n", uw_sum_calls());
	seq_printf(m, "hook_calls_from_module %ld\n",
		   atomic_long_read(&uw_hook_self_calls));
	seq_printf(m, "core_selftest_failures %d\n", uw_core_failures);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uw_stats);

/*
 * Checks of the core, run once at load from hand-built SFrame headers (the
 * layout is SFrame's, see include/uwind/sframe.h): a well-formed empty V2
 * table is accepted, a wrong magic and a truncated header are refused.
 * Returns the number of checks that failed.
 */
static int uw_core_check(const char *what, const u8 *data, size_t size,
			 bool want_ok, int want_err)
{
	struct uw_sframe sf;
	struct uw_span span = { .data = data, .size = size, .addr = 0x400000 };
	int err = uw_sframe_init(&sf, &span);
	bool good = want_ok ? err == 0 : (want_err ? err == want_err : err < 0);

	pr_info("core: %s: %d (%s)%s\n", what, err, uw_strerror(err),
		good ? "" : " UNEXPECTED");
	return good ? 0 : 1;
}

static int uw_core_selftest(void)
{
	static const u8 good[UW_SFRAME_HDR_SIZE] = {
		0xe2, 0xde,		/* magic 0xdee2, little endian */
		2,			/* version 2 */
		UW_SFRAME_F_FDE_SORTED,
		UW_SFRAME_ABI_AMD64_LE,
		0, (u8)-8,		/* fixed fp offset, fixed ra offset */
		0,			/* auxhdr_len */
		/* num_fdes, num_fres, fre_len, fdeoff, freoff: all 0 */
	};
	static const u8 bad_magic[UW_SFRAME_HDR_SIZE] = {
		0xe2, 0xdf, 2, UW_SFRAME_F_FDE_SORTED, UW_SFRAME_ABI_AMD64_LE,
	};
	int fails = 0;

	fails += uw_core_check("empty V2 table", good, sizeof(good), true, 0);
	fails += uw_core_check("bad magic", bad_magic, sizeof(bad_magic),
			       false, UW_EMAGIC);
	fails += uw_core_check("truncated header", good, sizeof(good) - 1,
			       false, 0);
	return fails;
}

static int __init uw_init(void)
{
	int ret;

	uw_core_failures = uw_core_selftest();

	ret = ftrace_set_filter(&uw_ops, UW_HOOK_SYM, strlen(UW_HOOK_SYM), 1);
	if (ret) {
		pr_err("cannot filter on %s: %d\n", UW_HOOK_SYM, ret);
		return ret;
	}
	ret = register_ftrace_function(&uw_ops);
	if (ret) {
		pr_err("cannot register the ftrace hook: %d\n", ret);
		ftrace_free_filter(&uw_ops);
		return ret;
	}

	uw_debugfs_dir = debugfs_create_dir("uwind", NULL);
	debugfs_create_file("stats", 0444, uw_debugfs_dir, NULL,
			    &uw_stats_fops);
	pr_info("hooked %s\n", UW_HOOK_SYM);
	return 0;
}

static void __exit uw_exit(void)
{
	debugfs_remove_recursive(uw_debugfs_dir);
	unregister_ftrace_function(&uw_ops);
	ftrace_free_filter(&uw_ops);
	pr_info("unhooked after %lu calls\n", uw_sum_calls());
}

module_init(uw_init);
module_exit(uw_exit);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("uwind: user callchains from SFrame tables");
