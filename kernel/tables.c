// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SFrame tables for the processes the module unwinds.
 *
 * Two levels.  A struct uw_kfile holds one ELF file's PT_GNU_SFRAME
 * section, copied into kernel memory once, checked whole, and shared
 * (refcounted) by every process that maps the file.  A struct uw_kmm
 * describes one address space: its executable mappings, each with the
 * file's table and the mapping's load bias, in the array form the core's
 * walker takes.  The hook finds a uw_kmm by mm in an RCU hash table and
 * only reads it; it never walks VMAs (6.1 frees them without RCU) and
 * never touches a file.
 *
 * Everything that reads files or VMAs runs on the module's workqueue, in
 * task context: at exec (the sched_process_exec tracepoint queues a scan)
 * and lazily, when a sample meets a process or a pc not yet known (NMI or
 * IRQ -> irq_work -> work).  A workqueue rather than task_work: 6.1 does
 * not export task_work_cancel, so a task_work still pending at unload
 * (its task asleep in a syscall) would call into freed module text; work
 * items can be flushed.
 *
 * Tables of processes that are gone are dropped by uw_gc(), which the
 * exec and exit tracepoints schedule; each uw_kmm pins its mm_struct
 * (mmgrab) so the pointer used as a key cannot be reused meanwhile.
 *
 * A table goes stale when one of its executable mappings is unmapped
 * (dlclose, munmap, MAP_FIXED over it): another file may come to the
 * same addresses, with as many mappings, which nothing else would notice.
 * An ftrace hook on unlink_file_vma() marks the process's table, and the
 * hook walks a marked process with frame pointers until the rescan that
 * the mark asks for has published a fresh table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/file.h>
#include <linux/ftrace.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <linux/cred.h>
#include <asm/unaligned.h>
#include "uwind_kmod.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define UW_MAX_LOADS	16	/* PT_LOAD segments remembered per file */
#define UW_MAX_PHDRS	128
#define UW_MAX_MAPS	1024	/* executable mappings per process */

enum uw_kfile_status {
	UW_KF_NONE, UW_KF_SFRAME, UW_KF_REJECTED, UW_KF_OVER, UW_KF_OVER_USER
};

static const char *const uw_kf_names[] = {
	"none", "sframe", "rejected", "over-max_total_mb", "over-max_user_pct"
};

/* max_table_kb above this is taken as this (kvmalloc's own limit is 2G). */
#define UW_TABLE_KB_CAP	(256 * 1024)

/* The largest FDE index entry of any SFrame version (V2's). */
#define UW_SFRAME_FDE_MAX	20

struct uw_load {
	u64 vaddr, off, filesz;
};

/*
 * What one uid's tables hold.  A table is charged to the user whose
 * process made the module read it, and uncharged when it is freed; the
 * entry lives exactly as long as it holds a charge.
 */
struct uw_kuser {
	struct hlist_node node;
	kuid_t uid;
	size_t bytes;
};

/* One ELF file's table, shared by every mapping of the file. */
struct uw_kfile {
	struct list_head node;
	struct kref ref;
	/* Identity: the same inode, unchanged since it was read. */
	dev_t dev;
	unsigned long ino;
	u32 gen;
	struct timespec64 mtime;
	loff_t size;

	int status;
	char *path;		/* for debugfs "breaks" */
	atomic_long_t breaks;	/* walks that broke here for want of a row */
	u8 *data;
	size_t len;
	struct uw_kuser *user;	/* charged with len, or NULL */
	kuid_t uid;		/* whose scan read it */
	size_t want;		/* UW_KF_OVER*: the size refused */
	struct uw_sframe sf;	/* decoded header, section at its ELF vaddr */
	u32 nloads;
	struct uw_load loads[UW_MAX_LOADS];
	size_t bytes;
};

/* One executable mapping of a process. */
struct uw_kmap {
	struct uw_kfile *kf;
	char name[48];
};

static LIST_HEAD(uw_files);
static DEFINE_MUTEX(uw_files_lock);

static DEFINE_HASHTABLE(uw_users, 6);
static DEFINE_MUTEX(uw_users_lock);
atomic_long_t uw_table_bytes = ATOMIC_LONG_INIT(0);	/* all charges */

static DEFINE_HASHTABLE(uw_mm_hash, 8);
static DEFINE_MUTEX(uw_mm_lock);	/* writers; the hook reads under RCU */

static struct workqueue_struct *uw_wq;
static LLIST_HEAD(uw_free_list);
static void uw_free_work_fn(struct work_struct *w);
static DECLARE_WORK(uw_free_work, uw_free_work_fn);
static void uw_gc_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(uw_gc_work, uw_gc_work_fn);
static void uw_gc_soon(void);

/*
 * Scan order: a request takes a number, a scan takes one when it starts
 * reading the mappings.  A request is answered by any scan that started
 * after it (jiffies are too coarse for that: a scan made during exec, of
 * a half-built address space, must not answer the request exec makes).
 */
static atomic_long_t uw_scan_seq = ATOMIC_LONG_INIT(0);

atomic_long_t uw_bytes_held = ATOMIC_LONG_INIT(0);
atomic_t uw_nr_mms = ATOMIC_INIT(0), uw_nr_files = ATOMIC_INIT(0);

/* ---- what each user's tables hold ---- */

static u64 uw_total_limit(void)
{
	return (u64)READ_ONCE(uw_max_total_mb) << 20;
}

static u64 uw_user_limit(void)
{
	return div_u64(uw_total_limit() *
		       min_t(unsigned int, READ_ONCE(uw_max_user_pct), 100),
		       100);
}

static struct uw_kuser *uw_kuser_find(kuid_t uid)
{
	struct uw_kuser *u;

	lockdep_assert_held(&uw_users_lock);
	hash_for_each_possible(uw_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/*
 * Reserve len bytes for a table of uid's before it is read: 0, or the
 * status that says why not (UW_KF_OVER, UW_KF_OVER_USER).  The check and
 * the reservation are one step under uw_users_lock, so scans that run at
 * once cannot all pass the check before any of them has counted (which
 * let twelve concurrent 64 MiB tables through a 256 MiB cap).
 */
static int uw_charge(struct uw_kfile *kf, kuid_t uid, size_t len)
{
	struct uw_kuser *u;
	int ret = 0;

	mutex_lock(&uw_users_lock);
	u = uw_kuser_find(uid);
	if (atomic_long_read(&uw_table_bytes) + len > uw_total_limit())
		ret = UW_KF_OVER;
	else if ((u ? u->bytes : 0) + len > uw_user_limit())
		ret = UW_KF_OVER_USER;
	else if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL);
		if (u) {
			u->uid = uid;
			hash_add(uw_users, &u->node, __kuid_val(uid));
		} else {
			ret = UW_KF_OVER;
		}
	}
	if (!ret) {
		u->bytes += len;
		atomic_long_add(len, &uw_table_bytes);
		kf->user = u;
	}
	mutex_unlock(&uw_users_lock);
	return ret;
}

/* Whether uw_charge(uid, len) would succeed now (a hint: no lock kept). */
static bool uw_charge_fits(kuid_t uid, size_t len)
{
	struct uw_kuser *u;
	bool fits;

	mutex_lock(&uw_users_lock);
	u = uw_kuser_find(uid);
	fits = atomic_long_read(&uw_table_bytes) + len <= uw_total_limit() &&
	       (u ? u->bytes : 0) + len <= uw_user_limit();
	mutex_unlock(&uw_users_lock);
	return fits;
}

/*
 * Give back len of the bytes uw_charge() reserved for kf; kf->user is
 * cleared when the whole charge is back (len == kf->len).
 */
static void uw_uncharge(struct uw_kfile *kf, size_t len)
{
	struct uw_kuser *u = kf->user;

	if (!u)
		return;
	mutex_lock(&uw_users_lock);
	u->bytes -= len;
	atomic_long_sub(len, &uw_table_bytes);
	if (!u->bytes) {
		hash_del(&u->node);
		kfree(u);
	}
	mutex_unlock(&uw_users_lock);
	if (len == kf->len)
		kf->user = NULL;
}

/* Each user holding tables, "uid bytes" (debugfs "users"). */
void uw_users_show(struct seq_file *m)
{
	struct uw_kuser *u;
	int bkt;

	mutex_lock(&uw_users_lock);
	hash_for_each(uw_users, bkt, u, node)
		seq_printf(m, "%u %zu\n",
			   from_kuid_munged(&init_user_ns, u->uid), u->bytes);
	mutex_unlock(&uw_users_lock);
}

/* ---- files ---- */

static int uw_read_at(struct file *f, void *buf, size_t len, loff_t pos)
{
	ssize_t r = kernel_read(f, buf, len, &pos);

	return r == (ssize_t)len ? 0 : -EIO;
}

/*
 * Check every FDE, FRE and row once, so the hook only ever meets tables
 * that decode: a malformed section is refused here, counted once.
 */
static int uw_validate(const struct uw_sframe *sf)
{
	struct uw_sframe_fde fde;
	struct uw_sframe_fre fre;
	struct uw_row row;
	u64 prev = 0;
	u32 i, j, off;
	int err;

	for (i = 0; i < sf->num_fdes; i++) {
		err = uw_sframe_fde(sf, i, &fde);
		if (err)
			return err;
		if (i && fde.func_start < prev)
			return UW_EUNSORTED;
		prev = fde.func_start;
		off = fde.fre_off;
		for (j = 0; j < fde.num_fres; j++) {
			err = uw_sframe_fre(sf, &fde, &off, &fre);
			err = err ? err : uw_sframe_row(sf, &fde, &fre, &row);
			if (err)
				return err;
		}
		cond_resched();
	}
	return 0;
}

/*
 * What an SFrame section's header says the section needs (header,
 * auxiliary header, FDE index, FRE subsection), from its first
 * UW_SFRAME_HDR_SIZE bytes, before anything else is read: a table costs
 * what it holds, not what its program header declares.  The size of an
 * FDE entry depends on the version; the largest is taken here (an upper
 * bound: uw_sframe_extent() gives the exact figure once the section is
 * in).  0: not a little-endian SFrame header, the only kind this module
 * unwinds.
 */
static u64 uw_sframe_claim(const u8 *h)
{
	u64 base = UW_SFRAME_HDR_SIZE + (u64)h[7];	/* + auxhdr_len */
	u64 fdes = get_unaligned_le32(h + 20) +		/* fdeoff */
		   (u64)get_unaligned_le32(h + 8) * UW_SFRAME_FDE_MAX;
	u64 fres = get_unaligned_le32(h + 24) +		/* freoff */
		   (u64)get_unaligned_le32(h + 16);	/* fre_len */

	if (get_unaligned_le16(h) != UW_SFRAME_MAGIC)
		return 0;
	return base + max(fdes, fres);
}

/* The bytes the decoded header describes. */
static u64 uw_sframe_extent(const struct uw_sframe *sf)
{
	return max((u64)sf->fde_start + (u64)sf->num_fdes * sf->fde_size,
		   (u64)sf->fre_start + sf->fre_len);
}

/*
 * Keep only the first len bytes of kf's table (len <= kf->len), with the
 * charge for the rest given back.  0, or -ENOMEM.
 */
static int uw_kfile_trim(struct uw_kfile *kf, size_t len)
{
	u8 *data;

	if (len == kf->len)
		return 0;
	data = kvmalloc(len, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	memcpy(data, kf->data, len);
	kvfree(kf->data);
	kf->data = data;
	uw_uncharge(kf, kf->len - len);
	kf->len = len;
	return 0;
}

/*
 * Copy, decode and check the SFrame section that ph describes, charged to
 * uid; kf->status says how it went.  Only what the section's header
 * describes is read and kept: binutils 2.40's ld leaves the output section
 * larger than the merged table (by 33 or 34 bytes in every program the
 * tests build: room for FDEs it dropped), so a segment longer than its
 * table is normal and only its table is copied; a header that claims more
 * than the segment holds is refused.  Every path that fails after the
 * charge gives it back.
 */
static void uw_kfile_load_sframe(struct uw_kfile *kf, struct file *f,
				 const Elf64_Phdr *ph, kuid_t uid)
{
	u64 max_len = (u64)min_t(unsigned int, uw_max_table_kb,
				 UW_TABLE_KB_CAP) * 1024;
	u8 hdr[UW_SFRAME_HDR_SIZE];
	struct uw_span span;
	u64 len;
	int err;

	kf->status = UW_KF_REJECTED;
	if (ph->p_filesz < sizeof(hdr) ||
	    uw_read_at(f, hdr, sizeof(hdr), ph->p_offset))
		return;
	len = min(uw_sframe_claim(hdr), ph->p_filesz);
	if (len < sizeof(hdr) || len > max_len) {
		err = len ? UW_EHEADER : UW_EMAGIC;
		goto refused;
	}
	/*
	 * Any user can make the module copy a table (exec a file), so the
	 * tables of each user stay under max_user_pct of max_total_mb and
	 * all of them under max_total_mb: past that a file runs without
	 * one, and with frame pointers, until it is mapped again.
	 */
	err = uw_charge(kf, uid, len);
	if (err) {
		kf->status = err;
		kf->want = len;
		return;
	}
	kf->len = len;
	kf->data = kvmalloc(kf->len, GFP_KERNEL);
	err = UW_EREAD;
	if (!kf->data || uw_read_at(f, kf->data, kf->len, ph->p_offset))
		goto rejected;
	span.data = kf->data;
	span.size = kf->len;
	span.addr = ph->p_vaddr;
	err = uw_sframe_init(&kf->sf, &span);
	if (!err && kf->sf.arch != UW_ARCH_X86_64)
		err = UW_EARCH;
	if (!err && uw_kfile_trim(kf, uw_sframe_extent(&kf->sf)))
		goto rejected;
	span.data = kf->data;
	span.size = kf->len;
	err = err ? err : uw_sframe_init(&kf->sf, &span);
	err = err ? err : uw_validate(&kf->sf);
	if (err)
		goto rejected;
	kf->status = UW_KF_SFRAME;
	return;

rejected:
	kvfree(kf->data);
	kf->data = NULL;
	uw_uncharge(kf, kf->len);
	kf->len = 0;
refused:
	if (err != UW_EREAD)
		pr_info_ratelimited("%pD: SFrame section refused: %s\n", f,
				    uw_strerror(err));
}

/* Read the ELF headers and the SFrame section of f into kf. */
static void uw_kfile_load(struct uw_kfile *kf, struct file *f, kuid_t uid)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	int i, sfr = -1;

	kf->status = UW_KF_NONE;
	if (uw_read_at(f, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 ||
	    eh.e_phentsize != sizeof(*ph) || !eh.e_phnum ||
	    eh.e_phnum > UW_MAX_PHDRS)
		return;
	ph = kmalloc_array(eh.e_phnum, sizeof(*ph), GFP_KERNEL);
	if (!ph)
		return;
	if (uw_read_at(f, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && kf->nloads < UW_MAX_LOADS) {
			kf->loads[kf->nloads].vaddr = ph[i].p_vaddr;
			kf->loads[kf->nloads].off = ph[i].p_offset;
			kf->loads[kf->nloads++].filesz = ph[i].p_filesz;
		} else if (ph[i].p_type == PT_GNU_SFRAME) {
			sfr = i;
		}
	}
	if (sfr >= 0)
		uw_kfile_load_sframe(kf, f, &ph[sfr], uid);
out:
	kfree(ph);
}

static bool uw_kfile_match(const struct uw_kfile *kf, const struct inode *in)
{
	return kf->dev == in->i_sb->s_dev && kf->ino == in->i_ino &&
	       kf->gen == in->i_generation &&
	       timespec64_equal(&kf->mtime, &in->i_mtime) &&
	       kf->size == i_size_read(in);
}

static bool uw_kfile_over(const struct uw_kfile *kf)
{
	return kf->status == UW_KF_OVER || kf->status == UW_KF_OVER_USER;
}

/*
 * A listed table of the file in for uid (no reference taken);
 * uw_files_lock held.  A file left without its table by a limit is that user's
 * verdict, and only for as long as the limit still holds: another user
 * mapping the same file, or the same user once there is room again, gets
 * a fresh try (else one user could keep everybody's libraries out by
 * mapping them first, over its share).
 */
static struct uw_kfile *uw_kfile_lookup(const struct inode *in, kuid_t uid)
{
	struct uw_kfile *kf, *over = NULL;

	lockdep_assert_held(&uw_files_lock);
	list_for_each_entry(kf, &uw_files, node) {
		if (!uw_kfile_match(kf, in))
			continue;
		if (!uw_kfile_over(kf))
			return kf;
		if (uid_eq(kf->uid, uid) && !over)
			over = kf;
	}
	return over && !uw_charge_fits(uid, over->want) ? over : NULL;
}

/* ---- where walks broke ---- */

/* f's path, for the list of breaks; NULL if there is no memory. */
static char *uw_path_dup(struct file *f)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL), *p, *dup = NULL;

	if (!buf)
		return NULL;
	p = file_path(f, buf, PATH_MAX);
	if (!IS_ERR(p))
		dup = kstrdup(p, GFP_KERNEL);
	kfree(buf);
	return dup;
}

/*
 * A walk broke at a pc in mapping module of kmm, for want of a table row:
 * count it against the mapping's file (true), or leave it to the caller
 * (false: an anonymous mapping, or none).  Runs in the hook, under RCU:
 * the file lives until kmm is freed after a grace period.
 */
bool uw_kmm_note_break(const struct uw_kmm *kmm, u16 module)
{
	struct uw_kfile *kf = module < kmm->n ? kmm->maps[module].kf : NULL;

	if (!kf)
		return false;
	atomic_long_inc(&kf->breaks);
	return true;
}

/*
 * The counts of files no longer mapped, so that "breaks" still lists a
 * program's libraries after it has exited: at most UW_MAX_RETIRED paths,
 * the least frequent dropped first.  Under uw_files_lock.
 */
#define UW_MAX_RETIRED	32

struct uw_retired {
	struct list_head node;
	unsigned long n;
	char path[];
};

static LIST_HEAD(uw_retired_list);
static unsigned int uw_nr_retired;

static void uw_breaks_retire(const struct uw_kfile *kf)
{
	unsigned long n = atomic_long_read(&kf->breaks);
	struct uw_retired *r, *least = NULL;

	lockdep_assert_held(&uw_files_lock);
	if (!n || !kf->path)
		return;
	list_for_each_entry(r, &uw_retired_list, node) {
		if (!strcmp(r->path, kf->path)) {
			r->n += n;
			return;
		}
		if (!least || r->n < least->n)
			least = r;
	}
	if (uw_nr_retired == UW_MAX_RETIRED) {
		if (least->n >= n)
			return;
		list_del(&least->node);
		kfree(least);
		uw_nr_retired--;
	}
	r = kmalloc(struct_size(r, path, strlen(kf->path) + 1), GFP_KERNEL);
	if (!r)
		return;
	r->n = n;
	strcpy(r->path, kf->path);
	list_add(&r->node, &uw_retired_list);
	uw_nr_retired++;
}

static void uw_breaks_free(void)
{
	struct uw_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &uw_retired_list, node)
		kfree(r);
	INIT_LIST_HEAD(&uw_retired_list);
	uw_nr_retired = 0;
}

struct uw_break_row {
	const char *path;
	unsigned long n;
};

static int uw_break_cmp(const void *a, const void *b)
{
	const struct uw_break_row *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->path, y->path);
}

/* Add n breaks of path to rows[0..*nr), merging equal paths. */
static void uw_break_add(struct uw_break_row *rows, size_t *nr,
			 const char *path, unsigned long n)
{
	size_t i;

	for (i = 0; i < *nr; i++) {
		if (!strcmp(rows[i].path, path)) {
			rows[i].n += n;
			return;
		}
	}
	rows[*nr].path = path;
	rows[(*nr)++].n = n;
}

/*
 * debugfs "breaks": "count path" for every file where walks broke for
 * want of a table (since the module was loaded), most frequent first.
 */
void uw_breaks_show(struct seq_file *m)
{
	struct uw_break_row *rows;
	struct uw_retired *r;
	struct uw_kfile *kf;
	size_t nr = 0, max = 0, i;

	mutex_lock(&uw_files_lock);
	list_for_each_entry(kf, &uw_files, node)
		max += kf->path && atomic_long_read(&kf->breaks);
	max += uw_nr_retired;
	rows = kvmalloc_array(max ? max : 1, sizeof(*rows), GFP_KERNEL);
	if (!rows) {
		mutex_unlock(&uw_files_lock);
		return;
	}
	list_for_each_entry(kf, &uw_files, node) {
		unsigned long n = atomic_long_read(&kf->breaks);

		if (kf->path && n && nr < max)
			uw_break_add(rows, &nr, kf->path, n);
	}
	list_for_each_entry(r, &uw_retired_list, node)
		if (nr < max)
			uw_break_add(rows, &nr, r->path, r->n);
	sort(rows, nr, sizeof(*rows), uw_break_cmp, NULL);
	for (i = 0; i < nr; i++)
		seq_printf(m, "%lu %s\n", rows[i].n, rows[i].path);
	mutex_unlock(&uw_files_lock);
	kvfree(rows);
}

static void uw_kfile_count(const struct uw_kfile *kf)
{
	if (kf->status == UW_KF_SFRAME)
		uw_stat_inc(UW_ST_TABLES_LOADED);
	else if (kf->status == UW_KF_REJECTED)
		uw_stat_inc(UW_ST_TABLES_REJECTED);
	else if (kf->status == UW_KF_OVER)
		uw_stat_inc(UW_ST_TABLES_OVER);
	else if (kf->status == UW_KF_OVER_USER)
		uw_stat_inc(UW_ST_TABLES_OVER_USER);
}

/*
 * The table of f for uid, loaded on first use; a reference for the
 * caller.  The file is read without uw_files_lock held: a read that
 * blocks (a FUSE daemon that never answers, a hard NFS mount) then stalls
 * only this scan, not every scan after it.  Two scans that load the same
 * file at once keep the first table listed.
 */
static struct uw_kfile *uw_kfile_get(struct file *f, kuid_t uid)
{
	struct inode *in = file_inode(f);
	struct uw_kfile *kf, *listed;

	mutex_lock(&uw_files_lock);
	kf = uw_kfile_lookup(in, uid);
	if (kf)
		kref_get(&kf->ref);
	mutex_unlock(&uw_files_lock);
	if (kf)
		return kf;

	kf = kzalloc(sizeof(*kf), GFP_KERNEL);
	if (!kf)
		return NULL;
	kref_init(&kf->ref);
	kf->dev = in->i_sb->s_dev;
	kf->ino = in->i_ino;
	kf->gen = in->i_generation;
	kf->mtime = in->i_mtime;
	kf->size = i_size_read(in);
	kf->uid = uid;
	kf->path = uw_path_dup(f);
	/* Only regular files are read: a device's read may do anything. */
	if (S_ISREG(in->i_mode))
		uw_kfile_load(kf, f, uid);
	kf->bytes = sizeof(*kf) + kf->len + (kf->path ? strlen(kf->path) + 1 : 0);

	mutex_lock(&uw_files_lock);
	listed = uw_kfile_lookup(in, uid);
	/* Ours got in where the listed one was kept out: list ours. */
	if (listed && uw_kfile_over(listed) && !uw_kfile_over(kf))
		listed = NULL;
	if (listed) {
		kref_get(&listed->ref);
	} else {
		atomic_long_add(kf->bytes, &uw_bytes_held);
		atomic_inc(&uw_nr_files);
		list_add(&kf->node, &uw_files);
		uw_kfile_count(kf);
	}
	mutex_unlock(&uw_files_lock);
	if (listed) {
		kvfree(kf->data);
		uw_uncharge(kf, kf->len);
		kfree(kf->path);
		kfree(kf);
		kf = listed;
	}
	return kf;
}

static void uw_kfile_release(struct kref *ref)
	__releases(&uw_files_lock)
{
	struct uw_kfile *kf = container_of(ref, struct uw_kfile, ref);

	list_del(&kf->node);
	uw_breaks_retire(kf);
	mutex_unlock(&uw_files_lock);
	atomic_long_sub(kf->bytes, &uw_bytes_held);
	atomic_dec(&uw_nr_files);
	kvfree(kf->data);
	uw_uncharge(kf, kf->len);
	kfree(kf->path);
	kfree(kf);
}

static void uw_kfile_put(struct uw_kfile *kf)
{
	if (kf)
		kref_put_mutex(&kf->ref, uw_kfile_release, &uw_files_lock);
}

/* Load bias of a mapping of kf at start, from file offset fo; 0: none. */
static bool uw_bias(const struct uw_kfile *kf, u64 start, u64 fo, u64 *bias)
{
	u32 i;

	for (i = 0; i < kf->nloads; i++) {
		const struct uw_load *l = &kf->loads[i];

		if ((l->off & PAGE_MASK) <= fo && fo < l->off + l->filesz) {
			*bias = start - fo - (l->vaddr - l->off);
			return true;
		}
	}
	return false;
}

/* ---- processes ---- */

struct uw_kmm *uw_kmm_find(struct mm_struct *mm)
{
	struct uw_kmm *kmm;

	hash_for_each_possible_rcu(uw_mm_hash, kmm, node, (unsigned long)mm)
		if (kmm->mm == mm)
			return kmm;
	return NULL;
}

static struct uw_kmm *uw_kmm_find_locked(struct mm_struct *mm)
{
	struct uw_kmm *kmm;

	lockdep_assert_held(&uw_mm_lock);
	hash_for_each_possible(uw_mm_hash, kmm, node, (unsigned long)mm)
		if (kmm->mm == mm)
			return kmm;
	return NULL;
}

static void uw_kmm_free_now(struct uw_kmm *kmm)
{
	u32 i;

	for (i = 0; i < kmm->n; i++)
		uw_kfile_put(kmm->maps[i].kf);
	mmdrop(kmm->mm);
	atomic_long_sub(kmm->bytes, &uw_bytes_held);
	atomic_dec(&uw_nr_mms);
	kvfree(kmm);
}

/* After a grace period, in task context: file references need the mutex. */
static void uw_free_work_fn(struct work_struct *w)
{
	struct llist_node *list = llist_del_all(&uw_free_list);
	struct uw_kmm *kmm, *next;

	llist_for_each_entry_safe(kmm, next, list, free_node)
		uw_kmm_free_now(kmm);
}

static void uw_kmm_rcu_cb(struct rcu_head *rcu)
{
	struct uw_kmm *kmm = container_of(rcu, struct uw_kmm, rcu);

	llist_add(&kmm->free_node, &uw_free_list);
	queue_work(uw_wq, &uw_free_work);
}

/* One executable mapping found by the scan. */
struct uw_vma_snap {
	u64 start, end, pgoff;
	struct file *file;
};

static struct uw_kmm *uw_kmm_alloc(u32 n)
{
	size_t size = sizeof(struct uw_kmm) +
		      n * (sizeof(struct uw_kmap) + sizeof(struct uw_module) +
			   sizeof(struct uw_sframe));
	struct uw_kmm *kmm = kvzalloc(size, GFP_KERNEL);

	if (!kmm)
		return NULL;
	kmm->bytes = size;
	kmm->maps = (struct uw_kmap *)(kmm + 1);
	kmm->mods = (struct uw_module *)(kmm->maps + n);
	kmm->sfs = (struct uw_sframe *)(kmm->mods + n);
	return kmm;
}

/* Fill mapping i of kmm from a snapshot (consumes the file reference). */
static void uw_kmm_fill(struct uw_kmm *kmm, u32 i, struct uw_vma_snap *v,
			kuid_t uid)
{
	struct uw_kfile *kf = NULL;
	u64 bias;

	kmm->mods[i].start = v->start;
	kmm->mods[i].end = v->end;
	kmm->mods[i].sframe = NULL;
	if (!v->file) {
		strscpy(kmm->maps[i].name, "[anon]", sizeof(kmm->maps[i].name));
		return;
	}
	kf = uw_kfile_get(v->file, uid);
	snprintf(kmm->maps[i].name, sizeof(kmm->maps[i].name), "%pD",
		 v->file);
	fput(v->file);
	kmm->maps[i].kf = kf;
	if (kf && kf->status == UW_KF_SFRAME &&
	    uw_bias(kf, v->start, v->pgoff << PAGE_SHIFT, &bias)) {
		kmm->sfs[i] = kf->sf;
		kmm->sfs[i].sec.addr = kf->sf.sec.addr + bias;
		kmm->mods[i].sframe = &kmm->sfs[i];
	}
}

/* Snapshot the executable file mappings of mm; returns how many. */
static u32 uw_snap_vmas(struct mm_struct *mm, struct uw_vma_snap *snap,
			int *map_count)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, 0);
	u32 n = 0;

	mmap_read_lock(mm);
	*map_count = mm->map_count;
	for_each_vma(vmi, vma) {
		/*
		 * Anonymous executable mappings (the vDSO, JIT code) are kept
		 * too, without a table: a pc there is known, and does not ask
		 * for a rescan with every sample.
		 */
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (n == UW_MAX_MAPS)
			break;
		snap[n].start = vma->vm_start;
		snap[n].end = vma->vm_end;
		snap[n].pgoff = vma->vm_pgoff;
		snap[n].file = vma->vm_file ? get_file(vma->vm_file) : NULL;
		n++;
	}
	mmap_read_unlock(mm);
	return n;
}

/* Build and publish the table of task's address space mm. */
static void uw_scan_mm(struct task_struct *task, struct mm_struct *mm,
		       unsigned long asked)
{
	kuid_t uid = task_uid(task);	/* who is charged for new tables */
	struct uw_vma_snap *snap;
	struct uw_kmm *kmm, *old;
	unsigned long seq;
	int map_count;
	u32 i, n;

	/* A scan started after the request already answered it. */
	rcu_read_lock();
	old = uw_kmm_find(mm);
	if (old && old->seq > asked) {
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	seq = atomic_long_inc_return(&uw_scan_seq);

	snap = kvmalloc_array(UW_MAX_MAPS, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;
	n = uw_snap_vmas(mm, snap, &map_count);
	kmm = uw_kmm_alloc(n);
	if (!kmm) {
		for (i = 0; i < n; i++)
			if (snap[i].file)
				fput(snap[i].file);
		kvfree(snap);
		return;
	}
	for (i = 0; i < n; i++)
		uw_kmm_fill(kmm, i, &snap[i], uid);
	kvfree(snap);
	kmm->n = n;
	kmm->mm = mm;
	mmgrab(mm);
	kmm->tgid = task->tgid;
	get_task_comm(kmm->comm, task);
	kmm->scanned = jiffies;
	kmm->seq = seq;
	kmm->map_count = map_count;
	atomic_long_add(kmm->bytes, &uw_bytes_held);
	atomic_inc(&uw_nr_mms);
	uw_stat_inc(UW_ST_SCANS);

	mutex_lock(&uw_mm_lock);
	old = uw_kmm_find_locked(mm);
	if (old && old->seq > seq) {
		/* A scan that started later published first: it is newer. */
		mutex_unlock(&uw_mm_lock);
		uw_kmm_free_now(kmm);
		return;
	}
	/* A mapping unmapped after this scan read them: still stale. */
	if (old && READ_ONCE(old->stale_seq) > seq)
		kmm->stale_seq = old->stale_seq;
	if (old)
		hlist_replace_rcu(&old->node, &kmm->node);
	else
		hash_add_rcu(uw_mm_hash, &kmm->node, (unsigned long)mm);
	mutex_unlock(&uw_mm_lock);
	if (old)
		call_rcu(&old->rcu, uw_kmm_rcu_cb);
}

struct uw_scan_req {
	struct work_struct work;
	struct task_struct *task;
	unsigned long asked;
};

static void uw_scan_work_fn(struct work_struct *w)
{
	struct uw_scan_req *req = container_of(w, struct uw_scan_req, work);
	struct mm_struct *mm = get_task_mm(req->task);

	if (mm) {
		uw_scan_mm(req->task, mm, req->asked);
		mmput(mm);
		/*
		 * If the task exited meanwhile, this mmput may have been the
		 * last: the collection its exit scheduled skipped this mm.
		 */
		if (req->task->flags & PF_EXITING)
			uw_gc_soon();
	}
	put_task_struct(req->task);
	kfree(req);
}

/* Queue a scan of task's mappings; takes over a task reference. */
static void uw_queue_scan(struct task_struct *task)
{
	struct uw_scan_req *req = kmalloc(sizeof(*req), GFP_ATOMIC);

	if (!req) {
		put_task_struct(task);
		return;
	}
	INIT_WORK(&req->work, uw_scan_work_fn);
	req->task = task;
	req->asked = atomic_long_inc_return(&uw_scan_seq);
	queue_work(uw_wq, &req->work);
}

/*
 * Lazy requests from the hook.  An NMI can neither allocate nor queue
 * work, so it parks the task in a per-CPU slot and raises an irq_work,
 * which queues the scan from hard-irq context.  One request per CPU is in
 * flight at a time; the rest are dropped and come back with a later
 * sample.
 */
struct uw_lazy {
	struct irq_work iw;
	struct task_struct *task;
};

static DEFINE_PER_CPU(struct uw_lazy, uw_lazy);

static void uw_lazy_fn(struct irq_work *iw)
{
	struct uw_lazy *l = container_of(iw, struct uw_lazy, iw);
	struct task_struct *task = xchg(&l->task, NULL);

	if (task)
		uw_queue_scan(task);
}

void uw_request_scan(struct uw_kmm *kmm, bool uncovered)
{
	struct uw_lazy *l;

	/* Mid-exec the new address space is half built: exec will ask. */
	if (!current->mm || (current->flags & PF_KTHREAD) ||
	    current->in_execve)
		return;
	/*
	 * A known process is rescanned when a pc falls outside its table,
	 * or when its mappings changed since the scan (ld.so, dlopen,
	 * munmap): then a pc may be covered by a stale entry.  Both at most
	 * every uw_rescan_ms, except that an uncovered pc in changed
	 * mappings asks at once.  map_count is read racily: a hint.
	 */
	if (kmm) {
		bool changed = READ_ONCE(current->mm->map_count) !=
			       kmm->map_count || READ_ONCE(kmm->stale_seq);
		bool recent = time_before(jiffies, kmm->scanned +
					  msecs_to_jiffies(uw_rescan_ms));

		if (!changed && (!uncovered || recent))
			return;
		if (changed && !uncovered && recent)
			return;
	}
	l = this_cpu_ptr(&uw_lazy);
	if (READ_ONCE(l->task))
		return;
	/* The task is running: this cannot be its last reference. */
	get_task_struct(current);
	if (cmpxchg(&l->task, NULL, current)) {
		put_task_struct(current);
		return;
	}
	uw_stat_inc(UW_ST_LAZY_REQUESTS);
	irq_work_queue(&l->iw);
}

/* ---- garbage collection ---- */

void uw_gc(void)
{
	struct hlist_node *tmp;
	struct uw_kmm *kmm;
	int bkt;

	mutex_lock(&uw_mm_lock);
	hash_for_each_safe(uw_mm_hash, bkt, tmp, kmm, node) {
		if (atomic_read(&kmm->mm->mm_users))
			continue;
		hash_del_rcu(&kmm->node);
		call_rcu(&kmm->rcu, uw_kmm_rcu_cb);
	}
	mutex_unlock(&uw_mm_lock);
}

static void uw_gc_work_fn(struct work_struct *w)
{
	uw_gc();
}

/* Wait for the frees queued so far (debugfs "gc" wants them done). */
void uw_tables_flush(void)
{
	flush_workqueue(uw_wq);
}

static void uw_gc_soon(void)
{
	queue_delayed_work(uw_wq, &uw_gc_work, msecs_to_jiffies(100));
}

/* ---- unmapped executable mappings ---- */

static bool uw_kmm_covers(const struct uw_kmm *kmm, u64 start, u64 end)
{
	u32 i;

	for (i = 0; i < kmm->n; i++)
		if (kmm->mods[i].start < end && start < kmm->mods[i].end)
			return true;
	return false;
}

/*
 * unlink_file_vma(vma): 6.1 calls it for every file mapping that munmap,
 * mremap, an mmap over it or exit removes, with the mmap lock held for
 * writing.  Marks the table of vma's process if it holds the mapping.
 */
static void notrace uw_on_unlink(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *ops,
				 struct ftrace_regs *fregs)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)
		regs_get_kernel_argument(ftrace_get_regs(fregs), 0);
	struct uw_kmm *kmm;

	if (!vma || !(vma->vm_flags & VM_EXEC) || !vma->vm_mm)
		return;
	rcu_read_lock();
	kmm = uw_kmm_find(vma->vm_mm);
	if (kmm && !READ_ONCE(kmm->stale_seq) &&
	    uw_kmm_covers(kmm, vma->vm_start, vma->vm_end))
		WRITE_ONCE(kmm->stale_seq,
			   atomic_long_inc_return(&uw_scan_seq));
	rcu_read_unlock();
}

static struct ftrace_ops uw_unlink_ops = {
	.func = uw_on_unlink,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION,
};

static bool uw_unlink_on;

/* Not fatal: without it the map_count hint and uncovered pcs remain. */
static void uw_unlink_hook_init(void)
{
	static const char sym[] = "unlink_file_vma";
	int ret;

	ret = ftrace_set_filter(&uw_unlink_ops, (unsigned char *)sym,
				strlen(sym), 1);
	ret = ret ? ret : register_ftrace_function(&uw_unlink_ops);
	if (ret) {
		pr_warn("cannot trace %s (%d): a library replaced at the same address may be unwound with the old table\n",
			sym, ret);
		ftrace_free_filter(&uw_unlink_ops);
		return;
	}
	uw_unlink_on = true;
}

static void uw_unlink_hook_exit(void)
{
	if (!uw_unlink_on)
		return;
	unregister_ftrace_function(&uw_unlink_ops);
	ftrace_free_filter(&uw_unlink_ops);
	uw_unlink_on = false;
}

/* ---- tracepoints ---- */

static void uw_on_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	get_task_struct(p);
	uw_queue_scan(p);
	uw_gc_soon();		/* the old address space is gone */
}

static void uw_on_exit(void *data, struct task_struct *p)
{
	uw_gc_soon();
}

struct uw_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct uw_tp uw_tps[] = {
	{ "sched_process_exec", uw_on_exec },
	{ "sched_process_exit", uw_on_exit },
};

static void uw_tp_lookup(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uw_tps); i++)
		if (!strcmp(tp->name, uw_tps[i].name))
			uw_tps[i].tp = tp;
}

static void uw_tp_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uw_tps); i++)
		if (uw_tps[i].tp)
			tracepoint_probe_unregister(uw_tps[i].tp,
						    uw_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
}

/* ---- debugfs listing ---- */

void uw_tables_show(struct seq_file *m)
{
	struct uw_kmm *kmm;
	u32 i;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(uw_mm_hash, bkt, kmm, node) {
		seq_printf(m, "pid %d %s%s\n", kmm->tgid, kmm->comm,
			   READ_ONCE(kmm->stale_seq) ? " stale" : "");
		for (i = 0; i < kmm->n; i++) {
			struct uw_kfile *kf = kmm->maps[i].kf;

			seq_printf(m, "  %llx-%llx %s %s\n",
				   kmm->mods[i].start, kmm->mods[i].end,
				   kmm->maps[i].name,
				   kf ? uw_kf_names[kf->status] : "none");
		}
	}
	rcu_read_unlock();
}

/* ---- load and unload ---- */

int uw_tables_init(void)
{
	size_t i;
	int cpu, ret;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu(uw_lazy, cpu).iw, uw_lazy_fn);
	uw_wq = alloc_workqueue("uwind", WQ_UNBOUND, 0);
	if (!uw_wq)
		return -ENOMEM;
	for_each_kernel_tracepoint(uw_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(uw_tps); i++) {
		if (!uw_tps[i].tp) {
			pr_err("tracepoint %s not found\n", uw_tps[i].name);
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register(uw_tps[i].tp, uw_tps[i].probe,
						NULL);
		if (ret) {
			uw_tps[i].tp = NULL;
			goto fail;
		}
	}
	uw_unlink_hook_init();
	return 0;
fail:
	uw_tp_unregister();
	destroy_workqueue(uw_wq);
	return ret;
}

/* Called once the hook can no longer run. */
void uw_tables_exit(void)
{
	struct hlist_node *tmp;
	struct uw_kmm *kmm;
	int bkt, cpu;

	uw_unlink_hook_exit();
	uw_tp_unregister();
	for_each_possible_cpu(cpu) {
		struct uw_lazy *l = &per_cpu(uw_lazy, cpu);
		struct task_struct *task;

		irq_work_sync(&l->iw);
		task = xchg(&l->task, NULL);
		if (task)
			put_task_struct(task);
	}
	cancel_delayed_work_sync(&uw_gc_work);
	flush_workqueue(uw_wq);		/* pending scans publish, then stop */

	mutex_lock(&uw_mm_lock);
	hash_for_each_safe(uw_mm_hash, bkt, tmp, kmm, node) {
		hash_del_rcu(&kmm->node);
		call_rcu(&kmm->rcu, uw_kmm_rcu_cb);
	}
	mutex_unlock(&uw_mm_lock);
	rcu_barrier();			/* every callback has queued its free */
	flush_workqueue(uw_wq);
	destroy_workqueue(uw_wq);
	WARN_ON(!list_empty(&uw_files));
	uw_breaks_free();
}
