// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind sframe --check`: the coverage report (sframe_report.h).
 *
 * Text: per file the lines below, an empty line between files, and for
 * more than one file a "total:" block with the same counts summed:
 *
 *   file: PATH
 *   arch: x86-64 | aarch64 | aarch64_be
 *   build-id: HEX | none
 *   cfi-bytes: N
 *   fdes: N (whole N, part N, none N; dead N, duplicate N, unreadable N)
 *   text-bytes: N (code N, alignment padding N)
 *   described: N P% (flex N, plt-blocks N, plt-without-cfi N)
 *   left-out: N P% (REASON N, ...)
 *   no-cfi: N P% (and padding N; function symbols without CFI N of N)
 *   table: SFrame VN, N FDEs (N flex, N pcmask), N FREs, N bytes (P% of
 *          the CFI)
 *
 * Shares are of the code (text minus alignment padding without CFI).
 * JSON: the schema in uwind(1), JSON OUTPUT (scripts/uwind/uwind.1).
 */
#include <stddef.h>
#include <string.h>
#include "json.h"
#include "sframe_report.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t left_out(const struct sg_stats *s)
{
	uint64_t left = 0;
	int k;

	for (k = 0; k < SG_NREASONS; k++)
		left += s->left[k];
	return left;
}

static void text_stats(FILE *f, const struct sg_stats *s, uint64_t size)
{
	uint64_t left = left_out(s), code = s->text_bytes - s->nocfi_pad;
	int k;

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
	fputs("table: ", f);
	if (s->version)
		fprintf(f, "SFrame V%u, ", s->version);
	fprintf(f, "%llu FDEs (%llu flex, %llu pcmask), %llu FREs, %llu bytes"
		" (%.1f%% of the CFI)\n",
		(unsigned long long)s->out_fdes, (unsigned long long)s->out_flex,
		(unsigned long long)s->out_mask, (unsigned long long)s->out_fres,
		(unsigned long long)size, pct(size, s->cfi_size));
}

static void json_stats(const struct sg_stats *s, uint64_t size)
{
	uint64_t left = left_out(s), code = s->text_bytes - s->nocfi_pad;
	int k;

	json_int("cfi_bytes", (long long)s->cfi_size);
	json_begin("fdes");
	json_int("total", (long long)s->fdes);
	json_int("whole", (long long)s->fdes_full);
	json_int("part", (long long)s->fdes_part);
	json_int("none", (long long)s->fdes_none);
	json_int("dead", (long long)s->fdes_dead);
	json_int("duplicate", (long long)s->fdes_dup);
	json_int("unreadable", (long long)s->bad_entries);
	json_end();
	json_int("text_bytes", (long long)s->text_bytes);
	json_int("code_bytes", (long long)code);
	json_int("padding_bytes", (long long)s->nocfi_pad);
	json_begin("described");
	json_int("bytes", (long long)s->desc_bytes);
	json_double("percent", pct(s->desc_bytes, code));
	json_int("flex", (long long)s->desc_flex);
	json_int("plt_blocks", (long long)s->desc_mask);
	json_int("plt_without_cfi", (long long)s->desc_synth);
	json_end();
	json_begin("left_out");
	json_int("bytes", (long long)left);
	json_double("percent", pct(left, code));
	json_begin("reasons");
	for (k = 0; k < SG_NREASONS; k++)
		json_int(sg_reason_name(k), (long long)s->left[k]);
	json_end();
	json_end();
	json_begin("no_cfi");
	json_int("bytes", (long long)(s->nocfi - s->nocfi_pad));
	json_double("percent", pct(s->nocfi - s->nocfi_pad, code));
	json_int("padding", (long long)s->nocfi_pad);
	json_int("function_symbols", (long long)s->syms);
	json_int("function_symbols_without_cfi", (long long)s->syms_nocfi);
	json_end();
	json_begin("table");
	if (s->version)
		json_int("version", s->version);
	json_int("fdes", (long long)s->out_fdes);
	json_int("flex", (long long)s->out_flex);
	json_int("pcmask", (long long)s->out_mask);
	json_int("fres", (long long)s->out_fres);
	json_int("bytes", (long long)size);
	json_double("percent_of_cfi", pct(size, s->cfi_size));
	json_end();
}

static const char *arch_name(const struct sg_result *r)
{
	return r->machine == EM_X86_64 ? "x86-64" :
	       r->big_endian ? "aarch64_be" : "aarch64";
}

static void text_ranges(FILE *f, const struct sg_result *r)
{
	size_t i;

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

static void json_ranges(const struct sg_result *r)
{
	size_t i;

	json_begin_array("left_out_ranges");
	for (i = 0; i < r->ngaps; i++) {
		json_begin(NULL);
		json_hex("start", r->gaps[i].start);
		json_hex("end", r->gaps[i].end);
		json_str("reason", sg_reason_name(r->gaps[i].reason));
		json_end();
	}
	json_end_array();
	json_begin_array("no_cfi_ranges");
	for (i = 0; i < r->nnocfi; i++) {
		json_begin(NULL);
		json_hex("start", r->nocfi[i].start);
		json_hex("end", r->nocfi[i].end);
		json_bool("padding", r->nocfi[i].reason);
		json_end();
	}
	json_end_array();
}

/* The counts of s added to sum (version: kept only when all agree). */
static void add_stats(struct sg_stats *sum, const struct sg_stats *s,
		      bool first)
{
#define F(x)	offsetof(struct sg_stats, x)
	static const size_t counts[] = {
		F(cfi_size), F(text_bytes), F(desc_bytes), F(desc_flex),
		F(desc_mask), F(desc_synth), F(nocfi), F(nocfi_pad), F(fdes),
		F(fdes_full), F(fdes_part), F(fdes_none), F(fdes_dead),
		F(fdes_dup), F(bad_entries), F(syms), F(syms_nocfi),
		F(out_fdes), F(out_flex), F(out_mask), F(out_fres),
	};
#undef F
	size_t i;
	int k;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		*(uint64_t *)((char *)sum + counts[i]) +=
			*(const uint64_t *)((const char *)s + counts[i]);
	for (k = 0; k < SG_NREASONS; k++)
		sum->left[k] += s->left[k];
	sum->version = first || sum->version == s->version ? s->version : 0;
}

void sg_report_begin(void)
{
	if (json_wanted) {
		json_begin(NULL);
		json_begin_array("files");
	}
}

void sg_report(FILE *f, const char *path, const struct sg_result *r,
	       bool verbose, struct sg_total *t)
{
	size_t i;

	if (t) {
		add_stats(&t->st, &r->st, !t->files);
		t->size += r->size;
		t->files++;
	}
	if (json_wanted) {
		json_begin(NULL);
		json_str("file", path);
		json_str("arch", arch_name(r));
		if (r->build_id_len) {
			char id[2 * sizeof(r->build_id) + 1];

			for (i = 0; i < r->build_id_len; i++)
				sprintf(id + 2 * i, "%02x", r->build_id[i]);
			json_str("build_id", id);
		} else {
			json_str("build_id", NULL);
		}
		json_stats(&r->st, r->size);
		if (verbose)
			json_ranges(r);
		json_end();
		return;
	}
	if (t && t->files > 1)
		fputc('\n', f);
	fprintf(f, "file: %s\n", path);
	fprintf(f, "arch: %s\n", arch_name(r));
	fprintf(f, "build-id: ");
	for (i = 0; i < r->build_id_len; i++)
		fprintf(f, "%02x", r->build_id[i]);
	fprintf(f, "%s\n", r->build_id_len ? "" : "none");
	text_stats(f, &r->st, r->size);
	if (verbose)
		text_ranges(f, r);
}

void sg_report_failed(const char *path, const char *why, struct sg_total *t)
{
	t->files++;
	t->failed++;
	if (!json_wanted)
		return;
	json_begin(NULL);
	json_str("file", path);
	json_str("error", why);
	json_end();
}

void sg_report_end(const struct sg_total *t)
{
	if (json_wanted) {
		json_end_array();
		json_begin("total");
		json_int("files", t->files);
		json_int("failed", t->failed);
		json_stats(&t->st, t->size);
		json_end();
		json_end();
		return;
	}
	if (t->files < 2)
		return;
	printf("\ntotal: %u files, %u failed\n", t->files, t->failed);
	text_stats(stdout, &t->st, t->size);
}
