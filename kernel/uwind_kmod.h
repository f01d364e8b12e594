/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind kernel module: what its parts share.
 *
 *   uwind_main.c  load/unload, parameters, debugfs
 *   hook.c        the perf_callchain_user replacement (NMI/IRQ context)
 *   files.c       SFrame tables per file, the memory caps, breaks per file
 *   registry.c    the tables of each process (task context; RCU readers)
 *   events.c      what makes the registry scan: exec, samples, unmaps
 */
#ifndef UWIND_KMOD_H
#define UWIND_KMOD_H

#include <linux/types.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <uwind/uwind.h>
#include <uwind/sframe.h>

/* Module parameters (uwind_main.c). */
extern bool uw_enable;
extern unsigned int uw_max_table_kb;
extern unsigned int uw_max_total_mb;
extern unsigned int uw_max_user_pct;
extern unsigned int uw_rescan_ms;

/* Counters, read through debugfs "stats". */
enum uw_stat {
	UW_ST_SAMPLES,		/* callchains walked by uwind */
	UW_ST_PASSED,		/* callchains left to the kernel's own walker */
	UW_ST_PASSED_VCPU,	/* ... because a KVM guest was running */
	UW_ST_FRAMES_SFRAME,
	UW_ST_FRAMES_FP,
	UW_ST_FRAMES_SIGFRAME,
	UW_ST_TABLES_LOADED,	/* SFrame sections copied in */
	UW_ST_TABLES_REJECTED,	/* malformed sections refused */
	UW_ST_TABLES_OVER,	/* sections left out: max_total_mb reached */
	UW_ST_TABLES_OVER_USER,	/* left out: the user's max_user_pct share */
	UW_ST_SCANS,		/* process mappings scanned */
	UW_ST_LAZY_REQUESTS,	/* scans asked for from a sample */
	/* Where each walk ended (hook.c): one of these per walk. */
	UW_ST_END_ENTRY,	/* past the program's entry: the chain is whole */
	UW_ST_END_NO_TABLE,	/* in a mapped file without a table (per file) */
	UW_ST_END_OTHER,	/* elsewhere: read fault, bad row, no mapping */
	UW_ST_END_DEPTH,	/* at the sample's depth limit */
	UW_ST_COUNT,
};

/*
 * A stop reason of the module's own, after the core's (enum uw_stop): a
 * frame-pointer guess outside every executable mapping ended the walk.
 */
#define UW_STOP_FP_OUTSIDE	UW_STOP_COUNT
#define UW_KSTOP_COUNT		(UW_STOP_COUNT + 1)

void uw_stat_inc(enum uw_stat s);
void uw_stat_stop(unsigned int stop);
void uw_stats_show(struct seq_file *m);

/* Bytes of kernel memory held for tables, and objects alive. */
extern atomic_long_t uw_bytes_held;
extern atomic_long_t uw_table_bytes;	/* SFrame sections, all users */
extern atomic_t uw_nr_mms, uw_nr_files;

/*
 * One process's executable mappings, published with RCU for the hook.
 * mods[] is what the core's walker takes: sorted, not overlapping, each
 * pointing at a per-mapping copy of its file's decoded header (sfs[i],
 * whose section address carries the mapping's load bias).
 */
struct uw_kmm {
	struct hlist_node node;
	struct rcu_head rcu;
	struct llist_node free_node;
	struct mm_struct *mm;		/* held with mmgrab() */
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	unsigned long scanned;		/* jiffies of the scan */
	unsigned long seq;		/* scan order (registry.c) */
	int map_count;			/* mm->map_count when scanned */
	unsigned long stale_seq;	/* 0, or when a mapping was unmapped */
	size_t bytes;
	u32 n;
	struct uw_kmap *maps;
	struct uw_module *mods;
	struct uw_sframe *sfs;
};

/* Per-file tables (files.c): task context unless said otherwise. */
struct uw_kfile;
struct uw_kfile *uw_kfile_get(struct file *f, kuid_t uid);
void uw_kfile_put(struct uw_kfile *kf);
bool uw_kfile_sframe(const struct uw_kfile *kf, u64 start, u64 fo,
		     struct uw_sframe *sf);
const char *uw_kfile_state(const struct uw_kfile *kf);
void uw_kfile_note_break(struct uw_kfile *kf);		/* any context */
void uw_files_exit(void);
void uw_users_show(struct seq_file *m);
void uw_breaks_show(struct seq_file *m);

/* The per-process registry (registry.c). */
int uw_registry_init(void);
void uw_registry_exit(void);
struct uw_kmm *uw_kmm_find(struct mm_struct *mm);	/* under rcu_read_lock */
bool uw_kmm_covers(const struct uw_kmm *kmm, u64 start, u64 end);
bool uw_kmm_note_break(const struct uw_kmm *kmm, u16 module); /* any context */
void uw_scan_mm(struct task_struct *task, struct mm_struct *mm,
		unsigned long asked);
unsigned long uw_next_seq(void);			/* any context */
void uw_queue_work(struct work_struct *w);		/* any context */
void uw_gc(void);
void uw_gc_soon(void);					/* any context */
void uw_tables_flush(void);
void uw_tables_show(struct seq_file *m);

/* Scan and unmap events (events.c). */
int uw_events_init(void);
void uw_events_exit(void);
void uw_request_scan(struct uw_kmm *kmm, bool uncovered); /* any context */

/* The hook (hook.c). */
int uw_hook_init(void);
void uw_hook_exit(void);

#endif /* UWIND_KMOD_H */
