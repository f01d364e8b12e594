// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * SFrame lookup benchmark: uwind (uw_sframe_find on the section in place,
 * one uw_sframe_init) against the system libsframe of binutils 2.40
 * (sframe_decode once, then sframe_find_fre), on the same table and the
 * same pcs, in the same run.
 *
 *   sframe_bench RAW VADDR TEXT_LO TEXT_HI           timed run, BENCH lines
 *   sframe_bench RAW VADDR TEXT_LO TEXT_HI KIND N    N lookups of one kind
 *
 * KIND is random-uwind, random-libsframe, hot-uwind or hot-libsframe; the
 * second form is for callgrind (instructions per lookup = the difference
 * to a run with N = 0, divided by N).
 *
 * libsframe's header is not packaged, so its API is declared here from
 * binutils 2.40's sframe-api.h: the row entry is { u32 start; u8
 * offsets[MAX_OFFSET_BYTES = 4 * ... = 12]; u8 info; } and sframe_find_fre
 * takes the pc relative to the start of the .sframe section (V1 FDE start
 * addresses count from there).  Both facts are checked at run time: every
 * timed pc is looked up by both and the CFA base and offset compared.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uwind/sframe.h>

/* binutils 2.40 libsframe, declared by hand. */
typedef struct sframe_decoder_ctx sframe_decoder_ctx;
typedef struct sframe_frame_row_entry {
	uint32_t fre_start_addr;
	unsigned char fre_offsets[12];	/* SFRAME_FRE_OFFSET_4B * 2 * 3 */
	unsigned char fre_info;
} sframe_frame_row_entry;

sframe_decoder_ctx *sframe_decode(const char *buf, size_t size, int *errp);
void sframe_decoder_free(sframe_decoder_ctx **dctx);
int sframe_find_fre(sframe_decoder_ctx *ctx, int32_t pc,
		    sframe_frame_row_entry *frep);
unsigned int sframe_fre_get_base_reg_id(sframe_frame_row_entry *fre,
					int *errp);
int32_t sframe_fre_get_cfa_offset(sframe_decoder_ctx *dctx,
				  sframe_frame_row_entry *fre, int *errp);

#define NRANDOM	(1u << 20)
#define NHOT	64
#define REPEAT	9

struct bench {
	struct uw_sframe sf;
	sframe_decoder_ctx *dctx;
	uint64_t vaddr;
	uint64_t *random;	/* NRANDOM pcs */
	uint64_t *hot;		/* NRANDOM pcs cycling over NHOT */
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One lookup each way; the returned value feeds a checksum. */
static inline int64_t look_uwind(const struct bench *b, uint64_t pc)
{
	struct uw_row row;

	if (uw_sframe_find(&b->sf, pc, &row))
		return -1;
	return row.cfa.off + row.cfa.reg;
}

static inline int64_t look_libsframe(const struct bench *b, uint64_t pc)
{
	sframe_frame_row_entry fre;
	int err = 0;
	int32_t off;
	unsigned int base;

	if (sframe_find_fre(b->dctx, (int32_t)(pc - b->vaddr), &fre))
		return -1;
	off = sframe_fre_get_cfa_offset(b->dctx, &fre, &err);
	base = sframe_fre_get_base_reg_id(&fre, &err);
	return err ? -1 : (int64_t)off + base;
}

static int64_t run(const struct bench *b, const uint64_t *pcs, size_t n,
		   int lib)
{
	int64_t sum = 0;
	size_t i;

	if (lib)
		for (i = 0; i < n; i++)
			sum += look_libsframe(b, pcs[i]);
	else
		for (i = 0; i < n; i++)
			sum += look_uwind(b, pcs[i]);
	return sum;
}

/* One pass over NRANDOM pcs, in ns per lookup. */
static double timed(const struct bench *b, const uint64_t *pcs, int lib,
		    int64_t *sum)
{
	double t = now_ns();

	*sum += run(b, pcs, NRANDOM, lib);
	return (now_ns() - t) / NRANDOM;
}

/*
 * Best of REPEAT passes each, uwind and libsframe passes interleaved, so
 * that a slow spell of the machine (a shared virtual CPU, frequency
 * changes) hits both sides alike instead of one side's whole series.
 */
static void compare(const struct bench *b, const uint64_t *pcs, double *u,
		    double *l, int64_t *sum)
{
	double t;
	int r;

	for (r = 0; r < REPEAT; r++) {
		t = timed(b, pcs, 0, sum);
		if (r == 0 || t < *u)
			*u = t;
		t = timed(b, pcs, 1, sum);
		if (r == 0 || t < *l)
			*l = t;
	}
}

/*
 * Both decoders on every pc: found or not, CFA base register (SFrame:
 * 1 = SP, 0 = FP) and offset.  Returns the number of disagreements.
 */
static size_t cross_check(const struct bench *b, const uint64_t *pcs,
			  size_t n, size_t *found)
{
	struct uw_arch_info ai;
	size_t i, bad = 0;

	uw_arch_info(b->sf.arch, &ai);
	*found = 0;
	for (i = 0; i < n; i++) {
		sframe_frame_row_entry fre;
		struct uw_row row;
		int e1, e2, err = 0;
		int32_t off = 0;
		unsigned int base = 0;

		e1 = uw_sframe_find(&b->sf, pcs[i], &row);
		e2 = sframe_find_fre(b->dctx, (int32_t)(pcs[i] - b->vaddr),
				     &fre);
		if (!e2) {
			off = sframe_fre_get_cfa_offset(b->dctx, &fre, &err);
			base = sframe_fre_get_base_reg_id(&fre, &err);
		}
		if (!e1)
			(*found)++;
		if (!!e1 != !!e2 || err) {
			if (bad++ < 5)
				printf("# pc 0x%" PRIx64 ": uwind %d, libsframe %d\n",
				       pcs[i], e1, e2);
			continue;
		}
		if (e1)
			continue;
		if (row.cfa.off != off ||
		    (row.cfa.reg == ai.sp) != (base == 1)) {
			if (bad++ < 5)
				printf("# pc 0x%" PRIx64 ": uwind cfa %s%+d, libsframe %s%+d\n",
				       pcs[i], row.cfa.reg == ai.sp ? "sp" : "fp",
				       row.cfa.off, base ? "sp" : "fp", off);
		}
	}
	return bad;
}

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*size = (size_t)len;
	return buf;
}

static void make_pcs(struct bench *b, uint64_t lo, uint64_t hi)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, hot[NHOT];
	struct uw_row row;
	size_t i, n = 0;

	b->random = malloc(NRANDOM * sizeof(*b->random));
	b->hot = malloc(NRANDOM * sizeof(*b->hot));
	if (!b->random || !b->hot) {
		perror("malloc");
		exit(1);
	}
	for (i = 0; i < NRANDOM; i++)
		b->random[i] = lo + xorshift(&seed) % (hi - lo);
	/* Hot pcs: 64 random pcs that have a row. */
	for (i = 0; i < NRANDOM && n < NHOT; i++)
		if (!uw_sframe_find(&b->sf, b->random[i], &row))
			hot[n++] = b->random[i];
	if (n < NHOT) {
		fprintf(stderr, "sframe_bench: too few pcs with a row\n");
		exit(1);
	}
	for (i = 0; i < NRANDOM; i++)
		b->hot[i] = hot[i % NHOT];
}

static int parse(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct uw_span span;
	uint64_t lo, hi, n;
	size_t size, found, bad_r, bad_h;
	double t_u, t_l, h_u, h_l, t;
	int64_t sum = 0;
	void *buf;
	int err = 0;

	if ((argc != 5 && argc != 7) || parse(argv[2], &b.vaddr) ||
	    parse(argv[3], &lo) || parse(argv[4], &hi) || hi <= lo) {
		fprintf(stderr, "usage: sframe_bench RAW VADDR TEXT_LO TEXT_HI [KIND N]\n");
		return 2;
	}
	buf = read_file(argv[1], &size);
	if (!buf) {
		perror(argv[1]);
		return 1;
	}
	span.data = buf;
	span.size = size;
	span.addr = b.vaddr;
	t = now_ns();
	err = uw_sframe_init(&b.sf, &span);
	t = now_ns() - t;
	if (err) {
		fprintf(stderr, "uw_sframe_init: %s\n", uw_strerror(err));
		return 1;
	}
	make_pcs(&b, lo, hi);

	if (argc == 7) {
		const char *kind = argv[5];
		const uint64_t *pcs = strncmp(kind, "hot", 3) ? b.random : b.hot;
		int lib = strstr(kind, "libsframe") != NULL;

		if (parse(argv[6], &n) || n > NRANDOM) {
			fprintf(stderr, "sframe_bench: N at most %u\n", NRANDOM);
			return 2;
		}
		if (lib) {
			b.dctx = sframe_decode(buf, size, &err);
			if (!b.dctx)
				return 1;
		}
		sum = run(&b, pcs, n, lib);
		return sum == 42 ? 3 : 0;	/* keep the result live */
	}

	printf("# table: %s, %u FDEs, %u FREs, %zu bytes; text 0x%" PRIx64
	       "-0x%" PRIx64 "\n", argv[1], b.sf.num_fdes, b.sf.num_fres,
	       size, lo, hi);
	printf("BENCH sframe.init.uwind %.0f ns\n", t);
	t = now_ns();
	b.dctx = sframe_decode(buf, size, &err);
	t = now_ns() - t;
	if (!b.dctx) {
		fprintf(stderr, "sframe_decode failed: %d\n", err);
		return 1;
	}
	printf("BENCH sframe.init.libsframe %.0f ns\n", t);

	/* The whole-table check a kernel runs once per file, best of 3. */
	{
		struct uw_check c;
		double best = 0;
		int i, ret;

		for (i = 0; i < 3; i++) {
			uw_check_start(&c, 0);
			t = now_ns();
			ret = uw_sframe_check(&b.sf, &c);
			t = now_ns() - t;
			if (ret) {
				fprintf(stderr, "uw_sframe_check: %s at FDE %u\n",
					uw_strerror(ret), c.item);
				return 1;
			}
			if (!i || t < best)
				best = t;
		}
		printf("BENCH sframe.check.uwind %.0f ns\n", best);
	}

	bad_r = cross_check(&b, b.random, NRANDOM, &found);
	bad_h = cross_check(&b, b.hot, NRANDOM, &found);
	printf("# cross-check: %u random pcs (%zu with a row) and %u hot: "
	       "%zu + %zu disagreements between uwind and libsframe\n",
	       NRANDOM, found, NRANDOM, bad_r, bad_h);
	printf("BENCH sframe.crosscheck.disagreements %zu count\n",
	       bad_r + bad_h);

	compare(&b, b.random, &t_u, &t_l, &sum);
	compare(&b, b.hot, &h_u, &h_l, &sum);
	printf("BENCH sframe.lookup.random.uwind %.1f ns\n", t_u);
	printf("BENCH sframe.lookup.random.libsframe %.1f ns\n", t_l);
	printf("BENCH sframe.lookup.random.speedup %.2f x\n", t_l / t_u);
	printf("BENCH sframe.lookup.hot.uwind %.1f ns\n", h_u);
	printf("BENCH sframe.lookup.hot.libsframe %.1f ns\n", h_l);
	printf("BENCH sframe.lookup.hot.speedup %.2f x\n", h_l / h_u);
	printf("# checksum %" PRId64 "\n", sum);
	sframe_decoder_free(&b.dctx);
	free(b.random);
	free(b.hot);
	free(buf);
	return bad_r + bad_h ? 1 : 0;
}
