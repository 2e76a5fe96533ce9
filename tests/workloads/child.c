// SPDX-License-Identifier: GPL-2.0-or-later
/* Test workload exec'd by "hot spawn": spins in zt_child_spin for SECS, then exits. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void zt_child_spin(void)
{
	volatile unsigned long x = 0; /* on the stack: the leaf keeps its frame */
	unsigned long i;

	for (i = 0; i < 200000; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	sink = x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		zt_child_spin();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
