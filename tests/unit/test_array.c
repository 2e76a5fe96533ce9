/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the one array helper: growth, its overflow checks, the upper bound. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "libprof/array.h"

static void test_grow(void **state)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(ZT_GROW(v, cap, 0), 0); /* nothing needed: nothing done */
	assert_null(v);
	assert_int_equal(ZT_GROW(v, cap, 1), 0);
	assert_non_null(v);
	assert_int_equal(cap, 16);
	for (uint32_t i = 0; i < 1000; i++) {
		assert_int_equal(ZT_GROW(v, cap, i + 1), 0);
		assert_true(cap >= i + 1);
		v[i] = i;
	}
	assert_int_equal(cap, 1024); /* doubling */
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(v[i], i); /* kept across the moves */
	assert_int_equal(ZT_GROW(v, cap, 5000), 0);
	assert_int_equal(cap, 8192);
	free(v);
}

static void test_grow_overflow(void **state)
{
	uint64_t *v = NULL, *keep;
	size_t cap = 0;

	(void)state;
	assert_int_equal(ZT_GROW(v, cap, SIZE_MAX), -ENOMEM);
	assert_int_equal(ZT_GROW(v, cap, SIZE_MAX / 4), -ENOMEM); /* count * size overflows */
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(ZT_GROW(v, cap, 3), 0);
	keep = v;
	assert_int_equal(ZT_GROW(v, cap, SIZE_MAX / 2 + 2), -ENOMEM);
	assert_ptr_equal(v, keep); /* unchanged on failure */
	assert_int_equal(cap, 16);
	free(v);
}

/* the start and end of the mapping in /proc/self/maps that holds ADDR (0 0: none) */
static void mapping_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long a, b;

	*lo = *hi = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && addr >= a && addr < b) {
			*lo = a;
			*hi = b;
			break;
		}
	fclose(f);
}

/* A big array asked onto huge pages stays one mapping, so growing it again
 * moves its pages (mremap) instead of copying them: advice on only its
 * 2 MiB-aligned middle split it in three, and every later growth copied the
 * whole array. The array keeps its contents across each growth. */
static void test_grow_huge_one_mapping(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	uintptr_t lo, hi;

	(void)state;
	for (uint64_t i = 0; i < (3u << 20); i++) { /* 24 MiB at the end */
		assert_int_equal(ZT_GROW(v, cap, i + 1), 0);
		v[i] = i;
		if (cap * sizeof(*v) >= (8u << 20) && cap == i + 1) {
			mapping_of((uintptr_t)v, &lo, &hi);
			assert_true(lo != 0);
			/* the whole array, from its first to its last byte, in the one mapping */
			assert_true((uintptr_t)(v + cap) <= hi);
		}
	}
	for (uint64_t i = 0; i < (3u << 20); i += 4099)
		assert_int_equal(v[i], i);
	free(v);
}

struct row {
	uint32_t pad;
	uint64_t addr;
};

static void test_upper_bound(void **state)
{
	static const struct row r[] = {{0, 10}, {0, 20}, {0, 20}, {0, 30}};

	(void)state;
	assert_int_equal(ZT_UPPER_BOUND(r, 4, addr, 5), 0);
	assert_int_equal(ZT_UPPER_BOUND(r, 4, addr, 10), 1);
	assert_int_equal(ZT_UPPER_BOUND(r, 4, addr, 19), 1);
	assert_int_equal(ZT_UPPER_BOUND(r, 4, addr, 20), 3);
	assert_int_equal(ZT_UPPER_BOUND(r, 4, addr, UINT64_MAX), 4);
	assert_int_equal(ZT_UPPER_BOUND(r, 0, addr, 20), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_grow_overflow),
		cmocka_unit_test(test_grow_huge_one_mapping),
		cmocka_unit_test(test_upper_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
