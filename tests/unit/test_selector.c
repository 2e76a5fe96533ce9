/* SPDX-License-Identifier: GPL-2.0-or-later */
/* server/selector and server/tagg: Prometheus selectors, their matching,
 * and samples by time bucket and process. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/route.h"
#include "server/selector.h"
#include "server/tagg.h"

static int parse(const char *t, struct zs_selector *s, char *msg)
{
	return zs_selector_parse(t, strlen(t), s, msg, 256);
}

static void test_parse(void **state)
{
	static struct zs_selector s;
	char msg[256];

	(void)state;
	assert_int_equal(parse("{__name__=\"cpu\",env=~\"prod.*\",host!=\"db1\"}", &s, msg), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.m[0].name, "__name__");
	assert_string_equal(s.m[0].value, "cpu");
	assert_int_equal(s.m[0].op, ZS_MOP_EQ);
	assert_int_equal(s.m[1].op, ZS_MOP_RE);
	assert_string_equal(s.m[1].value, "prod.*");
	assert_int_equal(s.m[2].op, ZS_MOP_NE);
	zs_selector_release(&s);

	/* metric name, spaces, single quotes, backquotes, !~, trailing comma */
	assert_int_equal(parse("  page-faults { a.b = 'x\\'y' , c!~`q\\.r` , } ", &s, msg), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.m[0].value, "page-faults");
	assert_string_equal(s.m[1].name, "a.b");
	assert_string_equal(s.m[1].value, "x'y");
	assert_int_equal(s.m[2].op, ZS_MOP_NRE);
	assert_string_equal(s.m[2].value, "q\\.r");
	zs_selector_release(&s);

	/* escapes kept for regular expressions, decoded otherwise */
	assert_int_equal(parse("{x=~\"a\\\\.b\\n\"}", &s, msg), 0);
	assert_string_equal(s.m[0].value, "a\\.b\n");
	zs_selector_release(&s);

	assert_int_equal(parse("cpu", &s, msg), 0);
	assert_int_equal(s.n, 1);
	zs_selector_release(&s);
	assert_int_equal(parse("{}", &s, msg), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(parse("", &s, msg), 0);
	assert_int_equal(s.n, 0);

	/* refusals say where */
	assert_int_equal(parse("{env=prod}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "quoted value"));
	assert_int_equal(parse("{env==\"x\"}", &s, msg), -EINVAL);
	assert_int_equal(parse("{env\"x\"}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "expected =, !=, =~ or !~"));
	assert_int_equal(parse("{env=\"x\"", &s, msg), -EINVAL);
	assert_int_equal(parse("{env=\"x}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "not closed"));
	assert_int_equal(parse("{9a=\"x\"}", &s, msg), -EINVAL);
	assert_int_equal(parse("{a=~\"(b\"}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "bad regular expression for a"));
	/* what RE2 refuses and glibc would take exponential memory or time for */
	assert_int_equal(parse("{a=~\"x+++++++++++++++++++++++++++++++\"}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "a repetition of a repetition"));
	assert_int_equal(parse("{a=~\"((x{100}){100})\"}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "more than 1000"));
	assert_int_equal(parse("{a=~\"x{1001}\"}", &s, msg), -EINVAL);
	assert_int_equal(parse("{a=~\"(x)\\\\1\"}", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "back-references"));
	assert_int_equal(parse("{a=~\"*x\"}", &s, msg), -EINVAL);
	assert_int_equal(parse("{a=~\"((x{10}){10})|[*+]{2,3}[[:alpha:]]*\"}", &s, msg), 0);
	zs_selector_release(&s);
	assert_int_equal(parse("cpu{a=\"b\"} x", &s, msg), -EINVAL);
	assert_non_null(strstr(msg, "unexpected"));
	{
		char big[40 * 8 + 3];
		size_t i, k = 0;

		big[k++] = '{';
		for (i = 0; i < 40; i++)
			k += (size_t)sprintf(big + k, "a%02zu=\"v\",", i);
		big[k++] = '}';
		big[k] = 0;
		assert_int_equal(parse(big, &s, msg), -EINVAL);
		assert_non_null(strstr(msg, "too many matchers"));
	}
	assert_int_equal(zs_selector_parse("{a=\"\0\"}", 7, &s, msg, sizeof(msg)), -EINVAL);
}

static void test_match(void **state)
{
	static struct zs_selector s;
	const char *prod[] = { "prod-eu", "dev" }, *none[1] = { "" };
	char msg[256];

	(void)state;
	assert_int_equal(parse("{a=\"prod-eu\",b!=\"dev\",c=~\"prod.*\",d!~\"prod\",e=~\".*\","
			       "f=\"\",g!=\"\"}",
			       &s, msg),
			 0);
	/* one of several values */
	assert_true(zs_matcher_holds(&s.m[0], prod, 2));
	assert_false(zs_matcher_holds(&s.m[1], prod, 2)); /* one is dev */
	assert_true(zs_matcher_holds(&s.m[1], prod, 1));
	assert_true(zs_matcher_holds(&s.m[2], prod, 2));
	assert_false(zs_matcher_holds(&s.m[2], prod + 1, 1));
	/* anchored: "prod" does not match "prod-eu" */
	assert_true(zs_matcher_holds(&s.m[3], prod, 1));
	/* an absent label is "" */
	assert_false(zs_matcher_holds(&s.m[0], none, 0));
	assert_true(zs_matcher_holds(&s.m[1], none, 0));
	assert_true(zs_matcher_holds(&s.m[4], none, 0));
	assert_true(zs_matcher_holds(&s.m[5], none, 0));
	assert_false(zs_matcher_holds(&s.m[5], prod, 1));
	assert_false(zs_matcher_holds(&s.m[6], none, 0));
	assert_true(zs_matcher_holds(&s.m[6], prod, 1));
	assert_true(s.m[4].empty_ok);
	assert_false(s.m[2].empty_ok);
	assert_non_null(zs_selector_find(&s, "d"));
	assert_null(zs_selector_find(&s, "zz"));
	zs_selector_release(&s);
}

static int count_procs(void *ctx, uint32_t idx, uint32_t pid, const char *comm, size_t len)
{
	char b[32];

	snprintf(b, sizeof(b), "%u:%.*s,", pid, (int)len, comm);
	strcat(ctx, b);
	(void)idx;
	return 0;
}

static void test_tagg(void **state)
{
	struct zs_tagg a;
	struct zs_tcur c;
	struct zs_tent e;
	struct zbuf b;
	uint32_t p0, p1, p2, map[8] = { 10, 11, 12, 13, 14, 15, 16, 17 };
	char procs[128] = "";
	int64_t t[8];
	uint64_t v[8];
	size_t n = 0;

	(void)state;
	assert_int_equal(zs_bucket_of(1234), 1230);
	assert_int_equal(zs_bucket_of(1230), 1230);
	assert_int_equal(zs_bucket_of(-1), -10);
	zs_tagg_init(&a);
	assert_int_equal(zs_tagg_proc(&a, 7, "xz", &p0), 0);
	assert_int_equal(zs_tagg_proc(&a, 8, "xz", &p1), 0);
	assert_int_equal(zs_tagg_proc(&a, 7, "xz", &p2), 0);
	assert_int_equal(p0, p2);
	assert_int_not_equal(p0, p1);
	assert_int_equal(zs_tagg_add(&a, 1005, 3, p0, 1, 100), 0);
	assert_int_equal(zs_tagg_add(&a, 1009, 3, p0, 1, 100), 0); /* same bucket */
	assert_int_equal(zs_tagg_add(&a, 1009, 1, p1, 1, 7), 0);
	assert_int_equal(zs_tagg_add(&a, 980, 2, p1, 2, 9), 0); /* earlier bucket */
	assert_int_equal(a.nr, 3);
	zbuf_init(&b);
	assert_int_equal(zs_tagg_encode(&a, map, &b), 0);
	assert_int_equal(zs_tagg_open(&c, b.data, b.len, count_procs, procs), 0);
	assert_string_equal(procs, "7:xz,8:xz,");
	while (zs_tagg_next(&c, &e) == 1 && n < 8) {
		t[n] = e.t;
		v[n] = e.value;
		if (n == 0)
			assert_int_equal(e.stack, 12);
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(t[0], 980);
	assert_int_equal(v[0], 9);
	assert_int_equal(t[1], 1000);
	assert_int_equal(v[1], 7); /* stack 11 before 13 */
	assert_int_equal(t[2], 1000);
	assert_int_equal(v[2], 200);
	/* damage: every cut is refused or ends cleanly, never read past */
	for (size_t cut = 0; cut < b.len; cut++) {
		int r = zs_tagg_open(&c, b.data, cut, NULL, NULL);

		if (!r)
			while ((r = zs_tagg_next(&c, &e)) == 1)
				;
		assert_int_equal(r, -EBADMSG);
	}
	/* a process index past the processes */
	{
		static const uint8_t bad[] = { 1, 5, 2, 'x', 'z', 1, 2, 1, 3, 0, 1, 1 };

		assert_int_equal(zs_tagg_open(&c, bad, sizeof(bad), NULL, NULL), 0);
		assert_int_equal(zs_tagg_next(&c, &e), -EBADMSG);
	}
	zbuf_release(&b);
	zs_tagg_release(&a);
}

static void test_route_query(void **state)
{
	static struct zs_selection sel, ds[4];
	struct zr_request r;
	char msg[256];
	const char *t = "/api/v1/top?query=%7B__name__%3D%22cpu%22%2Ccomm%3D~%22x.*%22%7D&from=5";
	size_t n;
	int64_t step;

	(void)state;
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(zr_selection(&r, "", &sel, msg, sizeof(msg)), 0);
	assert_int_equal(sel.match.n, 2);
	assert_int_equal(sel.from, 5);
	zs_selection_release(&sel);
	zr_request_release(&r);

	t = "/api/v1/top?query=%7Bx%3Dy%7D";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(zr_selection(&r, "", &sel, msg, sizeof(msg)), 400);
	assert_non_null(strstr(msg, "bad query"));
	zs_selection_release(&sel);
	zr_request_release(&r);

	t = "/api/v1/label/env/values?match[]=cpu&match[]=%7Bhost%3D%22a%22%7D&start=10.5&end=20";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(r.route, ZR_LABEL_VALUES);
	assert_string_equal(r.id, "env");
	assert_int_equal(zr_discovery(&r, ds, 4, &n, msg, sizeof(msg)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ds[0].from, 10);
	assert_int_equal(ds[1].to, 20);
	zs_selection_release(&ds[0]);
	zs_selection_release(&ds[1]);
	zr_request_release(&r);

	t = "/api/v1/label/9x/values";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 400);
	t = "/api/v1/labels";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(r.route, ZR_LABELS);
	assert_int_equal(zr_discovery(&r, ds, 4, &n, msg, sizeof(msg)), 0);
	assert_int_equal(n, 1);
	zr_request_release(&r);

	t = "/api/v1/timeline?query=cpu&step=60";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(zr_timeline_params(&r, &step, msg, sizeof(msg)), 0);
	assert_int_equal(step, 60);
	zr_request_release(&r);
	t = "/api/v1/timeline?step=7";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(zr_timeline_params(&r, &step, msg, sizeof(msg)), 400);
	zr_request_release(&r);

	/* a selector may be longer than other values */
	{
		static char big[12000];
		size_t k = (size_t)snprintf(big, sizeof(big), "/api/v1/top?query=%%7B");

		for (size_t m = 0; m < 28; m++)
			k += (size_t)snprintf(big + k, sizeof(big) - k,
					      "l%02zu%%3D~%%22(aaaa|bbbb|cccc|dddd|eeee|ffff|gggg|hhhh)"
					      "%%22%%2C",
					      m);
		snprintf(big + k - 3, sizeof(big) - k + 3, "%%7D");
		assert_int_equal(zr_parse("GET", big, strlen(big), &r, NULL, msg, sizeof(msg)), 0);
		assert_int_equal(zr_selection(&r, "", &sel, msg, sizeof(msg)), 0);
		assert_int_equal(sel.match.n, 28);
		assert_true(strlen(zr_param(&r, "query")) > 1024);
		zs_selection_release(&sel);
		zr_request_release(&r);
		memset(big, 0, sizeof(big));
		k = (size_t)snprintf(big, sizeof(big), "/api/v1/top?query=");
		memset(big + k, 'x', ZS_MAX_SELECTOR + 1);
		assert_int_equal(zr_parse("GET", big, strlen(big), &r, NULL, msg, sizeof(msg)), 400);
		k = (size_t)snprintf(big, sizeof(big), "/api/v1/top?host=");
		memset(big + k, 'x', ZR_MAX_VALUE + 1);
		big[k + ZR_MAX_VALUE + 1] = 0;
		assert_int_equal(zr_parse("GET", big, strlen(big), &r, NULL, msg, sizeof(msg)), 400);
	}

	t = "/api/v1/profiles?limit=5&offset=10";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(zr_selection(&r, "", &sel, msg, sizeof(msg)), 0);
	assert_int_equal(sel.offset, 10);
	assert_int_equal(sel.limit, 5);
	zr_request_release(&r);
	t = "/api/v1/top?offset=10";
	assert_int_equal(zr_parse("GET", t, strlen(t), &r, NULL, msg, sizeof(msg)), 400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_tagg),
		cmocka_unit_test(test_route_query),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
