// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of libprof/gpuview.c: timed records in time order, the launch
 * of a kernel (its own, the nested or outer one with a stack, a graph's),
 * PC-sampling buckets summed per key.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libprof/gpuview.h"
#include "tests/unit/fakesrc.h"

static void launch(struct prof_gpu *g, uint32_t pid, uint32_t corr, uint32_t flags, uint32_t outer,
		   uint32_t graph, uint64_t ts, uint32_t stack)
{
	struct prof_gpu_launch l = {.ts = ts,
				    .pid = pid,
				    .tid = pid,
				    .corr = corr,
				    .outer_corr = outer,
				    .flags = flags,
				    .graph_id = graph,
				    .stack = stack};

	assert_int_equal(prof_gpu_add_launch(g, &l), 0);
}

/* a kernel of name id nm in pid, launched by tid at ts (corr), stack or not */
static void klaunch(struct prof_gpu *g, uint32_t nm, uint32_t pid, uint32_t tid, uint32_t corr,
		    uint64_t ts, uint32_t stack)
{
	struct prof_gpu_launch l = {.ts = ts, .pid = pid, .tid = tid, .corr = corr, .stack = stack};
	struct prof_gpu_kernel k = {.start = ts + 5, .end = ts + 9, .pid = pid, .corr = corr,
				    .name = nm};

	assert_int_equal(prof_gpu_add_launch(g, &l), 0);
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
}

/* the stack gpu_view_stack() gives the launch of corr in pid */
static uint32_t shown(const struct gpu_view *v, uint32_t pid, uint32_t corr, int *inf)
{
	return gpu_view_stack(v, gpu_view_launch(v, pid, corr, 0, 0), inf);
}

/* launch stacks are sampled (--gpu-stack-rate): a launch without one shows
 * its kernel's captured launch nearest in time in its thread, else in its
 * process; never another kernel's or another process's */
static void test_sampled_stacks(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	uint32_t a, b;
	struct gpu_view v;
	int inf;

	(void)state;
	assert_int_equal(prof_gpu_intern(g, "gemm", 4, &a), 0);
	assert_int_equal(prof_gpu_intern(g, "relu", 4, &b), 0);
	klaunch(g, a, 1, 10, 1, 100, 7);		   /* captured: thread 10, stack 7 */
	klaunch(g, a, 1, 10, 2, 300, 8);		   /* captured: thread 10, stack 8 */
	klaunch(g, a, 1, 20, 3, 200, 9);		   /* captured: thread 20, stack 9 */
	klaunch(g, a, 1, 10, 4, 140, PROF_GPU_NO_STACK); /* nearest in thread 10: 100 */
	klaunch(g, a, 1, 10, 5, 260, PROF_GPU_NO_STACK); /* nearest in thread 10: 300 */
	klaunch(g, a, 1, 10, 6, 900, PROF_GPU_NO_STACK); /* after all: 300 */
	klaunch(g, a, 1, 30, 7, 190, PROF_GPU_NO_STACK); /* thread 30 has none: the
							    process's nearest, 200 */
	klaunch(g, b, 1, 10, 8, 110, PROF_GPU_NO_STACK); /* relu never captured */
	klaunch(g, a, 2, 10, 9, 120, PROF_GPU_NO_STACK); /* another process */
	assert_int_equal(gpu_view_init(&v, g), 0);
	assert_int_equal(shown(&v, 1, 1, &inf), 7);
	assert_int_equal(inf, 0);
	assert_int_equal(shown(&v, 1, 4, &inf), 7);
	assert_int_equal(inf, 1);
	assert_int_equal(shown(&v, 1, 5, &inf), 8);
	assert_int_equal(shown(&v, 1, 6, &inf), 8);
	assert_int_equal(shown(&v, 1, 7, &inf), 9);
	assert_int_equal(inf, 1);
	assert_int_equal(shown(&v, 1, 8, &inf), PROF_GPU_NO_STACK);
	assert_int_equal(inf, 0);
	assert_int_equal(shown(&v, 2, 9, &inf), PROF_GPU_NO_STACK);
	assert_int_equal(v.nr_captured, 3);
	assert_int_equal(v.nr_inferred, 4);
	gpu_view_release(&v);
	/* every launch with its own stack: nothing made */
	prof_gpu_clear(g);
	assert_int_equal(prof_gpu_intern(g, "gemm", 4, &a), 0);
	klaunch(g, a, 1, 10, 1, 100, 7);
	assert_int_equal(gpu_view_init(&v, g), 0);
	assert_null(v.lstack);
	assert_int_equal(shown(&v, 1, 1, &inf), 7);
	gpu_view_release(&v);
	prof_gpu_free(g);
}

static void test_order(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct prof_gpu_kernel k = {0};
	struct prof_gpu_memop m = {.start = 15};
	struct prof_gpu_overhead o = {.start = 15};
	struct gpu_view v;

	assert_int_equal(prof_gpu_intern(g, "k", 1, &k.name), 0);
	k.start = 30;
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
	k.start = 10;
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
	assert_int_equal(prof_gpu_add_memop(g, &m), 0);
	assert_int_equal(prof_gpu_add_overhead(g, &o), 0);
	assert_int_equal(gpu_view_init(&v, g), 0);
	assert_int_equal(v.nr_ev, 4);
	assert_int_equal(v.ev[0].ts, 10);
	assert_int_equal(v.ev[0].kind, GPU_EV_KERNEL);
	assert_int_equal(v.ev[0].idx, 1);
	assert_int_equal(v.ev[1].kind, GPU_EV_MEMOP); /* at 15: memop before overhead */
	assert_int_equal(v.ev[2].kind, GPU_EV_OVERHEAD);
	assert_int_equal(v.ev[3].ts, 30);
	assert_null(gpu_view_launch(&v, 1, 1, 0, 0)); /* no launches */
	gpu_view_release(&v);
	assert_int_equal(gpu_view_init(&v, NULL), 0);
	assert_int_equal(v.nr_ev, 0);
	gpu_view_release(&v);
	prof_gpu_free(g);
}

static void test_launches(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	const struct prof_gpu_launch *l;
	struct gpu_view v;

	launch(g, 1, 10, PROF_GPU_L_STACK, 0, 0, 100, 5); /* plain, with a stack */
	launch(g, 2, 10, PROF_GPU_L_RATELIMITED, 0, 0, 100, PROF_GPU_NO_STACK); /* other pid */
	launch(g, 1, 20, 0, 0, 0, 200, PROF_GPU_NO_STACK); /* runtime, no stack */
	launch(g, 1, 21, PROF_GPU_L_STACK | PROF_GPU_L_NESTED, 20, 0, 201,
	       6);					  /* its driver launch */
	launch(g, 1, 30, PROF_GPU_L_STACK, 0, 0, 300, 7); /* runtime, stack */
	launch(g, 1, 31, PROF_GPU_L_NESTED, 30, 0, 301, PROF_GPU_NO_STACK);
	launch(g, 1, 40, PROF_GPU_L_GRAPH | PROF_GPU_L_STACK, 0, 9, 400, 8);
	launch(g, 1, 50, PROF_GPU_L_GRAPH | PROF_GPU_L_STACK, 0, 9, 500, 9);
	launch(g, 1, 60, PROF_GPU_L_GRAPH | PROF_GPU_L_STACK, 0, 8, 450, 10);
	/* one launch twice: the library's record (no stack) first, the BPF
	 * sampler's (with the stack) after it, as a loaded recorder writes them */
	launch(g, 1, 70, PROF_GPU_L_STACK | PROF_GPU_L_USDT, 0, 0, 700, PROF_GPU_NO_STACK);
	launch(g, 1, 70, PROF_GPU_L_STACK | PROF_GPU_L_USDT, 0, 0, 700, 11);
	assert_int_equal(gpu_view_init(&v, g), 0);
	assert_int_equal(gpu_view_launch(&v, 1, 70, 0, 0)->stack, 11);
	l = gpu_view_launch(&v, 1, 10, 0, 0);
	assert_non_null(l);
	assert_int_equal(l->stack, 5);
	l = gpu_view_launch(&v, 2, 10, 0, 0);
	assert_non_null(l);
	assert_int_equal(l->flags, PROF_GPU_L_RATELIMITED);
	/* a kernel of the runtime launch: the nested launch's stack */
	l = gpu_view_launch(&v, 1, 20, 0, 0);
	assert_int_equal(l->stack, 6);
	/* a kernel that carries the driver launch's id: its own stack */
	assert_int_equal(gpu_view_launch(&v, 1, 21, 0, 0)->stack, 6);
	/* one that carries the nested id without a stack: the outer one's */
	assert_int_equal(gpu_view_launch(&v, 1, 31, 0, 0)->stack, 7);
	assert_int_equal(gpu_view_launch(&v, 1, 30, 0, 0)->stack, 7);
	assert_null(gpu_view_launch(&v, 1, 99, 0, 0));
	assert_null(gpu_view_launch(&v, 3, 10, 0, 0));
	/* graph kernels: the last launch of the graph at or before them */
	assert_int_equal(gpu_view_launch(&v, 1, 0, 9, 450)->stack, 8);
	assert_int_equal(gpu_view_launch(&v, 1, 0, 9, 500)->stack, 9);
	assert_int_equal(gpu_view_launch(&v, 1, 0, 9, 10000)->stack, 9);
	assert_int_equal(gpu_view_launch(&v, 1, 0, 8, 10000)->stack, 10);
	assert_null(gpu_view_launch(&v, 1, 0, 9, 399));
	assert_null(gpu_view_launch(&v, 1, 0, 7, 10000));
	assert_null(gpu_view_launch(&v, 2, 0, 9, 10000));
	gpu_view_release(&v);
	prof_gpu_free(g);
}

static void test_pcs(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct prof_gpu_pcs s = {.cubin_crc = 7, .pid = 1, .context = 2};
	uint32_t a, b;
	struct gpu_view v;
	int i;

	assert_int_equal(prof_gpu_intern(g, "zeta", 4, &a), 0);
	assert_int_equal(prof_gpu_intern(g, "alpha", 5, &b), 0);
	for (i = 0; i < 12; i++) {
		s.function = i % 2 ? a : b;
		s.pc_offset = (uint64_t)(i % 3) * 16;
		s.stall = (uint32_t)(i % 4 == 0);
		s.samples = 10;
		s.function_index = (uint32_t)i; /* not part of the key */
		assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
	}
	s.samples = UINT64_MAX; /* saturates */
	assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
	assert_int_equal(gpu_view_init(&v, g), 0);
	/* alpha is i even: (pc, stall) (0,1) (32,0) (16,1) (0,0) (32,1) (16,0), 10 each */
	assert_int_equal(v.nr_pcs, 9);
	assert_int_equal(v.pcs[0].function, b); /* by name: alpha first */
	assert_int_equal(v.pcs[0].pc, 0);
	assert_int_equal(v.pcs[0].stall, 0);
	assert_int_equal(v.pcs[1].pc, 0);
	assert_int_equal(v.pcs[1].stall, 1);
	assert_int_equal(v.pcs[1].samples, 10);
	assert_int_equal(v.pcs[0].context, 2);
	/* zeta (32,0): i = 5, 11 and the saturating one */
	assert_int_equal(v.pcs[8].function, a);
	assert_int_equal(v.pcs[8].pc, 32);
	assert_int_equal(v.pcs[8].samples, UINT64_MAX);
	{
		uint64_t total = 0;
		size_t k;

		for (k = 0; k < v.nr_pcs; k++) {
			if (k)
				assert_true(v.pcs[k - 1].function != v.pcs[k].function ||
					    v.pcs[k - 1].pc < v.pcs[k].pc ||
					    (v.pcs[k - 1].pc == v.pcs[k].pc &&
					     v.pcs[k - 1].stall < v.pcs[k].stall));
			if (v.pcs[k].samples != UINT64_MAX)
				total += v.pcs[k].samples;
		}
		assert_int_equal(total, 120 - 20); /* the saturated one aside */
	}
	gpu_view_release(&v);
	prof_gpu_free(g);
}

/* PC samples shared by GPU time: whole samples adding up, largest remainders first */
static void test_share(void **state)
{
	uint64_t part[4];

	(void)state;
	{
		const uint64_t w[3] = {1, 1, 2}; /* 10 * (1/4, 1/4, 1/2) = 2.5, 2.5, 5 */

		assert_int_equal(gpu_share(10, w, 3, part), 0);
		assert_int_equal(part[0], 3); /* equal remainders: the first */
		assert_int_equal(part[1], 2);
		assert_int_equal(part[2], 5);
	}
	{
		const uint64_t w[3] = {700, 200, 100}; /* 7 * (.7, .2, .1) = 4.9, 1.4, 0.7 */

		assert_int_equal(gpu_share(7, w, 3, part), 0);
		assert_int_equal(part[0], 5);
		assert_int_equal(part[1], 1);
		assert_int_equal(part[2], 1);
	}
	{
		const uint64_t w[4] = {0, 0, 0, 0}; /* no time: evenly */

		assert_int_equal(gpu_share(6, w, 4, part), 0);
		assert_int_equal(part[0] + part[1] + part[2] + part[3], 6);
		assert_int_equal(part[0], 2);
		assert_int_equal(part[3], 1);
	}
	{
		const uint64_t w[2] = {UINT64_MAX, UINT64_MAX}; /* no overflow */

		assert_int_equal(gpu_share(UINT64_MAX, w, 2, part), 0);
		assert_true(part[0] + part[1] == UINT64_MAX);
		assert_true(part[0] == part[1] + 1);
	}
}

/* gpu_select(): the records of the processes and threads that launched
 * them, in the time ranges; continuous PC samples scaled to the share of
 * their kernel's time kept. */
struct selfx {
	struct profile p;
	struct proctree *pt;
	struct prof_gpu *g;
};

static void sel_kernel(struct prof_gpu *g, uint32_t pid, uint32_t corr, const char *name,
		       uint64_t start, uint64_t end)
{
	struct prof_gpu_kernel k = {.pid = pid, .corr = corr, .start = start, .end = end};

	assert_int_equal(prof_gpu_intern(g, name, strlen(name), &k.name), 0);
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
}

static void sel_pcs(struct prof_gpu *g, uint32_t pid, uint32_t corr, const char *fn, uint64_t n)
{
	struct prof_gpu_pcs s = {.pid = pid, .corr = corr, .samples = n, .pc_offset = n};

	assert_int_equal(prof_gpu_intern(g, fn, strlen(fn), &s.function), 0);
	assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
}

/*
 * pid 1: thread 1 "app" launches ka (corr 1, 1000-2000 ns), thread 2
 * "worker" launches ka (corr 2, 3000-6000) and a copy (corr 2, 1500-1600);
 * kc (corr 99, 4000-4100) has no launch recorded. pid 2: thread 20
 * "other" launches kb (corr 3, 2500-2600). PC samples: 10 of corr 1; 40
 * of ka, 5 of kb and 7 of zz (no kernel) in continuous mode. An overhead
 * of pid 1 at 500-600.
 */
static void selfx_init(struct selfx *x)
{
	struct prof_gpu_launch l = {.flags = PROF_GPU_L_STACK, .stack = PROF_GPU_NO_STACK};
	struct prof_gpu_memop m = {.pid = 1, .corr = 2, .start = 1500, .end = 1600};
	struct prof_gpu_overhead o = {.pid = 1, .start = 500, .end = 600};

	profile_init(&x->p);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 1, 1, "app"), 0);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 1, 2, "worker"), 0);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 2, 20, "other"), 0);
	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	x->g = prof_gpu_new();
	assert_non_null(x->g);
	l.pid = 1, l.tid = 1, l.corr = 1, l.ts = 100;
	assert_int_equal(prof_gpu_add_launch(x->g, &l), 0);
	l.pid = 1, l.tid = 2, l.corr = 2, l.ts = 200;
	assert_int_equal(prof_gpu_add_launch(x->g, &l), 0);
	l.pid = 2, l.tid = 20, l.corr = 3, l.ts = 300;
	assert_int_equal(prof_gpu_add_launch(x->g, &l), 0);
	sel_kernel(x->g, 1, 1, "ka", 1000, 2000);
	sel_kernel(x->g, 1, 2, "ka", 3000, 6000);
	sel_kernel(x->g, 2, 3, "kb", 2500, 2600);
	sel_kernel(x->g, 1, 99, "kc", 4000, 4100);
	assert_int_equal(prof_gpu_add_memop(x->g, &m), 0);
	sel_pcs(x->g, 1, 1, "ka", 10);
	sel_pcs(x->g, 1, 0, "ka", 40);
	sel_pcs(x->g, 2, 0, "kb", 5);
	sel_pcs(x->g, 1, 0, "zz", 7);
	assert_int_equal(prof_gpu_add_overhead(x->g, &o), 0);
}

static void selfx_release(struct selfx *x)
{
	prof_gpu_free(x->g);
	proctree_free(x->pt);
	profile_release(&x->p);
}

/* The records left, as text: kernels by corr, memops, PC samples, overheads. */
static const char *left(const struct prof_gpu *g)
{
	static char buf[256];
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < g->nr_kernels; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "k%u ", g->kernels[i].corr);
	for (i = 0; i < g->nr_memops; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "m%u ", g->memops[i].corr);
	for (i = 0; i < g->nr_pcs; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s:%llu ",
				      prof_gpu_str(g, g->pcs[i].function),
				      (unsigned long long)g->pcs[i].samples);
	for (i = 0; i < g->nr_overheads; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "o ");
	return buf;
}

static void test_select(void **state)
{
	static const struct {
		const char *kind, *arg, *want;
	} cases[] = {
		{"cpu", "0", "k1 k2 k3 k99 m2 ka:10 ka:40 kb:5 zz:7 o "},
		{"tid", "2", "k2 m2 ka:30 "},
		{"comm", "worker", "k2 m2 ka:30 "},
		{"comm", "app,other", "k1 k3 ka:10 ka:10 kb:5 "},
		{"pid", "2", "k3 kb:5 "},
		{"pid", "1", "k1 k2 k99 m2 ka:10 ka:40 zz:7 o "},
		{"time", "0.000002500,0.000002550", "k3 kb:5 zz:7 "},
		{"time", "0.000001550,0.000003000", "k1 k2 k3 m2 ka:10 ka:40 kb:5 zz:7 "},
		{"time", "0.000000550,0.000000700 0.000005000,", "k2 ka:30 zz:7 o "},
		/* percents of the span given: 0..10000 */
		{"time", "0%-10%", "zz:7 o "},
	};
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct selfx x;
		struct rfilter f;
		int ret = 0;

		selfx_init(&x);
		rfilter_init(&f);
		if (!strcmp(cases[i].kind, "cpu"))
			ret = rfilter_add_cpus(&f, cases[i].arg, err, sizeof(err));
		else if (!strcmp(cases[i].kind, "tid"))
			ret = rfilter_add_ids(&f.tids, &f.nr_tids, cases[i].arg, err, sizeof(err));
		else if (!strcmp(cases[i].kind, "pid"))
			ret = rfilter_add_ids(&f.pids, &f.nr_pids, cases[i].arg, err, sizeof(err));
		else if (!strcmp(cases[i].kind, "comm"))
			ret = rfilter_add_strs(&f.comms, &f.nr_comms, cases[i].arg, err,
					       sizeof(err));
		else
			ret = rfilter_set_time(&f, cases[i].arg, err, sizeof(err));
		assert_int_equal(ret, 0);
		assert_int_equal(gpu_select_active(&f), strcmp(cases[i].kind, "cpu") != 0);
		assert_int_equal(gpu_select(x.g, &f, x.pt, 0, 10000), 0);
		if (strcmp(left(x.g), cases[i].want))
			fail_msg("--%s %s: left '%s', want '%s'", cases[i].kind, cases[i].arg,
				 left(x.g), cases[i].want);
		rfilter_release(&f);
		selfx_release(&x);
	}
	/* a range to 100% goes on past the span of the samples (0..2000 here) */
	{
		struct selfx x;
		struct rfilter f;

		selfx_init(&x);
		rfilter_init(&f);
		assert_int_equal(rfilter_set_time(&f, "50%-100%", err, sizeof(err)), 0);
		assert_int_equal(gpu_select(x.g, &f, x.pt, 0, 2000), 0);
		assert_string_equal(left(x.g), "k1 k2 k3 k99 m2 ka:10 ka:40 kb:5 zz:7 ");
		rfilter_release(&f);
		selfx_release(&x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),  cmocka_unit_test(test_launches),
		cmocka_unit_test(test_pcs),    cmocka_unit_test(test_share),
		cmocka_unit_test(test_select), cmocka_unit_test(test_sampled_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
