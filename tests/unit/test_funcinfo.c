/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * funcinfo: string interning, the file table with index 0 reserved, and
 * fi_finish (sorting, entries at one address, sizeless symbols, line rows).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/funcinfo.h"

static void test_str(void **state)
{
	struct fi_table t;
	uint32_t a, b, offs[5000];
	char buf[32];
	int i;

	fi_table_init(&t);
	assert_int_equal(fi_str(&t, ""), 0);
	assert_int_equal(fi_str(&t, NULL), 0);
	a = fi_str(&t, "main");
	b = fi_str(&t, "helper");
	assert_true(a > 0 && b > 0 && a != b);
	assert_int_equal(fi_str(&t, "main"), a);
	assert_string_equal(fi_strat(&t, a), "main");
	assert_string_equal(fi_strat(&t, b), "helper");
	assert_string_equal(fi_strat(&t, 0), "");
	assert_string_equal(fi_strat(&t, 1u << 30), "");
	/* a suffix of an interned string is a string of its own */
	assert_int_not_equal(fi_str(&t, "ain"), a);
	/* many strings: rehashing keeps every offset */
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		offs[i] = fi_str(&t, buf);
		assert_int_not_equal(offs[i], UINT32_MAX);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		assert_int_equal(fi_str(&t, buf), offs[i]);
		assert_string_equal(fi_strat(&t, offs[i]), buf);
	}
	assert_int_equal(fi_str(&t, "main"), a);
	assert_int_equal(t.strtab[0], 0);
	assert_int_equal(t.strtab[t.strtab_len - 1], 0);
	fi_table_release(&t);
	fi_table_release(&t); /* released twice: harmless */
}

static void test_file(void **state)
{
	struct fi_table t;
	uint32_t a, b, c, d;

	fi_table_init(&t);
	a = fi_file(&t, "/src", "a.c");
	assert_int_equal(a, 1);
	assert_int_equal(t.nr_files, 2);
	assert_int_equal(t.files[0].dir, 0);
	assert_int_equal(t.files[0].base, 0);
	b = fi_file(&t, "/src", "b.c");
	c = fi_file(&t, "/other", "a.c");
	assert_int_equal(b, 2);
	assert_int_equal(c, 3);
	assert_int_equal(fi_file(&t, "/src", "a.c"), a);
	assert_int_equal(fi_file(&t, "/other", "a.c"), c);
	/* no directory: NULL and "" are the same */
	d = fi_file(&t, NULL, "x.c");
	assert_int_equal(fi_file(&t, "", "x.c"), d);
	assert_int_equal(t.files[d].dir, 0);
	assert_string_equal(fi_strat(&t, t.files[a].dir), "/src");
	assert_string_equal(fi_strat(&t, t.files[c].base), "a.c");
	assert_int_equal(t.files[a].base, t.files[c].base); /* strings shared */
	assert_int_equal(t.nr_files, 5);
	fi_table_release(&t);
}

static struct fi_func *find(struct fi_table *t, uint64_t start)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++)
		if (t->funcs[i].start == start)
			return &t->funcs[i];
	return NULL;
}

static void test_finish(void **state)
{
	struct fi_table t;
	struct fi_func *f;
	uint32_t file, n_rich, n_bare, n_big;
	size_t i;

	fi_table_init(&t);
	file = fi_file(&t, "/d", "f.c");
	n_rich = fi_str(&t, "rich");
	n_bare = fi_str(&t, "bare");
	n_big = fi_str(&t, "big");
	/* out of order; three entries at 0x2000: a bare symbol, a bigger bare
	 * symbol and one with lines (given in that order) */
	assert_non_null(fi_add_func(&t, 0x3000, 0, fi_str(&t, "sizeless")));
	assert_non_null(fi_add_func(&t, 0x2000, 0x10, n_bare));
	assert_non_null(fi_add_func(&t, 0x2000, 0x80, n_big));
	f = fi_add_func(&t, 0x2000, 0x40, n_rich);
	assert_non_null(f);
	assert_int_equal(fi_add_line(f, 0x2010, file, 3), 0);
	assert_int_equal(fi_add_line(f, 0x2000, file, 1), 0);
	assert_int_equal(fi_add_line(f, 0x2010, file, 4), 0); /* same address: the last wins */
	assert_int_equal(fi_add_line(f, 0x2008, file, 2), 0);
	assert_non_null(fi_add_func(&t, 0x1000, 0x10, fi_str(&t, "first")));
	/* two bare symbols at one address: the larger stays */
	assert_non_null(fi_add_func(&t, 0x4000, 0x8, fi_str(&t, "small")));
	assert_non_null(fi_add_func(&t, 0x4000, 0x20, fi_str(&t, "large")));
	/* the kept entry has no name: it takes the other's */
	f = fi_add_func(&t, 0x5000, 0x10, 0);
	assert_int_equal(fi_add_line(f, 0x5000, file, 9), 0);
	assert_non_null(fi_add_func(&t, 0x5000, 0x10, fi_str(&t, "named")));
	/* the last one, sizeless: stays sizeless */
	assert_non_null(fi_add_func(&t, 0x6000, 0, fi_str(&t, "tail")));

	assert_int_equal(fi_finish(&t), 0);
	assert_int_equal(t.nr_funcs, 6);
	for (i = 1; i < t.nr_funcs; i++)
		assert_true(t.funcs[i - 1].start < t.funcs[i].start);
	f = find(&t, 0x2000);
	assert_int_equal(f->name, n_rich);
	assert_int_equal(f->size, 0x40);
	assert_int_equal(f->nr_lines, 3);
	assert_int_equal(f->lines[0].addr, 0x2000);
	assert_int_equal(f->lines[1].addr, 0x2008);
	assert_int_equal(f->lines[2].addr, 0x2010);
	assert_int_equal(f->lines[2].line, 4);
	/* sizeless: extended to the next function */
	assert_int_equal(find(&t, 0x3000)->size, 0x1000);
	assert_string_equal(fi_strat(&t, find(&t, 0x4000)->name), "large");
	assert_string_equal(fi_strat(&t, find(&t, 0x5000)->name), "named");
	assert_int_equal(find(&t, 0x5000)->nr_lines, 1);
	assert_int_equal(find(&t, 0x6000)->size, 0);
	assert_int_equal(find(&t, 0x1000)->size, 0x10);
	/* idempotent */
	assert_int_equal(fi_finish(&t), 0);
	assert_int_equal(t.nr_funcs, 6);
	fi_table_release(&t);
}

static void test_empty(void **state)
{
	struct fi_table t;

	fi_table_init(&t);
	assert_int_equal(fi_finish(&t), 0);
	assert_int_equal(t.nr_funcs, 0);
	fi_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
