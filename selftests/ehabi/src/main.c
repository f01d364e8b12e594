// SPDX-License-Identifier: GPL-2.0-only OR MIT
int small_locals(int), big_locals(int), huge_locals(int), use_alloca(int);
int recurse(int), sum_varargs(int, ...), many_regs(int, int, int, int);
int with_cleanup(int);
double vfp_many(double, double, double), vfp_one(double);
float vfp_mixed(float, int);

int main(int argc, char **argv)
{
	(void)argv;
	return small_locals(argc) + big_locals(argc) + huge_locals(argc) +
	       use_alloca(argc) + recurse(argc) + sum_varargs(3, 1, 2, 3) +
	       many_regs(argc, 2, 3, 4) + with_cleanup(argc) +
	       (int)vfp_many(argc, 2, 3) + (int)vfp_one(argc) +
	       (int)vfp_mixed(1.5f, argc);
}
