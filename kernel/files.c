// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Per-file tables: one ELF file's PT_GNU_SFRAME section, or for a file
 * without one the table `uwind sframe --install` made for it
 * (installed.c), or a 32-bit ARM file's EHABI tables on arm64 (ehabi.c),
 * copied into kernel memory once, checked whole, and shared (refcounted)
 * by every process that maps the file (the vDSO is such a file, known by
 * its build-id); what each user's tables hold (the caps), and the
 * system's (the tables root installed); installed tables kept a while
 * after their last user (short-lived programs do not read libc's again);
 * and the count of walks that broke in each file for want of a table row
 * (debugfs "breaks").  Everything here runs in task context, on the
 * module's workqueue (registry.c), except uwk_kfile_note_break().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "uwind_kmod.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define UWK_MAX_LOADS	16	/* PT_LOAD segments remembered per file */
#define UWK_MAX_PHDRS	128

enum uwk_kfile_status {
	UWK_KF_NONE, UWK_KF_SFRAME, UWK_KF_REJECTED, UWK_KF_OVER, UWK_KF_OVER_USER,
	UWK_KF_INSTALLED, UWK_KF_EHABI,
};

static const char *const uwk_kf_names[] = {
	"none", "sframe", "rejected", "over-max_total_mb", "over-max_user_pct",
	"installed", "ehabi",
};

/* max_table_kb above this is taken as this (kvmalloc's own limit is 2G). */
#define UWK_TABLE_KB_CAP	(256 * 1024)

/* The largest FDE index entry of any SFrame version (V2's). */
#define UWK_SFRAME_FDE_MAX	20

/*
 * What one uid's tables hold.  A table is charged to the user whose
 * process made the module read it, and uncharged when it is freed; the
 * entry lives exactly as long as it holds a charge.  The tables root
 * installed (installed.c: the system's libraries, the vDSO) are charged
 * to the system pool instead: they are not the files of the first user
 * who happens to map them, so they count in max_total_mb only, outside
 * every user's max_user_pct share.
 */
struct uwk_kuser {
	struct hlist_node node;
	kuid_t uid;
	size_t bytes;
};

static struct uwk_kuser uwk_system_pool;

/* One ELF file's table, shared by every mapping of the file. */
struct uwk_kfile {
	struct list_head node;
	struct kref ref;
	struct uwk_kid kid;
	/*
	 * No PT_GNU_SFRAME: the state comes from the installed tables as
	 * they were at inst_gen, and is looked up again after an install.
	 */
	bool no_own;
	unsigned long inst_gen;
	/*
	 * An installed table came for the file since (the agent's answer,
	 * requests.c): looked up again by the next scan, as after an
	 * install, without the other files' tables being read again.
	 */
	bool retry;
	/* The table it wants from the agent, UWIND_WHY_* or 0 (uwk_kfile_need). */
	u8 need;
	bool no_build_id;	/* installed tables are keyed by its CFI */

	int status;
	char *path;		/* for debugfs "breaks" */
	atomic_long_t breaks;	/* walks that broke here for want of a row */
	u8 *data;
	size_t len;
	struct uwk_kuser *user;	/* charged with len, or NULL */
	kuid_t uid;		/* whose scan read it */
	/*
	 * An installed table no process uses any more: listed, unreferenced
	 * (ref 0), kept until keep_s have passed since idle_since, or its
	 * room is wanted for another table (oldest first), or an install
	 * made it stale.
	 */
	bool idle;
	unsigned long idle_since;
	unsigned long seq;	/* when it was listed: which load it is */
	size_t want;		/* UWK_KF_OVER*: the size refused */
	struct uw_sframe sf;	/* decoded header, section at its ELF vaddr */
	struct uw_ehabi eh;	/* UWK_KF_EHABI: the index and extab in data */
	u32 nloads;
	struct uwk_load loads[UWK_MAX_LOADS];
	size_t bytes;
};

static LIST_HEAD(uwk_files);
static DEFINE_MUTEX(uwk_files_lock);

static DEFINE_HASHTABLE(uwk_users, 6);
static DEFINE_MUTEX(uwk_users_lock);
atomic_long_t uwk_table_bytes = ATOMIC_LONG_INIT(0);	/* all charges */

atomic_t uwk_nr_files = ATOMIC_INIT(0);

/* ---- what each user's tables hold ---- */

static u64 uwk_total_limit(void)
{
	return (u64)READ_ONCE(uwk_max_total_mb) << 20;
}

static u64 uwk_user_limit(void)
{
	return div_u64(uwk_total_limit() *
		       min_t(unsigned int, READ_ONCE(uwk_max_user_pct), 100),
		       100);
}

static struct uwk_kuser *uwk_kuser_find(kuid_t uid)
{
	struct uwk_kuser *u;

	lockdep_assert_held(&uwk_users_lock);
	hash_for_each_possible(uwk_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/*
 * Reserve len bytes for a table of uid's before it is read: 0, or the
 * status that says why not (UWK_KF_OVER, UWK_KF_OVER_USER).  The check and
 * the reservation are one step under uwk_users_lock, so scans that run at
 * once cannot all pass the check before any of them has counted (which
 * let twelve concurrent 64 MiB tables through a 256 MiB cap).
 */
static int uwk_charge_once(struct uwk_kfile *kf, kuid_t uid, size_t len,
			   bool system)
{
	struct uwk_kuser *u;
	int ret = 0;

	mutex_lock(&uwk_users_lock);
	u = system ? &uwk_system_pool : uwk_kuser_find(uid);
	if (atomic_long_read(&uwk_table_bytes) + len > uwk_total_limit()) {
		ret = UWK_KF_OVER;
	} else if (!system && (u ? u->bytes : 0) + len > uwk_user_limit()) {
		ret = UWK_KF_OVER_USER;
	} else if (!u) {
		u = uwk_nomem(kzalloc(sizeof(*u), UWK_GFP));
		if (u) {
			u->uid = uid;
			hash_add(uwk_users, &u->node, __kuid_val(uid));
		} else {
			ret = UWK_KF_OVER;
		}
	}
	if (!ret) {
		u->bytes += len;
		atomic_long_add(len, &uwk_table_bytes);
		kf->user = u;
	}
	mutex_unlock(&uwk_users_lock);
	return ret;
}

static bool uwk_files_evict_idle(void);

/*
 * uwk_charge_once(), and when the tables in all are over max_total_mb,
 * again after each installed table no process uses (the oldest first)
 * has given its room back: kept tables never keep a new one out.
 */
static int uwk_charge(struct uwk_kfile *kf, kuid_t uid, size_t len,
		      bool system)
{
	int ret;

	while ((ret = uwk_charge_once(kf, uid, len, system)) == UWK_KF_OVER &&
	       uwk_files_evict_idle())
		;
	return ret;
}

/*
 * Whether uwk_charge(uid, len, system) would succeed now (a hint: no lock
 * kept).
 */
static bool uwk_charge_fits(kuid_t uid, size_t len, bool system)
{
	struct uwk_kuser *u;
	bool fits;

	mutex_lock(&uwk_users_lock);
	u = system ? &uwk_system_pool : uwk_kuser_find(uid);
	fits = atomic_long_read(&uwk_table_bytes) + len <= uwk_total_limit() &&
	       (system || (u ? u->bytes : 0) + len <= uwk_user_limit());
	mutex_unlock(&uwk_users_lock);
	return fits;
}

/*
 * Give back len of the bytes uwk_charge() reserved for kf; kf->user is
 * cleared when the whole charge is back (len == kf->len).
 */
static void uwk_uncharge(struct uwk_kfile *kf, size_t len)
{
	struct uwk_kuser *u = kf->user;

	if (!u)
		return;
	mutex_lock(&uwk_users_lock);
	u->bytes -= len;
	atomic_long_sub(len, &uwk_table_bytes);
	if (!u->bytes && u != &uwk_system_pool) {
		hash_del(&u->node);
		kfree(u);
	}
	mutex_unlock(&uwk_users_lock);
	if (len == kf->len)
		kf->user = NULL;
}

/*
 * Each user holding tables, "uid bytes", and the system pool's, "system
 * bytes" (debugfs "users").
 */
void uwk_users_show(struct seq_file *m)
{
	struct uwk_kuser *u;
	int bkt;

	mutex_lock(&uwk_users_lock);
	seq_printf(m, "system %zu\n", uwk_system_pool.bytes);
	hash_for_each(uwk_users, bkt, u, node)
		seq_printf(m, "%u %zu\n",
			   from_kuid_munged(&init_user_ns, u->uid), u->bytes);
	mutex_unlock(&uwk_users_lock);
}

/* ---- files ---- */

/* len bytes at pos of a file or image: 0, or -EIO. */
int uwk_src_read(const struct uwk_src *s, void *buf, size_t len, loff_t pos)
{
	ssize_t r;

	if (!s->file) {
		if (pos < 0 || pos > s->size || len > s->size - pos)
			return -EIO;
		memcpy(buf, s->img + pos, len);
		return 0;
	}
	r = kernel_read(s->file, buf, len, &pos);
	return r == (ssize_t)len ? 0 : -EIO;
}

/*
 * Check every FDE, FRE and row once (the core's whole-table check, in
 * chunks with a reschedule between them), so the hook only ever meets
 * tables that decode: a malformed section is refused here, counted once.
 */
static int uwk_validate(const struct uw_sframe *sf)
{
	struct uw_check c;
	int err;

	uw_check_start(&c, UWK_CHECK_CHUNK);
	while ((err = uw_sframe_check(sf, &c)) == UW_CHECK_MORE)
		cond_resched();
	return err;
}

/*
 * What an SFrame section's header says the section needs (header,
 * auxiliary header, FDE index, FRE subsection), from its first
 * UW_SFRAME_HDR_SIZE bytes, before anything else is read: a table costs
 * what it holds, not what its program header declares.  The size of an
 * FDE entry depends on the version; the largest is taken here (an upper
 * bound: uwk_sframe_extent() gives the exact figure once the section is
 * in).  0: not a little-endian SFrame header, the only kind this module
 * unwinds.
 */
static u64 uwk_sframe_claim(const u8 *h)
{
	u64 base = UW_SFRAME_HDR_SIZE + (u64)h[7];	/* + auxhdr_len */
	u64 fdes = get_unaligned_le32(h + 20) +		/* fdeoff */
		   (u64)get_unaligned_le32(h + 8) * UWK_SFRAME_FDE_MAX;
	u64 fres = get_unaligned_le32(h + 24) +		/* freoff */
		   (u64)get_unaligned_le32(h + 16);	/* fre_len */

	if (get_unaligned_le16(h) != UW_SFRAME_MAGIC)
		return 0;
	return base + max(fdes, fres);
}

/* The bytes the decoded header describes. */
static u64 uwk_sframe_extent(const struct uw_sframe *sf)
{
	return max((u64)sf->fde_start + (u64)sf->num_fdes * sf->fde_size,
		   (u64)sf->fre_start + sf->fre_len);
}

/*
 * Keep only the first len bytes of kf's table (len <= kf->len), with the
 * charge for the rest given back.  0, or -ENOMEM.
 */
static int uwk_kfile_trim(struct uwk_kfile *kf, size_t len)
{
	u8 *data;

	if (len == kf->len)
		return 0;
	data = uwk_nomem(kvmalloc(len, UWK_GFP));
	if (!data)
		return -ENOMEM;
	memcpy(data, kf->data, len);
	kvfree(kf->data);
	kf->data = data;
	uwk_uncharge(kf, kf->len - len);
	kf->len = len;
	return 0;
}

/* The largest table accepted: max_table_kb, within UWK_TABLE_KB_CAP. */
static u64 uwk_table_max(void)
{
	return (u64)min_t(unsigned int, uwk_max_table_kb, UWK_TABLE_KB_CAP) *
	       1024;
}

/*
 * kf's table (what, for the message) was refused for err: its copy, if
 * any, is freed and its charge given back.  A read error is not the
 * table's fault and is not reported.
 */
static void uwk_kfile_refuse(struct uwk_kfile *kf, int err, const char *what)
{
	kvfree(kf->data);
	kf->data = NULL;
	uwk_uncharge(kf, kf->len);
	kf->len = 0;
	if (err != UW_EREAD)
		pr_info_ratelimited("%s: %s refused: %s\n", kf->path ?: "?",
				    what, uw_strerror(err));
}

/*
 * Copy len bytes at off of src into kf as an SFrame section laid out at
 * addr, decode and check it, charged to uid; kf->status says how it went
 * (ok when it loaded).  Every path that fails after the charge gives it
 * back.
 */
static void uwk_kfile_take(struct uwk_kfile *kf, const struct uwk_src *src,
			   loff_t off, u64 len, u64 addr, kuid_t uid, int ok)
{
	struct uw_span span;
	int err;

	kf->status = UWK_KF_REJECTED;
	if (len < UW_SFRAME_HDR_SIZE || len > uwk_table_max()) {
		err = len ? UW_EHEADER : UW_EMAGIC;
		goto rejected;
	}
	/*
	 * Any user can make the module copy a table (exec a file), so the
	 * tables of each user stay under max_user_pct of max_total_mb and
	 * all of them under max_total_mb: past that a file runs without
	 * one, and with frame pointers, until it is mapped again.
	 */
	err = uwk_charge(kf, uid, len, ok == UWK_KF_INSTALLED);
	if (err) {
		kf->status = err;
		kf->want = len;
		return;
	}
	kf->len = len;
	kf->data = uwk_nomem(kvmalloc(kf->len, UWK_GFP));
	err = UW_EREAD;
	if (!kf->data || uwk_src_read(src, kf->data, kf->len, off))
		goto rejected;
	span.data = kf->data;
	span.size = kf->len;
	span.addr = addr;
	err = uw_sframe_init(&kf->sf, &span);
	if (!err && kf->sf.arch != uwk_arch.uw_arch)
		err = UW_EARCH;
	if (!err && uwk_kfile_trim(kf, uwk_sframe_extent(&kf->sf)))
		goto rejected;
	span.data = kf->data;
	span.size = kf->len;
	err = err ? err : uw_sframe_init(&kf->sf, &span);
	err = err ? err : uwk_validate(&kf->sf);
	if (err)
		goto rejected;
	kf->status = ok;
	return;

rejected:
	uwk_kfile_refuse(kf, err, ok == UWK_KF_SFRAME ? "SFrame section" :
			 "installed table");
}

/*
 * A 32-bit ARM file (arm64's compat tasks): its EHABI index and extab, as
 * ehabi.c finds them, copied into one buffer charged to uid and checked
 * whole, like an SFrame section; kf->status says how it went.  False when
 * src is no such file.
 */
static bool uwk_kfile_load_ehabi(struct uwk_kfile *kf,
				 const struct uwk_src *src, kuid_t uid)
{
	struct uwk_ehabi_loc loc;
	u64 len;
	int err;

	/* Only the arm64 module has the core's EHABI code (Kbuild). */
	if (!UW_HAS_EHABI)
		return false;
	err = uwk_elf32_read(src, kf->loads, &kf->nloads, UWK_MAX_LOADS, &loc);
	if (err)
		return err != -EINVAL;
	kf->status = UWK_KF_REJECTED;
	len = loc.exidx.filesz + loc.extab.filesz;
	if (!loc.exidx.filesz || len > uwk_table_max()) {
		err = UW_EHEADER;
		goto rejected;
	}
	err = uwk_charge(kf, uid, len, false);
	if (err) {
		kf->status = err;
		kf->want = len;
		return true;
	}
	kf->len = len;
	kf->data = uwk_nomem(kvmalloc(kf->len, UWK_GFP));
	err = UW_EREAD;
	if (!kf->data ||
	    uwk_src_read(src, kf->data, loc.exidx.filesz, loc.exidx.off) ||
	    uwk_src_read(src, kf->data + loc.exidx.filesz, loc.extab.filesz,
			 loc.extab.off))
		goto rejected;
	err = uwk_ehabi_setup(&kf->eh, kf->data, &loc);
	if (err)
		goto rejected;
	kf->status = UWK_KF_EHABI;
	return true;

rejected:
	uwk_kfile_refuse(kf, err, "EHABI index");
	return true;
}

/*
 * The SFrame section that ph describes.  Only what the section's header
 * describes is read and kept: binutils 2.40's ld leaves the output section
 * larger than the merged table (by 33 or 34 bytes in every program the
 * tests build: room for FDEs it dropped), so a segment longer than its
 * table is normal and only its table is copied; a header that claims more
 * than the segment holds is refused.
 */
static void uwk_kfile_load_sframe(struct uwk_kfile *kf,
				  const struct uwk_src *src,
				  const Elf64_Phdr *ph, kuid_t uid)
{
	u8 hdr[UW_SFRAME_HDR_SIZE];

	kf->status = UWK_KF_REJECTED;
	if (ph->p_filesz < sizeof(hdr) ||
	    uwk_src_read(src, hdr, sizeof(hdr), ph->p_offset))
		return;
	uwk_kfile_take(kf, src, ph->p_offset,
		       min(uwk_sframe_claim(hdr), ph->p_filesz), ph->p_vaddr,
		       uid, UWK_KF_SFRAME);
}

/*
 * A file without PT_GNU_SFRAME: the table installed for its build-id, if
 * there is one that installed.c trusts and finds made for this very file.
 */
static void uwk_kfile_load_installed(struct uwk_kfile *kf,
				     const struct uwk_src *src,
				     const Elf64_Ehdr *eh,
				     const Elf64_Phdr *ph, kuid_t uid)
{
	struct uwk_inst in = {};
	int err;

	kf->no_own = true;
	err = uwk_inst_open(src, eh, ph, &in);
	kf->no_build_id = in.cfi_key;
	if (err == -ENOENT)
		kf->need = UWIND_WHY_NONE;
	else if (err == -EINVAL || err == -EPERM)
		kf->need = UWIND_WHY_OUTDATED;
	if (err)
		return;
	uwk_kfile_take(kf, &in.src, in.off, in.len, in.vaddr, uid,
		       UWK_KF_INSTALLED);
	uwk_inst_close(&in);
	/* A table the whole check refused: the agent may make a good one. */
	if (kf->status == UWK_KF_REJECTED)
		kf->need = UWIND_WHY_OUTDATED;
}

/*
 * The ELF header of src into *eh and its program headers (kfree them),
 * for an ELF file of the module's machine; NULL for anything else.
 */
Elf64_Phdr *uwk_elf_phdrs(const struct uwk_src *src, Elf64_Ehdr *eh)
{
	Elf64_Phdr *ph;

	if (uwk_src_read(src, eh, sizeof(*eh), 0) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != uwk_arch.elf_machine ||
	    eh->e_phentsize != sizeof(*ph) || !eh->e_phnum ||
	    eh->e_phnum > UWK_MAX_PHDRS)
		return NULL;
	ph = uwk_nomem(kmalloc_array(eh->e_phnum, sizeof(*ph), UWK_GFP));
	if (ph && uwk_src_read(src, ph, eh->e_phnum * sizeof(*ph),
			       eh->e_phoff)) {
		kfree(ph);
		ph = NULL;
	}
	return ph;
}

/* Read the ELF headers and the SFrame table of src into kf. */
static void uwk_kfile_load(struct uwk_kfile *kf, const struct uwk_src *src,
			   kuid_t uid)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	int i, sfr = -1;

	kf->status = UWK_KF_NONE;
	if (uwk_kfile_load_ehabi(kf, src, uid))
		return;
	ph = uwk_elf_phdrs(src, &eh);
	if (!ph)
		return;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && kf->nloads < UWK_MAX_LOADS) {
			kf->loads[kf->nloads].vaddr = ph[i].p_vaddr;
			kf->loads[kf->nloads].off = ph[i].p_offset;
			kf->loads[kf->nloads++].filesz = ph[i].p_filesz;
		} else if (ph[i].p_type == PT_GNU_SFRAME) {
			sfr = i;
		}
	}
	if (sfr >= 0)
		uwk_kfile_load_sframe(kf, src, &ph[sfr], uid);
	else
		uwk_kfile_load_installed(kf, src, &eh, ph, uid);
	kfree(ph);
}

static void uwk_kid_file(struct uwk_kid *id, const struct inode *in)
{
	id->dev = in->i_sb->s_dev;
	id->ino = in->i_ino;
	id->gen = in->i_generation;
	id->mtime = uwk_inode_mtime(in);
	id->size = i_size_read(in);
}

bool uwk_kid_eq(const struct uwk_kid *k, const struct uwk_kid *id)
{
	if (k->vdso_id_len || id->vdso_id_len)
		return k->vdso_id_len == id->vdso_id_len &&
		       !memcmp(k->vdso_id, id->vdso_id, k->vdso_id_len);
	return k->dev == id->dev && k->ino == id->ino && k->gen == id->gen &&
	       timespec64_equal(&k->mtime, &id->mtime) && k->size == id->size;
}

static bool uwk_kfile_match(const struct uwk_kfile *kf,
			    const struct uwk_kid *id)
{
	return uwk_kid_eq(&kf->kid, id);
}

static bool uwk_kfile_over(const struct uwk_kfile *kf)
{
	return kf->status == UWK_KF_OVER || kf->status == UWK_KF_OVER_USER;
}

/*
 * Take a reference to listed kf, uwk_files_lock held: a kept one (idle,
 * at 0) comes back into use.
 */
static void uwk_kfile_hold(struct uwk_kfile *kf)
{
	lockdep_assert_held(&uwk_files_lock);
	if (kf->idle) {
		kf->idle = false;
		kref_init(&kf->ref);
		uwk_stat_inc(UWK_ST_KEPT_REUSED);
	} else {
		kref_get(&kf->ref);
	}
}

/*
 * A listed table of the file id for uid (no reference taken);
 * uwk_files_lock held.  A file left without its table by a limit is that user's
 * verdict, and only for as long as the limit still holds: another user
 * mapping the same file, or the same user once there is room again, gets
 * a fresh try (else one user could keep everybody's libraries out by
 * mapping them first, over its share).  The state of a file without
 * PT_GNU_SFRAME holds until the next install (installed.c).
 */
static struct uwk_kfile *uwk_kfile_lookup(const struct uwk_kid *id, kuid_t uid)
{
	unsigned long gen = uwk_inst_gen();
	struct uwk_kfile *kf, *over = NULL;

	lockdep_assert_held(&uwk_files_lock);
	list_for_each_entry(kf, &uwk_files, node) {
		if (!uwk_kfile_match(kf, id) ||
		    (kf->no_own && (kf->inst_gen != gen || kf->retry)))
			continue;
		if (!uwk_kfile_over(kf))
			return kf;
		if (uid_eq(kf->uid, uid) && !over)
			over = kf;
	}
	return over && !uwk_charge_fits(uid, over->want, over->no_own) ?
	       over : NULL;
}

/* ---- where walks broke ---- */

/* f's path, for the list of breaks; NULL if there is no memory. */
static char *uwk_path_dup(struct file *f)
{
	char *buf = uwk_nomem(kmalloc(PATH_MAX, UWK_GFP)), *p, *dup = NULL;

	if (!buf)
		return NULL;
	p = file_path(f, buf, PATH_MAX);
	if (!IS_ERR(p))
		dup = uwk_nomem(kstrdup(p, UWK_GFP));
	kfree(buf);
	return dup;
}

/*
 * A walk broke at a pc in kf's file for want of a table row: count it.
 * Runs in the hook, under RCU (the file outlives the process table that
 * refers to it by a grace period).
 */
void uwk_kfile_note_break(struct uwk_kfile *kf)
{
	atomic_long_inc(&kf->breaks);
}

/*
 * The counts of files no longer mapped, so that "breaks" still lists a
 * program's libraries after it has exited: at most UWK_MAX_RETIRED paths,
 * the least frequent dropped first.  Under uwk_files_lock.
 */
#define UWK_MAX_RETIRED	32

struct uwk_retired {
	struct list_head node;
	unsigned long n;
	char path[];
};

static LIST_HEAD(uwk_retired_list);
static unsigned int uwk_nr_retired;

static void uwk_breaks_retire(const struct uwk_kfile *kf)
{
	unsigned long n = atomic_long_read(&kf->breaks);
	struct uwk_retired *r, *least = NULL;

	lockdep_assert_held(&uwk_files_lock);
	if (!n || !kf->path)
		return;
	list_for_each_entry(r, &uwk_retired_list, node) {
		if (!strcmp(r->path, kf->path)) {
			r->n += n;
			return;
		}
		if (!least || r->n < least->n)
			least = r;
	}
	if (uwk_nr_retired == UWK_MAX_RETIRED) {
		if (least->n >= n)
			return;
		list_del(&least->node);
		kfree(least);
		uwk_nr_retired--;
	}
	r = uwk_nomem(kmalloc(struct_size(r, path, strlen(kf->path) + 1), UWK_GFP));
	if (!r)
		return;
	r->n = n;
	strcpy(r->path, kf->path);
	list_add(&r->node, &uwk_retired_list);
	uwk_nr_retired++;
}

static void uwk_breaks_free(void)
{
	struct uwk_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &uwk_retired_list, node)
		kfree(r);
	INIT_LIST_HEAD(&uwk_retired_list);
	uwk_nr_retired = 0;
}

struct uwk_break_row {
	const char *path;
	unsigned long n;
};

static int uwk_break_cmp(const void *a, const void *b)
{
	const struct uwk_break_row *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->path, y->path);
}

/* Add n breaks of path to rows[0..*nr), merging equal paths. */
static void uwk_break_add(struct uwk_break_row *rows, size_t *nr,
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
void uwk_breaks_show(struct seq_file *m)
{
	struct uwk_break_row *rows;
	struct uwk_retired *r;
	struct uwk_kfile *kf;
	size_t nr = 0, max = 0, i;

	mutex_lock(&uwk_files_lock);
	list_for_each_entry(kf, &uwk_files, node)
		max += kf->path && atomic_long_read(&kf->breaks);
	max += uwk_nr_retired;
	rows = uwk_nomem(kvmalloc_array(max ? max : 1, sizeof(*rows), UWK_GFP));
	if (!rows) {
		mutex_unlock(&uwk_files_lock);
		return;
	}
	list_for_each_entry(kf, &uwk_files, node) {
		unsigned long n = atomic_long_read(&kf->breaks);

		if (kf->path && n && nr < max)
			uwk_break_add(rows, &nr, kf->path, n);
	}
	list_for_each_entry(r, &uwk_retired_list, node)
		if (nr < max)
			uwk_break_add(rows, &nr, r->path, r->n);
	sort(rows, nr, sizeof(*rows), uwk_break_cmp, NULL);
	for (i = 0; i < nr; i++)
		seq_printf(m, "%lu %s\n", rows[i].n, rows[i].path);
	mutex_unlock(&uwk_files_lock);
	kvfree(rows);
}

static void uwk_kfile_count(const struct uwk_kfile *kf)
{
	if (kf->status == UWK_KF_SFRAME || kf->status == UWK_KF_EHABI)
		uwk_stat_inc(UWK_ST_TABLES_LOADED);
	else if (kf->status == UWK_KF_REJECTED)
		uwk_stat_inc(UWK_ST_TABLES_REJECTED);
	else if (kf->status == UWK_KF_OVER)
		uwk_stat_inc(UWK_ST_TABLES_OVER);
	else if (kf->status == UWK_KF_OVER_USER)
		uwk_stat_inc(UWK_ST_TABLES_OVER_USER);
	else if (kf->status == UWK_KF_INSTALLED)
		uwk_stat_inc(UWK_ST_TABLES_INSTALLED);
}

/*
 * Loads in progress (under uwk_files_lock).  A scan that needs a file
 * another scan is reading waits for that read rather than making its own:
 * while a large table (an installed libc or libstdc++) loads, every
 * sample of a process that maps it asks for a rescan, and every process
 * starting then maps it too; each used to read, check and then drop its
 * own copy, several at once.
 */
struct uwk_inflight {
	struct list_head node;
	struct uwk_kid id;
	struct completion done;
	unsigned int users;
};

static LIST_HEAD(uwk_inflight);

#define UWK_INFLIGHT_WAITS	4	/* then a scan reads for itself */

/* Drop a reference to fl; uwk_files_lock held. */
static void uwk_inflight_put(struct uwk_inflight *fl)
{
	if (!--fl->users)
		kfree(fl);
}

/*
 * A listed table of file id for uid, with a reference for the caller; or
 * NULL, and in *claim the load this scan is to make (NULL when there is
 * no memory for the mark: the scan loads unmarked).  Waits for a load of
 * the same file that another scan has under way, at most
 * UWK_INFLIGHT_WAITS times (each wait ends with that load listed).
 */
static struct uwk_kfile *uwk_kfile_find_or_claim(const struct uwk_kid *id,
						 kuid_t uid,
						 struct uwk_inflight **claim)
{
	struct uwk_inflight *fl;
	struct uwk_kfile *kf;
	int waits = 0;

	*claim = NULL;
	mutex_lock(&uwk_files_lock);
	for (;;) {
		kf = uwk_kfile_lookup(id, uid);
		if (kf) {
			uwk_kfile_hold(kf);
			break;
		}
		list_for_each_entry(fl, &uwk_inflight, node)
			if (uwk_kid_eq(&fl->id, id))
				break;
		if (list_entry_is_head(fl, &uwk_inflight, node) ||
		    waits++ == UWK_INFLIGHT_WAITS) {
			*claim = uwk_nomem(kzalloc(sizeof(**claim), UWK_GFP));
			if (*claim) {
				(*claim)->id = *id;
				(*claim)->users = 1;
				init_completion(&(*claim)->done);
				list_add(&(*claim)->node, &uwk_inflight);
			}
			break;
		}
		fl->users++;
		mutex_unlock(&uwk_files_lock);
		wait_for_completion(&fl->done);
		mutex_lock(&uwk_files_lock);
		uwk_inflight_put(fl);
	}
	mutex_unlock(&uwk_files_lock);
	return kf;
}

/* The load marked by fl is over (its table listed); uwk_files_lock held. */
static void uwk_inflight_done(struct uwk_inflight *fl)
{
	if (!fl)
		return;
	list_del(&fl->node);
	complete_all(&fl->done);
	uwk_inflight_put(fl);
}

/*
 * The table of file id for uid, loaded from src (NULL: nothing to read)
 * on first use; a reference for the caller.  The file is read without
 * uwk_files_lock held: a read that blocks (a FUSE daemon that never
 * answers, a hard NFS mount) then stalls only the scans that need this
 * very file, not every scan after it.  Two scans that load the same file
 * at once (past the waits above) keep the first table listed.  Its path
 * for debugfs: f's, or name.
 */
static struct uwk_kfile *uwk_kfile_get_src(const struct uwk_src *src,
					   const struct uwk_kid *id,
					   struct file *f, const char *name,
					   kuid_t uid)
{
	struct uwk_kfile *kf, *listed;
	struct uwk_inflight *fl;

	kf = uwk_kfile_find_or_claim(id, uid, &fl);
	if (kf)
		return kf;

	kf = uwk_nomem(kzalloc(sizeof(*kf), UWK_GFP));
	if (!kf) {
		mutex_lock(&uwk_files_lock);
		uwk_inflight_done(fl);
		mutex_unlock(&uwk_files_lock);
		return NULL;
	}
	kref_init(&kf->ref);
	kf->kid = *id;
	/* Before the installed tables are read: */
	kf->inst_gen = uwk_inst_gen();
	kf->uid = uid;
	kf->path = f ? uwk_path_dup(f) : uwk_nomem(kstrdup(name, UWK_GFP));
	if (src)
		uwk_kfile_load(kf, src, uid);
	kf->bytes = sizeof(*kf) + kf->len + (kf->path ? strlen(kf->path) + 1 : 0);

	mutex_lock(&uwk_files_lock);
	listed = uwk_kfile_lookup(id, uid);
	/* Ours got in where the listed one was kept out: list ours. */
	if (listed && uwk_kfile_over(listed) && !uwk_kfile_over(kf))
		listed = NULL;
	if (listed) {
		uwk_kfile_hold(listed);
	} else {
		atomic_long_add(kf->bytes, &uwk_bytes_held);
		atomic_inc(&uwk_nr_files);
		kf->seq = uwk_next_seq();
		list_add(&kf->node, &uwk_files);
		uwk_kfile_count(kf);
	}
	uwk_inflight_done(fl);
	mutex_unlock(&uwk_files_lock);
	if (listed) {
		kvfree(kf->data);
		uwk_uncharge(kf, kf->len);
		kfree(kf->path);
		kfree(kf);
		kf = listed;
	}
	return kf;
}

/* The table of the file f for uid (uwk_kfile_get_src()). */
struct uwk_kfile *uwk_kfile_get(struct file *f, kuid_t uid)
{
	struct inode *in = file_inode(f);
	struct uwk_src src = { .file = f };
	struct uwk_kid id = {};

	uwk_kid_file(&id, in);
	/* Only regular files are read: a device's read may do anything. */
	return uwk_kfile_get_src(S_ISREG(in->i_mode) ? &src : NULL, &id, f,
				 NULL, uid);
}

/*
 * The table of the vDSO whose image (a kernel copy, size bytes) is img,
 * for uid: NULL when the image is not an ELF of the module's machine
 * with a build-id (its table is installed like a file's, for that
 * build-id: installed.c).
 */
struct uwk_kfile *uwk_kfile_get_vdso(const u8 *img, size_t size, kuid_t uid)
{
	struct uwk_src src = { .img = img, .size = size };
	struct uwk_kid id = {};
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = uwk_elf_phdrs(&src, &eh);

	if (!ph)
		return NULL;
	id.vdso_id_len = uwk_inst_build_id(&src, &eh, ph, id.vdso_id);
	kfree(ph);
	if (!id.vdso_id_len)
		return NULL;
	return uwk_kfile_get_src(&src, &id, NULL, "[vdso]", uid);
}

/* Unlist kf, which nothing references; uwk_files_lock held. */
static void uwk_kfile_unlist(struct uwk_kfile *kf)
{
	list_del(&kf->node);
	uwk_breaks_retire(kf);
}

/* Free an unlisted kf. */
static void uwk_kfile_free(struct uwk_kfile *kf)
{
	atomic_long_sub(kf->bytes, &uwk_bytes_held);
	atomic_dec(&uwk_nr_files);
	kvfree(kf->data);
	uwk_uncharge(kf, kf->len);
	kfree(kf->path);
	kfree(kf);
}

/*
 * Whether kf, which its last user just let go, is kept: an installed
 * table, while keep_s is not 0.  A short-lived program's libraries then
 * cost one read, not one per run (libc's table takes about 40 ms to load
 * and check under TCG).
 */
static bool uwk_kfile_keep(const struct uwk_kfile *kf)
{
	return kf->status == UWK_KF_INSTALLED && READ_ONCE(uwk_keep_s) &&
	       kf->inst_gen == uwk_inst_gen() && !kf->retry;
}

static void uwk_kfile_release(struct kref *ref)
	__releases(&uwk_files_lock)
{
	struct uwk_kfile *kf = container_of(ref, struct uwk_kfile, ref);

	if (uwk_kfile_keep(kf)) {
		kf->idle = true;
		kf->idle_since = jiffies;
		mutex_unlock(&uwk_files_lock);
		return;
	}
	uwk_kfile_unlist(kf);
	mutex_unlock(&uwk_files_lock);
	uwk_kfile_free(kf);
}

/* Another reference to kf, which the caller holds one of. */
struct uwk_kfile *uwk_kfile_ref(struct uwk_kfile *kf)
{
	kref_get(&kf->ref);
	return kf;
}

void uwk_kfile_put(struct uwk_kfile *kf)
{
	if (kf)
		kref_put_mutex(&kf->ref, uwk_kfile_release, &uwk_files_lock);
}

/*
 * Free the kept tables (all, or those kept longer than keep_s or made
 * stale by an install, or the oldest one); how many.  Task context.
 */
enum uwk_expire { UWK_EXPIRE_OLD, UWK_EXPIRE_ALL, UWK_EXPIRE_OLDEST };

static unsigned int uwk_files_expire(enum uwk_expire how)
{
	unsigned long keep = msecs_to_jiffies(min(READ_ONCE(uwk_keep_s),
						  86400u) * 1000);
	unsigned long gen = uwk_inst_gen();
	struct uwk_kfile *kf, *tmp, *oldest = NULL;
	unsigned int n = 0;
	LIST_HEAD(gone);

	mutex_lock(&uwk_files_lock);
	list_for_each_entry_safe(kf, tmp, &uwk_files, node) {
		if (!kf->idle)
			continue;
		if (how == UWK_EXPIRE_OLDEST) {
			if (!oldest || time_before(kf->idle_since,
						   oldest->idle_since))
				oldest = kf;
			continue;
		}
		if (how == UWK_EXPIRE_ALL || kf->inst_gen != gen ||
		    kf->retry || time_after(jiffies, kf->idle_since + keep)) {
			uwk_kfile_unlist(kf);
			list_add(&kf->node, &gone);
		}
	}
	if (oldest) {
		uwk_kfile_unlist(oldest);
		list_add(&oldest->node, &gone);
	}
	mutex_unlock(&uwk_files_lock);
	list_for_each_entry_safe(kf, tmp, &gone, node) {
		uwk_kfile_free(kf);
		n++;
	}
	return n;
}

/* Room for another table: free the oldest kept one; false if none. */
static bool uwk_files_evict_idle(void)
{
	if (!uwk_files_expire(UWK_EXPIRE_OLDEST))
		return false;
	uwk_stat_inc(UWK_ST_KEPT_EVICTED);
	return true;
}

/*
 * The kept tables past keep_s or stale (registry.c's collection), or all
 * of them (debugfs "gc": free everything no process uses).
 */
void uwk_files_gc(bool all)
{
	uwk_files_expire(all ? UWK_EXPIRE_ALL : UWK_EXPIRE_OLD);
}

/* Load bias of a mapping of kf at start, from file offset fo; 0: none. */
static bool uwk_bias(const struct uwk_kfile *kf, u64 start, u64 fo, u64 *bias)
{
	u32 i;

	for (i = 0; i < kf->nloads; i++) {
		const struct uwk_load *l = &kf->loads[i];

		if ((l->off & PAGE_MASK) <= fo && fo < l->off + l->filesz) {
			*bias = start - fo - (l->vaddr - l->off);
			return true;
		}
	}
	return false;
}

/*
 * kf's table for a mapping of the file at start, from file offset fo:
 * the decoded table (at the file's link-time addresses, shared by every
 * mapping) and in *bias the mapping's load bias; NULL when the file has
 * no table or the mapping no bias.
 */
const struct uw_sframe *uwk_kfile_sframe(const struct uwk_kfile *kf,
					 u64 start, u64 fo, u64 *bias)
{
	if (!kf || (kf->status != UWK_KF_SFRAME &&
		    kf->status != UWK_KF_INSTALLED) ||
	    !uwk_bias(kf, start, fo, bias))
		return NULL;
	return &kf->sf;
}

/*
 * kf's EHABI index for a mapping of the file at start, from file offset
 * fo (shared by every mapping: the index keeps the file's link-time
 * addresses), and in *bias the mapping's load bias; NULL when the file
 * has no index or the mapping no bias.
 */
const struct uw_ehabi *uwk_kfile_ehabi(const struct uwk_kfile *kf, u64 start,
				       u64 fo, u64 *bias)
{
	if (!kf || kf->status != UWK_KF_EHABI ||
	    !uwk_bias(kf, start, fo, bias))
		return NULL;
	return &kf->eh;
}

/* The state debugfs "tables" shows for a mapping of kf's file. */
const char *uwk_kfile_state(const struct uwk_kfile *kf)
{
	return kf ? uwk_kf_names[kf->status] : "none";
}

u32 uwk_kfile_need(const struct uwk_kfile *kf, u32 *flags)
{
	*flags = 0;
	if (!kf || !kf->need)
		return 0;
	if (kf->kid.vdso_id_len)
		*flags |= UWIND_REQ_VDSO;
	if (kf->no_build_id)
		*flags |= UWIND_REQ_NO_BUILD_ID;
	return kf->need;
}

const struct uwk_kid *uwk_kfile_kid(const struct uwk_kfile *kf)
{
	return &kf->kid;
}

/* When kf was listed, in scan order: a table loaded after a given point? */
unsigned long uwk_kfile_seq(const struct uwk_kfile *kf)
{
	return kf->seq;
}

bool uwk_kfile_retrying(const struct uwk_kfile *kf)
{
	return kf && READ_ONCE(kf->retry);
}

/*
 * A table was installed for the file id (the agent's answer): its listed
 * tables that have none of their own are looked up again by the next
 * scan that needs one (the processes mapping them: uwk_kmm_retable()).
 * How many were marked.
 */
unsigned int uwk_kfile_retry(const struct uwk_kid *id)
{
	struct uwk_kfile *kf;
	unsigned int n = 0;

	mutex_lock(&uwk_files_lock);
	list_for_each_entry(kf, &uwk_files, node) {
		if (!kf->no_own || !uwk_kfile_match(kf, id))
			continue;
		WRITE_ONCE(kf->retry, true);
		n++;
	}
	mutex_unlock(&uwk_files_lock);
	return n;
}

/* debugfs "installed": "bytes path" of each installed table held. */
void uwk_kfile_installed_show(struct seq_file *m)
{
	struct uwk_kfile *kf;

	mutex_lock(&uwk_files_lock);
	list_for_each_entry(kf, &uwk_files, node)
		if (kf->status == UWK_KF_INSTALLED)
			seq_printf(m, "%zu %s %lu%s\n", kf->len, kf->path ?: "?",
				   kf->seq, kf->idle ? " kept" : "");
	mutex_unlock(&uwk_files_lock);
}

/* At unload, once every process table has been freed. */
void uwk_files_exit(void)
{
	uwk_files_expire(UWK_EXPIRE_ALL);
	WARN_ON(!list_empty(&uwk_files));
	uwk_breaks_free();
}
