// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * `uwind stack`: the output, every thread's walk.
 *
 * Output (stable; tests parse it).  One block per thread, in the order of
 * the core's NT_PRSTATUS notes or of /proc/PID/task, blocks separated by
 * an empty line:
 *
 *   Thread N (LWP TID):
 *   #I  0xPC FUNC+0xOFF (MODULE) [SOURCE]
 *   ...
 *   # stopped: STOP (ERROR)
 *
 * N counts threads from 1.  I is the frame number, printed as "#%-2u " (two
 * spaces after one digit).  PC is 16 lower-case hex digits.  FUNC+0xOFF
 * names the function holding the pc (a return address, frame I > 0 not
 * marked signal, is looked up at PC-1; OFF is still from PC); "??" without
 * an offset when no symbol covers it.  MODULE is the path of the mapped
 * file holding the pc, "[vdso]", or "??".  SOURCE is uw_source_name() of the
 * rule that unwound this frame to its caller: "sframe", "ehabi", "fp",
 * "sigframe", or "none" for the last frame.  A frame whose pc is exact
 * (restored from a signal frame) has " signal" after SOURCE; a 32-bit ARM
 * frame in Thumb code has " thumb" after that.  STOP is uw_stop_name() and
 * ERROR is uw_strerror() of the walk's result ("success" for a normal end).
 */
#include <string.h>
#include "stack.h"

#define MAX_FRAMES	256

static const struct stk_sym *find_sym(const struct stk_file *f, uint64_t pc)
{
	size_t lo = 0, hi = f->nsyms, mid;
	const struct stk_sym *s;

	/* Last symbol starting at or below pc... */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &f->syms[lo - 1];
	/* ...and the first (preferred) one of its address. */
	while (s > f->syms && s[-1].addr == s->addr)
		s--;
	if (s->size && pc - s->addr >= s->size)
		return NULL;
	return s;
}

static void print_frame(const struct stk_target *t, unsigned int i,
			const struct uw_frame *fr)
{
	/*
	 * A return address names the call before it (pc - 1), but for the
	 * first frame, an interrupted one, and a sigreturn trampoline: the
	 * handler "returns" to its first byte, and pc - 1 belongs to
	 * whatever precedes it.
	 */
	bool exact = i == 0 || (fr->flags & UW_FRAME_SIGNAL) ||
		     fr->source == UW_SRC_SIGFRAME;
	uint64_t look = exact || !fr->pc ? fr->pc : fr->pc - 1;
	const struct stk_file *f = NULL;
	const struct stk_sym *s = NULL;
	const struct stk_map *m;
	const char *mod = "??";

	if (fr->module != UW_NO_MODULE && fr->module < t->nmods)
		f = t->mod_file[fr->module];
	if (!f) {
		m = stk_find_map(t, look);
		if (m)
			f = m->file;
	}
	if (f) {
		mod = f->path;
		s = find_sym(f, look);
	}
	printf("#%-2u 0x%016llx ", i, (unsigned long long)fr->pc);
	if (s)
		printf("%s+0x%llx", s->name,
		       (unsigned long long)(fr->pc - s->addr));
	else
		fputs("??", stdout);
	printf(" (%s) [%s]%s%s\n", mod, uw_source_name(fr->source),
	       (fr->flags & UW_FRAME_SIGNAL) ? " signal" : "",
	       (fr->flags & UW_FRAME_THUMB) ? " thumb" : "");
}

static void print_thread(struct stk_target *t, size_t n,
			 const struct stk_thread *th)
{
	static struct uw_frame frames[MAX_FRAMES];
	struct uw_walk_result res;
	struct uw_cursor cur;
	struct uw_walk_cfg cfg;
	size_t i, nf;

	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = t->arch;
	cfg.big_endian = t->big_endian;
	cfg.mods = t->mods;
	cfg.nmods = t->nmods;
	cfg.mem.read = stk_read;
	cfg.mem.ctx = t;
	cfg.pac_mask = t->pac_mask;
	printf("Thread %zu (LWP %d):\n", n, th->tid);
	if (!th->ok) {
		printf("# stopped: %s (%s)\n", uw_stop_name(UW_STOP_NO_INFO),
		       uw_strerror(UW_EREG));
		return;
	}
	nf = uw_walk(&cur, &cfg, &th->regs, frames, MAX_FRAMES, &res);
	for (i = 0; i < nf; i++)
		print_frame(t, (unsigned int)i, &frames[i]);
	/*
	 * A chain that ends cleanly at a pc no mapping holds ended on a
	 * bad return address (a wrong program, a smashed stack).
	 */
	if (!res.err && nf && !stk_in_vma(t, frames[nf - 1].pc))
		printf("# stopped: %s (pc 0x%llx is outside every mapping)\n",
		       uw_stop_name(res.stop),
		       (unsigned long long)frames[nf - 1].pc);
	else
		printf("# stopped: %s (%s)\n", uw_stop_name(res.stop),
		       uw_strerror(res.err));
}

void stk_print(struct stk_target *t)
{
	size_t i;

	for (i = 0; i < t->nthreads; i++) {
		if (i)
			putchar('\n');
		print_thread(t, i + 1, &t->threads[i]);
	}
	fflush(stdout);
}
