/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * histhier: perf's --hierarchy rows: sums per level, the order at each
 * level (Self, then the keys), the percent limit and its empty rows, and
 * another event's Self as the tie (--group).
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

#include "libprof/histhier.h"

static const enum hist_key keys[] = {HIST_KEY_COMM, HIST_KEY_DSO, HIST_KEY_SYM};

/* One sample of weight w: comm, dso, sym (a leaf only: Self) at addr. */
static void add(struct hist *h, const char *comm, const char *dso, const char *sym, uint64_t addr,
		uint64_t w)
{
	struct hist_frame f = {.pid = 1, .symq = 2, .addr = addr};

	assert_int_equal(hist_intern(h, comm, &f.comm), 0);
	assert_int_equal(hist_intern(h, dso, &f.dso), 0);
	assert_int_equal(hist_intern(h, sym, &f.sym), 0);
	assert_int_equal(hist_add_sample(h, &f, 1, w, 1), 0);
}

static void build(struct hist *h)
{
	struct hist_opts o = {.children = 0};

	assert_int_equal(hist_init_opts(h, keys, 3, &o), 0);
	add(h, "b", "libc", "memcpy", 0x100, 10);
	add(h, "b", "app", "main", 0x200, 30);
	add(h, "b", "app", "work", 0x300, 30);
	add(h, "a", "app", "work", 0x300, 25);
	add(h, "a", "libc", "memcpy", 0x100, 4);
	add(h, "a", "libc", "strlen", 0x180, 1);
}

static const char *key(const struct hist *h, const struct histhier_row *r)
{
	static char buf[64];

	return hist_key_text(h, r->e, h->keys[r->depth], buf, sizeof(buf));
}

static void test_levels(void **state)
{
	struct hist h;
	struct hist_sortspec s = {.nr = 0};
	struct histhier_row *rows;
	const struct hist_entry **leaves;
	size_t n;
	static const char *const want[] = {"b",	       "app",	     "[.] main",   "[.] work",
					   "libc",     "[.] memcpy", "a",	   "app",
					   "[.] work", "libc",	     "[.] memcpy", "[.] strlen"};
	static const uint64_t wantw[] = {70, 60, 30, 30, 10, 10, 30, 25, 25, 5, 4, 1};
	static const size_t wantn[] = {3, 2, 1, 1, 1, 1, 3, 1, 1, 2, 1, 1};
	size_t i;

	(void)state;
	build(&h);
	hist_sortspec_default(&s, 0, keys, 3);
	assert_int_equal(histhier_build(&h, &s, 0, h.total, &rows, &n, &leaves), 0);
	assert_int_equal(n, 12);
	for (i = 0; i < n; i++) {
		assert_string_equal(key(&h, &rows[i]), want[i]);
		assert_int_equal(rows[i].weight, wantw[i]);
		assert_int_equal(rows[i].depth, i == 0 || i == 6       ? 0
						: strchr(want[i], ']') ? 2
								       : 1);
		assert_int_equal(rows[i].leaf, rows[i].depth == 2);
		assert_int_equal(rows[i].hi - rows[i].lo, wantn[i]);
	}
	free(rows);
	free(leaves);
	/* 10% of 100: libc of a (5) and what is under it go; a's app stays;
	 * b's libc (10) stays, its memcpy too */
	assert_int_equal(histhier_build(&h, &s, 10, h.total, &rows, &n, &leaves), 0);
	assert_int_equal(n, 9);
	assert_string_equal(key(&h, &rows[8]), "[.] work");
	for (i = 0; i < n; i++)
		assert_false(rows[i].empty);
	free(rows);
	free(leaves);
	/* 26%: a's app (25) goes, a (30) stays with nothing under it */
	assert_int_equal(histhier_build(&h, &s, 26, h.total, &rows, &n, &leaves), 0);
	assert_int_equal(n, 5);
	assert_string_equal(key(&h, &rows[4]), "a");
	assert_true(rows[4].empty);
	assert_false(rows[0].empty);
	free(rows);
	free(leaves);
	hist_release(&h);
}

/* Equal Self: another event's Self decides (perf's __hpp__sort() of a
 * group), before the keys */
static void test_group_tie(void **state)
{
	struct hist h;
	struct hist_sortspec s = {.nr = 0};
	struct histhier_row *rows;
	const struct hist_entry **leaves;
	uint64_t *grp;
	size_t n, i;

	(void)state;
	build(&h);
	hist_sortspec_default(&s, 0, keys, 3);
	grp = calloc(h.nr_entries, sizeof(*grp));
	assert_non_null(grp);
	for (i = 0; i < h.nr_entries; i++) /* b's main: more of the other event */
		grp[i] = !strcmp(hist_str(&h, h.entries[i].f.sym), "main") ? 9 : 1;
	h.grp = grp;
	h.grp_nr = 1;
	assert_int_equal(histhier_build(&h, &s, 0, h.total, &rows, &n, &leaves), 0);
	assert_string_equal(key(&h, &rows[2]), "[.] main");
	free(rows);
	free(leaves);
	for (i = 0; i < h.nr_entries; i++)
		grp[i] = !strcmp(hist_str(&h, h.entries[i].f.sym), "work") ? 9 : 1;
	assert_int_equal(histhier_build(&h, &s, 0, h.total, &rows, &n, &leaves), 0);
	assert_string_equal(key(&h, &rows[2]), "[.] work");
	assert_string_equal(key(&h, &rows[3]), "[.] main");
	free(rows);
	free(leaves);
	h.grp = NULL;
	free(grp);
	hist_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_group_tie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
