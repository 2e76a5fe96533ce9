/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarfsyms fixture (-O0): plain functions, no inlining. */
static int o0_square(int x)
{
	return x * x;
}

int o0_sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += o0_square(i);
	return s;
}

int o0_loop(int n)
{
	int s = 1;

	while (n-- > 0) {
		if (s & 1)
			s = s * 3 + 1;
		else
			s /= 2;
	}
	return s;
}
