// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Many small functions of a few shapes: a long, dense FDE index. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

#define LEAF(n) NOINLINE int leaf##n(int x) { return x * n + (x >> 3); }
#define MID(n) NOINLINE int mid##n(int x) \
	{ volatile char b[16 * (n % 5 + 1)]; b[0] = (char)x; \
	  return leaf##n(x + b[0]) + leaf##n(x - 1); }
#define TOP(n) NOINLINE int top##n(int x) \
	{ int a = mid##n(x), b = mid##n(a); sink = a; return a + b; }
#define ALL(n) LEAF(n) MID(n) TOP(n)
#define TEN(d) ALL(d##0) ALL(d##1) ALL(d##2) ALL(d##3) ALL(d##4) \
	ALL(d##5) ALL(d##6) ALL(d##7) ALL(d##8) ALL(d##9)

TEN(1) TEN(2) TEN(3) TEN(4) TEN(5) TEN(6)

#define CALL(n) r += top##n(r);
#define CALLTEN(d) CALL(d##0) CALL(d##1) CALL(d##2) CALL(d##3) CALL(d##4) \
	CALL(d##5) CALL(d##6) CALL(d##7) CALL(d##8) CALL(d##9)

int main(int argc, char **argv)
{
	int r = argc;

	(void)argv;
	CALLTEN(1) CALLTEN(2) CALLTEN(3) CALLTEN(4) CALLTEN(5) CALLTEN(6)
	printf("%d\n", r);
	return 0;
}
