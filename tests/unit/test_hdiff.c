/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hdiff: perf diff's pairing (functions by name, addresses without a
 * symbol as one), its values and its row order, on small histograms.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/hdiff.h"

static const enum hist_key keys[] = {HIST_KEY_DSO, HIST_KEY_SYM};

/* weight of function sym (symq 0: no symbol, its name an address) in dso */
static void add(struct hist *h, const char *dso, const char *sym, int symq, uint64_t weight)
{
	struct hist_frame f = {.pid = 1, .symq = (uint8_t)symq};

	assert_int_equal(hist_intern(h, "prog", &f.comm), 0);
	assert_int_equal(hist_intern(h, dso, &f.dso), 0);
	assert_int_equal(hist_intern(h, sym, &f.sym), 0);
	assert_int_equal(hist_add_sample(h, &f, 1, weight, 1), 0);
}

static const char *sym_of(const struct hdiff *d, const struct hdiff_row *r)
{
	size_t f = 0;
	const struct hist_entry *e = hdiff_row_entry(d, r, &f);

	return hist_str(d->h[f], e->f.sym);
}

/* old: a 50, b 30, [x+0x10] 10, [x+0x20] 10; new: a 20, c 40, b 20, [x+0x30] 20 */
static void make(struct hist *old, struct hist *new)
{
	const struct hist_opts ho = {0};

	assert_int_equal(hist_init_opts(old, keys, 2, &ho), 0);
	assert_int_equal(hist_init_opts(new, keys, 2, &ho), 0);
	add(old, "m", "a", 2, 50);
	add(old, "m", "b", 2, 30);
	add(old, "x", "[x+0x10]", 0, 10);
	add(old, "x", "[x+0x20]", 0, 10);
	add(new, "m", "a", 2, 20);
	add(new, "m", "c", 2, 40);
	add(new, "m", "b", 2, 20);
	add(new, "x", "[x+0x30]", 0, 20);
}

static void test_delta_abs(void **state)
{
	struct hist old, new;
	const struct hist *h[2] = {&old, &new};
	const uint64_t totals[2] = {100, 100};
	const struct hdiff_opts o = {.compute = HDIFF_DELTA_ABS, .order = 1};
	struct hdiff d;

	(void)state;
	make(&old, &new);
	assert_int_equal(hdiff_build(&d, h, totals, 2, &o), 0);
	/* a -30, c +40 (not in the baseline), b -10, the x addresses as one: 20 -> 20 */
	assert_int_equal(d.nr_rows, 4);
	assert_string_equal(sym_of(&d, &d.rows[0]), "c");
	assert_null(d.rows[0].e[0]);
	assert_true(fabs(d.rows[0].delta[1] - 40.0) < 1e-9);
	assert_string_equal(sym_of(&d, &d.rows[1]), "a");
	assert_true(fabs(d.rows[1].delta[1] + 30.0) < 1e-9);
	assert_string_equal(sym_of(&d, &d.rows[2]), "b");
	assert_string_equal(sym_of(&d, &d.rows[3]), "[x+0x10]"); /* the first of them */
	assert_int_equal(d.rows[3].period[0], 20);
	assert_int_equal(d.rows[3].period[1], 20);
	assert_true(fabs(d.rows[3].delta[1]) < 1e-9);
	assert_true(fabs(hdiff_percent(&d, &d.rows[1], 0) - 50.0) < 1e-9);
	hdiff_release(&d);

	/* -o 0: by the baseline's period first; c (none) last */
	const struct hdiff_opts o0 = {.compute = HDIFF_DELTA_ABS, .order = 0};

	assert_int_equal(hdiff_build(&d, h, totals, 2, &o0), 0);
	assert_string_equal(sym_of(&d, &d.rows[0]), "a");
	assert_string_equal(sym_of(&d, &d.rows[1]), "b");
	assert_string_equal(sym_of(&d, &d.rows[3]), "c");
	hdiff_release(&d);
	hist_release(&old);
	hist_release(&new);
}

static void test_ratio_wdiff_baseline_only(void **state)
{
	struct hist old, new;
	const struct hist *h[2] = {&old, &new};
	const uint64_t totals[2] = {100, 100};
	struct hdiff_opts o = {.compute = HDIFF_RATIO, .order = 1};
	struct hdiff d;

	(void)state;
	make(&old, &new);
	assert_int_equal(hdiff_build(&d, h, totals, 2, &o), 0);
	/* ratio: x 1.0, b 0.667, a 0.4; c (no baseline) last */
	assert_string_equal(sym_of(&d, &d.rows[0]), "[x+0x10]");
	assert_string_equal(sym_of(&d, &d.rows[1]), "b");
	assert_true(fabs(d.rows[1].ratio[1] - 20.0 / 30.0) < 1e-9);
	assert_string_equal(sym_of(&d, &d.rows[2]), "a");
	assert_string_equal(sym_of(&d, &d.rows[3]), "c");
	hdiff_release(&d);

	o.compute = HDIFF_WDIFF;
	o.w1 = 1;
	o.w2 = 2;
	assert_int_equal(hdiff_build(&d, h, totals, 2, &o), 0);
	/* 2 new - old: x 20, b 10, a -10; c last */
	assert_string_equal(sym_of(&d, &d.rows[0]), "[x+0x10]");
	assert_int_equal(d.rows[0].wdiff[1], 20);
	assert_string_equal(sym_of(&d, &d.rows[2]), "a");
	assert_int_equal(d.rows[2].wdiff[1], -10);
	hdiff_release(&d);

	o.compute = HDIFF_DELTA;
	o.baseline_only = 1;
	assert_int_equal(hdiff_build(&d, h, totals, 2, &o), 0);
	assert_int_equal(d.nr_rows, 3); /* not c */
	assert_int_equal(d.total[0], 100);
	/* delta: x 0, b -10, a -30 */
	assert_string_equal(sym_of(&d, &d.rows[0]), "[x+0x10]");
	assert_string_equal(sym_of(&d, &d.rows[2]), "a");
	hdiff_release(&d);
	hist_release(&old);
	hist_release(&new);
}

static void test_bad_input(void **state)
{
	struct hist a, b;
	const struct hist *h[2] = {&a, &b};
	const uint64_t totals[2] = {1, 1};
	const enum hist_key other[] = {HIST_KEY_COMM};
	const struct hdiff_opts o = {.order = 2};
	struct hdiff d;

	(void)state;
	assert_int_equal(hist_init(&a, keys, 2), 0);
	assert_int_equal(hist_init(&b, other, 1), 0);
	assert_int_equal(hdiff_build(&d, h, totals, 2, NULL), -EINVAL); /* other keys */
	assert_int_equal(hdiff_build(&d, h, totals, 1, NULL), -EINVAL);
	hist_release(&b);
	assert_int_equal(hist_init(&b, keys, 2), 0);
	assert_int_equal(hdiff_build(&d, h, totals, 2, &o), -EINVAL); /* -o past the files */
	assert_int_equal(hdiff_build(&d, h, totals, 2, NULL), 0);     /* empty */
	assert_int_equal(d.nr_rows, 0);
	hdiff_release(&d);
	hist_release(&a);
	hist_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_abs),
		cmocka_unit_test(test_ratio_wdiff_baseline_only),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
