/* SPDX-License-Identifier: GPL-2.0-or-later */
/* server/route: routes, methods, ids, query decoding, limits, selections, scopes. */
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

#define PID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static int parse(const char *m, const char *t, struct zr_request *r, char *msg)
{
	return zr_parse(m, t, strlen(t), r, NULL, msg, 256);
}

static void test_routes(void **state)
{
	static const struct {
		const char *m, *t;
		enum zr_route route;
	} ok[] = {
		{"GET", "/", ZR_PAGE},
		{"HEAD", "/", ZR_PAGE},
		{"GET", "/index.html", ZR_PAGE},
		{"GET", "/healthz", ZR_HEALTHZ},
		{"GET", "/metrics", ZR_METRICS},
		{"POST", "/api/v1/profiles", ZR_PROFILE_POST},
		{"GET", "/api/v1/profiles", ZR_PROFILE_LIST},
		{"GET", "/api/v1/profiles/" PID, ZR_PROFILE_GET},
		{"DELETE", "/api/v1/profiles/" PID, ZR_PROFILE_DELETE},
		{"POST", "/api/v1/symbols/missing", ZR_SYMBOLS_MISSING},
		{"HEAD", "/api/v1/symbols/abcd", ZR_SYMBOL_HEAD},
		{"GET", "/api/v1/symbols/abcd", ZR_SYMBOL_GET},
		{"PUT", "/api/v1/symbols/0123456789abcdef0123456789abcdef01234567", ZR_SYMBOL_PUT},
		{"GET", "/api/v1/top", ZR_TOP},
		{"GET", "/api/v1/folded", ZR_FOLDED},
		{"GET", "/api/v1/pprof", ZR_PPROF},
		{"GET", "/api/v1/flame", ZR_FLAME},
		{"GET", "/api/v1/diff", ZR_DIFF},
		{"GET", "/api/v1/%70rofiles", ZR_PROFILE_LIST}, /* decoded path */
	};
	struct zr_request r;
	char msg[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int rc = parse(ok[i].m, ok[i].t, &r, msg);

		if (rc)
			fail_msg("%s %s: %d %s", ok[i].m, ok[i].t, rc, msg);
		assert_int_equal(r.route, ok[i].route);
		zr_request_release(&r);
	}
	assert_int_equal(parse("GET", "/api/v1/profiles/" PID, &r, msg), 0);
	assert_string_equal(r.id, PID);
	assert_string_equal(r.path, "/api/v1/profiles/ID");
	zr_request_release(&r);
}

static void test_errors(void **state)
{
	static const struct {
		const char *m, *t;
		int code;
	} bad[] = {
		{"GET", "/nope", 404},
		{"GET", "/api/v1", 404},
		{"GET", "/api/v2/profiles", 404},
		{"GET", "/api/v1/profiles/", 404},
		{"GET", "/api/v1/profiles/" PID "/x", 404},
		{"PUT", "/api/v1/profiles", 405},
		{"DELETE", "/healthz", 405},
		{"BREW", "/", 405},
		{"POST", "/api/v1/top", 405},
		{"GET", "/api/v1/symbols/missing", 405},
		{"GET", "", 400},
		{"GET", "api/v1/profiles", 400},
		{"GET", "/api/v1/profiles/ABCDEF", 400},
		{"GET", "/api/v1/profiles/0123", 400},	   /* too short */
		{"GET", "/api/v1/profiles/" PID "0", 400}, /* too long */
		{"GET", "/api/v1/profiles/..%2f..%2fetc%2fpasswd", 400},
		{"GET", "/api/v1/profiles/%2e%2e", 400},
		{"GET", "/api/v1/symbols/a", 400},
		{"GET", "/api/v1/symbols/xyz", 400},
		{"GET", "/api/v1/symbols/abcd%00", 400},
		{"PUT", "/api/v1/symbols/..", 400},
		{"GET", "/api/v1/../v1/profiles", 400},
		{"GET", "/api/v1//profiles", 400},
		{"GET", "/api/v1/./profiles", 400},
		{"GET", "/api%5cv1/profiles", 400},
		{"GET", "/healthz%0a", 400},
		{"GET", "/healthz%zz", 400},
		{"GET", "/healthz%4", 400},
		{"GET", "/healthz#x", 400},
		{"GET", "/healthz?x=1", 400},			/* takes none */
		{"GET", "/api/v1/profiles?hots=a", 400},	/* unknown */
		{"GET", "/api/v1/profiles?host=a&host=b", 400}, /* repeated */
		{"GET", "/api/v1/profiles?host=%00", 400},
		{"GET", "/api/v1/profiles?host=a%1b[31m", 400},
		{"GET", "/api/v1/profiles?=x", 400},
		{"GET", "/api/v1/profiles?host=%", 400},
		{"GET", "/api/v1/folded?limit=1", 400}, /* list only */
		{"GET", "/api/v1/diff?id=" PID, 400},	/* a. or b. */
		{"POST", "/api/v1/profiles?host=x", 400},
	};
	struct zr_request r;
	char msg[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].m, bad[i].t, &r, msg);

		if (rc != bad[i].code)
			fail_msg("%s %s: %d, want %d", bad[i].m, bad[i].t, rc, bad[i].code);
		assert_true(msg[0] != '\0');
		for (size_t j = 0; msg[j]; j++) /* messages are safe to echo */
			assert_true(msg[j] >= 0x20 && msg[j] < 0x7f);
	}
	{
		const char *allow = NULL;

		assert_int_equal(zr_parse("PATCH", "/api/v1/profiles/" PID, 17 + 64, &r, &allow,
					  msg, sizeof(msg)),
				 405);
		assert_string_equal(allow, "GET, HEAD, DELETE");
	}
}

static void test_query(void **state)
{
	struct zr_request r;
	char msg[256];

	(void)state;
	assert_int_equal(parse("GET",
			       "/api/v1/profiles?host=a+b%20c&&label=env%3Dprod&"
			       "label=team=x%3Dy&command=&from=10&to=20&limit=5&",
			       &r, msg),
			 0);
	assert_int_equal(r.nr_params, 7);
	assert_string_equal(zr_param(&r, "host"), "a b c");
	assert_string_equal(zr_param(&r, "command"), "");
	assert_string_equal(r.params[1].key, "label");
	assert_string_equal(r.params[1].value, "env");
	assert_string_equal(r.params[1].lvalue, "prod");
	assert_string_equal(r.params[2].value, "team");
	assert_string_equal(r.params[2].lvalue, "x=y");
	assert_null(zr_param(&r, "id"));
	{
		struct zs_selection *sel = malloc(sizeof(*sel));

		assert_int_equal(zr_selection(&r, "", sel, msg, sizeof(msg)), 0);
		assert_string_equal(sel->host, "a b c");
		assert_int_equal(sel->nr_labels, 2);
		assert_string_equal(sel->labels[1].key, "team");
		assert_string_equal(sel->labels[1].value, "x=y");
		assert_int_equal(sel->from, 10);
		assert_int_equal(sel->to, 20);
		assert_int_equal(sel->limit, 5);
		free(sel);
	}
	zr_request_release(&r);

	/* a long value: at the limit and one past it */
	{
		char t[4096];
		int n = snprintf(t, sizeof(t), "/api/v1/profiles?host=");

		memset(t + n, 'h', ZR_MAX_VALUE);
		t[n + ZR_MAX_VALUE] = '\0';
		assert_int_equal(parse("GET", t, &r, msg), 0);
		zr_request_release(&r);
		t[n + ZR_MAX_VALUE] = 'h';
		t[n + ZR_MAX_VALUE + 1] = '\0';
		assert_int_equal(parse("GET", t, &r, msg), 400);
	}
	/* too many parameters, too long a target */
	{
		size_t cap = ZR_MAX_TARGET + 16, n = 0, i;
		char *t = malloc(cap);

		n += (size_t)snprintf(t, cap, "/api/v1/folded?");
		for (i = 0; i <= ZR_MAX_PARAMS; i++)
			n += (size_t)snprintf(t + n, cap - n, "label=a=%zu&", i % 10);
		assert_int_equal(parse("GET", t, &r, msg), 400);
		assert_non_null(strstr(msg, "too many"));
		memset(t, 'a', cap - 1);
		t[0] = '/';
		t[cap - 1] = '\0';
		assert_int_equal(parse("GET", t, &r, msg), 414);
		free(t);
	}
}

static void test_selection(void **state)
{
	struct zs_selection *sel = malloc(sizeof(*sel));
	struct zr_request r;
	char msg[256];

	(void)state;
	assert_int_equal(parse("GET",
			       "/api/v1/diff?a.id=" PID "&b.host=h&b.label=k=v&a.id=" PID
			       "&title=T&width=800&inverted=1&minwidth=0.5",
			       &r, msg),
			 0);
	assert_int_equal(zr_selection(&r, "a.", sel, msg, sizeof(msg)), 0);
	assert_int_equal(sel->nr_ids, 2);
	assert_null(sel->host);
	assert_int_equal(zr_selection(&r, "b.", sel, msg, sizeof(msg)), 0);
	assert_int_equal(sel->nr_ids, 0);
	assert_string_equal(sel->host, "h");
	assert_int_equal(sel->nr_labels, 1);
	{
		struct zs_flame_opts o;

		assert_int_equal(zr_flame_params(&r, &o, msg, sizeof(msg)), 0);
		assert_string_equal(o.title, "T");
		assert_int_equal(o.width, 800);
		assert_int_equal(o.inverted, 1);
		assert_true(o.minwidth == 0.5);
	}
	zr_request_release(&r);

	static const char *const bad[] = {
		"/api/v1/folded?id=abc",
		"/api/v1/folded?id=" PID "x",
		"/api/v1/folded?label=novalue",
		"/api/v1/folded?label==v",
		"/api/v1/folded?label=a%2Fb=v",
		"/api/v1/folded?from=-1",
		"/api/v1/folded?from=x",
		"/api/v1/folded?from=20&to=10",
		"/api/v1/folded?to=99999999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse("GET", bad[i], &r, msg), 0);
		if (zr_selection(&r, "", sel, msg, sizeof(msg)) != 400)
			fail_msg("%s accepted", bad[i]);
		zr_request_release(&r);
	}
	static const char *const badflame[] = {
		"/api/v1/flame?width=10",     "/api/v1/flame?width=x",
		"/api/v1/flame?inverted=yes", "/api/v1/flame?minwidth=-1",
		"/api/v1/flame?minwidth=nan",
	};
	for (size_t i = 0; i < sizeof(badflame) / sizeof(badflame[0]); i++) {
		struct zs_flame_opts o;

		assert_int_equal(parse("GET", badflame[i], &r, msg), 0);
		if (zr_flame_params(&r, &o, msg, sizeof(msg)) != 400)
			fail_msg("%s accepted", badflame[i]);
		zr_request_release(&r);
	}
	{
		size_t limit;
		enum zs_sort sort;

		assert_int_equal(parse("GET", "/api/v1/top?limit=7&sort=children", &r, msg), 0);
		assert_int_equal(zr_top_params(&r, &limit, &sort, msg, sizeof(msg)), 0);
		assert_int_equal(limit, 7);
		assert_int_equal(sort, ZS_SORT_CHILDREN);
		zr_request_release(&r);
		assert_int_equal(parse("GET", "/api/v1/top?sort=name", &r, msg), 0);
		assert_int_equal(zr_top_params(&r, &limit, &sort, msg, sizeof(msg)), 400);
		zr_request_release(&r);
	}
	{
		struct zs_label l[ZS_SEL_MAX_LABELS];
		size_t n;

		assert_int_equal(
			parse("POST", "/api/v1/profiles?label=ci=1&label=branch=main", &r, msg), 0);
		assert_int_equal(zr_labels(&r, l, &n, msg, sizeof(msg)), 0);
		assert_int_equal(n, 2);
		assert_string_equal(l[1].key, "branch");
		assert_string_equal(l[1].value, "main");
		zr_request_release(&r);
	}
	free(sel);
}

static void test_scopes(void **state)
{
	(void)state;
	assert_int_equal(zr_scopes(ZR_HEALTHZ, 0, 0), 0);
	assert_int_equal(zr_scopes(ZR_PAGE, 0, 0), 0);
	assert_int_equal(zr_scopes(ZR_TOP, 0, 0), ZS_SCOPE_READ);
	assert_int_equal(zr_scopes(ZR_TOP, 1, 0), 0);
	assert_int_equal(zr_scopes(ZR_PROFILE_POST, 1, 0), ZS_SCOPE_PUSH);
	assert_int_equal(zr_scopes(ZR_PROFILE_DELETE, 1, 0), ZS_SCOPE_ADMIN);
	assert_true(zr_scope_ok(ZS_SCOPE_ADMIN, ZS_SCOPE_PUSH));
	assert_false(zr_scope_ok(ZS_SCOPE_READ, ZS_SCOPE_PUSH));
	assert_false(zr_scope_ok(ZS_SCOPE_PUSH, zr_scopes(ZR_SYMBOL_PUT, 0, 0)));
	assert_true(zr_scope_ok(ZS_SCOPE_PUSH, zr_scopes(ZR_SYMBOL_PUT, 0, 1)));
	assert_true(zr_scope_ok(ZS_SCOPE_SYMBOLS, zr_scopes(ZR_SYMBOLS_MISSING, 0, 0)));
	assert_false(zr_scope_ok(ZS_SCOPE_READ, zr_scopes(ZR_PROFILE_DELETE, 0, 0)));
	assert_true(zr_scope_ok(0, zr_scopes(ZR_HEALTHZ, 0, 0)));
	assert_false(zr_scope_ok(0, zr_scopes(ZR_METRICS, 0, 0)));
	assert_true(zr_has_body(ZR_PROFILE_POST));
	assert_false(zr_has_body(ZR_TOP));
}

static void test_listen(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;

	(void)state;
	assert_int_equal(zr_parse_listen("127.0.0.1:7070", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("127.1.2.3:1", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("7070", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen(":0", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("localhost:80", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("[::1]:7070", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("0.0.0.0:7070", &ss, &len), 0);
	assert_false(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("[::]:7070", &ss, &len), 0);
	assert_false(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("10.0.0.1:80", &ss, &len), 0);
	assert_false(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("[::ffff:127.0.0.1]:80", &ss, &len), 0);
	assert_true(zr_addr_is_loopback(&ss));
	assert_int_equal(zr_parse_listen("::1:80", &ss, &len), -EINVAL);
	assert_int_equal(zr_parse_listen("host.example:80", &ss, &len), -EINVAL);
	assert_int_equal(zr_parse_listen("127.0.0.1:65536", &ss, &len), -EINVAL);
	assert_int_equal(zr_parse_listen("127.0.0.1:", &ss, &len), -EINVAL);
	assert_int_equal(zr_parse_listen("", &ss, &len), -EINVAL);
	assert_int_equal(zr_parse_listen("[::1:80", &ss, &len), -EINVAL);
}

static void test_numbers(void **state)
{
	uint64_t u;
	int64_t i;

	(void)state;
	assert_int_equal(zr_parse_u64("18446744073709551615", UINT64_MAX, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(zr_parse_u64("18446744073709551616", UINT64_MAX, &u), -EINVAL);
	assert_int_equal(zr_parse_u64("+1", 10, &u), -EINVAL);
	assert_int_equal(zr_parse_u64("11", 10, &u), -EINVAL);
	assert_int_equal(zr_parse_i64("-9223372036854775808", &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(zr_parse_i64("9223372036854775808", &i), -EINVAL);
	assert_int_equal(zr_parse_i64("-", &i), -EINVAL);
	assert_int_equal(zr_symbol_quality("full"), 2);
	assert_int_equal(zr_symbol_quality("basic"), 1);
	assert_int_equal(zr_symbol_quality("none"), 0);
	assert_int_equal(zr_symbol_quality("functions"), 1); /* DESIGN.md's word for basic */
	assert_int_equal(zr_symbol_quality("Full"), -1);
	assert_int_equal(zr_symbol_quality(""), -1);
	assert_true(zr_hex_ok("ab", 2, 40));
	assert_false(zr_hex_ok("a", 2, 40));
	assert_false(zr_hex_ok("aB", 2, 40));
	assert_true(zr_label_key_ok("ci.job-name_1"));
	assert_false(zr_label_key_ok("a b"));
	assert_false(zr_label_key_ok(""));
	assert_false(zr_label_value_ok("a\tb"));
}

#define BID "0123456789abcdef0123456789abcdef01234567"

/* /api/v1/symbols/ID/KIND[/PATH] and /buildid/ID/KIND[/PATH]: kinds,
 * methods, ids, and source paths with their tricks. */
static void test_symfile_routes(void **state)
{
	static const struct {
		const char *m, *t;
		enum zr_route route;
		enum zs_kind kind;
		const char *src;
	} ok[] = {
		{"PUT", "/api/v1/symbols/" BID "/debuginfo", ZR_SYMFILE_PUT, ZS_KIND_DEBUGINFO, NULL},
		{"HEAD", "/api/v1/symbols/" BID "/executable", ZR_SYMFILE_HEAD, ZS_KIND_EXECUTABLE,
		 NULL},
		{"GET", "/api/v1/symbols/abcd/debuginfo", ZR_SYMFILE_GET, ZS_KIND_DEBUGINFO, NULL},
		{"PUT", "/api/v1/symbols/abcd/source/usr/src/a.c", ZR_SYMFILE_PUT, ZS_KIND_SOURCE,
		 "usr/src/a.c"},
		{"GET", "/buildid/" BID "/debuginfo", ZR_BUILDID, ZS_KIND_DEBUGINFO, NULL},
		{"HEAD", "/buildid/" BID "/executable", ZR_BUILDID, ZS_KIND_EXECUTABLE, NULL},
		/* libdebuginfod's form: "source" + "/" + the absolute path */
		{"GET", "/buildid/" BID "/source//usr/src/a%20b.c", ZR_BUILDID, ZS_KIND_SOURCE,
		 "usr/src/a b.c"},
		{"GET", "/buildid/abcd/source/a//b///c.c/", ZR_BUILDID, ZS_KIND_SOURCE, "a/b/c.c"},
		{"GET", "/buildid/abcd/source/a/%2Bx%2fy.c", ZR_BUILDID, ZS_KIND_SOURCE, "a/+x/y.c"},
		{"GET", "/buildid/abcd/source/a/..x/.y/x..", ZR_BUILDID, ZS_KIND_SOURCE,
		 "a/..x/.y/x.."},
		{"GET", "/buildid/abcd/source/a+b\\c", ZR_BUILDID, ZS_KIND_SOURCE, "a+b\\c"},
		{"GET", "/%62uildid/abcd/executable", ZR_BUILDID, ZS_KIND_EXECUTABLE, NULL},
		/* the GSYM routes are the kind gsym */
		{"GET", "/api/v1/symbols/abcd", ZR_SYMBOL_GET, ZS_KIND_GSYM, NULL},
	};
	static const struct {
		const char *m, *t;
		int code;
	} bad[] = {
		{"GET", "/buildid/abcd/source/a/../etc/passwd", 400},
		{"GET", "/buildid/abcd/source/a/./b", 400},
		{"GET", "/buildid/abcd/source/..", 400},
		{"GET", "/buildid/abcd/source/a/%2e%2e/b", 400},
		{"GET", "/buildid/abcd/source/a/%2E/b", 400},
		{"GET", "/buildid/abcd/source/a%2f%2e%2e%2fb", 400},
		{"GET", "/buildid/abcd/source/a%00b", 400},
		{"GET", "/buildid/abcd/source/a%0ab", 400},
		{"GET", "/buildid/abcd/source/a%7fb", 400},
		{"GET", "/buildid/abcd/source/a%zzb", 400},
		{"GET", "/buildid/abcd/source/a%2", 400},
		{"GET", "/buildid/abcd/source/", 400},
		{"GET", "/buildid/abcd/source", 400},
		{"GET", "/buildid/abcd/source///", 400},
		{"GET", "/buildid/ABCD/debuginfo", 400},       /* uppercase hex */
		{"GET", "/buildid/abc/debuginfo", 400},        /* odd length */
		{"GET", "/buildid/a/debuginfo", 400},          /* too short */
		{"GET", "/buildid/" BID "00/debuginfo", 400},  /* 42 digits */
		{"GET", "/buildid/xyz0/debuginfo", 400},
		{"GET", "/buildid/%2e%2e/debuginfo", 400},
		{"GET", "/buildid/ab%2fcd/debuginfo", 400},
		{"GET", "/buildid/ab%00/debuginfo", 400},
		{"GET", "/buildid//debuginfo", 400},
		{"GET", "/buildid/abcd/debuginfo?x=1", 400},
		{"GET", "/buildid/abcd/section/.text", 404},
		{"GET", "/buildid/abcd/debuginfo/x", 404},
		{"GET", "/buildid/abcd/debuginfo%2fx", 404},
		{"GET", "/buildid/abcd/gsym", 404},
		{"GET", "/buildid/abcd", 404},
		{"PUT", "/buildid/abcd/debuginfo", 405},
		{"DELETE", "/api/v1/symbols/abcd/debuginfo", 405},
		{"PUT", "/api/v1/symbols/abcd/nosuchkind", 404},
		{"PUT", "/api/v1/symbols/abcd/source/a/../../x", 400},
	};
	struct zr_request r;
	char msg[256], *big;
	const char *allow;
	size_t i, n;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		rc = parse(ok[i].m, ok[i].t, &r, msg);
		if (rc)
			fail_msg("%s %s: %d %s", ok[i].m, ok[i].t, rc, msg);
		assert_int_equal(r.route, ok[i].route);
		assert_int_equal(r.kind, ok[i].kind);
		if (ok[i].src)
			assert_string_equal(r.src, ok[i].src);
		else
			assert_null(r.src);
		assert_int_equal(r.head, !strcmp(ok[i].m, "HEAD"));
		zr_request_release(&r);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = parse(bad[i].m, bad[i].t, &r, msg);
		if (rc != bad[i].code)
			fail_msg("%s %s: %d, not %d (%s)", bad[i].m, bad[i].t, rc, bad[i].code,
				 rc ? msg : "accepted");
		for (n = 0; msg[n]; n++)
			assert_true(msg[n] >= 0x20 && msg[n] < 0x7f);
	}
	rc = zr_parse("POST", "/buildid/abcd/debuginfo", 23, &r, &allow, msg, sizeof(msg));
	assert_int_equal(rc, 405);
	assert_string_equal(allow, "GET, HEAD");
	/* a path of 4096 bytes passes, one more does not; "//" does not count */
	big = malloc(2 * ZR_MAX_SRCPATH + 64);
	assert_non_null(big);
	n = (size_t)sprintf(big, "/buildid/abcd/source//");
	memset(big + n, 'a', ZR_MAX_SRCPATH);
	big[n + ZR_MAX_SRCPATH] = '\0';
	assert_int_equal(parse("GET", big, &r, msg), 0);
	assert_int_equal(strlen(r.src), ZR_MAX_SRCPATH);
	zr_request_release(&r);
	strcat(big, "/");
	assert_int_equal(parse("GET", big, &r, msg), 0);
	zr_request_release(&r);
	strcat(big, "b");
	assert_int_equal(parse("GET", big, &r, msg), 400);
	free(big);
	/* scopes: uploads need symbols (push with If-None-Match: *), reads read */
	assert_int_equal(zr_scopes(ZR_SYMFILE_PUT, 1, 0), ZS_SCOPE_SYMBOLS);
	assert_int_equal(zr_scopes(ZR_SYMFILE_PUT, 1, 1), ZS_SCOPE_SYMBOLS | ZS_SCOPE_PUSH);
	assert_int_equal(zr_scopes(ZR_BUILDID, 0, 0), ZS_SCOPE_READ);
	assert_int_equal(zr_scopes(ZR_BUILDID, 1, 0), 0);
	assert_int_equal(zr_scopes(ZR_SYMFILE_GET, 0, 0), ZS_SCOPE_READ);
	assert_true(zr_has_body(ZR_SYMFILE_PUT));
	assert_false(zr_has_body(ZR_BUILDID));
}

static void test_pct_text(void **state)
{
	char out[3 * ZR_MAX_DESCRIPTION + 1], big[3 * ZR_MAX_DESCRIPTION + 8];

	(void)state;
	assert_int_equal(zr_pct_text("hello%20world%21", 1024, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "hello%20world%21");
	assert_int_equal(zr_pct_text("a b/c", 1024, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "a%20b/c");
	assert_int_equal(zr_pct_text("%C3%A9t%C3%A9", 1024, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "%C3%A9t%C3%A9");
	assert_int_equal(zr_pct_text("%0a", 1024, 0, out, sizeof(out)), -EINVAL);
	assert_int_equal(zr_pct_text("%00", 1024, 0, out, sizeof(out)), -EINVAL);
	assert_int_equal(zr_pct_text("%ff%fe", 1024, 0, out, sizeof(out)), -EINVAL); /* not UTF-8 */
	assert_int_equal(zr_pct_text("%ed%a0%80", 1024, 0, out, sizeof(out)), -EINVAL); /* surrogate */
	assert_int_equal(zr_pct_text("%c0%af", 1024, 0, out, sizeof(out)), -EINVAL); /* overlong */
	assert_int_equal(zr_pct_text("%g1", 1024, 0, out, sizeof(out)), -EINVAL);
	memset(big, 'x', 1024);
	big[1024] = '\0';
	assert_int_equal(zr_pct_text(big, 1024, 0, out, sizeof(out)), 0);
	strcat(big, "x");
	assert_int_equal(zr_pct_text(big, 1024, 0, out, sizeof(out)), -EINVAL);
	/* file names */
	assert_int_equal(zr_pct_text("libfoo.so.1", 255, 1, out, sizeof(out)), 0);
	assert_string_equal(out, "libfoo.so.1");
	assert_int_equal(zr_pct_text("a%2fb", 255, 1, out, sizeof(out)), -EINVAL);
	assert_int_equal(zr_pct_text("..", 255, 1, out, sizeof(out)), -EINVAL);
	assert_int_equal(zr_pct_text("", 255, 1, out, sizeof(out)), -EINVAL);
	assert_int_equal(zr_pct_text("abc", 255, 1, out, 3), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),	cmocka_unit_test(test_errors),
		cmocka_unit_test(test_query),	cmocka_unit_test(test_selection),
		cmocka_unit_test(test_scopes),	cmocka_unit_test(test_listen),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_symfile_routes),
		cmocka_unit_test(test_pct_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
