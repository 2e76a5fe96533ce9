/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of perf-style sizes and durations (--max-size, --switch-output, -m). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "libprof/units.h"

static void test_sizes(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(zt_parse_size("4096", 0, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(zt_parse_size("10M", 0, &v), 0);
	assert_int_equal(v, 10ull << 20);
	assert_int_equal(zt_parse_size("10m", ZT_SIZE_NEED_UNIT, &v), 0);
	assert_int_equal(v, 10ull << 20);
	assert_int_equal(zt_parse_size("512k", 0, &v), 0);
	assert_int_equal(v, 512ull << 10);
	assert_int_equal(zt_parse_size("3G", 0, &v), 0);
	assert_int_equal(v, 3ull << 30);
	assert_int_equal(zt_parse_size("7B", ZT_SIZE_NEED_UNIT, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(zt_parse_size("2T", 0, &v), 0);
	assert_int_equal(v, 2ull << 40);
	/* a bare number where a unit is needed, other units, junk */
	assert_int_equal(zt_parse_size("4096", ZT_SIZE_NEED_UNIT, &v), -EINVAL);
	assert_int_equal(zt_parse_size("10X", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size("10MB", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size("M", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size("", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size("-1K", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size(" 1K", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size(NULL, 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size("99999999999999999999", 0, &v), -ERANGE);
	assert_int_equal(zt_parse_size("17179869184G", 0, &v), -ERANGE);
}

/* zt serve's spellings: "512MB", "1GiB" besides "512M" */
static void test_sizes_long_units(void **state)
{
	const unsigned L = ZT_SIZE_LONG_UNIT;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(zt_parse_size("512M", L, &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(zt_parse_size("512MB", L, &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(zt_parse_size("1GiB", L, &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(zt_parse_size("4kiB", L, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(zt_parse_size("2TB", L, &v), 0);
	assert_int_equal(v, 2ull << 40);
	assert_int_equal(zt_parse_size("4096", L, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(zt_parse_size("7B", L, &v), 0);
	assert_int_equal(v, 7);
	/* only B or iB after a multiple, spelled so */
	assert_int_equal(zt_parse_size("7BB", L, &v), -EINVAL);
	assert_int_equal(zt_parse_size("7BiB", L, &v), -EINVAL);
	assert_int_equal(zt_parse_size("1MIB", L, &v), -EINVAL);
	assert_int_equal(zt_parse_size("1Mb", L, &v), -EINVAL);
	assert_int_equal(zt_parse_size("1MiBx", L, &v), -EINVAL);
	assert_int_equal(zt_parse_size("1GiB", 0, &v), -EINVAL);
	assert_int_equal(zt_parse_size("4096", L | ZT_SIZE_NEED_UNIT, &v), -EINVAL);
	assert_int_equal(zt_parse_size("1KB", L | ZT_SIZE_NEED_UNIT, &v), 0);
	assert_int_equal(v, 1024);
}

static void test_durations(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(zt_parse_duration("30s", &v), 0);
	assert_int_equal(v, 30000000000ull);
	assert_int_equal(zt_parse_duration("5m", &v), 0);
	assert_int_equal(v, 300000000000ull);
	assert_int_equal(zt_parse_duration("1h", &v), 0);
	assert_int_equal(v, 3600000000000ull);
	assert_int_equal(zt_parse_duration("2d", &v), 0);
	assert_int_equal(v, 2 * 86400000000000ull);
	assert_int_equal(zt_parse_duration("30", &v), -EINVAL);
	assert_int_equal(zt_parse_duration("30S", &v), -EINVAL);
	assert_int_equal(zt_parse_duration("30ss", &v), -EINVAL);
	assert_int_equal(zt_parse_duration("s", &v), -EINVAL);
	assert_int_equal(zt_parse_duration("99999999999d", &v), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_sizes_long_units),
		cmocka_unit_test(test_durations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
