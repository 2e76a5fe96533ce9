// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * server/s3store and net/s3 against a real S3-compatible server that
 * verifies signatures: tests/e2e/t_s3.sh starts one (s3rver with a SigV4
 * check, tests/e2e/s3/server.js) and runs this with
 *   ZT_S3_TEST_URL     http://127.0.0.1:PORT/BUCKET/PREFIX
 *   ZT_S3_TEST_REGION  the server's region
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY  its key pair
 * Without ZT_S3_TEST_URL every test is skipped (make check-unit).
 *
 * Round trips byte for byte (empty, small, 5 MiB), two stores sharing the
 * bucket, keys under the prefix, a wrong secret or key id, a missing
 * bucket, a wrong region, keys from a file, retries on 503, a refused
 * connection, and requests from several threads at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/s3.h"
#include "server/s3store.h"
#include "testutil.h"

static char tmpdir[] = "/tmp/zt-test-s3-live.XXXXXX";
static const char *url, *region;
static struct zt_s3_loc where; /* url parsed */
static char id[128], secret[256];

#define NEED_SERVER()                                                                    \
	do {                                                                             \
		if (!url)                                                                \
			skip();                                                          \
	} while (0)

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* A file of len bytes from seed (xorshift), its path into path. */
static void make_file(char *path, size_t n, const char *name, size_t len, uint64_t seed)
{
	uint8_t *p = malloc(len ? len : 1);
	uint64_t x = seed | 1;
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
	path_in(path, n, name);
	assert_int_equal(write_bytes(path, p, len, 0644), 0);
	free(p);
}

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
	return run("cmp -s '%s' '%s'", a, b) == 0;
}

static struct zt_s3_opts opts(void)
{
	struct zt_s3_opts o = {.region = region, .backoff_ms = 20, .max_delay_ms = 200};

	return o;
}

/* The store's ops, as zt serve calls them. */
static void store_new(const char *u, struct zs_remote *r)
{
	struct zt_s3_opts o = opts();
	char msg[1024];
	int ret = zs_s3store_new(u, &o, r, msg, sizeof(msg));

	if (ret)
		fail_msg("zs_s3store_new('%s'): %d %s", u, ret, msg);
	assert_non_null(r->ops);
}

static int put(struct zs_remote *r, const char *key, const char *path)
{
	char msg[1024];
	int ret = r->ops->put_file(r->ctx, key, path, msg, sizeof(msg));

	if (ret)
		print_message("put %s: %d %s\n", key, ret, msg);
	return ret;
}

static void roundtrip(struct zs_remote *r, const char *key, size_t len, uint64_t seed)
{
	char src[600], dst[610], msg[1024], name[64];
	uint64_t size = 1;

	snprintf(name, sizeof(name), "rt-%zu-%llu", len, (unsigned long long)seed);
	make_file(src, sizeof(src), name, len, seed);
	assert_int_equal(put(r, key, src), 0);
	assert_int_equal(r->ops->head(r->ctx, key, &size, msg, sizeof(msg)), 0);
	assert_int_equal(size, len);
	snprintf(dst, sizeof(dst), "%s.back", src);
	assert_int_equal(r->ops->get_file(r->ctx, key, dst, msg, sizeof(msg)), 0);
	assert_true(same_file(src, dst));
}

static void test_roundtrip(void **state)
{
	const char *key = "symbols/gsym/0123456789abcdef0123456789abcdef01234567.gsym";
	const char *big = "symbols/debuginfo/0123456789abcdef0123456789abcdef01234567.debug";
	char dst[600], msg[1024];
	struct zs_remote r;
	uint64_t size = 7;
	struct stat st;

	NEED_SERVER();
	store_new(url, &r);
	roundtrip(&r, key, 4096 + 17, 1);
	roundtrip(&r, key, 0, 2); /* replaced, by nothing */
	roundtrip(&r, "symbols/source/0123abcd/00ff.path", 1, 3);
	roundtrip(&r, big, 5u << 20, 4);

	/* delete: gone for head and get, and get leaves no file behind */
	assert_int_equal(r.ops->del(r.ctx, big, msg, sizeof(msg)), 0);
	assert_int_equal(r.ops->head(r.ctx, big, &size, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, big));
	path_in(dst, sizeof(dst), "gone");
	assert_int_equal(r.ops->get_file(r.ctx, big, dst, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no object"));
	assert_non_null(strstr(msg, where.bucket));
	assert_int_equal(stat(dst, &st), -1);
	/* deleting what is not there: S3 does not say, nor do we */
	assert_int_equal(r.ops->del(r.ctx, big, msg, sizeof(msg)), 0);
	assert_int_equal(r.ops->head(r.ctx, "symbols/gsym/never-stored.gsym", &size, msg,
				     sizeof(msg)),
			 -ENOENT);

	/* keys the store would never make are refused before any request */
	assert_int_equal(r.ops->head(r.ctx, "../x", &size, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(r.ops->put_file(r.ctx, "a//b", dst, msg, sizeof(msg)), -EINVAL);
	/* a file that is not there */
	assert_int_equal(r.ops->put_file(r.ctx, key, "/nonexistent/zt", msg, sizeof(msg)),
			 -ENOENT);
	assert_non_null(strstr(msg, "/nonexistent/zt"));
	r.ops->free(r.ctx);
}

/* A second server on the same bucket sees what the first stored; the keys
 * are under the URL's prefix. */
static void test_shared(void **state)
{
	const char *key = "symbols/gsym/feedface.gsym";
	char src[600], dst[600], root[700], full[700], msg[1024];
	struct zs_remote a, b;
	struct zt_s3_opts o = opts();
	struct zt_s3 *s;
	uint64_t size;

	NEED_SERVER();
	store_new(url, &a);
	store_new(url, &b);
	make_file(src, sizeof(src), "shared", 1000, 5);
	assert_int_equal(put(&a, key, src), 0);
	path_in(dst, sizeof(dst), "shared.b");
	assert_int_equal(b.ops->get_file(b.ctx, key, dst, msg, sizeof(msg)), 0);
	assert_true(same_file(src, dst));

	snprintf(root, sizeof(root), "%s/%s", where.endpoint, where.bucket);
	snprintf(full, sizeof(full), "%s%s", where.prefix, key);
	assert_int_equal(zt_s3_new(root, &o, &s, msg, sizeof(msg)), 0);
	assert_int_equal(zt_s3_head(s, full, &size, msg, sizeof(msg)), 0);
	assert_int_equal(size, 1000);
	zt_s3_free(s);

	assert_int_equal(b.ops->del(b.ctx, key, msg, sizeof(msg)), 0);
	assert_int_equal(a.ops->head(a.ctx, key, &size, msg, sizeof(msg)), -ENOENT);
	a.ops->free(a.ctx);
	b.ops->free(b.ctx);
}

static void set_keys(const char *key_id, const char *key)
{
	setenv("AWS_ACCESS_KEY_ID", key_id, 1);
	setenv("AWS_SECRET_ACCESS_KEY", key, 1);
}

/* The server verifies signatures: a wrong secret is refused, and said so. */
static void test_wrong_secret(void **state)
{
	struct zt_s3_opts o = opts();
	struct zs_remote r;
	struct zt_s3 *s;
	char src[600], msg[1024];
	uint64_t size;

	NEED_SERVER();
	make_file(src, sizeof(src), "wrong", 10, 6);
	set_keys(id, "not-the-secret");
	assert_int_equal(zs_s3store_new(url, &o, &r, msg, sizeof(msg)), -EACCES);
	print_message("wrong secret at start: %s\n", msg);
	assert_non_null(strstr(msg, "SignatureDoesNotMatch"));
	assert_non_null(strstr(msg, "secret key"));
	assert_non_null(strstr(msg, where.bucket));
	assert_null(strstr(msg, "not-the-secret"));
	assert_null(r.ops);

	assert_int_equal(zt_s3_new(url, &o, &s, msg, sizeof(msg)), 0);
	assert_int_equal(zt_s3_put_file(s, "symbols/gsym/ab.gsym", src, msg, sizeof(msg)),
			 -EACCES);
	print_message("wrong secret, put: %s\n", msg);
	assert_non_null(strstr(msg, "SignatureDoesNotMatch (HTTP 403)"));
	assert_non_null(strstr(msg, "symbols/gsym/ab.gsym"));
	/* a HEAD answer has no body: refused all the same */
	assert_int_equal(zt_s3_head(s, "symbols/gsym/ab.gsym", &size, msg, sizeof(msg)), -EACCES);
	assert_non_null(strstr(msg, "HTTP 403"));
	zt_s3_free(s);

	set_keys("AKNOSUCHKEY", secret);
	assert_int_equal(zs_s3store_new(url, &o, &r, msg, sizeof(msg)), -EACCES);
	assert_non_null(strstr(msg, "InvalidAccessKeyId"));
	set_keys(id, secret);
}

static void test_missing_bucket(void **state)
{
	struct zt_s3_opts o = opts();
	char u[700], src[600], msg[1024];
	struct zs_remote r;
	struct zt_s3 *s;
	uint64_t size;

	NEED_SERVER();
	snprintf(u, sizeof(u), "%s/zt-no-such-bucket/p", where.endpoint);
	assert_int_equal(zs_s3store_new(u, &o, &r, msg, sizeof(msg)), -ENXIO);
	print_message("missing bucket at start: %s\n", msg);
	assert_non_null(strstr(msg, "NoSuchBucket"));
	assert_non_null(strstr(msg, "'zt-no-such-bucket'"));
	assert_non_null(strstr(msg, "create the bucket"));

	make_file(src, sizeof(src), "nobucket", 10, 7);
	assert_int_equal(zt_s3_new(u, &o, &s, msg, sizeof(msg)), 0);
	assert_int_equal(zt_s3_put_file(s, "symbols/x", src, msg, sizeof(msg)), -ENXIO);
	assert_non_null(strstr(msg, "NoSuchBucket (HTTP 404)"));
	/* a HEAD's 404 cannot tell: no such object */
	assert_int_equal(zt_s3_head(s, "symbols/x", &size, msg, sizeof(msg)), -ENOENT);
	zt_s3_free(s);
}

static void test_wrong_region(void **state)
{
	struct zt_s3_opts o = opts();
	struct zs_remote r;
	char msg[1024];

	NEED_SERVER();
	o.region = "xx-nowhere-9";
	assert_int_equal(zs_s3store_new(url, &o, &r, msg, sizeof(msg)), -EINVAL);
	print_message("wrong region: %s\n", msg);
	assert_non_null(strstr(msg, "AuthorizationHeaderMalformed"));
	assert_non_null(strstr(msg, "region"));
}

static void test_keys_file(void **state)
{
	struct zt_s3_opts o = opts();
	char creds[600], text[600], src[600], msg[1024];
	struct zs_remote r;

	NEED_SERVER();
	path_in(creds, sizeof(creds), "creds");
	snprintf(text, sizeof(text), "# test\naccess_key = %s\nsecret_key = %s\n", id, secret);
	assert_int_equal(write_text(creds, text, 0600), 0);
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	setenv("ZT_S3_CREDENTIALS", creds, 1);
	store_new(url, &r);
	make_file(src, sizeof(src), "fromfile", 100, 8);
	assert_int_equal(put(&r, "symbols/gsym/f1.gsym", src), 0);
	r.ops->free(r.ctx);

	assert_int_equal(chmod(creds, 0640), 0);
	assert_int_equal(zs_s3store_new(url, &o, &r, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "chmod 600"));
	unsetenv("ZT_S3_CREDENTIALS");
	set_keys(id, secret);

	/* a session token goes along, signed */
	setenv("AWS_SESSION_TOKEN", "zt-session-token", 1);
	store_new(url, &r);
	assert_int_equal(put(&r, "symbols/gsym/f2.gsym", src), 0);
	r.ops->free(r.ctx);
	unsetenv("AWS_SESSION_TOKEN");
}

static void test_retries(void **state)
{
	struct zt_s3_opts o = opts();
	char src[600], dst[600], msg[1024];
	struct zt_s3 *s;

	NEED_SERVER();
	make_file(src, sizeof(src), "flaky", 3000, 9);
	path_in(dst, sizeof(dst), "flaky.back");
	o.tries = 4;
	assert_int_equal(zt_s3_new(url, &o, &s, msg, sizeof(msg)), 0);
	/* 503 twice, then stored: the file is sent again from its start */
	assert_int_equal(zt_s3_put_file(s, "zt-flaky/x", src, msg, sizeof(msg)), 0);
	assert_int_equal(zt_s3_get_file(s, "zt-flaky/x", dst, msg, sizeof(msg)), 0);
	assert_true(same_file(src, dst));
	/* 503 every time: given up after the tries, said so */
	assert_int_equal(zt_s3_put_file(s, "zt-always-503", src, msg, sizeof(msg)), -EIO);
	print_message("always 503: %s\n", msg);
	assert_non_null(strstr(msg, "SlowDown (HTTP 503)"));
	zt_s3_free(s);

	/* nobody listening: retried, then the connection's error */
	o.endpoint = "http://127.0.0.1:1";
	o.tries = 2;
	assert_int_equal(zt_s3_new("s3://zt-syms", &o, &s, msg, sizeof(msg)), 0);
	assert_int_equal(zt_s3_put_file(s, "symbols/y", src, msg, sizeof(msg)), -ECONNREFUSED);
	print_message("refused: %s\n", msg);
	assert_non_null(strstr(msg, "'zt-syms'"));
	zt_s3_free(s);
}

#define THREADS 6
#define PER	4

struct worker {
	struct zs_remote *r;
	int n, failed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char src[600], dst[610], key[128], name[64], msg[1024];
	int i;

	for (i = 0; i < PER && !w->failed; i++) {
		uint64_t size = 0;

		snprintf(name, sizeof(name), "t%d-%d", w->n, i);
		snprintf(key, sizeof(key), "symbols/threads/%s", name);
		path_in(src, sizeof(src), name);
		{
			/* not make_file(): cmocka's asserts belong to the main thread */
			char text[256];

			snprintf(text, sizeof(text), "thread %d object %d\n", w->n, i);
			if (write_text(src, text, 0644))
				w->failed = 1;
		}
		snprintf(dst, sizeof(dst), "%s.back", src);
		if (w->failed || w->r->ops->put_file(w->r->ctx, key, src, msg, sizeof(msg)) ||
		    w->r->ops->head(w->r->ctx, key, &size, msg, sizeof(msg)) ||
		    w->r->ops->get_file(w->r->ctx, key, dst, msg, sizeof(msg)) ||
		    !same_file(src, dst) || w->r->ops->del(w->r->ctx, key, msg, sizeof(msg)))
			w->failed = 1;
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct zt_s3_opts o = opts();
	struct worker w[THREADS];
	pthread_t t[THREADS];
	struct zs_remote r;
	char msg[1024];
	int i;

	NEED_SERVER();
	o.max_conns = 3; /* fewer handles than threads: some wait */
	assert_int_equal(zs_s3store_new(url, &o, &r, msg, sizeof(msg)), 0);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){&r, i, 0};
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].failed, 0);
	}
	r.ops->free(r.ctx);
}

static int setup(void **state)
{
	char msg[512];
	const char *k;

	url = getenv("ZT_S3_TEST_URL");
	region = getenv("ZT_S3_TEST_REGION");
	if (!url || !*url) {
		url = NULL;
		printf("SKIP: test_s3_live: ZT_S3_TEST_URL is not set (tests/e2e/t_s3.sh runs "
		       "it against a local S3 server)\n");
		return 0;
	}
	if (zt_s3_loc_parse(url, NULL, region, ZT_S3_STYLE_AUTO, &where, msg, sizeof(msg))) {
		fprintf(stderr, "ZT_S3_TEST_URL: %s\n", msg);
		return -1;
	}
	k = getenv("AWS_ACCESS_KEY_ID");
	snprintf(id, sizeof(id), "%s", k ? k : "");
	k = getenv("AWS_SECRET_ACCESS_KEY");
	snprintf(secret, sizeof(secret), "%s", k ? k : "");
	unsetenv("ZT_S3_CREDENTIALS");
	unsetenv("AWS_SESSION_TOKEN");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	if (!url)
		return 0;
	return run("rm -rf '%s'", tmpdir) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_shared),
		cmocka_unit_test(test_wrong_secret),  cmocka_unit_test(test_missing_bucket),
		cmocka_unit_test(test_wrong_region),  cmocka_unit_test(test_keys_file),
		cmocka_unit_test(test_retries),	      cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
