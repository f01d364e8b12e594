// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind sframe: SFrame tables made from DWARF CFI (sframe_gen.c).
 *
 *   uwind sframe FILE -o OUT [--raw] [-v]
 *       write FILE's table: the installable file of uwsf.h, or with
 *       --raw the bare section, laid out at vaddr 0 (`uwind lookup
 *       --sframe OUT --vaddr 0 ADDR...` reads it); -v adds the coverage
 *       report on stderr
 *   uwind sframe --check [-v] FILE...
 *       the coverage report of each FILE on stdout; -v also lists every
 *       range left out (with its reason) and every range without CFI
 *
 * Exit status: 0 done; 1 a file cannot be read, has no CFI or no ABI
 * SFrame knows; 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

static void uwsf_header(const struct sg_result *r, uint8_t *h)
{
	memset(h, 0, UWSF_HDR_SIZE);
	memcpy(h, UWSF_MAGIC, 8);
	put_le(h + UWSF_OFF_VERSION, 2, UWSF_VERSION);
	put_le(h + UWSF_OFF_HDR_SIZE, 2, UWSF_HDR_SIZE);
	put_le(h + UWSF_OFF_MACHINE, 2, r->machine);
	h[UWSF_OFF_ID_LEN] = (uint8_t)r->build_id_len;
	h[UWSF_OFF_FLAGS] = r->big_endian ? UWSF_F_BIG_ENDIAN : 0;
	put_le(h + UWSF_OFF_VADDR, 8, 0);
	put_le(h + UWSF_OFF_TEXT_LO, 8, r->text_lo);
	put_le(h + UWSF_OFF_TEXT_HI, 8, r->text_hi);
	put_le(h + UWSF_OFF_SIZE, 4, r->size);
	put_le(h + UWSF_OFF_CFI_SIZE, 4, r->st.cfi_size);
	memcpy(h + UWSF_OFF_BUILD_ID, r->build_id, r->build_id_len);
}

/*
 * A table file written by `uwind sframe -o`: its section, placed at its
 * sframe_vaddr plus bias.  0, or -1 with a message printed.
 */
int tool_load_uwsf(const char *path, const uint8_t *img, size_t size,
		   uint64_t bias, struct tool_table *t)
{
	uint64_t len;

	if (size < UWSF_HDR_SIZE || memcmp(img, UWSF_MAGIC, 8) ||
	    get_le(img + UWSF_OFF_VERSION, 2) != UWSF_VERSION ||
	    get_le(img + UWSF_OFF_HDR_SIZE, 2) != UWSF_HDR_SIZE) {
		fprintf(stderr, "uwind: %s: not a uwind SFrame table file\n",
			path);
		return -1;
	}
	len = get_le(img + UWSF_OFF_SIZE, 4);
	if (len != size - UWSF_HDR_SIZE) {
		fprintf(stderr, "uwind: %s: table size %llu, file holds %zu\n",
			path, (unsigned long long)len, size - UWSF_HDR_SIZE);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	t->owned = malloc(len ? len : 1);
	if (!t->owned) {
		fprintf(stderr, "uwind: out of memory\n");
		return -1;
	}
	memcpy(t->owned, img + UWSF_HDR_SIZE, len);
	t->span.data = t->owned;
	t->span.size = len;
	t->span.addr = get_le(img + UWSF_OFF_VADDR, 8) + bias;
	t->name = "uwind table";
	return 0;
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	if (*fd < 0) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		fprintf(stderr, "uwind: %s: not an ELF file\n", path);
		if (elf)
			elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_report(FILE *f, const char *path, const struct sg_result *r,
			 bool verbose)
{
	const struct sg_stats *s = &r->st;
	uint64_t left = 0, code = s->text_bytes - s->nocfi_pad;
	size_t i;
	int k;

	for (k = 0; k < SG_NREASONS; k++)
		left += s->left[k];
	fprintf(f, "file: %s\n", path);
	fprintf(f, "arch: %s\n", r->machine == EM_X86_64 ? "x86-64" :
		r->big_endian ? "aarch64_be" : "aarch64");
	fprintf(f, "build-id: ");
	for (i = 0; i < r->build_id_len; i++)
		fprintf(f, "%02x", r->build_id[i]);
	fprintf(f, "%s\n", r->build_id_len ? "" : "none");
	fprintf(f, "cfi-bytes: %llu\n", (unsigned long long)s->cfi_size);
	fprintf(f, "fdes: %llu (whole %llu, part %llu, none %llu; dead %llu,"
		" duplicate %llu, unreadable %llu)\n",
		(unsigned long long)s->fdes, (unsigned long long)s->fdes_full,
		(unsigned long long)s->fdes_part,
		(unsigned long long)s->fdes_none,
		(unsigned long long)s->fdes_dead,
		(unsigned long long)s->fdes_dup,
		(unsigned long long)s->bad_entries);
	fprintf(f, "text-bytes: %llu (code %llu, alignment padding %llu)\n",
		(unsigned long long)s->text_bytes, (unsigned long long)code,
		(unsigned long long)s->nocfi_pad);
	/* Shares of the code: padding without CFI is not code to unwind. */
	fprintf(f, "described: %llu %.2f%% (flex %llu, plt-blocks %llu,"
		" plt-without-cfi %llu)\n", (unsigned long long)s->desc_bytes,
		pct(s->desc_bytes, code),
		(unsigned long long)s->desc_flex,
		(unsigned long long)s->desc_mask,
		(unsigned long long)s->desc_synth);
	fprintf(f, "left-out: %llu %.2f%% (", (unsigned long long)left,
		pct(left, code));
	for (k = 0; k < SG_NREASONS; k++)
		fprintf(f, "%s%s %llu", k ? ", " : "", sg_reason_name(k),
			(unsigned long long)s->left[k]);
	fprintf(f, ")\n");
	fprintf(f, "no-cfi: %llu %.2f%% (and padding %llu; function"
		" symbols without CFI %llu of %llu)\n",
		(unsigned long long)(s->nocfi - s->nocfi_pad),
		pct(s->nocfi - s->nocfi_pad, code),
		(unsigned long long)s->nocfi_pad,
		(unsigned long long)s->syms_nocfi,
		(unsigned long long)s->syms);
	fprintf(f, "table: SFrame V%u, %llu FDEs (%llu flex, %llu pcmask),"
		" %llu FREs, %zu bytes (%.1f%% of the CFI)\n", s->version,
		(unsigned long long)s->out_fdes, (unsigned long long)s->out_flex,
		(unsigned long long)s->out_mask, (unsigned long long)s->out_fres,
		r->size, pct(r->size, s->cfi_size));
	if (!verbose)
		return;
	for (i = 0; i < r->ngaps; i++)
		fprintf(f, "left-out 0x%llx-0x%llx %s\n",
			(unsigned long long)r->gaps[i].start,
			(unsigned long long)r->gaps[i].end,
			sg_reason_name(r->gaps[i].reason));
	for (i = 0; i < r->nnocfi; i++)
		fprintf(f, "no-cfi 0x%llx-0x%llx %s\n",
			(unsigned long long)r->nocfi[i].start,
			(unsigned long long)r->nocfi[i].end,
			r->nocfi[i].reason ? "padding" : "code");
}

static int write_file(const char *path, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	FILE *f = fopen(path, "wb");

	if (!f || (alen && fwrite(a, 1, alen, f) != alen) ||
	    (blen && fwrite(b, 1, blen, f) != blen)) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f)) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Convert one file: 0 done, 1 failed (message printed). */
static int convert_one(const char *path, const char *out, bool raw,
		       bool check, bool verbose)
{
	uint8_t hdr[UWSF_HDR_SIZE];
	struct sg_result r;
	char err[160] = "";
	int fd, ret;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return 1;
	ret = sg_convert(elf, &r, err, sizeof(err));
	elf_end(elf);
	close(fd);
	if (ret) {
		fprintf(stderr, "uwind: %s: %s\n", path, err);
		if (ret > 0)
			sg_result_free(&r);
		return 1;
	}
	if (check || verbose)
		print_report(check ? stdout : stderr, path, &r, check && verbose);
	if (out && raw) {
		ret = write_file(out, r.sec, r.size, NULL, 0);
	} else if (out) {
		if (!r.build_id_len)
			fprintf(stderr, "uwind: %s: no GNU build-id: the table"
				" cannot be keyed to the file\n", path);
		uwsf_header(&r, hdr);
		ret = write_file(out, hdr, sizeof(hdr), r.sec, r.size);
	}
	sg_result_free(&r);
	return ret ? 1 : 0;
}

static int sframe_usage(void)
{
	fprintf(stderr, "usage: uwind sframe FILE -o OUT [--raw] [-v]\n"
			"       uwind sframe --check [-v] FILE...\n");
	return 2;
}

int cmd_sframe(int argc, char **argv)
{
	const char *out = NULL;
	const char *files[256];
	bool raw = false, check = false, verbose = false;
	int i, n = 0, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--raw"))
			raw = true;
		else if (!strcmp(argv[i], "--check"))
			check = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (argv[i][0] == '-' && argv[i][1])
			return sframe_usage();
		else if (n < (int)(sizeof(files) / sizeof(files[0])))
			files[n++] = argv[i];
		else
			return sframe_usage();
	}
	if (!n || (check && (out || raw)) || (!check && (!out || n != 1)))
		return sframe_usage();
	for (i = 0; i < n; i++) {
		if (check && i)
			putchar('\n');
		ret |= convert_one(files[i], out, raw, check, verbose);
	}
	return ret;
}
