// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ARM EHABI: `uwind dump FILE` and `uwind lookup FILE ADDR...` for 32-bit
 * ARM ELF files (.ARM.exidx/.ARM.extab).
 *
 * dump prints every index entry the way `readelf -u` does: the function
 * address (and its symbol), the entry (inline word, @extab address or
 * [cantunwind]), the personality and each opcode with its bytes.
 *
 * lookup prints, like SFrame's lookup, `ADDR cfa=RULE ra=RULE fp=RULE`.
 * The rules come from running the entry's opcodes with the core's
 * interpreter on a synthetic frame: every register starts with a value
 * of its own, and every stack read returns a fresh marker, so the result
 * shows where each register came from.
 *   cfa  the caller's sp: sp+N, or rN+N after a `vsp = rN` opcode, or
 *        [sp+N]+M when the sp itself was popped;
 *   ra   the return address: c+N / c-N (saved at CFA+N) or lr;
 *   fp   r11 for ARM code, r7 for Thumb code: u (unchanged) or c+N.
 * Thumb code: ADDR with bit 0 set, else the mapping symbols ($a/$t), else
 * the FUNC symbol holding ADDR; ARM if none says.
 * Other answers: `ADDR none` (no entry covers it, or it is not in an
 * executable section), `ADDR cantunwind` (EXIDX_CANTUNWIND), `ADDR
 * refuse` (opcode 80 00), `ADDR error MESSAGE` (a malformed entry).
 *
 * The ELF file, the symbols and the synthetic frame: ehabi_rules.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ehabi_rules.h"
#include "lookup_out.h"

/* ---- dump ---- */

/* Opcode bytes read one at a time, remembered for the listing. */
struct opsrc {
	const struct uw_ehabi *eh;
	struct uw_ehabi_ops o;
	uint8_t bytes[16];
	unsigned int n, more;	/* bytes kept, bytes past the 16 */
};

static int get_op(struct opsrc *s, uint8_t *b)
{
	int ret = uw_ehabi_next_op(s->eh, &s->o, b);

	if (ret)
		return ret;
	if (s->n < sizeof(s->bytes))
		s->bytes[s->n++] = *b;
	else
		s->more++;
	return 0;
}

/* The operand bytes of an instruction: the opcode stream, remembered. */
static int next_op(void *ctx, uint8_t *b)
{
	return get_op(ctx, b) ? -1 : 0;
}

static void print_ops(const struct arm_elf *a, const struct uw_ehabi_ops *ops)
{
	struct opsrc s = { .eh = &a->eh, .o = *ops };
	const struct arm_op_src src = { next_op, &s };
	char text[160], bytes[80];
	unsigned int i;
	uint8_t op;
	int ret;

	for (;;) {
		s.n = s.more = 0;
		ret = get_op(&s, &op);
		if (ret > 0)
			return;
		if (ret < 0) {
			printf("  [cannot read opcodes: %s]\n", uw_strerror(ret));
			return;
		}
		/* Listed to the end of the stream, as readelf -u does. */
		arm_op_describe(op, &src, false, text, sizeof(text));
		bytes[0] = 0;
		for (i = 0; i < s.n; i++)
			snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes),
				 "%s0x%02x", i ? " " : "", s.bytes[i]);
		if (s.more)
			snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes),
				 " (+%u)", s.more);
		printf("  %-9s %s\n", bytes, text);
	}
}

static void print_addr(const struct arm_elf *a, uint64_t addr)
{
	const struct arm_sym *s = arm_func_at(a, addr);
	const char *name = s ? s->name : NULL;

	printf("0x%llx", (unsigned long long)addr);
	if (name)
		printf(" <%s>", name);
}

/* A prel31 field of the index at byte offset off. */
static uint64_t prel31_at(const struct arm_elf *a, uint64_t off, uint32_t w)
{
	int64_t d = (int64_t)((w & 0x7fffffff) ^ 0x40000000) - 0x40000000;

	return a->exidx.addr + off + (uint64_t)d;
}

static uint32_t exidx_word(const struct arm_elf *a, uint64_t off)
{
	const uint8_t *p = a->exidx.data + off;

	return a->be ? (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		       (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

static int dump_entry(const struct arm_elf *a, uint32_t i)
{
	struct uw_ehabi_entry e;
	uint32_t w0 = exidx_word(a, 8 * (uint64_t)i);
	uint32_t w1 = exidx_word(a, 8 * (uint64_t)i + 4);
	int err;

	printf("\n");
	err = uw_ehabi_entry(&a->eh, i, &e);
	print_addr(a, err ? prel31_at(a, 8 * (uint64_t)i, w0) & ~1ull :
		   e.fn_start);
	printf(": ");
	if (w1 == UW_EHABI_CANTUNWIND) {
		printf("0x1 [cantunwind]\n");
		return err ? 1 : 0;
	}
	if (w1 & 0x80000000)
		printf("0x%08x\n", w1);
	else
		printf("@0x%llx\n", (unsigned long long)
		       prel31_at(a, 8 * (uint64_t)i + 4, w1));
	if (err) {
		printf("  <bad entry: %s>\n", uw_strerror(err));
		return 1;
	}
	if (e.kind == UW_EHABI_KIND_GENERIC) {
		printf("  Personality routine: ");
		print_addr(a, e.personality);
		printf("\n");
	} else {
		printf("  Compact model index: %u\n", e.pr);
	}
	print_ops(a, &e.ops);
	return 0;
}

int cmd_ehabi_dump(int argc, char **argv)
{
	struct arm_elf a;
	uint32_t i;
	int ret = 0;

	if (argc != 2)
		return tool_usage("unexpected argument %s", argv[2]);
	if (arm_open(&a, argv[1])) {
		arm_close(&a);
		return 1;
	}
	printf("\nUnwind section '%s' at offset 0x%llx contains %u entries:\n",
	       a.exidx_name, (unsigned long long)a.exidx_off, a.eh.count);
	for (i = 0; i < a.eh.count; i++)
		ret |= dump_entry(&a, i);
	printf("\n");
	arm_close(&a);
	return ret;
}

/* ---- lookup: the opcodes run on a synthetic frame ---- */

static int lookup_one(FILE *out, const struct arm_elf *a, uint64_t addr,
		      struct syn_mem *m)
{
	struct uw_ehabi_entry e;
	struct uw_regs r;
	unsigned int fpreg = arm_is_thumb(a, addr) ? 7 : 11;
	int err;

	fprintf(out, "0x%llx", (unsigned long long)addr);
	if (!arm_in_text(a, addr & ~(uint64_t)1)) {
		fputs(" none\n", out);
		return 0;
	}
	err = uw_ehabi_find(&a->eh, addr, &e);
	if (err == UW_ENOENT) {
		fputs(" none\n", out);
		return 0;
	}
	if (!err && e.kind == UW_EHABI_KIND_CANTUNWIND) {
		fputs(" cantunwind\n", out);
		return 0;
	}
	err = err ? err : syn_exec(a, &e, addr, m, &r);
	return syn_print_result(out, m, &r, fpreg, err);
}

int cmd_ehabi_lookup(int argc, char **argv)
{
	struct syn_mem *m;
	struct arm_elf a;
	uint64_t *addrs;
	int i, ret = 0;

	addrs = parse_addr_args(argv + 2, argc - 2, 0xffffffffu);
	if (!addrs)
		return 2;
	m = malloc(sizeof(*m));
	if (!m || arm_open(&a, argv[1])) {
		free(m);
		free(addrs);
		arm_close(&a);
		return 1;
	}
	lk_begin(argv[1], "ehabi");
	for (i = 0; i < argc - 2; i++) {
		ret |= lookup_one(lk_line(), &a, addrs[i], m);
		lk_line_end();
	}
	free(m);
	free(addrs);
	arm_close(&a);
	return lk_end(ret);
}
