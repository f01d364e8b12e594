// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Links the rules-*.S functions into a program; they are never called. */
int main(int argc, char **argv)
{
	(void)argv;
	return argc > 100;
}
