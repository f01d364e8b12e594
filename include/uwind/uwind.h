/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind: a freestanding stack unwinder.
 *
 * The core decodes unwind tables in place and steps frames.  It never
 * allocates, keeps no global state and never recurses; every table read is
 * bounds-checked against a caller-supplied span and every stack read goes
 * through a caller-supplied accessor that may fail.
 *
 * This header holds what every format shares: error codes, architectures,
 * register sets in DWARF numbering, table spans, the memory accessor, the
 * unwind row the formats produce, and the walker.
 */
#ifndef UWIND_UWIND_H
#define UWIND_UWIND_H

#include "env.h"

/* Errors: always negative, 0 is success.  uw_strerror() names them. */
enum uw_err {
	UW_OK		= 0,
	UW_EINVAL	= -1,	/* bad argument from the caller */
	UW_EBOUNDS	= -2,	/* a table read would leave its span */
	UW_EMAGIC	= -3,	/* not a table of this format */
	UW_EVERSION	= -4,	/* unsupported format version */
	UW_EHEADER	= -5,	/* header fields inconsistent with the span */
	UW_EUNSORTED	= -6,	/* table not sorted where it must be */
	UW_ENOENT	= -7,	/* no table entry covers the address */
	UW_EBADDATA	= -8,	/* a malformed entry or rule */
	UW_EREAD	= -9,	/* the memory accessor failed */
	UW_ENOPROGRESS	= -10,	/* a step did not move toward the stack base */
	UW_EDEPTH	= -11,	/* frame limit reached */
	UW_EARCH	= -12,	/* architecture or ABI not supported here */
	UW_EOVERFLOW	= -13,	/* address arithmetic overflowed */
	UW_EREG		= -14,	/* a rule needs a register whose value is unknown */
	UW_EREFUSE	= -15,	/* the table says this frame cannot be unwound */
	UW_ESTACK	= -16,	/* an address fell outside the stack bounds */
	UW_EALIGN	= -17,	/* a stack pointer was misaligned */
	UW_ERR_MIN	= -17,
};

const char *uw_strerror(int err);

enum uw_arch {
	UW_ARCH_NONE = 0,
	UW_ARCH_X86_64,
	UW_ARCH_AARCH64,
	UW_ARCH_S390X,
	UW_ARCH_ARM,
	UW_ARCH_X86,
	UW_ARCH_COUNT,
};

const char *uw_arch_name(enum uw_arch arch);

/*
 * Registers, indexed by DWARF register number.  The program counter has
 * a slot too: DWARF's return-address column on x86-64 (16) and x86 (8),
 * DWARF's PC on AArch64 (32) and ARM (15).  s390x's PSW address (DWARF 65)
 * is kept in slot 33, which no s390x unwind rule names.
 */
#define UW_NREGS	34

enum {
	UW_X86_64_RBP = 6, UW_X86_64_RSP = 7, UW_X86_64_RIP = 16,
	UW_AARCH64_X29 = 29, UW_AARCH64_X30 = 30, UW_AARCH64_SP = 31,
	UW_AARCH64_PC = 32,
	UW_S390X_R11 = 11, UW_S390X_R14 = 14, UW_S390X_R15 = 15,
	UW_S390X_PC = 33,
	UW_ARM_R7 = 7, UW_ARM_R11 = 11, UW_ARM_SP = 13, UW_ARM_LR = 14,
	UW_ARM_PC = 15,
	UW_X86_ESP = 4, UW_X86_EBP = 5, UW_X86_EIP = 8,
};

struct uw_regs {
	uint64_t r[UW_NREGS];
	uint64_t valid;		/* bit n set: r[n] is known */
};

static inline void uw_reg_set(struct uw_regs *regs, unsigned int n, uint64_t v)
{
	if (n < UW_NREGS) {
		regs->r[n] = v;
		regs->valid |= (uint64_t)1 << n;
	}
}

static inline bool uw_reg_get(const struct uw_regs *regs, unsigned int n,
			      uint64_t *v)
{
	if (n >= UW_NREGS || !(regs->valid & ((uint64_t)1 << n)))
		return false;
	*v = regs->r[n];
	return true;
}

/* The registers an architecture's walker needs, and its word size. */
struct uw_arch_info {
	uint8_t pc, sp, fp, ra;	/* DWARF numbers; ra = link register or pc */
	uint8_t ptr_size;	/* bytes in a stack word */
	uint8_t has_lr;		/* the return address starts in a register */
};

int uw_arch_info(enum uw_arch arch, struct uw_arch_info *info);

/*
 * A table, read in place: data[0..size) is the table's bytes as mapped,
 * addr is the address data[0] has in the unwound program.
 */
struct uw_span {
	const uint8_t *data;
	size_t size;
	uint64_t addr;
};

/*
 * Memory of the unwound program.  read() copies len bytes from addr into
 * dst and returns 0, or a negative value when it cannot (unmapped, out of
 * bounds, would fault); the core never touches program memory otherwise.
 */
typedef int (*uw_read_fn)(void *ctx, uint64_t addr, void *dst, size_t len);

struct uw_mem {
	uw_read_fn read;
	void *ctx;
};

/*
 * One unwind row: how to get the caller's CFA, return address and frame
 * pointer at a pc.  Formats translate their entries into this.
 */
enum uw_rule_kind {
	UW_RULE_SAME = 0,	/* not saved: the register keeps its value */
	UW_RULE_CFA_OFF,	/* saved at CFA + off */
	UW_RULE_REG,		/* held in register reg */
	UW_RULE_REG_OFF,	/* value is reg + off */
	UW_RULE_REG_DEREF,	/* saved at reg + off */
	UW_RULE_UNDEF,		/* undefined: no caller (outermost frame) */
};

struct uw_rule {
	uint8_t kind;		/* enum uw_rule_kind */
	uint8_t reg;		/* DWARF register for the REG* kinds */
	int32_t off;
};

#define UW_ROW_OUTERMOST	0x01	/* no caller: the walk ends here */
#define UW_ROW_SIGNAL		0x02	/* function is a signal trampoline */
#define UW_ROW_RA_MANGLED	0x04	/* RA is signed (AArch64 pointer auth) */
#define UW_ROW_PAUTH_KEY_B	0x08	/* signed with key B, else key A */

struct uw_row {
	uint64_t fn_start;	/* function the row belongs to */
	uint64_t fn_size;
	uint64_t start;		/* first pc the row covers */
	struct uw_rule cfa;	/* REG_OFF or REG_DEREF */
	struct uw_rule ra;
	struct uw_rule fp;
	uint32_t flags;		/* UW_ROW_* */
};

/*
 * The format headers need the types above; the cursor below needs theirs
 * (it carries the decoders' scratch so it is off the walker's stack).
 */
#include "sframe.h"
#include "ehabi.h"
#include "chrome.h"
#include "compact_unwind.h"
#include "breakpad.h"

/*
 * A loaded module: a text range and the tables that describe it.  The
 * table decoders are initialised once by the host (uw_sframe_init) and
 * only read by the walker.
 */
struct uw_module {
	uint64_t start, end;		/* pcs [start, end) */
	const struct uw_sframe *sframe;	/* NULL: none */
	const struct uw_ehabi *ehabi;	/* ARM: NULL: none */
	const struct uw_chrome *chrome;	/* ARM: NULL: none */
	const struct uw_cu *cu;		/* Apple compact unwind, or NULL */
	const struct uw_bp *bp;		/* Breakpad STACK records, or NULL */
};

/* How a frame was unwound to its caller. */
enum uw_source {
	UW_SRC_NONE = 0,	/* not unwound (last frame) */
	UW_SRC_SFRAME,
	UW_SRC_FP,		/* frame-pointer fallback */
	UW_SRC_SIGFRAME,	/* kernel signal frame (sigreturn trampoline) */
	UW_SRC_EHABI,		/* ARM .ARM.exidx/.ARM.extab */
	UW_SRC_CHROME,		/* Chrome's ARM unwind tables */
	UW_SRC_EXCFRAME,	/* Cortex-M exception frame (EXC_RETURN) */
	UW_SRC_COMPACT,		/* Apple compact unwind (__unwind_info) */
	UW_SRC_BREAKPAD,	/* Breakpad STACK CFI / STACK WIN */
	UW_SRC_COUNT,
};

const char *uw_source_name(enum uw_source src);

/* Why a walk stopped. */
enum uw_stop {
	UW_STOP_NONE = 0,
	UW_STOP_OUTERMOST,	/* the table marks the outermost frame */
	UW_STOP_END,		/* return address or frame pointer is zero */
	UW_STOP_NO_INFO,	/* no table row and no usable frame pointer */
	UW_STOP_READ_FAULT,	/* the memory accessor failed */
	UW_STOP_NO_PROGRESS,	/* the stack pointer did not move up */
	UW_STOP_DEPTH,		/* frame array or depth limit full */
	UW_STOP_BAD_DATA,	/* malformed table or impossible rule */
	UW_STOP_COUNT,
};

const char *uw_stop_name(enum uw_stop stop);

#define UW_FRAME_SIGNAL	0x01	/* pc is exact: interrupted, not a call */
#define UW_FRAME_THUMB	0x02	/* ARM: the pc runs Thumb code */

struct uw_frame {
	uint64_t pc;
	uint64_t sp;
	uint64_t cfa;		/* this frame's CFA, 0 if not unwound */
	uint8_t source;		/* enum uw_source: how it was unwound */
	uint8_t flags;		/* UW_FRAME_* */
	uint16_t module;	/* index into uw_walk_cfg.mods, or UW_NO_MODULE */
};

#define UW_NO_MODULE	0xffff

#define UW_WALK_NO_FP		0x01	/* no frame-pointer fallback */
#define UW_WALK_NO_SIGFRAME	0x02	/* do not recognise signal trampolines */
#define UW_WALK_FP_FIRST_ONLY	0x04	/* fallback only if no module has tables */
#define UW_WALK_CORTEX_M	0x08	/* ARM M-profile: EXC_RETURN (cortexm.h) */
#define UW_WALK_CM_FPCCR_TS	0x10	/* ARMv8-M FPCCR_S.TS set (cortexm.h) */

struct uw_walk_cfg {
	enum uw_arch arch;
	bool big_endian;		/* byte order of the program's memory */
	const struct uw_module *mods;	/* sorted by start, not overlapping */
	size_t nmods;
	struct uw_mem mem;
	uint64_t stack_lo, stack_hi;	/* stack bounds; both 0: unknown */
	uint64_t pac_mask;		/* AArch64: pointer-auth bits to clear */
	uint32_t flags;			/* UW_WALK_* */
	uint32_t max_depth;		/* 0: no limit beyond the frame array */
	uint64_t cm_psp;		/* UW_WALK_CORTEX_M: PSP at the fault */
};

/* The state of a walk between steps: callers may step by hand. */
struct uw_cursor {
	struct uw_regs regs;
	/* Scratch for the step, kept here rather than on the stack. */
	union {
		struct {
			struct uw_row row;
		} sframe;
		struct {
			struct uw_ehabi_entry e;
			struct uw_arm_vrs vrs;
		} ehabi;
		struct {
			struct uw_chrome_loc loc;
			struct uw_arm_vrs vrs;
		} chrome;
		struct uw_cu_work cu;
		struct {
			struct uw_bp_work w;
			struct uw_regs out;	/* the caller, being built */
		} bp;
	} scratch;
	uint64_t cfa;		/* CFA of the frame just unwound */
	uint32_t depth;
	uint8_t flags;		/* UW_FRAME_* for the current frame */
	uint8_t source;		/* how the current frame was unwound */
	uint16_t module;	/* module of the current frame's pc */
	uint8_t stop;		/* enum uw_stop once the walk has ended */
	uint8_t cm_thread;	/* Cortex-M: an EXC_RETURN led to thread mode */
};

int uw_cursor_init(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_regs *regs);

/*
 * Unwind the cursor's frame to its caller.  Returns 1 when the cursor now
 * holds the caller, 0 when the walk ended normally (cur->stop says why),
 * or a negative error (cur->stop says how the walk classifies it).
 */
int uw_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg);

struct uw_walk_result {
	size_t nframes;
	uint8_t stop;		/* enum uw_stop */
	int err;		/* the error behind the stop, or 0 */
};

/*
 * Walk from regs, filling frames[0..max).  frames[0] is the frame regs
 * describe.  cur is the caller's scratch space for the walk (it holds a
 * register set, too large for the stack of an NMI or panic handler);
 * afterwards it holds the last frame's state.  Returns the number of
 * frames written.
 */
size_t uw_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
	       const struct uw_regs *regs, struct uw_frame *frames, size_t max,
	       struct uw_walk_result *res);

/* Find the row that unwinds pc in one module (lookup helper for tools). */
int uw_module_find_row(const struct uw_module *mod, uint64_t pc,
		       struct uw_row *row);

#endif /* UWIND_UWIND_H */
