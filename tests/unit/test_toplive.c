/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * toplive: the interval's samples into a histogram, perf top's decay by
 * 7/8 a refresh, zeroing, call chains, the source following the growing
 * profile, sort keys, live_trim, and forgetting processes that exited.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/toplive.h"
#include "tests/unit/fakesrc.h"

/* Pids no process can have (past the kernel's largest pid_max): the
 * model's look for /tmp/perf-PID.map finds nothing. */
#define P  5000010u
#define Q  5000020u
#define T0 10000ull /* when sampling starts */

struct fx {
	struct live l;
	struct fakesrc src;
	struct rstacks_live lv; /* the model's stacks, over src */
	char text[4096];
};

static void task(struct fx *x, uint32_t kind, uint64_t ts, uint32_t pid, uint32_t tid,
		 const char *comm)
{
	struct prof_task t = {.ts = ts, .kind = kind, .pid = pid, .tid = tid};

	if (comm)
		snprintf(t.comm, sizeof(t.comm), "%s", comm);
	assert_int_equal(live_task(&x->l, &t), 0);
}

static void mmap_(struct fx *x, uint32_t pid, uint64_t ts, uint64_t start, uint64_t pgoff)
{
	struct prof_mmap m = {.ts = ts,
			      .pid = pid,
			      .tid = pid,
			      .start = start,
			      .len = 0x10000,
			      .pgoff = pgoff,
			      .prot = 5,
			      .path = "/bin/prog"};

	assert_int_equal(live_mmap(&x->l, &m), 0);
}

/* A model over the fake source: P is "prog" with /bin/prog at 0x400000. */
static void fx_init(struct fx *x, const struct live_opts *o)
{
	struct live_opts lo = *o;

	memset(x, 0, sizeof(*x));
	fakesrc_init(&x->src);
	{
		struct frametab_source fs = fakesrc_source(&x->src, 1);

		rstacks_live_init(&x->lv, &fs);
	}
	lo.stacks = &x->lv;
	assert_int_equal(live_init(&x->l, &lo, T0), 0);
	task(x, PROF_TASK_COMM, 1, P, P, "prog");
	mmap_(x, P, 1, 0x400000, 0);
}

static void fx_release(struct fx *x)
{
	live_release(&x->l);
	rstacks_live_release(&x->lv);
	assert_int_equal(x->src.follow_nulls, 1); /* the source forgets its profile */
}

static void sample(struct fx *x, uint64_t ts, uint64_t w, uint32_t pid, const uint64_t *ips,
		   unsigned nk, unsigned nu)
{
	assert_int_equal(live_sample(&x->l, ts, w, pid, pid, 0, ips, nk, nu), 0);
}

/* Refresh and sort: the rows as fake_rows_text(). */
static const char *refresh(struct fx *x, int zero, uint64_t now)
{
	const struct hist_entry **rows;
	size_t n;

	assert_int_equal(live_refresh(&x->l, zero, now), 0);
	assert_int_equal(hist_sort(&x->l.hist, x->l.o.callchain, 0, &rows, &n), 0);
	return fake_rows_text(&x->l.hist, rows, n, x->text, sizeof(x->text));
}

/* 16 samples of f1 (10 each, f1 called by main), one of f2 (5) and one
 * in the kernel (3, on main's behalf). */
static void fx_interval(struct fx *x, uint64_t ts)
{
	static const uint64_t a[] = {0x401000, 0x403000}, b[] = {0x402000},
			      k[] = {FAKE_KADDR, 0x403000};
	unsigned i;

	for (i = 0; i < 16; i++)
		sample(x, ts + i, 10, P, a, 0, 2);
	sample(x, ts + 16, 5, P, b, 0, 1);
	sample(x, ts + 17, 3, P, k, 1, 1);
}

static void test_refresh(void **state)
{
	struct live_opts o = {0};
	struct fx x;

	(void)state;
	fx_init(&x, &o);
	assert_string_equal(refresh(&x, 0, T0 + 1000), ""); /* nothing yet */
	assert_int_equal(x.src.follows, 0);
	fx_interval(&x, T0 + 1000);
	/* perf top's columns; without call graphs the sampled address only */
	assert_string_equal(refresh(&x, 0, T0 + 2000), "a.so [.] f1: 160/16 160/16\n"
						       "a.so [.] f2: 5/1 5/1\n"
						       "[kernel.kallsyms] [k] kfunc: 3/1 3/1\n");
	assert_int_equal(x.l.hist.total, 168);
	assert_int_equal(x.l.last.samples, 18);
	assert_int_equal(x.l.last.kernel, 1);
	assert_int_equal(x.l.last.weight, 168);
	assert_int_equal(x.l.samples_total, 18);
	assert_int_equal(x.src.resolves, 3);
	assert_int_equal(x.src.follows, 1);
	assert_int_equal(x.src.last_pid, P);
	/* the same addresses again: resolved already, and the weights add */
	fx_interval(&x, T0 + 2000);
	/* (f2's and the kernel's single samples decayed to nothing first) */
	assert_string_equal(refresh(&x, 0, T0 + 3000), "a.so [.] f1: 300/30 300/30\n"
						       "a.so [.] f2: 5/1 5/1\n"
						       "[kernel.kallsyms] [k] kfunc: 3/1 3/1\n");
	assert_int_equal(x.l.last.samples, 18);
	assert_int_equal(x.l.samples_total, 36);
	assert_int_equal(x.src.resolves, 3);
	assert_int_equal(x.src.follows, 1);
	fx_release(&x);
}

static void test_decay(void **state)
{
	static const uint64_t a[] = {0x401000};
	struct live_opts o = {0};
	uint64_t w = 160, nr = 16, now = T0;
	char want[128];
	unsigned refreshes = 0;
	struct fx x;

	(void)state;
	fx_init(&x, &o);
	fx_interval(&x, T0);
	refresh(&x, 0, now += 1000);
	/* no new samples: f1 keeps 7/8 (its weight loses an eighth, rounded
	 * down; its samples are 7/8 of them, rounded down); f2's and the
	 * kernel's single samples decay to nothing: they go */
	assert_string_equal(refresh(&x, 0, now += 1000), "a.so [.] f1: 140/14 140/14\n");
	assert_int_equal(x.l.hist.total, 140);
	assert_string_equal(refresh(&x, 0, now += 1000), "a.so [.] f1: 123/12 123/12\n");
	w = 123;
	nr = 12;
	refreshes = 2;
	for (;;) {
		w -= w / 8;
		nr = nr * 7 / 8;
		refresh(&x, 0, now += 1000);
		refreshes++;
		if (!nr)
			break;
		snprintf(want, sizeof(want), "a.so [.] f1: %llu/%llu %llu/%llu\n",
			 (unsigned long long)w, (unsigned long long)nr, (unsigned long long)w,
			 (unsigned long long)nr);
		assert_string_equal(x.text, want);
	}
	/* 16 14 12 10 8 7 6 5 4 3 2 1 0 */
	assert_int_equal(refreshes, 12);
	assert_string_equal(x.text, "");
	assert_int_equal(x.l.hist.nr_entries, 0);
	assert_int_equal(x.l.hist.total, 0);

	/* decayed weight and new samples add up */
	sample(&x, now, 80, P, a, 0, 1);
	sample(&x, now, 80, P, a, 0, 1);
	refresh(&x, 0, now += 1000);
	sample(&x, now, 10, P, a, 0, 1);
	assert_string_equal(refresh(&x, 0, now += 1000), "a.so [.] f1: 150/2 150/2\n");
	assert_int_equal(x.src.resolves, 3); /* decay never resolves again */
	fx_release(&x);
}

static void test_zero(void **state)
{
	static const uint64_t b[] = {0x402000};
	struct live_opts o = {0};
	struct fx x;

	(void)state;
	fx_init(&x, &o);
	fx_interval(&x, T0);
	refresh(&x, 0, T0 + 1000);
	/* zero forgets the history: only this interval's samples */
	sample(&x, T0 + 1000, 7, P, b, 0, 1);
	assert_string_equal(refresh(&x, 1, T0 + 2000), "a.so [.] f2: 7/1 7/1\n");
	assert_int_equal(x.l.hist.total, 7);
	assert_string_equal(refresh(&x, 1, T0 + 3000), "");
	assert_int_equal(x.l.hist.total, 0);
	assert_int_equal(x.l.samples_total, 19);
	fx_release(&x);
}

static void test_callchain(void **state)
{
	static const uint64_t s1[] = {0x401000, 0x402000, 0x403000}, s2[] = {0x402000, 0x403000},
			      k[] = {FAKE_KADDR, FAKE_KADDR + 0x1000, 0x403000};
	struct live_opts o = {.callchain = 1, .chain = HIST_CHAIN_CALLER};
	const struct hist_entry *e = NULL;
	size_t i;
	struct fx x;

	(void)state;
	fx_init(&x, &o);
	sample(&x, T0, 100, P, s1, 0, 3);
	sample(&x, T0, 50, P, s2, 0, 2);
	sample(&x, T0, 10, P, k, 2, 1);
	assert_string_equal(refresh(&x, 0, T0 + 1000), "prog [.] main: 0/0 160/3\n"
						       "a.so [.] f2: 50/1 150/2\n"
						       "a.so [.] f1: 100/1 100/1\n"
						       /* perf's max_depth: kfunc's own samples
							  append the whole chain, kfunc2 its part */
						       "[kernel.kallsyms] [k] kfunc: 10/1 10/1\n"
						       "[kernel.kallsyms] [k] kfunc2: 0/0 10/1\n");
	assert_int_equal(x.l.last.kernel, 1);
	assert_int_equal(x.src.resolves, 5);
	for (i = 0; i < x.l.hist.nr_entries; i++)
		if (!strcmp(hist_str(&x.l.hist, x.l.hist.entries[i].f.sym), "main"))
			e = &x.l.hist.entries[i];
	assert_non_null(e);
	assert_int_not_equal(e->chain, CC_NONE);
	assert_int_equal(cc_cumul(cc_node(&x.l.hist.cc, cc_node(&x.l.hist.cc, e->chain)->child)),
			 160);
	/* the whole stacks decay alike */
	assert_string_equal(refresh(&x, 0, T0 + 2000), "");
	fx_release(&x);
}

static void test_follow(void **state)
{
	static const uint64_t a[] = {0x401000}, u[] = {0x405010}, c[] = {0x801000};
	struct live_opts o = {0};
	struct fx x;

	(void)state;
	fx_init(&x, &o);
	sample(&x, T0, 1, P, a, 0, 1);
	sample(&x, T0, 1, P, u, 0, 1);
	refresh(&x, 0, T0 + 1000);
	assert_int_equal(x.src.follows, 1);
	assert_int_equal(x.src.resolves, 2);
	/* the source resolves with the model's tree: the file offset */
	assert_non_null(strstr(x.text, "b.so [.] [b.so+0x5010]: 1/1 1/1\n"));

	/* nothing changed: no new tree, nothing resolved again */
	sample(&x, T0 + 1000, 1, P, a, 0, 1);
	refresh(&x, 0, T0 + 2000);
	assert_int_equal(x.src.follows, 1);
	assert_int_equal(x.src.resolves, 2);

	/* a new mapping: a new tree the source follows, frames resolved afresh */
	mmap_(&x, P, T0 + 2000, 0x800000, 0x1000);
	refresh(&x, 0, T0 + 3000); /* not without samples */
	assert_int_equal(x.src.follows, 1);
	sample(&x, T0 + 3000, 1, P, a, 0, 1);
	sample(&x, T0 + 3000, 1, P, c, 0, 1);
	refresh(&x, 0, T0 + 4000);
	assert_int_equal(x.src.follows, 2);
	assert_int_equal(x.src.resolves, 4);
	assert_non_null(x.src.pt);

	/* a new name too; an exit does not change the tree */
	task(&x, PROF_TASK_EXIT, T0 + 4000, Q, Q, NULL);
	sample(&x, T0 + 4000, 1, P, a, 0, 1);
	refresh(&x, 0, T0 + 5000);
	assert_int_equal(x.src.follows, 2);
	task(&x, PROF_TASK_COMM, T0 + 5000, P, P, "renamed");
	sample(&x, T0 + 5000, 1, P, a, 0, 1);
	refresh(&x, 0, T0 + 6000);
	assert_int_equal(x.src.follows, 3);
	assert_int_equal(x.src.resolves, 5);
	assert_int_equal(x.src.follow_nulls, 0);
	fx_release(&x);
}

static void test_keys(void **state)
{
	static const uint64_t a[] = {0x401000};
	struct live_opts o = {.nr_keys = 2, .keys = {HIST_KEY_COMM, HIST_KEY_SYM}};
	struct fx x;

	(void)state;
	fx_init(&x, &o);
	task(&x, PROF_TASK_COMM, 1, Q, Q, "other");
	mmap_(&x, Q, 1, 0x400000, 0);
	sample(&x, T0, 4, P, a, 0, 1);
	sample(&x, T0, 3, Q, a, 0, 1);
	sample(&x, T0, 2, P, a, 0, 1);
	assert_string_equal(refresh(&x, 0, T0 + 1000), "prog [.] f1: 6/2 6/2\n"
						       "other [.] f1: 3/1 3/1\n");
	assert_int_equal(x.src.resolves, 2); /* one address in two processes */
	live_release(&x.l);
	rstacks_live_release(&x.lv);

	o = (struct live_opts){.nr_keys = 2, .keys = {HIST_KEY_TID, HIST_KEY_CPU}};
	fx_init(&x, &o);
	assert_int_equal(live_sample(&x.l, T0, 5, P, P, 1, a, 0, 1), 0);
	assert_int_equal(live_sample(&x.l, T0, 4, P, P + 1, 1, a, 0, 1), 0);
	assert_int_equal(live_sample(&x.l, T0, 3, P, P, 2, a, 0, 1), 0);
	assert_int_equal(live_sample(&x.l, T0, 1, P, P, 1, a, 0, 1), 0);
	assert_string_equal(refresh(&x, 0, T0 + 1000), "5000010:prog 001: 6/2 6/2\n"
						       "5000011:prog 001: 4/1 4/1\n"
						       "5000010:prog 002: 3/1 3/1\n");
	fx_release(&x);
}

static void test_trim(void **state)
{
	unsigned nk, nu;

	(void)state;
	/* without call graphs: the sampled address only, kernel first */
	nk = 3, nu = 5;
	live_trim(0, &nk, &nu);
	assert_int_equal(nk, 1);
	assert_int_equal(nu, 0);
	nk = 0, nu = 5;
	live_trim(0, &nk, &nu);
	assert_int_equal(nk, 0);
	assert_int_equal(nu, 1);
	nk = 0, nu = 0;
	live_trim(0, &nk, &nu);
	assert_int_equal(nk, 0);
	assert_int_equal(nu, 0);
	/* with them: everything up to ZT_MAX_FRAMES a part */
	nk = 2, nu = 3;
	live_trim(1, &nk, &nu);
	assert_int_equal(nk, 2);
	assert_int_equal(nu, 3);
	nk = ZT_MAX_FRAMES + 1, nu = 1000;
	live_trim(1, &nk, &nu);
	assert_int_equal(nk, ZT_MAX_FRAMES);
	assert_int_equal(nu, ZT_MAX_FRAMES);
	nk = 1000, nu = 0;
	live_trim(0, &nk, &nu);
	assert_int_equal(nk, 1);
	assert_int_equal(nu, 0);
}

static void test_compact(void **state)
{
	static const uint64_t u[] = {0x405010}, a[] = {0x401000};
	struct live_opts o = {.nr_keys = 2, .keys = {HIST_KEY_COMM, HIST_KEY_SYM}};
	struct fx x;
	unsigned i;

	(void)state;
	fx_init(&x, &o);
	/* Q ran, renamed itself thousands of times, and exited before the
	 * interval began: its samples are in, what it had can go */
	task(&x, PROF_TASK_COMM, 1, Q, Q, "other");
	mmap_(&x, Q, 1, 0x400000, 0);
	for (i = 0; i < 4100; i++)
		task(&x, PROF_TASK_COMM, 2 + i, Q, Q, "other");
	task(&x, PROF_TASK_EXIT, T0 - 1, Q, Q, NULL);
	sample(&x, 100, 5, Q, a, 0, 1);
	sample(&x, 200, 5, Q, a, 0, 1);
	sample(&x, T0 + 10, 4, P, u, 0, 1);
	sample(&x, T0 + 20, 4, P, u, 0, 1);
	assert_string_equal(refresh(&x, 0, T0 + 1000), "other [.] f1: 10/2 10/2\n"
						       "prog [.] [b.so+0x5010]: 8/2 8/2\n");
	assert_int_equal(x.l.compactions, 1);
	assert_int_equal(x.src.follows, 1);
	assert_int_equal(x.src.follow_nulls, 1); /* a fresh source */
	assert_int_equal(x.l.prof.nr_tasks, 1);	 /* P's name */
	assert_int_equal(x.l.prof.nr_mmaps, 1);	 /* P's mapping */

	/* the history stays (decayed); P still resolves with its mapping */
	sample(&x, T0 + 1000, 4, P, u, 0, 1);
	assert_string_equal(refresh(&x, 0, T0 + 2000), "prog [.] [b.so+0x5010]: 11/2 11/2\n"
						       "other [.] f1: 9/1 9/1\n");
	assert_int_equal(x.src.follows, 2);
	assert_int_equal(x.src.resolves, 3);
	assert_int_equal(x.l.compactions, 1);
	live_release(&x.l);
	rstacks_live_release(&x.lv); /* the source forgets its profile */
	assert_int_equal(x.src.follow_nulls, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refresh), cmocka_unit_test(test_decay),
		cmocka_unit_test(test_zero),	cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_follow),	cmocka_unit_test(test_keys),
		cmocka_unit_test(test_trim),	cmocka_unit_test(test_compact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
