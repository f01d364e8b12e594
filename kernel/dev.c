// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * /dev/uwind: the module's interface for root's tools (the records and
 * ioctls: uwind_uapi.h).  `uwind agent` reads the requests for tables
 * from it (requests.c) and answers them; `uwind sframe --install` says
 * through it that tables were installed; `uwind status` reads the
 * module's state from it as text.
 *
 * A misc character device rather than debugfs or sysfs: debugfs is no
 * interface (often not mounted, no ABI), and a kernel locked down for
 * integrity, as every Secure Boot machine runs Debian's, refuses to open
 * any debugfs file that has a write bit; sysfs holds one value a file,
 * and has no read that blocks until something is queued.  The device is
 * root's alone (mode 0600, and CAP_SYS_ADMIN at open): what it gives away
 * (every process's mappings) and what it takes (the agent's answers make
 * the module read tables) are root's business.  Each open file holds a
 * reference to the module, so it cannot be unloaded while the agent runs
 * (the service stops the agent first).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "uwind_kmod.h"

#define UWK_DEV_BATCH	8	/* requests copied out per step */

/* The status text: every section `uwind status` reads (uwind_uapi.h). */
static int uwk_dev_show(struct seq_file *m, void *v)
{
	seq_printf(m, "uwind %d\n[stats]\n", UWIND_STATUS_VERSION);
	uwk_stats_show(m);
	seq_puts(m, "[hooks]\n");
	uwk_hooks_show(m);
	seq_puts(m, "[breaks]\n");
	uwk_breaks_show(m);
	seq_puts(m, "[tables]\n");
	uwk_tables_show(m);
	return 0;
}

static int uwk_dev_open(struct inode *inode, struct file *f)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* misc_open() left the miscdevice there; the seq_file goes there. */
	f->private_data = NULL;
	return single_open(f, uwk_dev_show, NULL);
}

static int uwk_dev_release(struct inode *inode, struct file *f)
{
	uwk_req_agent_gone(f);
	return single_release(inode, f);
}

/* The agent's read: whole records, waiting for one unless O_NONBLOCK. */
static ssize_t uwk_dev_read_reqs(struct file *f, char __user *buf,
				 size_t len)
{
	struct uwind_req reqs[UWK_DEV_BATCH];
	size_t max = len / sizeof(reqs[0]), done = 0;
	ssize_t n;

	if (!max)
		return -EINVAL;
	while (done < max) {
		n = uwk_req_take(reqs, min_t(size_t, max - done,
					     UWK_DEV_BATCH));
		if (!n) {
			if (done)
				break;
			if (f->f_flags & O_NONBLOCK)
				return -EAGAIN;
			if (wait_event_interruptible(uwk_req_wait,
						     uwk_req_ready()))
				return -ERESTARTSYS;
			continue;
		}
		if (copy_to_user(buf + done * sizeof(reqs[0]), reqs,
				 n * sizeof(reqs[0]))) {
			uwk_req_untake(reqs, n);
			return done ? done * sizeof(reqs[0]) : -EFAULT;
		}
		done += n;
	}
	return done * sizeof(reqs[0]);
}

static ssize_t uwk_dev_read(struct file *f, char __user *buf, size_t len,
			    loff_t *pos)
{
	if (uwk_req_is_agent(f))
		return uwk_dev_read_reqs(f, buf, len);
	return seq_read(f, buf, len, pos);
}

static __poll_t uwk_dev_poll(struct file *f, poll_table *wait)
{
	if (!uwk_req_is_agent(f))
		return EPOLLIN | EPOLLRDNORM;
	poll_wait(f, &uwk_req_wait, wait);
	return uwk_req_ready() ? EPOLLIN | EPOLLRDNORM : 0;
}

static long uwk_dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct uwind_done d;

	switch (cmd) {
	case UWIND_IOC_AGENT:
		return uwk_req_is_agent(f) ? 0 : uwk_req_agent(f);
	case UWIND_IOC_DONE:
		if (!uwk_req_is_agent(f))
			return -EPERM;
		if (copy_from_user(&d, (void __user *)arg, sizeof(d)))
			return -EFAULT;
		return uwk_req_done(&d);
	case UWIND_IOC_RESCAN:
		uwk_inst_rescan();
		uwk_req_rescan();
		return 0;
	}
	return -ENOTTY;
}

static const struct file_operations uwk_dev_fops = {
	.owner = THIS_MODULE,
	.open = uwk_dev_open,
	.read = uwk_dev_read,
	.poll = uwk_dev_poll,
	.llseek = seq_lseek,
	.unlocked_ioctl = uwk_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = uwk_dev_release,
};

static struct miscdevice uwk_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = UWIND_DEV_NAME,
	.fops = &uwk_dev_fops,
	.mode = 0600,
};

int uwk_dev_init(void)
{
	int ret = misc_register(&uwk_misc);

	if (ret)
		pr_err("cannot register /dev/%s (%d)\n", UWIND_DEV_NAME, ret);
	return ret;
}

void uwk_dev_exit(void)
{
	misc_deregister(&uwk_misc);
}
