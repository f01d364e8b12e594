/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind kernel module: what its parts share.
 *
 *   uwind_main.c  load/unload, parameters, debugfs
 *   hook.c        the perf_callchain_user replacement (NMI/IRQ context)
 *   files.c       tables per file, the memory caps, breaks per file
 *   installed.c   tables installed by `uwind sframe --install`, the vDSO
 *   requests.c    the agent's requests: files that want a table
 *   dev.c         /dev/uwind: the agent's requests, the status text
 *   registry.c    the tables of each process (task context; RCU readers)
 *   events.c      what makes the registry scan: exec, samples, unmaps
 *   deferred.c    the deferred walk: 7.x's unwind_user(), task context
 *   compat.h      the kernel interface changes bridged, 6.1 to 7.2
 *   ehabi.c       32-bit ARM files' EHABI tables (arm64's compat tasks)
 *   arch_*.c      the machine: x86-64, arm64 (see "The architecture")
 *
 * The module's own names start with uwk_ (UWK_ for constants): uw_ and UW_
 * belong to the core's public API (include/uwind/), which the module uses
 * like any other host.
 */
#ifndef UWIND_KMOD_H
#define UWIND_KMOD_H

#include <linux/types.h>
#include <linux/elf.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "uwind_uapi.h"
#include <uwind/config.h>
#include <uwind/uwind.h>
#include <uwind/sframe.h>

/* Module parameters (uwind_main.c). */
extern bool uwk_enable;
extern unsigned int uwk_max_table_kb;
extern unsigned int uwk_max_total_mb;
extern unsigned int uwk_max_user_pct;
extern unsigned int uwk_rescan_ms;
extern unsigned int uwk_cache_slots;
extern unsigned int uwk_max_walk_us, uwk_max_defer_walk_us;
extern unsigned int uwk_keep_s;

/* Counters, read through debugfs "stats". */
enum uwk_stat {
	UWK_ST_SAMPLES,		/* callchains walked by uwind */
	UWK_ST_PASSED,		/* callchains left to the kernel's own walker */
	UWK_ST_PASSED_VCPU,	/* ... because a KVM guest was running */
	UWK_ST_FRAMES_SFRAME,
	UWK_ST_FRAMES_FP,
	UWK_ST_FRAMES_SIGFRAME,
	UWK_ST_TABLES_LOADED,	/* tables copied in (SFrame, EHABI) */
	UWK_ST_TABLES_REJECTED,	/* malformed sections refused */
	UWK_ST_TABLES_OVER,	/* sections left out: max_total_mb reached */
	UWK_ST_TABLES_OVER_USER,	/* left out: the user's max_user_pct share */
	UWK_ST_TABLES_INSTALLED,	/* installed tables copied in */
	UWK_ST_INSTALLED_REFUSED,	/* ... found, but not for that file */
	UWK_ST_SCANS,		/* process mappings scanned */
	UWK_ST_SCANS_GONE,	/* scans asked for a process gone meanwhile */
	UWK_ST_LAZY_REQUESTS,	/* scans asked for from a sample */
	UWK_ST_LAZY_DROPPED,	/* ... not asked: one in flight already */
	/* Where each walk ended (hook.c): one of these per walk. */
	UWK_ST_END_ENTRY,	/* past the program's entry: the chain is whole */
	UWK_ST_END_NO_TABLE,	/* in a mapped file without a table (per file) */
	UWK_ST_END_OTHER,	/* elsewhere: read fault, bad row, no mapping */
	UWK_ST_END_DEPTH,	/* at the sample's depth limit */
	UWK_ST_END_TIME,	/* at the time limit (max_walk_us) */
	UWK_ST_CACHE_BUSY,	/* walks without the cache: in use below */
	UWK_ST_DEFERRED,	/* deferred walks (unwind_user(), deferred.c) */
	UWK_ST_DEFERRED_FAULTS,	/* ... stack pages they faulted in */
	UWK_ST_SYNC_SCANS,	/* ... scans they made themselves */
	UWK_ST_KEPT_REUSED,	/* installed tables kept after use, used again */
	UWK_ST_KEPT_EVICTED,	/* ... freed for another table's room */
	UWK_ST_VDSO_CACHED,	/* scans that found the vDSO's table read */
	UWK_ST_VDSO_READ,	/* ... that read the vDSO's image */
	UWK_ST_NOMEM,		/* allocations that failed (uwk_nomem()) */
	UWK_ST_COUNT,
};

/*
 * Stop reasons of the module's own, after the core's (enum uw_stop): a
 * frame-pointer guess outside every executable mapping ended the walk;
 * the walk took max_walk_us.
 */
#define UWK_STOP_FP_OUTSIDE	UW_STOP_COUNT
#define UWK_STOP_TIME		(UW_STOP_COUNT + 1)
#define UWK_KSTOP_COUNT		(UW_STOP_COUNT + 2)

void uwk_stat_inc(enum uwk_stat s);
void uwk_stat_add(enum uwk_stat s, unsigned long n);
void uwk_stat_stop(unsigned int stop);

/*
 * Every allocation of the module's is wrapped in uwk_nomem(): a failure
 * is counted (alloc_failed) and not logged by the allocator (UWK_GFP has
 * __GFP_NOWARN).  What a user's files make the module allocate may fail
 * at any time, and each caller copes (the table left out, the scan
 * retried later); the counter says how often, not a stack trace a time.
 */
#define UWK_GFP		(GFP_KERNEL | __GFP_NOWARN)
#define UWK_GFP_ATOMIC	(GFP_ATOMIC | __GFP_NOWARN)

/*
 * A macro, not a function taking void *: it keeps the pointer's type,
 * address space included (a __percpu pointer is __seg_gs on x86-64 when
 * GCC's named address spaces are used, as 7.2 does, and would not
 * convert).
 */
#define uwk_nomem(p) ({						\
	typeof(p) __uwk_p = (p);				\
								\
	if (unlikely(!__uwk_p))					\
		uwk_stat_inc(UWK_ST_NOMEM);			\
	__uwk_p;						\
})
void uwk_stats_show(struct seq_file *m);
void uwk_hooks_show(struct seq_file *m);

/* Bytes of kernel memory held for tables, and objects alive. */
extern atomic_long_t uwk_bytes_held;
extern atomic_long_t uwk_table_bytes;	/* SFrame sections, all users */
extern atomic_t uwk_nr_mms, uwk_nr_files;

/*
 * One process's executable mappings, published with RCU for the hook.
 * mods[] is what the core's walker takes: sorted, not overlapping, each
 * pointing at its file's decoded table (shared by every mapping of the
 * file, at the file's link-time addresses) with the mapping's load bias.
 */
struct uwk_kmm {
	struct hlist_node node;
	struct rcu_head rcu;
	struct llist_node free_node;
	struct mm_struct *mm;		/* held with mmgrab() */
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	unsigned long scanned;		/* jiffies of the scan */
	unsigned long seq;		/* scan order (registry.c) */
	int map_count;			/* mm->map_count when scanned */
	unsigned long inst_gen;		/* uwk_inst_gen() when scanned */
	unsigned long stale_seq;	/* 0, or when a mapping was unmapped */
	bool retable;			/* a file's table installed since */
	size_t bytes;
	u32 n;
	struct uwk_kmap *maps;
	struct uw_module *mods;
};

/* Entries a whole-table check takes between two reschedules. */
#define UWK_CHECK_CHUNK	4096

/*
 * Per-file tables (files.c): task context unless said otherwise.  What a
 * table is read from: a file, or a kernel copy of an image (the vDSO).
 */
struct uwk_src {
	struct file *file;
	const u8 *img;		/* when file is NULL */
	size_t size;
};

int uwk_src_read(const struct uwk_src *s, void *buf, size_t len, loff_t pos);
Elf64_Phdr *uwk_elf_phdrs(const struct uwk_src *src, Elf64_Ehdr *eh);

/*
 * What a table is for: a file (the same inode, unchanged since it was
 * read), or the vDSO (an image the kernel maps, known by its build-id).
 */
#define UWK_ID_MAX	64	/* longest build-id a table file records */

struct uwk_kid {
	dev_t dev;
	unsigned long ino;
	u32 gen;
	struct timespec64 mtime;
	loff_t size;
	u8 vdso_id_len;		/* the vDSO's build-id length; else 0 */
	u8 vdso_id[UWK_ID_MAX];
};

bool uwk_kid_eq(const struct uwk_kid *k, const struct uwk_kid *id);

struct uwk_kfile;
struct uwk_kfile *uwk_kfile_get(struct file *f, kuid_t uid);
struct uwk_kfile *uwk_kfile_get_vdso(const u8 *img, size_t size, kuid_t uid);
void uwk_kfile_installed_show(struct seq_file *m);
void uwk_kfile_put(struct uwk_kfile *kf);
struct uwk_kfile *uwk_kfile_ref(struct uwk_kfile *kf);
const struct uw_sframe *uwk_kfile_sframe(const struct uwk_kfile *kf,
					 u64 start, u64 fo, u64 *bias);
const struct uw_ehabi *uwk_kfile_ehabi(const struct uwk_kfile *kf, u64 start,
				       u64 fo, u64 *bias);

/* A segment of an ELF file: its address, file offset and size. */
struct uwk_load {
	u64 vaddr, off, filesz;
};

/* 32-bit ARM files' EHABI tables (ehabi.c): where, and their check. */
struct uwk_ehabi_loc {
	struct uwk_load exidx, extab;	/* extab.filesz 0: none */
};

int uwk_elf32_read(const struct uwk_src *src, struct uwk_load *loads,
		   u32 *nloads, u32 max, struct uwk_ehabi_loc *loc);
int uwk_ehabi_setup(struct uw_ehabi *eh, const u8 *data,
		    const struct uwk_ehabi_loc *loc);
const char *uwk_kfile_state(const struct uwk_kfile *kf);
/*
 * Whether kf's file wants a table the agent could make: UWIND_WHY_NONE
 * (none installed) or UWIND_WHY_OUTDATED (one refused), else 0; with
 * UWIND_REQ_* flags in *flags.  Any context (set before kf is listed).
 */
u32 uwk_kfile_need(const struct uwk_kfile *kf, u32 *flags);
const struct uwk_kid *uwk_kfile_kid(const struct uwk_kfile *kf);
unsigned long uwk_kfile_seq(const struct uwk_kfile *kf);
bool uwk_kfile_retrying(const struct uwk_kfile *kf);	/* any context */
unsigned int uwk_kfile_retry(const struct uwk_kid *id);
void uwk_kfile_note_break(struct uwk_kfile *kf);		/* any context */
void uwk_files_gc(bool all);		/* kept tables: expired, or all */
void uwk_files_exit(void);
void uwk_users_show(struct seq_file *m);
void uwk_breaks_show(struct seq_file *m);

/*
 * Installed tables (installed.c): task context.  uwk_inst_open() finds
 * the table installed for the build-id of the ELF in src (headers eh,
 * ph), checks that root owns it and that it was made from src's very CFI
 * bytes, and leaves it open in *in (uwk_inst_close()); 0, or an error.
 * The generation counts the installs the module was told of (debugfs
 * "installed"): a file without PT_GNU_SFRAME looked up at an older one is
 * looked up again, and a process scanned at an older one is rescanned.
 */
struct uwk_inst {
	struct uwk_src src;	/* the table file */
	loff_t off;		/* its SFrame section: where, */
	u64 len;		/* how long, */
	u64 vaddr;		/* and the ELF vaddr it is laid out at */
	bool cfi_key;		/* no build-id: looked for by the file's CFI */
};

extern atomic_long_t uwk_inst_generation;

/* Any context. */
static inline unsigned long uwk_inst_gen(void)
{
	return atomic_long_read(&uwk_inst_generation);
}

u8 uwk_inst_build_id(const struct uwk_src *s, const Elf64_Ehdr *eh,
		     const Elf64_Phdr *ph, u8 *id);
/*
 * uwk_inst_open()'s errors: -ENOENT (none installed), -EINVAL (one
 * there, not for this file: other CFI, build-id or machine), -EPERM (one
 * there that root alone could not have written), -ENOKEY (the file has
 * neither a build-id nor a CFI section to be known by), -ENOMEM.
 */
int uwk_inst_open(const struct uwk_src *s, const Elf64_Ehdr *eh,
		  const Elf64_Phdr *ph, struct uwk_inst *in);
void uwk_inst_close(struct uwk_inst *in);
void uwk_inst_show(struct seq_file *m);
void uwk_inst_rescan(void);
struct vm_area_struct;
bool uwk_vma_is_vdso(struct vm_area_struct *vma);	/* mmap lock held */
struct uwk_kfile *uwk_vdso_kfile(struct task_struct *task, u64 start,
				 u64 end, const void *key, kuid_t uid);
void uwk_vdso_forget(void);
void uwk_vdso_exit(void);

/* The per-process registry (registry.c). */
int uwk_registry_init(void);
void uwk_registry_exit(void);
struct uwk_kmm *uwk_kmm_find(struct mm_struct *mm);	/* under rcu_read_lock */
bool uwk_kmm_covers(const struct uwk_kmm *kmm, u64 start, u64 end);
bool uwk_kmm_changed(const struct uwk_kmm *kmm, struct mm_struct *mm);
void uwk_kmm_retable(void);
void uwk_kmm_each_need(void);
/* Any context: */
bool uwk_kmm_note_break(const struct uwk_kmm *kmm, u16 module);
void uwk_scan_mm(struct task_struct *task, struct mm_struct *mm,
		 unsigned long asked);
unsigned long uwk_next_seq(void);			/* any context */
void uwk_queue_work(struct work_struct *w);		/* any context */
void uwk_queue_delayed_work(struct delayed_work *w, unsigned long delay);
void uwk_gc(void);
void uwk_gc_soon(void);					/* any context */
void uwk_tables_flush(void);
void uwk_tables_show(struct seq_file *m);

/*
 * The agent's requests (requests.c): task context.  uwk_req_ask(): the
 * scan of task's process found kf's file, mapped at [start, end), without
 * the table it wants (uwk_kfile_need()): queue a request, once per file.
 */
int uwk_req_init(void);
void uwk_req_exit(void);
void uwk_req_ask(const struct uwk_kfile *kf, struct pid *pid, kuid_t uid,
		 u64 start, u64 end);
const char *uwk_req_state(const struct uwk_kid *id);	/* under RCU ok */
struct uwind_req;
struct uwind_done;
void uwk_req_stop(void);
/* The agent (dev.c): owner is its open file. */
int uwk_req_agent(void *owner);
bool uwk_req_is_agent(const void *owner);
void uwk_req_agent_gone(void *owner);
ssize_t uwk_req_take(struct uwind_req *out, size_t max);
void uwk_req_untake(const struct uwind_req *out, size_t n);
bool uwk_req_ready(void);
int uwk_req_done(const struct uwind_done *d);
void uwk_req_rescan(void);
void uwk_req_show(struct seq_file *m);
extern wait_queue_head_t uwk_req_wait;

/* /dev/uwind (dev.c). */
int uwk_dev_init(void);
void uwk_dev_exit(void);

/* Scan and unmap events (events.c). */
int uwk_events_init(void);
void uwk_events_exit(void);
void uwk_unlink_show(struct seq_file *m);	/* the unmap hooks in use */
void uwk_inflight_show(struct seq_file *m);	/* scan requests queued */
void uwk_request_scan(struct uwk_kmm *kmm, bool uncovered); /* any context */

/*
 * The architecture (arch_x86_64.c, arch_arm64.c): all the module knows of
 * the machine.  A port to another architecture supplies one file defining
 * these (and adds it to Kbuild, which refuses architectures without one):
 *
 * uwk_arch               the core's architecture of the native tasks and
 *                        of the SFrame tables accepted, the ELF e_machine
 *                        of the (64-bit, little-endian) files read for
 *                        them, and compat_machine: the e_machine of the
 *                        32-bit files read for compat tasks' EHABI tables
 *                        (EM_ARM on arm64), 0 where there are none.
 * uwk_arch_takes()       whether the module walks a sample with these
 *                        user registers; the others (x86's 32-bit tasks,
 *                        ...) go to the kernel's walker.  Any context.
 * uwk_arch_regs()        the user registers in DWARF numbering, as the
 *                        core's walker takes them, and in the walk's
 *                        configuration the architecture to walk them
 *                        with (a compat task's differs from uw_arch) and
 *                        the pointer-authentication bits to strip.  Any
 *                        context.
 * uwk_arch_scan()        what a scan of a task's address space does
 *                        first (task context): make the pages the hook
 *                        must read present.
 *
 * All of these but uwk_arch_scan() run from ftrace callbacks: notrace.
 * (Reading a hooked function's arguments and diverting it is the
 * kernel's ftrace interface, which differs by release: compat.h.)
 */
struct uwk_arch {
	enum uw_arch uw_arch;
	u16 elf_machine;
	u16 compat_machine;
};

extern const struct uwk_arch uwk_arch;

bool uwk_arch_takes(const struct pt_regs *regs);
void uwk_arch_regs(struct uw_walk_cfg *cfg, struct uw_regs *r,
		   const struct pt_regs *regs);
void uwk_arch_scan(struct task_struct *task, struct mm_struct *mm);

/*
 * The hook (hook.c).  A walk's frames go to a sink: perf's callchain
 * entry (the hook), or an array of max addresses (the deferred walk,
 * deferred.c).  uwk_walk_current() walks the current task's user stack
 * from regs, storing the pc first; any context, never faults; sets fault
 * to the user address whose read ended the walk, or 0, and uncovered when
 * the process had no table or a frame left every mapping the table knows.
 * Such a walk asks the workqueue for a scan (uwk_request_scan()) unless
 * self_scan says the caller scans the process itself on uncovered (the
 * deferred walk, which may sleep): a queued scan of the same mappings
 * would only repeat it.  limit_us is the walk's time limit (max_walk_us
 * or max_defer_walk_us, read by the caller).
 */
struct perf_callchain_entry_ctx;
struct uwk_sink {
	struct perf_callchain_entry_ctx *entry;
	unsigned long *ips;
	unsigned int nr, max;
	unsigned int limit_us;
	u64 fault;
	bool uncovered;
	bool self_scan;
};

void uwk_walk_current(struct uwk_sink *sink, struct pt_regs *regs);
int uwk_hook_init(void);
void uwk_hook_exit(void);

/* The deferred walk (deferred.c): not fatal when missing. */
void uwk_defer_init(void);
void uwk_defer_exit(void);
const char *uwk_defer_show(void);	/* "on", or "off (why)" */
void uwk_cache_show(struct seq_file *m);	/* the caches' stats */
void uwk_caches_show(struct seq_file *m);	/* ... each CPU's */

/*
 * The cache tags of a scan's n mappings (registry.c): ids never given
 * before, so that no entry of another mapping, of an earlier scan or of
 * another process answers for them (see uwk_kmm_cache_ids()).
 */
u64 uwk_cache_ids(u32 n);

#endif /* UWIND_KMOD_H */
