// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The walker: step a register set from a frame to its caller using the
 * tables of the module containing the pc, falling back to frame pointers.
 *
 * Safety rules every step obeys: program memory is read only through the
 * caller's accessor; a caller's stack pointer must lie above the callee's
 * (equal only when the return address came from a register, as in an
 * AArch64 leaf); register-based rules are trusted only where registers
 * are really known (the first frame, or a frame restored from a signal
 * context); the number of steps is bounded by the caller's frame array
 * and max_depth.
 */
#include <uwind/sframe.h>
#include <uwind/ehabi.h>
#include <uwind/chrome.h>
#include <uwind/cortexm.h>
#include "span.h"
#include "walk.h"
#include "arm_exec.h"

int uw_read_word(const struct uw_walk_cfg *cfg, unsigned int size,
		 uint64_t addr, uint64_t *v)
{
	uint8_t buf[8];

	if (size > sizeof(buf) || !cfg->mem.read)
		return UW_EINVAL;
	if (cfg->stack_hi &&
	    (addr < cfg->stack_lo || addr > cfg->stack_hi - size ||
	     cfg->stack_hi < size))
		return UW_ESTACK;
	if (cfg->mem.read(cfg->mem.ctx, addr, buf, size))
		return UW_EREAD;
	*v = uw_load(buf, size, cfg->big_endian);
	return 0;
}

/* Module whose text holds pc, by binary search over the sorted array. */
static int find_module(const struct uw_walk_cfg *cfg, uint64_t pc)
{
	size_t lo = 0, hi = cfg->nmods, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pc < cfg->mods[mid].start)
			hi = mid;
		else if (pc >= cfg->mods[mid].end)
			lo = mid + 1;
		else
			return mid < UW_NO_MODULE ? (int)mid : -1;
	}
	return -1;
}

int uw_module_find_row(const struct uw_module *mod, uint64_t pc,
		       struct uw_row *row)
{
	if (pc < mod->start || pc >= mod->end)
		return UW_ENOENT;
	if (mod->sframe)
		return uw_sframe_find(mod->sframe, pc, row);
	return UW_ENOENT;
}

/* ARM keeps the Thumb state in bit 0 of a code address: not an address bit. */
static uint64_t code_addr(const struct uw_walk_cfg *cfg, uint64_t pc)
{
	return cfg->arch == UW_ARCH_ARM ? pc & ~(uint64_t)1 : pc;
}

static uint64_t code_addr_arch(uint64_t pc, const struct uw_arch_info *ai)
{
	return ai->ptr_size == 4 && ai->has_lr ? pc & ~(uint64_t)1 : pc;
}

static int reg_value(const struct uw_regs *regs, unsigned int n, uint64_t *v)
{
	return uw_reg_get(regs, n, v) ? 0 : UW_EREG;
}

/* Value of a saved register under rule r; 1 = rule says "unchanged". */
static int rule_value(const struct uw_walk_cfg *cfg, const struct uw_regs *regs,
		      unsigned int size, const struct uw_rule *r, uint64_t cfa,
		      uint64_t *v)
{
	uint64_t base, addr;
	int err;

	switch (r->kind) {
	case UW_RULE_SAME:
		return 1;
	case UW_RULE_CFA_OFF:
		err = uw_add_off(cfa, r->off, &addr);
		return err ? err : uw_read_word(cfg, size, addr, v);
	case UW_RULE_REG:
		return reg_value(regs, r->reg, v);
	case UW_RULE_REG_OFF:
		err = reg_value(regs, r->reg, &base);
		return err ? err : uw_add_off(base, r->off, v);
	case UW_RULE_REG_DEREF:
		err = reg_value(regs, r->reg, &base);
		err = err ? err : uw_add_off(base, r->off, &addr);
		return err ? err : uw_read_word(cfg, size, addr, v);
	default:
		return UW_EBADDATA;
	}
}

static int row_cfa(const struct uw_walk_cfg *cfg, const struct uw_regs *regs,
		   unsigned int size, const struct uw_rule *r, uint64_t *cfa)
{
	if (r->kind != UW_RULE_REG_OFF && r->kind != UW_RULE_REG_DEREF)
		return UW_EBADDATA;
	return rule_value(cfg, regs, size, r, 0, cfa);
}

static int stop_for(int err)
{
	switch (err) {
	case UW_EREAD:
	case UW_ESTACK:
		return UW_STOP_READ_FAULT;
	case UW_ENOPROGRESS:
	case UW_EALIGN:
		return UW_STOP_NO_PROGRESS;
	case UW_EDEPTH:
		return UW_STOP_DEPTH;
	case UW_ENOENT:
	case UW_EREG:
	case UW_EARCH:
	case UW_EREFUSE:	/* the table says: no unwind info here */
		return UW_STOP_NO_INFO;
	default:
		return UW_STOP_BAD_DATA;
	}
}

/*
 * The stop reason for err in the step just tried.  A frame pointer that
 * gives a misaligned or non-rising frame, where no table had a row, is
 * no usable frame pointer: the walk has run out of unwind information
 * (typically past main, into code built without either).  A table whose
 * rule does that is another matter: no progress.
 */
static int stop_kind(const struct uw_cursor *cur, int err)
{
	if (cur->source == UW_SRC_FP &&
	    (err == UW_ENOPROGRESS || err == UW_EALIGN || err == UW_EOVERFLOW))
		return UW_STOP_NO_INFO;
	return stop_for(err);
}

/* s390x's CFA sits 160 bytes above the caller's stack pointer. */
static int64_t sp_from_cfa(enum uw_arch arch)
{
	return arch == UW_ARCH_S390X ? -160 : 0;
}

/*
 * Install the caller: pc, sp and fp known, every other register unknown
 * (a table row says nothing about them).
 */
static void set_caller(struct uw_cursor *cur, const struct uw_arch_info *ai,
		       uint64_t pc, uint64_t sp, uint64_t fp, bool fp_known)
{
	cur->regs.valid = 0;
	uw_reg_set(&cur->regs, ai->pc, pc);
	uw_reg_set(&cur->regs, ai->sp, sp);
	if (fp_known)
		uw_reg_set(&cur->regs, ai->fp, fp);
}

/* Apply one unwind row: 1 stepped, 0 outermost, <0 error. */
static int uw_apply_row(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		 const struct uw_arch_info *ai, const struct uw_row *row,
		 bool *ra_in_reg, uint64_t *new_sp)
{
	uint64_t cfa, ra, fp = 0, sp;
	bool fp_known;
	int ret;

	if ((row->flags & UW_ROW_OUTERMOST) || row->ra.kind == UW_RULE_UNDEF)
		return 0;
	ret = row_cfa(cfg, &cur->regs, ai->ptr_size, &row->cfa, &cfa);
	if (ret)
		return ret;
	ret = rule_value(cfg, &cur->regs, ai->ptr_size, &row->ra, cfa, &ra);
	if (ret == 1)
		ret = reg_value(&cur->regs, ai->ra, &ra);
	if (ret)
		return ret;
	if ((row->flags & UW_ROW_RA_MANGLED) && cfg->arch == UW_ARCH_AARCH64)
		ra &= ~cfg->pac_mask;
	ret = rule_value(cfg, &cur->regs, ai->ptr_size, &row->fp, cfa, &fp);
	if (ret < 0)
		return ret;
	fp_known = ret == 0 || uw_reg_get(&cur->regs, ai->fp, &fp);
	ret = uw_add_off(cfa, sp_from_cfa(cfg->arch), &sp);
	if (ret)
		return ret;
	*ra_in_reg = row->ra.kind == UW_RULE_REG ||
		     row->ra.kind == UW_RULE_SAME;
	*new_sp = sp;
	cur->cfa = cfa;
	set_caller(cur, ai, ra, sp, fp, fp_known);
	return 1;
}

/*
 * ARM frame records.  ARM code (GCC): push {fp, lr}; add fp, sp, #4, so
 * fp points at the saved lr with the caller's fp below it.  Thumb code
 * keeps its frame pointer in r7, and the AAPCS frame record (as clang
 * lays it out: push {r7, lr}; mov r7, sp) has the caller's r7 at [r7] and
 * lr above it.  GCC's Thumb code points r7 below its locals instead, so
 * there the fallback finds nothing sensible and the walk stops on the
 * progress checks.
 */
static int arm_fp_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		       uint64_t *new_sp)
{
	uint64_t pc = 0, fp, ra, caller_fp;
	unsigned int reg;
	bool thumb;
	int err;

	uw_reg_get(&cur->regs, UW_ARM_PC, &pc);
	thumb = pc & 1;
	reg = thumb ? UW_ARM_R7 : UW_ARM_R11;
	if (!uw_reg_get(&cur->regs, reg, &fp))
		return UW_EREG;
	if (fp == 0)
		return 0;
	if ((fp & 3) || fp < 4 || fp > 0xffffffffu - 8)
		return UW_EALIGN;
	if (thumb) {
		err = uw_read_word(cfg, 4, fp, &caller_fp);
		err = err ? err : uw_read_word(cfg, 4, fp + 4, &ra);
		*new_sp = fp + 8;
	} else {
		err = uw_read_word(cfg, 4, fp - 4, &caller_fp);
		err = err ? err : uw_read_word(cfg, 4, fp, &ra);
		*new_sp = fp + 4;
	}
	if (err)
		return err;
	cur->cfa = *new_sp;
	cur->regs.valid = 0;
	uw_reg_set(&cur->regs, UW_ARM_PC, ra);
	uw_reg_set(&cur->regs, UW_ARM_SP, *new_sp);
	/*
	 * The record saved the register this frame's mode uses: an ARM
	 * function called from Thumb code saved r11, not the caller's r7.
	 */
	uw_reg_set(&cur->regs, reg, caller_fp);
	return 1;
}

/* Frame-pointer rule: [fp] = caller's fp, [fp + word] = return address. */
static int fp_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_arch_info *ai, uint64_t *new_sp)
{
	unsigned int w = ai->ptr_size;
	uint64_t fp, ra, caller_fp;
	int err;

	if (cfg->arch == UW_ARCH_ARM)
		return arm_fp_step(cur, cfg, new_sp);
	if (cfg->arch != UW_ARCH_X86_64 && cfg->arch != UW_ARCH_AARCH64 &&
	    cfg->arch != UW_ARCH_X86)
		return UW_EARCH;
	if (!uw_reg_get(&cur->regs, ai->fp, &fp))
		return UW_EREG;
	if (fp == 0)
		return 0;		/* chain ends */
	if (fp & (w - 1))
		return UW_EALIGN;
	if (fp > ~(uint64_t)0 - 2 * w)
		return UW_EOVERFLOW;
	err = uw_read_word(cfg, w, fp, &caller_fp);
	err = err ? err : uw_read_word(cfg, w, fp + w, &ra);
	if (err)
		return err;
	cur->cfa = fp + 2 * w;
	*new_sp = cur->cfa;
	set_caller(cur, ai, ra, cur->cfa, caller_fp, true);
	return 1;
}

int uw_cursor_init(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_regs *regs)
{
	const struct uw_arch_info *ai;
	uint64_t pc;
	int m;

	if (!cur || !cfg || !regs)
		return UW_EINVAL;
	ai = uw_arch_get(cfg->arch);
	if (!ai)
		return UW_EARCH;
	uw_regs_copy(&cur->regs, regs);
	if (!uw_reg_get(regs, ai->pc, &pc) || !uw_reg_get(regs, ai->sp, &pc))
		return UW_EREG;
	uw_reg_get(regs, ai->pc, &pc);
	cur->cfa = 0;
	cur->depth = 0;
	cur->flags = 0;
	cur->source = UW_SRC_NONE;
	cur->stop = UW_STOP_NONE;
	cur->cm_thread = 0;
	m = find_module(cfg, code_addr(cfg, pc));
	cur->module = m < 0 ? UW_NO_MODULE : (uint16_t)m;
	return 0;
}

static int end_walk(struct uw_cursor *cur, int stop, int ret)
{
	cur->stop = (uint8_t)stop;
	return ret;
}

/* Try the tables of pc's module: 1 stepped, 0 outermost, <0 error. */
/*
 * ARM, after an opcode sequence ran on the cursor: the caller's sp, and
 * the registers a call leaves unknown (r0-r3, r12, lr) dropped.
 */
static int arm_done(struct uw_cursor *cur, bool lr_known, uint64_t lr,
		    bool *ra_in_reg, uint64_t *new_sp)
{
	uint64_t pc = 0;
	unsigned int r;

	uw_reg_get(&cur->regs, UW_ARM_PC, &pc);
	uw_reg_get(&cur->regs, UW_ARM_SP, new_sp);
	*ra_in_reg = lr_known && pc == lr;
	cur->cfa = *new_sp;
	for (r = 0; r <= 3; r++)
		cur->regs.valid &= ~((uint64_t)1 << r);
	cur->regs.valid &= ~((uint64_t)1 << 12 | (uint64_t)1 << UW_ARM_LR);
	return 1;
}

/* ARM: run the EHABI entry for lookup on the cursor's registers. */
static int ehabi_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		      const struct uw_ehabi *eh, uint64_t lookup,
		      bool *ra_in_reg, uint64_t *new_sp)
{
	struct uw_ehabi_entry *e = &cur->scratch.ehabi.e;
	struct uw_arm_vrs *v = &cur->scratch.ehabi.vrs;
	uint64_t lr = 0;
	bool lr_known = uw_reg_get(&cur->regs, UW_ARM_LR, &lr);
	int err;

	err = uw_ehabi_find(eh, lookup, e);
	if (err)
		return err;
	/* No unwind information here: let frame pointers try. */
	if (e->kind == UW_EHABI_KIND_CANTUNWIND)
		return UW_ENOENT;
	cur->source = UW_SRC_EHABI;
	uw_arm_vrs_ehabi(v, &cur->regs, eh, &e->ops);
	err = uw_arm_exec(v, cfg);
	return err ? err : arm_done(cur, lr_known, lr, ra_in_reg, new_sp);
}

/* ARM: the same from Chrome's tables. */
static int chrome_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		       const struct uw_chrome *ct, uint64_t lookup,
		       bool *ra_in_reg, uint64_t *new_sp)
{
	struct uw_chrome_loc *loc = &cur->scratch.chrome.loc;
	struct uw_arm_vrs *v = &cur->scratch.chrome.vrs;
	uint64_t lr = 0;
	bool lr_known = uw_reg_get(&cur->regs, UW_ARM_LR, &lr);
	int err;

	err = uw_chrome_find(ct, lookup, loc);
	if (err)
		return err;
	cur->source = UW_SRC_CHROME;
	uw_arm_vrs_bytes(v, &cur->regs, ct->blob.data + ct->insn_off,
			 ct->insn_size, loc->insn);
	err = uw_arm_exec(v, cfg);
	err = err ? err : arm_done(cur, lr_known, lr, ra_in_reg, new_sp);
	/* Chromium's per-frame check: a caller's sp is 8-byte aligned. */
	if (err == 1 && (*new_sp & 7))
		return UW_EALIGN;
	return err;
}

static int table_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		      const struct uw_arch_info *ai, uint64_t lookup,
		      bool *ra_in_reg, uint64_t *new_sp)
{
	const struct uw_module *mod;
	int m, err;

	m = find_module(cfg, lookup);
	if (m < 0)
		return UW_ENOENT;
	mod = &cfg->mods[m];
	if (cfg->arch == UW_ARCH_ARM) {
		/* Chrome's table, where given, is preferred to EHABI. */
		err = UW_ENOENT;
		if (mod->chrome)
			err = chrome_step(cur, cfg, mod->chrome, lookup,
					  ra_in_reg, new_sp);
		if (err == UW_ENOENT && mod->ehabi)
			err = ehabi_step(cur, cfg, mod->ehabi, lookup,
					 ra_in_reg, new_sp);
		if (err != UW_ENOENT)
			return err;
		return uw_fmt_step(cur, cfg, mod, lookup, ra_in_reg, new_sp);
	}
	/* Without SFrame: Breakpad or compact unwind, if the host gave them. */
	if (!mod->sframe)
		return uw_fmt_step(cur, cfg, mod, lookup, ra_in_reg, new_sp);
	/* The row lives in the cursor: the caller's memory, not our stack. */
	err = uw_sframe_find(mod->sframe, lookup, &cur->scratch.sframe.row);
	if (err)
		return err;
	cur->source = UW_SRC_SFRAME;
	return uw_apply_row(cur, cfg, ai, &cur->scratch.sframe.row, ra_in_reg,
			    new_sp);
}

/* A kernel signal frame at pc: 1 with the interrupted frame restored. */
static int sigframe_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
			 const struct uw_arch_info *ai, uint64_t pc,
			 uint64_t sp)
{
	int ret = uw_sigframe_step(cur, cfg, ai, pc, sp);

	if (ret > 0) {
		cur->source = UW_SRC_SIGFRAME;
		cur->flags = UW_FRAME_SIGNAL;
	}
	return ret;
}

int uw_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg)
{
	const struct uw_arch_info *ai;
	uint64_t pc, sp, new_sp = 0, lookup;
	bool ra_in_reg = false, exact, sig_first;
	int ret, m;

	if (cur->stop != UW_STOP_NONE)
		return 0;
	ai = uw_arch_get(cfg->arch);
	if (!ai)
		return end_walk(cur, UW_STOP_BAD_DATA, UW_EARCH);
	if (cfg->max_depth && cur->depth + 1 >= cfg->max_depth)
		return end_walk(cur, UW_STOP_DEPTH, UW_EDEPTH);
	if (!uw_reg_get(&cur->regs, ai->pc, &pc) ||
	    !uw_reg_get(&cur->regs, ai->sp, &sp))
		return end_walk(cur, UW_STOP_NO_INFO, UW_EREG);

	exact = cur->depth == 0 || (cur->flags & UW_FRAME_SIGNAL);
	cur->flags = 0;

	/*
	 * Cortex-M: a handler "returned" to an EXC_RETURN value.  The
	 * interrupted frame is on the stack it names; like a signal frame
	 * it may be on another stack (the PSP), so no progress check.
	 */
	if (cfg->arch == UW_ARCH_ARM && (cfg->flags & UW_WALK_CORTEX_M) &&
	    uw_cortexm_is_exc_return(pc)) {
		cur->source = UW_SRC_EXCFRAME;
		ret = uw_cortexm_step(cur, cfg, pc, sp);
		if (ret < 0)
			return end_walk(cur, stop_for(ret), ret);
		cur->flags = UW_FRAME_SIGNAL;
		goto stepped;
	}

	/*
	 * 32-bit ARM Linux: glibc's sigreturn restorers carry EHABI entries
	 * describing the signal frame, which would restore the registers
	 * but as an ordinary frame: the interrupted one would be looked up
	 * at pc - 1 and lose lr.  So the trampoline is looked for first
	 * (never on M-profile, which has no Linux signals).
	 */
	sig_first = cfg->arch == UW_ARCH_ARM &&
		    !(cfg->flags & (UW_WALK_NO_SIGFRAME | UW_WALK_CORTEX_M));
	if (sig_first) {
		ret = sigframe_step(cur, cfg, ai, pc, sp);
		if (ret < 0)
			return end_walk(cur, stop_for(ret), ret);
		if (ret > 0)
			goto stepped;
	}

	lookup = code_addr(cfg, pc);
	if (!exact && lookup)
		lookup--;		/* inside the call, not after it */
	ret = table_step(cur, cfg, ai, lookup, &ra_in_reg, &new_sp);
	if (ret == 0)
		return end_walk(cur, UW_STOP_OUTERMOST, 0);

	/*
	 * No table row: a kernel signal frame, whose interrupted registers
	 * are all on the stack?  Sigreturn trampolines (libc, the vDSO,
	 * qemu's page) carry no SFrame, and checking only here spares every
	 * covered frame a read of its code (costly in a kernel NMI).
	 */
	if (ret == UW_ENOENT && !sig_first &&
	    !(cfg->flags & UW_WALK_NO_SIGFRAME)) {
		ret = sigframe_step(cur, cfg, ai, pc, sp);
		if (ret > 0)
			goto stepped;
		if (ret == 0)
			ret = UW_ENOENT;
	}
	if (ret == UW_ENOENT && !(cfg->flags & UW_WALK_NO_FP)) {
		cur->source = UW_SRC_FP;
		ret = fp_step(cur, cfg, ai, &new_sp);
		if (ret == 0)
			return end_walk(cur, UW_STOP_END, 0);
	}
	if (ret < 0)
		return end_walk(cur, stop_kind(cur, ret), ret);

	/* Progress: the caller's frame lies above ours. */
	if (new_sp < sp || (new_sp == sp && !ra_in_reg))
		return end_walk(cur, stop_kind(cur, UW_ENOPROGRESS),
				UW_ENOPROGRESS);
	if (new_sp & (ai->ptr_size - 1))
		return end_walk(cur, stop_kind(cur, UW_EALIGN), UW_EALIGN);

stepped:
	cur->depth++;
	uw_reg_get(&cur->regs, ai->pc, &pc);
	if (pc == 0)
		return end_walk(cur, UW_STOP_END, 0);
	lookup = code_addr(cfg, pc);
	m = find_module(cfg, (cur->flags & UW_FRAME_SIGNAL) || !lookup ?
			     lookup : lookup - 1);
	cur->module = m < 0 ? UW_NO_MODULE : (uint16_t)m;
	return 1;
}

static void record(struct uw_frame *f, const struct uw_cursor *cur,
		   const struct uw_arch_info *ai)
{
	f->pc = code_addr_arch(cur->regs.r[ai->pc], ai);
	f->sp = cur->regs.r[ai->sp];
	f->cfa = 0;
	f->source = UW_SRC_NONE;
	f->flags = cur->flags;
	if (ai->ptr_size == 4 && ai->has_lr && (cur->regs.r[ai->pc] & 1))
		f->flags |= UW_FRAME_THUMB;
	f->module = cur->module;
}

size_t uw_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
	       const struct uw_regs *regs, struct uw_frame *frames, size_t max,
	       struct uw_walk_result *res)
{
	const struct uw_arch_info *ai;
	size_t n = 0;
	int ret;

	res->nframes = 0;
	res->stop = UW_STOP_NONE;
	res->err = 0;
	ret = uw_cursor_init(cur, cfg, regs);
	if (ret || !frames || max == 0) {
		res->stop = ret ? UW_STOP_NO_INFO : UW_STOP_DEPTH;
		res->err = ret ? ret : UW_EDEPTH;
		return 0;
	}
	ai = uw_arch_get(cfg->arch);	/* valid: uw_cursor_init checked */
	record(&frames[n++], cur, ai);
	for (;;) {
		if (n >= max) {
			res->stop = UW_STOP_DEPTH;
			res->err = UW_EDEPTH;
			break;
		}
		ret = uw_step(cur, cfg);
		/* The rule just used (or tried) belongs to the previous frame. */
		frames[n - 1].source = ret > 0 ? cur->source : UW_SRC_NONE;
		frames[n - 1].cfa = ret > 0 ? cur->cfa : 0;
		if (ret <= 0) {
			res->stop = cur->stop;
			res->err = ret;
			break;
		}
		record(&frames[n++], cur, ai);
	}
	res->nframes = n;
	return n;
}
