// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sframe_cmp: compare two raw .sframe sections by their lookups.
 *
 *   sframe_cmp A ADDR_A B ADDR_B
 *	uw_sframe_find on both tables at every byte of every function of
 *	either table, and a few bytes around each; the results (error, or
 *	function, row start, CFA/RA/FP rules and flags) must be identical.
 *	Prints a summary line; exits 1 on any difference.
 *
 *   sframe_cmp --pcs A ADDR_A
 *	print those addresses (0x-prefixed hex, one a line) for table A.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uwind/sframe.h>
#include "testutil.h"

#define MARGIN	4	/* bytes probed before and after each function */

struct table {
	uint8_t *data;
	size_t len;
	struct uw_sframe sf;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sframe_cmp: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static void load(struct table *t, const char *path, const char *addr)
{
	struct uw_span span;
	uint64_t vaddr;
	int e;

	t->data = tu_read_file(path, &t->len);
	if (!t->data)
		die("cannot read %s", path);
	if (tu_parse_addr(addr, &vaddr))
		die("bad address %s", addr);
	span = (struct uw_span){ t->data, t->len, vaddr };
	e = uw_sframe_init(&t->sf, &span);
	if (e)
		die("init: %s", uw_strerror(e));
}

static void show(const char *tag, uint64_t pc, int err,
		 const struct uw_row *r)
{
	if (err) {
		fprintf(stderr, "  %s %#llx: error %d (%s)\n", tag,
			(unsigned long long)pc, err, uw_strerror(err));
		return;
	}
	fprintf(stderr,
		"  %s %#llx: fn %#llx+%#llx start %#llx cfa %u/r%u%+d ra %u/r%u%+d fp %u/r%u%+d flags %#x\n",
		tag, (unsigned long long)pc, (unsigned long long)r->fn_start,
		(unsigned long long)r->fn_size, (unsigned long long)r->start,
		r->cfa.kind, r->cfa.reg, r->cfa.off, r->ra.kind, r->ra.reg,
		r->ra.off, r->fp.kind, r->fp.reg, r->fp.off, r->flags);
}

struct cmp {
	const struct table *a, *b;
	unsigned long long pcs, diffs;
	bool list;
};

static void probe(struct cmp *c, uint64_t pc)
{
	struct uw_row ra, rb;
	int ea, eb;

	if (c->list) {
		printf("%#llx\n", (unsigned long long)pc);
		c->pcs++;
		return;
	}
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	ea = uw_sframe_find(&c->a->sf, pc, &ra);
	eb = uw_sframe_find(&c->b->sf, pc, &rb);
	c->pcs++;
	if (ea == eb && (ea || (ra.fn_start == rb.fn_start &&
				ra.fn_size == rb.fn_size &&
				ra.start == rb.start && ra.flags == rb.flags &&
				tu_rule_eq(&ra.cfa, &rb.cfa) &&
				tu_rule_eq(&ra.ra, &rb.ra) &&
				tu_rule_eq(&ra.fp, &rb.fp))))
		return;
	if (c->diffs++ < 10) {
		show("A", pc, ea, &ra);
		show("B", pc, eb, &rb);
	}
}

/* Every byte of every function of t, with MARGIN bytes either side. */
static void sweep(struct cmp *c, const struct table *t)
{
	uint64_t pc, lo, hi, done = 0;
	uint32_t i;

	for (i = 0; i < t->sf.num_fdes; i++) {
		struct uw_sframe_fde d;
		int e = uw_sframe_fde(&t->sf, i, &d);

		if (e) {
			fprintf(stderr, "sframe_cmp: FDE %u: %s\n", i,
				uw_strerror(e));
			c->diffs++;
			continue;
		}
		lo = d.func_start >= MARGIN ? d.func_start - MARGIN : 0;
		hi = d.func_start + d.func_size + MARGIN;
		if (lo < done)
			lo = done;	/* sorted: skip what was probed */
		for (pc = lo; pc < hi; pc++)
			probe(c, pc);
		if (hi > done)
			done = hi;
	}
}

int main(int argc, char **argv)
{
	struct table a, b;
	struct cmp c = { 0 };

	if (argc == 4 && !strcmp(argv[1], "--pcs")) {
		load(&a, argv[2], argv[3]);
		c.a = &a;
		c.list = true;
		sweep(&c, &a);
		free(a.data);
		return 0;
	}
	if (argc != 5)
		die("%s", "usage: sframe_cmp A ADDR_A B ADDR_B | --pcs A ADDR_A");
	load(&a, argv[1], argv[2]);
	load(&b, argv[3], argv[4]);
	c.a = &a;
	c.b = &b;
	sweep(&c, &a);
	sweep(&c, &b);
	printf("sframe_cmp: %llu lookups compared, %llu differ (A: V%u %u FDEs, B: V%u %u FDEs)\n",
	       c.pcs, c.diffs, a.sf.version, a.sf.num_fdes, b.sf.version,
	       b.sf.num_fdes);
	free(a.data);
	free(b.data);
	return c.diffs ? 1 : 0;
}
