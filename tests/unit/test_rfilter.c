/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rfilter: --time in perf 6.1's forms (seconds, several ranges, percents
 * with '-' and '/', one percent), its refusals, and the per-sample
 * verdicts (left out, hidden) with --dsos and --symbols on the leaf.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/rfilter.h"

#define SEC 1000000000ull

static struct rfilter f;
static char err[512];

static int set(const char *arg)
{
	return rfilter_set_time(&f, arg, err, sizeof(err));
}

/* The ranges over a span first..last as "s-e s-e" in ns. */
static const char *ranges(uint64_t first, uint64_t last)
{
	static char buf[512];
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < f.nr_times; i++) {
		uint64_t s, e;

		rfilter_time_range(&f.times[i], first, last, &s, &e);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%llu-%llu", i ? " " : "",
				      (unsigned long long)s, (unsigned long long)e);
	}
	return buf;
}

static void test_seconds(void **state)
{
	(void)state;
	rfilter_init(&f);
	assert_int_equal(set("1.5,2.000000001"), 0);
	assert_string_equal(ranges(0, 0), "1500000000-2000000001");
	assert_int_equal(f.time_start, 1500000000ull);
	assert_int_equal(f.time_end, 2000000001ull);
	/* open ends */
	assert_int_equal(set("3,"), 0);
	assert_string_equal(ranges(0, 0), "3000000000-0");
	assert_int_equal(set(",4.25"), 0);
	assert_string_equal(ranges(0, 0), "0-4250000000");
	assert_int_equal(set(","), 0);
	assert_true(rfilter_time_pass(&f, 12345, 0, 0));
	/* several ranges, separated by spaces */
	assert_int_equal(set("1,2 3.5,4"), 0);
	assert_int_equal(f.nr_times, 2);
	assert_string_equal(ranges(0, 0), "1000000000-2000000000 3500000000-4000000000");
	assert_int_equal(set("1,2   3,"), 0);
	assert_string_equal(ranges(0, 0), "1000000000-2000000000 3000000000-0");
	/* refused as perf refuses them */
	assert_int_equal(set("5,3"), -EINVAL); /* end before start */
	assert_non_null(strstr(err, "bad --time '5,3'"));
	assert_int_equal(set("5"), -EINVAL);		 /* no comma */
	assert_int_equal(set("x,3"), -EINVAL);		 /* not a number */
	assert_int_equal(set("1,2.5.1"), -EINVAL);	 /* two dots */
	assert_int_equal(set("1,2s"), -EINVAL);		 /* a unit */
	assert_int_equal(set("1.1234567891,"), -EINVAL); /* past nanoseconds */
	assert_int_equal(set("99999999999999999999,"), -EINVAL);
	assert_int_equal(set("1,3 2,4"), -EINVAL); /* overlapping */
	assert_int_equal(set("3,4 1,2"), -EINVAL); /* out of order */
	assert_int_equal(set("1,2,3"), -EINVAL);   /* a comma in an end */
	/* a refused value keeps what was set */
	assert_int_equal(f.nr_times, 2);
	rfilter_release(&f);
	assert_int_equal(f.nr_times, 0);
}

static void test_percent(void **state)
{
	(void)state;
	rfilter_init(&f);
	/* span 1000..2000 ns: perf rounds, and ends a slice 1 ns early
	 * unless it reaches the end */
	assert_int_equal(set("10%-20%"), 0);
	assert_string_equal(ranges(1000, 2000), "1100-1199");
	assert_true(f.pct_start == 10 && f.pct_end == 20);
	assert_int_equal(set("0%-100%"), 0);
	assert_string_equal(ranges(1000, 2000), "1000-2000");
	assert_int_equal(set("0%-10%,30%-40%"), 0);
	assert_string_equal(ranges(1000, 2000), "1000-1099 1300-1399");
	assert_int_equal(set("10%/2"), 0); /* the second tenth */
	assert_string_equal(ranges(1000, 2000), "1100-1199");
	assert_int_equal(set("10%/1,10%/3"), 0);
	assert_string_equal(ranges(1000, 2000), "1000-1099 1200-1299");
	assert_int_equal(set("25%"), 0); /* 25%/1 */
	assert_string_equal(ranges(1000, 2000), "1000-1249");
	assert_int_equal(set("50%/2"), 0);
	assert_string_equal(ranges(1000, 2000), "1500-2000");
	/* refused */
	assert_int_equal(set("10%-200%"), -EINVAL);
	assert_int_equal(set("10%/11"), -EINVAL); /* past the end */
	assert_int_equal(set("0%/1"), -EINVAL);	  /* an empty slice */
	assert_int_equal(set("10-20%"), -EINVAL);
	assert_int_equal(set("-5%-20%"), -EINVAL);
	assert_int_equal(set("10%x"), -EINVAL);
	assert_int_equal(set("10%/1,0%-10%"), -EINVAL); /* one form per list */
	assert_int_equal(set("10%/2x"), -EINVAL);
	rfilter_release(&f);
}

static void test_time_pass(void **state)
{
	(void)state;
	rfilter_init(&f);
	assert_true(rfilter_time_pass(&f, 5, 0, 0));
	assert_int_equal(set("1,2"), 0);
	assert_false(rfilter_time_pass(&f, SEC - 1, 0, 0));
	assert_true(rfilter_time_pass(&f, SEC, 0, 0));
	assert_true(rfilter_time_pass(&f, 2 * SEC, 0, 0));
	assert_false(rfilter_time_pass(&f, 2 * SEC + 1, 0, 0));
	assert_true(rfilter_time_pass(&f, 0, 0, 0)); /* no time: kept, as perf */
	assert_int_equal(set("1,2 3,"), 0);
	assert_false(rfilter_time_pass(&f, 2 * SEC + 1, 0, 0));
	assert_true(rfilter_time_pass(&f, 3 * SEC, 0, 0));
	assert_true(rfilter_time_pass(&f, 100 * SEC, 0, 0));
	assert_int_equal(set("0%-10%,90%-100%"), 0);
	assert_true(rfilter_time_pass(&f, 1050, 1000, 2000));
	assert_false(rfilter_time_pass(&f, 1500, 1000, 2000));
	assert_true(rfilter_time_pass(&f, 2000, 1000, 2000));
	rfilter_release(&f);
}

static void test_sample_verdicts(void **state)
{
	struct prof_sample s = {.ts = 5 * SEC, .pid = 10, .tid = 11, .cpu = 1};

	(void)state;
	rfilter_init(&f);
	assert_int_equal(rfilter_sample(NULL, &s, "a", 0, 0), RFILTER_SHOW);
	assert_int_equal(rfilter_sample(&f, &s, NULL, 0, 0), RFILTER_SHOW);
	assert_int_equal(rfilter_add_strs(&f.comms, &f.nr_comms, "a,b", err, sizeof(err)), 0);
	assert_int_equal(rfilter_sample(&f, &s, "a", 0, 0), RFILTER_SHOW);
	assert_int_equal(rfilter_sample(&f, &s, "c", 0, 0), RFILTER_HIDE);
	assert_int_equal(rfilter_sample(&f, &s, NULL, 0, 0), RFILTER_HIDE);
	assert_int_equal(rfilter_add_ids(&f.tids, &f.nr_tids, "12", err, sizeof(err)), 0);
	assert_int_equal(rfilter_sample(&f, &s, "a", 0, 0), RFILTER_HIDE);
	/* left out before hidden */
	assert_int_equal(rfilter_add_cpus(&f, "0", err, sizeof(err)), 0);
	assert_int_equal(rfilter_sample(&f, &s, "a", 0, 0), RFILTER_DROP);
	rfilter_release(&f);
	assert_int_equal(set("6,"), 0);
	assert_int_equal(rfilter_sample(&f, &s, "a", 0, 0), RFILTER_DROP);
	rfilter_release(&f);

	/* --dsos by short name or path, --symbols by name (inlined too) */
	assert_false(rfilter_has_leaf(&f));
	assert_true(rfilter_leaf(&f, NULL, NULL, NULL));
	assert_int_equal(
		rfilter_add_strs(&f.dsos, &f.nr_dsos, "libc.so.6,/opt/x", err, sizeof(err)), 0);
	assert_true(rfilter_has_leaf(&f));
	assert_true(rfilter_leaf(&f, "libc.so.6", "/usr/lib/libc.so.6", "memcpy"));
	assert_true(rfilter_leaf(&f, "x", "/opt/x", "f"));
	assert_false(rfilter_leaf(&f, "y", "/opt/y", "f"));
	assert_false(rfilter_leaf(&f, NULL, NULL, "f"));
	assert_int_equal(rfilter_add_strs(&f.syms, &f.nr_syms, "f", err, sizeof(err)), 0);
	assert_true(rfilter_leaf(&f, "x", "/opt/x", "f"));
	assert_true(rfilter_leaf(&f, "x", "/opt/x", "f (inlined)"));
	assert_false(rfilter_leaf(&f, "x", "/opt/x", "fg"));
	assert_false(rfilter_leaf(&f, "x", "/opt/x", NULL));
	rfilter_release(&f);
}

/* --time's ranges as text, every one of them */
static void test_time_text(void **state)
{
	static const struct {
		const char *arg, *want;
	} cases[] = {
		{"1.5,2", "1.500000,2.000000"},
		{",2.000000001", ",2.000000001"},
		{"3.25,", "3.250000,"},
		{"1,2 3.0000001,4 5,", "1.000000,2.000000 3.0000001,4.000000 5.000000,"},
		{"10%-20%", "10%-20%"},
		{"0%-10%,30%-40%", "0%-10%,30%-40%"},
		{"10%/2,10%/4", "10%-20%,30%-40%"},
		{"25%", "0%-25%"},
	};
	char buf[128];
	size_t i;

	(void)state;
	rfilter_time_text(&f, buf, sizeof(buf));
	assert_string_equal(buf, "");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rfilter_set_time(&f, cases[i].arg, err, sizeof(err)), 0);
		rfilter_time_text(&f, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("--time '%s': '%s', want '%s'", cases[i].arg, buf, cases[i].want);
		rfilter_release(&f);
	}
	/* cut to fit */
	assert_int_equal(rfilter_set_time(&f, "1,2 3,4", err, sizeof(err)), 0);
	rfilter_time_text(&f, buf, 12);
	assert_string_equal(buf, "1.000000,2.");
	rfilter_release(&f);
}

/* -S's addresses as perf 6.1's setup_addrlist() tells them from names */
static void test_symbol_addresses(void **state)
{
	(void)state;
	rfilter_init(&f);
	assert_int_equal(rfilter_add_syms(&f,
					  "main,0x401136, 7f00AB ,add,0x12z,0x1ffffffffffffffff,"
					  "0X0000401200",
					  err, sizeof(err)),
			 0);
	/* names: what does not read whole as a 64-bit hexadecimal number */
	assert_int_equal(f.nr_syms, 3);
	assert_string_equal(f.syms[0], "main");
	assert_string_equal(f.syms[1], "0x12z");
	assert_string_equal(f.syms[2], "0x1ffffffffffffffff");
	/* "add" reads as 0xadd, as in perf; the function add is found too */
	assert_int_equal(f.nr_addrs, 4);
	assert_true(f.addrs[0] == 0x401136 && f.addrs[1] == 0x7f00ab && f.addrs[2] == 0xadd &&
		    f.addrs[3] == 0x401200);
	assert_true(rfilter_has_leaf(&f));
	assert_true(rfilter_active(&f));
	/* the name, or else the sample's address when it is in a mapping */
	assert_true(rfilter_leaf_at(&f, "x", NULL, "main", 0x1, 1));
	assert_true(rfilter_leaf_at(&f, "x", NULL, "other", 0x401136, 1));
	assert_false(rfilter_leaf_at(&f, "x", NULL, "other", 0x401136, 0));
	assert_false(rfilter_leaf_at(&f, "x", NULL, "other", 0x401137, 1));
	assert_true(rfilter_leaf_at(&f, "x", NULL, NULL, 0x7f00ab, 1));
	assert_true(rfilter_leaf_at(&f, "x", NULL, "add", 0x1, 1));
	assert_true(rfilter_leaf_at(&f, "x", NULL, "add (inlined)", 0x1, 0));
	assert_string_equal(f.addr_strs[1], " 7f00AB ");
	/* --addr-range n: [addr, addr + n) */
	f.addr_range = 4;
	assert_true(rfilter_leaf_at(&f, "x", NULL, "other", 0x401139, 1));
	assert_false(rfilter_leaf_at(&f, "x", NULL, "other", 0x40113a, 1));
	assert_false(rfilter_leaf_at(&f, "x", NULL, "other", 0x401135, 1));
	/* --dsos still applies */
	assert_int_equal(rfilter_add_strs(&f.dsos, &f.nr_dsos, "y", err, sizeof(err)), 0);
	assert_false(rfilter_leaf_at(&f, "x", NULL, "other", 0x401136, 1));
	assert_true(rfilter_leaf_at(&f, "y", NULL, "other", 0x401136, 1));
	rfilter_release(&f);
	/* only addresses: no names left, the filter still selects */
	assert_int_equal(rfilter_add_syms(&f, "0x10", err, sizeof(err)), 0);
	assert_int_equal(f.nr_syms, 0);
	assert_true(rfilter_has_leaf(&f));
	assert_false(rfilter_leaf_at(&f, "x", NULL, "main", 0x11, 1));
	assert_true(rfilter_leaf_at(&f, "x", NULL, "main", 0x10, 1));
	rfilter_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),		 cmocka_unit_test(test_percent),
		cmocka_unit_test(test_time_pass),	 cmocka_unit_test(test_sample_verdicts),
		cmocka_unit_test(test_symbol_addresses), cmocka_unit_test(test_time_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
