/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfod: against a real Debian debuginfod server on 127.0.0.1 serving
 * a binary split at test time: debuginfo and executable fetched by build id
 * byte for byte, cache hits with the server unreachable, unknown ids, a
 * closed port, a server that never answers (DEBUGINFOD_TIMEOUT), the off
 * switch and a missing DEBUGINFOD_URLS.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"

#include "symbolizer/debuginfod.h"
#include "symbolizer/elfsym.h"

static char tmpdir[] = "/tmp/zt-test-debuginfod.XXXXXX";
static pid_t server = -1;
static int port;
static struct prof_build_id bid;

/* A TCP socket on 127.0.0.1 with a kernel-chosen port; listening if asked. */
static int loopback_socket(int listening, int *port_out)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0 || (listening && listen(s, 4) < 0)) {
		close(s);
		return -1;
	}
	*port_out = ntohs(a.sin_port);
	return s;
}

/* GET path from the server into buf (NUL-terminated); bytes read or -1. */
static ssize_t http_get(const char *path, char *buf, size_t n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char req[256];
	size_t got = 0;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ssize_t k;

	if (s < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(s);
		return -1;
	}
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (write(s, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(s);
		return -1;
	}
	while (got + 1 < n && (k = read(s, buf + got, n - 1 - got)) > 0)
		got += (size_t)k;
	buf[got] = 0;
	close(s);
	return (ssize_t)got;
}

static long metric(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtol(p + strlen(name), NULL, 10) : -1;
}

static void set_env(const char *urls, const char *cache, const char *timeout)
{
	char path[600];

	if (urls)
		setenv("DEBUGINFOD_URLS", urls, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
	snprintf(path, sizeof(path), "%s/%s", tmpdir, cache);
	setenv("DEBUGINFOD_CACHE_PATH", path, 1);
	if (timeout)
		setenv("DEBUGINFOD_TIMEOUT", timeout, 1);
	else
		unsetenv("DEBUGINFOD_TIMEOUT");
}

static int teardown(void **state);

static int start_server(void)
{
	char log[600], db[600], srv[600], port_s[16], buf[65536];
	int s, i;

	unsetenv("DEBUGINFOD_PROGRESS");
	unsetenv("DEBUGINFOD_VERBOSE");
	unsetenv("DEBUGINFOD_MAXTIME");
	unsetenv("DEBUGINFOD_MAXSIZE");
	unsetenv("DEBUGINFOD_RETRY_LIMIT");
	if (!mkdtemp(tmpdir))
		return -1;
	if (run("cd %s && mkdir srv && printf '%%s\\n' 'int f(int x) { return x + 1; }'"
		" 'int main(void) { return f(1); }' > p.c && cc -O1 -g -Wl,--build-id -o prog p.c"
		" && objcopy --only-keep-debug prog srv/prog.debug && strip -o srv/prog prog",
		tmpdir) != 0)
		return -1;
	snprintf(log, sizeof(log), "%s/prog", tmpdir);
	if (elf_read_build_id(log, &bid) || !bid.len)
		return -1;
	/* a free port: the kernel's choice, released just before the server binds it */
	s = loopback_socket(0, &port);
	if (s < 0)
		return -1;
	close(s);
	snprintf(log, sizeof(log), "%s/server.log", tmpdir);
	snprintf(db, sizeof(db), "%s/db.sqlite", tmpdir);
	snprintf(srv, sizeof(srv), "%s/srv", tmpdir);
	snprintf(port_s, sizeof(port_s), "%d", port);
	server = fork();
	if (server < 0)
		return -1;
	if (server == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* scan once (-t 0), never groom; killed after 120 s whatever happens */
		execlp("timeout", "timeout", "120", "debuginfod", "-p", port_s, "-d", db, "-F",
		       "-t", "0", "-g", "0", "-c", "1", srv, (char *)NULL);
		_exit(127);
	}
	/* ready once both files are indexed */
	for (i = 0; i < 300; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (http_get("/metrics", buf, sizeof(buf)) > 0 &&
		    metric(buf, "found_debuginfo_total{source=\"files\"} ") >= 1 &&
		    metric(buf, "found_executable_total{source=\"files\"} ") >= 1)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

static int setup(void **state)
{
	if (start_server() == 0)
		return 0;
	run("cat %s/server.log >&2", tmpdir);
	teardown(state); /* cmocka skips the group teardown when setup fails */
	return -1;
}

static int teardown(void **state)
{
	if (server > 0) {
		kill(server, SIGTERM); /* timeout(1) passes it on to debuginfod */
		waitpid(server, NULL, 0);
		server = -1;
	}
	run("rm -rf %s", tmpdir);
	return 0;
}

static void url(char *out, size_t n, int p)
{
	snprintf(out, n, "http://127.0.0.1:%d", p);
}

struct prog {
	int calls;
	long last_done, last_total;
};

static void on_progress(void *ctx, long done, long total)
{
	struct prog *p = ctx;

	p->calls++;
	p->last_done = done;
	p->last_total = total;
}

static void assert_same_file(const char *a, const char *b)
{
	assert_int_equal(run("cmp -s '%s' '%s'", a, b), 0);
}

static void test_off_and_unset(void **state)
{
	struct prof_build_id empty = { 0 };
	char u[64], *path = (char *)1;

	url(u, sizeof(u), port);
	set_env(NULL, "cache0", NULL);
	assert_int_equal(zt_debuginfod_find(&bid, 0, NULL, NULL, &path), -ENOSYS);
	assert_null(path);
	set_env(" \t", "cache0", NULL);
	assert_int_equal(zt_debuginfod_find(&bid, 0, NULL, NULL, &path), -ENOSYS);
	set_env(u, "cache0", NULL);
	zt_debuginfod_set_enabled(0);
	assert_int_equal(zt_debuginfod_enabled(), 0);
	assert_int_equal(zt_debuginfod_find(&bid, 0, NULL, NULL, &path), -ENOSYS);
	zt_debuginfod_set_enabled(1);
	assert_int_equal(zt_debuginfod_find(&empty, 0, NULL, NULL, &path), -EINVAL);
}

static void test_fetch(void **state)
{
	char u[64], want[600], cache[600], *path = NULL;
	struct prog pr = { 0 };

	url(u, sizeof(u), port);
	set_env(u, "cache1", "10");
	assert_int_equal(zt_debuginfod_find(&bid, 0, on_progress, &pr, &path), 0);
	assert_non_null(path);
	snprintf(cache, sizeof(cache), "%s/cache1/", tmpdir);
	assert_memory_equal(path, cache, strlen(cache));
	snprintf(want, sizeof(want), "%s/srv/prog.debug", tmpdir);
	assert_same_file(path, want);
	assert_true(pr.calls >= 1);
	free(path);

	path = NULL;
	assert_int_equal(zt_debuginfod_find(&bid, 1, NULL, NULL, &path), 0);
	snprintf(want, sizeof(want), "%s/srv/prog", tmpdir);
	assert_same_file(path, want);
	free(path);

	/* the server unreachable: still served from the client cache */
	url(u, sizeof(u), 1);
	set_env(u, "cache1", "2");
	path = NULL;
	assert_int_equal(zt_debuginfod_find(&bid, 0, NULL, NULL, &path), 0);
	snprintf(want, sizeof(want), "%s/srv/prog.debug", tmpdir);
	assert_same_file(path, want);
	free(path);
}

static void test_not_found(void **state)
{
	struct prof_build_id other = bid;
	char u[64], *path = NULL;

	other.data[0] ^= 0xff;
	url(u, sizeof(u), port);
	set_env(u, "cache2", "10");
	assert_int_equal(zt_debuginfod_find(&other, 0, NULL, NULL, &path), -ENOENT);
	assert_null(path);
	assert_int_equal(zt_debuginfod_find(&other, 1, NULL, NULL, &path), -ENOENT);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_closed_port(void **state)
{
	char u[64], *path = NULL;
	int s, p, ret;
	double t0;

	/* a port nobody listens on: bound but not listening, so it stays free of others */
	s = loopback_socket(0, &p);
	assert_true(s >= 0);
	url(u, sizeof(u), p);
	set_env(u, "cache3", "2");
	t0 = now();
	ret = zt_debuginfod_find(&bid, 0, NULL, NULL, &path);
	assert_true(ret < 0 && ret != -ENOSYS);
	assert_int_equal(ret, -ECONNREFUSED);
	assert_true(now() - t0 < 5);
	assert_null(path);
	close(s);
}

static void test_timeout(void **state)
{
	char u[64], *path = NULL;
	int s, p, ret;
	double t0, dt;

	/* a server that takes the connection and never answers */
	s = loopback_socket(1, &p);
	assert_true(s >= 0);
	url(u, sizeof(u), p);
	set_env(u, "cache4", "2");
	/* one attempt: libdebuginfod retries other errors than 404 twice by default */
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
	t0 = now();
	ret = zt_debuginfod_find(&bid, 0, NULL, NULL, &path);
	dt = now() - t0;
	unsetenv("DEBUGINFOD_RETRY_LIMIT");
	assert_int_equal(ret, -ETIMEDOUT);
	assert_true(dt >= 1.5 && dt < 5);
	assert_null(path);
	close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_and_unset),
		cmocka_unit_test(test_fetch),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_closed_port),
		cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
