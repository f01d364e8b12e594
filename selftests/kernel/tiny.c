// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * tiny: a process that exits at once, for the test that starts a thousand
 * of them under sampling.  It calls lib_enter() (selftests/kernel/uwlib.c):
 * built static, with uwlib.c compiled in, it is cheap to start; built
 * dynamic, linked with libuwchain.so, every run also maps a shared library
 * with SFrame, whose table the module shares between processes.
 */
void lib_enter(void (*cb)(void));

static void nothing(void)
{
}

int main(void)
{
	lib_enter(nothing);
	return 0;
}
