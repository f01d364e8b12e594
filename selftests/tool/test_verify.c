// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack --check-walk` (scripts/uwind/stack_verify.c) finds a
 * difference where there is one: stk_walk_diff() on two walks differing
 * in each field of a frame, in length, and in how they ended;
 * stk_walk_report()'s message; and stk_verify_thread() on a small
 * frame-pointer walk, whose four walks agree with the real plain walk
 * and all differ from a doctored one (a walker bug's stand-in).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stack.h"
#include "../common/tap.h"

#define NF	5

static struct uw_frame fa[NF], fb[NF];

static void walks(struct stk_walk *a, struct stk_walk *b)
{
	unsigned int i;

	for (i = 0; i < NF; i++) {
		fa[i].pc = 0x10000 + 0x10 * i;
		fa[i].sp = 0x7000 + 0x20 * i;
		fa[i].cfa = fa[i].sp + 0x20;
		fa[i].source = UW_SRC_EHABI;
		fa[i].flags = UW_FRAME_THUMB;
		fa[i].module = 0;
	}
	fa[NF - 1].cfa = 0;
	fa[NF - 1].source = UW_SRC_NONE;
	memcpy(fb, fa, sizeof(fb));
	memset(a, 0, sizeof(*a));
	a->frames = fa;
	a->n = NF;
	a->res.nframes = NF;
	a->res.stop = UW_STOP_END;
	*b = *a;
	b->frames = fb;
}

/* Each field of frame 2 changed alone: the difference is at 2. */
static void test_fields(void)
{
	static const char *const names[] = {
		"pc", "sp", "cfa", "source", "flags", "module"
	};
	struct stk_walk a, b;
	unsigned int k;
	bool all = true;

	walks(&a, &b);
	ok(stk_walk_diff(&a, &b) == -1, "the same walk: no difference");
	for (k = 0; k < 6; k++) {
		walks(&a, &b);
		switch (k) {
		case 0:
			fb[2].pc++;
			break;
		case 1:
			fb[2].sp += 4;
			break;
		case 2:
			fb[2].cfa += 8;
			break;
		case 3:
			fb[2].source = UW_SRC_FP;
			break;
		case 4:
			fb[2].flags = 0;
			break;
		default:
			fb[2].module = UW_NO_MODULE;
			break;
		}
		if (stk_walk_diff(&a, &b) != 2 || stk_walk_diff(&b, &a) != 2) {
			diag("%s: %ld", names[k], stk_walk_diff(&a, &b));
			all = false;
		}
	}
	ok(all, "frame 2's pc, sp, cfa, source, flags, module each: found at 2");
}

static void test_ends(void)
{
	struct stk_walk a, b;

	walks(&a, &b);
	b.n = 3;
	b.res.nframes = 3;
	ok(stk_walk_diff(&a, &b) == 3 && stk_walk_diff(&b, &a) == 3,
	   "a walk 2 frames shorter: found at its end, frame 3");
	walks(&a, &b);
	b.res.stop = UW_STOP_READ_FAULT;
	b.res.err = UW_EREAD;
	ok(stk_walk_diff(&a, &b) == NF, "the same frames, another stop: at %d",
	   NF);
	walks(&a, &b);
	b.res.err = UW_EREAD;
	ok(stk_walk_diff(&a, &b) == NF, "the same frames and stop, another"
	   " error: at %d", NF);
}

/* What stk_walk_report() says of walks a and b, in a string to free. */
static char *report(const struct stk_walk *a, const struct stk_walk *b)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	stk_walk_report(f, 1, 42, "warm cache", a, b, stk_walk_diff(a, b));
	fclose(f);
	return s;
}

static void test_report(void)
{
	struct stk_walk a, b;
	char *s;

	walks(&a, &b);
	fb[2].pc = 0xdead;
	s = report(&a, &b);
	ok(s && strstr(s, "thread 1 (LWP 42): the walk with warm cache differs"
		       " from the plain walk at frame 2") &&
	   strstr(s, "plain walk: frame 2: pc 0x10020 sp 0x7040 cfa 0x7060"
		  " source ehabi flags 0x2 module 0") &&
	   strstr(s, "warm cache: frame 2: pc 0xdead "),
	   "the message names the thread, the walk, the frame, both values");
	free(s);
	walks(&a, &b);
	b.n = 4;
	b.res.nframes = 4;
	s = report(&a, &b);
	ok(s && strstr(s, "at frame 4") &&
	   strstr(s, "warm cache: no frame 4") &&
	   strstr(s, "warm cache: 4 frames, stopped: end of chain"),
	   "a shorter walk: the frame it lacks, and its frame count");
	free(s);
	walks(&a, &b);
	b.res.stop = UW_STOP_NO_INFO;
	b.res.err = UW_EREFUSE;
	s = report(&a, &b);
	ok(s && strstr(s, "in how it ended") && !strstr(s, "frame 5") &&
	   strstr(s, "warm cache: 5 frames, stopped: no unwind info"),
	   "another stop: how each ended");
	free(s);
}

/*
 * A frame-record chain in a fake stack: rbp at 0x7010, each record
 * (saved rbp, return address) 0x20 bytes above the last, the last one's
 * saved rbp 0; the pcs in one module without tables.
 */
static uint64_t stack[32];
#define STACK_LO	0x7000

static int read_stack(void *ctx, uint64_t addr, void *dst, size_t len)
{
	(void)ctx;
	if (addr < STACK_LO || addr - STACK_LO > sizeof(stack) ||
	    len > sizeof(stack) - (addr - STACK_LO))
		return -1;
	memcpy(dst, (const uint8_t *)stack + (addr - STACK_LO), len);
	return 0;
}

/* How many times s holds sub. */
static unsigned int count(const char *s, const char *sub)
{
	unsigned int n = 0;

	while (s && (s = strstr(s, sub))) {
		n++;
		s += strlen(sub);
	}
	return n;
}

/*
 * stk_verify_thread() with stderr in a temporary file: what it said,
 * in a string to free (NULL if the file could not be made).
 */
static char *verify_said(struct stk_verify *v, const struct uw_walk_cfg *cfg,
			 const struct uw_regs *regs,
			 const struct stk_walk *plain)
{
	FILE *tmp = tmpfile();
	char *s = NULL;
	long len;
	int saved;

	if (!tmp)
		return NULL;
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	stk_verify_thread(v, cfg, regs, STK_MAX_FRAMES, plain, 2, 43);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = ftell(tmp);
	s = len >= 0 ? calloc(1, (size_t)len + 1) : NULL;
	rewind(tmp);
	if (s && fread(s, 1, (size_t)len, tmp) != (size_t)len) {
		free(s);
		s = NULL;
	}
	fclose(tmp);
	return s;
}

static void test_thread(void)
{
	static struct uw_frame frames[STK_MAX_FRAMES];
	static struct uw_cursor cur;
	struct uw_module mod = { .start = 0x401000, .end = 0x402000 };
	struct uw_walk_cfg cfg = {
		.arch = UW_ARCH_X86_64, .mods = &mod, .nmods = 1,
		.mem = { read_stack, NULL },
	};
	struct stk_walk plain = { .frames = frames };
	struct stk_verify v;
	struct uw_regs regs = { { 0 }, 0 };
	unsigned int i;
	char *said;

	for (i = 0; i < 4; i++) {
		stack[2 + 4 * i] = i < 3 ? STACK_LO + 0x30 + 0x20 * i : 0;
		stack[3 + 4 * i] = 0x401100 + 0x100 * i;
	}
	uw_reg_set(&regs, UW_X86_64_RIP, 0x401010);
	uw_reg_set(&regs, UW_X86_64_RSP, STACK_LO);
	uw_reg_set(&regs, UW_X86_64_RBP, STACK_LO + 0x10);
	plain.n = uw_walk(&cur, &cfg, &regs, frames, STK_MAX_FRAMES,
			  &plain.res);
	diag("the plain walk: %zu frames, %s (%s)", plain.n,
	     uw_stop_name((enum uw_stop)plain.res.stop),
	     uw_strerror(plain.res.err));
	if (!ok(!stk_verify_begin(&v, &mod, 1), "stk_verify_begin()"))
		return;
	stk_verify_thread(&v, &cfg, &regs, STK_MAX_FRAMES, &plain, 1, 42);
	ok(plain.n >= 4 && v.threads == 1 && !v.differ &&
	   v.hits[STK_VERIFY_WARM] > 0,
	   "a %zu-frame walk: the %d walks agree with it, the warm one from"
	   " the cache (%llu hits)", plain.n, STK_VERIFY_WALKS,
	   (unsigned long long)v.hits[STK_VERIFY_WARM]);
	/* The plain walk doctored: frame 2's cfa off, as a walker bug. */
	frames[2].cfa += 16;
	said = verify_said(&v, &cfg, &regs, &plain);
	ok(v.threads == 2 && v.differ == STK_VERIFY_WALKS &&
	   count(said, "thread 2 (LWP 43): the walk with ") == 4 &&
	   count(said, " differs from the plain walk at frame 2 ") == 4 &&
	   count(said, "cold cache: frame 2: ") == 1 &&
	   count(said, "warm cache: frame 2: ") == 1 &&
	   count(said, "no fast loops: frame 2: ") == 2 &&
	   count(said, "plain walk: frame 2: pc 0x401200 ") == 4,
	   "against a doctored plain walk: all %d walks differ (%zu), each"
	   " said at frame 2", STK_VERIFY_WALKS, v.differ);
	free(said);
	stk_verify_end(&v);
}

int main(void)
{
	tap_begin(11);
	test_fields();
	test_ends();
	test_report();
	test_thread();
	return tap_done();
}
