/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rmodel: sample groups, Children and Self on a known call tree, sort
 * keys, inline frames on and off, every filter (hidden but counted, or
 * left out), the filters' parsers, call chains, and source lines.
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

#include "libprof/rmodel.h"
#include "tests/unit/fakesrc.h"

#define SEC 1000000000ull

/* A profile, its tree, the fake source, a frame table and the model. */
struct fx {
	struct profile p;
	struct proctree *pt;
	struct fakesrc src;
	struct frametab ft;
	struct rmodel m;
	char text[4096];
};

static void fx_begin(struct fx *x)
{
	memset(x, 0, sizeof(*x));
	profile_init(&x->p);
	fakesrc_init(&x->src);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 10, 10, "prog"), 0);
	assert_int_equal(fake_task(&x->p, PROF_TASK_COMM, 1, 20, 20, "other"), 0);
	assert_int_equal(fake_mmap(&x->p, 10, 1, 0x400000, 0x10000, 0, "/bin/prog", NULL), 0);
	assert_int_equal(fake_mmap(&x->p, 20, 1, 0x400000, 0x10000, 0, "/bin/prog", NULL), 0);
	assert_int_equal(fake_mmap(&x->p, ZT_PID_KERNEL, 1, FAKE_KADDR, 0x1000000, 0,
				   "[kernel.kallsyms]", NULL),
			 0);
}

/* The tree, table and model over the profile built so far. */
static void fx_model(struct fx *x)
{
	struct frametab_source s = fakesrc_source(&x->src, 0);

	assert_int_equal(proctree_new(&x->p, &x->pt), 0);
	x->src.pt = x->pt;
	frametab_init(&x->ft, x->pt, &s);
	assert_int_equal(rmodel_init(&x->m, &(struct rstacks){&x->p, x->pt, &x->ft}, NULL, NULL), 0);
}

static void fx_release(struct fx *x)
{
	rmodel_release(&x->m);
	frametab_release(&x->ft);
	proctree_free(x->pt);
	profile_release(&x->p);
}

static void sample(struct fx *x, uint64_t ts, uint64_t w, uint32_t pid, uint32_t tid, uint32_t cpu,
		   const uint64_t *ips, unsigned nk, unsigned nu)
{
	assert_int_equal(fake_sample(&x->p, ts, w, pid, tid, cpu, ips, nk, nu), 0);
}

/*
 * The call tree (leaf first) of 300 in all:
 *   prog (pid 10)   f1 f2 main  100 at 1s and 100 at 2s (tid 10, cpu 0),
 *                               10 at 5s (tid 11, cpu 1)
 *                   f2 main     50 at 3s (cpu 0)
 *                   main        30 at 4s (cpu 1)
 *   other (pid 20)  f1 main     7 at 6s (cpu 2)
 *                   [k] kfunc main  3 at 7s (cpu 2)
 * tid 11 has no name of its own: it is "prog", its samples join tid 10's.
 */
static void fx_tree_profile(struct fx *x)
{
	static const uint64_t s1[] = {0x401100, 0x402000, 0x403000}, s2[] = {0x402000, 0x403000},
			      s3[] = {0x403000}, s4[] = {0x401000, 0x403000},
			      s5[] = {FAKE_KADDR, 0x403000};

	fx_begin(x);
	sample(x, 1 * SEC, 100, 10, 10, 0, s1, 0, 3);
	sample(x, 2 * SEC, 100, 10, 10, 0, s1, 0, 3);
	sample(x, 3 * SEC, 50, 10, 10, 0, s2, 0, 2);
	sample(x, 4 * SEC, 30, 10, 10, 1, s3, 0, 1);
	sample(x, 5 * SEC, 10, 10, 11, 1, s1, 0, 3);
	sample(x, 6 * SEC, 7, 20, 20, 2, s4, 0, 2);
	sample(x, 7 * SEC, 3, 20, 20, 2, s5, 1, 1);
}

static void fx_tree(struct fx *x)
{
	fx_tree_profile(x);
	fx_model(x);
}

/* Its rows by comm,dso,sym with Children. */
#define TREE_ROWS                          \
	"prog prog [.] main: 30/1 290/5\n" \
	"prog a.so [.] f2: 50/1 260/4\n"   \
	"prog a.so [.] f1: 210/3 210/3\n"  \
	"other prog [.] main: 0/0 10/2\n"  \
	"other a.so [.] f1: 7/1 7/1\n"     \
	"other [kernel.kallsyms] [k] kfunc: 3/1 3/1\n"

/* Build with o and sort: the rows as fake_rows_text(). */
static const char *build(struct fx *x, const struct rmodel_opts *o)
{
	const struct hist_entry **rows;
	size_t n;

	assert_int_equal(rmodel_build(&x->m, o), 0);
	assert_int_equal(rmodel_sort(&x->m, 0, &rows, &n), 0);
	return fake_rows_text(&x->m.hist, rows, n, x->text, sizeof(x->text));
}

/* The entry whose symbol is sym (and comm, when not NULL). */
static const struct hist_entry *entry(const struct fx *x, const char *comm, const char *sym)
{
	size_t i;

	for (i = 0; i < x->m.hist.nr_entries; i++) {
		const struct hist_entry *e = &x->m.hist.entries[i];

		if (!strcmp(hist_str(&x->m.hist, e->f.sym), sym) &&
		    (!comm || !strcmp(hist_str(&x->m.hist, e->f.comm), comm)))
			return e;
	}
	fail_msg("no entry '%s'", sym);
	return NULL;
}

static void test_groups(void **state)
{
	struct fx x;

	(void)state;
	fx_tree(&x);
	/* f1 f2 main of prog (3 samples), f2 main, main, and other's two */
	assert_int_equal(x.m.nr_groups, 5);
	/* prog's 3 addresses, other's 2 (another address space), 1 kernel */
	assert_int_equal(x.src.resolves, 6);
	assert_int_equal(x.m.nr_addrs, 6);
	assert_int_equal(x.m.nr_templates, 6);
	assert_int_equal(x.m.total, 300);
	assert_int_equal(x.m.total_nr, 7);
	assert_int_equal(x.m.time_first, 1 * SEC);
	assert_int_equal(x.m.time_last, 7 * SEC);
	fx_release(&x);
}

static void test_time_sensitive_groups(void **state)
{
	struct fx x;
	struct rmodel_opts o = {.children = 1};

	(void)state;
	fx_tree_profile(&x);
	x.src.time_pid = 10; /* prog's samples each by its own time */
	fx_model(&x);
	/* prog's 5 samples in 5 groups, each its own address space */
	assert_int_equal(x.m.nr_groups, 7);
	assert_int_equal(x.src.resolves, 3 + 3 + 2 + 1 + 3 + 2 + 1);
	/* the same report */
	assert_string_equal(build(&x, &o), TREE_ROWS);
	fx_release(&x);
}

static void test_children_self(void **state)
{
	struct fx x;
	struct rmodel_opts o = {.children = 1};

	(void)state;
	fx_tree(&x);
	assert_string_equal(build(&x, &o), TREE_ROWS);
	assert_int_equal(x.m.hist.total, 300);
	assert_int_equal(x.m.hist.total_nr, 7);
	assert_int_equal(x.m.shown, 300);
	assert_int_equal(x.m.shown_nr, 7);
	assert_int_equal(x.m.hist.nr_entries, 6);

	/* Self only: entries without Self are not rows (Children still counted) */
	o.children = 0;
	assert_string_equal(build(&x, &o), "prog a.so [.] f1: 210/3 210/3\n"
					   "prog a.so [.] f2: 50/1 260/4\n"
					   "prog prog [.] main: 30/1 290/5\n"
					   "other a.so [.] f1: 7/1 7/1\n"
					   "other [kernel.kallsyms] [k] kfunc: 3/1 3/1\n");
	assert_int_equal(x.m.hist.total, 300);

	/* Children counted, ordered by Self: every entry */
	o.children = 1;
	o.sort_self = 1;
	assert_string_equal(build(&x, &o), "prog a.so [.] f1: 210/3 210/3\n"
					   "prog a.so [.] f2: 50/1 260/4\n"
					   "prog prog [.] main: 30/1 290/5\n"
					   "other a.so [.] f1: 7/1 7/1\n"
					   "other [kernel.kallsyms] [k] kfunc: 3/1 3/1\n"
					   "other prog [.] main: 0/0 10/2\n");
	fx_release(&x);
}

static void test_sort_keys(void **state)
{
	struct fx x;
	struct rmodel_opts o = {.children = 1, .nr_keys = 1, .keys = {HIST_KEY_SYM}};

	(void)state;
	fx_tree(&x);
	/* one function is one entry whichever process ran it */
	assert_string_equal(build(&x, &o), "[.] main: 30/1 300/7\n"
					   "[.] f2: 50/1 260/4\n"
					   "[.] f1: 217/4 217/4\n"
					   "[k] kfunc: 3/1 3/1\n");

	o = (struct rmodel_opts){.nr_keys = 1, .keys = {HIST_KEY_SRCLINE}};
	assert_string_equal(build(&x, &o), "f1.c:11: 210/3 210/3\n"
					   "f2.c:20: 50/1 260/4\n"
					   "main.c:30: 30/1 300/7\n"
					   "f1.c:10: 7/1 7/1\n"
					   "kfunc+0: 3/1 3/1\n");

	o = (struct rmodel_opts){.nr_keys = 2, .keys = {HIST_KEY_COMM, HIST_KEY_DSO}};
	assert_string_equal(build(&x, &o), "prog a.so: 260/4 260/4\n"
					   "prog prog: 30/1 290/5\n"
					   "other a.so: 7/1 7/1\n"
					   "other [kernel.kallsyms]: 3/1 3/1\n");

	/* per-sample keys: thread and CPU */
	o = (struct rmodel_opts){.nr_keys = 1, .keys = {HIST_KEY_CPU}};
	assert_string_equal(build(&x, &o), "000: 250/3 250/3\n"
					   "001: 40/2 40/2\n"
					   "002: 10/2 10/2\n");
	o = (struct rmodel_opts){.nr_keys = 2, .keys = {HIST_KEY_TID, HIST_KEY_SYM}};
	assert_string_equal(build(&x, &o), "     10:prog [.] f1: 200/2 200/2\n"
					   "     10:prog [.] f2: 50/1 250/3\n"
					   "     10:prog [.] main: 30/1 280/4\n"
					   "     11:prog [.] f1: 10/1 10/1\n"
					   "     20:other [.] f1: 7/1 7/1\n"
					   "     20:other [k] kfunc: 3/1 3/1\n");
	assert_int_equal(x.m.shown, 300);

	/* default keys again: the strings interned before are reused */
	o = (struct rmodel_opts){.children = 1};
	assert_string_equal(build(&x, &o), TREE_ROWS);
	assert_int_equal(x.src.resolves, 6); /* rebuilds never resolve again */
	fx_release(&x);
}

/* Build fx's tree with one filter set by parse: shown weight and samples,
 * and the histogram's total. */
struct fcase {
	const char *kind, *arg;
	uint64_t shown, shown_nr, hist_total;
};

static void set_filter(struct rfilter *f, const char *kind, const char *arg)
{
	char err[256];
	int ret = -EINVAL;

	if (!strcmp(kind, "comm"))
		ret = rfilter_add_strs(&f->comms, &f->nr_comms, arg, err, sizeof(err));
	else if (!strcmp(kind, "pid"))
		ret = rfilter_add_ids(&f->pids, &f->nr_pids, arg, err, sizeof(err));
	else if (!strcmp(kind, "tid"))
		ret = rfilter_add_ids(&f->tids, &f->nr_tids, arg, err, sizeof(err));
	else if (!strcmp(kind, "dso"))
		ret = rfilter_add_strs(&f->dsos, &f->nr_dsos, arg, err, sizeof(err));
	else if (!strcmp(kind, "sym"))
		ret = rfilter_add_syms(f, arg, err, sizeof(err));
	else if (!strcmp(kind, "cpu"))
		ret = rfilter_add_cpus(f, arg, err, sizeof(err));
	else if (!strcmp(kind, "time"))
		ret = rfilter_set_time(f, arg, err, sizeof(err));
	assert_int_equal(ret, 0);
	assert_true(rfilter_active(f));
}

static void test_filters(void **state)
{
	/* --comm, --pid, --tid, --dso, --symbols hide: the total stays 300;
	 * --cpu and --time leave out: the total is what they keep */
	static const struct fcase cases[] = {
		{"comm", "other", 10, 2, 300},
		{"comm", "prog,nobody", 290, 5, 300},
		{"pid", "20", 10, 2, 300},
		{"pid", "10,20", 300, 7, 300},
		{"tid", "11", 10, 1, 300},
		{"dso", "a.so", 267, 5, 300},
		{"dso", "[kernel.kallsyms]", 3, 1, 300},
		{"dso", "prog", 30, 1, 300},
		{"sym", "f2", 50, 1, 300},
		{"sym", "f1,kfunc", 220, 5, 300},
		{"sym", "main", 30, 1, 300},
		{"sym", "f", 0, 0, 300},
		/* -S's addresses: the sample's own address (the stack's first) */
		{"sym", "0x401100", 210, 3, 300},
		{"sym", "402000", 50, 1, 300},
		{"sym", "0x401000,f2", 57, 2, 300},
		{"sym", "0x403001", 0, 0, 300},
		{"cpu", "1", 40, 2, 40},
		{"cpu", "0,2-3", 260, 5, 260},
		{"time", "2,4", 180, 3, 180},
		{"time", "3,", 100, 5, 100},
		{"time", ",1.5", 100, 1, 100},
		{"time", "4.000000001,5", 10, 1, 10},
		{"time", "10%-90%", 197, 5, 197},
		{"time", "0%-100%", 300, 7, 300},
	};
	struct rmodel_opts o = {.children = 1};
	struct fx x;
	size_t i;

	(void)state;
	fx_tree(&x);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fcase *c = &cases[i];
		struct rfilter f;

		rfilter_init(&f);
		set_filter(&f, c->kind, c->arg);
		o.filter = &f;
		assert_int_equal(rmodel_build(&x.m, &o), 0);
		if (x.m.shown != c->shown || x.m.shown_nr != c->shown_nr ||
		    x.m.hist.total != c->hist_total)
			fail_msg("--%s %s: shown %llu/%llu total %llu, want %llu/%llu %llu",
				 c->kind, c->arg, (unsigned long long)x.m.shown,
				 (unsigned long long)x.m.shown_nr,
				 (unsigned long long)x.m.hist.total, (unsigned long long)c->shown,
				 (unsigned long long)c->shown_nr,
				 (unsigned long long)c->hist_total);
		/* the model's total is every sample, whatever the filter */
		assert_int_equal(x.m.total, 300);
		assert_int_equal(x.m.total_nr, 7);
		rfilter_release(&f);
	}
	fx_release(&x);
}

static void test_filter_rows(void **state)
{
	struct rmodel_opts o = {.children = 1};
	struct rfilter f;
	struct fx x;

	(void)state;
	fx_tree(&x);
	rfilter_init(&f);
	o.filter = &f;
	/* hidden samples are in the total only: 290 of 300 hidden */
	set_filter(&f, "comm", "other");
	assert_string_equal(build(&x, &o), "other prog [.] main: 0/0 10/2\n"
					   "other a.so [.] f1: 7/1 7/1\n"
					   "other [kernel.kallsyms] [k] kfunc: 3/1 3/1\n");
	assert_int_equal(x.m.hist.total - x.m.shown, 290);
	assert_int_equal(x.m.hist.total_nr - x.m.shown_nr, 5);
	rfilter_release(&f);

	/* left out and hidden at once: --cpu keeps prog's 290, --comm hides them */
	set_filter(&f, "cpu", "0,1");
	set_filter(&f, "comm", "other");
	assert_string_equal(build(&x, &o), "");
	assert_int_equal(x.m.shown, 0);
	assert_int_equal(x.m.hist.total, 290);
	assert_int_equal(x.m.hist.total_nr, 5);
	rfilter_release(&f);

	/* --cpu: only what is kept counts */
	set_filter(&f, "cpu", "1");
	/* without call chains, equal Children go by Self (perf -g none) */
	assert_string_equal(build(&x, &o), "prog prog [.] main: 30/1 40/2\n"
					   "prog a.so [.] f1: 10/1 10/1\n"
					   "prog a.so [.] f2: 0/0 10/1\n");
	rfilter_release(&f);

	/* --dso: the callers of a.so's functions are entries too; a zoom
	 * into the module shows only its own */
	set_filter(&f, "dso", "a.so");
	assert_string_equal(build(&x, &o), "prog a.so [.] f2: 50/1 260/4\n"
					   "prog prog [.] main: 0/0 260/4\n"
					   "prog a.so [.] f1: 210/3 210/3\n"
					   "other a.so [.] f1: 7/1 7/1\n"
					   "other prog [.] main: 0/0 7/1\n");
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, "prog", "f1")), 1);
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, "prog", "f2")), 1);
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, "prog", "main")), 0);
	assert_int_equal(entry(&x, "prog", "main")->children, 260);
	rfilter_release(&f);
	set_filter(&f, "sym", "f2");
	assert_string_equal(build(&x, &o), "prog a.so [.] f2: 50/1 50/1\n"
					   "prog prog [.] main: 0/0 50/1\n");
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, "prog", "f2")), 1);
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, "prog", "main")), 0);
	rfilter_release(&f);

	/* no filter again: everything */
	o.filter = NULL;
	build(&x, &o);
	assert_int_equal(x.m.shown, 300);
	assert_int_equal(x.m.hist.total, 300);
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, "prog", "main")), 1);
	fx_release(&x);
}

static void test_filter_parsing(void **state)
{
	struct rfilter f;
	char err[256];

	(void)state;
	rfilter_init(&f);
	assert_false(rfilter_active(&f));
	assert_false(rfilter_active(NULL));

	/* lists append; empty items are skipped */
	assert_int_equal(rfilter_add_strs(&f.comms, &f.nr_comms, "a,,b", err, sizeof(err)), 0);
	assert_int_equal(rfilter_add_strs(&f.comms, &f.nr_comms, "c", err, sizeof(err)), 0);
	assert_int_equal(f.nr_comms, 3);
	assert_string_equal(f.comms[0], "a");
	assert_string_equal(f.comms[1], "b");
	assert_string_equal(f.comms[2], "c");
	assert_int_equal(rfilter_add_strs(&f.dsos, &f.nr_dsos, ",,", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "',,' names nothing: give a comma-separated list");
	assert_int_equal(rfilter_add_strs(&f.dsos, &f.nr_dsos, "", err, sizeof(err)), -EINVAL);
	/* naming nothing is wrong after a list that named something too */
	assert_int_equal(rfilter_add_strs(&f.comms, &f.nr_comms, ",", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "',' names nothing: give a comma-separated list");
	assert_int_equal(f.nr_comms, 3);

	assert_int_equal(rfilter_add_ids(&f.pids, &f.nr_pids, "1,23", err, sizeof(err)), 0);
	assert_int_equal(rfilter_add_ids(&f.pids, &f.nr_pids, "4294967295", err, sizeof(err)), 0);
	assert_int_equal(f.nr_pids, 3);
	assert_int_equal(f.pids[1], 23);
	assert_int_equal(f.pids[2], UINT32_MAX);
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "12x", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'12x' is not a number");
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "1-3", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'1-3' is not a number");
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "4294967296", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "+1", err, sizeof(err)), -EINVAL);
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "1,,2", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'' is not a number");
	assert_int_equal(rfilter_add_ids(&f.pids, &f.nr_pids, "", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'' names nothing: give a comma-separated list");
	assert_int_equal(f.nr_pids, 3);

	assert_int_equal(rfilter_add_cpus(&f, "0,2-4,4294967295", err, sizeof(err)), 0);
	assert_int_equal(f.nr_cpus, 5);
	assert_int_equal(f.cpus[1], 2);
	assert_int_equal(f.cpus[3], 4);
	assert_int_equal(f.cpus[4], UINT32_MAX);
	assert_int_equal(rfilter_add_cpus(&f, "3-1", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'3-1' is not a number or range (like 0-3)");
	assert_int_equal(rfilter_add_cpus(&f, "1-", err, sizeof(err)), -EINVAL);
	assert_int_equal(rfilter_add_cpus(&f, "-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(rfilter_add_cpus(&f, "0-70000", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "range '0-70000' is too large");
	assert_int_equal(rfilter_add_cpus(&f, "4294967294-4294967295", err, sizeof(err)), 0);
	assert_int_equal(f.nr_cpus, 7);

	/* --time's forms: tests/unit/test_rfilter.c */
	assert_int_equal(rfilter_set_time(&f, "1.5,2.000000001", err, sizeof(err)), 0);
	assert_int_equal(f.time_start, 1500000000ull);
	assert_int_equal(f.time_end, 2000000001ull);
	assert_int_equal(rfilter_set_time(&f, "10%-90%", err, sizeof(err)), 0);
	assert_true(f.pct_start == 10);
	assert_true(f.pct_end == 90);
	assert_true(rfilter_active(&f));

	rfilter_release(&f);
	assert_false(rfilter_active(&f));
	assert_int_equal(f.nr_comms, 0);
	assert_null(f.pids);
	rfilter_release(&f); /* twice: harmless */
}

/* rmodel_lines() of e as text, a line each: "file:line weight/nr". */
static const char *lines_text(struct fx *x, const struct hist_entry *e)
{
	struct rline *l;
	size_t i, n, at = 0;

	assert_int_equal(rmodel_lines(&x->m, e, &l, &n), 0);
	if (!n)
		assert_null(l);
	x->text[0] = 0;
	for (i = 0; i < n && at < sizeof(x->text); i++)
		at += (size_t)snprintf(x->text + at, sizeof(x->text) - at, "%s:%u %llu/%llu\n",
				       l[i].file, l[i].line, (unsigned long long)l[i].weight,
				       (unsigned long long)l[i].nr);
	free(l);
	return x->text;
}

/* f1 of prog at three lines, f2 at one: lines and hottest line. */
static void test_lines(void **state)
{
	static const uint64_t a12[] = {0x401200}, a11[] = {0x401100}, a13[] = {0x401300},
			      b[] = {0x402000}, k[] = {FAKE_KADDR};
	struct rmodel_opts o = {.nr_keys = 1, .keys = {HIST_KEY_SYM}};
	char buf[64];
	struct fx x;

	(void)state;
	fx_begin(&x);
	sample(&x, 1 * SEC, 5, 10, 10, 0, a12, 0, 1);
	sample(&x, 2 * SEC, 3, 10, 10, 0, a11, 0, 1);
	sample(&x, 3 * SEC, 2, 10, 10, 0, a11, 0, 1);
	sample(&x, 4 * SEC, 4, 10, 10, 0, a13, 0, 1);
	sample(&x, 5 * SEC, 1, 10, 10, 0, b, 0, 1);
	sample(&x, 6 * SEC, 1, 10, 10, 0, k, 1, 0);
	fx_model(&x);
	build(&x, &o);

	/* equal weights: the lower line */
	assert_int_equal(
		rmodel_func_line(&x.m, hist_chain_key(&entry(&x, NULL, "f1")->f), buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "f1.c:11");
	assert_int_equal(
		rmodel_func_line(&x.m, hist_chain_key(&entry(&x, NULL, "f2")->f), buf, sizeof(buf)),
		0);
	assert_string_equal(buf, "f2.c:20");
	assert_int_equal(rmodel_func_line(&x.m, hist_chain_key(&entry(&x, NULL, "kfunc")->f), buf,
					  sizeof(buf)),
			 -ENOENT);
	assert_int_equal(rmodel_func_line(&x.m, 12345, buf, sizeof(buf)), -ENOENT);

	/* most weight first; equal weights: the lower line */
	assert_string_equal(lines_text(&x, entry(&x, NULL, "f1")), "/src/a/f1.c:11 5/2\n"
								   "/src/a/f1.c:12 5/1\n"
								   "/src/a/f1.c:13 4/1\n");
	/* a file relative to its directory */
	assert_string_equal(lines_text(&x, entry(&x, NULL, "f2")), "/src/a/f2.c:20 1/1\n");
	assert_string_equal(lines_text(&x, entry(&x, NULL, "kfunc")), "");

	/* a filtered build: only what it shows */
	{
		struct rfilter f;

		rfilter_init(&f);
		set_filter(&f, "time", "2,3");
		o.filter = &f;
		build(&x, &o);
		assert_int_equal(rmodel_func_line(&x.m, hist_chain_key(&entry(&x, NULL, "f1")->f),
						  buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, "f1.c:11");
		assert_string_equal(lines_text(&x, entry(&x, NULL, "f1")), "/src/a/f1.c:11 5/2\n");
		rfilter_release(&f);
	}
	fx_release(&x);
}

/*
 * Inline frames: "leafy" and "middle" inlined into "outer".
 *   leafy/middle/outer main      40 at 1s (0x404000: line 40)
 *   f1 leafy/middle/outer main   60 at 2s (0x404800: line 48)
 */
static void fx_inline(struct fx *x)
{
	static const uint64_t t1[] = {0x404000, 0x403000}, t2[] = {0x401000, 0x404800, 0x403000};

	fx_begin(x);
	sample(x, 1 * SEC, 40, 10, 10, 0, t1, 0, 2);
	sample(x, 2 * SEC, 60, 10, 10, 0, t2, 0, 3);
	fx_model(x);
}

static void test_inline(void **state)
{
	struct rmodel_opts o = {.children = 1, .nr_keys = 1, .keys = {HIST_KEY_SYM}};
	struct rfilter f;
	char buf[64];
	struct fx x;

	(void)state;
	fx_inline(&x);
	assert_int_equal(x.m.nr_groups, 2);
	assert_int_equal(x.src.resolves, 4);
	assert_int_equal(x.m.nr_templates, 8);
	assert_string_equal(build(&x, &o), "[.] outer: 40/1 100/2\n"
					   "[.] main: 0/0 100/2\n"
					   "[.] f1: 60/1 60/1\n");
	assert_string_equal(lines_text(&x, entry(&x, NULL, "outer")), "/src/b.c:60 40/1\n");

	o.inline_frames = 1;
	/* Self stays with the function (perf's sample symbol) */
	assert_string_equal(build(&x, &o), "[.] outer: 40/1 100/2\n"
					   "[.] leafy (inlined): 0/0 100/2\n"
					   "[.] main: 0/0 100/2\n"
					   "[.] middle (inlined): 0/0 100/2\n"
					   "[.] f1: 60/1 60/1\n");
	assert_int_equal(entry(&x, NULL, "leafy (inlined)")->f.inlined, 1);
	assert_int_equal(entry(&x, NULL, "outer")->f.inlined, 0);
	/* the lines of an entry's Self samples: outer's, whose Self it is;
	 * none for an inlined function without Self */
	assert_string_equal(lines_text(&x, entry(&x, NULL, "outer")), "/src/b.c:60 40/1\n");
	assert_string_equal(lines_text(&x, entry(&x, NULL, "leafy (inlined)")), "");
	/* each function's hottest line of its own frames */
	assert_int_equal(rmodel_func_line(&x.m, hist_chain_key(&entry(&x, NULL, "outer")->f), buf,
					  sizeof(buf)),
			 0);
	assert_string_equal(buf, "b.c:60");
	assert_int_equal(rmodel_func_line(&x.m,
					  hist_chain_key(&entry(&x, NULL, "leafy (inlined)")->f),
					  buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "inl.h:48");
	assert_int_equal(rmodel_func_line(&x.m,
					  hist_chain_key(&entry(&x, NULL, "middle (inlined)")->f),
					  buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "inl.h:50");

	/* srcline: an inlined address's innermost position */
	o = (struct rmodel_opts){.nr_keys = 1, .keys = {HIST_KEY_SRCLINE}};
	assert_string_equal(build(&x, &o), "f1.c:10: 60/1 60/1\n"
					   "inl.h:40: 40/1 40/1\n");

	/* --symbols: by the sample's own function, not an inlined one */
	rfilter_init(&f);
	o = (struct rmodel_opts){.children = 1, .inline_frames = 1, .filter = &f};
	set_filter(&f, "sym", "outer");
	build(&x, &o);
	assert_int_equal(x.m.shown, 40);
	assert_int_equal(rmodel_entry_shown(&x.m, entry(&x, NULL, "outer")), 1);
	rfilter_release(&f);
	set_filter(&f, "sym", "leafy");
	build(&x, &o);
	assert_int_equal(x.m.shown, 0);
	assert_int_equal(x.m.hist.total, 100);
	rfilter_release(&f);
	fx_release(&x);
}

/* The names of node's children in a chain, most weight first, "a:w b:w". */
static const char *chain_text(struct fx *x, uint32_t node, char *buf, size_t len)
{
	uint32_t *kids;
	long i, n = cc_sorted_children(&x->m.hist.cc, node, 0, &kids);
	size_t at = 0;

	assert_true(n >= 0);
	buf[0] = 0;
	for (i = 0; i < n && at < len; i++) {
		const struct cc_node *c = cc_node(&x->m.hist.cc, kids[i]);

		at += (size_t)snprintf(buf + at, len - at, "%s%s:%llu", i ? " " : "",
				       rmodel_chain_name(&x->m, c),
				       (unsigned long long)cc_cumul(c));
	}
	free(kids);
	return buf;
}

static void test_chains(void **state)
{
	struct rmodel_opts o = {.children = 1, .chain = HIST_CHAIN_CALLEE};
	const struct hist_entry *e;
	char buf[256];
	struct fx x;

	(void)state;
	fx_tree(&x);
	build(&x, &o);
	/* callee order: f2's own frame, then its callers */
	e = entry(&x, "prog", "f2");
	assert_int_not_equal(e->chain, CC_NONE);
	assert_string_equal(chain_text(&x, e->chain, buf, sizeof(buf)), "f2:260");
	assert_string_equal(
		chain_text(&x, cc_node(&x.m.hist.cc, e->chain)->child, buf, sizeof(buf)),
		"main:260");

	o.chain = HIST_CHAIN_CALLER;
	build(&x, &o);
	/* caller order: main first, then its callees down to the leaf */
	e = entry(&x, "prog", "main");
	assert_string_equal(chain_text(&x, e->chain, buf, sizeof(buf)), "main:290");
	assert_string_equal(
		chain_text(&x, cc_node(&x.m.hist.cc, e->chain)->child, buf, sizeof(buf)), "f2:260");

	/* chains only for entries of at least 5% (15 of 300) */
	o.chain_min_pct = 5;
	build(&x, &o);
	assert_int_not_equal(entry(&x, "prog", "main")->chain, CC_NONE);
	assert_int_not_equal(entry(&x, "prog", "f1")->chain, CC_NONE);
	assert_int_equal(entry(&x, "other", "main")->chain, CC_NONE);
	assert_int_equal(entry(&x, "other", "kfunc")->chain, CC_NONE);
	e = entry(&x, "prog", "main");
	assert_string_equal(
		chain_text(&x, cc_node(&x.m.hist.cc, e->chain)->child, buf, sizeof(buf)), "f2:260");

	/* inline frames in chains are named as such */
	fx_release(&x);
	fx_inline(&x);
	o = (struct rmodel_opts){.children = 1, .chain = HIST_CHAIN_CALLER, .inline_frames = 1};
	build(&x, &o);
	/* outer's own samples (its Self) give it their whole stack, the
	 * others the stack from outer on */
	e = entry(&x, NULL, "outer");
	assert_string_equal(chain_text(&x, e->chain, buf, sizeof(buf)), "outer:60 main:40");
	e = entry(&x, NULL, "main");
	assert_string_equal(
		chain_text(&x, cc_node(&x.m.hist.cc, e->chain)->child, buf, sizeof(buf)),
		"outer:100");
	assert_string_equal(
		chain_text(&x, cc_node(&x.m.hist.cc, cc_node(&x.m.hist.cc, e->chain)->child)->child,
			   buf, sizeof(buf)),
		"middle (inlined):100");
	fx_release(&x);
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	uint64_t *last = ctx;

	assert_true(done <= total);
	*last = done;
}

static void test_empty_and_progress(void **state)
{
	struct rmodel_opts o = {.children = 1};
	struct frametab_source s;
	uint64_t last = 99;
	struct fx x;

	(void)state;
	fx_begin(&x);
	assert_int_equal(proctree_new(&x.p, &x.pt), 0);
	s = fakesrc_source(&x.src, 0);
	frametab_init(&x.ft, x.pt, &s);
	assert_int_equal(rmodel_init(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, progress, &last), 0);
	assert_int_equal(last, 0);
	assert_int_equal(x.m.nr_groups, 0);
	assert_int_equal(x.m.total, 0);
	assert_int_equal(x.m.time_first, 0);
	assert_string_equal(build(&x, &o), "");
	fx_release(&x);

	fx_tree(&x);
	rmodel_release(&x.m);
	frametab_release(&x.ft);
	s = fakesrc_source(&x.src, 0);
	frametab_init(&x.ft, x.pt, &s);
	last = 99;
	assert_int_equal(rmodel_init(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, progress, &last), 0);
	assert_int_equal(last, 5);
	fx_release(&x);
}

/* Several events: each one's samples (profile_event_samples), a model
 * of each (rmodel_init_event); one event or none: every sample is
 * event 0's. */
static void test_event_models(void **state)
{
	struct prof_event e0 = {.name = "cpu-clock"}, e1 = {.name = "page-faults"};
	struct rmodel_opts o = {.children = 1};
	struct prof_sample out[8];
	uint32_t idx;
	struct fx x;

	(void)state;
	fx_tree(&x);
	assert_int_equal(profile_event_samples(&x.p, 0, NULL), 7);
	assert_int_equal(profile_event_samples(&x.p, 1, NULL), 0);
	rmodel_release(&x.m);
	assert_int_equal(rmodel_init_event(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, 0, NULL, NULL), 0);
	assert_string_equal(build(&x, &o), TREE_ROWS);
	rmodel_release(&x.m);

	/* the other process's samples are a second event's */
	assert_int_equal(profile_add_event(&x.p, &e0, &idx), 0);
	assert_int_equal(profile_add_event(&x.p, &e1, &idx), 0);
	assert_int_equal(idx, 1);
	x.p.samples[5].event = 1;
	x.p.samples[6].event = 1;
	assert_int_equal(profile_event_samples(&x.p, 1, out), 2);
	assert_int_equal(out[0].ts, 6 * SEC);
	assert_int_equal(out[1].ts, 7 * SEC);
	assert_int_equal(profile_event_samples(&x.p, 0, out), 5);
	assert_int_equal(out[4].ts, 5 * SEC);
	assert_int_equal(profile_event_samples(&x.p, 2, out), 0);

	assert_int_equal(rmodel_init_event(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, 1, NULL, NULL), 0);
	assert_int_equal(x.m.total_nr, 2);
	assert_int_equal(x.m.total, 10);
	assert_string_equal(build(&x, &o), "other prog [.] main: 0/0 10/2\n"
					   "other a.so [.] f1: 7/1 7/1\n"
					   "other [kernel.kallsyms] [k] kfunc: 3/1 3/1\n");
	rmodel_release(&x.m);
	assert_int_equal(rmodel_init_event(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, 0, NULL, NULL), 0);
	assert_int_equal(x.m.total_nr, 5);
	assert_string_equal(build(&x, &o), "prog prog [.] main: 30/1 290/5\n"
					   "prog a.so [.] f2: 50/1 260/4\n"
					   "prog a.so [.] f1: 210/3 210/3\n");
	rmodel_release(&x.m);
	/* an event without samples: an empty model */
	x.p.samples[5].event = x.p.samples[6].event = 0;
	assert_int_equal(rmodel_init_event(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, 1, NULL, NULL), 0);
	assert_int_equal(x.m.total_nr, 0);
	assert_string_equal(build(&x, &o), "");
	fx_release(&x);
}

/* Samples of the caller's (zt report --gpu's launches): stacks of the
 * profile or none, a leaf frame each, inner frames of some modules left
 * out. */
static void test_samples_with_leaf(void **state)
{
	static const char *const trim[] = {"a.so", NULL};
	struct frametab_source src;
	struct rmodel_opts o = {.children = 1};
	struct prof_sample in_s[4];
	uint32_t leaf[4], k1, k2;
	struct rmodel_input in = {in_s, leaf, 4, NULL};
	struct zt_frame f = {.module = "[gpu]", .quality = ZT_FRAME_BASIC};
	struct fx x;

	(void)state;
	fx_tree_profile(&x);
	src = fakesrc_source(&x.src, 0);
	assert_int_equal(proctree_new(&x.p, &x.pt), 0);
	x.src.pt = x.pt;
	frametab_init(&x.ft, x.pt, &src);
	f.sym = "k1";
	k1 = (uint32_t)x.ft.nr_frames;
	assert_int_equal(frametab_push(&x.ft, &f), 0);
	f.sym = "k2";
	k2 = (uint32_t)x.ft.nr_frames;
	assert_int_equal(frametab_push(&x.ft, &f), 0);
	/* f1 f2 main under k1 and under k2; k1 without a stack; f2 main under k1 */
	in_s[0] = x.p.samples[0];
	in_s[0].weight = 5;
	leaf[0] = k1;
	in_s[1] = x.p.samples[0];
	in_s[1].weight = 3;
	leaf[1] = k2;
	in_s[2] = x.p.samples[0];
	in_s[2].stack = RMODEL_NO_STACK;
	in_s[2].weight = 2;
	leaf[2] = k1;
	in_s[3] = x.p.samples[2];
	in_s[3].weight = 1;
	leaf[3] = k1;
	assert_int_equal(rmodel_init_with(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, &in, NULL, NULL), 0);
	assert_int_equal(x.m.nr_groups, 4); /* one stack under two leaves: two groups */
	assert_int_equal(x.m.total, 11);
	assert_string_equal(build(&x, &o), "prog a.so [.] f2: 0/0 9/3\n"
					   "prog prog [.] main: 0/0 9/3\n"
					   "prog [gpu] [.] k1: 8/3 8/3\n"
					   "prog a.so [.] f1: 0/0 8/2\n"
					   "prog [gpu] [.] k2: 3/1 3/1\n");
	rmodel_release(&x.m);

	/* a.so's frames at the inner end left out */
	in.trim = trim;
	assert_int_equal(rmodel_init_with(&x.m, &(struct rstacks){&x.p, x.pt, &x.ft}, &in, NULL, NULL), 0);
	assert_string_equal(build(&x, &o), "prog prog [.] main: 0/0 9/3\n"
					   "prog [gpu] [.] k1: 8/3 8/3\n"
					   "prog [gpu] [.] k2: 3/1 3/1\n");
	fx_release(&x);
}

/* --max-stack, -p and -x on the known tree */
static void test_stack_opts(void **state)
{
	struct rmodel_opts o = {.children = 1};
	regex_t re;
	struct fx x;

	(void)state;
	fx_tree(&x);
	/* one address: Self only, Children = Self */
	o.max_stack = 1;
	build(&x, &o);
	assert_int_equal(entry(&x, "prog", "main")->children, 30);
	assert_int_equal(entry(&x, "prog", "f2")->children, 50);
	assert_int_equal(entry(&x, "prog", "f1")->children, 210);
	assert_int_equal(x.m.hist.total, 300);
	/* two: f1 f2 main stops at f2 */
	o.max_stack = 2;
	build(&x, &o);
	assert_int_equal(entry(&x, "prog", "main")->children, 80);
	assert_int_equal(entry(&x, "prog", "f2")->children, 260);
	o.max_stack = 0;

	/* -p ^f2$ -x: the samples with f2 on their stack; the rest hidden */
	assert_int_equal(regcomp(&re, "^f2$", REG_EXTENDED | REG_NOSUB), 0);
	o.parent = &re;
	o.exclude_other = 1;
	build(&x, &o);
	assert_int_equal(x.m.shown, 260);
	assert_int_equal(x.m.hist.total, 300);
	assert_int_equal(entry(&x, "prog", "main")->children, 260);
	assert_int_equal(entry(&x, "prog", "f2")->self, 50);
	/* the parent column: f2, or [other] */
	o.exclude_other = 0;
	o.keys[0] = HIST_KEY_SYM;
	o.keys[1] = HIST_KEY_PARENT;
	o.nr_keys = 2;
	o.children = 0;
	build(&x, &o);
	assert_string_equal(hist_str(&x.m.hist, entry(&x, NULL, "f1")->f.parent), "f2");
	assert_int_equal(entry(&x, NULL, "f1")->self, 210);
	assert_string_equal(hist_str(&x.m.hist, entry(&x, NULL, "kfunc")->f.parent), "[other]");
	/* --ignore-callees ^f2$: f1's samples under f2 become f2's own */
	o.nr_keys = 0;
	o.ignore_callees = &re;
	build(&x, &o);
	assert_int_equal(entry(&x, "prog", "f2")->self, 260);
	assert_int_equal(entry(&x, "other", "f1")->self, 7); /* no f2 on its stack */
	assert_int_equal(x.m.hist.total, 300);
	regfree(&re);
	fx_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_time_sensitive_groups),
		cmocka_unit_test(test_children_self),
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_filter_rows),
		cmocka_unit_test(test_filter_parsing),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_empty_and_progress),
		cmocka_unit_test(test_event_models),
		cmocka_unit_test(test_samples_with_leaf),
		cmocka_unit_test(test_stack_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
