// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Installed tables: the SFrame tables `uwind sframe --install` makes from
 * the DWARF CFI of files that have no PT_GNU_SFRAME (a stock
 * distribution's libc, libstdc++, programs) and of the vDSO, one file per
 * GNU build-id at /var/lib/uwind/build-id/XX/REST.uwsf, or for a file
 * without one, one per CFI key at /var/lib/uwind/build-id/cfi/XX/REST.uwsf (the
 * format is scripts/uwind/uwsf.h's; the key: uwk_inst_cfi_key()).
 *
 * When a scan meets a file without PT_GNU_SFRAME, files.c asks here, in
 * task context, for the table installed for the file's build-id (read
 * from its PT_NOTE segments).  It is used only if:
 * - root owns the table file and every directory above it, and none of
 *   them is writable by group or others (a user cannot plant or swap a
 *   table; the last component is opened without following a symlink);
 * - its header is a table file's, for the file's e_machine and exact
 *   build-id, and its size is what the header says;
 * - the file's own bytes at the header's check_off (the CFI the table
 *   was made from) have the header's CRC: a file rebuilt or edited under
 *   the same build-id does not get a table made for another.
 * The section is then copied, charged and checked whole like any other
 * table (files.c).  A path is never trusted on its own: the name only
 * finds a candidate, the build-id and the CRC decide.
 *
 * What a user can make the module do here: look up one name (a build-id
 * of a file it maps; the directories are world-searchable, so the user
 * could look the name up itself), read a table root installed (counted
 * in that user's share, as any table), and read the mapped file's CFI
 * once for the CRC (no more than its table read would cost).  The hook
 * is not involved: it only sees the tables files.c publishes.
 *
 * The generation counts the installs root told the module of (debugfs
 * "installed", which `uwind sframe --install` writes): a file whose
 * installed table was looked up before is looked up again, and processes
 * running then are rescanned at their next sample (events.c), so they get
 * the new tables too.  Tables persist on disk: a module loaded later
 * finds them by itself.
 *
 * The vDSO: the kernel's special mapping named "[vdso]" (a user cannot
 * make one); its image is read from the process (the same pages for every
 * process of the running kernel: read once, uwk_vdso_kfile()), and its
 * table is installed like a file's, keyed by the image's build-id
 * (`uwind sframe --install --vdso` reads its own vDSO).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "uwind_kmod.h"

/* The table file's format, the tool's own header (constants only). */
#include "../scripts/uwind/uwsf.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID	3
#endif

#define UWK_NOTE_MAX	4096		/* bytes of a PT_NOTE read */
#define UWK_CHECK_MAX	(64u << 20)	/* largest CFI the CRC covers */
#define UWK_CRC_CHUNK	(64u << 10)
#define UWK_TRUST_DEPTH	32		/* path components checked */
#define UWK_VDSO_MAX	(64u << 10)	/* largest vDSO image read */

atomic_long_t uwk_inst_generation = ATOMIC_LONG_INIT(1);

/* Root told the module that tables were installed: look again. */
void uwk_inst_rescan(void)
{
	atomic_long_inc(&uwk_inst_generation);
}

/*
 * The GNU build-id in n bytes of notes p (a PT_NOTE segment aligned to
 * align): its length, the bytes into id; 0 if there is none.
 */
static u8 uwk_note_build_id(const u8 *p, size_t n, size_t align, u8 *id)
{
	u64 off = 0, desc, next;
	u32 namesz, descsz;

	while (off + 12 <= n) {
		namesz = get_unaligned_le32(p + off);
		descsz = get_unaligned_le32(p + off + 4);
		desc = ALIGN(off + 12 + namesz, align);
		next = ALIGN(desc + descsz, align);
		if (desc + descsz > n)
			break;
		if (get_unaligned_le32(p + off + 8) == NT_GNU_BUILD_ID &&
		    namesz == 4 && !memcmp(p + off + 12, "GNU", 4) &&
		    descsz && descsz <= UWK_ID_MAX) {
			memcpy(id, p + desc, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}

/* The GNU build-id of the ELF in s (headers eh, ph): its length, or 0. */
u8 uwk_inst_build_id(const struct uwk_src *s, const Elf64_Ehdr *eh,
		     const Elf64_Phdr *ph, u8 *id)
{
	u8 *buf = uwk_nomem(kmalloc(UWK_NOTE_MAX, UWK_GFP)), len = 0;
	size_t n;
	int i;

	for (i = 0; buf && i < eh->e_phnum && !len; i++) {
		n = min_t(u64, ph[i].p_filesz, UWK_NOTE_MAX);
		if (ph[i].p_type != PT_NOTE || n < 12 ||
		    uwk_src_read(s, buf, n, ph[i].p_offset))
			continue;
		len = uwk_note_build_id(buf, n, ph[i].p_align == 8 ? 8 : 4, id);
	}
	kfree(buf);
	return len;
}

/* Owned by root and writable by nobody else. */
static bool uwk_inode_trusted(const struct inode *in)
{
	return uid_eq(in->i_uid, GLOBAL_ROOT_UID) &&
	       !(in->i_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Whether the file at p is a regular file that only root can have
 * written or put there: it and every directory above it, across mounts
 * up to the root, owned by root and writable by nobody else.
 */
static bool uwk_inst_trusted(const struct path *p)
{
	struct path at;
	struct dentry *parent;
	bool ok = d_is_reg(p->dentry);
	int i;

	path_get(p);
	at = *p;
	for (i = 0; ok && i < UWK_TRUST_DEPTH; i++) {
		ok = d_inode(at.dentry) &&
		     uwk_inode_trusted(d_inode(at.dentry));
		if (at.dentry == at.mnt->mnt_root) {
			if (!follow_up(&at))
				break;	/* the namespace's root */
			continue;	/* the mount point: checked next */
		}
		parent = dget_parent(at.dentry);
		dput(at.dentry);
		at.dentry = parent;
	}
	path_put(&at);
	return ok && i < UWK_TRUST_DEPTH;
}

/*
 * The table file at path, opened for reading if it is one root put
 * there (the last component not followed if it is a symlink; nothing
 * else opened: a FIFO or a device there is not even opened): the file,
 * NULL when there is none, or an error pointer when it is not trusted.
 */
static struct file *uwk_inst_file(const char *path)
{
	struct file *f;
	struct path p;

	if (kern_path(path, 0, &p))
		return NULL;
	if (uwk_inst_trusted(&p))
		f = dentry_open(&p, O_RDONLY | O_LARGEFILE, current_cred());
	else
		f = ERR_PTR(-EPERM);
	path_put(&p);
	return f;
}

/*
 * Whether the header h of the table file f is for a file of machine with
 * build-id id (len bytes); fills in's section.
 */
static bool uwk_inst_header(struct file *f, const u8 *h, u16 machine,
			    const u8 *id, u8 len, struct uwk_inst *in)
{
	u8 flags = IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? UWSF_F_BIG_ENDIAN : 0;

	/* A table keyed by CFI says so: a build-id's never stands for it. */
	if (!len)
		flags |= UWSF_F_CFI_KEY;

	if (memcmp(h, UWSF_MAGIC, 8) ||
	    get_unaligned_le16(h + UWSF_OFF_VERSION) != UWSF_VERSION ||
	    get_unaligned_le16(h + UWSF_OFF_HDR_SIZE) != UWSF_HDR_SIZE ||
	    get_unaligned_le16(h + UWSF_OFF_MACHINE) != machine ||
	    h[UWSF_OFF_FLAGS] != flags || h[UWSF_OFF_ID_LEN] != len ||
	    memcmp(h + UWSF_OFF_BUILD_ID, id, len))
		return false;
	in->off = UWSF_HDR_SIZE;
	in->len = get_unaligned_le32(h + UWSF_OFF_SIZE);
	in->vaddr = get_unaligned_le64(h + UWSF_OFF_VADDR);
	return i_size_read(file_inode(f)) == UWSF_HDR_SIZE + in->len;
}

/* The CRC-32 of s's size bytes at off into *out: 0, or an error. */
static int uwk_crc_of(const struct uwk_src *s, u64 off, u32 size, u32 *out)
{
	u32 crc = ~0u, done, n;
	int err = 0;
	u8 *buf;

	if (!size || size > UWK_CHECK_MAX || off > S64_MAX - size)
		return -EINVAL;
	buf = uwk_nomem(kvmalloc(UWK_CRC_CHUNK, UWK_GFP));
	if (!buf)
		return -ENOMEM;
	for (done = 0; !err && done < size; done += n) {
		n = min(size - done, UWK_CRC_CHUNK);
		err = uwk_src_read(s, buf, n, off + done);
		crc = crc32_le(crc, buf, n);
		cond_resched();
	}
	kvfree(buf);
	*out = ~crc;
	return err;
}

/* Whether s's bytes at the header's check_off have its check_crc. */
static bool uwk_inst_crc_ok(const struct uwk_src *s, const u8 *h)
{
	u32 crc;

	return !uwk_crc_of(s, get_unaligned_le64(h + UWSF_OFF_CHECK_OFF),
			   get_unaligned_le32(h + UWSF_OFF_CHECK_SIZE), &crc) &&
	       crc == get_unaligned_le32(h + UWSF_OFF_CHECK_CRC);
}

/* The table file's path for a build-id, kmalloc'ed. */
static char *uwk_inst_path(const u8 *id, u8 len)
{
	return uwk_nomem(kasprintf(UWK_GFP, "%s/%02x/%*phN.uwsf", UWSF_DIR,
				   id[0], len - 1, id + 1));
}

/* A table file found but not used: counted, and said why. */
static void uwk_inst_refuse(const char *path, const char *why)
{
	uwk_stat_inc(UWK_ST_INSTALLED_REFUSED);
	pr_info_ratelimited("%s: not used: %s\n", path, why);
}

/*
 * A file without a GNU build-id is known by its CFI instead: the section
 * its table is made from (the first non-empty ".eh_frame" of a CFI type,
 * else ".debug_frame", as `uwind sframe` picks it), its file offset, size
 * and CRC-32, which are also what the table's header says it was made
 * from.  Two files with the same key have the same CFI bytes at the same
 * place, so the same table is right for both.  Read from the section
 * headers; a file without them (stripped of them) has no key.
 */
#define UWK_MAX_SHDRS64	4096
#define UWK_SHSTR_MAX	(64u << 10)

struct uwk_cfi_key {
	u64 off;
	u32 size, crc;
};

/* The CFI section named name (not empty) among eh's headers sh. */
static const Elf64_Shdr *uwk_shdr_named(const Elf64_Ehdr *eh,
					const Elf64_Shdr *sh,
					const char *names, u32 nlen,
					const char *name)
{
	size_t len = strlen(name) + 1;
	u16 i;

	for (i = 0; i < eh->e_shnum; i++)
		if (UWSF_CFI_SECTION(sh[i].sh_type, eh->e_machine) &&
		    sh[i].sh_size &&
		    sh[i].sh_name < nlen && nlen - sh[i].sh_name >= len &&
		    !memcmp(names + sh[i].sh_name, name, len))
			return &sh[i];
	return NULL;
}

static int uwk_inst_cfi_key(const struct uwk_src *s, const Elf64_Ehdr *eh,
			    struct uwk_cfi_key *k)
{
	const Elf64_Shdr *cfi = NULL, *str;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	int err = -ENOKEY;
	u32 nlen;

	if (!eh->e_shoff || eh->e_shentsize != sizeof(*sh) || !eh->e_shnum ||
	    eh->e_shnum > UWK_MAX_SHDRS64 || eh->e_shstrndx >= eh->e_shnum)
		return -ENOKEY;
	sh = uwk_nomem(kvmalloc_array(eh->e_shnum, sizeof(*sh), UWK_GFP));
	if (!sh)
		return -ENOMEM;
	if (uwk_src_read(s, sh, eh->e_shnum * sizeof(*sh), eh->e_shoff))
		goto out;
	str = &sh[eh->e_shstrndx];
	if (!str->sh_size || str->sh_size > UWK_SHSTR_MAX)
		goto out;
	nlen = str->sh_size;
	names = uwk_nomem(kvmalloc(nlen, UWK_GFP));
	if (!names) {
		err = -ENOMEM;
		goto out;
	}
	if (uwk_src_read(s, names, nlen, str->sh_offset))
		goto out;
	cfi = uwk_shdr_named(eh, sh, names, nlen, ".eh_frame");
	if (!cfi)
		cfi = uwk_shdr_named(eh, sh, names, nlen,
				     ".debug_frame");
	if (!cfi || cfi->sh_size > UWK_CHECK_MAX)
		goto out;
	k->off = cfi->sh_offset;
	k->size = cfi->sh_size;
	err = uwk_crc_of(s, k->off, k->size, &k->crc);
out:
	kvfree(names);
	kvfree(sh);
	return err;
}

/*
 * The table file's path for a file (kmalloc'ed): by its build-id, or
 * without one by its CFI key (its CRC, size and offset, in hex).
 */
static char *uwk_inst_path_of(const u8 *id, u8 len,
			      const struct uwk_cfi_key *k)
{
	if (len)
		return uwk_inst_path(id, len);
	return uwk_nomem(kasprintf(UWK_GFP, "%s/%02x/%06x%08x%016llx.uwsf",
				   UWSF_CFI_DIR, k->crc >> 24, k->crc & 0xffffff,
				   k->size, k->off));
}

/* Whether the header h names the CFI key k as what it was made from. */
static bool uwk_inst_key_is(const u8 *h, const struct uwk_cfi_key *k)
{
	return get_unaligned_le64(h + UWSF_OFF_CHECK_OFF) == k->off &&
	       get_unaligned_le32(h + UWSF_OFF_CHECK_SIZE) == k->size &&
	       get_unaligned_le32(h + UWSF_OFF_CHECK_CRC) == k->crc;
}

int uwk_inst_open(const struct uwk_src *s, const Elf64_Ehdr *eh,
		  const Elf64_Phdr *ph, struct uwk_inst *in)
{
	u8 id[UWK_ID_MAX], h[UWSF_HDR_SIZE], len;
	struct uwk_cfi_key key = {};
	const char *why = NULL;
	struct file *f;
	char *path;
	int err;

	len = uwk_inst_build_id(s, eh, ph, id);
	if (!len) {
		in->cfi_key = true;
		err = uwk_inst_cfi_key(s, eh, &key);
		if (err)
			return err;
	}
	path = uwk_inst_path_of(id, len, &key);
	if (!path)
		return -ENOMEM;
	f = uwk_inst_file(path);
	if (IS_ERR_OR_NULL(f)) {
		/* None installed: nothing to say. */
		if (f)
			uwk_inst_refuse(path, "not a file only root can write");
		kfree(path);
		return f ? PTR_ERR(f) : -ENOENT;
	}
	in->src = (struct uwk_src){ .file = f };
	if (uwk_src_read(&in->src, h, sizeof(h), 0) ||
	    !uwk_inst_header(f, h, eh->e_machine, id, len, in))
		why = "not a table for this build-id";
	else if (len ? !uwk_inst_crc_ok(s, h) : !uwk_inst_key_is(h, &key))
		why = "made from other CFI than this file has";
	if (why) {
		uwk_inst_refuse(path, why);
		fput(f);
	}
	kfree(path);
	return why ? -EINVAL : 0;
}

void uwk_inst_close(struct uwk_inst *in)
{
	fput(in->src.file);
}

/*
 * debugfs "installed": where tables are looked for, and those held, "LEN
 * PATH LOAD[ kept]" (LOAD numbers each read of a table; "kept": no process
 * uses it, keep_s holds it).
 */
void uwk_inst_show(struct seq_file *m)
{
	seq_printf(m, "directory %s\ngeneration %lu\n", UWSF_DIR,
		   uwk_inst_gen());
	uwk_kfile_installed_show(m);
}

/* ---- the vDSO ---- */

/*
 * Whether vma is the vDSO: the kernel's special mapping "[vdso]" (the
 * name /proc/PID/maps shows; no user can make such a mapping).
 */
bool uwk_vma_is_vdso(struct vm_area_struct *vma)
{
	const char *name;

	if (vma->vm_file || !vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, "[vdso]");
}

/*
 * A kernel copy of the vDSO image task maps at [start, end) (kvfree it),
 * or NULL.
 */
static u8 *uwk_vdso_read(struct task_struct *task, u64 start, u64 end)
{
	size_t size = end - start;
	u8 *img;

	if (end <= start || size > UWK_VDSO_MAX)
		return NULL;
	uwk_stat_inc(UWK_ST_VDSO_READ);
	img = uwk_nomem(kvmalloc(size, UWK_GFP));
	if (img && access_process_vm(task, start, img, size, 0) != (int)size) {
		kvfree(img);
		img = NULL;
	}
	return img;
}

/*
 * The vDSO's table, read once per image: every process of the kernel maps
 * the same vDSO pages through the same special mapping (key: its
 * vm_private_data, the kernel's struct vm_special_mapping, which lives as
 * long as the kernel), so the table found for one process's image is
 * every process's until an install (a table for the vDSO may have come)
 * or unload.  The cache holds a reference to it.  Task context.
 */
static struct {
	struct mutex lock;	/* the fields below */
	const void *key;
	u64 size;
	unsigned long gen;
	struct uwk_kfile *kf;
} uwk_vdso_cache = { .lock = __MUTEX_INITIALIZER(uwk_vdso_cache.lock) };

/*
 * The table of the vDSO task maps at [start, end) through the special
 * mapping key, for uid (a reference, or NULL).
 */
struct uwk_kfile *uwk_vdso_kfile(struct task_struct *task, u64 start,
				 u64 end, const void *key, kuid_t uid)
{
	unsigned long gen = uwk_inst_gen();
	struct uwk_kfile *kf = NULL, *old = NULL;
	u8 *img;

	mutex_lock(&uwk_vdso_cache.lock);
	if (key && uwk_vdso_cache.kf && uwk_vdso_cache.key == key &&
	    uwk_vdso_cache.size == end - start && uwk_vdso_cache.gen == gen) {
		kf = uwk_kfile_ref(uwk_vdso_cache.kf);
		uwk_stat_inc(UWK_ST_VDSO_CACHED);
		goto out;
	}
	img = uwk_vdso_read(task, start, end);
	if (!img)
		goto out;
	kf = uwk_kfile_get_vdso(img, end - start, uid);
	kvfree(img);
	if (!kf || !key)
		goto out;
	old = uwk_vdso_cache.kf;
	uwk_vdso_cache.kf = uwk_kfile_ref(kf);
	uwk_vdso_cache.key = key;
	uwk_vdso_cache.size = end - start;
	uwk_vdso_cache.gen = gen;
out:
	mutex_unlock(&uwk_vdso_cache.lock);
	uwk_kfile_put(old);
	return kf;
}

/*
 * A table was installed for the vDSO (the agent's answer): the next scan
 * reads the image and looks its table up again.  At unload too: the
 * cache's reference.
 */
void uwk_vdso_forget(void)
{
	struct uwk_kfile *kf;

	mutex_lock(&uwk_vdso_cache.lock);
	kf = uwk_vdso_cache.kf;
	uwk_vdso_cache.kf = NULL;
	mutex_unlock(&uwk_vdso_cache.lock);
	uwk_kfile_put(kf);
}

void uwk_vdso_exit(void)
{
	uwk_vdso_forget();
}
