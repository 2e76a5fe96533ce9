// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of libprof/gpu.c: interned strings, records and their checks,
 * cubins deduplicated by crc, stall tables and counters replaced by key,
 * clearing, and a profile that frees its GPU records.
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

#include "libprof/gpu.h"
#include "libprof/profile.h"

static void test_strings(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	uint32_t a, b, c, d, e, i;
	char name[32];

	assert_non_null(g);
	assert_int_equal(prof_gpu_intern(g, "_Z3fooPf", 8, &a), 0);
	assert_int_equal(prof_gpu_intern(g, "_Z3barv", 7, &b), 0);
	assert_int_equal(prof_gpu_intern(g, "_Z3fooPfXYZ", 8, &c), 0); /* a prefix */
	assert_int_equal(prof_gpu_intern(g, "_Z3foo\0Pf", 9, &d), 0);  /* cut at the NUL */
	assert_int_equal(prof_gpu_intern(g, "", 0, &e), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, a);
	assert_int_equal(d, 2);
	assert_int_equal(e, 3);
	assert_string_equal(prof_gpu_str(g, a), "_Z3fooPf");
	assert_string_equal(prof_gpu_str(g, d), "_Z3foo");
	assert_string_equal(prof_gpu_str(g, e), "");
	assert_string_equal(prof_gpu_str(g, 99), "");
	/* many: growth keeps every id */
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		assert_int_equal(prof_gpu_intern(g, name, strlen(name), &a), 0);
		assert_int_equal(a, 4 + i);
	}
	for (i = 0; i < 5000; i += 7) {
		snprintf(name, sizeof(name), "k%u", i);
		assert_int_equal(prof_gpu_intern(g, name, strlen(name), &a), 0);
		assert_int_equal(a, 4 + i);
		assert_string_equal(prof_gpu_str(g, a), name);
	}
	prof_gpu_free(g);
	prof_gpu_free(NULL);
}

static void test_records(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct prof_gpu_kernel k = {.start = 10, .end = 20, .pid = 7, .corr = 3, .grid = {1, 2, 3}};
	struct prof_gpu_memop m = {
		.start = 5, .end = 6, .bytes = 4096, .kind = PROF_GPU_MEMCPY, .copy_kind = 1};
	struct prof_gpu_launch l = {
		.ts = 9, .pid = 7, .tid = 8, .corr = 3, .stack = PROF_GPU_NO_STACK};
	struct prof_gpu_pcs s = {.cubin_crc = 0xabc, .pc_offset = 0x10, .samples = 4};
	struct prof_gpu_overhead o = {.start = 1, .end = 2, .kind = 1};

	assert_true(prof_gpu_empty(g));
	k.name = 0;
	assert_int_equal(prof_gpu_add_kernel(g, &k), -EINVAL); /* no such string yet */
	s.function = 0;
	assert_int_equal(prof_gpu_add_pcs(g, &s), -EINVAL);
	assert_int_equal(prof_gpu_intern(g, "kern", 4, &k.name), 0);
	s.function = k.name;
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
	assert_int_equal(prof_gpu_add_memop(g, &m), 0);
	assert_int_equal(prof_gpu_add_launch(g, &l), 0);
	assert_int_equal(prof_gpu_add_pcs(g, &s), 0);
	assert_int_equal(prof_gpu_add_overhead(g, &o), 0);
	assert_false(prof_gpu_empty(g));
	assert_int_equal(g->nr_kernels, 1);
	assert_int_equal(g->kernels[0].grid[2], 3);
	assert_string_equal(prof_gpu_str(g, g->kernels[0].name), "kern");
	assert_int_equal(g->memops[0].bytes, 4096);
	assert_int_equal(g->launches[0].stack, PROF_GPU_NO_STACK);
	assert_int_equal(g->pcs[0].samples, 4);
	assert_int_equal(g->overheads[0].kind, 1);
	prof_gpu_clear(g);
	assert_true(prof_gpu_empty(g));
	assert_int_equal(prof_gpu_nr_strs(g), 0);
	/* cleared: the strings start again from 0, and reuse works */
	assert_int_equal(prof_gpu_add_kernel(g, &k), -EINVAL);
	assert_int_equal(prof_gpu_intern(g, "other", 5, &k.name), 0);
	assert_int_equal(k.name, 0);
	assert_int_equal(prof_gpu_add_kernel(g, &k), 0);
	assert_string_equal(prof_gpu_str(g, g->kernels[0].name), "other");
	prof_gpu_free(g);
}

static void test_cubins(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	const struct prof_gpu_cubin *c;
	uint8_t a[100], b[3] = {1, 2, 3};
	uint64_t i;

	memset(a, 0x7f, sizeof(a));
	assert_null(prof_gpu_find_cubin(g, 1));
	assert_int_equal(prof_gpu_add_cubin(g, 1, 10, 2, 3, a, sizeof(a)), 0);
	assert_int_equal(prof_gpu_add_cubin(g, 1, 11, 4, 5, b, sizeof(b)), 1); /* same crc */
	assert_int_equal(prof_gpu_add_cubin(g, 2, 11, 4, 5, b, sizeof(b)), 0);
	assert_int_equal(prof_gpu_add_cubin(g, 3, 11, 4, 5, NULL, 0), 0); /* empty */
	assert_int_equal(prof_gpu_add_cubin(g, 4, 11, 4, 5, NULL, 10), -EINVAL);
	assert_int_equal(g->nr_cubins, 3);
	c = prof_gpu_find_cubin(g, 1);
	assert_non_null(c);
	assert_int_equal(c->pid, 10); /* the first loader is kept */
	assert_int_equal(c->module_id, 2);
	assert_int_equal(c->len, sizeof(a));
	assert_memory_equal(c->data, a, sizeof(a));
	c = prof_gpu_find_cubin(g, 2);
	assert_non_null(c);
	assert_memory_equal(c->data, b, 3);
	assert_null(prof_gpu_find_cubin(g, 99));
	for (i = 100; i < 1100; i++)
		assert_int_equal(prof_gpu_add_cubin(g, i * 0x1000000000ull, 1, 1, 1, b, 1), 0);
	for (i = 100; i < 1100; i++)
		assert_non_null(prof_gpu_find_cubin(g, i * 0x1000000000ull));
	assert_int_equal(prof_gpu_add_cubin(g, 500 * 0x1000000000ull, 1, 1, 1, b, 1), 1);
	prof_gpu_free(g);
}

static void test_stalls_counters_infos(void **state)
{
	struct prof_gpu *g = prof_gpu_new();
	struct prof_gpu_stall s = {.pid = 1, .context = 2, .index = 3};
	struct prof_gpu_counters c = {.pid = 1, .launches = 10};
	uint32_t a, b, i;

	assert_null(prof_gpu_stall_name(g, 1, 2, 3));
	assert_null(prof_gpu_find_counters(g, 1));
	s.name = 0;
	assert_int_equal(prof_gpu_add_stall(g, &s), -EINVAL);
	assert_int_equal(prof_gpu_intern(g, "long_scoreboard", 15, &a), 0);
	assert_int_equal(prof_gpu_intern(g, "barrier", 7, &b), 0);
	s.name = a;
	assert_int_equal(prof_gpu_add_stall(g, &s), 0);
	s.index = 4;
	s.name = b;
	assert_int_equal(prof_gpu_add_stall(g, &s), 0);
	assert_string_equal(prof_gpu_stall_name(g, 1, 2, 3), "long_scoreboard");
	assert_string_equal(prof_gpu_stall_name(g, 1, 2, 4), "barrier");
	assert_null(prof_gpu_stall_name(g, 1, 3, 3));
	assert_null(prof_gpu_stall_name(g, 2, 2, 3));
	/* the same key again replaces the name */
	s.index = 3;
	assert_int_equal(prof_gpu_add_stall(g, &s), 0);
	assert_string_equal(prof_gpu_stall_name(g, 1, 2, 3), "barrier");
	assert_int_equal(g->nr_stalls, 2);
	for (i = 0; i < 2000; i++) {
		s = (struct prof_gpu_stall){
			.pid = 100 + i / 40, .context = 1, .index = i % 40, .name = i % 2 ? a : b};
		assert_int_equal(prof_gpu_add_stall(g, &s), 0);
	}
	assert_int_equal(g->nr_stalls, 2002);
	assert_string_equal(prof_gpu_stall_name(g, 100 + 1999 / 40, 1, 1999 % 40),
			    "long_scoreboard");

	assert_int_equal(prof_gpu_set_counters(g, &c), 0);
	c.pid = 2;
	c.launches = 20;
	assert_int_equal(prof_gpu_set_counters(g, &c), 0);
	c.pid = 1;
	c.launches = 30; /* the last report wins */
	assert_int_equal(prof_gpu_set_counters(g, &c), 0);
	assert_int_equal(g->nr_counters, 2);
	assert_int_equal(prof_gpu_find_counters(g, 1)->launches, 30);
	assert_int_equal(prof_gpu_find_counters(g, 2)->launches, 20);
	assert_null(prof_gpu_find_counters(g, 3));

	assert_int_equal(prof_gpu_add_info(g, 1, "warning", "one"), 0);
	assert_int_equal(prof_gpu_add_info(g, 1, "warning", "two"), 0); /* kept in order */
	assert_int_equal(prof_gpu_add_info(g, 1, NULL, "x"), -EINVAL);
	assert_int_equal(g->nr_infos, 2);
	assert_string_equal(prof_gpu_str(g, g->infos[0].key), "warning");
	assert_string_equal(prof_gpu_str(g, g->infos[1].value), "two");
	assert_int_equal(g->infos[0].key, g->infos[1].key);

	prof_gpu_clear(g);
	assert_null(prof_gpu_stall_name(g, 1, 2, 3));
	assert_null(prof_gpu_find_counters(g, 1));
	prof_gpu_free(g);
}

/* A profile owns its GPU records (ASan's leak check sees a leak). */
static void test_profile_owns(void **state)
{
	struct profile p;
	uint32_t id;

	profile_init(&p);
	p.gpu = prof_gpu_new();
	assert_non_null(p.gpu);
	assert_int_equal(prof_gpu_intern(p.gpu, "x", 1, &id), 0);
	assert_int_equal(prof_gpu_add_cubin(p.gpu, 1, 1, 1, 1, "abc", 3), 0);
	profile_release(&p);
	assert_null(p.gpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),	     cmocka_unit_test(test_records),
		cmocka_unit_test(test_cubins),	     cmocka_unit_test(test_stalls_counters_infos),
		cmocka_unit_test(test_profile_owns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
