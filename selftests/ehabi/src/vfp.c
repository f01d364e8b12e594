// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Float-heavy code: d8-d15 live across calls, saved with vpush. */
volatile double dsink;

int ext_other(int a)
{
	dsink = a;
	return (int)dsink;
}

__attribute__((noinline)) double dext(double x)
{
	dsink = x;
	return dsink;
}

__attribute__((noinline)) double vfp_many(double a, double b, double c)
{
	double d = dext(a) + b, e = dext(b) * c, f = dext(c) - a;
	double g = dext(d) + e, h = dext(e) * f, i = dext(f) + g;
	double j = dext(g) - h, k = dext(h) + i;

	return dext(a + b + c + d + e + f + g + h + i + j + k) *
	       a * b * c * d * e * f * g * h * i * j * k;
}

__attribute__((noinline)) double vfp_one(double a)
{
	double b = dext(a) * 3.0;

	return dext(b) + b;
}

__attribute__((noinline)) float vfp_mixed(float a, int n)
{
	float s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += (float)dext(a * (float)i) * a;
	return s;
}
