// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack`: the output, every thread's walk, as text or JSON.
 *
 * Text (stable; tests parse it).  For a core, first what it says of the
 * process and of the signal it got, then an empty line:
 *
 *   Process PID: ARGS
 *   Signal SIGNO (NAME, DESCRIPTION) in LWP TID: CODE, fault address ADDR
 *
 * ("from pid P uid U" for a signal a process sent; a line is left out
 * when the core lacks it).  Then one block per thread (those -t names),
 * in the order of the core's NT_PRSTATUS notes or of /proc/PID/task,
 * blocks separated by an empty line:
 *
 *   Thread N (LWP TID):
 *   #I  0xPC FUNC+0xOFF (MODULE) [SOURCE]
 *   ...
 *   # stopped: STOP (ERROR)
 *
 * N counts threads from 1.  I is the frame number, printed as "#%-2u " (two
 * spaces after one digit).  PC is 16 lower-case hex digits.  FUNC+0xOFF
 * names the function holding the pc (a return address, frame I > 0 not
 * marked signal, is looked up at PC-1; OFF is still from PC); a pc no
 * symbol covers is named BASENAME+0xOFF instead, OFF the address in the
 * file (as addr2line -e MODULE reads it), or "??" outside every file.
 * MODULE is the path of the mapped file holding the pc, "[vdso]", or
 * "??".  SOURCE is uw_source_name() of the rule that unwound this frame
 * to its caller: "sframe", "ehabi", "fp", "sigframe", or "none" for the
 * last frame.  A frame whose pc is exact (restored from a signal frame)
 * has " signal" after SOURCE; a 32-bit ARM frame in Thumb code has
 * " thumb" after that.  A function inlined at the pc (DWARF) is a frame
 * of its own before the one it was inlined into, with the same PC, no
 * +0xOFF and SOURCE "inline".  STOP is uw_stop_name() and ERROR is
 * uw_strerror() of the walk's result ("success" for a normal end; a walk
 * that ends on a pc outside every mapping says so instead; -n N cut
 * short: "frame limit (-n N)").
 *
 * --check-walk (stack_verify.c) adds, after the last block, an empty line
 * and one line: "# check-walk: the N walks (4 a thread) agree with the
 * plain walks; warm cache: H hits, M misses", or "# check-walk: D of the
 * N walks (4 a thread) differ from the plain walks" (said on stderr).
 *
 * JSON (--json): one object, the schema in uwind(1), JSON OUTPUT.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include "json.h"
#include "stack.h"

/* One frame as printed: an inline scope or a walked frame. */
struct out_frame {
	unsigned int index;
	uint64_t pc;
	const char *func;	/* NULL: none */
	bool has_off;
	uint64_t off;		/* pc - function start */
	const struct stk_name *n;
	const char *source;
	bool inlined, signal, thumb;
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static void text_frame(const struct out_frame *o)
{
	const struct stk_name *n = o->n;

	printf("#%-2u 0x%016llx ", o->index, (unsigned long long)o->pc);
	if (o->func && o->has_off)
		printf("%s+0x%llx", o->func, (unsigned long long)o->off);
	else if (o->func)
		fputs(o->func, stdout);
	else if (n->module && n->has_offset)
		printf("%s+0x%llx", base_name(n->module),
		       (unsigned long long)n->offset);
	else
		fputs("??", stdout);
	printf(" (%s) [%s]%s%s\n", n->module ? n->module : "??", o->source,
	       o->signal ? " signal" : "", o->thumb ? " thumb" : "");
}

static void json_frame(const struct out_frame *o)
{
	const struct stk_name *n = o->n;

	json_begin(NULL);
	json_int("index", o->index);
	json_hex("pc", o->pc);
	json_str("function", o->func);
	if (o->has_off)
		json_hex("offset", o->off);
	json_str("module", n->module);
	if (n->has_offset)
		json_hex("module_offset", n->offset);
	json_str("source", o->source);
	json_bool("inline", o->inlined);
	json_bool("signal", o->signal);
	json_bool("thumb", o->thumb);
	json_end();
}

static void put_frame(const struct out_frame *o)
{
	if (json_wanted)
		json_frame(o);
	else
		text_frame(o);
}

/*
 * The frames of one walked frame: its inline scopes first, then itself.
 * Returns how many were printed (at most room).
 */
static unsigned int put_frames(const struct stk_target *t, unsigned int i,
			       unsigned int index, const struct uw_frame *fr,
			       unsigned int room)
{
	/*
	 * A return address names the call before it (pc - 1), but for the
	 * first frame, an interrupted one, and a sigreturn trampoline: the
	 * handler "returns" to its first byte, and pc - 1 belongs to
	 * whatever precedes it.
	 */
	bool exact = i == 0 || (fr->flags & UW_FRAME_SIGNAL) ||
		     fr->source == UW_SRC_SIGFRAME;
	struct stk_frame_at at = { .pc = fr->pc };
	const struct stk_map *m;
	struct out_frame o;
	struct stk_name n;
	unsigned int k = 0;

	at.look = exact || !fr->pc ? fr->pc : fr->pc - 1;
	if (fr->module != UW_NO_MODULE && fr->module < t->nmods)
		at.file = t->mod_file[fr->module];
	if (!at.file) {
		m = stk_find_map(t, at.look);
		at.file = m ? m->file : NULL;
	}
	stk_name(t, &at, &n);
	memset(&o, 0, sizeof(o));
	o.pc = fr->pc;
	o.n = &n;
	o.thumb = fr->flags & UW_FRAME_THUMB;
	for (; k < n.ninline && k < room; k++) {
		o.index = index + k;
		o.func = n.inlined[k];
		o.source = "inline";
		o.inlined = true;
		put_frame(&o);
	}
	if (k == room)
		return k;
	o.index = index + k;
	o.func = n.func;
	o.has_off = n.func != NULL;
	o.off = fr->pc - n.func_start;
	o.source = uw_source_name(fr->source);
	o.inlined = false;
	o.signal = fr->flags & UW_FRAME_SIGNAL;
	put_frame(&o);
	return k + 1;
}

static void put_stop(const char *stop, const char *why)
{
	if (json_wanted) {
		json_begin("stopped");
		json_str("reason", stop);
		json_str("error", why);
		json_end();
	} else {
		printf("# stopped: %s (%s)\n", stop, why);
	}
}

static void walk_cfg(struct stk_target *t, struct uw_walk_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = t->arch;
	cfg->big_endian = t->big_endian;
	cfg->mods = t->mods;
	cfg->nmods = t->nmods;
	cfg->mem.read = stk_read;
	cfg->mem.ctx = t;
	cfg->pac_mask = t->pac_mask;
}

/* The stop line of walk w, whose frames up to i were shown (shown). */
static void put_walk_end(const struct stk_target *t,
			 const struct stk_thread *th, const struct stk_walk *w,
			 size_t i, unsigned int shown, unsigned int max)
{
	const struct uw_frame *last = w->n ? &w->frames[w->n - 1] : NULL;
	char why[96];

	if (!th->ok)
		put_stop(uw_stop_name(UW_STOP_NO_INFO), uw_strerror(UW_EREG));
	else if (shown == max && (i < w->n || w->res.stop == UW_STOP_DEPTH) &&
	    max < STK_MAX_FRAMES) {
		snprintf(why, sizeof(why), "-n %u", max);
		put_stop("frame limit", why);
	} else if (!w->res.err && last && !stk_in_vma(t, last->pc)) {
		/*
		 * A chain that ends cleanly at a pc no mapping holds ended
		 * on a bad return address (a wrong program, a smashed stack).
		 */
		snprintf(why, sizeof(why), "pc 0x%llx is outside every mapping",
			 (unsigned long long)last->pc);
		put_stop(uw_stop_name(w->res.stop), why);
	} else {
		put_stop(uw_stop_name(w->res.stop), uw_strerror(w->res.err));
	}
}

/* Thread number n's walk, printed; with v, walked again and compared. */
static void walk_thread(struct stk_target *t, const struct stk_opts *opts,
			const struct stk_thread *th, size_t n,
			struct stk_verify *v)
{
	static struct uw_frame frames[STK_MAX_FRAMES];
	struct stk_walk w = { .frames = frames };
	struct uw_cursor cur;
	struct uw_walk_cfg cfg;
	unsigned int shown = 0, max = opts->max_frames;
	size_t i;

	walk_cfg(t, &cfg);
	if (th->ok)
		w.n = uw_walk(&cur, &cfg, &th->regs, frames, max, &w.res);
	if (th->ok && v)
		stk_verify_thread(v, &cfg, &th->regs, max, &w, n, th->tid);
	if (json_wanted)
		json_begin_array("frames");
	for (i = 0; i < w.n && shown < max; i++)
		shown += put_frames(t, i, shown, &frames[i], max - shown);
	if (json_wanted)
		json_end_array();
	put_walk_end(t, th, &w, i, shown, max);
}

static void put_thread(struct stk_target *t, const struct stk_opts *o,
		       size_t n, const struct stk_thread *th,
		       struct stk_verify *v)
{
	if (json_wanted) {
		json_begin(NULL);
		json_int("number", (long long)n);
		json_int("tid", th->tid);
	} else {
		if (n > 1)
			putchar('\n');
		printf("Thread %zu (LWP %d):\n", n, th->tid);
	}
	walk_thread(t, o, th, n, v);
	if (json_wanted)
		json_end();
}

static void put_threads(struct stk_target *t, const struct stk_opts *o,
			struct stk_verify *v)
{
	size_t i, k, n = 0;

	if (json_wanted)
		json_begin_array("threads");
	for (i = 0; i < t->nthreads; i++) {
		for (k = 0; k < o->ntids; k++)
			if (o->tids[k] == t->threads[i].tid)
				break;
		if (o->ntids && k == o->ntids)
			continue;
		put_thread(t, o, ++n, &t->threads[i], v);
	}
	if (json_wanted)
		json_end_array();
}

/*
 * Signal names are the host's (sigabbrev_np, strsignal): Linux numbers
 * them alike on x86-64, AArch64 and ARM.
 */
static void text_header(const struct stk_target *t)
{
	const struct stk_signal *s = &t->sig;
	const char *abbrev = sigabbrev_np(s->signo);
	const char *code = stk_sigcode_name(s->signo, s->code);

	if (t->ps_pid)
		printf("Process %d: %s\n", t->ps_pid, t->ps_args);
	if (s->signo) {
		printf("Signal %d (SIG%s, %s)", s->signo, abbrev ? abbrev : "?",
		       strsignal(s->signo));
		if (s->tid)
			printf(" in LWP %d", s->tid);
		if (s->has_code && code)
			printf(": %s", code);
		else if (s->has_code)
			printf(": code %d", s->code);
		if (s->has_addr)
			printf(", fault address 0x%llx",
			       (unsigned long long)s->addr);
		if (s->has_sender)
			printf(", from pid %d uid %d", s->pid, s->uid);
		putchar('\n');
	}
	if (t->ps_pid || s->signo)
		putchar('\n');
}

static void json_header(const struct stk_target *t, const struct stk_opts *o)
{
	const struct stk_signal *s = &t->sig;
	const char *abbrev = sigabbrev_np(s->signo);
	char name[32];

	json_str("core", o->core);
	if (o->core)
		json_str("exe", o->exe);
	else
		json_int("pid", o->pid);
	json_str("arch", uw_arch_name(t->arch));
	if (t->ps_pid) {
		json_begin("process");
		json_int("pid", t->ps_pid);
		json_str("args", t->ps_args);
		json_end();
	}
	if (!s->signo)
		return;
	snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "?");
	json_begin("signal");
	json_int("number", s->signo);
	json_str("name", name);
	json_str("description", strsignal(s->signo));
	if (s->tid)
		json_int("tid", s->tid);
	if (s->has_code) {
		json_int("code", s->code);
		json_str("code_name", stk_sigcode_name(s->signo, s->code));
	}
	if (s->has_addr)
		json_hex("address", s->addr);
	if (s->has_sender) {
		json_int("sender_pid", s->pid);
		json_int("sender_uid", s->uid);
	}
	json_end();
}

/* --check-walk: what the walks made again gave. */
static void put_verify(const struct stk_verify *v)
{
	size_t walks = v->threads * STK_VERIFY_WALKS;
	unsigned long long hits = v->hits[STK_VERIFY_WARM];
	unsigned long long misses = v->misses[STK_VERIFY_WARM];

	if (json_wanted) {
		json_begin("check_walk");
		json_int("threads", (long long)v->threads);
		json_int("walks", (long long)walks);
		json_int("differ", (long long)v->differ);
		json_int("warm_hits", (long long)hits);
		json_int("warm_misses", (long long)misses);
		json_end();
	} else if (v->differ) {
		printf("\n# check-walk: %zu of the %zu walks (%d a thread)"
		       " differ from the plain walks\n", v->differ, walks,
		       STK_VERIFY_WALKS);
	} else {
		printf("\n# check-walk: the %zu walks (%d a thread) agree with"
		       " the plain walks; warm cache: %llu hits, %llu misses\n",
		       walks, STK_VERIFY_WALKS, hits, misses);
	}
}

int stk_print(struct stk_target *t, const struct stk_opts *o)
{
	struct stk_verify v, *vp = NULL;
	int ret = 0;

	if (o->check_walk) {
		if (stk_verify_begin(&v, t->mods, t->nmods))
			return 1;
		vp = &v;
	}
	stk_names_begin(t);
	if (json_wanted) {
		json_begin(NULL);
		json_header(t, o);
	} else {
		text_header(t);
	}
	put_threads(t, o, vp);
	if (vp)
		put_verify(vp);
	if (json_wanted)
		json_end();
	fflush(stdout);
	stk_names_end(t);
	if (vp) {
		ret = v.differ ? STK_EXIT_DIFFER : 0;
		stk_verify_end(vp);
	}
	return ret;
}
