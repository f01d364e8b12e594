/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uwind: a freestanding stack unwinder.
 *
 * The core decodes unwind tables in place and steps frames.  It never
 * allocates, keeps no global state and never recurses; every table read is
 * bounds-checked against a caller-supplied span and every stack read goes
 * through a caller-supplied accessor that may fail, unless the caller
 * vouches for its stack (UW_WALK_DIRECT_STACK): then stack words are read
 * in place, each within the caller's stack bounds.
 *
 * This header adds the walker to the shared types (types.h) and the
 * table formats (sframe.h, ehabi.h, chrome.h, compact_unwind.h,
 * breakpad.h): modules, the walk's configuration, its cursor, and the
 * frames it records.
 */
#ifndef UWIND_UWIND_H
#define UWIND_UWIND_H

#include "types.h"
#include "sframe.h"
#include "ehabi.h"
#include "chrome.h"
#include "compact_unwind.h"
#include "breakpad.h"
#include "cache.h"

/**
 * struct uw_module - a loaded module: a text range and its tables
 * @start: first pc of the range, at run time
 * @end: the end of the range (exclusive)
 * @bias: load bias: a pc at run time is pc - bias in the tables' address
 *	space.  0 when the tables were set up at run-time addresses; else
 *	the tables keep the file's link-time addresses, and one decoded
 *	table serves every mapping of the file, each module with its own
 *	bias
 * @sframe: SFrame table, or NULL
 * @ehabi: ARM EHABI index, or NULL
 * @chrome: Chrome ARM table, or NULL (preferred to EHABI where both are)
 * @cu: Apple compact unwind (__TEXT,__unwind_info), or NULL
 * @bp: Breakpad STACK CFI and STACK WIN records, or NULL (preferred to
 *	compact unwind where both are)
 * @cache_id: for a walk with a cache (&struct uw_walk_cfg.cache): the
 *	module's identity, non-zero and distinct from that of every other
 *	module whose frames the same cache holds (of this walk or of
 *	others: another process's, say); 0 keeps the module's frames out of
 *	the cache
 * @cache_gen: the generation of what the module holds: change it
 *	(a counter: +1) whenever its tables, bias or range change, or
 *	another module takes its cache_id; a cache entry is used only for
 *	the cache_id and cache_gen it was made for
 *
 * The tables are set up once by the host (uw_sframe_init() and kin,
 * ideally checked whole with uw_sframe_check() and kin) and only read by
 * the walker.
 */
struct uw_module {
	uint64_t start, end;
	const struct uw_sframe *sframe;
	const struct uw_ehabi *ehabi;
	const struct uw_chrome *chrome;
	const struct uw_cu *cu;
	const struct uw_bp *bp;
	uint64_t bias;
	uint32_t cache_id;
	uint32_t cache_gen;
};

/**
 * enum uw_source - how a frame was unwound to its caller
 * @UW_SRC_NONE: not unwound (the last frame)
 * @UW_SRC_SFRAME: an SFrame row
 * @UW_SRC_FP: the frame-pointer fallback
 * @UW_SRC_SIGFRAME: a Linux signal frame (sigreturn trampoline)
 * @UW_SRC_EHABI: ARM .ARM.exidx/.ARM.extab
 * @UW_SRC_CHROME: Chrome's ARM unwind tables
 * @UW_SRC_EXCFRAME: a Cortex-M exception frame (EXC_RETURN)
 * @UW_SRC_COMPACT: Apple compact unwind (__unwind_info)
 * @UW_SRC_BREAKPAD: Breakpad STACK CFI or STACK WIN records
 * @UW_SRC_COUNT: the number of values above
 */
enum uw_source {
	UW_SRC_NONE = 0,
	UW_SRC_SFRAME,
	UW_SRC_FP,
	UW_SRC_SIGFRAME,
	UW_SRC_EHABI,
	UW_SRC_CHROME,
	UW_SRC_EXCFRAME,
	UW_SRC_COMPACT,
	UW_SRC_BREAKPAD,
	UW_SRC_COUNT,
};

/**
 * uw_source_name() - name a frame source
 * @src: the source
 *
 * Return: a constant string, "unknown" for a value outside the enum.
 */
const char *uw_source_name(enum uw_source src);

/**
 * enum uw_stop - why a walk stopped
 * @UW_STOP_NONE: it has not
 * @UW_STOP_OUTERMOST: the table marks the outermost frame
 * @UW_STOP_END: the return address or frame pointer is zero
 * @UW_STOP_NO_INFO: no table row and no usable frame pointer
 * @UW_STOP_READ_FAULT: the memory accessor failed, or the stack bounds
 *	forbade a read
 * @UW_STOP_NO_PROGRESS: the stack pointer did not move up, or neither
 *	the stack pointer nor the pc changed
 * @UW_STOP_DEPTH: the frame array or depth limit is full
 * @UW_STOP_BAD_DATA: a malformed table or an impossible rule
 * @UW_STOP_COUNT: the number of values above
 */
enum uw_stop {
	UW_STOP_NONE = 0,
	UW_STOP_OUTERMOST,
	UW_STOP_END,
	UW_STOP_NO_INFO,
	UW_STOP_READ_FAULT,
	UW_STOP_NO_PROGRESS,
	UW_STOP_DEPTH,
	UW_STOP_BAD_DATA,
	UW_STOP_COUNT,
};

/**
 * uw_stop_name() - name a stop reason
 * @stop: the reason
 *
 * Return: a constant string, "unknown" for a value outside the enum.
 */
const char *uw_stop_name(enum uw_stop stop);

/**
 * enum uw_frame_flags - flags of a frame (&struct uw_frame.flags)
 * @UW_FRAME_SIGNAL: the pc is exact: interrupted, not a call
 * @UW_FRAME_THUMB: ARM: the pc runs Thumb code
 * @UW_NO_MODULE: &struct uw_frame.module when no module holds the pc
 */
enum uw_frame_flags {
	UW_FRAME_SIGNAL	= 0x01,
	UW_FRAME_THUMB	= 0x02,
	UW_NO_MODULE	= 0xffff,
};

/**
 * struct uw_frame - one frame of a walk
 * @pc: its pc (ARM: without the Thumb bit)
 * @sp: its stack pointer
 * @cfa: its CFA, 0 if not unwound
 * @source: &enum uw_source: how it was unwound to its caller
 * @flags: &enum uw_frame_flags
 * @module: index into &struct uw_walk_cfg.mods, or UW_NO_MODULE
 */
struct uw_frame {
	uint64_t pc;
	uint64_t sp;
	uint64_t cfa;
	uint8_t source;
	uint8_t flags;
	uint16_t module;
};

/**
 * enum uw_walk_flags - options of a walk (&struct uw_walk_cfg.flags)
 * @UW_WALK_NO_FP: no frame-pointer fallback
 * @UW_WALK_NO_SIGFRAME: do not recognise Linux signal trampolines
 * @UW_WALK_CORTEX_M: ARM M-profile: an EXC_RETURN value as a return
 *	address is an exception boundary (cortexm.h); no Linux signal
 *	trampoline is ever looked for
 * @UW_WALK_CM_FPCCR_TS: ARMv8-M: FPCCR_S.TS is set (cortexm.h)
 * @UW_WALK_DIRECT_STACK: the caller vouches that the whole stack
 *	[&struct uw_walk_cfg.stack_lo, &struct uw_walk_cfg.stack_hi) is
 *	readable memory of this address space, at
 *	&struct uw_walk_cfg.stack_mem: the walker reads stack words there
 *	itself, each read still checked against the bounds, and calls no
 *	accessor for them (see &struct uw_walk_cfg)
 * @UW_WALK_NO_FAST: every frame through the general step, none through
 *	the fast loops (a build with UW_HAS_FAST, config.h): the frames,
 *	their sources and the stop are the same either way (the tests
 *	compare both on every walk); slower, for comparing and debugging
 */
enum uw_walk_flags {
	UW_WALK_NO_FP		= 0x01,
	UW_WALK_NO_SIGFRAME	= 0x02,
	UW_WALK_CORTEX_M	= 0x08,
	UW_WALK_CM_FPCCR_TS	= 0x10,
	UW_WALK_DIRECT_STACK	= 0x20,
	UW_WALK_NO_FAST		= 0x40,
};

/**
 * struct uw_walk_cfg - what a walk needs to know about the program
 * @arch: its architecture
 * @big_endian: the byte order of its memory
 * @mods: its modules, sorted by start, not overlapping
 * @nmods: how many
 * @mem: its memory: every read of it goes through the accessor, except
 *	stack reads under UW_WALK_DIRECT_STACK
 * @stack_lo: lowest stack address a read may touch
 * @stack_hi: the end of the stack; both 0: bounds unknown
 * @pac_mask: AArch64: pointer-auth bits to clear from signed return
 *	addresses: those of rows marked signed, and every one read from a
 *	frame record (code built with pac-ret saves lr signed there; a
 *	valid address has none of these bits set)
 * @flags: &enum uw_walk_flags
 * @max_depth: frames at most; 0: no limit beyond the frame array
 * @cm_psp: UW_WALK_CORTEX_M: the process stack pointer at the fault
 * @cache: a cache (uw_cache_init()) the walk consults before a module's
 *	tables and fills after, or NULL; the frames are the same with and
 *	without it (see cache.h)
 * @stack_mem: UW_WALK_DIRECT_STACK: where the stack's bytes are in this
 *	address space: the byte at stack_lo is at stack_mem, the one at
 *	stack_lo + i at stack_mem + i.  NULL: at stack_lo itself (a walk
 *	of the running program's own stack).  A copy works too (a stack
 *	snapshot, a core file's stack segment)
 *
 * Stack memory (the words rules save at the CFA or a register, frame
 * records, signal and exception frames) is read within [stack_lo,
 * stack_hi) when the bounds are set; a read outside them fails
 * (UW_ESTACK).  It is read through @mem unless @flags has
 * UW_WALK_DIRECT_STACK: then the walker loads the words itself, from
 * @stack_mem, with the same bounds check, the same checks of alignment
 * and overflow, and no call.  Only a caller that knows the whole range
 * is mapped and readable for the walk's whole duration may set it:
 * a program unwinding its own thread within that thread's stack
 * bounds (pthread_getattr_np(), or the main thread's stack mapping),
 * a firmware on its own stack, a tool reading a copy it holds.  Never
 * the kernel for a user stack (user memory may be unmapped or paged
 * out at any time: that is what a nofault accessor is for).  The
 * bounds must be set (stack_lo < stack_hi, a range this address space
 * can hold, at an address other than 0 when @stack_mem is NULL), else
 * uw_cursor_init() and uw_walk() fail with UW_EINVAL.  Other memory
 * (program text, which a signal-trampoline check and compact unwind's
 * frameless-indirect rule read) still goes through @mem; without an
 * accessor those reads fail as they would without one.
 */
struct uw_walk_cfg {
	enum uw_arch arch;
	bool big_endian;
	const struct uw_module *mods;
	size_t nmods;
	struct uw_mem mem;
	uint64_t stack_lo, stack_hi;
	uint64_t pac_mask;
	uint32_t flags;
	uint32_t max_depth;
	uint64_t cm_psp;
	struct uw_cache *cache;
	const void *stack_mem;
};

/**
 * struct uw_cursor - the state of a walk between steps
 * @regs: the current frame's registers
 * @cfa: CFA of the frame just unwound
 * @depth: frames unwound so far
 * @flags: &enum uw_frame_flags of the current frame
 * @source: &enum uw_source: how the last step unwound
 * @module: the module of the current frame's pc (an index into
 *	&struct uw_walk_cfg.mods, or UW_NO_MODULE); the next uw_step() uses
 *	its tables
 * @stop: &enum uw_stop once the walk has ended
 *
 * uw_cursor_init() sets it up, uw_step() advances it; callers may step
 * by hand and read it in between.  It is the walk's scratch too, too
 * large for the stack of an NMI or panic handler: keep it static or
 * per-CPU.  What follows @stop is the walker's alone.
 */
struct uw_cursor {
	struct uw_regs regs;
	uint64_t cfa;
	uint32_t depth;
	uint8_t flags;
	uint8_t source;
	uint16_t module;
	uint8_t stop;
	/* private: */
	/*
	 * The walker's own state (lib/cursor.h): the step in progress and
	 * the scratch of the formats and fast loops.  Its size is the same
	 * in every configuration: 1328 bytes on 64-bit hosts, 1240 on
	 * 32-bit ARM.
	 */
	union {
		uint64_t align;
		unsigned char bytes[1152 + 22 * sizeof(void *)];
	} priv;
};

/**
 * uw_cursor_init() - start a walk at a register set
 * @cur: the cursor
 * @cfg: the walk's configuration
 * @regs: the first frame's registers: at least its pc and sp
 *
 * Return: 0, or UW_EINVAL (a NULL argument, or UW_WALK_DIRECT_STACK
 * without usable stack bounds), UW_EARCH (an architecture this build
 * cannot walk), UW_EREG (pc or sp unknown).
 */
int uw_cursor_init(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		   const struct uw_regs *regs);

/**
 * enum uw_step_ret - what uw_step() returns besides errors
 * @UW_STEP_END: the walk ended normally; cur->stop says why
 * @UW_STEP_CALLER: the cursor now holds the caller
 */
enum uw_step_ret {
	UW_STEP_END = 0,
	UW_STEP_CALLER = 1,
};

/**
 * uw_step() - unwind the cursor's frame to its caller
 * @cur: a cursor from uw_cursor_init()
 * @cfg: the configuration it was set up with
 *
 * Tries, in the order the architecture sets: a Cortex-M exception
 * boundary, the tables of the frame's module, a Linux signal frame, and
 * the frame pointer.  The caller's stack pointer must lie above the
 * callee's (equal only when the return address came from a register)
 * and a step must change the pc or the stack pointer.
 *
 * Return: UW_STEP_CALLER, UW_STEP_END (an outermost frame or a zero
 * return address or frame pointer), or a negative error, cur->stop
 * classifying it: UW_EDEPTH, UW_ENOENT, UW_EREG, UW_EARCH, UW_EREFUSE
 * (no unwind info), UW_EREAD, UW_ESTACK (read fault), UW_ENOPROGRESS,
 * UW_EALIGN (no progress, or no info where a frame pointer gave them),
 * and format errors, UW_EOVERFLOW and UW_EINVAL (no memory accessor)
 * (bad data).  Once the walk has ended, UW_STEP_END.
 */
int uw_step(struct uw_cursor *cur, const struct uw_walk_cfg *cfg);

/**
 * struct uw_walk_result - how a walk ended
 * @nframes: frames written
 * @stop: &enum uw_stop
 * @err: the error behind the stop, or 0
 */
struct uw_walk_result {
	size_t nframes;
	uint8_t stop;
	int err;
};

/**
 * uw_walk() - walk a stack from a register set
 * @cur: the caller's scratch space for the walk (a register set, too
 *	large for the stack of an NMI or panic handler); afterwards it
 *	holds the last frame's state
 * @cfg: the walk's configuration
 * @regs: the first frame's registers
 * @frames: where the frames go; frames[0] is the frame regs describe
 * @max: room in frames
 * @res: how the walk ended: the stop reason and the error of uw_step()
 *	or uw_cursor_init() behind it; UW_EDEPTH when frames ran out
 *
 * Return: the number of frames written.
 */
size_t uw_walk(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
	       const struct uw_regs *regs, struct uw_frame *frames, size_t max,
	       struct uw_walk_result *res);

/**
 * uw_walk_more() - go on with a walk, a batch of frames at a time
 * @cur: the cursor of a walk: from uw_cursor_init(), or left by uw_walk()
 *	or uw_walk_more() when frames ran out
 * @cfg: the configuration it was set up with
 * @frames: where the frames go; frames[0] is the cursor's frame again
 *	(the last one the previous batch wrote, now with the source and CFA
 *	of its step), then its callers
 * @max: room in frames
 * @res: as for uw_walk(); a walk that had ended: its stop, and
 *	UW_STEP_END (0) as the error
 *
 * A host that must act between frames (look at the clock, say) walks in
 * batches this way at uw_walk()'s speed rather than uw_step()'s.  The
 * walk goes on while cur->stop is UW_STOP_NONE; the depth limit
 * (&struct uw_walk_cfg.max_depth) counts the whole walk's steps.
 *
 * Return: the number of frames written, frames[0] included.
 */
size_t uw_walk_more(struct uw_cursor *cur, const struct uw_walk_cfg *cfg,
		    struct uw_frame *frames, size_t max,
		    struct uw_walk_result *res);

/**
 * uw_module_sframe_find() - the SFrame row for a run-time pc in a module
 * @mod: the module
 * @pc: the address, at run time
 * @row: where the row goes, its addresses at run time (the module's
 *	bias added)
 *
 * SFrame only: EHABI and Chrome entries are opcode sequences, which
 * uw_ehabi_find() and uw_chrome_find() answer.
 *
 * Return: 0, or UW_ENOENT (pc outside the module, no SFrame table, no
 * row), or an error of uw_sframe_find().
 */
int uw_module_sframe_find(const struct uw_module *mod, uint64_t pc,
			  struct uw_row *row);

#endif /* UWIND_UWIND_H */
