/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the string table: ids in first-seen order, lengths and NULs, stable storage, clear.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/strtab.h"

static uint32_t id_of(struct zt_strtab *t, const char *s)
{
	uint32_t id = UINT32_MAX;

	assert_int_equal(zt_strtab_intern_str(t, s, &id), 0);
	return id;
}

static void test_empty(void **state)
{
	struct zt_strtab t;

	(void)state;
	zt_strtab_init(&t);
	assert_int_equal(zt_strtab_count(&t), 0);
	assert_string_equal(zt_strtab_str(&t, 0), "");
	assert_int_equal(zt_strtab_len(&t, 0), 0);
	zt_strtab_release(&t);
	zt_strtab_release(&t); /* a released table is an empty one */

	memset(&t, 0, sizeof(t)); /* zeroed: empty too */
	assert_int_equal(id_of(&t, ""), 0);
	assert_int_equal(zt_strtab_count(&t), 1);
	assert_string_equal(zt_strtab_str(&t, 0), "");
	zt_strtab_release(&t);
}

static void test_order(void **state)
{
	struct zt_strtab t;

	(void)state;
	zt_strtab_init(&t);
	assert_int_equal(id_of(&t, ""), 0); /* pprof's string_table[0] */
	assert_int_equal(id_of(&t, "main"), 1);
	assert_int_equal(id_of(&t, "libc.so.6"), 2);
	assert_int_equal(id_of(&t, "main"), 1);
	assert_int_equal(id_of(&t, ""), 0);
	assert_int_equal(id_of(&t, "mai"), 3);
	assert_int_equal(zt_strtab_count(&t), 4);
	assert_string_equal(zt_strtab_str(&t, 2), "libc.so.6");
	assert_int_equal(zt_strtab_len(&t, 2), 9);
	assert_string_equal(zt_strtab_str(&t, 4), ""); /* out of range */
	assert_string_equal(zt_strtab_str(&t, UINT32_MAX), "");
	zt_strtab_release(&t);
}

static void test_len(void **state)
{
	struct zt_strtab t;
	uint32_t id;

	(void)state;
	zt_strtab_init(&t);
	/* a prefix of s by length */
	assert_int_equal(zt_strtab_intern(&t, "kernel_name", 6, &id), 0);
	assert_int_equal(id, 0);
	assert_string_equal(zt_strtab_str(&t, 0), "kernel");
	assert_int_equal(id_of(&t, "kernel"), 0);
	/* control bytes are bytes */
	assert_int_equal(zt_strtab_intern(&t,
					  "ab\x01"
					  "cd",
					  5, &id),
			 0);
	assert_int_equal(id, 1);
	assert_int_equal(zt_strtab_len(&t, 1), 5);
	assert_int_equal(id_of(&t, "ab\x01"
				   "cd"),
			 1);
	/* length 0 (and NULL with it) is "" */
	assert_int_equal(zt_strtab_intern(&t, NULL, 0, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(zt_strtab_intern(&t, "x", 0, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(id_of(&t, ""), 2);
	/* bytes above 0x7f are bytes */
	assert_int_equal(id_of(&t, "\xc3\xa9t\xc3\xa9"), 3);
	assert_int_equal(zt_strtab_len(&t, 3), 5);
	zt_strtab_release(&t);
}

/* Many strings, some long: every id and every pointer stays as first given. */
static void test_many_stable(void **state)
{
	enum { N = 50000 };
	struct zt_strtab t;
	const char **ptr = calloc(N, sizeof(*ptr));
	char buf[64], *big;
	size_t i;

	(void)state;
	assert_non_null(ptr);
	zt_strtab_init(&t);
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "sym_%zu", i * 7919);
		assert_int_equal(id_of(&t, buf), i);
		ptr[i] = zt_strtab_str(&t, (uint32_t)i);
	}
	/* strings larger than a block, between small ones */
	big = malloc(3u << 20);
	assert_non_null(big);
	memset(big, 'z', (3u << 20) - 1);
	big[(3u << 20) - 1] = '\0';
	assert_int_equal(id_of(&t, big), N);
	big[1u << 19] = '\0';
	assert_int_equal(id_of(&t, big), N + 1);
	assert_int_equal(id_of(&t, "after"), N + 2);
	assert_int_equal(zt_strtab_len(&t, N), (3u << 20) - 1);
	assert_int_equal(zt_strtab_len(&t, N + 1), 1u << 19);
	assert_int_equal(zt_strtab_count(&t), N + 3);
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "sym_%zu", i * 7919);
		assert_ptr_equal(zt_strtab_str(&t, (uint32_t)i), ptr[i]);
		assert_string_equal(ptr[i], buf);
		assert_int_equal(id_of(&t, buf), i);
	}
	assert_int_equal(id_of(&t, big), N + 1);
	free(big);
	free(ptr);
	zt_strtab_release(&t);
}

static void test_clear(void **state)
{
	struct zt_strtab t;
	char buf[32];
	int round;
	size_t i;

	(void)state;
	zt_strtab_init(&t);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 5000; i++) {
			snprintf(buf, sizeof(buf), "%d:%zu", round, i);
			assert_int_equal(id_of(&t, buf), i);
		}
		assert_int_equal(zt_strtab_count(&t), 5000);
		zt_strtab_clear(&t);
		assert_int_equal(zt_strtab_count(&t), 0);
		assert_string_equal(zt_strtab_str(&t, 0), "");
		/* ids start again from 0, old strings are gone */
		assert_int_equal(id_of(&t, "1:1"), 0);
		assert_int_equal(id_of(&t, "0:0"), 1);
		zt_strtab_clear(&t);
	}
	zt_strtab_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty), cmocka_unit_test(test_order),
		cmocka_unit_test(test_len),   cmocka_unit_test(test_many_stable),
		cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
