/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The module's user interface: the character device /dev/uwind (root
 * only, mode 0600), shared by the module (kernel/dev.c) and the tool
 * (scripts/uwind/agent.c, status.c, install.c).  kernel/README.md,
 * "The device", says why a device and how it is used.
 *
 * Every open file reads, by default, the module's state as text (what
 * `uwind status` shows): "uwind 1", then sections, each a "[NAME]" line
 * and its lines: [stats] "key value", [hooks] "function state", [breaks]
 * "count path", [tables] "pid PID COMM[ stale]" then one line a mapping,
 * "  START-END NAME STATE[ REQUEST]".  A snapshot, made at the first
 * read.
 *
 * UWIND_IOC_AGENT makes the open file the agent's (one at a time): its
 * read() then gives requests, struct uwind_req records (as many whole
 * ones as fit; EAGAIN when none is queued and O_NONBLOCK is set), and
 * poll() says POLLIN when one is queued.  Each request is answered with
 * UWIND_IOC_DONE.  A request the agent was given and never answered goes
 * back to the queue when its file is closed (the agent stopped or died).
 *
 * UWIND_IOC_RESCAN: tables were installed (`uwind sframe --install`):
 * every file without its own table is looked up again, and every process
 * is rescanned at its next sample.
 *
 * Every field is in the machine's byte order; the layout is the same for
 * 32- and 64-bit readers (no compat ioctl needed).
 */
#ifndef UWIND_UAPI_H
#define UWIND_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define UWIND_DEV_NAME		"uwind"		/* /dev/uwind */
#define UWIND_STATUS_VERSION	1		/* the text's first line */

/* Why a file's table is asked for. */
#define UWIND_WHY_NONE		1	/* no table installed for it */
#define UWIND_WHY_OUTDATED	2	/* one installed, refused (other CFI) */

/* The mapping is the vDSO: its image is read from the process's memory. */
#define UWIND_REQ_VDSO		0x1
/* The file has no GNU build-id: its table is keyed by its CFI. */
#define UWIND_REQ_NO_BUILD_ID	0x2

/*
 * One request: make a table for the file mapped at [start, end) in
 * process pid, /proc/PID/map_files/START-END (lowercase hex, no 0x):
 * the very file mapped, in any mount namespace, even if its path now
 * names another or none.  dev, ino, size and mtime are the mapped
 * file's (stat(2)'s st_dev as major and minor, st_ino, st_size,
 * st_mtim) when the module read it: a file opened there that differs
 * was changed or replaced since, and is not the one asked for.  pid is
 * in the reader's pid namespace (0: not visible from it); uid is the
 * real uid of the process (in the initial user namespace), whom the
 * work is for.
 */
struct uwind_req {
	__u64 id;		/* the answer names it: UWIND_IOC_DONE */
	__u64 start, end;
	__u64 ino;
	__s64 size;
	__s64 mtime_sec;
	__u32 mtime_nsec;
	__u32 dev_major, dev_minor;
	__u32 pid;
	__u32 uid;
	__u32 why;		/* UWIND_WHY_* */
	__u32 flags;		/* UWIND_REQ_* */
	__u32 reserved;		/* 0 */
};

/*
 * What became of a request.  UWIND_DONE_OK: a table is installed for the
 * file, and the processes that map it are rescanned at their next sample.
 * UWIND_DONE_GONE: the mapping or its process is gone, or the file is
 * not the one asked for (changed since): forgotten, a new scan asks
 * again.  Any other result: no table can be made now (why, for `uwind
 * status`); the file is not asked for again for retry_s seconds (at most
 * a day).
 */
#define UWIND_DONE_OK		0
#define UWIND_DONE_GONE		1
#define UWIND_DONE_NO_CFI	2	/* no DWARF CFI to convert */
#define UWIND_DONE_NO_ID	3	/* no build-id, no CFI section to key */
#define UWIND_DONE_TOO_BIG	4	/* over the agent's size limits */
#define UWIND_DONE_FAILED	5	/* the conversion failed */
#define UWIND_DONE_TIMEOUT	6	/* ... took longer than its limit */
#define UWIND_DONE_BUDGET	7	/* the user's conversion budget is spent */
#define UWIND_DONE_STORE_FULL	8	/* the store (or the user's share) is full */
#define UWIND_DONE_REFUSED	9	/* made, but the module refused it */
#define UWIND_DONE_COUNT	10

struct uwind_done {
	__u64 id;
	__u32 result;		/* UWIND_DONE_* */
	__u32 retry_s;
};

#define UWIND_IOC_MAGIC		0xb5
#define UWIND_IOC_AGENT		_IO(UWIND_IOC_MAGIC, 1)
#define UWIND_IOC_DONE		_IOW(UWIND_IOC_MAGIC, 2, struct uwind_done)
#define UWIND_IOC_RESCAN	_IO(UWIND_IOC_MAGIC, 3)

#endif /* UWIND_UAPI_H */
