// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Breakpad symbol files: the postfix evaluator (the vectors REFERENCES.md
 * takes from Breakpad's postfix_evaluator and cfi_frame_info tests, and
 * hostile expressions), the record search (a generated file against a
 * brute-force scan, text and index), hostile records, hand-written STACK
 * WIN files of types 0 and 4, and walks on synthetic stacks.  Prints TAP.
 */
#include <stdlib.h>
#include <string.h>
#include <uwind/uwind.h>
#include "../common/tap.h"
#include "../common/cachewalk.h"

/* ---- memory: a stack image, and "every address holds itself + 1" ---- */

#define STK	0x10000ull
#define STKN	0x2000

struct mem {
	uint8_t stack[STKN];
	bool plus_one;		/* *a = a + 1, anywhere */
};

static int mem_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct mem *m = ctx;
	uint64_t v = addr + 1;
	size_t i;

	if (m->plus_one) {
		for (i = 0; i < len; i++)
			((uint8_t *)dst)[i] = (uint8_t)(v >> (8 * i));
		return 0;
	}
	if (addr < STK || addr - STK > STKN - len)
		return -1;
	memcpy(dst, m->stack + (addr - STK), len);
	return 0;
}

static void poke(struct mem *m, uint64_t addr, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		m->stack[addr - STK + i] = (uint8_t)(v >> (8 * i));
}

static struct mem g_mem;

static void cfg_init(struct uw_walk_cfg *cfg, enum uw_arch arch)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = arch;
	cfg->mem.read = mem_read;
	cfg->mem.ctx = &g_mem;
}

/* ---- the evaluator ---- */

static struct uw_bp_eval ev;

static int expr(enum uw_arch arch, const struct uw_regs *regs, const char *s,
		uint64_t *v)
{
	static struct uw_walk_cfg cfg;

	cfg_init(&cfg, arch);
	memset(&ev, 0, sizeof(ev));
	ev.cfg = &cfg;
	ev.regs = regs;
	return uw_bp_eval_expr(&ev, s, strlen(s), v);
}

static int prog(enum uw_arch arch, const char *s)
{
	static struct uw_walk_cfg cfg;

	cfg_init(&cfg, arch);
	memset(&ev, 0, sizeof(ev));
	ev.cfg = &cfg;
	return uw_bp_eval_prog(&ev, s, strlen(s));
}

static bool var_is(const char *name, uint64_t want)
{
	uint64_t v;

	return !uw_bp_eval_var(&ev, name, strlen(name), &v) && v == want;
}

static void test_eval(void)
{
	struct uw_regs regs;
	uint64_t v = 0;
	char buf[600];
	int i, n;

	/* Breakpad's own vectors (postfix_evaluator_unittest.cc) */
	ok(prog(UW_ARCH_X86_64, "$rAdd 2 2 + =") == 0 && var_is("$rAdd", 4),
	   "\"$rAdd 2 2 + =\" assigns 4");
	ok(prog(UW_ARCH_X86_64, "$rAlign 36 8 @ =") == 0 &&
	   var_is("$rAlign", 32), "\"$rAlign 36 8 @ =\" assigns 32");
	ok(expr(UW_ARCH_X86_64, NULL, "-870245 8769343 +", &v) == 0 &&
	   v == 7899098, "\"-870245 8769343 +\" is 7899098");
	g_mem.plus_one = true;
	ok(prog(UW_ARCH_X86_64, "$rDeref 9 ^ =") == 0 && var_is("$rDeref", 10),
	   "with *a = a + 1, \"$rDeref 9 ^ =\" assigns 10");
	g_mem.plus_one = false;
	ok(prog(UW_ARCH_X86_64, "2 2 =") == UW_EBADDATA,
	   "\"2 2 =\": assignment to a number fails");
	ok(prog(UW_ARCH_X86_64, "k 2 =") == UW_EBADDATA,
	   "\"k 2 =\": assignment to a name without '$' fails");
	ok(prog(UW_ARCH_X86_64, "$x 1 = 7") == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "1 2", &v) == UW_EBADDATA,
	   "a leftover value fails (program and expression)");
	ok(prog(UW_ARCH_X86_64, "$a 1 = $b $a 2 * = $a $b $a + =") == 0 &&
	   var_is("$a", 3) && var_is("$b", 2),
	   "assigned variables are read back, and reassigned");
	/* our own */
	ok(expr(UW_ARCH_X86_64, NULL, "7 0 /", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "7 0 %", &v) == UW_EBADDATA,
	   "division and remainder by zero fail (Breakpad does not check)");
	ok(expr(UW_ARCH_X86_64, NULL, "100000000007 7 /", &v) == 0 &&
	   v == 14285714286ull &&
	   expr(UW_ARCH_X86_64, NULL, "100000000007 7 %", &v) == 0 && v == 5,
	   "64-bit / and %% (done without a libgcc divide)");
	ok(expr(UW_ARCH_X86_64, NULL, "36 6 @", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "36 0 @", &v) == UW_EBADDATA,
	   "@ by 0 or a non-power of two fails");
	ok(expr(UW_ARCH_X86_64, NULL, "0x10 0X20 + -0x1 +", &v) == 0 &&
	   v == 0x2f, "hexadecimal literals, a leading '-' too");
	ok(expr(UW_ARCH_X86_64, NULL, "18446744073709551615", &v) == 0 &&
	   v == ~(uint64_t)0 &&
	   expr(UW_ARCH_X86_64, NULL, "18446744073709551616", &v) ==
	   UW_EBADDATA && expr(UW_ARCH_X86_64, NULL, "0x10000000000000000",
			      &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "12a", &v) == UW_EBADDATA,
	   "literal overflow and bad digits fail; 2^64-1 does not");
	ok(expr(UW_ARCH_X86, NULL, "4294967295 2 +", &v) == 0 && v == 1 &&
	   expr(UW_ARCH_X86, NULL, "-4", &v) == 0 && v == 0xfffffffc,
	   "x86: arithmetic wraps at 32 bits");
	n = 0;
	for (i = 0; i < UW_BP_STACK; i++)
		n += sprintf(buf + n, "1 ");
	ok(expr(UW_ARCH_X86_64, NULL, buf, &v) == UW_EBADDATA,
	   "%d values on the stack of %d: a leftover, not an overflow",
	   UW_BP_STACK, UW_BP_STACK);
	sprintf(buf + n, "1 ");
	ok(expr(UW_ARCH_X86_64, NULL, buf, &v) == UW_EBADDATA &&
	   ev.depth == UW_BP_STACK,
	   "one value more than the stack holds: overflow, UW_EBADDATA");
	ok(expr(UW_ARCH_X86_64, NULL, "+", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "1 +", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "^", &v) == UW_EBADDATA &&
	   prog(UW_ARCH_X86_64, "=") == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, NULL, "", &v) == UW_EBADDATA,
	   "underflow (+, 1 +, ^, =, nothing) fails");
	memset(&regs, 0, sizeof(regs));
	uw_reg_set(&regs, 7, 0x1000);
	ok(expr(UW_ARCH_X86_64, &regs, "$rsp 8 +", &v) == 0 && v == 0x1008,
	   "a register the callee knows");
	ok(expr(UW_ARCH_X86_64, &regs, "$rbx", &v) == UW_EREG,
	   "a register the callee does not know: UW_EREG");
	ok(expr(UW_ARCH_X86_64, &regs, "$nope", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, &regs, ".undef", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, &regs, "$esp", &v) == UW_EBADDATA &&
	   expr(UW_ARCH_X86_64, &regs, ".cfa", &v) == UW_EBADDATA,
	   "unknown names fail (.undef, another arch's register, .cfa unset)");
	memset(buf, 'a', 300);
	buf[0] = '$';
	strcpy(buf + 300, " 1 =");
	ok(prog(UW_ARCH_X86_64, buf) == UW_EBADDATA,
	   "a 300-character name fails");
	n = 0;
	for (i = 0; i <= UW_BP_VARS; i++)
		n += sprintf(buf + n, "$v%d %d = ", i, i);
	ok(prog(UW_ARCH_X86_64, buf) == UW_EBADDATA,
	   "%d distinct variables, one more than it holds: UW_EBADDATA",
	   UW_BP_VARS + 1);
	ok(expr(UW_ARCH_X86_64, &regs, "$rsp ^", &v) == UW_EREAD,
	   "^ of an address the accessor refuses: UW_EREAD");
	ok(expr(UW_ARCH_AARCH64, NULL, "1 2 + x0: 5", &v) == 0 && v == 3,
	   "an expression ends at the next \"name:\" token");
}

/* ---- symbol files ---- */

static int load(struct uw_bp *bp, const char *text, uint64_t base,
		enum uw_arch arch)
{
	struct uw_span s = { (const uint8_t *)text, strlen(text), 0 };

	return uw_bp_init(bp, &s, base, arch);
}

static void test_file(void)
{
	static const char mod[] =
		"MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 a lib.so\r\n"
		"FILE 1 a.c\n"
		"FUNC 1000 10 0 f\n"
		"1000 10 1 1\n"
		"STACK CFI INIT 1000 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\r\n"
		"STACK CFI 1004 .cfa: $rsp 16 +\n"
		"PUBLIC 2000 0 g\n"
		"STACK CFI INIT 2000 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^";
	struct uw_bp_cfi rec;
	struct uw_bp bp;

	ok(load(&bp, mod, 0x400000, UW_ARCH_NONE) == 0 &&
	   bp.arch == UW_ARCH_X86_64 && bp.ncfi == 2 && bp.name_len == 8 &&
	   !memcmp(mod + bp.name_off, "a lib.so", 8) && bp.id_len == 33,
	   "MODULE line: arch, id, a name with a space (CRLF trimmed)");
	ok(uw_bp_find_cfi(&bp, 0x401003, &rec) == 0 && rec.start == 0x401000 &&
	   rec.size == 0x10 &&
	   rec.end_off == (uint64_t)(strstr(mod, "STACK CFI 1004") - mod),
	   "0x1003: the INIT record only");
	ok(uw_bp_find_cfi(&bp, 0x401004, &rec) == 0 &&
	   rec.end_off == (uint64_t)(strstr(mod, "PUBLIC") - mod),
	   "0x1004: the INIT record and the delta at 0x1004");
	ok(uw_bp_find_cfi(&bp, 0x401010, &rec) == UW_ENOENT &&
	   uw_bp_find_cfi(&bp, 0x400fff, &rec) == UW_ENOENT &&
	   uw_bp_find_cfi(&bp, 0x402020, &rec) == UW_ENOENT &&
	   uw_bp_find_cfi(&bp, 0x1000, &rec) == UW_ENOENT,
	   "between, before, after the records and below the base: UW_ENOENT");
	ok(uw_bp_find_cfi(&bp, 0x40201f, &rec) == 0 && rec.start == 0x402000,
	   "the last record, without a final newline");
	ok(load(&bp, "STACK CFI INIT 10 10 .cfa: sp 0 +\n", 0, UW_ARCH_NONE) ==
	   UW_EARCH && load(&bp, "", 0, UW_ARCH_NONE) == UW_EARCH,
	   "no MODULE line and no architecture given: UW_EARCH");
	ok(load(&bp, "", 0, UW_ARCH_AARCH64) == 0 && bp.ncfi == 0 &&
	   uw_bp_find_cfi(&bp, 0, &rec) == UW_ENOENT,
	   "an empty file: nothing found");
	ok(load(&bp, "MODULE Linux mips 0 x\n", 0, UW_ARCH_NONE) == UW_EARCH &&
	   load(&bp, "MODULE Linux mips 0 x\n", 0, UW_ARCH_ARM) == 0,
	   "MODULE of an architecture not served: UW_EARCH, unless given");
	ok(load(&bp, "STACK CFI INIT 2000 10 .cfa: sp 0 +\n"
		     "STACK CFI INIT 1000 10 .cfa: sp 0 +\n", 0,
		UW_ARCH_AARCH64) == UW_EUNSORTED,
	   "INIT records out of order: UW_EUNSORTED");
	ok(load(&bp, "STACK WIN 4 2000 10 0 0 0 0 0 0 1 $eip 0 =\n"
		     "STACK WIN 0 1000 10 0 0 0 0 0 0 0 0\n", 0,
		UW_ARCH_X86) == UW_EUNSORTED,
	   "STACK WIN records out of order: UW_EUNSORTED");
	ok(load(&bp, "STACK CFI 1000 .cfa: sp 0 +\n", 0, UW_ARCH_ARM) ==
	   UW_EBADDATA, "a delta before any INIT: UW_EBADDATA");
	ok(load(&bp, "STACK CFI INIT 10g0 10 .cfa: sp 0 +\n", 0, UW_ARCH_ARM) ==
	   UW_EBADDATA && load(&bp, "STACK CFI INIT 1000\n", 0, UW_ARCH_ARM) ==
	   UW_EBADDATA && load(&bp, "STACK CFI INIT ffffffffffffffff 2 x\n",
			       0, UW_ARCH_ARM) == UW_EBADDATA &&
	   load(&bp, "STACK CFI INIT 11111111111111111 2 x\n", 0,
		UW_ARCH_ARM) == UW_EBADDATA,
	   "bad hex, a missing size, a range that wraps, 17 digits: "
	   "UW_EBADDATA");
	ok(load(&bp, "STACK CFI INIT 1000 10 .cfa: sp 0 +\n"
		     "STACK CFI 1008 .cfa: sp 8 +\n"
		     "STACK CFI 1004 .cfa: sp 4 +\n", 0, UW_ARCH_ARM) == 0 &&
	   uw_bp_find_cfi(&bp, 0x100a, &rec) == UW_EBADDATA,
	   "deltas out of order: the lookup says UW_EBADDATA");
	ok(load(&bp, "STACK CFI INIT 1000 10 .cfa: sp 0 +\n"
		     "STACK CFI 1010 .cfa: sp 8 +\n", 0, UW_ARCH_ARM) == 0 &&
	   uw_bp_find_cfi(&bp, 0x1008, &rec) == UW_EBADDATA,
	   "a delta outside its INIT's range: UW_EBADDATA");
}

/*
 * A generated file (5000 INIT records with gaps, deltas and other lines
 * between them) searched for 20000 addresses by halves, through the
 * index, and by a plain scan written here.
 */
static void test_search(void)
{
	size_t cap = 2 << 20, n = 0;
	char *t = malloc(cap);
	uint64_t *start = malloc(5000 * sizeof(*start));
	uint64_t *size = malloc(5000 * sizeof(*size));
	uint64_t *off = malloc(5000 * sizeof(*off));
	static struct uw_bp_idx idx[5000];
	struct uw_bp_cfi r1, r2;
	struct uw_bp bp, bpi;
	uint64_t a = 0x1000, pc;
	unsigned int i, j, bad = 0, found = 0, seed = 12345;
	int e1, e2, want;

	n += sprintf(t + n, "MODULE Linux x86_64 0 gen\n");
	for (i = 0; i < 5000; i++) {
		seed = seed * 1103515245 + 12345;
		a += (seed >> 16) % 3 == 0 ? (seed >> 8) % 64 : 0;
		start[i] = a;
		size[i] = 1 + (seed >> 4) % 200;
		if (i % 7 == 0)
			n += sprintf(t + n, "FUNC %llx %llx 0 f%u\n",
				     (unsigned long long)a,
				     (unsigned long long)size[i], i);
		off[i] = n;
		n += sprintf(t + n, "STACK CFI INIT %llx %llx .cfa: $rsp 8 + "
			     ".ra: .cfa -8 + ^\n", (unsigned long long)a,
			     (unsigned long long)size[i]);
		for (j = 1; j < 3 && j < size[i]; j++)
			n += sprintf(t + n, "STACK CFI %llx .cfa: $rsp %u +\n",
				     (unsigned long long)(a + j), 8 * j + 8);
		if (i % 11 == 0)
			n += sprintf(t + n, "%llx 4 1 1\n",
				     (unsigned long long)a);
		a += size[i];
	}
	ok(load(&bp, t, 0, UW_ARCH_NONE) == 0 && bp.ncfi == 5000,
	   "generated file: %zu bytes, 5000 INIT records", n);
	bpi = bp;
	ok(uw_bp_build_index(&bp, idx, 5000) == 0 &&
	   uw_bp_set_index(&bpi, idx, 5000) == 0, "index built and set");
	for (i = 0; i < 20000; i++) {
		seed = seed * 1103515245 + 12345;
		pc = 0xf00 + (seed >> 3) % (a - 0xe00);
		/* the plain scan */
		want = -1;
		for (j = 0; j < 5000; j++)
			if (pc >= start[j] && pc < start[j] + size[j])
				want = (int)j;
		e1 = uw_bp_find_cfi(&bp, pc, &r1);
		e2 = uw_bp_find_cfi(&bpi, pc, &r2);
		if (want < 0 ? (e1 != UW_ENOENT || e2 != UW_ENOENT) :
		    (e1 || e2 || r1.init_off != off[want] ||
		     r2.init_off != off[want] || r1.end_off != r2.end_off)) {
			if (bad++ < 3)
				diag("pc %#llx: want %d, got %d/%d",
				     (unsigned long long)pc, want, e1, e2);
		}
		found += want >= 0;
	}
	ok(bad == 0 && found > 10000,
	   "20000 addresses: text search and index agree with a plain scan"
	   " (%u found, %u wrong)", found, bad);
	idx[100].rva = 0;
	ok(uw_bp_set_index(&bpi, idx, 5000) == UW_EUNSORTED,
	   "an unsorted index: UW_EUNSORTED");
	idx[100].rva = start[100];
	ok(uw_bp_set_index(&bpi, idx, 4999) == UW_EINVAL,
	   "an index of the wrong length: UW_EINVAL");
	idx[100].off += 3;
	ok(uw_bp_set_index(&bpi, idx, 5000) == UW_EBADDATA,
	   "an index entry not at its INIT line: UW_EBADDATA");
	idx[100].off -= 3;
	ok(uw_bp_set_index(&bpi, idx, 5000) == 0, "the index restored");
	idx[100].off += 3;
	ok(uw_bp_find_cfi(&bpi, start[100], &r2) == UW_EBADDATA,
	   "an entry moved off its INIT line after the index was set: the"
	   " lookup says UW_EBADDATA");
	free(t);
	free(start);
	free(size);
	free(off);
}

/* ---- unwinding ---- */

static struct uw_bp_work w;
static struct uw_regs callee, caller;

static int unwind(const struct uw_bp *bp, enum uw_arch arch, uint64_t pc)
{
	static struct uw_walk_cfg cfg;

	cfg_init(&cfg, arch);
	return uw_bp_unwind(bp, pc, &cfg, &w, &callee, &caller);
}

static bool reg_is(unsigned int r, uint64_t v)
{
	uint64_t x;

	return uw_reg_get(&caller, r, &x) && x == v;
}

static void test_cfi_rules(void)
{
	/* Breakpad's cfi_frame_info_unittest vector, as ARM names it. */
	static const char arm[] =
		"MODULE Linux arm 0 a\n"
		"STACK CFI INIT 1000 100 .cfa: sp 24 + .ra: .cfa 8 - ^ "
		"r0: .cfa 24 - ^ r1: r2\n";
	/* symbol_files.md's x86 example: the pc's rule, no .ra */
	static const char x86[] =
		"MODULE Linux x86 0 a\n"
		"STACK CFI INIT 804c4b0 40 .cfa: $esp 4 + $eip: .cfa 4 - ^\n"
		"STACK CFI 804c4b1 .cfa: $esp 8 + $ebp: .cfa 8 - ^\n";
	static const char bad[] =
		"MODULE Linux x86_64 0 a\n"
		"STACK CFI INIT 1000 10 .cfa:\n"
		"STACK CFI INIT 1010 10 $rsp 8 + .cfa: $rsp 8 +\n"
		"STACK CFI INIT 1020 10 : 5 .cfa: $rsp 8 +\n"
		"STACK CFI INIT 1030 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^ "
		"$rbx: 1 0 / $xmm0: 1 0 /\n"
		"STACK CFI INIT 1040 10 .cfa: $rsp 8 +\n"
		"STACK CFI INIT 1050 10 .cfa: $rsp 8 + .ra: .undef\n"
		"STACK CFI INIT 1060 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^ "
		"$rbx: .undef $r12: $r12 $r13: $r13\n"
		"STACK CFI INIT 1070 10 .cfa: .undef .ra: $rip\n"
		"STACK CFI INIT 1080 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^ "
		"$xmm0: .cfa -16 + ^ v8: 1 unnamed_register72: 2\n";
	struct uw_bp bp;
	unsigned int r;

	memset(&g_mem, 0, sizeof(g_mem));
	memset(&callee, 0, sizeof(callee));
	for (r = 0; r <= 15; r++)
		uw_reg_set(&callee, r, 0x1000 + r);
	uw_reg_set(&callee, 13, STK + 0x100);
	poke(&g_mem, STK + 0x100, 0xaaaa, 4);		/* cfa - 24 */
	poke(&g_mem, STK + 0x110, 0x5678, 4);		/* cfa - 8 */
	ok(load(&bp, arm, 0, UW_ARCH_NONE) == 0 &&
	   unwind(&bp, UW_ARCH_ARM, 0x1080) == 1 &&
	   reg_is(13, STK + 0x118) && reg_is(15, 0x5678) &&
	   reg_is(0, 0xaaaa) && reg_is(1, 0x1002) && reg_is(4, 0x1004) &&
	   !reg_is(2, 0x1002) && !reg_is(14, 0x100e),
	   "ARM: sp 24 +, .cfa 8 - ^, r0: .cfa 24 - ^, r1: r2 give sp+24,"
	   " [sp+16], [sp], r2; r4 (callee-saved) kept; r2, lr dropped");
	ok(!(w.flags & UW_BP_F_RA_IN_REG) && w.cfa == STK + 0x118,
	   "a return address read from memory; .cfa reported");

	memset(&callee, 0, sizeof(callee));
	uw_reg_set(&callee, UW_X86_ESP, STK + 0x200);
	uw_reg_set(&callee, UW_X86_EBP, 0xbbbb);
	uw_reg_set(&callee, UW_X86_EIP, 0x804c4b0);
	poke(&g_mem, STK + 0x200, 0x8041234, 4);
	poke(&g_mem, STK + 0x204, 0x8045678, 4);
	poke(&g_mem, STK + 0x200 - 4 + 4, 0x8041234, 4);
	ok(load(&bp, x86, 0, UW_ARCH_NONE) == 0 &&
	   unwind(&bp, UW_ARCH_X86, 0x804c4b0) == 1 &&
	   reg_is(UW_X86_ESP, STK + 0x204) && reg_is(UW_X86_EIP, 0x8041234) &&
	   reg_is(UW_X86_EBP, 0xbbbb),
	   "x86 (symbol_files.md): at INIT, $esp 4 +, $eip from .cfa 4 - ^");
	uw_reg_set(&callee, UW_X86_ESP, STK + 0x1fc);
	poke(&g_mem, STK + 0x1fc, 0xe0e0, 4);	/* the pushed ebp */
	ok(unwind(&bp, UW_ARCH_X86, 0x804c4b1) == 1 &&
	   reg_is(UW_X86_ESP, STK + 0x204) && reg_is(UW_X86_EIP, 0x8041234) &&
	   reg_is(UW_X86_EBP, 0xe0e0),
	   "x86: at the delta, $esp 8 + and $ebp restored");

	ok(load(&bp, bad, 0, UW_ARCH_NONE) == 0, "hostile records: the file"
	   " loads (rules are read at lookup)");
	memset(&callee, 0, sizeof(callee));
	uw_reg_set(&callee, 7, STK + 0x300);
	uw_reg_set(&callee, 16, 0x1000);
	uw_reg_set(&callee, 3, 0x3333);
	uw_reg_set(&callee, 12, 0x1212);
	poke(&g_mem, STK + 0x300, 0x4242, 8);
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1000) == UW_EBADDATA &&
	   unwind(&bp, UW_ARCH_X86_64, 0x1010) == UW_EBADDATA &&
	   unwind(&bp, UW_ARCH_X86_64, 0x1020) == UW_EBADDATA,
	   "a name without a rule, a rule without a name, \":\": UW_EBADDATA");
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1030) == UW_EBADDATA,
	   "a register rule dividing by zero: UW_EBADDATA");
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1040) == UW_ENOENT,
	   "no .ra rule: UW_ENOENT (Breakpad does not use the record)");
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1050) == 0,
	   ".ra: .undef: an outermost frame");
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1060) == 1 && !reg_is(3, 0x3333) &&
	   reg_is(12, 0x1212) && !(caller.valid & (1u << 13)) &&
	   reg_is(16, 0x4242) && reg_is(7, STK + 0x308),
	   "$rbx: .undef drops rbx; $r12: $r12 keeps it; $r13: $r13 with"
	   " r13 unknown leaves it unknown");
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1070) == UW_ENOENT,
	   ".cfa: .undef: UW_ENOENT");
	ok(unwind(&bp, UW_ARCH_X86_64, 0x1080) == 1 && reg_is(16, 0x4242),
	   "rules for registers the core does not hold ($xmm0, v8,"
	   " unnamed_register72) are skipped");
	ok(unwind(&bp, UW_ARCH_AARCH64, 0x1080) == UW_EARCH,
	   "a walk of another architecture: UW_EARCH");
}

/* ---- STACK WIN (x86) ---- */

static void test_win(void)
{
	static const char win[] =
		"MODULE windows x86 0 a.pdb\n"
		/* type 4, an ebp frame, as MSVC's FrameData writes it */
		"STACK WIN 4 1000 100 5 0 8 4 10 0 1 $T0 $ebp = $eip $T0 4 + ^ ="
		" $ebp $T0 ^ = $esp $T0 8 + =\n"
		/* type 0 over the same range: type 4 wins */
		"STACK WIN 0 1000 100 0 0 8 4 10 0 0 0\n"
		/* type 0, no frame pointer use: Breakpad's synthesized program */
		"STACK WIN 0 2000 100 0 0 4 8 20 0 0 0\n"
		/* nested type 4: the inner one wins */
		"STACK WIN 4 2800 100 0 0 0 0 0 0 1 $eip 1 = $esp 2 =\n"
		"STACK WIN 4 2850 10 0 0 0 0 0 0 1 $eip 3 = $esp 4 =\n"
		/* type 0 allocating ebp */
		"STACK WIN 0 3000 100 0 0 8 c 20 0 0 1\n"
		/* an unknown type: ignored */
		"STACK WIN 2 4000 100 0 0 0 0 0 0 1 $eip 1 = $esp 2 =\n"
		/* programs that do not give $eip, or leave a value */
		"STACK WIN 4 5000 10 0 0 0 0 0 0 1 $esp 4 =\n"
		"STACK WIN 4 5010 10 0 0 0 0 0 0 1 $eip 1 = $esp 4 = 7\n"
		/* .raSearch: three words up to a code address */
		"STACK WIN 4 6000 10 0 0 0 0 10 0 1 $eip .raSearch ^ = "
		"$esp .raSearch 4 + =\n"
		/* has_program with nothing: malformed */
		"STACK WIN 4 7000 10 0 0 0 0 0 0 1\n"
		"STACK CFI INIT 8000 10 .cfa: $esp 4 + .ra: .cfa 4 - ^\n";
	static struct uw_walk_cfg cfg;
	struct uw_module mod;
	struct uw_bp_win wr;
	struct uw_bp bp;
	uint64_t esp = STK + 0x400, ebp = STK + 0x500;

	memset(&g_mem, 0, sizeof(g_mem));
	ok(load(&bp, win, 0, UW_ARCH_NONE) == 0 && bp.nwin == 11 &&
	   bp.arch == UW_ARCH_X86, "STACK WIN file: 11 records");
	ok(uw_bp_find_win(&bp, 0x1010, &wr) == 0 && wr.type == 4 &&
	   wr.params == 8 && wr.saved_regs == 4 && wr.locals == 0x10 &&
	   wr.has_program,
	   "type 4 preferred to type 0 over the same range; fields parsed");
	ok(uw_bp_find_win(&bp, 0x2855, &wr) == 0 && wr.start == 0x2850 &&
	   uw_bp_find_win(&bp, 0x2860, &wr) == 0 && wr.start == 0x2800 &&
	   wr.type == 4,
	   "nested type 4 records: the innermost covering the pc");
	ok(uw_bp_find_win(&bp, 0x4010, &wr) == UW_ENOENT,
	   "type 2: ignored, as Breakpad does");

	memset(&callee, 0, sizeof(callee));
	uw_reg_set(&callee, UW_X86_ESP, esp);
	uw_reg_set(&callee, UW_X86_EBP, ebp);
	uw_reg_set(&callee, 3, 0xb);
	uw_reg_set(&callee, 0, 0xa);
	poke(&g_mem, ebp, STK + 0x600, 4);
	poke(&g_mem, ebp + 4, 0x1234, 4);
	ok(unwind(&bp, UW_ARCH_X86, 0x1010) == 1 && reg_is(UW_X86_EIP, 0x1234) &&
	   reg_is(UW_X86_ESP, ebp + 8) && reg_is(UW_X86_EBP, STK + 0x600) &&
	   reg_is(3, 0xb) && !reg_is(0, 0xa) &&
	   (w.flags & UW_BP_F_WIN) && w.params == 8,
	   "type 4 program: the ebp frame; ebx kept, eax dropped");
	/* type 0, no ebp: eip at esp + locals + saved (+ callee params 0) */
	poke(&g_mem, esp + 0x20 + 8, 0x2222, 4);
	ok(unwind(&bp, UW_ARCH_X86, 0x2010) == 1 &&
	   reg_is(UW_X86_EIP, 0x2222) && reg_is(UW_X86_ESP, esp + 0x2c) &&
	   reg_is(UW_X86_EBP, ebp),
	   "type 0 without ebp: $eip .raSearchStart ^, $esp + 4, ebp kept");
	w.callee_params = 0x10;
	poke(&g_mem, esp + 0x20 + 8 + 0x10, 0x3333, 4);
	ok(uw_bp_unwind(&bp, 0x2010, (cfg_init(&cfg, UW_ARCH_X86), &cfg), &w,
			&callee, &caller) == 1 && reg_is(UW_X86_EIP, 0x3333),
	   ".cbCalleeParams moves .raSearchStart by the callee's parameters");
	w.callee_params = 0;
	poke(&g_mem, esp + 0x20 + 0xc, 0x4444, 4);
	poke(&g_mem, esp + 0xc - 8, 0x5555, 4);
	ok(unwind(&bp, UW_ARCH_X86, 0x3010) == 1 &&
	   reg_is(UW_X86_EIP, 0x4444) && reg_is(UW_X86_EBP, 0x5555) &&
	   reg_is(UW_X86_ESP, esp + 0x30),
	   "type 0 allocating ebp: ebp from the saved-register area");
	ok(unwind(&bp, UW_ARCH_X86, 0x5000) == UW_EBADDATA &&
	   unwind(&bp, UW_ARCH_X86, 0x5010) == UW_EBADDATA,
	   "a program without $eip, or leaving a value: UW_EBADDATA");
	ok(unwind(&bp, UW_ARCH_X86, 0x7000) == UW_EBADDATA,
	   "has_program set and no program: UW_EBADDATA");
	ok(unwind(&bp, UW_ARCH_X86, 0x8000) == 1 && !(w.flags & UW_BP_F_WIN),
	   "no STACK WIN record: STACK CFI");
	/* .raSearch: a data word, then a code address one word up */
	memset(&mod, 0, sizeof(mod));
	mod.start = 0x6000;
	mod.end = 0x7000;
	cfg_init(&cfg, UW_ARCH_X86);
	cfg.mods = &mod;
	cfg.nmods = 1;
	poke(&g_mem, esp + 0x10, 0x99, 4);
	poke(&g_mem, esp + 0x14, 0x6004, 4);
	ok(uw_bp_unwind(&bp, 0x6000, &cfg, &w, &callee, &caller) == 1 &&
	   reg_is(UW_X86_EIP, 0x6004) && reg_is(UW_X86_ESP, esp + 0x18),
	   ".raSearch: moved up one word to the code address");
}

/* ---- walks ---- */

/* What the walks use: one module [0x401000, 0x404000) unwound by wf.bp. */
static struct {
	struct uw_cursor cur;
	struct uw_walk_cfg cfg;
	struct uw_frame fr[8];
	struct uw_walk_result res;
	struct uw_module mod;
	struct uw_regs regs;
	struct uw_bp bp;
} wf;

static void walk_setup(enum uw_arch arch, uint64_t bias)
{
	memset(&wf.mod, 0, sizeof(wf.mod));
	wf.mod.start = 0x401000;
	wf.mod.end = 0x404000;
	wf.mod.bias = bias;
	wf.mod.bp = &wf.bp;
	cfg_init(&wf.cfg, arch);
	wf.cfg.mods = &wf.mod;
	wf.cfg.nmods = 1;
}

static size_t walk(void)
{
	return uwt_walk(&wf.cur, &wf.cfg, &wf.regs, wf.fr, 8, &wf.res);
}

static void test_walks(void)
{
	static const char a64[] =
		"MODULE Linux arm64 0 a\n"
		"STACK CFI INIT 1000 40 .cfa: sp 0 + .ra: x30\n"
		"STACK CFI 1004 .cfa: sp 32 + x29: .cfa -32 + ^ .ra: .cfa -24 + ^"
		" x19: .cfa -16 + ^\n"
		"STACK CFI INIT 2000 40 .cfa: x29 16 + .ra: .cfa -8 + ^"
		" x29: .cfa -16 + ^\n"
		"STACK CFI INIT 3000 40 .cfa: sp 16 + .ra: .undef\n";
	static const char x64[] =
		"MODULE Linux x86_64 0 a\n"
		"STACK CFI INIT 1000 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
		"STACK CFI 1001 $rbx: .cfa -16 + ^ .cfa: $rsp 16 +\n"
		"STACK CFI INIT 2000 40 .cfa: $rsp 8 +\n";
	uint64_t sp = STK + 0x800;
	size_t n;

	memset(&g_mem, 0, sizeof(g_mem));
	ok(load(&wf.bp, a64, 0x400000, UW_ARCH_NONE) == 0, "arm64 walk file");
	walk_setup(UW_ARCH_AARCH64, 0);
	wf.cfg.pac_mask = 0xff00000000000000ull;
	/* leaf at 0x1000 (ra in x30) -> 0x1010 in a framed function -> 0x2010
	 * (x29 frame) -> 0x3008 (outermost) */
	poke(&g_mem, sp, sp + 0x100, 8);		/* saved x29 */
	poke(&g_mem, sp + 8, 0x7700000000402010ull, 8);	/* signed ra */
	poke(&g_mem, sp + 16, 0x1919, 8);
	poke(&g_mem, sp + 0x100, 0, 8);
	poke(&g_mem, sp + 0x108, 0x403008, 8);
	memset(&wf.regs, 0, sizeof(wf.regs));
	uw_reg_set(&wf.regs, UW_AARCH64_PC, 0x401000);
	uw_reg_set(&wf.regs, UW_AARCH64_SP, sp);
	uw_reg_set(&wf.regs, UW_AARCH64_X30, 0x401014);
	uw_reg_set(&wf.regs, UW_AARCH64_X29, 0x7777);
	n = walk();
	ok(n == 4 && wf.fr[1].pc == 0x401014 && wf.fr[1].sp == sp &&
	   wf.fr[2].pc == 0x402010 && wf.fr[2].sp == sp + 32 &&
	   wf.fr[3].pc == 0x403008 && wf.fr[3].sp == sp + 0x110 &&
	   wf.fr[0].source == UW_SRC_BREAKPAD && wf.fr[2].source == UW_SRC_BREAKPAD &&
	   wf.res.stop == UW_STOP_OUTERMOST,
	   "arm64 walk: leaf (x30, sp unchanged), saved lr with pointer-auth"
	   " bits, x29 frame, then .ra: .undef (%zu frames, %s)", n,
	   uw_stop_name(wf.res.stop));
	ok(wf.cur.regs.r[19] == 0x1919 && (wf.cur.regs.valid >> 19 & 1),
	   "x19 restored by a rule, carried through the next frame");

	ok(load(&wf.bp, x64, 0x400000, UW_ARCH_NONE) == 0, "x86-64 walk file");
	walk_setup(UW_ARCH_X86_64, 0);
	wf.mod.end = 0x403000;
	memset(&g_mem, 0, sizeof(g_mem));
	poke(&g_mem, sp, 0xb0b, 8);		/* pushed rbx */
	poke(&g_mem, sp + 8, 0x402008, 8);
	poke(&g_mem, sp + 16, 0x999, 8);	/* ra of 0x2000's frame */
	memset(&wf.regs, 0, sizeof(wf.regs));
	uw_reg_set(&wf.regs, UW_X86_64_RIP, 0x401010);
	uw_reg_set(&wf.regs, UW_X86_64_RSP, sp);
	uw_reg_set(&wf.regs, UW_X86_64_RBP, 0);
	n = walk();
	ok(n == 2 && wf.fr[1].pc == 0x402008 && wf.fr[1].sp == sp + 16 &&
	   wf.cur.regs.r[3] == 0xb0b && wf.res.stop == UW_STOP_END &&
	   wf.cur.source == UW_SRC_FP,
	   "x86-64 walk: rbx restored; a record without .ra falls back to"
	   " frame pointers (%zu, %s)", n, uw_stop_name(wf.res.stop));
}

/*
 * x86 STACK WIN through the walker: the callee's .cbParams reaches its
 * caller's program as .cbCalleeParams only when Breakpad unwound the
 * callee; record addresses in the table space, the module's bias added.
 */
static void test_win_walks(void)
{
	static const char x86[] =
		"MODULE windows x86 0 a\n"
		"STACK WIN 4 1000 100 0 0 8 0 0 0 1 $eip $esp ^ = $esp $esp 4 + =\n"
		"STACK WIN 4 2000 100 0 0 8 0 0 0 1 $eip $esp .cbCalleeParams + ^ ="
		" $esp $esp .cbCalleeParams + 4 + =\n";
	static const struct { uint64_t base, bias; } cases[2] = {
		{ 0x400000, 0 }, { 0, 0x400000 },
	};
	uint64_t sp = STK + 0x800, fp = STK + 0x900;
	unsigned int i;
	size_t n;

	for (i = 0; i < 2; i++) {
		ok(load(&wf.bp, x86, cases[i].base, UW_ARCH_NONE) == 0,
		   "x86 STACK WIN walk file, base %#llx",
		   (unsigned long long)cases[i].base);
		walk_setup(UW_ARCH_X86, cases[i].bias);
		wf.cfg.flags = UW_WALK_NO_SIGFRAME;
		memset(&g_mem, 0, sizeof(g_mem));
		/* 0x1010 -> 0x2010, whose ra lies past the callee's 8 bytes */
		poke(&g_mem, sp, 0x402010, 4);
		poke(&g_mem, sp + 4, 0x406000, 4);	/* wrong: params 0 */
		poke(&g_mem, sp + 12, 0x405000, 4);
		memset(&wf.regs, 0, sizeof(wf.regs));
		uw_reg_set(&wf.regs, UW_X86_EIP, 0x401010);
		uw_reg_set(&wf.regs, UW_X86_ESP, sp);
		uw_reg_set(&wf.regs, UW_X86_EBP, 0);
		n = walk();
		ok(n == 3 && wf.fr[1].pc == 0x402010 && wf.fr[1].sp == sp + 4 &&
		   wf.fr[2].pc == 0x405000 && wf.fr[2].sp == sp + 16 &&
		   wf.fr[0].source == UW_SRC_BREAKPAD &&
		   wf.fr[1].source == UW_SRC_BREAKPAD && wf.res.stop == UW_STOP_END,
		   "bias %#llx: .cbCalleeParams is the callee's .cbParams (8)"
		   " (%zu frames, %s)", (unsigned long long)cases[i].bias, n,
		   uw_stop_name(wf.res.stop));
	}
	/* The callee unwound by its frame pointer: .cbCalleeParams 0. */
	memset(&g_mem, 0, sizeof(g_mem));
	poke(&g_mem, fp, 0, 4);
	poke(&g_mem, fp + 4, 0x402010, 4);
	poke(&g_mem, fp + 8, 0x405000, 4);
	poke(&g_mem, fp + 16, 0x406000, 4);	/* wrong: params 8 */
	memset(&wf.regs, 0, sizeof(wf.regs));
	uw_reg_set(&wf.regs, UW_X86_EIP, 0x401f00);	/* no record */
	uw_reg_set(&wf.regs, UW_X86_ESP, sp);
	uw_reg_set(&wf.regs, UW_X86_EBP, fp);
	n = walk();
	ok(n == 3 && wf.fr[0].source == UW_SRC_FP && wf.fr[1].pc == 0x402010 &&
	   wf.fr[1].source == UW_SRC_BREAKPAD && wf.fr[2].pc == 0x405000 &&
	   wf.fr[2].sp == fp + 12,
	   "a callee unwound by frame pointers: .cbCalleeParams 0 (%zu, %s)",
	   n, uw_stop_name(wf.res.stop));
}

int main(void)
{
	tap_begin(-1);
	test_eval();
	test_file();
	test_search();
	test_cfi_rules();
	test_win();
	test_walks();
	test_win_walks();
	uwt_cache_report();
	return tap_done();
}
