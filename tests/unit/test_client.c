// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net/client: requests against a real HTTP server on loopback (a small one
 * in a thread of this test, answering from a script): 503 then 201 is
 * retried, 400 is not, Retry-After is honoured and capped, a refused
 * connection is retried and then given up, the token goes in a header;
 * TLS: the CA certificates the environment names (as the curl tool reads
 * them), an https request to a server that does not speak TLS, and CA
 * certificates that cannot be used, each given up at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/client.h"
#include "tests/unit/httpserv.h"

struct retries {
	int calls;
	unsigned delays[16];
	char why[16][128];
};

static void on_retry(void *ctx, int attempt, unsigned delay_ms, const char *why)
{
	struct retries *r = ctx;

	if (r->calls < 16) {
		r->delays[r->calls] = delay_ms;
		snprintf(r->why[r->calls], sizeof(r->why[0]), "%s", why);
	}
	r->calls++;
}

static struct zt_http *client(int port, int tries, unsigned backoff, unsigned max_delay,
			      struct retries *r)
{
	struct zt_http_opts o = {0};
	struct zt_http *h;
	char url[64], msg[256];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	o.base_url = url;
	o.token = "t0ken-secret";
	o.tries = tries;
	o.backoff_ms = backoff;
	o.max_delay_ms = max_delay;
	o.connect_timeout_ms = 2000;
	o.timeout_ms = 10000;
	o.on_retry = on_retry;
	o.retry_ctx = r;
	assert_int_equal(zt_http_new(&o, &h, msg, sizeof(msg)), 0);
	return h;
}

static void test_503_then_201(void **state)
{
	static const struct answer script[] = {
		{503, "X-Error: busy\r\n", "{\"error\":\"busy\"}"},
		{201, "ETag: \"abc\"\r\n", "{\"id\":\"x\"}"},
	};
	static const char *const hdrs[] = {"X-Test: 1", NULL};
	struct zt_http_req req = {"POST", "/api/v1/profiles?label=a=b", hdrs, "hello", 5, 0};
	struct zt_http_resp resp;
	struct retries r = {0};
	struct server s;
	struct zt_http *h;
	char msg[256], v[64];

	server_start(&s, script, 2);
	h = client(s.port, 3, 10, 1000, &r);
	zt_http_resp_init(&resp);
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), 0);
	assert_int_equal(resp.status, 201);
	assert_int_equal(resp.tries, 2);
	assert_int_equal(r.calls, 1);
	assert_true(r.delays[0] >= 5 && r.delays[0] <= 10);
	assert_non_null(strstr(r.why[0], "503"));
	assert_string_equal(resp.etag, "\"abc\"");
	/* the headers of the answer that counts: the 201's, by any case */
	assert_int_equal(zt_http_header(&resp, "etag", v, sizeof(v)), 0);
	assert_string_equal(v, "\"abc\"");
	assert_int_equal(zt_http_header(&resp, "Content-Length", v, 3), 0);
	assert_string_equal(v, "10");
	assert_int_equal(zt_http_header(&resp, "X-Error", v, sizeof(v)), -ENOENT);
	assert_int_equal(zt_http_header(&resp, "ETa", v, sizeof(v)), -ENOENT);
	assert_int_equal(resp.body.len, 10);
	assert_memory_equal(resp.body.data, "{\"id\":\"x\"}", 10);
	zt_http_resp_release(&resp);
	zt_http_free(h);
	server_stop(&s);
	assert_int_equal(s.served, 2);
	/* the same request both times: body, path, token in the header */
	assert_string_equal(s.first_line[0], "POST /api/v1/profiles?label=a=b HTTP/1.1");
	assert_string_equal(s.first_line[1], s.first_line[0]);
	assert_string_equal(s.body[1], "hello");
	assert_string_equal(s.auth[0], "Bearer t0ken-secret");
	assert_null(strstr(s.first_line[0], "t0ken"));
}

static void test_400_not_retried(void **state)
{
	static const struct answer script[] = {
		{400, NULL, "{\"error\":\"not a zt.data file\"}"},
		{201, NULL, "{}"},
	};
	struct zt_http_req req = {"PUT", "/api/v1/symbols/ab", NULL, "x", 1, 0};
	struct zt_http_resp resp;
	struct retries r = {0};
	struct server s;
	struct zt_http *h;
	char msg[256];

	server_start(&s, script, 2);
	h = client(s.port, 5, 10, 1000, &r);
	zt_http_resp_init(&resp);
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), 0);
	assert_int_equal(resp.status, 400);
	assert_int_equal(resp.tries, 1);
	assert_int_equal(r.calls, 0);
	zt_http_resp_release(&resp);
	zt_http_free(h);
	server_stop(&s);
	assert_int_equal(s.served, 1);
	assert_string_equal(s.first_line[0], "PUT /api/v1/symbols/ab HTTP/1.1");
}

static void test_retry_after(void **state)
{
	static const struct answer script[] = {
		{429, "Retry-After: 1\r\n", NULL},
		{200, NULL, "ok"},
	};
	struct zt_http_req req = {"GET", "/healthz", NULL, NULL, 0, 0};
	struct zt_http_resp resp;
	struct retries r = {0};
	struct server s;
	struct zt_http *h;
	char msg[256];

	server_start(&s, script, 2);
	/* the backoff alone would wait 10 ms: the server's 1 s wins */
	h = client(s.port, 3, 10, 5000, &r);
	zt_http_resp_init(&resp);
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), 0);
	assert_int_equal(resp.status, 200);
	assert_int_equal(resp.tries, 2);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.delays[0], 1000);
	zt_http_resp_release(&resp);
	zt_http_free(h);
	server_stop(&s);
	assert_true(s.at_ms[1] - s.at_ms[0] >= 950);
}

static void test_retry_after_capped(void **state)
{
	static const struct answer script[] = {
		{503, "Retry-After: 3600\r\n", NULL},
		{503, "Retry-After: 3600\r\n", "{\"error\":\"down for maintenance\"}"},
	};
	struct zt_http_req req = {"GET", "/x", NULL, NULL, 0, 0};
	struct zt_http_resp resp;
	struct retries r = {0};
	struct server s;
	struct zt_http *h;
	uint64_t t0;
	char msg[256];

	server_start(&s, script, 2);
	h = client(s.port, 2, 10, 200, &r);
	zt_http_resp_init(&resp);
	t0 = now_ms();
	/* an answer came: 0, with the last 503 for the caller to judge */
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), 0);
	assert_true(now_ms() - t0 < 3000);
	assert_int_equal(resp.status, 503);
	assert_int_equal(resp.tries, 2);
	assert_int_equal(resp.retry_after, 3600);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.delays[0], 200);
	zt_http_resp_release(&resp);
	zt_http_free(h);
	server_stop(&s);
}

static void test_refused(void **state)
{
	struct zt_http_req req = {"POST", "/api/v1/profiles", NULL, "abc", 3, 0};
	struct zt_http_resp resp;
	struct retries r = {0};
	struct zt_http *h;
	char msg[256];
	int port, fd;

	/* a port nothing listens on: bound, then closed */
	fd = listen_loopback(&port);
	close(fd);
	h = client(port, 3, 10, 1000, &r);
	zt_http_resp_init(&resp);
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), -ECONNREFUSED);
	assert_int_equal(resp.tries, 3);
	assert_int_equal(r.calls, 2);
	assert_true(r.delays[0] >= 5 && r.delays[0] <= 10);
	assert_true(r.delays[1] >= 10 && r.delays[1] <= 20);
	assert_true(msg[0] != 0);
	assert_null(strstr(msg, "t0ken"));
	zt_http_resp_release(&resp);
	zt_http_free(h);
}

/* A body streamed from a file, sent again from its start after a 503; a
 * 2xx answer streamed into a file, an error answer kept in memory. */
static void test_files(void **state)
{
	static const struct answer script[] = {
		{503, NULL, "busy"},
		{200, NULL, "saved answer"},
		{404, NULL, "<Error><Code>NoSuchKey</Code></Error>"},
	};
	static const char body[] = "file body of the upload";
	char up_path[] = "/tmp/zt-test-client-up.XXXXXX";
	char save_path[] = "/tmp/zt-test-client-save.XXXXXX";
	struct zt_http_file up = {mkstemp(up_path), sizeof(body) - 1};
	struct zt_http_file save = {mkstemp(save_path), 0};
	struct zt_http_req req = {"PUT", "/obj", NULL, NULL, 0, 0, &up, &save};
	struct zt_http_resp resp;
	struct retries r = {0};
	struct server s;
	struct zt_http *h;
	char msg[256], got[64];
	ssize_t k;

	assert_true(up.fd >= 0 && save.fd >= 0);
	assert_int_equal(write(up.fd, body, up.len), (ssize_t)up.len);
	server_start(&s, script, 3);
	h = client(s.port, 3, 10, 1000, &r);
	zt_http_resp_init(&resp);
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), 0);
	assert_int_equal(resp.status, 200);
	assert_int_equal(resp.tries, 2);
	assert_int_equal(resp.length, 12);
	assert_int_equal(resp.saved, 12);
	assert_int_equal(resp.body.len, 0);
	k = pread(save.fd, got, sizeof(got), 0);
	assert_int_equal(k, 12);
	assert_memory_equal(got, "saved answer", 12);

	/* an error answer: the file emptied, the body in memory */
	req.method = "GET";
	req.upload = NULL;
	assert_int_equal(zt_http_request(h, &req, &resp, msg, sizeof(msg)), 0);
	assert_int_equal(resp.status, 404);
	assert_int_equal(resp.saved, 0);
	assert_int_equal(pread(save.fd, got, sizeof(got), 0), 0);
	assert_non_null(memmem(resp.body.data, resp.body.len, "NoSuchKey", 9));
	zt_http_resp_release(&resp);
	zt_http_free(h);
	server_stop(&s);
	/* the whole file both times */
	assert_int_equal(s.body_len[0], up.len);
	assert_string_equal(s.body[0], body);
	assert_string_equal(s.body[1], body);
	assert_string_equal(s.first_line[1], "PUT /obj HTTP/1.1");
	close(up.fd);
	close(save.fd);
	unlink(up_path);
	unlink(save_path);
}

static void test_backoff(void **state)
{
	uint64_t rnd;
	int n;

	for (rnd = 0; rnd < 1000; rnd += 7) {
		for (n = 1; n < 40; n++) {
			unsigned d =
				zt_http_backoff(500, 30000, n, -1, rnd * 0x9e3779b97f4a7c15ull);
			unsigned full = n >= 7 ? 30000 : 500u << (n - 1);

			assert_true(d >= full / 2 && d <= full);
		}
	}
	assert_int_equal(zt_http_backoff(500, 30000, 3, 2, 12345), 2000);
	assert_int_equal(zt_http_backoff(500, 30000, 3, 0, 12345), 0);
	assert_int_equal(zt_http_backoff(500, 30000, 3, 100000, 12345), 30000);
	assert_true(zt_http_retryable(503) && zt_http_retryable(500) && zt_http_retryable(429));
	assert_false(zt_http_retryable(400) || zt_http_retryable(412) || zt_http_retryable(201));
}

static void test_bad_options(void **state)
{
	struct zt_http_opts o = {0};
	struct zt_http *h = NULL;
	struct zbuf b;
	char msg[256];

	assert_int_equal(zt_http_new(&o, &h, msg, sizeof(msg)), -EINVAL);
	o.base_url = "ftp://x";
	assert_int_equal(zt_http_new(&o, &h, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "ftp://x"));
	o.base_url = "http://127.0.0.1:1";
	o.token = "a\r\nX-Evil: 1";
	assert_int_equal(zt_http_new(&o, &h, msg, sizeof(msg)), -EINVAL);
	assert_null(strstr(msg, "Evil")); /* the token is never shown */
	assert_null(h);
	zbuf_init(&b);
	zt_http_escape(&b, "a b/c=d&é~", NULL);
	zbuf_put_u8(&b, 0);
	assert_string_equal((char *)b.data, "a%20b%2Fc%3Dd%26%C3%A9~");
	zbuf_reset(&b);
	/* a path: '/' and '+' kept */
	zt_http_escape(&b, "src/a b+c%.c", "/+");
	zbuf_put_u8(&b, 0);
	assert_string_equal((char *)b.data, "src/a%20b+c%25.c");
	zbuf_release(&b);
}

/* The CA certificates of the environment: CURL_CA_BUNDLE alone, else
 * SSL_CERT_FILE and SSL_CERT_DIR; empty is unset. */
static void test_ca_env(void **state)
{
	const char *file, *dir, *var;

	unsetenv("CURL_CA_BUNDLE");
	unsetenv("SSL_CERT_FILE");
	unsetenv("SSL_CERT_DIR");
	assert_int_equal(zt_http_ca_env(&file, &dir, &var), 0);
	assert_null(file);
	assert_null(dir);
	assert_null(var);
	setenv("SSL_CERT_DIR", "/certs", 1);
	assert_int_equal(zt_http_ca_env(&file, &dir, &var), 1);
	assert_null(file);
	assert_string_equal(dir, "/certs");
	assert_string_equal(var, "SSL_CERT_DIR");
	setenv("SSL_CERT_FILE", "/ssl.pem", 1);
	assert_int_equal(zt_http_ca_env(&file, &dir, &var), 1);
	assert_string_equal(file, "/ssl.pem");
	assert_string_equal(dir, "/certs");
	assert_string_equal(var, "SSL_CERT_FILE");
	setenv("CURL_CA_BUNDLE", "/bundle.pem", 1);
	assert_int_equal(zt_http_ca_env(&file, &dir, NULL), 1);
	assert_string_equal(file, "/bundle.pem");
	assert_null(dir);
	setenv("CURL_CA_BUNDLE", "", 1);
	assert_int_equal(zt_http_ca_env(&file, &dir, &var), 1);
	assert_string_equal(file, "/ssl.pem");
	assert_string_equal(var, "SSL_CERT_FILE");
	unsetenv("CURL_CA_BUNDLE");
	unsetenv("SSL_CERT_FILE");
	unsetenv("SSL_CERT_DIR");
}

/* A server that answers whatever comes with plain HTTP, until its
 * listening socket is shut down. */
static void *plain_answers(void *arg)
{
	static const char junk[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
	int fd = *(int *)arg;
	char buf[4096];

	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c < 0)
			break;
		/* the client's hello read first: a close with unread bytes is a reset */
		if (read(c, buf, sizeof(buf)) > 0 && write(c, junk, sizeof(junk) - 1) > 0) {
			shutdown(c, SHUT_WR);
			while (read(c, buf, sizeof(buf)) > 0)
				;
		}
		close(c);
	}
	return NULL;
}

static int tls_request(int port, const char *cainfo, struct zt_http_resp *resp, char *msg, size_t n)
{
	struct zt_http_req req = {"GET", "/healthz", NULL, NULL, 0, 0};
	struct zt_http_opts o = {0};
	struct zt_http *h;
	char url[64];
	int ret;

	snprintf(url, sizeof(url), "https://127.0.0.1:%d", port);
	o.base_url = url;
	o.tries = 3;
	o.backoff_ms = 10;
	o.connect_timeout_ms = 2000;
	o.timeout_ms = 5000;
	o.cainfo = cainfo;
	assert_int_equal(zt_http_new(&o, &h, msg, n), 0);
	ret = zt_http_request(h, &req, resp, msg, n);
	zt_http_free(h);
	return ret;
}

/* TLS failures are not retried: another try would fail the same way. */
static void test_tls_failures(void **state)
{
	char junk_path[] = "/tmp/zt-test-client-ca.XXXXXX", msg[512];
	struct zt_http_resp resp;
	pthread_t t;
	int port, fd, jfd;

	fd = listen_loopback(&port);
	assert_true(fd >= 0);
	assert_int_equal(pthread_create(&t, NULL, plain_answers, &fd), 0);
	zt_http_resp_init(&resp);

	/* https to a plain HTTP server: the handshake fails */
	assert_int_equal(tls_request(port, NULL, &resp, msg, sizeof(msg)), -EPROTO);
	assert_int_equal(resp.tries, 1);
	assert_true(msg[0] != 0);

	/* CA certificates that are not there, or not certificates: named */
	assert_int_equal(tls_request(port, "/nonexistent/zt-ca.pem", &resp, msg, sizeof(msg)),
			 -ENOKEY);
	assert_int_equal(resp.tries, 1);
	assert_non_null(strstr(msg, "/nonexistent/zt-ca.pem"));
	jfd = mkstemp(junk_path);
	assert_true(jfd >= 0);
	assert_int_equal(write(jfd, "not a certificate\n", 18), 18);
	close(jfd);
	assert_int_equal(tls_request(port, junk_path, &resp, msg, sizeof(msg)), -ENOKEY);
	assert_non_null(strstr(msg, junk_path));

	/* ... named by the environment when the options name none */
	setenv("SSL_CERT_FILE", junk_path, 1);
	assert_int_equal(tls_request(port, NULL, &resp, msg, sizeof(msg)), -ENOKEY);
	assert_non_null(strstr(msg, junk_path));
	setenv("CURL_CA_BUNDLE", "/nonexistent/zt-bundle.pem", 1);
	assert_int_equal(tls_request(port, NULL, &resp, msg, sizeof(msg)), -ENOKEY);
	assert_non_null(strstr(msg, "/nonexistent/zt-bundle.pem"));
	unsetenv("CURL_CA_BUNDLE");
	unsetenv("SSL_CERT_FILE");

	zt_http_resp_release(&resp);
	unlink(junk_path);
	shutdown(fd, SHUT_RDWR);
	pthread_join(t, NULL);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_503_then_201), cmocka_unit_test(test_400_not_retried),
		cmocka_unit_test(test_retry_after),  cmocka_unit_test(test_retry_after_capped),
		cmocka_unit_test(test_refused),	     cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_bad_options),  cmocka_unit_test(test_files),
		cmocka_unit_test(test_ca_env),	     cmocka_unit_test(test_tls_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
