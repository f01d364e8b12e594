// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libFuzzer target for Breakpad symbol files: uw_bp_init, the record
 * search by halves and through the index, STACK WIN lookup, the postfix
 * evaluator, uw_bp_unwind and the walker over a fuzzed stack.
 *
 * Input: a 16-byte header (architecture, the length of the symbol text,
 * register seeds), the text (copied into a buffer of exactly its size,
 * so ASan sees any over-read), then a stack image.  Seeds: .sym files
 * `uwind convert --breakpad` writes, and hand-written STACK WIN files.
 *
 * Properties: the text search and the index search agree on every
 * address looked up; a record found covers its address; results stay
 * in range; the walk's frames are consistent and its stack pointer only
 * moves up.  uw_bp_check gives the same verdict whole and in chunks of
 * a fuzzed number of lines, and what it accepts keeps its promise:
 * uw_bp_find_cfi and uw_bp_find_win give only 0 or UW_ENOENT, and
 * uw_bp_unwind never a format error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "image.h"
#include "fuzzcache.h"

#define BASE	0x400000ull
#define STACK	0x7ff00000ull
#define MAXIDX	65536

static struct uw_bp_idx idx[MAXIDX];
static struct uw_bp_work work;
static struct uw_regs caller;
static int checked_ok;	/* uw_bp_check accepted the file being fuzzed */

/* Text and index search agree at pc; what they find covers it. */
static void both(const struct uw_bp *bp, const struct uw_bp *bpi, uint64_t pc)
{
	struct uw_bp_cfi a, b;
	struct uw_bp_win win;
	int ea = uw_bp_find_cfi(bp, pc, &a);
	int eb = bpi ? uw_bp_find_cfi(bpi, pc, &b) : ea;
	int ew;

	CHECK(ea <= 0 && ea >= UW_ERR_MIN);
	CHECK(!checked_ok || ea == 0 || ea == UW_ENOENT);
	if (bpi) {
		CHECK(ea == eb);
		if (!ea)
			CHECK(a.init_off == b.init_off && a.end_off == b.end_off);
	}
	if (!ea)
		CHECK(a.start <= pc && pc - a.start < a.size &&
		      a.init_off < a.end_off && a.end_off <= bp->text.size);
	ew = uw_bp_find_win(bp, pc, &win);
	CHECK(!checked_ok || ew == 0 || ew == UW_ENOENT);
	if (!ew)
		CHECK(win.start <= pc && pc - win.start < win.size &&
		      (win.type == 0 || win.type == 4) &&
		      win.prog_off + win.prog_len <= bp->text.size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum uw_arch arches[5] = {
		UW_ARCH_NONE, UW_ARCH_X86, UW_ARCH_X86_64, UW_ARCH_ARM,
		UW_ARCH_AARCH64,
	};
	static struct uw_cursor cur;
	struct uw_walk_cfg cfg;
	struct uw_module mod;
	struct uw_regs regs;
	struct uw_frame frames[32];
	struct uw_walk_result res;
	struct uw_bp bp, bpi;
	struct uw_span text;
	struct image im;
	const uint8_t *h = data;
	struct uw_arch_info ai;
	uint64_t pc, v;
	size_t nt, n;
	uint32_t i;
	char *t;
	int err;
	bool indexed = false;

	if (size < 16)
		return 0;
	data += 16;
	size -= 16;
	nt = (h[1] | h[2] << 8 | (h[3] & 7) << 16) % (size + 1);
	t = malloc(nt ? nt : 1);
	memcpy(t, data, nt);
	im.bytes = data + nt;
	im.size = size - nt;
	im.base[0] = STACK;
	im.base[1] = 0;
	text.data = (const uint8_t *)t;
	text.size = nt;
	text.addr = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.mem.read = mem_read;
	cfg.mem.ctx = &im;

	/* The evaluator on the text itself, whatever the file says. */
	memset(&work.ev, 0, sizeof(work.ev));
	cfg.arch = arches[1 + h[0] % 4];
	work.ev.cfg = &cfg;
	work.ev.has_cfa = h[4] & 1;
	work.ev.cfa = STACK + h[5];
	err = uw_bp_eval_expr(&work.ev, t, nt < 512 ? nt : 512, &v);
	CHECK(err <= 0 && err >= UW_ERR_MIN && work.ev.depth <= UW_BP_STACK);
	err = uw_bp_eval_prog(&work.ev, t, nt < 512 ? nt : 512);
	CHECK(err <= 0 && err >= UW_ERR_MIN && work.ev.nvars <= UW_BP_VARS);

	if (uw_bp_init(&bp, &text, BASE, arches[h[0] % 5])) {
		free(t);
		return 0;
	}
	CHECK(bp.cfi_lo <= bp.cfi_hi && bp.cfi_hi <= nt);
	checked_ok = fuzz_checked(uwt_bp_check, &bp, 1 + h[15] % 8);
	bpi = bp;
	if (bp.ncfi <= MAXIDX && !uw_bp_build_index(&bp, idx, bp.ncfi)) {
		/* The index built for a file: accepted, checked or not. */
		CHECK(!uw_bp_set_index(&bpi, idx, bp.ncfi));
		indexed = true;
	}
	for (i = 0; indexed && i < bp.ncfi && i < 128; i++) {
		both(&bp, &bpi, BASE + idx[i].rva);
		both(&bp, &bpi, BASE + idx[i].rva + h[6 + i % 8]);
		if (idx[i].rva)
			both(&bp, &bpi, BASE + idx[i].rva - 1);
	}
	for (i = 0; i < 32; i++)
		both(&bp, indexed ? &bpi : NULL,
		     BASE + ((uint64_t)h[6 + i % 8] << (i % 20)));

	/* One step at a time, then the walker. */
	cfg.arch = bp.arch;
	CHECK(uw_arch_info(cfg.arch, &ai) == 0);
	memset(&regs, 0, sizeof(regs));
	for (i = 0; i < UW_NREGS; i++)
		uw_reg_set(&regs, i, STACK + (h[4 + i % 12] << 2) % (im.size + 1));
	for (i = 0; indexed && i < bp.ncfi && i < 16; i++) {
		uw_reg_set(&regs, ai.pc, BASE + idx[i].rva);
		err = uw_bp_unwind(&bp, BASE + idx[i].rva, &cfg, &work, &regs,
				   &caller);
		CHECK(err <= 1 && err >= UW_ERR_MIN);
		CHECK(!checked_ok || !uwt_format_error(err));
		/* And past the start, where the deltas apply. */
		pc = BASE + idx[i].rva + h[6 + i % 8];
		err = uw_bp_unwind(&bp, pc, &cfg, &work, &regs, &caller);
		CHECK(!checked_ok || !uwt_format_error(err));
	}
	/* STACK WIN (x86) records are found by the same addresses. */
	for (i = 0; checked_ok && i < 32; i++) {
		pc = BASE + ((uint64_t)h[6 + i % 8] << (i % 16));
		err = uw_bp_unwind(&bp, pc, &cfg, &work, &regs, &caller);
		CHECK(!uwt_format_error(err));
	}
	memset(&mod, 0, sizeof(mod));
	mod.start = BASE;
	mod.end = BASE + 0x10000000;
	mod.bp = indexed && (h[4] & 2) ? &bpi : &bp;
	cfg.mods = &mod;
	cfg.nmods = 1;
	/* Signal frames may switch stacks: not what is fuzzed here. */
	cfg.flags = UW_WALK_NO_SIGFRAME | (h[4] & 4 ? UW_WALK_NO_FP : 0);
	pc = indexed && bp.ncfi ? BASE + idx[h[15] % bp.ncfi].rva + h[14] :
	     BASE + h[14];
	uw_reg_set(&regs, ai.pc, pc);
	n = fuzz_walk(&cur, &cfg, &regs, frames, 1 + h[13] % 32, &res,
		      im.base[0], im.bytes, im.size);
	for (i = 1; i < n; i++)
		CHECK(frames[i].sp >= frames[i - 1].sp);
	free(t);
	return 0;
}
