/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap: number forms, names with spaces, garbage, later lines overriding
 * earlier ones (checked against a brute-force model), and a large JIT map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "symbolizer/perfmap.h"

static struct perfmap *parse(const char *s)
{
	struct perfmap *m = NULL;

	assert_int_equal(perfmap_parse(s, strlen(s), &m), 0);
	assert_non_null(m);
	return m;
}

static void expect(const struct perfmap *m, uint64_t addr, const char *name, uint64_t off)
{
	uint64_t o = 999;
	const char *n = perfmap_lookup(m, addr, &o);

	if (!n)
		fail_msg("0x%llx: nothing, want '%s'", (unsigned long long)addr, name);
	assert_string_equal(n, name);
	assert_int_equal(o, off);
}

static void test_basic(void **state)
{
	struct perfmap *m = parse("7f0000001000 100 LazyCompile:~foo /app/a.js:1\n"
				  "0x7f0000002000 0x80 Function:bar\n"
				  "0X7F0000003000 0X10 upper case\n"
				  "7f0000004000 20 \t  padded name  \t\r\n"
				  "7f0000005000 10 last_without_newline");

	assert_int_equal(perfmap_count(m), 5);
	expect(m, 0x7f0000001000, "LazyCompile:~foo /app/a.js:1", 0);
	expect(m, 0x7f00000010ff, "LazyCompile:~foo /app/a.js:1", 0xff);
	assert_null(perfmap_lookup(m, 0x7f0000001100, NULL));
	assert_null(perfmap_lookup(m, 0x7f0000000fff, NULL));
	expect(m, 0x7f0000002040, "Function:bar", 0x40);
	expect(m, 0x7f000000300f, "upper case", 0xf);
	expect(m, 0x7f0000004000, "padded name", 0);
	expect(m, 0x7f0000005001, "last_without_newline", 1);
	assert_null(perfmap_lookup(m, 0, NULL));
	assert_null(perfmap_lookup(m, UINT64_MAX, NULL));
	perfmap_free(m);
	perfmap_free(NULL);
}

static void test_garbage(void **state)
{
	static const char g[] = "\n"
				"hello world\n"
				"1000\n"
				"1000 10\n"            /* no name */
				"1000 10   \n"         /* blank name */
				"zz00 10 bad_start\n"
				"1000 qq bad_size\n"
				"1000 0 zero_size\n"
				"0x 10 empty_hex\n"
				"10000000000000000 10 too_big\n"
				"2000 10 good\n"
				"2000\t10\ttabs ok\n"
				"3000 10 nul\0after\n";
	struct perfmap *m = NULL;

	/* explicit length: the NUL inside a name ends the name */
	assert_int_equal(perfmap_parse(g, sizeof(g) - 1, &m), 0);

	assert_int_equal(perfmap_count(m), 3);
	expect(m, 0x2000, "tabs ok", 0);
	expect(m, 0x3001, "nul", 1);
	assert_null(perfmap_lookup(m, 0x1000, NULL));
	perfmap_free(m);

	m = parse("");
	assert_int_equal(perfmap_count(m), 0);
	assert_null(perfmap_lookup(m, 0x1000, NULL));
	perfmap_free(m);
	assert_int_equal(perfmap_parse(NULL, 0, &m), 0);
	perfmap_free(m);
}

static void test_override(void **state)
{
	/* recompiled code: later lines win where they overlap */
	struct perfmap *m = parse("1000 100 old_big\n"
				  "1040 20 new_inner\n"
				  "10f0 20 new_tail\n"
				  "1000 10 newest_head\n"
				  "1040 10 newer_inner_half\n"
				  "ffffffffffffff00 1000 wraps\n");

	expect(m, 0x1000, "newest_head", 0);
	expect(m, 0x1010, "old_big", 0x10);
	expect(m, 0x1040, "newer_inner_half", 0);
	expect(m, 0x1050, "new_inner", 0x10);
	expect(m, 0x1060, "old_big", 0x60);
	expect(m, 0x10ef, "old_big", 0xef);
	expect(m, 0x10f0, "new_tail", 0);
	expect(m, 0x110f, "new_tail", 0x1f);
	assert_null(perfmap_lookup(m, 0x1110, NULL));
	expect(m, 0xfffffffffffffffe, "wraps", 0xfe);
	perfmap_free(m);

	/* an older entry never hides a newer one */
	m = parse("1000 10 first\n1000 10 second\n");
	expect(m, 0x1005, "second", 5);
	perfmap_free(m);
}

static uint32_t rng = 12345;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* random overlapping entries in a small space against the definition */
static void test_model(void **state)
{
	enum { SPACE = 512, N = 60 };
	int round;

	for (round = 0; round < 300; round++) {
		uint64_t start[N], size[N];
		char text[N * 48];
		struct perfmap *m = NULL;
		size_t len = 0;
		int i, n = 1 + (int)(rnd() % N);
		uint64_t a;

		for (i = 0; i < n; i++) {
			start[i] = rnd() % SPACE;
			size[i] = 1 + rnd() % (rnd() % 4 ? 16 : 200);
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%llx %llx e%d\n",
						i % 2 ? "0x" : "", (unsigned long long)start[i],
						(unsigned long long)size[i], i);
		}
		assert_int_equal(perfmap_parse(text, len, &m), 0);
		assert_int_equal(perfmap_count(m), n);
		for (a = 0; a < SPACE + 220; a++) {
			uint64_t off;
			const char *got = perfmap_lookup(m, a, &off);
			int want = -1;

			for (i = 0; i < n; i++)
				if (a >= start[i] && a - start[i] < size[i])
					want = i;
			if (want < 0) {
				assert_null(got);
			} else {
				char wn[16];

				snprintf(wn, sizeof(wn), "e%d", want);
				assert_non_null(got);
				assert_string_equal(got, wn);
				assert_int_equal(off, a - start[want]);
			}
		}
		perfmap_free(m);
	}
}

/* a JIT map with 200k entries, many recompilations: parse stays fast */
static void test_large(void **state)
{
	size_t n = 200000, i, len = 0, cap = n * 48;
	char *text = malloc(cap);
	struct perfmap *m = NULL;
	struct timespec t0, t1;
	double ms;

	assert_non_null(text);
	for (i = 0; i < n; i++) {
		/* every 4th line recompiles an earlier function at the same place */
		size_t slot = i % 4 == 3 ? i / 2 : i;

		len += (size_t)snprintf(text + len, cap - len, "%llx %x fn_%zu\n",
					0x7f0000000000ull + slot * 0x100, 0x100 + (unsigned)(i % 3) * 0x40,
					i);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(perfmap_parse(text, len, &m), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("perfmap: %zu entries parsed in %.1f ms\n", n, ms);
	assert_true(ms < 2000);
	assert_int_equal(perfmap_count(m), n);
	/* fn_3 at slot 1 replaced fn_1 */
	expect(m, 0x7f0000000100, "fn_3", 0);
	expect(m, 0x7f0000000000 + 2 * 0x100 + 5, "fn_2", 5);
	free(text);
	perfmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
