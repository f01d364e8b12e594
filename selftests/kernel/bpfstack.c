// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bpfstack: user stacks through BPF's bpf_get_stack() and
 * bpf_get_stackid() (what bpftrace's ustack uses), without libbpf or
 * clang: the program below is written out as instructions and loaded
 * with the bpf() system call.
 *
 *   bpfstack FREQ PROGRAM [ARG...]
 *
 * Starts PROGRAM, attaches a BPF_PROG_TYPE_PERF_EVENT program to a
 * cpu-clock event of that process (FREQ samples a second), and when the
 * program has exited prints every distinct user stack each helper gave
 * (innermost first, at most 8 frames) with its count:
 *
 *   get_stack COUNT ADDR ADDR ...
 *   get_stackid COUNT ADDR ADDR ...
 *
 * Both helpers reach the kernel's user callchain (get_perf_callchain(),
 * which calls perf_callchain_user()).  Exit status: PROGRAM's, or 2 when
 * BPF could not be set up.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEPTH	8			/* frames kept per stack */
#define STACK_BYTES (DEPTH * 8)
#define ID_BUCKETS	65536		/* the stack map's: 4 MiB of stacks */

static struct bpf_insn prog[64];
static int nins;
static char log_buf[65536];

static void emit(uint8_t code, uint8_t dst, uint8_t src, int16_t off,
		 int32_t imm)
{
	struct bpf_insn *i = &prog[nins++];

	i->code = code;
	i->dst_reg = dst;
	i->src_reg = src;
	i->off = off;
	i->imm = imm;
}

#define MOV_REG(d, s)	emit(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, v)	emit(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, v)
#define ADD_IMM(d, v)	emit(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, v)
#define STX(sz, d, s, o) emit(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define CALL(f)		emit(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		emit(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define XADD(d, s, o)	emit(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)

/* r<d> = the map fd (a two-instruction load the loader resolves). */
static void ld_map(uint8_t d, int fd)
{
	emit(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd);
	emit(0, 0, 0, 0, 0);
}

/* A jump to be patched: its index. */
static int jump(uint8_t op, uint8_t d, int32_t imm)
{
	emit(BPF_JMP | op | BPF_K, d, 0, 0, imm);
	return nins - 1;
}

static void land(int at)
{
	prog[at].off = nins - at - 1;
}

/*
 * count[key at r10+key_off] += 1 in map fd, value scratch at r10+val_off:
 * lookup, atomic add, or insert 1.
 */
static void count_key(int fd, int key_off, int val_off)
{
	int miss, done;

	ld_map(1, fd);
	MOV_REG(2, 10);
	ADD_IMM(2, key_off);
	CALL(BPF_FUNC_map_lookup_elem);
	miss = jump(BPF_JEQ, 0, 0);
	MOV_IMM(1, 1);
	XADD(0, 1, 0);
	done = jump(BPF_JA, 0, 0);
	land(miss);
	MOV_IMM(1, 1);
	STX(BPF_DW, 10, 1, val_off);
	ld_map(1, fd);
	MOV_REG(2, 10);
	ADD_IMM(2, key_off);
	MOV_REG(3, 10);
	ADD_IMM(3, val_off);
	MOV_IMM(4, BPF_ANY);
	CALL(BPF_FUNC_map_update_elem);
	land(done);
}

/*
 * The program: the user stack by bpf_get_stack() into a zeroed buffer,
 * counted per distinct stack; its id by bpf_get_stackid(), counted per id.
 */
static void build(int stacks, int ids, int idcount)
{
	int k, fail;

	MOV_REG(6, 1);				/* ctx */
	MOV_IMM(1, 0);
	for (k = 1; k <= DEPTH; k++)
		STX(BPF_DW, 10, 1, -8 * k);
	MOV_REG(1, 6);
	MOV_REG(2, 10);
	ADD_IMM(2, -STACK_BYTES);
	MOV_IMM(3, STACK_BYTES);
	MOV_IMM(4, BPF_F_USER_STACK);
	CALL(BPF_FUNC_get_stack);
	count_key(stacks, -STACK_BYTES, -STACK_BYTES - 8);

	MOV_REG(1, 6);
	ld_map(2, ids);
	/*
	 * A stack map keeps one stack a bucket, its hash (seed 0) of the
	 * addresses; without BPF_F_REUSE_STACKID a bucket taken first by a
	 * start-up sample's stack refuses every later stack that hashes
	 * there (-EEXIST): once in a CI run, all 1,946 samples of the leaf.
	 * With it, a later stack in the leaf's bucket replaces the leaf's,
	 * and the id's count is printed with the other stack: once, an exit
	 * path's one-frame stack over 1,422 leaf samples, in 1,024 buckets.
	 * Hence ID_BUCKETS: a handful of distinct stacks a run, so such a
	 * collision is a chance in thousands.
	 */
	MOV_IMM(3, BPF_F_USER_STACK | BPF_F_REUSE_STACKID);
	CALL(BPF_FUNC_get_stackid);
	fail = jump(BPF_JSLT, 0, 0);
	STX(BPF_W, 10, 0, -STACK_BYTES - 16);
	count_key(idcount, -STACK_BYTES - 16, -STACK_BYTES - 24);
	land(fail);
	MOV_IMM(0, 0);
	EXIT();
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int map_create(uint32_t type, uint32_t key, uint32_t value,
		      uint32_t entries)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_next(int fd, const void *key, void *next)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.next_key = (uintptr_t)next;
	return sys_bpf(BPF_MAP_GET_NEXT_KEY, &a);
}

static int map_get(int fd, const void *key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

static void print_stack(const char *what, uint64_t n, const uint64_t *pc)
{
	int k;

	printf("%s %llu", what, (unsigned long long)n);
	for (k = 0; k < DEPTH && pc[k]; k++)
		printf(" %llx", (unsigned long long)pc[k]);
	printf("\n");
}

static void dump(int stacks, int ids, int idcount)
{
	uint64_t key[DEPTH], next[DEPTH], n, pc[DEPTH];
	uint32_t id, nid;
	void *prev = NULL;

	while (!map_next(stacks, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		if (!map_get(stacks, key, &n))
			print_stack("get_stack", n, key);
	}
	prev = NULL;
	while (!map_next(idcount, prev, &nid)) {
		id = nid;
		prev = &id;
		memset(pc, 0, sizeof(pc));
		if (!map_get(idcount, &id, &n) && !map_get(ids, &id, pc))
			print_stack("get_stackid", n, pc);
	}
}

static int attach(pid_t pid, unsigned long freq, int prog_fd)
{
	struct perf_event_attr pe;
	int fd;

	memset(&pe, 0, sizeof(pe));
	pe.size = sizeof(pe);
	pe.type = PERF_TYPE_SOFTWARE;
	pe.config = PERF_COUNT_SW_CPU_CLOCK;
	pe.freq = 1;
	pe.sample_freq = freq;
	fd = syscall(__NR_perf_event_open, &pe, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		perror("bpfstack: perf event");
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	int stacks, ids, idcount, prog_fd, go[2], st;
	union bpf_attr a;
	pid_t pid;
	char c;

	if (argc < 3) {
		fprintf(stderr, "usage: bpfstack FREQ PROGRAM [ARG...]\n");
		return 2;
	}
	stacks = map_create(BPF_MAP_TYPE_HASH, STACK_BYTES, 8, 1024);
	ids = map_create(BPF_MAP_TYPE_STACK_TRACE, 4, STACK_BYTES, ID_BUCKETS);
	idcount = map_create(BPF_MAP_TYPE_HASH, 4, 8, 1024);
	if (stacks < 0 || ids < 0 || idcount < 0) {
		perror("bpfstack: maps");
		return 2;
	}
	build(stacks, ids, idcount);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = nins;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log_buf;
	a.log_size = sizeof(log_buf);
	a.log_level = 1;
	prog_fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (prog_fd < 0) {
		perror("bpfstack: BPF_PROG_LOAD");
		fputs(log_buf, stderr);
		return 2;
	}
	if (pipe(go))
		return 2;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(127);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	close(go[0]);
	if (pid < 0 || attach(pid, strtoul(argv[1], NULL, 0), prog_fd) < 0) {
		kill(pid, SIGKILL);
		return 2;
	}
	close(go[1]);			/* the program starts now */
	if (waitpid(pid, &st, 0) < 0)
		return 2;
	dump(stacks, ids, idcount);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
