/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarfsyms fixture (-O2): nested always_inline calls, a header inline, a
 * function split into a .cold part, and calls into the -O0 file o0.c. */
#include <stdio.h>
#include <stdlib.h>

#include "inl.h"

volatile int g_sink;

int o0_sum(int n);
int o0_loop(int n);

static inline __attribute__((always_inline)) int leaf(int x)
{
	g_sink ^= x;
	return x * 7 + g_sink;
}

static inline __attribute__((always_inline)) int mid(int x)
{
	int r = leaf(x) + 1;

	r ^= leaf(r + 3);
	r += hdr_twice(r);
	return r;
}

__attribute__((noinline)) int outer(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++)
		s += mid(i + s);
	return s + hdr_twice(x);
}

__attribute__((noinline, cold)) void report(const char *what, int x)
{
	fprintf(stderr, "bad %s: %d\n", what, x);
}

__attribute__((noinline)) int split(int x)
{
	int r = 0;

	if (__builtin_expect(x < 0, 0)) {
		report("split", x);
		r = mid(x);
		abort();
	}
	for (int i = 0; i < x; i++)
		r += leaf(i) ^ (r >> 3);
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	return (outer(n) + split(n) + o0_sum(n) + o0_loop(n)) & 1;
}
