// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test workload for --call-graph dwarf: built with -O2 -fomit-frame-pointer
 * (see the Makefile), so frame-pointer walks break, with known call chains.
 *   chain [SECS]   main -> nf_outer -> nf_middle -> nf_inner -> nf_leaf (spins)
 *   qsort [SECS]   main -> nf_sort -> qsort (libc, no frame pointers) -> ... -> nf_cmp
 *   deep [SECS]    main -> nf_deep x 24 (1 KiB frames, ~26 KiB of stack) -> nf_leaf
 *   thread [SECS]  a second thread: nf_thread -> nf_outer -> ... -> nf_leaf
 *   signal [SECS]  main -> nf_spin, interrupted every millisecond by SIGALRM, whose
 *                  handler nf_handler -> nf_leaf works about as long as nf_spin does
 *   clock [SECS]   main -> nf_clock -> clock_gettime (the vDSO), over and over
 * Every call is followed by work on its result, so none becomes a tail call.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static double stop_at;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) unsigned long nf_leaf(unsigned long seed)
{
	unsigned long x = seed, i;

	for (i = 0; i < 200000; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	return x;
}

__attribute__((noinline, noclone)) unsigned long nf_inner(unsigned long seed)
{
	unsigned long r = nf_leaf(seed ^ 3);

	__asm__ volatile("" : "+r"(r));
	return r + 3;
}

__attribute__((noinline, noclone)) unsigned long nf_middle(unsigned long seed)
{
	unsigned long r = nf_inner(seed ^ 2);

	__asm__ volatile("" : "+r"(r));
	return r + 2;
}

__attribute__((noinline, noclone)) unsigned long nf_outer(unsigned long seed)
{
	unsigned long r = nf_middle(seed ^ 1);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static int nf_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

__attribute__((noinline, noclone)) unsigned long nf_sort(unsigned long seed)
{
	static unsigned long v[4096];
	unsigned long i;

	for (i = 0; i < 4096; i++)
		v[i] = seed = seed * 6364136223846793005ul + 1442695040888963407ul;
	qsort(v, 4096, sizeof(v[0]), nf_cmp);
	__asm__ volatile("" ::: "memory");
	return v[0] + v[4095];
}

__attribute__((noinline, noclone)) unsigned long nf_deep(unsigned depth, unsigned long seed)
{
	volatile char pad[1024]; /* a big frame: the stack outgrows an 8 KiB copy */
	unsigned long r;

	pad[0] = (char)seed;
	pad[1023] = (char)depth;
	r = depth ? nf_deep(depth - 1, seed + pad[0]) : nf_leaf(seed);
	__asm__ volatile("" : "+r"(r));
	return r + pad[1023];
}

static void *nf_thread(void *arg)
{
	unsigned long s = 7;

	(void)arg;
	while (now() < stop_at)
		s += nf_outer(s);
	sink = s;
	return NULL;
}

__attribute__((noinline, noclone)) static void nf_handler(int sig)
{
	unsigned long r = nf_leaf(sink + (unsigned long)sig);

	__asm__ volatile("" : "+r"(r));
	sink += r;
}

__attribute__((noinline, noclone)) unsigned long nf_spin(unsigned long seed)
{
	unsigned long x = seed, i;

	for (i = 0; i < 100000; i++)
		x = x * 6364136223846793005ul + i;
	__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline, noclone)) unsigned long nf_clock(unsigned long seed)
{
	struct timespec ts;
	unsigned long x = seed, i;

	for (i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x += (unsigned long)ts.tv_nsec;
	}
	__asm__ volatile("" : "+r"(x));
	return x;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "chain";
	double secs = argc > 2 ? atof(argv[2]) : 2;
	unsigned long s = 1;

	stop_at = now() + secs;
	if (!strcmp(mode, "chain")) {
		while (now() < stop_at)
			s += nf_outer(s);
	} else if (!strcmp(mode, "qsort")) {
		while (now() < stop_at)
			s += nf_sort(s);
	} else if (!strcmp(mode, "deep")) {
		while (now() < stop_at)
			s += nf_deep(24, s);
	} else if (!strcmp(mode, "thread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, nf_thread, NULL))
			return 1;
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "signal")) {
		struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

		signal(SIGALRM, nf_handler);
		setitimer(ITIMER_REAL, &it, NULL);
		while (now() < stop_at)
			s += nf_spin(s);
		it.it_value.tv_usec = it.it_interval.tv_usec = 0;
		setitimer(ITIMER_REAL, &it, NULL);
	} else if (!strcmp(mode, "clock")) {
		while (now() < stop_at)
			s += nf_clock(s);
	} else {
		fprintf(stderr, "usage: nofp chain|qsort|deep|thread|signal|clock [SECS]\n");
		return 2;
	}
	sink = s;
	return 0;
}
