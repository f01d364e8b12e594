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
 *   uwind sframe --install [--dir DIR] [-v] FILE... | --pid PID | --system
 *       install the tables the kernel module reads (install.c)
 *   --vdso stands for a FILE: the running kernel's vDSO, read from memory
 *
 * Exit status: 0 done; 1 a file cannot be read, has no CFI or no ABI
 * SFrame knows; 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "install.h"
#include "sframe_gen.h"
#include "uwind.h"
#include "uwsf.h"

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
	struct uwsf_check chk;
	struct sg_result r;
	struct inst_src s;
	char err[160] = "";
	bool has_chk;
	int ret;

	if (inst_open(path, 0, false, &s))
		return 1;
	ret = sg_convert(s.elf, &r, err, sizeof(err));
	has_chk = !uwsf_check_range(s.elf, &chk);
	inst_close(&s);
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
		uwsf_header(&r, has_chk ? &chk : NULL, hdr);
		ret = write_file(out, hdr, sizeof(hdr), r.sec, r.size);
	}
	sg_result_free(&r);
	return ret ? 1 : 0;
}

static int sframe_usage(void)
{
	fprintf(stderr, "usage: uwind sframe FILE -o OUT [--raw] [-v]\n"
			"       uwind sframe --check [-v] FILE...\n"
			"       uwind sframe --install [--dir DIR] [-v] FILE...\n"
			"       uwind sframe --install [--dir DIR] [-v] --pid PID | --system\n"
			"       (--vdso stands for the running kernel's vDSO as a FILE)\n");
	return 2;
}

int cmd_sframe(int argc, char **argv)
{
	struct inst_opts io = { 0 };
	const char *out = NULL;
	const char *files[256];
	bool raw = false, check = false, verbose = false, install = false;
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
		else if (!strcmp(argv[i], "--install"))
			install = true;
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			io.dir = argv[++i];
		else if (!strcmp(argv[i], "--pid") && i + 1 < argc &&
			 (io.pid = atoi(argv[++i])) > 0)
			;
		else if (!strcmp(argv[i], "--system"))
			io.system = true;
		else if (n < (int)(sizeof(files) / sizeof(files[0])) &&
			 !strcmp(argv[i], "--vdso"))
			files[n++] = "[vdso]";
		else if (argv[i][0] == '-' && argv[i][1])
			return sframe_usage();
		else if (n < (int)(sizeof(files) / sizeof(files[0])))
			files[n++] = argv[i];
		else
			return sframe_usage();
	}
	if (install) {
		io.verbose = verbose;
		if (check || out || raw || (!n && !io.pid && !io.system))
			return sframe_usage();
		return cmd_install(&io, files, n);
	}
	if (io.dir || io.pid || io.system)
		return sframe_usage();
	if (!n || (check && (out || raw)) || (!check && (!out || n != 1)))
		return sframe_usage();
	for (i = 0; i < n; i++) {
		if (check && i)
			putchar('\n');
		ret |= convert_one(files[i], out, raw, check, verbose);
	}
	return ret;
}
