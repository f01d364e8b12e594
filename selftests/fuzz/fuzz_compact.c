// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libFuzzer target for Apple compact unwind: uw_cu_init, the entry
 * iteration, uw_cu_find, the decoder, the indirect stack size and the
 * walker over a fuzzed stack.
 *
 * Input: a 16-byte header (architecture, table size, register seeds),
 * the __unwind_info bytes (copied into a buffer of exactly their size,
 * so ASan sees any over-read), then one image mapped both as the stack
 * and at the image base (where a frameless-indirect encoding reads its
 * "sub").  The seeds are real sections of the Mach-O test files.
 *
 * Properties: every entry iterated lies inside its function range;
 * where the whole iteration succeeds, uw_cu_find at each entry's start
 * returns that entry; decoded rules stay in range; the walk's frames
 * are consistent and its stack pointer only moves up.  uw_cu_check
 * gives the same verdict whole and in chunks of a fuzzed size, and
 * what it accepts keeps its promise: uw_cu_next never fails, every
 * encoding found decodes, uw_cu_find gives only 0 or UW_ENOENT.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "image.h"
#include "fuzzcache.h"

#define BASE	0x100000000ull
#define STACK	0x7ff00000ull
#define MAXE	2048

static void check_rule(const struct uw_cu_rule *r)
{
	unsigned int i;

	CHECK(r->kind <= UW_CU_DWARF);
	CHECK(r->nsaved <= UW_CU_MAX_SAVED);
	for (i = 0; i < r->nsaved; i++)
		CHECK(r->saved[i].off < 0 && r->saved[i].off > -4096);
}

static struct uw_cu_entry ents[MAXE];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum uw_arch arches[3] = {
		UW_ARCH_X86_64, UW_ARCH_X86, UW_ARCH_AARCH64,
	};
	struct uw_walk_cfg cfg;
	struct uw_module mod;
	struct uw_regs regs;
	struct uw_frame frames[32];
	struct uw_walk_result res;
	static struct uw_cursor cur;
	struct uw_cu_entry e;
	struct uw_cu_rule r;
	struct uw_span sec;
	struct uw_cu cu;
	struct image im;
	const uint8_t *h = data;
	enum uw_arch arch;
	struct uw_arch_info aib;
	uint32_t page = 0, index = 0, ne = 0, i;
	uint64_t sz, pc;
	size_t nt, n;
	void *tab;
	int err, it, ok;

	if (size < 16)
		return 0;
	arch = arches[h[0] % 3];
	data += 16;
	size -= 16;
	nt = (h[1] | h[2] << 8) % (size + 1);
	tab = malloc(nt ? nt : 1);
	memcpy(tab, data, nt);
	im.bytes = data + nt;
	im.size = size - nt;
	im.base[0] = STACK;
	im.base[1] = BASE;
	sec.data = tab;
	sec.size = nt;
	sec.addr = 0x1000;
	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = arch;
	cfg.mem.read = mem_read;
	cfg.mem.ctx = &im;
	cfg.pac_mask = h[3] & 1 ? 0xff80000000000000ull : 0;
	/* Signal frames may switch stacks: not what is fuzzed here. */
	cfg.flags = UW_WALK_NO_SIGFRAME | (h[3] & 2 ? UW_WALK_NO_FP : 0);

	if (uw_cu_init(&cu, &sec, BASE, arch)) {
		free(tab);
		return 0;
	}
	ok = fuzz_checked(uwt_cu_check, &cu, 1 + h[3] % 16);
	while (ne < MAXE && (it = uw_cu_next(&cu, &page, &index, &e)) == 0) {
		CHECK(e.fn_start <= e.fn_end);
		CHECK(e.fn_start >= BASE && e.fn_end - BASE <= 0xffffffffu);
		ents[ne++] = e;
		err = uw_cu_decode(&cu, e.encoding, &r);
		CHECK(!ok || !err);
		if (err)
			continue;
		check_rule(&r);
		if (r.kind == UW_CU_FRAMELESS_IND &&
		    !uw_cu_ind_size(&r, e.fn_start, &cfg, &sz))
			CHECK(sz >= r.stack_size);
	}
	CHECK(!ok || it >= 0);
	/* A table that iterates cleanly is found by its entries' starts. */
	if (ne < MAXE && it == 1) {
		for (i = 0; i < ne; i++) {
			if (ents[i].fn_end == ents[i].fn_start)
				continue;
			err = uw_cu_find(&cu, ents[i].fn_start, &e);
			CHECK(!err && e.fn_start == ents[i].fn_start &&
			      e.fn_end == ents[i].fn_end &&
			      e.encoding == ents[i].encoding);
		}
	}
	for (i = 0; i < 64 + 2 * ne; i++) {
		pc = i < 64 ? BASE + (uint64_t)(h[4 + i % 8] << (i % 24)) +
			      i * 0x35 :
		     i % 2 ? ents[(i - 64) / 2].fn_end :
		     ents[(i - 64) / 2].fn_start + h[5];
		err = uw_cu_find(&cu, pc, &e);
		CHECK(!ok || err == 0 || err == UW_ENOENT);
		if (!err)
			CHECK(e.fn_start <= pc && pc < e.fn_end);
		if (!err && ok)
			CHECK(uw_cu_decode(&cu, e.encoding, &r) == 0);
	}

	/* The walk: the registers point into the image. */
	memset(&mod, 0, sizeof(mod));
	mod.start = BASE;
	mod.end = BASE + 0x100000000ull;
	mod.cu = &cu;
	cfg.mods = &mod;
	cfg.nmods = 1;
	CHECK(uw_arch_info(arch, &aib) == 0);
	memset(&regs, 0, sizeof(regs));
	for (i = 0; i < UW_NREGS; i++)
		uw_reg_set(&regs, i, STACK + (h[4 + i % 12] << 3) % (im.size + 1));
	uw_reg_set(&regs, aib.pc, BASE + ((uint64_t)h[12] << 8 | h[13]) *
		   (1 + h[14]));
	n = fuzz_walk(&cur, &cfg, &regs, frames, 1 + h[15] % 32, &res,
		      im.base[0], im.bytes, im.size);
	for (i = 1; i < n; i++)
		CHECK(frames[i].sp >= frames[i - 1].sp);
	free(tab);
	return 0;
}
