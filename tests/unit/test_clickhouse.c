/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * net/clickhouse.c's pieces that need no server (string literals, error
 * codes) and server/chstore.c's ids and RowBinary decoders. The queries
 * themselves run against real ClickHouse servers in
 * tests/e2e/t_serve_cluster.sh.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "libprof/zbuf.h"
#include "net/clickhouse.h"
#include "server/chstore.h"

static void test_quote(void **state)
{
	struct zbuf b;

	(void)state;
	zbuf_init(&b);
	zt_ch_quote(&b, "o'brien\\x");
	zbuf_put_u8(&b, 0);
	assert_string_equal((const char *)b.data, "'o\\'brien\\\\x'");
	zbuf_reset(&b);
	zt_ch_quote(&b, "");
	zbuf_put_u8(&b, 0);
	assert_string_equal((const char *)b.data, "''");
	zbuf_release(&b);
}

static void test_error_codes(void **state)
{
	static const char down[] = "Code: 279, e.displayText() = DB::NetException: All connection "
				   "tries failed. Log: \n\nCode: 210, ...";
	static const char pw[] = "Code: 193, e.displayText() = DB::Exception: Wrong password";

	(void)state;
	assert_int_equal(zt_ch_error_code(down, sizeof(down) - 1), 279);
	assert_int_equal(zt_ch_error_code(pw, sizeof(pw) - 1), 193);
	assert_int_equal(zt_ch_error_code("Code: x", 8), -1);
	assert_int_equal(zt_ch_error_code("Ok.\n", 4), -1);
	assert_int_equal(zt_ch_error_code("Code: 12", 5), -1); /* cut before the number */
	assert_true(zt_ch_code_retryable(279));
	assert_true(zt_ch_code_retryable(210));
	assert_true(zt_ch_code_retryable(252));
	assert_false(zt_ch_code_retryable(62)); /* a syntax error */
	assert_false(zt_ch_code_retryable(193));
}

/* The ids are a stored format: SHA-256's first 8 bytes, little endian. */
static void test_ids(void **state)
{
	uint64_t f[2];

	(void)state;
	/* SHA-256("abc") = ba7816bf 8f01cfea ... */
	assert_true(zs_ch_frame_id("abc", 3) == 0xeacf018fbf1678baull);
	f[0] = 0xeacf018fbf1678baull;
	f[1] = 1;
	/* a stack: its frames' ids, 8 bytes each, little endian, leaf first */
	assert_true(zs_ch_stack_id(f, 2) != zs_ch_stack_id(f, 1));
	assert_true(zs_ch_stack_id(f, 1) == zs_ch_frame_id("\xba\x78\x16\xbf\x8f\x01\xcf\xea", 8));
}

static void put_str(struct zbuf *b, const char *s)
{
	zbuf_put_bytes(b, s, strlen(s));
}

/* One catalogue row as ClickHouse sends it. */
static void row(struct zbuf *b, const char *id, int labels)
{
	put_str(b, id);
	put_str(b, "host\"1");
	put_str(b, "app");
	put_str(b, "cpu-clock");
	put_str(b, "zt.data");
	zbuf_put_u64le(b, 1700000000);
	zbuf_put_u64le(b, 1700000010);
	zbuf_put_u64le(b, 4000);
	zbuf_put_u64le(b, 1000000000);
	zbuf_put_u64le(b, 12345);
	zbuf_put_uv(b, (uint64_t)labels);
	if (labels)
		put_str(b, "team");
	zbuf_put_uv(b, (uint64_t)labels);
	if (labels)
		put_str(b, "o'b\\");
	zbuf_put_u64le(b, 1700000100);
}

static void test_decode_list(void **state)
{
	struct zbuf in, out;

	(void)state;
	zbuf_init(&in);
	zbuf_init(&out);
	row(&in, "aa", 1);
	row(&in, "bb", 0);
	assert_int_equal(zs_ch_decode_list(in.data, in.len, 1, &out), 0);
	zbuf_put_u8(&out, 0);
	assert_string_equal(
		(const char *)out.data,
		"{\"profiles\":[{\"id\":\"aa\",\"host\":\"host\\\"1\",\"command\":\"app\","
		"\"labels\":{\"team\":\"o'b\\\\\"},\"time_start\":1700000000,\"time_end\":1700000010,"
		"\"samples\":4000,\"weight\":1000000000,\"type\":\"cpu\",\"unit\":\"nanoseconds\",\"value\":1000000000,\"event\":\"cpu-clock\",\"format\":\"zt.data\","
		"\"size\":12345,\"pushed_at\":1700000100},"
		"{\"id\":\"bb\",\"host\":\"host\\\"1\",\"command\":\"app\",\"labels\":{},"
		"\"time_start\":1700000000,\"time_end\":1700000010,\"samples\":4000,"
		"\"weight\":1000000000,\"type\":\"cpu\",\"unit\":\"nanoseconds\",\"value\":1000000000,\"event\":\"cpu-clock\",\"format\":\"zt.data\",\"size\":12345,"
		"\"pushed_at\":1700000100}]}");
	/* one profile: an object; none: -ENOENT */
	zbuf_reset(&out);
	zbuf_reset(&in);
	row(&in, "aa", 0);
	assert_int_equal(zs_ch_decode_list(in.data, in.len, 0, &out), 0);
	assert_int_equal(out.data[0], '{');
	zbuf_reset(&out);
	assert_int_equal(zs_ch_decode_list(NULL, 0, 0, &out), -ENOENT);
	/* cut anywhere: refused, never read past the end */
	zbuf_reset(&in);
	row(&in, "aa", 1);
	for (size_t n = 1; n < in.len; n++) {
		uint8_t *cut = malloc(n);

		memcpy(cut, in.data, n);
		zbuf_reset(&out);
		assert_int_equal(zs_ch_decode_list(cut, n, 1, &out), -EBADMSG);
		free(cut);
	}
	zbuf_release(&in);
	zbuf_release(&out);
}

static int count_stack(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr)
{
	uint64_t *sum = ctx;

	*sum += stack + nr + (nr ? frames[nr - 1] : 0);
	return 0;
}

static int count_frame(void *ctx, uint64_t frame, const uint8_t *key, size_t len)
{
	uint64_t *sum = ctx;

	*sum += frame + len + (len ? key[0] : 0);
	return 0;
}

/* The external table of zt_ch_query_ids: a multipart form ClickHouse reads as TabSeparated. */
static void test_ids_body(void **state)
{
	static const uint64_t ids[] = {1, 18446744073709551615ull, 0};
	static const char want[] =
		"--zt-external-data-a3f9c1e7\r\n"
		"Content-Disposition: form-data; name=\"zt_ids\"; filename=\"zt_ids\"\r\n"
		"Content-Type: text/tab-separated-values\r\n\r\n"
		"1\n18446744073709551615\n0\n"
		"\r\n--zt-external-data-a3f9c1e7--\r\n";
	static const char empty[] = "\r\n\r\n\r\n--zt-external-data-a3f9c1e7--";
	struct zbuf b;

	(void)state;
	zbuf_init(&b);
	assert_int_equal(zt_ch_ids_body(&b, "zt_ids", ids, 3), 0);
	assert_int_equal(b.len, sizeof(want) - 1);
	assert_memory_equal(b.data, want, b.len);
	zbuf_reset(&b);
	assert_int_equal(zt_ch_ids_body(&b, "zt_ids", NULL, 0), 0); /* an empty table */
	assert_non_null(memmem(b.data, b.len, empty, sizeof(empty) - 1));
	zbuf_release(&b);
}

static void test_decode_rows(void **state)
{
	struct zs_ch_row *rows;
	struct zbuf in;
	uint64_t sum = 0;
	size_t nr;

	(void)state;
	zbuf_init(&in);
	zbuf_put_u64le(&in, 7);
	zbuf_put_u64le(&in, 3);
	zbuf_put_u64le(&in, 300);
	assert_int_equal(zs_ch_decode_rows(in.data, in.len, &rows, &nr), 0);
	assert_int_equal(nr, 1);
	assert_true(rows[0].stack == 7 && rows[0].count == 3 && rows[0].weight == 300);
	free(rows);
	assert_int_equal(zs_ch_decode_rows(in.data, in.len - 1, &rows, &nr), -EBADMSG);
	/* stacks: (id, [frames]) */
	zbuf_reset(&in);
	zbuf_put_u64le(&in, 10);
	zbuf_put_uv(&in, 2);
	zbuf_put_u64le(&in, 100);
	zbuf_put_u64le(&in, 200);
	assert_int_equal(zs_ch_decode_stacks(in.data, in.len, count_stack, &sum), 0);
	assert_true(sum == 10 + 2 + 200);
	assert_int_equal(zs_ch_decode_stacks(in.data, in.len - 3, count_stack, &sum), -EBADMSG);
	/* a count larger than the bytes left */
	zbuf_reset(&in);
	zbuf_put_u64le(&in, 10);
	zbuf_put_uv(&in, 1u << 30);
	assert_int_equal(zs_ch_decode_stacks(in.data, in.len, count_stack, &sum), -EBADMSG);
	/* frames: (id, key) */
	zbuf_reset(&in);
	zbuf_put_u64le(&in, 5);
	put_str(&in, "k");
	sum = 0;
	assert_int_equal(zs_ch_decode_frames(in.data, in.len, count_frame, &sum), 0);
	assert_true(sum == 5 + 1 + 'k');
	zbuf_release(&in);
}

/* A server that accepts each connection and closes it unanswered, counting. */
struct closer {
	int fd, stop;
	unsigned accepted;
};

static void *closer_run(void *arg)
{
	struct closer *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		struct pollfd p = {c->fd, POLLIN, 0};
		int s;

		if (poll(&p, 1, 50) <= 0)
			continue;
		s = accept(c->fd, NULL, NULL);
		if (s >= 0) {
			__atomic_add_fetch(&c->accepted, 1, __ATOMIC_RELEASE);
			close(s);
		}
	}
	return NULL;
}

/*
 * A server that cuts every connection: the query fails after one try, on the
 * first connection of the pool as on later ones (the first one, made by
 * zt_ch_new, once tried 6 times over 26 s: zt serve answered a push 26 s
 * late when ClickHouse was down).
 */
static void test_one_try(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	struct closer c = {0};
	struct zt_ch *ch;
	pthread_t th;
	char url[64], msg[256];
	int i;

	(void)state;
	c.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(c.fd >= 0);
	assert_int_equal(bind(c.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(c.fd, 16), 0);
	assert_int_equal(getsockname(c.fd, (struct sockaddr *)&a, &al), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(a.sin_port));
	assert_int_equal(pthread_create(&th, NULL, closer_run, &c), 0);
	assert_int_equal(zt_ch_new(&(struct zt_ch_opts){.url = url, .timeout_ms = 5000}, &ch,
				   msg, sizeof(msg)),
			 0);
	for (i = 1; i <= 3; i++) {
		assert_int_equal(zt_ch_query(ch, "SELECT 1", NULL, NULL, 0, NULL, msg, sizeof(msg)),
				 -ECONNREFUSED);
		assert_non_null(strstr(msg, "cannot reach ClickHouse at http://127.0.0.1:"));
		assert_int_equal(__atomic_load_n(&c.accepted, __ATOMIC_ACQUIRE), i);
	}
	zt_ch_free(ch);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	close(c.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),	    cmocka_unit_test(test_error_codes),
		cmocka_unit_test(test_ids),	    cmocka_unit_test(test_decode_list),
		cmocka_unit_test(test_decode_rows), cmocka_unit_test(test_ids_body),
		cmocka_unit_test(test_one_try),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
