// SPDX-License-Identifier: GPL-2.0-or-later
/* Symbolizer fixture: inlined calls two levels deep, a noinline callee, a loop. */
#include <stdlib.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long leaf_mix(unsigned long x)
{
	x ^= x >> 7;
	x *= 0x9e3779b97f4a7c15ul;
	return x;
}

static inline __attribute__((always_inline)) unsigned long middle(unsigned long x, int k)
{
	if (k & 1)
		x = leaf_mix(x);
	else
		x += (unsigned long)k;
	return x;
}

__attribute__((noinline)) unsigned long outer(unsigned long x)
{
	for (int k = 0; k < 9; k++)
		x = middle(x, k);
	return x;
}

__attribute__((noinline)) unsigned long other(unsigned long x)
{
	return outer(x) * 3 + leaf_mix(x);
}

int main(int argc, char **argv)
{
	sink = other((unsigned long)argc) + outer(strtoul(argc > 1 ? argv[1] : "1", NULL, 0));
	return 0;
}
