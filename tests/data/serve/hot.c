/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program with one hot function named by the test that builds it
 * (-DHOT=name): a name only that test's binary has. Runs for MS
 * milliseconds (-DMS=..., default 1000). */
#include <time.h>
#ifndef MS
#define MS 1000
#endif
__attribute__((noinline)) unsigned long HOT(unsigned long s)
{
	volatile unsigned long v = s;
	for (int i = 0; i < 100000; i++)
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	return v;
}
int main(void)
{
	struct timespec a, b;
	unsigned long s = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		s += HOT(s);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < MS * 1000000L);
	return (int)(s & 1);
}
