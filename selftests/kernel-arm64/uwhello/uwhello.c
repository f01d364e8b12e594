// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwhello: the smallest module that shows a cross-built module really runs
 * in the arm64 guest.  It echoes its "token" parameter back on load and
 * unload, so the guest test can tell its own insmod from a stale message,
 * and names the architecture it was built for.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <generated/utsrelease.h>

static unsigned int token;
module_param(token, uint, 0444);
MODULE_PARM_DESC(token, "number printed on load and unload");

static int __init uwhello_init(void)
{
	pr_info("uwhello: loaded, token %u, built for %s %s\n", token,
		UTS_RELEASE, IS_ENABLED(CONFIG_ARM64) ? "arm64" : "other");
	return 0;
}

static void __exit uwhello_exit(void)
{
	pr_info("uwhello: unloaded, token %u\n", token);
}

module_init(uwhello_init);
module_exit(uwhello_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("uwind arm64 harness test module");
