// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test workload with known hot functions (perf's "perf test -w" idea).
 *   hot [SECS]            zt_hot_a: 75% of the CPU time, zt_cold_b: 25%
 *   spawn [SECS] CHILD    hot loop; after a third of the time forks and execs
 *                         CHILD (runs and exits mid-recording), then goes on
 *   rounds N              a fixed amount of work (N calls of zt_round), for benchmarks
 *   wait                  spins in zt_hot_a until killed (for -p tests)
 * The split is by iteration count, so it does not depend on timing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void zt_hot_a(void)
{
	volatile unsigned long x = 0; /* on the stack: the leaf keeps its frame */
	unsigned long i;

	for (i = 0; i < 300000; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	sink = x;
}

__attribute__((noinline)) void zt_cold_b(void)
{
	volatile unsigned long x = 0; /* on the stack: the leaf keeps its frame */
	unsigned long i;

	for (i = 0; i < 100000; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	sink = x;
}

__attribute__((noinline)) void zt_round(void)
{
	zt_hot_a();
	zt_cold_b();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run_for(double secs)
{
	double end = now() + secs;

	while (now() < end) {
		int i;

		for (i = 0; i < 20; i++)
			zt_round();
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hot";
	double secs = argc > 2 ? atof(argv[2]) : 2.0;

	if (!strcmp(mode, "hot")) {
		run_for(secs);
	} else if (!strcmp(mode, "spawn") && argc > 3) {
		pid_t pid;

		run_for(secs / 3);
		pid = fork();
		if (pid == 0) {
			char arg[32];

			snprintf(arg, sizeof(arg), "%g", secs / 3);
			execl(argv[3], argv[3], arg, (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		run_for(secs / 3);
	} else if (!strcmp(mode, "clock")) {
		/* time spent in the vDSO's clock_gettime */
		double end = now() + secs;

		while (now() < end)
			;
	} else if (!strcmp(mode, "rounds")) {
		long n = argc > 2 ? atol(argv[2]) : 1000, i;

		for (i = 0; i < n; i++)
			zt_round();
	} else if (!strcmp(mode, "wait")) {
		for (;;)
			zt_hot_a();
	} else if (!strcmp(mode, "exit")) {
		return atoi(argv[2]);
	} else {
		fprintf(stderr, "usage: hot [hot SECS | clock SECS | spawn SECS CHILD | rounds N | wait | exit CODE]\n");
		return 2;
	}
	return 0;
}
