/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist: Children and Self with recursion, sort keys, output order and the
 * percent limit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/hist.h"

/* A frame of comm "prog", pid 1, in dso, named sym (user code). */
static struct hist_frame fr(struct hist *h, const char *dso, const char *sym)
{
	struct hist_frame f = {.pid = 1, .symq = 2};

	assert_int_equal(hist_intern(h, "prog", &f.comm), 0);
	assert_int_equal(hist_intern(h, dso, &f.dso), 0);
	assert_int_equal(hist_intern(h, sym, &f.sym), 0);
	return f;
}

static const struct hist_entry *find(const struct hist_entry **rows, size_t n,
				     const struct hist *h, const char *sym)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(hist_str(h, rows[i]->f.sym), sym))
			return rows[i];
	return NULL;
}

static void test_intern_and_keys(void **state)
{
	struct hist h;
	enum hist_key k;
	uint32_t a, b, c;

	assert_int_equal(hist_init(&h, NULL, 0), 0);
	assert_int_equal(h.nr_keys, 3);
	assert_int_equal(h.keys[0], HIST_KEY_COMM);
	assert_int_equal(h.keys[1], HIST_KEY_DSO);
	assert_int_equal(h.keys[2], HIST_KEY_SYM);
	assert_int_equal(hist_intern(&h, "x", &a), 0);
	assert_int_equal(hist_intern(&h, "y", &b), 0);
	assert_int_equal(hist_intern(&h, "x", &c), 0);
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	assert_string_equal(hist_str(&h, b), "y");
	for (unsigned i = 0; i < 5000; i++) { /* through several rehashes */
		char s[16];

		snprintf(s, sizeof(s), "s%u", i);
		assert_int_equal(hist_intern(&h, s, &c), 0);
		assert_string_equal(hist_str(&h, c), s);
	}
	assert_int_equal(hist_intern(&h, "y", &c), 0);
	assert_int_equal(b, c);
	hist_release(&h);

	assert_int_equal(hist_key_parse("tgid", &k), 0);
	assert_int_equal(k, HIST_KEY_PID);
	assert_int_equal(hist_key_parse("pid", &k), 0); /* perf's: the thread */
	assert_int_equal(k, HIST_KEY_TID);
	assert_int_equal(hist_key_parse("tid", &k), 0);
	assert_int_equal(k, HIST_KEY_TID);
	assert_int_equal(hist_key_parse("dso", &k), 0);
	assert_int_equal(k, HIST_KEY_DSO);
	assert_int_equal(hist_key_parse("srcline", &k), 0);
	assert_int_equal(k, HIST_KEY_SRCLINE);
	assert_int_equal(hist_key_parse("symq", &k), 0);
	assert_int_equal(k, HIST_KEY_SYMQ);
	assert_int_equal(hist_key_parse("bogus", &k), -EINVAL);
	assert_string_equal(hist_key_name(HIST_KEY_SYM), "sym");
}

/* perf's column widths for an entry without a function: Symbol as wide
 * as "[.] 0x" and 16 digits, Shared Object 16 unless a module filter is
 * given; a resolved entry's text as it is. */
static void test_key_width(void **state)
{
	struct hist_entry e;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(hist_key_width(&e, HIST_KEY_SYM, 15, 0), 22);
	assert_int_equal(hist_key_width(&e, HIST_KEY_SYM, 30, 0), 30);
	assert_int_equal(hist_key_width(&e, HIST_KEY_DSO, 2, 0), 16);
	assert_int_equal(hist_key_width(&e, HIST_KEY_DSO, 2, 1), 2);
	assert_int_equal(hist_key_width(&e, HIST_KEY_COMM, 2, 0), 2);
	e.f.symq = 2;
	assert_int_equal(hist_key_width(&e, HIST_KEY_SYM, 15, 0), 15);
	assert_int_equal(hist_key_width(&e, HIST_KEY_DSO, 2, 0), 2);
}

static void test_children_self_recursion(void **state)
{
	struct hist h;
	struct hist_frame f[4];
	const struct hist_entry **rows, *e;
	const struct hist_opts o = {1, HIST_CHAIN_CALLER, 0};
	size_t n;

	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	/* a -> b -> a recursion under main: a counted once in children */
	f[0] = fr(&h, "prog", "a");
	f[1] = fr(&h, "prog", "b");
	f[2] = fr(&h, "prog", "a");
	f[3] = fr(&h, "prog", "main");
	assert_int_equal(hist_add_sample(&h, f, 4, 1000, 10), 0);
	f[0] = fr(&h, "prog", "b");
	f[1] = fr(&h, "prog", "main");
	assert_int_equal(hist_add_sample(&h, f, 2, 500, 5), 0);
	assert_int_equal(hist_add_sample(&h, f, 0, 100, 1), 0); /* no frames: totals only */
	assert_int_equal(h.total, 1600);
	assert_int_equal(h.total_nr, 16);

	assert_int_equal(hist_sort(&h, 1, 0, &rows, &n), 0);
	assert_int_equal(n, 3);
	e = find(rows, n, &h, "a");
	assert_non_null(e);
	assert_int_equal(e->self, 1000);
	assert_int_equal(e->children, 1000);
	assert_int_equal(e->self_nr, 10);
	assert_int_equal(e->children_nr, 10);
	e = find(rows, n, &h, "b");
	assert_int_equal(e->self, 500);
	assert_int_equal(e->children, 1500);
	assert_int_equal(e->children_nr, 15);
	e = find(rows, n, &h, "main");
	assert_int_equal(e->self, 0);
	assert_int_equal(e->children, 1500);
	/* by children; main and b tie: with call chains, the caller first
	 * (perf's max_depth: main's chains are longer from it on) */
	assert_string_equal(hist_str(&h, rows[0]->f.sym), "main");
	assert_string_equal(hist_str(&h, rows[1]->f.sym), "b");
	assert_string_equal(hist_str(&h, rows[2]->f.sym), "a");
	assert_int_equal(find(rows, n, &h, "main")->depth, 4);
	assert_int_equal(find(rows, n, &h, "b")->depth, 2);
	/* without call chains (perf -g none): no depth, Self decides */
	h.opts.chain = HIST_CHAIN_NONE;
	assert_int_equal(hist_sort(&h, 1, 0, &rows, &n), 0);
	assert_string_equal(hist_str(&h, rows[0]->f.sym), "b");
	assert_string_equal(hist_str(&h, rows[1]->f.sym), "main");
	h.opts.chain = HIST_CHAIN_CALLER;

	/* without children: by self, only entries with self */
	assert_int_equal(hist_sort(&h, 0, 0, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(hist_str(&h, rows[0]->f.sym), "a");
	assert_string_equal(hist_str(&h, rows[1]->f.sym), "b");
	hist_release(&h);
}

static void test_sort_ties_and_limit(void **state)
{
	struct hist h;
	struct hist_frame f[2];
	const struct hist_entry **rows;
	size_t n;

	assert_int_equal(hist_init(&h, NULL, 0), 0);
	/* leaves of equal weight order by name; a kernel frame is its own entry */
	f[0] = fr(&h, "prog", "zeta");
	assert_int_equal(hist_add_sample(&h, f, 1, 300, 3), 0);
	f[0] = fr(&h, "prog", "alpha");
	assert_int_equal(hist_add_sample(&h, f, 1, 300, 3), 0);
	f[0] = fr(&h, "[kernel.kallsyms]", "alpha");
	f[0].kernel = 1;
	assert_int_equal(hist_add_sample(&h, f, 1, 390, 3), 0);
	f[0] = fr(&h, "prog", "tiny");
	assert_int_equal(hist_add_sample(&h, f, 1, 10, 1), 0);

	assert_int_equal(hist_sort(&h, 1, 0, &rows, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(rows[0]->f.kernel, 1);
	assert_string_equal(hist_str(&h, rows[1]->f.sym), "alpha");
	assert_int_equal(rows[1]->f.kernel, 0);
	assert_string_equal(hist_str(&h, rows[2]->f.sym), "zeta");
	assert_string_equal(hist_str(&h, rows[3]->f.sym), "tiny");

	/* 10 of 1000 is 1%: kept at a 1% limit, dropped above */
	assert_int_equal(hist_sort(&h, 1, 1.0, &rows, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(hist_sort(&h, 0, 1.5, &rows, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(hist_sort(&h, 1, 35, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(hist_sort(&h, 1, 50, &rows, &n), 0);
	assert_int_equal(n, 0);
	hist_release(&h);
}

static void test_other_keys(void **state)
{
	static const enum hist_key by_dso[] = { HIST_KEY_DSO, HIST_KEY_DSO };
	static const enum hist_key by_pid[] = { HIST_KEY_PID, HIST_KEY_SYM };
	struct hist h;
	struct hist_frame f[3];
	const struct hist_entry **rows;
	size_t n;

	/* dso only: frames of one module merge, once per sample */
	assert_int_equal(hist_init(&h, by_dso, 2), 0);
	assert_int_equal(h.nr_keys, 1);
	f[0] = fr(&h, "libc.so.6", "memcpy");
	f[1] = fr(&h, "prog", "work");
	f[2] = fr(&h, "prog", "main");
	assert_int_equal(hist_add_sample(&h, f, 3, 100, 1), 0);
	f[0] = fr(&h, "prog", "work");
	f[1] = fr(&h, "prog", "main");
	assert_int_equal(hist_add_sample(&h, f, 2, 300, 3), 0);
	assert_int_equal(hist_sort(&h, 1, 0, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(hist_str(&h, rows[0]->f.dso), "prog");
	assert_int_equal(rows[0]->children, 400);
	assert_int_equal(rows[0]->self, 300);
	assert_string_equal(hist_str(&h, rows[1]->f.dso), "libc.so.6");
	assert_int_equal(rows[1]->children, 100);
	hist_release(&h);

	/* pid,sym: the same function in two processes stays apart */
	assert_int_equal(hist_init(&h, by_pid, 2), 0);
	f[0] = fr(&h, "prog", "work");
	assert_int_equal(hist_add_sample(&h, f, 1, 100, 1), 0);
	f[0].pid = 2;
	assert_int_equal(hist_add_sample(&h, f, 1, 200, 2), 0);
	f[0].pid = 1;
	assert_int_equal(hist_add_sample(&h, f, 1, 50, 1), 0);
	assert_int_equal(hist_sort(&h, 0, 0, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0]->f.pid, 2);
	assert_int_equal(rows[0]->self, 200);
	assert_int_equal(rows[1]->f.pid, 1);
	assert_int_equal(rows[1]->self, 150);
	assert_int_equal(rows[1]->self_nr, 2);
	hist_release(&h);
}

static void test_many_entries(void **state)
{
	struct hist h;
	struct hist_frame f[64];
	const struct hist_entry **rows;
	size_t n, i, j;
	uint64_t sum = 0;

	assert_int_equal(hist_init(&h, NULL, 0), 0);
	for (i = 0; i < 3000; i++) {
		for (j = 0; j < 64; j++) {
			char s[32];

			snprintf(s, sizeof(s), "f%zu", (i * 7 + j * 13) % 5000);
			f[j] = fr(&h, "prog", s);
		}
		assert_int_equal(hist_add_sample(&h, f, 64, i + 1, 1), 0);
	}
	assert_int_equal(hist_sort(&h, 0, 0, &rows, &n), 0);
	for (i = 0; i < n; i++) {
		sum += rows[i]->self;
		if (i)
			assert_true(rows[i - 1]->self >= rows[i]->self);
	}
	assert_int_equal(sum, h.total); /* Self adds up to 100% */
	assert_int_equal(hist_sort(&h, 1, 0, &rows, &n), 0);
	for (i = 0; i < n; i++)
		assert_true(rows[i]->children <= h.total && rows[i]->children >= rows[i]->self);
	hist_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern_and_keys),
		cmocka_unit_test(test_key_width),
		cmocka_unit_test(test_children_self_recursion),
		cmocka_unit_test(test_sort_ties_and_limit),
		cmocka_unit_test(test_other_keys),
		cmocka_unit_test(test_many_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
