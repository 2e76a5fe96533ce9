// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test workload with a known call tree, an inlined function and two threads
 * (for zt report's call chains, sort keys and filters).
 *   tree [SECS [EARLY]]
 *                 the main thread and a thread named "tree-worker" each run
 *                 rounds for SECS seconds (default 2); with EARLY, the thread
 *                 first runs rounds for EARLY seconds under its creator's name
 * A round: tree_a calls leaf_x twice and leaf_y once; tree_b calls leaf_x
 * once; tree_c runs inl_mix (always inlined) for two units. By work units:
 * leaf_x 3/6, leaf_y 1/6, tree_c (inl_mix) 2/6 of the CPU time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define UNIT 100000ul

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void leaf_x(void)
{
	volatile unsigned long x = 0; /* on the stack: the leaf keeps its frame */
	unsigned long i;

	for (i = 0; i < UNIT; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	sink = x;
}

__attribute__((noinline)) void leaf_y(void)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < UNIT; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	sink = x;
}

static inline __attribute__((always_inline)) void inl_mix(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	sink = x;
}

__attribute__((noinline)) void tree_a(void)
{
	leaf_x();
	leaf_y();
	leaf_x();
}

__attribute__((noinline)) void tree_b(void)
{
	leaf_x();
}

__attribute__((noinline)) void tree_c(void)
{
	inl_mix(2 * UNIT);
}

__attribute__((noinline)) void tree_round(void)
{
	tree_a();
	tree_b();
	tree_c();
}

__attribute__((noinline)) void run_rounds(double secs)
{
	double end = now() + secs;

	while (now() < end) {
		int i;

		for (i = 0; i < 10; i++)
			tree_round();
	}
}

static double g_secs, g_early;

static void *worker(void *arg)
{
	(void)arg;
	if (g_early > 0)
		run_rounds(g_early);
	pthread_setname_np(pthread_self(), "tree-worker");
	run_rounds(g_secs);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	g_secs = argc > 1 ? atof(argv[1]) : 2.0;
	g_early = argc > 2 ? atof(argv[2]) : 0;
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "tree: cannot start a thread\n");
		return 1;
	}
	run_rounds(g_secs);
	pthread_join(t, NULL);
	return 0;
}
