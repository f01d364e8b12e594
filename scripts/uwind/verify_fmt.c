// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind verify for Mach-O files (their __unwind_info, uw_cu_check()) and
 * Breakpad symbol files (uw_bp_check()):
 *
 *   uwind verify [--arch NAME] MACHO...   every slice of a universal
 *                                         file, or the one --arch names
 *   uwind verify --breakpad SYM...
 *
 * One line per table, as for the other formats: "ok" with its size, or
 * where the check refused it and why: the page and entry of a compact
 * unwind table, the line (and its text) of a symbol file.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/compact_unwind.h>
#include <uwind/breakpad.h>
#include "uwind.h"
#include "macho.h"
#include "bp_file.h"
#include "verify_fmt.h"

/*
 * Where in page pg the fault is, as the public API sees it (the check's
 * own position is private): the entry the iteration refuses, or whose
 * encoding does not decode or names a personality past the array.
 */
static void print_entry(const struct uw_cu *cu, uint32_t pg)
{
	struct uw_cu_entry e;
	struct uw_cu_rule r;
	uint32_t page = pg, index = 0;
	int err;

	while (!(err = uw_cu_next(cu, &page, &index, &e)) && e.page == pg) {
		if (uw_cu_decode(cu, e.encoding, &r) ||
		    (e.encoding & UW_CU_PERSONALITY) >> 28 > cu->pers_count) {
			printf(", entry %u (encoding 0x%08x)", e.index,
			       e.encoding);
			return;
		}
	}
	/* A refused first entry may be the page's header. */
	if (err < 0 && page == pg)
		printf(index ? ", entry %u" : ", its header or entry %u",
		       index);
}

static uint32_t rd_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void cu_refused(const char *what, const struct uw_cu *cu,
		       const struct uw_check *c, int err)
{
	const uint8_t *ix = cu->sec.data + cu->idx_off + 12 * (size_t)c->item;

	if (c->item + 1 >= cu->idx_count) {
		printf("%s: LSDA index array or common encodings: %s\n", what,
		       uw_strerror(err));
		return;
	}
	/* Entries c->item and the next: inside, uw_cu_init checked. */
	printf("%s: page %u (functions 0x%x-0x%x", what, c->item,
	       rd_le32(ix), rd_le32(ix + 12));
	putchar(')');
	print_entry(cu, c->item);
	printf(": %s\n", uw_strerror(err));
}

/* The entries of a checked table (uw_cu_next() cannot fail on it). */
static uint32_t cu_entries(const struct uw_cu *cu)
{
	struct uw_cu_entry e;
	uint32_t page = 0, index = 0, n = 0;

	while (!uw_cu_next(cu, &page, &index, &e))
		n++;
	return n;
}

/* One slice: 0 passed, 1 refused or unreadable. */
static int verify_slice(const char *path, const char *arch)
{
	struct uw_check c;
	struct uw_span sec;
	struct macho m;
	struct uw_cu cu;
	char what[512];
	int err;

	if (macho_open(path, arch, &m))
		return 1;
	snprintf(what, sizeof(what), "%s: __unwind_info (%s)", path,
		 m.arch_name);
	if (!m.unwind_info.found) {
		printf("%s (%s): no __unwind_info section\n", path,
		       m.arch_name);
		macho_close(&m);
		return 1;
	}
	sec.data = m.img + m.unwind_info.off;
	sec.size = m.unwind_info.size;
	sec.addr = m.unwind_info.addr;
	err = uw_cu_init(&cu, &sec, m.base, m.arch);
	if (err) {
		printf("%s: header or first-level index: %s\n", what,
		       uw_strerror(err));
	} else {
		/* In one call: nothing to reschedule here. */
		uw_check_start(&c, 0);
		err = uw_cu_check(&cu, &c);
		if (err)
			cu_refused(what, &cu, &c, err);
		else
			printf("%s: ok (%u pages, %u entries, %u common"
			       " encodings, %u personalities)\n", what,
			       cu.idx_count - 1, cu_entries(&cu), cu.enc_count,
			       cu.pers_count);
	}
	macho_close(&m);
	return err ? 1 : 0;
}

int verify_macho(const char *path, const char *arch)
{
	const char *names[16];
	int n, i, ret = 0;

	if (arch)
		return verify_slice(path, arch);
	n = macho_slices(path, names, 16);
	if (n < 0)
		return 1;
	if (n == 0)
		return verify_slice(path, NULL);
	for (i = 0; i < n; i++)
		ret |= verify_slice(path, names[i]);
	return ret;
}

/* The line at offset off, up to 72 bytes of it, printable. */
static void print_line(const struct bp_file *f, uint64_t off)
{
	uint64_t i;
	char ch;

	for (i = off; i < f->size && i - off < 72; i++) {
		ch = (char)f->map[i];
		if (ch == '\n')
			break;
		putchar(ch >= 0x20 && ch < 0x7f ? ch : '?');
	}
	if (i < f->size && f->map[i] != '\n')
		fputs("...", stdout);
}

static const char *arch_of(const struct uw_bp *bp)
{
	return uw_arch_name((enum uw_arch)bp->arch);
}

int verify_breakpad(const char *path)
{
	struct bp_file f;
	struct uw_check c;
	uint64_t off = 0;
	uint32_t line;
	int err;

	if (bp_file_open(path, 0, &f))
		return 1;
	uw_check_start(&c, 0);
	err = uw_bp_check(&f.bp, &c);
	if (err) {
		/* The start of line c.item (from 0). */
		for (line = 0; line < c.item && off < f.size; off++)
			if (f.map[off] == '\n')
				line++;
		printf("%s:%u: %s: ", path, c.item + 1, uw_strerror(err));
		print_line(&f, off);
		putchar('\n');
	} else {
		printf("%s: ok (Breakpad, %s, %u STACK CFI INIT and %u STACK"
		       " WIN records)\n", path, arch_of(&f.bp), f.bp.ncfi,
		       f.bp.nwin);
	}
	bp_file_close(&f);
	return err ? 1 : 0;
}
