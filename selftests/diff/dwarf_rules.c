// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * dwarf_rules: the DWARF CFI (.eh_frame) rules of an ELF file at given
 * addresses, read with elfutils libdw.  This is the independent oracle
 * the differential test compares `uwind lookup` against.
 *
 *   dwarf_rules FILE < addresses
 *
 * Reads one hex address per line and prints, per address:
 *   ADDR cfa=REG+OFF ra=RULE fp=RULE
 * REG is a DWARF register number, or cfa=expr for a CFA SFrame cannot
 * express.  A CFA expression (the PLT's) is evaluated at ADDR with the
 * stack pointer symbolic: when it comes out as SP + N for every SP, it is
 * printed as SP+N followed by " via=expr". RULE is same, undef, c+N / c-N (saved at CFA+N) or other
 * (val_offset, register, expression).  ADDR none: no CFI covers it.
 * The RA column and the frame pointer are 16/6 on x86-64, 30/29 on
 * AArch64.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "../common/dwarf_ops.h"

static void print_reg(Dwarf_Frame *frame, int regno)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off = 0;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops)) {
		printf("other");
		return;
	}
	if (nops == 0) {
		printf(ops ? "undef" : "same");
		return;
	}
	/* offset(N): DW_OP_call_frame_cfa [DW_OP_plus_uconst N] */
	if (ops[0].atom != DW_OP_call_frame_cfa || nops > 2) {
		printf("other");
		return;
	}
	if (nops == 2) {
		if (ops[1].atom != DW_OP_plus_uconst) {
			printf("other");	/* includes DW_OP_stack_value */
			return;
		}
		off = (int64_t)ops[1].number;
	}
	printf("c%+" PRId64, off);
}

/*
 * Evaluate a CFA expression that may read only the stack pointer (sp)
 * and the pc (pcreg), with the given values.  Returns 0 and *out, or -1
 * for anything outside this small arithmetic subset.
 */
static int eval(const Dwarf_Op *ops, size_t nops, unsigned int sp,
		unsigned int pcreg, uint64_t spv, uint64_t pcv, uint64_t *out)
{
	uint64_t st[16], a, b;
	size_t i, n = 0;

	for (i = 0; i < nops; i++) {
		unsigned int op = ops[i].atom;

		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (n >= 16)
				return -1;
			if (op - DW_OP_breg0 == sp)
				st[n++] = spv + ops[i].number;
			else if (op - DW_OP_breg0 == pcreg)
				st[n++] = pcv + ops[i].number;
			else
				return -1;
			continue;
		}
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			if (n >= 16)
				return -1;
			st[n++] = op - DW_OP_lit0;
			continue;
		}
		switch (op) {
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			if (n >= 16)
				return -1;
			st[n++] = ops[i].number;
			continue;
		case DW_OP_plus_uconst:
			if (n < 1)
				return -1;
			st[n - 1] += ops[i].number;
			continue;
		}
		if (n < 2)
			return -1;
		b = st[--n];
		a = st[n - 1];
		if (!dw_binop(op, &a, b))
			return -1;
		st[n - 1] = a;
	}
	if (n != 1)
		return -1;
	*out = st[0];
	return 0;
}

static void print_cfa(Dwarf_Frame *frame, unsigned int sp, unsigned int pcreg,
		      uint64_t pc)
{
	Dwarf_Op *ops;
	size_t nops;
	uint64_t v0, v1;
	const uint64_t probe = 0x7ff000000000ull;

	if (dwarf_frame_cfa(frame, &ops, &nops) || nops == 0) {
		printf("expr");
		return;
	}
	if (nops > 1) {
		/* Linear in SP with slope 1: CFA = SP + v0. */
		if (eval(ops, nops, sp, pcreg, 0, pc, &v0) ||
		    eval(ops, nops, sp, pcreg, probe, pc, &v1) ||
		    v1 - v0 != probe)
			printf("expr");
		else
			printf("%u%+" PRId64 " via=expr", sp, (int64_t)v0);
		return;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
		printf("%u%+" PRId64, ops[0].atom - DW_OP_breg0,
		       (int64_t)ops[0].number);
	else if (ops[0].atom == DW_OP_bregx)
		printf("%" PRIu64 "%+" PRId64, (uint64_t)ops[0].number,
		       (int64_t)ops[0].number2);
	else
		printf("expr");
}

int main(int argc, char **argv)
{
	Dwarf_CFI *cfi;
	GElf_Ehdr eh;
	Elf *elf;
	char line[128];
	int fd, ra, fp, sp, pcreg;

	if (argc != 2) {
		fprintf(stderr, "usage: dwarf_rules FILE < addresses\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		fprintf(stderr, "dwarf_rules: %s: not ELF\n", argv[1]);
		return 1;
	}
	if (eh.e_machine == EM_X86_64) {
		ra = 16;
		fp = 6;
		sp = 7;
		pcreg = 16;
	} else if (eh.e_machine == EM_AARCH64) {
		ra = 30;
		fp = 29;
		sp = 31;
		pcreg = 32;
	} else {
		fprintf(stderr, "dwarf_rules: unsupported machine\n");
		return 1;
	}
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		fprintf(stderr, "dwarf_rules: %s: no CFI: %s\n", argv[1],
			dwarf_errmsg(-1));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		Dwarf_Frame *frame;
		Dwarf_Addr pc;
		char *end;

		pc = strtoull(line, &end, 16);
		if (end == line)
			continue;
		printf("0x%" PRIx64, (uint64_t)pc);
		if (dwarf_cfi_addrframe(cfi, pc, &frame)) {
			printf(" none\n");
			continue;
		}
		printf(" cfa=");
		print_cfa(frame, sp, pcreg, pc);
		printf(" ra=");
		print_reg(frame, ra);
		printf(" fp=");
		print_reg(frame, fp);
		printf("\n");
		free(frame);
	}
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	return 0;
}
