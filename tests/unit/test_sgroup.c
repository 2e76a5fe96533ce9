// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of sample groups: one index per distinct key, in order, across rehashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "libprof/sgroup.h"

static void test_keys(void **state)
{
	static const char a[] = "a", b[] = "a"; /* equal text, different pointers */
	struct sgroups g;
	struct sgroup_key k1 = { 1, 10, 0, a, 7 }, k2 = k1;
	uint32_t i, j;
	int is_new;

	sgroups_init(&g);
	assert_int_equal(sgroups_find(&g, &k1, &i, &is_new), 0);
	assert_int_equal(i, 0);
	assert_true(is_new);
	assert_int_equal(sgroups_find(&g, &k2, &j, &is_new), 0);
	assert_int_equal(j, 0);
	assert_false(is_new);
	k2.comm = b;
	assert_int_equal(sgroups_find(&g, &k2, &j, &is_new), 0);
	assert_int_equal(j, 1);
	k2 = k1;
	k2.tid = 11;
	assert_int_equal(sgroups_find(&g, &k2, &j, &is_new), 0);
	assert_int_equal(j, 2);
	k2 = k1;
	k2.epoch = 8;
	assert_int_equal(sgroups_find(&g, &k2, &j, &is_new), 0);
	assert_int_equal(j, 3);
	assert_int_equal(g.nr, 4);
	sgroups_release(&g);
}

static void test_many(void **state)
{
	struct sgroups g;
	uint32_t i, idx;
	int is_new;

	sgroups_init(&g);
	for (i = 0; i < 20000; i++) {
		struct sgroup_key k = { i, i % 7, 0, NULL, i % 3 };

		assert_int_equal(sgroups_find(&g, &k, &idx, &is_new), 0);
		assert_int_equal(idx, i);
		assert_true(is_new);
	}
	for (i = 0; i < 20000; i++) {
		struct sgroup_key k = { i, i % 7, 0, NULL, i % 3 };

		assert_int_equal(sgroups_find(&g, &k, &idx, &is_new), 0);
		assert_int_equal(idx, i);
		assert_false(is_new);
	}
	sgroups_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
