/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proctree: exec generations, fork inheritance, threads, the clock-skew
 * rule, thread names over time, and random mappings against brute force.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/proctree.h"

static void add_map(struct profile *p, uint32_t pid, uint64_t ts, uint64_t start, uint64_t len,
		    const char *path)
{
	struct prof_mmap m = { .ts = ts, .pid = pid, .tid = pid, .start = start, .len = len,
			       .prot = 5, .path = (char *)path };

	assert_int_equal(profile_add_mmap(p, &m), 0);
}

static void add_task(struct profile *p, uint32_t kind, uint64_t ts, uint32_t pid, uint32_t tid,
		     uint32_t ppid, uint32_t ptid, const char *comm)
{
	struct prof_task t = { .ts = ts, .kind = kind, .pid = pid, .tid = tid, .ppid = ppid,
			       .ptid = ptid };

	if (comm)
		snprintf(t.comm, sizeof(t.comm), "%s", comm);
	assert_int_equal(profile_add_task(p, &t), 0);
}

/* Path of the mapping found, or "-" for none. */
static const char *map_at(const struct proctree *pt, uint32_t pid, uint64_t ts, uint64_t addr)
{
	const struct prof_mmap *m = proctree_map(pt, pid, ts, addr);

	return m ? m->path : "-";
}

static void test_exec_generations(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	add_map(&p, 100, 10, 0x1000, 0x1000, "/old");
	add_map(&p, 100, 10, 0x5000, 0x1000, "/oldlib");
	add_task(&p, PROF_TASK_EXEC, 50, 100, 100, 0, 0, "new");
	add_map(&p, 100, 60, 0x1000, 0x2000, "/new");
	assert_int_equal(proctree_new(&p, &pt), 0);

	assert_string_equal(map_at(pt, 100, 20, 0x1500), "/old");
	assert_string_equal(map_at(pt, 100, 20, 0x5fff), "/oldlib");
	assert_string_equal(map_at(pt, 100, 20, 0x2500), "-");
	assert_string_equal(map_at(pt, 100, 20, 0x6000), "-");
	/* after the exec the old space is gone, even before the new MMAP (skew) */
	assert_string_equal(map_at(pt, 100, 55, 0x1500), "/new");
	assert_string_equal(map_at(pt, 100, 70, 0x1500), "/new");
	assert_string_equal(map_at(pt, 100, 70, 0x2500), "/new");
	assert_string_equal(map_at(pt, 100, 70, 0x5000), "-");
	assert_string_equal(map_at(pt, 100, 50, 0x5000), "-");
	assert_string_equal(map_at(pt, 101, 70, 0x1500), "-");
	assert_ptr_equal(proctree_map(pt, 100, 70, 0x1500), &p.mmaps[2]);
	proctree_free(pt);
	profile_release(&p);
}

static void test_latest_and_skew(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	add_map(&p, 200, 30, 0x1000, 0x1000, "/y");
	add_map(&p, 200, 10, 0x1000, 0x1000, "/x");
	add_map(&p, 200, 35, 0x1800, 0x1000, "/z");
	assert_int_equal(proctree_new(&p, &pt), 0);

	assert_string_equal(map_at(pt, 200, 5, 0x1100), "/x");   /* none yet: the earliest */
	assert_string_equal(map_at(pt, 200, 10, 0x1100), "/x");
	assert_string_equal(map_at(pt, 200, 29, 0x1100), "/x");
	assert_string_equal(map_at(pt, 200, 30, 0x1100), "/y");
	assert_string_equal(map_at(pt, 200, 40, 0x1100), "/y");
	assert_string_equal(map_at(pt, 200, 40, 0x1900), "/z");
	assert_string_equal(map_at(pt, 200, 32, 0x1900), "/y");
	assert_string_equal(map_at(pt, 200, 32, 0x2700), "/z"); /* skew: the only one */
	assert_string_equal(map_at(pt, 200, 40, 0x2800), "-");
	assert_string_equal(map_at(pt, 200, 40, 0xfff), "-");
	proctree_free(pt);
	profile_release(&p);
}

static void test_fork_and_threads(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	add_task(&p, PROF_TASK_COMM, 1, 300, 300, 0, 0, "parent");
	add_map(&p, 300, 10, 0x1000, 0x1000, "/p");
	add_task(&p, PROF_TASK_FORK, 50, 301, 301, 300, 300, NULL);
	add_task(&p, PROF_TASK_FORK, 60, 300, 305, 300, 300, NULL); /* a thread */
	add_map(&p, 301, 60, 0x5000, 0x1000, "/c");
	add_task(&p, PROF_TASK_FORK, 80, 302, 302, 301, 301, NULL);
	add_map(&p, 300, 100, 0x3000, 0x1000, "/p2");
	add_task(&p, PROF_TASK_EXEC, 200, 301, 301, 0, 0, "child");
	add_map(&p, 301, 210, 0x7000, 0x1000, "/c2");
	assert_int_equal(proctree_new(&p, &pt), 0);

	/* the child sees the parent's space as of the fork */
	assert_string_equal(map_at(pt, 301, 70, 0x1500), "/p");
	assert_string_equal(map_at(pt, 301, 70, 0x5500), "/c");
	assert_string_equal(map_at(pt, 301, 150, 0x3500), "-"); /* parent mapped it later */
	assert_string_equal(map_at(pt, 300, 150, 0x3500), "/p2");
	/* a grandchild: through both */
	assert_string_equal(map_at(pt, 302, 90, 0x1500), "/p");
	assert_string_equal(map_at(pt, 302, 90, 0x5500), "/c");
	/* after its exec the child inherits nothing */
	assert_string_equal(map_at(pt, 301, 220, 0x1500), "-");
	assert_string_equal(map_at(pt, 301, 220, 0x7500), "/c2");
	assert_string_equal(map_at(pt, 301, 220, 0x5500), "-");
	/* the thread did not start a new space */
	assert_string_equal(map_at(pt, 300, 70, 0x1500), "/p");

	/* names: inherited at creation until the exec */
	assert_string_equal(proctree_comm(pt, 301, 301, 70), "parent");
	assert_string_equal(proctree_comm(pt, 302, 302, 90), "parent");
	assert_string_equal(proctree_comm(pt, 301, 301, 200), "child");
	assert_string_equal(proctree_comm(pt, 300, 305, 70), "parent");
	proctree_free(pt);
	profile_release(&p);
}

static void test_comm(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	add_task(&p, PROF_TASK_COMM, 10, 500, 500, 0, 0, "a");
	add_task(&p, PROF_TASK_COMM, 50, 500, 500, 0, 0, "b");
	add_task(&p, PROF_TASK_FORK, 20, 500, 502, 500, 500, NULL);
	add_task(&p, PROF_TASK_COMM, 70, 500, 502, 0, 0, "worker");
	add_task(&p, PROF_TASK_COMM, 40, 600, 601, 0, 0, "t601");
	add_task(&p, PROF_TASK_EXEC, 90, 500, 500, 0, 0, "new");
	assert_int_equal(proctree_new(&p, &pt), 0);

	assert_string_equal(proctree_comm(pt, 500, 500, 5), "a"); /* earliest after */
	assert_string_equal(proctree_comm(pt, 500, 500, 10), "a");
	assert_string_equal(proctree_comm(pt, 500, 500, 49), "a");
	assert_string_equal(proctree_comm(pt, 500, 500, 60), "b");
	assert_string_equal(proctree_comm(pt, 500, 500, 95), "new");
	/* a thread without events: the process's name at the time */
	assert_string_equal(proctree_comm(pt, 500, 501, 60), "b");
	assert_string_equal(proctree_comm(pt, 500, 501, 5), "a");
	/* a thread: its creator's name at creation, then its own */
	assert_string_equal(proctree_comm(pt, 500, 502, 60), "a");
	assert_string_equal(proctree_comm(pt, 500, 502, 80), "worker");
	assert_string_equal(proctree_comm(pt, 500, 502, 15), "a");
	/* only a non-main thread named: used for the pid too */
	assert_string_equal(proctree_comm(pt, 600, 600, 50), "t601");
	assert_string_equal(proctree_comm(pt, 600, 601, 5), "t601");
	assert_null(proctree_comm(pt, 700, 700, 5));
	proctree_free(pt);
	profile_release(&p);
}

static void test_start_and_kernel(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	assert_int_equal(profile_set_meta(&p, "time_start", "1000"), 0);
	/* synthesized at start: a process with a FORK, mappings, all at 1000 */
	add_task(&p, PROF_TASK_FORK, 1000, 400, 400, 1, 1, NULL);
	add_map(&p, 400, 1000, 0x1000, 0x1000, "/s");
	add_map(&p, 400, 1500, 0x1000, 0x1000, "/t");
	add_map(&p, ZT_PID_KERNEL, 1000, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text");
	assert_int_equal(proctree_new(&p, &pt), 0);

	assert_string_equal(map_at(pt, 400, 900, 0x1500), "/s");
	assert_string_equal(map_at(pt, 400, 1200, 0x1500), "/s");
	assert_string_equal(map_at(pt, 400, 1600, 0x1500), "/t");
	assert_string_equal(map_at(pt, ZT_PID_KERNEL, 900, 0xffffffff81234567ull),
			    "[kernel.kallsyms]_text");
	assert_string_equal(map_at(pt, ZT_PID_KERNEL, 900, 0xffffffff80000000ull), "-");

	/* epochs change with what a lookup can see */
	assert_int_equal(proctree_epoch(pt, 400, 1200), proctree_epoch(pt, 400, 1400));
	assert_int_not_equal(proctree_epoch(pt, 400, 1400), proctree_epoch(pt, 400, 1500));
	proctree_free(pt);
	profile_release(&p);
}

/* Events before the first sample, stored out of time order (perf.data
 * writes them per ring buffer): a new thread's COMM before its FORK, a
 * later mapping over an earlier one. Their own times order them. */
static void test_before_start_order(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	assert_int_equal(profile_set_meta(&p, "time_start", "1000"), 0);
	add_task(&p, PROF_TASK_COMM, 900, 300, 300, 0, 0, "main");
	add_task(&p, PROF_TASK_COMM, 960, 300, 302, 0, 0, "worker");
	add_task(&p, PROF_TASK_FORK, 950, 300, 302, 300, 300, NULL);
	add_map(&p, 300, 980, 0x1000, 0x1000, "/new");
	add_map(&p, 300, 970, 0x1000, 0x1000, "/old");
	assert_int_equal(proctree_new(&p, &pt), 0);

	assert_string_equal(proctree_comm(pt, 300, 302, 1500), "worker");
	assert_string_equal(proctree_comm(pt, 300, 300, 1500), "main");
	assert_string_equal(map_at(pt, 300, 1500, 0x1800), "/new");
	proctree_free(pt);
	profile_release(&p);
}

static void test_empty(void **state)
{
	struct profile p;
	struct proctree *pt;

	profile_init(&p);
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_null(proctree_map(pt, 1, 1, 1));
	assert_null(proctree_comm(pt, 1, 1, 1));
	assert_int_equal(proctree_epoch(pt, 1, 1), 0);
	proctree_free(pt);
	proctree_free(NULL);
	profile_release(&p);
}

/* The rules spelled out by brute force, for one process with execs. */
static const struct prof_mmap *brute(const struct profile *p, uint32_t pid, uint64_t ts,
				     uint64_t addr)
{
	const struct prof_mmap *best = NULL, *earliest = NULL;
	uint64_t gen = 0, next = UINT64_MAX;
	size_t i;

	for (i = 0; i < p->nr_tasks; i++) {
		const struct prof_task *t = &p->tasks[i];

		if (t->kind != PROF_TASK_EXEC || t->pid != pid)
			continue;
		if (t->ts <= ts && t->ts > gen)
			gen = t->ts;
		if (t->ts > ts && t->ts < next)
			next = t->ts;
	}
	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[i];

		if (m->pid != pid || m->ts < gen || m->ts >= next || addr < m->start ||
		    addr - m->start >= m->len)
			continue;
		if (m->ts <= ts && (!best || m->ts >= best->ts))
			best = m;
		if (!earliest || m->ts < earliest->ts)
			earliest = m;
	}
	return best ? best : earliest;
}

static void test_random_vs_brute(void **state)
{
	struct profile p;
	struct proctree *pt;
	unsigned seed = 12345, i, found = 0, skewed = 0;

	profile_init(&p);
	for (i = 0; i < 3; i++)
		add_task(&p, PROF_TASK_EXEC, 2500 + i * 2500 + (rand_r(&seed) % 100) * 2 + 1, 7, 7,
			 0, 0, "x");
	for (i = 0; i < 2000; i++) {
		char path[32];
		uint64_t start = (uint64_t)(rand_r(&seed) % 3000) * 0x100;
		uint64_t len = (uint64_t)(rand_r(&seed) % 16 + 1) * 0x100;

		snprintf(path, sizeof(path), "/m%u", i);
		/* even times: distinct from the execs, and unique so brute force is unambiguous */
		add_map(&p, 7, (uint64_t)i * 6 + 2, start, len, path);
	}
	assert_int_equal(proctree_new(&p, &pt), 0);
	for (i = 0; i < 20000; i++) {
		uint64_t ts = rand_r(&seed) % 13000;
		uint64_t addr = rand_r(&seed) % (3100 * 0x100);
		const struct prof_mmap *a = proctree_map(pt, 7, ts, addr), *b = brute(&p, 7, ts, addr);

		if (a != b)
			fail_msg("ts %llu addr 0x%llx: got %s, want %s", (unsigned long long)ts,
				 (unsigned long long)addr, a ? a->path : "-", b ? b->path : "-");
		found += a != NULL;
		skewed += a && a->ts > ts;
	}
	/* the test covers hits, misses and the skew rule */
	assert_true(found > 1000 && found < 19000);
	assert_true(skewed > 10);
	proctree_free(pt);
	profile_release(&p);
}

/* Mappings that nest (a growing region reported whole at every mmap, as
 * the kernel reports a merged anonymous VMA) and share times: the same
 * answers as brute force, and 30,000 of them build in linear-log space. */
static void test_nested_vs_brute(void **state)
{
	struct profile p;
	struct proctree *pt;
	unsigned seed = 777, i, found = 0;

	profile_init(&p);
	for (i = 0; i < 3000; i++) {
		char path[32];
		uint64_t top = 0x7f0000000000ull;

		snprintf(path, sizeof(path), "/n%u", i % 7);
		if (i % 3) /* growing down from top, by one page a time */
			add_map(&p, 9, (uint64_t)(i / 4) * 2, top - (uint64_t)(i + 1) * 0x1000,
				(uint64_t)(i + 1) * 0x1000, path);
		else /* a small one inside, now and then */
			add_map(&p, 9, (uint64_t)(i / 4) * 2,
				top - (uint64_t)(rand_r(&seed) % 3000 + 1) * 0x1000, 0x2000, path);
	}
	assert_int_equal(proctree_new(&p, &pt), 0);
	for (i = 0; i < 20000; i++) {
		uint64_t ts = rand_r(&seed) % 1600;
		uint64_t addr = 0x7f0000000000ull - (uint64_t)(rand_r(&seed) % 3100) * 0x1000 - 8;
		const struct prof_mmap *a = proctree_map(pt, 9, ts, addr), *b = brute(&p, 9, ts, addr);

		if (a != b)
			fail_msg("ts %llu addr 0x%llx: got %p, want %p", (unsigned long long)ts,
				 (unsigned long long)addr, (const void *)a, (const void *)b);
		found += a != NULL;
	}
	assert_true(found > 15000);
	proctree_free(pt);
	profile_release(&p);

	profile_init(&p);
	for (i = 0; i < 30000; i++)
		add_map(&p, 9, i, 0x7f0000000000ull - (uint64_t)(i + 1) * 0x1000,
			(uint64_t)(i + 1) * 0x1000, "//anon");
	assert_int_equal(proctree_new(&p, &pt), 0);
	assert_ptr_equal(proctree_map(pt, 9, 29999, 0x7f0000000000ull - 8), &p.mmaps[29999]);
	assert_ptr_equal(proctree_map(pt, 9, 100, 0x7f0000000000ull - 8), &p.mmaps[100]);
	/* mapped only later (clock skew): the earliest that covers it */
	assert_ptr_equal(proctree_map(pt, 9, 5, 0x7f0000000000ull - 0x10000 + 8), &p.mmaps[15]);
	proctree_free(pt);
	profile_release(&p);
}

/* proctree_thread_at: its answers are proctree_comm's and proctree_epoch's,
 * and they hold at every time of the span it gives. */
static void test_thread_spans(void **state)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	struct profile p;
	struct proctree *pt;
	unsigned i;

	(void)state;
	srand(7);
	profile_init(&p);
	for (i = 0; i < 60; i++) {
		uint32_t pid = 100 + (uint32_t)(rand() % 3), tid = pid + (uint32_t)(rand() % 2) * 1000;
		uint64_t ts = (uint64_t)(rand() % 1000);

		switch (rand() % 4) {
		case 0:
			add_task(&p, PROF_TASK_COMM, ts, pid, tid, 0, 0, names[rand() % 4]);
			break;
		case 1:
			add_task(&p, PROF_TASK_EXEC, ts, pid, pid, 0, 0, names[rand() % 4]);
			break;
		case 2:
			add_task(&p, PROF_TASK_FORK, ts, pid, tid, 1, 1, NULL);
			break;
		default:
			add_map(&p, pid, ts, 0x1000u * (unsigned)(rand() % 8 + 1), 0x800, "/m");
		}
	}
	assert_int_equal(proctree_new(&p, &pt), 0);
	for (i = 0; i < 400; i++) {
		uint32_t pid = 100 + (uint32_t)(rand() % 3), tid = pid + (uint32_t)(rand() % 2) * 1000;
		uint64_t ts = (uint64_t)(rand() % 1100), from, until, epoch, t;
		const char *comm;

		proctree_thread_at(pt, pid, tid, ts, &comm, &epoch, &from, &until);
		assert_true(from <= ts && ts < until);
		assert_ptr_equal(comm, proctree_comm(pt, pid, tid, ts));
		assert_int_equal(epoch, proctree_epoch(pt, pid, ts));
		for (t = from; t < until && t < 1100; t++) {
			assert_ptr_equal(comm, proctree_comm(pt, pid, tid, t));
			assert_int_equal(epoch, proctree_epoch(pt, pid, t));
		}
	}
	proctree_free(pt);
	profile_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_generations),
		cmocka_unit_test(test_latest_and_skew),
		cmocka_unit_test(test_fork_and_threads),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_start_and_kernel),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_random_vs_brute),
		cmocka_unit_test(test_nested_vs_brute),
		cmocka_unit_test(test_thread_spans),
		cmocka_unit_test(test_before_start_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
