// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sframe_reencode: read a raw .sframe section (as `objcopy -O binary
 * --only-section=.sframe` writes it) placed at a given address, decode
 * it with the core (uw_sframe_fde / uw_sframe_fre), and write the same
 * table in another form:
 *
 *   sframe_reencode --vaddr ADDR [--out-vaddr ADDR] --to FORM [--be]
 *                   IN OUT
 *
 * FORM: v1, v2, v2pcrel, v3 (DEFAULT FDEs, PCREL), v3flex (every FDE
 * rewritten as a FLEX FDE with (control, offset) pairs).  --be writes an
 * AArch64 LE table as AArch64 BE (ABI 1, big-endian fields).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/sframe.h>
#include "sframe_enc.h"
#include "testutil.h"

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sframe_reencode: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static uint64_t parse_addr(const char *s)
{
	uint64_t v;

	if (tu_parse_addr(s, &v))
		die("bad address %s", s);
	return v;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	uint8_t *p = tu_read_file(path, len);

	if (!p)
		die("cannot read %s", path);
	return p;
}

/* DWARF numbers of the CFA base registers, per ABI. */
static void base_regs(uint8_t abi, unsigned int *sp, unsigned int *fp)
{
	switch (abi) {
	case UW_SFRAME_ABI_AMD64_LE:
		*sp = UW_X86_64_RSP;
		*fp = UW_X86_64_RBP;
		break;
	case UW_SFRAME_ABI_S390X_BE:
		*sp = UW_S390X_R15;
		*fp = UW_S390X_R11;
		break;
	default:
		*sp = UW_AARCH64_SP;
		*fp = UW_AARCH64_X29;
		break;
	}
}

/* One saved-register word of a DEFAULT FRE as a FLEX pair (or padding). */
static void flex_saved(const struct uw_sframe *sf, int32_t w,
		       struct sfe_fre *out)
{
	if (sf->abi == UW_SFRAME_ABI_S390X_BE && w == 0) {
		out->w[out->nwords++] = 0;		/* padding */
		return;
	}
	if (sf->abi == UW_SFRAME_ABI_S390X_BE && sf->version == 2 && (w & 1)) {
		out->w[out->nwords++] = SFE_CTRL((uint32_t)w >> 1, 0, 1);
		out->w[out->nwords++] = 0;
		return;
	}
	out->w[out->nwords++] = SFE_CTRL_CFA;
	out->w[out->nwords++] = w;
}

/*
 * Rewrite a DEFAULT FRE as FLEX: CFA = base register + offset, then RA
 * and FP in the DEFAULT layout's order (RA absent when the header fixes
 * it; a padding word when RA is absent but FP follows).
 */
static void to_flex(const struct uw_sframe *sf, const struct uw_sframe_fre *in,
		    struct sfe_fre *out)
{
	unsigned int sp, fp, i = 1;
	bool has_ra;

	base_regs(sf->abi, &sp, &fp);
	out->nwords = 0;
	out->word_size = 0;
	if (!in->nwords)
		return;			/* outermost stays outermost */
	out->w[out->nwords++] = SFE_CTRL(in->base_sp ? sp : fp, 0, 1);
	out->w[out->nwords++] = in->w[0];
	has_ra = !sf->fixed_ra && i < in->nwords;
	if (has_ra)
		flex_saved(sf, in->w[i++], out);
	if (!sf->fixed_fp && i < in->nwords) {
		if (!has_ra)
			out->w[out->nwords++] = 0;	/* RA padding */
		flex_saved(sf, in->w[i++], out);
	}
	/* Leftover words would be a malformed input: keep them visible. */
	while (i < in->nwords && out->nwords < SFE_MAX_WORDS)
		out->w[out->nwords++] = in->w[i++];
}

int main(int argc, char **argv)
{
	const char *form = NULL, *in = NULL, *out = NULL;
	uint64_t vaddr = 0, out_vaddr = 0;
	bool have_vaddr = false, have_out = false, be = false, flex = false;
	struct uw_sframe sf;
	struct uw_span span;
	struct sfe_table t;
	struct sfe_fde *fdes;
	struct sfe_fre *fres;
	uint32_t i, total = 0;
	uint8_t *data, *enc;
	size_t len, enc_len;
	char err[160];
	FILE *f;
	int a, e;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--vaddr") && a + 1 < argc) {
			vaddr = parse_addr(argv[++a]);
			have_vaddr = true;
		} else if (!strcmp(argv[a], "--out-vaddr") && a + 1 < argc) {
			out_vaddr = parse_addr(argv[++a]);
			have_out = true;
		} else if (!strcmp(argv[a], "--to") && a + 1 < argc) {
			form = argv[++a];
		} else if (!strcmp(argv[a], "--be")) {
			be = true;
		} else if (argv[a][0] == '-') {
			die("unknown option %s", argv[a]);
		} else if (!in) {
			in = argv[a];
		} else if (!out) {
			out = argv[a];
		} else {
			die("extra argument %s", argv[a]);
		}
	}
	if (!form || !in || !out || !have_vaddr)
		die("%s", "usage: sframe_reencode --vaddr ADDR [--out-vaddr ADDR] --to v1|v2|v2pcrel|v3|v3flex [--be] IN OUT");

	data = read_file(in, &len);
	span = (struct uw_span){ data, len, vaddr };
	e = uw_sframe_init(&sf, &span);
	if (e)
		die("init: %s", uw_strerror(e));

	memset(&t, 0, sizeof(t));
	t.abi = sf.abi;
	t.big_endian = sf.big_endian;
	t.fixed_fp = sf.fixed_fp;
	t.fixed_ra = sf.fixed_ra;
	t.addr = have_out ? out_vaddr : vaddr;
	t.flags = SFE_F_SORTED;
	if (!strcmp(form, "v1")) {
		t.version = 1;
	} else if (!strcmp(form, "v2")) {
		t.version = 2;
	} else if (!strcmp(form, "v2pcrel")) {
		t.version = 2;
		t.flags |= SFE_F_PCREL;
	} else if (!strcmp(form, "v3")) {
		t.version = 3;
		t.flags |= SFE_F_PCREL;
	} else if (!strcmp(form, "v3flex")) {
		t.version = 3;
		t.flags |= SFE_F_PCREL;
		flex = true;
	} else {
		die("unknown form %s", form);
	}
	if (t.version < 3)
		t.flags |= sf.flags & UW_SFRAME_F_FRAME_POINTER;
	if (be) {
		if (sf.abi != UW_SFRAME_ABI_AARCH64_LE)
			die("%s", "--be needs an AArch64 LE table");
		t.abi = UW_SFRAME_ABI_AARCH64_BE;
		t.big_endian = true;
	}

	fdes = calloc(sf.num_fdes + 1, sizeof(*fdes));
	fres = calloc((size_t)sf.num_fres + 1, sizeof(*fres));
	if (!fdes || !fres)
		die("%s", "out of memory");
	for (i = 0; i < sf.num_fdes; i++) {
		struct uw_sframe_fde d;
		struct sfe_fde *o = &fdes[i];
		uint32_t off, j;

		e = uw_sframe_fde(&sf, i, &d);
		if (e)
			die("FDE: %s", uw_strerror(e));
		if (d.num_fres > sf.num_fres - total)
			die("%s", "more FREs than the header says");
		o->func_start = d.func_start;
		o->func_size = d.func_size;
		o->pc_type = d.pc_type;
		o->rep_size = d.rep_size;
		o->addr_size = (uint8_t)(1u << d.fre_type);
		o->pauth_key_b = d.pauth_key_b;
		o->signal = t.version == 3 ? d.signal : 0;
		o->fde_type = flex ? SFE_FDE_FLEX : d.fde_type;
		if (t.version < 3 && d.fde_type != UW_SFRAME_FDE_DEFAULT)
			die("%s", "a FLEX FDE cannot be written before V3");
		o->nfres = d.num_fres;
		o->fres = &fres[total];
		off = d.fre_off;
		for (j = 0; j < d.num_fres; j++) {
			struct uw_sframe_fre r;
			struct sfe_fre *of = &fres[total + j];

			e = uw_sframe_fre(&sf, &d, &off, &r);
			if (e)
				die("FRE: %s", uw_strerror(e));
			of->start = r.start;
			of->base_sp = r.base_sp;
			of->ra_mangled = r.ra_mangled;
			if (flex && d.fde_type == UW_SFRAME_FDE_DEFAULT) {
				to_flex(&sf, &r, of);
			} else {
				of->nwords = r.nwords;
				of->word_size = r.word_size;
				memcpy(of->w, r.w, sizeof(r.w));
			}
		}
		total += d.num_fres;
	}
	t.nfdes = sf.num_fdes;
	t.fdes = fdes;

	if (sfe_encode(&t, &enc, &enc_len, NULL, err, sizeof(err)))
		die("encode: %s", err);
	f = fopen(out, "wb");
	if (!f || fwrite(enc, 1, enc_len, f) != enc_len || fclose(f))
		die("cannot write %s", out);
	free(enc);
	free(fdes);
	free(fres);
	free(data);
	return 0;
}
