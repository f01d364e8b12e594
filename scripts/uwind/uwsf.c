// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The table file of uwsf.h: its header, made from a conversion and the
 * ELF it came from, and read back (`uwind lookup` and `dump` on a table
 * file, `uwind sframe --install` deciding whether a table is up to date).
 */
#include <stdlib.h>
#include <string.h>
#include "sframe_gen.h"
#include "uwind.h"
#include "uwsf.h"

static void put_le(uint8_t *p, unsigned int n, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * CRC-32 as zlib, gzip and the kernel's ~crc32_le(~0, ...) compute it
 * (reflected, polynomial 0xedb88320, inverted in and out).
 */
uint32_t uwsf_crc32_more(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	size_t i;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t uwsf_crc32(const uint8_t *p, size_t n)
{
	return uwsf_crc32_more(0, p, n);
}

/*
 * The bytes a reader checks before it trusts a table for a file: the CFI
 * the table was made from, .eh_frame (else .debug_frame), as they lie in
 * the file.  0, or -1 when the file has neither section in its bytes.
 */
int uwsf_check_range(Elf *elf, struct uwsf_check *c)
{
	static const char *const names[] = { ".eh_frame", ".debug_frame" };
	size_t shstrndx, size, k;
	const uint8_t *img;
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Ehdr eh;

	img = (const uint8_t *)elf_rawfile(elf, &size);
	if (!img || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	for (k = 0; k < 2; k++) {
		for (scn = NULL; (scn = elf_nextscn(elf, scn));) {
			const char *n;

			if (!gelf_getshdr(scn, &sh) || !sh.sh_size ||
			    !UWSF_CFI_SECTION(sh.sh_type, eh.e_machine))
				continue;
			n = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!n || strcmp(n, names[k]) ||
			    sh.sh_offset > size ||
			    sh.sh_size > size - sh.sh_offset ||
			    sh.sh_size > UINT32_MAX)
				continue;
			c->off = sh.sh_offset;
			c->size = (uint32_t)sh.sh_size;
			c->crc = uwsf_crc32(img + sh.sh_offset, sh.sh_size);
			return 0;
		}
	}
	return -1;
}

void uwsf_header(const struct sg_result *r, const struct uwsf_check *c,
		 uint8_t *h)
{
	memset(h, 0, UWSF_HDR_SIZE);
	memcpy(h, UWSF_MAGIC, 8);
	put_le(h + UWSF_OFF_VERSION, 2, UWSF_VERSION);
	put_le(h + UWSF_OFF_HDR_SIZE, 2, UWSF_HDR_SIZE);
	put_le(h + UWSF_OFF_MACHINE, 2, r->machine);
	h[UWSF_OFF_ID_LEN] = (uint8_t)r->build_id_len;
	h[UWSF_OFF_FLAGS] = (r->big_endian ? UWSF_F_BIG_ENDIAN : 0) |
			    (r->build_id_len ? 0 : UWSF_F_CFI_KEY);
	put_le(h + UWSF_OFF_VADDR, 8, 0);
	put_le(h + UWSF_OFF_TEXT_LO, 8, r->text_lo);
	put_le(h + UWSF_OFF_TEXT_HI, 8, r->text_hi);
	put_le(h + UWSF_OFF_SIZE, 4, r->size);
	put_le(h + UWSF_OFF_CFI_SIZE, 4, r->st.cfi_size);
	if (c) {
		put_le(h + UWSF_OFF_CHECK_OFF, 8, c->off);
		put_le(h + UWSF_OFF_CHECK_SIZE, 4, c->size);
		put_le(h + UWSF_OFF_CHECK_CRC, 4, c->crc);
	}
	memcpy(h + UWSF_OFF_BUILD_ID, r->build_id, r->build_id_len);
}

/*
 * Whether the 128-byte header h is a table file's, for a file whose
 * size is the whole file's size (0: do not check it), decoded into d.
 */
bool uwsf_parse(const uint8_t *h, size_t size, struct uwsf_hdr *d)
{
	if (memcmp(h, UWSF_MAGIC, 8) ||
	    get_le(h + UWSF_OFF_VERSION, 2) != UWSF_VERSION ||
	    get_le(h + UWSF_OFF_HDR_SIZE, 2) != UWSF_HDR_SIZE ||
	    h[UWSF_OFF_ID_LEN] > UWSF_MAX_ID)
		return false;
	d->machine = (uint16_t)get_le(h + UWSF_OFF_MACHINE, 2);
	d->big_endian = h[UWSF_OFF_FLAGS] & UWSF_F_BIG_ENDIAN;
	d->cfi_key = h[UWSF_OFF_FLAGS] & UWSF_F_CFI_KEY;
	d->id_len = h[UWSF_OFF_ID_LEN];
	memcpy(d->build_id, h + UWSF_OFF_BUILD_ID, UWSF_MAX_ID);
	d->vaddr = get_le(h + UWSF_OFF_VADDR, 8);
	d->sframe_size = (uint32_t)get_le(h + UWSF_OFF_SIZE, 4);
	d->check.off = get_le(h + UWSF_OFF_CHECK_OFF, 8);
	d->check.size = (uint32_t)get_le(h + UWSF_OFF_CHECK_SIZE, 4);
	d->check.crc = (uint32_t)get_le(h + UWSF_OFF_CHECK_CRC, 4);
	return !size || size - UWSF_HDR_SIZE == d->sframe_size;
}

/*
 * Whether a table file's header fits the file of size bytes (checked
 * first, header included): 0, or -1 with why printed.
 */
int uwsf_read_header(const char *path, const uint8_t *img, size_t size,
		     struct uwsf_hdr *d)
{
	if (size < UWSF_HDR_SIZE) {
		tool_err(path, "truncated table file: %zu bytes, shorter than"
			 " its %u-byte header", size, UWSF_HDR_SIZE);
		return -1;
	}
	if (!uwsf_parse(img, 0, d)) {
		tool_err(path, "not a uwind table file of version %u (its"
			 " header says version %llu, header size %llu)",
			 UWSF_VERSION,
			 (unsigned long long)get_le(img + UWSF_OFF_VERSION, 2),
			 (unsigned long long)get_le(img + UWSF_OFF_HDR_SIZE, 2));
		return -1;
	}
	if (d->sframe_size != size - UWSF_HDR_SIZE) {
		tool_err(path, "%s table file: %zu bytes, its header says %llu",
			 d->sframe_size > size - UWSF_HDR_SIZE ? "truncated" :
			 "overlong", size,
			 (unsigned long long)d->sframe_size + UWSF_HDR_SIZE);
		return -1;
	}
	return 0;
}

/*
 * A table file written by `uwind sframe -o`: its section, placed at its
 * sframe_vaddr plus bias.  0, or -1 with a message printed.
 */
int tool_load_uwsf(const char *path, const uint8_t *img, size_t size,
		   uint64_t bias, struct tool_table *t)
{
	struct uwsf_hdr d;

	if (uwsf_read_header(path, img, size, &d))
		return -1;
	memset(t, 0, sizeof(*t));
	t->owned = malloc(d.sframe_size ? d.sframe_size : 1);
	if (!t->owned) {
		fprintf(stderr, "uwind: out of memory\n");
		return -1;
	}
	memcpy(t->owned, img + UWSF_HDR_SIZE, d.sframe_size);
	t->span.data = t->owned;
	t->span.size = d.sframe_size;
	t->span.addr = d.vaddr + bias;
	t->name = "uwind table";
	return 0;
}

/*
 * Whether the table file's header names the machine its section is for
 * (its ABI and byte order): 0, or -1 with why printed.
 */
int uwsf_check_machine(const char *path, const struct uwsf_hdr *d,
		       const struct uw_sframe *sf)
{
	enum uw_arch want = d->machine == EM_X86_64 ? UW_ARCH_X86_64 :
			    d->machine == EM_AARCH64 ? UW_ARCH_AARCH64 :
			    UW_ARCH_NONE;

	if (want == UW_ARCH_NONE) {
		tool_err(path, "table file for machine %u, which SFrame tables"
			 " of uwind are not made for", d->machine);
		return -1;
	}
	if (sf->arch != want || sf->big_endian != d->big_endian) {
		tool_err(path, "the header names machine %u (%s), its section"
			 " is for %s%s", d->machine, uw_arch_name(want),
			 uw_arch_name(sf->arch),
			 sf->big_endian ? " big-endian" : "");
		return -1;
	}
	return 0;
}
