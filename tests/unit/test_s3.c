// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net/s3 without a server: the bucket URL's forms and what is refused, the
 * keys from a credentials file or the environment (and unsafe files
 * refused), which object keys may be used, S3's error code in an XML
 * answer. The requests themselves: test_s3_live against a local S3 server.
 */
#include <errno.h>
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
#include "testutil.h"

static char tmpdir[] = "/tmp/zt-test-s3.XXXXXX";

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* ---- the URL ------------------------------------------------------------------ */

static void test_url_aws(void **state)
{
	struct zt_s3_loc l;
	char msg[512];

	assert_int_equal(zt_s3_loc_parse("s3://zt-symbols", NULL, NULL, ZT_S3_STYLE_AUTO, &l, msg,
					 sizeof(msg)),
			 0);
	assert_string_equal(l.bucket, "zt-symbols");
	assert_string_equal(l.prefix, "");
	assert_string_equal(l.region, "us-east-1");
	assert_true(l.vhost);
	assert_string_equal(l.base, "https://zt-symbols.s3.us-east-1.amazonaws.com");
	assert_string_equal(l.endpoint, "https://s3.us-east-1.amazonaws.com");

	/* a '.' in the bucket: path style (TLS names), the prefix with or without '/' */
	assert_int_equal(zt_s3_loc_parse("s3://team.symbols/zt/store/", NULL, "eu-west-3",
					 ZT_S3_STYLE_AUTO, &l, msg, sizeof(msg)),
			 0);
	assert_false(l.vhost);
	assert_string_equal(l.base, "https://s3.eu-west-3.amazonaws.com");
	assert_string_equal(l.prefix, "zt/store/");
	assert_int_equal(zt_s3_loc_parse("s3://team.symbols/zt/store", NULL, "eu-west-3",
					 ZT_S3_STYLE_AUTO, &l, msg, sizeof(msg)),
			 0);
	assert_string_equal(l.prefix, "zt/store/");
	/* path style asked for */
	assert_int_equal(
		zt_s3_loc_parse("S3://abc", NULL, NULL, ZT_S3_STYLE_PATH, &l, msg, sizeof(msg)), 0);
	assert_false(l.vhost);
	assert_string_equal(l.base, "https://s3.us-east-1.amazonaws.com");
}

static void test_url_endpoint(void **state)
{
	struct zt_s3_loc l;
	char msg[512];

	/* s3:// with an endpoint: path style there */
	assert_int_equal(zt_s3_loc_parse("s3://zt-syms/a", "http://127.0.0.1:9000/", "garage",
					 ZT_S3_STYLE_AUTO, &l, msg, sizeof(msg)),
			 0);
	assert_false(l.vhost);
	assert_string_equal(l.base, "http://127.0.0.1:9000");
	assert_string_equal(l.endpoint, "http://127.0.0.1:9000");
	assert_string_equal(l.region, "garage");
	assert_string_equal(l.prefix, "a/");
	/* virtual-host style asked for */
	assert_int_equal(zt_s3_loc_parse("s3://zt-syms", "HTTPS://minio.lan:9000", NULL,
					 ZT_S3_STYLE_VHOST, &l, msg, sizeof(msg)),
			 0);
	assert_true(l.vhost);
	assert_string_equal(l.base, "https://zt-syms.minio.lan:9000");
	assert_string_equal(l.endpoint, "https://minio.lan:9000");

	/* http(s)://HOST[:PORT]/BUCKET[/PREFIX] */
	assert_int_equal(zt_s3_loc_parse("http://127.0.0.1:9000/zt-syms/team/a", NULL, NULL,
					 ZT_S3_STYLE_AUTO, &l, msg, sizeof(msg)),
			 0);
	assert_false(l.vhost);
	assert_string_equal(l.base, "http://127.0.0.1:9000");
	assert_string_equal(l.bucket, "zt-syms");
	assert_string_equal(l.prefix, "team/a/");
	assert_int_equal(zt_s3_loc_parse("https://[::1]:8443/b-1/", NULL, NULL, ZT_S3_STYLE_AUTO,
					 &l, msg, sizeof(msg)),
			 0);
	assert_string_equal(l.base, "https://[::1]:8443");
	assert_string_equal(l.bucket, "b-1");
	assert_string_equal(l.prefix, "");
	assert_int_equal(zt_s3_loc_parse("http://s3.lan/b-1", NULL, NULL, ZT_S3_STYLE_AUTO, &l, msg,
					 sizeof(msg)),
			 0);
	assert_string_equal(l.base, "http://s3.lan");
}

static void refused(const char *url, const char *endpoint, const char *region, const char *needle)
{
	struct zt_s3_loc l;
	char msg[512];

	if (zt_s3_loc_parse(url, endpoint, region, ZT_S3_STYLE_AUTO, &l, msg, sizeof(msg)) !=
	    -EINVAL)
		fail_msg("'%s' (endpoint %s, region %s) not refused", url, endpoint, region);
	if (needle && !strstr(msg, needle))
		fail_msg("'%s': message '%s' lacks '%s'", url, msg, needle);
	if (strstr(msg, "hunter2"))
		fail_msg("'%s': the message quotes the password: '%s'", url, msg);
}

static void test_url_refused(void **state)
{
	char longp[700];

	refused("", NULL, NULL, "no S3 URL");
	refused("ftp://h/b", NULL, NULL, "s3://BUCKET");
	refused("zt-syms", NULL, NULL, "s3://BUCKET");
	/* bucket names */
	refused("s3://", NULL, NULL, "bucket name");
	refused("s3://ab", NULL, NULL, "bucket name");
	refused("s3://Bucket", NULL, NULL, "bucket name");
	refused("s3://-abc", NULL, NULL, "bucket name");
	refused("s3://abc-", NULL, NULL, "bucket name");
	refused("s3://a..bc", NULL, NULL, "bucket name");
	refused("s3://a_bc", NULL, NULL, "bucket name");
	refused("s3://abc?list", NULL, NULL, "query");
	refused("s3://abc#x", NULL, NULL, "query");
	/* prefixes */
	refused("s3://abc/../x", NULL, NULL, "prefix");
	refused("s3://abc/a/./x", NULL, NULL, "prefix");
	refused("s3://abc/a//x", NULL, NULL, "prefix");
	refused("s3://abc//", NULL, NULL, "prefix");
	refused("s3://abc/a b", NULL, NULL, "prefix");
	refused("s3://abc/a%20b", NULL, NULL, "prefix");
	memset(longp, 'p', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	memcpy(longp, "s3://abc/", 9);
	refused(longp, NULL, NULL, "prefix");
	/* hosts and ports */
	refused("http://", NULL, NULL, "HOST[:PORT]");
	refused("http:///b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://h:0/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://h:65536/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://h:/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://h:8x/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://h_h/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://[::1/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://[::1]x/b-1", NULL, NULL, "HOST[:PORT]");
	refused("http://h:9000", NULL, NULL, "names no bucket");
	refused("http://h:9000/", NULL, NULL, "names no bucket");
	/* keys never in a URL, and never quoted back */
	refused("http://AKID:hunter2@h:9000/b-1", NULL, NULL, "never in a URL");
	refused("s3://AKID:hunter2@abc", NULL, NULL, "never in a URL");
	refused("s3://abc", "http://AKID:hunter2@h", NULL, "never in a URL");
	/* endpoints */
	refused("http://h/b-1", "http://other", NULL, "endpoint goes with an s3:// URL");
	refused("s3://abc", "h:9000", NULL, "not an http:// or https://");
	refused("s3://abc", "http://h:9000/abc", NULL, "has a path");
	refused("s3://abc", "http://h:99999", NULL, "HOST[:PORT]");
	/* regions */
	refused("s3://abc", NULL, "eu west", "region");
	refused("s3://abc", NULL, "eu:west", "region");
}

static void test_keys_ok(void **state)
{
	char k[ZT_S3_KEY_MAX + 2];

	assert_true(zt_s3_key_ok("symbols/gsym/0123abcd.gsym"));
	assert_true(zt_s3_key_ok("symbols/source/ab12/00ff.path"));
	assert_true(zt_s3_key_ok(".zt-s3-check"));
	assert_true(zt_s3_key_ok("a~b_c-d.e"));
	assert_false(zt_s3_key_ok(""));
	assert_false(zt_s3_key_ok("/symbols"));
	assert_false(zt_s3_key_ok("symbols/"));
	assert_false(zt_s3_key_ok("a//b"));
	assert_false(zt_s3_key_ok("a/./b"));
	assert_false(zt_s3_key_ok("a/../b"));
	assert_false(zt_s3_key_ok(".."));
	assert_false(zt_s3_key_ok("a b"));
	assert_false(zt_s3_key_ok("a?b"));
	assert_false(zt_s3_key_ok("a%2Fb"));
	assert_false(zt_s3_key_ok("caf\xc3\xa9"));
	memset(k, 'k', ZT_S3_KEY_MAX);
	k[ZT_S3_KEY_MAX] = 0;
	assert_true(zt_s3_key_ok(k));
	k[ZT_S3_KEY_MAX] = 'k';
	k[ZT_S3_KEY_MAX + 1] = 0;
	assert_false(zt_s3_key_ok(k));
}

/* ---- the keys ------------------------------------------------------------------ */

static int parse_text(const char *text, struct zt_s3_keys *k, char *msg, size_t n)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", text);
	return zt_s3_keys_parse(buf, "creds", k, msg, n);
}

static void test_keys_parse(void **state)
{
	struct zt_s3_keys k;
	char msg[512];

	assert_int_equal(parse_text("# zt serve's bucket\n"
				    "access_key = AKIAZT0001\n"
				    "\n"
				    "  secret_key=zt/Secret+key==  \r\n"
				    "region = ignored\n",
				    &k, msg, sizeof(msg)),
			 0);
	assert_string_equal(k.id, "AKIAZT0001");
	assert_string_equal(k.secret, "zt/Secret+key==");
	assert_null(k.token);
	zt_s3_keys_release(&k);
	assert_null(k.id);
	assert_null(k.secret);

	assert_int_equal(parse_text("access_key = A\nsecret_key = S\nsession_token = T0k/en=\n", &k,
				    msg, sizeof(msg)),
			 0);
	assert_string_equal(k.token, "T0k/en=");
	zt_s3_keys_release(&k);

	/* a missing key named; no value ever quoted */
	assert_int_equal(parse_text("access_key = AKID\n", &k, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "secret_key"));
	assert_null(strstr(msg, "AKID"));
	assert_null(k.id);
	assert_int_equal(parse_text("secret_key = hunter2\n", &k, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "access_key"));
	assert_int_equal(
		parse_text("access_key = A\nsecret_key = hunter 2\n", &k, msg, sizeof(msg)),
		-EBADMSG);
	assert_non_null(strstr(msg, "secret_key"));
	assert_null(strstr(msg, "hunter"));
	assert_int_equal(
		parse_text("access_key = A:B\nsecret_key = hunter2\n", &k, msg, sizeof(msg)),
		-EBADMSG);
	assert_int_equal(parse_text("access_key = A\nsecret_key = \n", &k, msg, sizeof(msg)),
			 -EBADMSG);
	assert_int_equal(parse_text("access_key = A\nsecret_key = x\x01y\n", &k, msg, sizeof(msg)),
			 -EBADMSG);
	assert_int_equal(parse_text("access_key = A\nsecret_key = S\nsession_token = a b\n", &k,
				    msg, sizeof(msg)),
			 -EBADMSG);
	assert_null(k.id);
	/* a line that is not key = value: its number, not its text */
	assert_int_equal(parse_text("access_key = A\n\nhunter2\n", &k, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "creds:3:"));
	assert_null(strstr(msg, "hunter2"));
}

static void clear_env(void)
{
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_SESSION_TOKEN");
	unsetenv("ZT_S3_CREDENTIALS");
	unsetenv("AWS_REGION");
	unsetenv("AWS_DEFAULT_REGION");
}

static void test_keys_load(void **state)
{
	struct zt_s3_keys k;
	char msg[512], path[600], link[600];

	clear_env();
	assert_int_equal(zt_s3_keys_load(NULL, &k, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "AWS_ACCESS_KEY_ID"));
	assert_non_null(strstr(msg, "ZT_S3_CREDENTIALS"));

	/* the environment */
	setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
	assert_int_equal(zt_s3_keys_load(NULL, &k, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "AWS_SECRET_ACCESS_KEY"));
	setenv("AWS_SECRET_ACCESS_KEY", "sEnv", 1);
	setenv("AWS_SESSION_TOKEN", "tEnv", 1);
	assert_int_equal(zt_s3_keys_load(NULL, &k, msg, sizeof(msg)), 0);
	assert_string_equal(k.id, "AKENV");
	assert_string_equal(k.secret, "sEnv");
	assert_string_equal(k.token, "tEnv");
	zt_s3_keys_release(&k);

	/* a file, given or from ZT_S3_CREDENTIALS, wins over the environment */
	path_in(path, sizeof(path), "creds");
	assert_int_equal(write_text(path, "access_key = AKFILE\nsecret_key = sFile\n", 0600), 0);
	assert_int_equal(zt_s3_keys_load(path, &k, msg, sizeof(msg)), 0);
	assert_string_equal(k.id, "AKFILE");
	assert_null(k.token);
	zt_s3_keys_release(&k);
	setenv("ZT_S3_CREDENTIALS", path, 1);
	assert_int_equal(zt_s3_keys_load(NULL, &k, msg, sizeof(msg)), 0);
	assert_string_equal(k.secret, "sFile");
	zt_s3_keys_release(&k);

	/* unsafe files refused, with the fix */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(zt_s3_keys_load(path, &k, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "chmod 600"));
	assert_non_null(strstr(msg, "S3 keys"));
	assert_null(strstr(msg, "sFile"));
	assert_int_equal(chmod(path, 0600), 0);
	path_in(link, sizeof(link), "creds-link");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(zt_s3_keys_load(link, &k, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_int_equal(zt_s3_keys_load(tmpdir, &k, msg, sizeof(msg)), -EPERM);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(zt_s3_keys_load(path, &k, msg, sizeof(msg)), -EPERM);
		assert_non_null(strstr(msg, "not owned by you"));
		assert_int_equal(chown(path, 0, 0), 0);
	}
	/* a file named that is not there: said, not silently the environment */
	path_in(path, sizeof(path), "no-such-creds");
	setenv("ZT_S3_CREDENTIALS", path, 1);
	assert_int_equal(zt_s3_keys_load(NULL, &k, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no-such-creds"));
	clear_env();
}

static void test_new(void **state)
{
	struct zt_s3_opts o = {.endpoint = "http://127.0.0.1:9"};
	struct zt_s3 *s;
	char msg[512];

	clear_env();
	assert_int_equal(zt_s3_new("s3://zt-syms", &o, &s, msg, sizeof(msg)), -ENOENT);
	assert_null(s);
	setenv("AWS_ACCESS_KEY_ID", "AK", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "SK", 1);
	assert_int_equal(zt_s3_new("s3://Bad", &o, &s, msg, sizeof(msg)), -EINVAL);
	/* the region from the environment unless given */
	setenv("AWS_DEFAULT_REGION", "eu-central-1", 1);
	assert_int_equal(zt_s3_new("s3://zt-syms/p", &o, &s, msg, sizeof(msg)), 0);
	assert_string_equal(zt_s3_where(s)->region, "eu-central-1");
	assert_string_equal(zt_s3_where(s)->prefix, "p/");
	zt_s3_free(s);
	setenv("AWS_REGION", "eu-north-1", 1);
	assert_int_equal(zt_s3_new("s3://zt-syms/p", &o, &s, msg, sizeof(msg)), 0);
	assert_string_equal(zt_s3_where(s)->region, "eu-north-1");
	zt_s3_free(s);
	o.region = "ap-south-2";
	assert_int_equal(zt_s3_new("s3://zt-syms/p", &o, &s, msg, sizeof(msg)), 0);
	assert_string_equal(zt_s3_where(s)->region, "ap-south-2");
	zt_s3_free(s);
	zt_s3_free(NULL);
	clear_env();
}

/* ---- error answers -------------------------------------------------------------- */

static int code_of(const char *body, char *code, size_t n)
{
	return zt_s3_error_code(body, strlen(body), code, n);
}

static void test_error_code(void **state)
{
	char code[64], big[70 << 10];

	assert_int_equal(code_of("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				 "<Error><Code>NoSuchBucket</Code><Message>The specified bucket "
				 "does not exist</Message><BucketName>b</BucketName></Error>",
				 code, sizeof(code)),
			 0);
	assert_string_equal(code, "NoSuchBucket");
	assert_int_equal(code_of("<Error>\n  <Code> SignatureDoesNotMatch\n</Code>\n</Error>", code,
				 sizeof(code)),
			 0);
	assert_string_equal(code, "SignatureDoesNotMatch");
	/* the first <Code> only */
	assert_int_equal(code_of("<Error><Code>AccessDenied</Code><Code>X</Code></Error>", code,
				 sizeof(code)),
			 0);
	assert_string_equal(code, "AccessDenied");

	/* no code, or not a plain one: "" */
	assert_int_equal(code_of("", code, sizeof(code)), -ENOENT);
	assert_string_equal(code, "");
	assert_int_equal(code_of("<html>502 Bad Gateway</html>", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code></Code>", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code>No Such</Code>", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code>a&lt;b</Code>", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code>\x1b[31mRed</Code>", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code>NoSuchKey", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code>NoSuchKey</Cod", code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code", code, sizeof(code)), -ENOENT);
	assert_string_equal(code, "");
	/* 63 letters fit, 64 do not; nor a code longer than the buffer */
	memset(big, 'A', sizeof(big));
	memcpy(big, "<Code>", 6);
	memcpy(big + 6 + 63, "</Code>", 8);
	assert_int_equal(code_of(big, code, sizeof(code)), 0);
	assert_int_equal(strlen(code), 63);
	memset(big + 6, 'A', 64);
	memcpy(big + 6 + 64, "</Code>", 8);
	assert_int_equal(code_of(big, code, sizeof(code)), -ENOENT);
	assert_int_equal(code_of("<Code>NoSuchKey</Code>", code, 5), -ENOENT);
	assert_int_equal(zt_s3_error_code("<Code>X</Code>", 14, code, 0), -ENOENT);
	assert_int_equal(zt_s3_error_code(NULL, 0, code, sizeof(code)), -ENOENT);
	/* not looked for past 64 KiB; the length bounds the search, not a NUL */
	memset(big, ' ', sizeof(big));
	memcpy(big + (65 << 10), "<Code>Late</Code>", 17);
	assert_int_equal(zt_s3_error_code(big, sizeof(big), code, sizeof(code)), -ENOENT);
	assert_int_equal(zt_s3_error_code("<Code>NoSuchKey</Code>", 14, code, sizeof(code)),
			 -ENOENT);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return run("rm -rf '%s'", tmpdir) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_aws),	    cmocka_unit_test(test_url_endpoint),
		cmocka_unit_test(test_url_refused), cmocka_unit_test(test_keys_ok),
		cmocka_unit_test(test_keys_parse),  cmocka_unit_test(test_keys_load),
		cmocka_unit_test(test_new),	    cmocka_unit_test(test_error_code),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
