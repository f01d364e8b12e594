// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uwind sframe: SFrame tables made from DWARF CFI (sframe_gen.c).
 *
 *   uwind sframe FILE -o OUT [--raw] [-v]
 *       write FILE's table: the installable file of uwsf.h, or with
 *       --raw the bare section, laid out at vaddr 0 (`uwind lookup
 *       --sframe OUT --vaddr 0 ADDR...` reads it); -v adds the coverage
 *       report on stderr
 *   uwind sframe --check [-v] FILE...
 *       the coverage report of each FILE on stdout; -v also lists every
 *       range left out (with its reason) and every range without CFI
 *   uwind sframe --install [--dir DIR] [-v] FILE... | --pid PID | --system
 *       install the tables the kernel module reads (install.c)
 *   uwind sframe --gc [--dir DIR] [-v]
 *       remove the installed tables no file on the system has any more
 *       (sframe_gc.c)
 *   --vdso stands for a FILE: the running kernel's vDSO, read from memory
 *
 * Exit status: 0 done; 1 a file cannot be read, has no CFI or no ABI
 * SFrame knows; 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "install.h"
#include "json.h"
#include "sframe_gen.h"
#include "sframe_report.h"
#include "uwind.h"
#include "uwsf.h"

static int write_file(const char *path, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	FILE *f = fopen(path, "wb");

	if (!f || (alen && fwrite(a, 1, alen, f) != alen) ||
	    (blen && fwrite(b, 1, blen, f) != blen)) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f)) {
		fprintf(stderr, "uwind: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Convert one file: 0 done, 1 failed (message printed).  With --check,
 * report it (t: the total), else write out.
 */
static int convert_one(const char *path, const char *out, bool raw,
		       bool verbose, struct sg_total *t)
{
	uint8_t hdr[UWSF_HDR_SIZE];
	struct uwsf_check chk;
	struct sg_result r;
	struct inst_src s;
	char err[160] = "";
	bool has_chk;
	int ret;

	if (inst_open(path, 0, false, &s)) {
		if (t)
			sg_report_failed(path, s.why, t);
		return 1;
	}
	ret = sg_convert(s.elf, 0, &r, err, sizeof(err));
	has_chk = !uwsf_check_range(s.elf, &chk);
	inst_close(&s);
	if (ret) {
		fprintf(stderr, "uwind: %s: %s\n", path, err);
		if (t)
			sg_report_failed(path, err, t);
		if (ret > 0)
			sg_result_free(&r);
		return 1;
	}
	if (t || verbose)
		sg_report(t ? stdout : stderr, path, &r, t && verbose, t);
	if (out && raw) {
		ret = write_file(out, r.sec, r.size, NULL, 0);
	} else if (out) {
		if (!r.build_id_len)
			fprintf(stderr, "uwind: %s: no GNU build-id: the table"
				" cannot be keyed to the file\n", path);
		uwsf_header(&r, has_chk ? &chk : NULL, hdr);
		ret = write_file(out, hdr, sizeof(hdr), r.sec, r.size);
	}
	sg_result_free(&r);
	return ret ? 1 : 0;
}

/* The sframe command's options and files. */
struct sframe_opts {
	struct inst_opts io;
	const char *out;
	const char **files;
	int n;
	bool raw, check, verbose, install, gc;
};

/* 0, or the usage error's status. */
static int parse_opts(int argc, char **argv, struct sframe_opts *o)
{
	uint64_t pid;
	int i;

	o->files = calloc((size_t)argc, sizeof(*o->files));
	if (!o->files) {
		fprintf(stderr, "uwind: out of memory\n");
		exit(1);
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			o->out = argv[++i];
		else if (!strcmp(argv[i], "--raw"))
			o->raw = true;
		else if (!strcmp(argv[i], "--check"))
			o->check = true;
		else if (!strcmp(argv[i], "-v"))
			o->verbose = true;
		else if (!strcmp(argv[i], "--install"))
			o->install = true;
		else if (!strcmp(argv[i], "--gc"))
			o->gc = true;
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			o->io.dir = argv[++i];
		else if (!strcmp(argv[i], "--pid") && i + 1 < argc) {
			if (parse_count(argv[++i], INT32_MAX, &pid))
				return tool_usage("--pid '%s' is not a process"
						  " id", argv[i]);
			o->io.pid = (int)pid;
		} else if (!strcmp(argv[i], "--system"))
			o->io.system = true;
		else if (!strcmp(argv[i], "--vdso"))
			o->files[o->n++] = "[vdso]";
		else if (argv[i][0] == '-' && argv[i][1])
			return tool_usage("unknown option %s, or an option"
					  " without its value", argv[i]);
		else
			o->files[o->n++] = argv[i];
	}
	return 0;
}

/* Which of the three forms, and whether its options fit it. */
static int check_opts(const struct sframe_opts *o)
{
	if (o->gc && (o->install || o->check))
		return tool_usage("--gc alone: not with --install or --check");
	if (o->gc && (o->n || o->io.pid || o->io.system || o->out || o->raw))
		return tool_usage("--gc takes no files: only --dir, -v and"
				  " --json");
	if (o->gc)
		return 0;
	if (o->install && o->check)
		return tool_usage("--install or --check, not both");
	if (o->install && (o->out || o->raw))
		return tool_usage("--install writes its own files: no -o, --raw");
	if (o->install && !o->n && !o->io.pid && !o->io.system)
		return tool_usage("--install of what: FILE..., --vdso, --pid PID"
				  " or --system");
	if (!o->install && (o->io.dir || o->io.pid || o->io.system))
		return tool_usage("--dir, --pid and --system are for --install"
				  " (--dir also for --gc)");
	if (!o->install && json_wanted && !o->check)
		return tool_usage("--json is for --check, --install and --gc");
	if (!o->install && !o->n)
		return tool_usage("no input file");
	if (o->check && (o->out || o->raw))
		return tool_usage("--check writes no table: no -o, --raw");
	if (!o->install && !o->check && (!o->out || o->n != 1))
		return tool_usage("one FILE and -o OUT (or --check FILE...)");
	return 0;
}

int cmd_sframe(int argc, char **argv)
{
	struct sframe_opts o = { 0 };
	struct sg_total total = { 0 };
	int i, ret;

	ret = parse_opts(argc, argv, &o);
	ret = ret ? ret : check_opts(&o);
	if (ret) {
		free(o.files);
		return ret;
	}
	if (o.install || o.gc) {
		o.io.verbose = o.verbose;
		ret = o.gc ? cmd_gc(&o.io) : cmd_install(&o.io, o.files, o.n);
		free(o.files);
		return ret;
	}
	if (o.check)
		sg_report_begin();
	for (i = 0; i < o.n; i++)
		ret |= convert_one(o.files[i], o.out, o.raw, o.verbose,
				   o.check ? &total : NULL);
	if (o.check)
		sg_report_end(&total);
	free(o.files);
	return ret;
}
