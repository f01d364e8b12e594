// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uw_bp_check(), the whole-file check of Breakpad symbol files: valid
 * files pass (whole, and one line per call); every error the check
 * names comes from one broken file each, at the line it names, and where
 * the lookup or the unwinder reads the broken part, it fails there too;
 * uw_bp_set_index() checks an index whole.  Then the promise, on mutated
 * files: whenever the check accepts one, uw_bp_find_cfi() and
 * uw_bp_find_win() (text and index) give 0 or UW_ENOENT at every
 * address, and uw_bp_unwind() never fails with a format error, whatever
 * the registers and memory hold.  Prints TAP.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "../common/tap.h"
#include "../common/check.h"

#define BAD	1000	/* check(): whole and stepwise disagree */

/* Every address holds a value derived from it; no read fails. */
static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	uint64_t v = addr * 0x9e3779b97f4a7c15ull + *(const uint64_t *)ctx;
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)dst)[i] = (uint8_t)(v >> (8 * i));
	return 0;
}

static int load(struct uw_bp *bp, const char *text, size_t n,
		enum uw_arch arch)
{
	struct uw_span s = { (const uint8_t *)text, n, 0 };

	return uw_bp_init(bp, &s, 0, arch);
}

/* The check whole and one line a call: same result, same line, else BAD. */
static int check(const struct uw_bp *bp, uint32_t *item, unsigned int *calls)
{
	unsigned int n;
	bool same;
	int ret = uwt_check_twice(uwt_bp_check, bp, 1, item, &same, &n);

	if (calls)
		*calls = n;
	return same ? ret : BAD;
}

static struct uw_bp_work w;
static struct uw_regs callee, caller;

/*
 * A format error from a lookup or an unwind at an address of [lo, hi),
 * every step-th from lo (with every register known, memory seeded by
 * seed)?
 */
static bool lookups_every(const struct uw_bp *bp, uint64_t lo, uint64_t hi,
			  uint64_t seed, unsigned int step)
{
	struct uw_walk_cfg cfg;
	struct uw_bp_cfi rec;
	struct uw_bp_win win;
	unsigned int r;
	uint64_t pc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = bp->arch;
	cfg.mem.read = mem_read;
	cfg.mem.ctx = &seed;
	memset(&callee, 0, sizeof(callee));
	for (r = 0; r < UW_NREGS; r++)
		uw_reg_set(&callee, r, 0x7000 + 0x100 * r + seed % 64);
	memset(&w, 0, sizeof(w));
	for (pc = lo; pc < hi; pc += step) {
		if (uwt_format_error(uw_bp_find_cfi(bp, pc, &rec)) ||
		    uwt_format_error(uw_bp_find_win(bp, pc, &win)) ||
		    uwt_format_error(uw_bp_unwind(bp, pc, &cfg, &w, &callee,
					      &caller)))
			return true;
	}
	return false;
}

static bool lookups_fail(const struct uw_bp *bp, uint64_t lo, uint64_t hi,
			 uint64_t seed)
{
	return lookups_every(bp, lo, hi, seed, 1);
}

#define X64	"MODULE Linux x86_64 0 a\n"
#define X86	"MODULE windows x86 0 a.pdb\n"
#define INIT	"STACK CFI INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^"

/* The real shapes: dump_syms and `uwind convert` write these. */
static const char good_x64[] = X64
	"INFO CODE_ID 00\n"
	"FILE 1 a.c\n"
	"FUNC 1000 100 0 f\n"
	"1000 10 1 1\n"
	INIT "\n"
	"STACK CFI 1001 .cfa: $rsp 16 + $rbp: .cfa -16 + ^\n"
	"STACK CFI 1004 .cfa: $rbp 16 +\n"
	"STACK CFI 1080 .cfa: $rsp 8 + $rbx: $rbx\n"
	"STACK CFI INIT 1100 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^ "
	"$rip: .cfa 8 - ^ $xmm0: 1 0 / unnamed_register72: x\n"
	"STACK CFI INIT 1110 0 .cfa: $rsp 8 +\n"
	"STACK CFI INIT 1110 20 .cfa: $rsp 0x10 + 16 @ .ra: .cfa -8 + ^"
	" $r12: $t .cfa 24 - = $t ^ $r13: .cfa 3 / 2 % -1 *\n"
	"STACK CFI INIT 1200 10 .cfa: $rsp 8 + .ra: .undef $rbx: .undef\n"
	"PUBLIC 1300 0 g\n";

static const char good_x86[] = X86
	"STACK WIN 4 1000 100 5 0 8 4 10 0 1 $T0 $ebp = $eip $T0 4 + ^ ="
	" $ebp $T0 ^ = $esp $T0 8 + =\n"
	"STACK WIN 0 1000 100 0 0 8 4 10 0 0 0\n"
	"STACK WIN 0 2000 100 0 0 4 8 20 0 0 1\n"
	"STACK WIN 4 2800 100 0 0 0 0 0 0 1 $T1 .raSearch = $eip $T1 ^ = "
	"$esp $T1 4 + = $T0 $ebp 8 - 16 @ = $ebp $T0 ^ =\n"
	"STACK WIN 2 3000 100 whatever comes here\n"
	"STACK CFI INIT 8000 10 .cfa: $esp 4 + .ra: .cfa 4 - ^ "
	"$ebx: .cfa 0x100000000 + ^\n";

static void test_valid(void)
{
	struct uw_bp bp;
	uint32_t item = 0;
	unsigned int calls = 0;
	int err;

	err = load(&bp, good_x64, strlen(good_x64), UW_ARCH_NONE);
	err = err ? err : check(&bp, &item, &calls);
	ok(err == UW_CHECK_DONE && item == 14 && calls == 14 &&
	   !lookups_fail(&bp, 0xff0, 0x1310, 1),
	   "x86-64 file (deltas, zero-size and adjacent INITs, variables,"
	   " / %% @ by literals, .undef, rules the unwinder does not hold):"
	   " passes, %u lines one a call (%u calls)", item, calls);
	ok(load(&bp, good_x86, strlen(good_x86), UW_ARCH_NONE) == 0 &&
	   check(&bp, &item, NULL) == UW_CHECK_DONE &&
	   !lookups_fail(&bp, 0xff0, 0x3110, 2) &&
	   !lookups_fail(&bp, 0x7ff0, 0x8010, 3),
	   "x86 file (STACK WIN 4 programs, 0 with and without ebp, an"
	   " unknown type, STACK CFI): passes");
	ok(load(&bp, "", 0, UW_ARCH_ARM) == 0 &&
	   check(&bp, &item, &calls) == UW_CHECK_DONE && calls == 1,
	   "an empty file passes");
	ok(uw_bp_check(NULL, NULL) == UW_EINVAL, "no table: UW_EINVAL");
}

struct bad {
	const char *what;
	const char *text;
	int err;
	uint32_t line;
	bool lookup;	/* a lookup or unwind fails on it too */
};

/* Each error the check names, once. */
static const struct bad bads[] = {
	{ "INIT ranges overlapping", X64 INIT "\n"
	  "STACK CFI INIT 10f0 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n",
	  UW_EUNSORTED, 2, false },
	{ "a delta after another line", X64 INIT "\nFUNC 1000 100 0 f\n"
	  "STACK CFI 1004 .cfa: $rsp 16 +\n", UW_EBADDATA, 3, false },
	{ "a delta below the one before it", X64 INIT "\n"
	  "STACK CFI 1008 .cfa: $rsp 16 +\nSTACK CFI 1004 .cfa: $rsp 8 +\n",
	  UW_EUNSORTED, 3, true },
	{ "a delta at its INIT's address", X64 INIT "\n"
	  "STACK CFI 1000 .cfa: $rsp 16 +\n", UW_EUNSORTED, 2, true },
	{ "a delta past its INIT's range", X64 INIT "\n"
	  "STACK CFI 1100 .cfa: $rsp 16 +\n", UW_EBADDATA, 2, true },
	{ "a delta's address not hexadecimal", X64 INIT "\n"
	  "STACK CFI 10g4 .cfa: $rsp 16 +\n", UW_EBADDATA, 2, true },
	{ "a rule without an expression", X64
	  "STACK CFI INIT 1000 100 .cfa: .ra: .cfa -8 + ^\n",
	  UW_EBADDATA, 1, true },
	{ "an expression before any name", X64
	  "STACK CFI INIT 1000 100 $rsp .cfa: $rsp 8 +\n",
	  UW_EBADDATA, 1, true },
	{ "a name that is only ':'", X64
	  "STACK CFI INIT 1000 100 : 5 .cfa: $rsp 8 +\n",
	  UW_EBADDATA, 1, true },
	{ "an unknown name", X64 INIT " $rbx: $foo\n", UW_EBADDATA, 1, true },
	{ ".cfa in the .cfa rule", X64
	  "STACK CFI INIT 1000 100 .cfa: .cfa 8 + .ra: .cfa -8 + ^\n",
	  UW_EBADDATA, 1, true },
	{ "a STACK WIN name in a STACK CFI rule", X64 INIT
	  " $rbx: .cbParams\n", UW_EBADDATA, 1, true },
	{ ".undef inside an expression", X64
	  "STACK CFI INIT 1000 100 .cfa: $rsp 8 + .ra: .undef 8 +\n",
	  UW_EBADDATA, 1, true },
	{ "an operator with one operand", X64 INIT " $rbx: 8 +\n",
	  UW_EBADDATA, 1, true },
	{ "17 values: the stack holds 16", X64 INIT " $rbx: "
	  "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 + + + + + + + + + + + + + + + +\n",
	  UW_EBADDATA, 1, true },
	{ "two values left", X64 INIT " $rbx: 1 2\n", UW_EBADDATA, 1, true },
	{ "a division by 0", X64 INIT " $rbx: .cfa 0 /\n", UW_EBADDATA, 1,
	  true },
	{ "a remainder by 0x0", X64 INIT " $rbx: .cfa 0x0 %\n", UW_EBADDATA,
	  1, true },
	{ "x86: a division by 0x100000000 (0 in 32 bits)", X86
	  "STACK CFI INIT 1000 10 .cfa: $esp 4 + .ra: .cfa 0x100000000 / ^\n",
	  UW_EBADDATA, 1, true },
	{ "a division by a register", X64 INIT " $rbx: .cfa $rsp /\n",
	  UW_EBADDATA, 1, false },
	{ "@ by 12, not a power of two", X64 INIT " $rbx: .cfa 12 @\n",
	  UW_EBADDATA, 1, true },
	{ "= to a name without '$'", X64 INIT " $rbx: t 1 = 2\n",
	  UW_EBADDATA, 1, true },
	{ "= to a value", X64 INIT " $rbx: 2 2 = 2\n", UW_EBADDATA, 1, true },
	{ "13 variables: 12 fit", X64 INIT " $rbx: $a 1 = $b 1 = $c 1 = "
	  "$d 1 = $e 1 = $f 1 = $g 1 = $h 1 = $i 1 = $j 1 = $k 1 = $l 1 = "
	  "$m 1 = 5\n", UW_EBADDATA, 1, true },
	{ "a bad literal", X64 INIT " $rbx: -x\n", UW_EBADDATA, 1, true },
	{ "a literal past 64 bits", X64 INIT
	  " $rbx: 18446744073709551616\n", UW_EBADDATA, 1, true },
	{ "a 256-byte name", X64 INIT " $rbx: $"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  " 1 = 2\n", UW_EBADDATA, 1, true },
	{ "STACK WIN: a field past 32 bits", X86
	  "STACK WIN 4 1000 10 100000000 0 0 0 0 0 0 0\n", UW_EBADDATA, 1,
	  true },
	{ "STACK WIN 0: no allocates_bp field", X86
	  "STACK WIN 0 1000 10 0 0 0 0 0 0 0\n", UW_EBADDATA, 1, true },
	{ "STACK WIN: has_program and no program", X86
	  "STACK WIN 4 1000 10 0 0 0 0 0 0 1\n", UW_EBADDATA, 1, true },
	{ "STACK WIN: a program without $eip", X86
	  "STACK WIN 4 1000 10 0 0 0 0 0 0 1 $esp 4 =\n", UW_EBADDATA, 1,
	  true },
	{ "STACK WIN: a program leaving a value", X86
	  "STACK WIN 4 1000 10 0 0 0 0 0 0 1 $eip 1 = $esp 4 = 7\n",
	  UW_EBADDATA, 1, true },
	{ "STACK WIN: .cfa in a program", X86
	  "STACK WIN 4 1000 10 0 0 0 0 0 0 1 $eip .cfa = $esp 4 =\n",
	  UW_EBADDATA, 1, true },
};

static void test_bad(void)
{
	const struct bad *b;
	struct uw_bp bp;
	uint32_t item = 0;
	size_t i;
	int err;

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		b = &bads[i];
		item = 0;
		err = load(&bp, b->text, strlen(b->text), UW_ARCH_NONE);
		if (!err)
			err = check(&bp, &item, NULL);
		else
			diag("uw_bp_init: %s", uw_strerror(err));
		ok(err == b->err && item == b->line &&
		   lookups_fail(&bp, 0xff0, 0x1110, i) == b->lookup,
		   "%s: %s at line %u (got %s at %u); lookups %s", b->what,
		   uw_strerror(b->err), b->line + 1, uw_strerror(err),
		   item + 1, b->lookup ? "fail there too" :
		   "never fail on it");
	}
}

/* A STACK WIN step must not leave its names to a later STACK CFI rule. */
static void test_win_names(void)
{
	static const char t[] = X86
		"STACK WIN 4 1000 10 0 0 8 0 0 0 1 $eip 1 = $esp 2 =\n"
		"STACK CFI INIT 2000 10 .cfa: $esp 4 + .ra: .cbParams\n";
	struct uw_walk_cfg cfg;
	struct uw_bp bp;
	uint64_t seed = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = UW_ARCH_X86;
	cfg.mem.read = mem_read;
	cfg.mem.ctx = &seed;
	memset(&w, 0, sizeof(w));
	memset(&callee, 0, sizeof(callee));
	uw_reg_set(&callee, UW_X86_ESP, 0x8000);
	ok(load(&bp, t, strlen(t), UW_ARCH_NONE) == 0 &&
	   uw_bp_unwind(&bp, 0x1000, &cfg, &w, &callee, &caller) == 1 &&
	   uw_bp_unwind(&bp, 0x2000, &cfg, &w, &callee, &caller) ==
	   UW_EBADDATA,
	   "after a STACK WIN step, .cbParams in a STACK CFI rule is still"
	   " unknown: UW_EBADDATA, as without the step");
}

/* uw_bp_set_index(): the index checked whole. */
static void test_index(void)
{
	static const char t[] = X64 INIT "\n"
		"STACK CFI 1004 .cfa: $rsp 16 +\n"
		"STACK CFI INIT 1100 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
		"STACK CFI INIT 1200 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n";
	struct uw_bp_idx idx[3], keep;
	struct uw_bp_cfi rec;
	struct uw_bp bp, bpi;

	ok(load(&bp, t, strlen(t), UW_ARCH_NONE) == 0 && bp.ncfi == 3 &&
	   uw_bp_build_index(&bp, idx, 3) == 0, "index built");
	bpi = bp;
	ok(uw_bp_set_index(&bpi, idx, 3) == 0 &&
	   !lookups_fail(&bpi, 0xff0, 0x1220, 4),
	   "the built index is accepted and serves lookups");
	keep = idx[1];
	idx[1].off += 3;
	ok(uw_bp_set_index(&bpi, idx, 3) == UW_EBADDATA,
	   "an entry not at the start of its INIT line: UW_EBADDATA");
	idx[1] = keep;
	idx[1].rva = 0x1101;
	ok(uw_bp_set_index(&bpi, idx, 3) == UW_EBADDATA,
	   "an entry whose address is not its line's: UW_EBADDATA");
	idx[1] = idx[0];
	ok(uw_bp_set_index(&bpi, idx, 3) == UW_EUNSORTED,
	   "an INIT line twice (and one missing): UW_EUNSORTED");
	idx[1] = keep;
	ok(uw_bp_set_index(&bpi, idx, 3) == 0, "restored: accepted");
	idx[1].off += 3;
	ok(uw_bp_find_cfi(&bpi, 0x1104, &rec) == UW_EBADDATA,
	   "the index changed after it was set: the lookup still says"
	   " UW_EBADDATA");
}

/* xorshift32: the same mutations every run. */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* What mutations write: the characters of records and expressions. */
static const char alphabet[] = "0123456789abcdef  +-*/%@^=:.$\n"
	"xrsp$rsp.cfa.ra.undef$eip$esp$T0 .cbParams .raSearch 4 0 10 ";

/* 1 to 4 changes: a byte from the alphabet, a deletion, an insertion. */
static size_t mutate(char *t, size_t n, size_t max, uint32_t *s)
{
	uint32_t k = 1 + rnd(s) % 4, i, at, c;

	for (i = 0; i < k && n; i++) {
		at = rnd(s) % (uint32_t)n;
		c = (uint32_t)alphabet[rnd(s) % (sizeof(alphabet) - 1)];
		switch (rnd(s) % 3) {
		case 0:
			t[at] = (char)c;
			break;
		case 1:
			memmove(t + at, t + at + 1, n - at - 1);
			n--;
			break;
		default:
			if (n < max) {
				memmove(t + at + 1, t + at, n - at);
				t[at] = (char)c;
				n++;
			}
			break;
		}
	}
	return n;
}

/*
 * A format error anywhere the seeds have records: every fifth address,
 * from an offset that changes with the mutation (so every address is
 * tried over all of them), and every address in the small ranges.
 */
static bool promise_broken(const struct uw_bp *bp, unsigned int i)
{
	return lookups_every(bp, 0xff0 + i % 5, 0x1310, i, 5) ||
	       lookups_every(bp, 0x1ff0, 0x2010, i, 1) ||
	       lookups_every(bp, 0x27f0, 0x2870, i, 1) ||
	       lookups_every(bp, 0x7ff0, 0x8010, i, 1);
}

static void test_property(void)
{
	static const char *const seeds[2] = { good_x64, good_x86 };
	static struct uw_bp_idx idx[64];
	unsigned int tries = 10000, passed = 0, broken = 0, caught = 0, i;
	uint32_t s = 0x9e3779b9, item;
	struct uw_bp bp, bpi;
	char t[1024];
	size_t n;
	int err;

	for (i = 0; i < tries; i++) {
		n = strlen(seeds[i % 2]);
		memcpy(t, seeds[i % 2], n);
		n = mutate(t, n, sizeof(t), &s);
		if (load(&bp, t, n, UW_ARCH_NONE))
			continue;
		err = check(&bp, &item, NULL);
		if (err == BAD) {
			broken++;
		} else if (err == UW_CHECK_DONE) {
			passed++;
			bpi = bp;
			if (promise_broken(&bp, i) ||
			    (bp.ncfi <= 64 &&
			     !uw_bp_build_index(&bp, idx, bp.ncfi) &&
			     (uw_bp_set_index(&bpi, idx, bp.ncfi) ||
			      promise_broken(&bpi, i)))) {
				if (broken++ < 3)
					diag("mutation %u checked, yet fails:"
					     " %.*s", i, (int)n, t);
			}
		} else if (caught < tries / 10 && promise_broken(&bp, i)) {
			/* enough to show the check is not idle: a tenth */
			caught++;
		}
	}
	ok(broken == 0 && passed > tries / 20 && caught > tries / 20,
	   "%u mutated files: %u pass the check, and none of them fails a"
	   " lookup or an unwind with a format error (%u do); %u refused"
	   " ones would have failed one (counted up to a tenth)", tries,
	   passed, broken, caught);
}

int main(void)
{
	tap_begin(-1);
	test_valid();
	test_bad();
	test_win_names();
	test_index();
	test_property();
	return tap_done();
}
