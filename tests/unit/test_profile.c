// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of libprof/profile.c (interning, meta, records, blobs) and
 * libprof/zbuf.c (varints at their edges, cursor overruns).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libprof/profile.h"
#include "libprof/text.h"
#include "libprof/zbuf.h"

/* ---- profile ----------------------------------------------------------- */

static void test_intern_dedupe(void **state)
{
	uint64_t a[] = { 0xffffffff81000000ull, 0x401000, 0x401100 };
	uint64_t b[] = { 0xffffffff81000000ull, 0x401000, 0x401200 };
	struct profile p;
	uint32_t id[6];

	profile_init(&p);
	assert_int_equal(profile_intern_stack(&p, a, 1, 2, &id[0]), 0);
	assert_int_equal(profile_intern_stack(&p, b, 1, 2, &id[1]), 0);
	assert_int_equal(profile_intern_stack(&p, a, 1, 2, &id[2]), 0);
	assert_int_equal(profile_intern_stack(&p, a, 2, 1, &id[3]), 0); /* same ips, other split */
	assert_int_equal(profile_intern_stack(&p, a, 0, 0, &id[4]), 0); /* empty */
	assert_int_equal(profile_intern_stack(&p, b, 0, 0, &id[5]), 0);
	assert_int_equal(id[0], 0);
	assert_int_equal(id[1], 1);
	assert_int_equal(id[2], 0);
	assert_int_equal(id[3], 2);
	assert_int_equal(id[4], 3);
	assert_int_equal(id[5], 3);
	assert_int_equal(p.nr_stacks, 4);
	assert_int_equal(p.nr_ips, 9);
	assert_int_equal(p.stacks[1].nk, 1);
	assert_int_equal(p.stacks[1].nu, 2);
	assert_memory_equal(profile_stack_ips(&p, 1), b, sizeof(b));
	assert_int_equal(profile_intern_stack(&p, a, ZT_MAX_FRAMES + 1, 0, &id[0]), -EINVAL);
	assert_int_equal(profile_intern_stack(&p, a, 0, ZT_MAX_FRAMES + 1, &id[0]), -EINVAL);
	profile_release(&p);
	assert_int_equal(p.nr_stacks, 0);
	assert_null(p.stacks);
}

/* Many stacks: the table grows and every stack still finds itself. */
/* Appended stacks (a reader's, no lookup) are found by a later intern. */
static void test_append_then_intern(void **state)
{
	uint64_t ips[2];
	struct profile p;
	uint32_t id, i;

	(void)state;
	profile_init(&p);
	for (i = 0; i < 3000; i++) {
		ips[0] = i;
		ips[1] = 7;
		assert_int_equal(profile_append_stack(&p, ips, 1, 1, &id), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(profile_append_stack(&p, ips, ZT_MAX_FRAMES + 1, 0, &id), -EINVAL);
	ips[0] = 1234;
	assert_int_equal(profile_intern_stack(&p, ips, 1, 1, &id), 0);
	assert_int_equal(id, 1234);
	ips[0] = 99999;
	assert_int_equal(profile_intern_stack(&p, ips, 1, 1, &id), 0);
	assert_int_equal(id, 3000);
	assert_int_equal(p.nr_stacks, 3001);
	profile_release(&p);
}

static void test_intern_many(void **state)
{
	enum { N = 20000 };
	static uint64_t big[2 * ZT_MAX_FRAMES];
	struct profile p;
	uint64_t ips[3];
	uint32_t id, i;

	profile_init(&p);
	for (i = 0; i < N; i++) {
		ips[0] = i;
		ips[1] = i * 3;
		ips[2] = ~(uint64_t)i;
		assert_int_equal(profile_intern_stack(&p, ips, 1, 1 + i % 2, &id), 0);
		assert_int_equal(id, i);
	}
	for (i = 0; i < N; i++) {
		ips[0] = i;
		ips[1] = i * 3;
		ips[2] = ~(uint64_t)i;
		assert_int_equal(profile_intern_stack(&p, ips, 1, 1 + i % 2, &id), 0);
		assert_int_equal(id, i);
		assert_int_equal(profile_stack_ips(&p, id)[1], (uint64_t)i * 3);
	}
	assert_int_equal(p.nr_stacks, N);
	for (i = 0; i < 2 * ZT_MAX_FRAMES; i++)
		big[i] = i;
	assert_int_equal(profile_intern_stack(&p, big, ZT_MAX_FRAMES, ZT_MAX_FRAMES, &id), 0);
	assert_int_equal(id, N);
	assert_int_equal(p.stacks[id].nk + p.stacks[id].nu, 2 * ZT_MAX_FRAMES);
	assert_memory_equal(profile_stack_ips(&p, id), big, sizeof(big));
	profile_release(&p);
}

static void test_meta(void **state)
{
	struct profile p;

	profile_init(&p);
	assert_null(profile_get_meta(&p, "hostname"));
	assert_int_equal(profile_set_meta(&p, "hostname", "a"), 0);
	assert_int_equal(profile_set_meta(&p, "event", "cpu-clock"), 0);
	assert_int_equal(profile_set_meta(&p, "hostname", "b"), 0); /* replaces */
	assert_int_equal(p.nr_meta, 2);
	assert_string_equal(profile_get_meta(&p, "hostname"), "b");
	assert_string_equal(p.meta[0].key, "hostname");
	assert_int_equal(profile_set_meta(&p, "empty", NULL), 0);
	assert_string_equal(profile_get_meta(&p, "empty"), "");
	assert_int_equal(p.nr_meta, 3);
	profile_release(&p);
	assert_int_equal(p.nr_meta, 0);
}

static void test_records(void **state)
{
	struct prof_task t = { .ts = 1, .kind = PROF_TASK_COMM, .pid = 1, .tid = 2 };
	struct prof_mmap m = { .ts = 2, .pid = 1, .start = 0x1000, .len = 0x2000, .path = NULL };
	struct prof_sample s = { .ts = 3, .weight = 4, .pid = 1, .tid = 2, .cpu = 5, .stack = 0 };
	uint64_t ips[] = { 1 };
	struct profile p;
	uint32_t id;
	int i;

	profile_init(&p);
	memset(t.comm, 'x', sizeof(t.comm)); /* not terminated: the profile terminates it */
	assert_int_equal(profile_add_task(&p, &t), 0);
	assert_int_equal(strlen(p.tasks[0].comm), ZT_COMM_LEN - 1);
	assert_int_equal(profile_add_mmap(&p, &m), 0);
	assert_string_equal(p.mmaps[0].path, "");
	m.path = "/bin/true";
	m.build_id.len = ZT_BUILD_ID_MAX + 1; /* invalid: stored as unknown */
	assert_int_equal(profile_add_mmap(&p, &m), 0);
	assert_string_equal(p.mmaps[1].path, "/bin/true");
	assert_ptr_not_equal(p.mmaps[1].path, m.path);
	assert_int_equal(p.mmaps[1].build_id.len, 0);
	assert_int_equal(profile_add_sample(&p, &s), -EINVAL); /* no stack 0 yet */
	assert_int_equal(profile_intern_stack(&p, ips, 0, 1, &id), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(profile_add_sample(&p, &s), 0);
	assert_int_equal(p.nr_samples, 100);
	assert_int_equal(p.samples[99].cpu, 5);
	profile_release(&p);
}

static void test_blobs(void **state)
{
	const struct prof_blob *b;
	struct profile p;
	char text[] = "ffffffff81000000 T _stext\n";

	profile_init(&p);
	assert_null(profile_find_blob(&p, PROF_BLOB_KALLSYMS, UINT32_MAX));
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_PERFMAP, 42, 7, "a 1 f\n", 6), 0);
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_PERFMAP, 43, 8, "", 0), 0);
	assert_int_equal(profile_add_blob(&p, PROF_BLOB_KALLSYMS, 0, 9, text, strlen(text)), 0);
	text[0] = 'X'; /* copied */
	b = profile_find_blob(&p, PROF_BLOB_KALLSYMS, UINT32_MAX);
	assert_non_null(b);
	assert_int_equal(b->len, strlen(text));
	assert_memory_equal(b->data, "ffff", 4);
	b = profile_find_blob(&p, PROF_BLOB_PERFMAP, 43);
	assert_non_null(b);
	assert_int_equal(b->len, 0);
	assert_int_equal(b->ts, 8);
	b = profile_find_blob(&p, PROF_BLOB_PERFMAP, UINT32_MAX); /* the first of any pid */
	assert_int_equal(b->pid, 42);
	assert_null(profile_find_blob(&p, PROF_BLOB_PERFMAP, 44));
	assert_null(profile_find_blob(&p, PROF_BLOB_MODULES, UINT32_MAX));
	profile_release(&p);
}

static void test_hex_sanitize(void **state)
{
	struct prof_build_id b = { 3, { 0x01, 0xab, 0xff } };
	char hex[2 * ZT_BUILD_ID_MAX + 1], out[8];

	assert_string_equal(prof_build_id_hex(&b, hex), "01abff");
	b.len = 0;
	assert_string_equal(prof_build_id_hex(&b, hex), "");
	/* and back: 2 to 40 even hex digits, either case; else refused, b kept */
	assert_int_equal(prof_build_id_from_hex("01ABff", 6, &b), 0);
	assert_int_equal(b.len, 3);
	assert_string_equal(prof_build_id_hex(&b, hex), "01abff");
	assert_int_equal(prof_build_id_from_hex("0", 1, &b), -EINVAL);
	assert_int_equal(prof_build_id_from_hex("012", 3, &b), -EINVAL);
	assert_int_equal(prof_build_id_from_hex("zz", 2, &b), -EINVAL);
	assert_int_equal(prof_build_id_from_hex("00112233445566778899aabbccddeeff0011223344", 42, &b),
			 -EINVAL);
	assert_int_equal(b.len, 3);
	b.len = 0;
	prof_sanitize(out, sizeof(out), "a\tb\x1b[31m");
	assert_string_equal(out, "a?b?[31");
	prof_sanitize(out, sizeof(out), "ok\x7f");
	assert_string_equal(out, "ok?");
	prof_sanitize(out, 1, "abc");
	assert_string_equal(out, "");
}

/* ---- zbuf -------------------------------------------------------------- */

/* zbuf_putf: short and long (past its 256-byte stack buffer) texts, appended */
static void test_zbuf_putf(void **state)
{
	char big[1000];
	struct zbuf b;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	zbuf_init(&b);
	zbuf_putf(&b, "a%d,", 12);
	zbuf_putf(&b, "[%s]", big);
	zbuf_putf(&b, "%s", "");
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, 4 + 2 + 999);
	assert_memory_equal(b.data, "a12,[x", 6);
	assert_int_equal(b.data[b.len - 1], ']');
	assert_int_equal(b.data[b.len - 2], 'x');
	zbuf_release(&b);
}

static void test_uv_edges(void **state)
{
	static const struct {
		uint64_t v;
		size_t len;
	} cases[] = {
		{ 0, 1 }, { 1, 1 }, { 127, 1 }, { 128, 2 }, { 16383, 2 }, { 16384, 3 },
		{ UINT32_MAX, 5 }, { (uint64_t)1 << 63, 10 }, { UINT64_MAX - 1, 10 },
		{ UINT64_MAX, 10 },
	};
	struct zbuf b;
	struct zcur c;
	uint64_t v;
	size_t i;

	zbuf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		zbuf_reset(&b);
		zbuf_put_uv(&b, cases[i].v);
		assert_int_equal(b.len, cases[i].len);
		zcur_init(&c, b.data, b.len);
		assert_int_equal(zcur_uv(&c, &v), 0);
		assert_int_equal(v, cases[i].v);
		assert_int_equal(zcur_left(&c), 0);
	}
	zbuf_reset(&b);
	zbuf_put_uv(&b, 128);
	assert_memory_equal(b.data, "\x80\x01", 2);
	zbuf_release(&b);
}

static void test_sv_edges(void **state)
{
	static const int64_t cases[] = { 0, -1, 1, -64, 63, 64, -65, INT32_MIN, INT32_MAX,
					 INT64_MIN, INT64_MAX, INT64_MIN + 1 };
	struct zbuf b;
	struct zcur c;
	int64_t v;
	size_t i;

	zbuf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		zbuf_put_sv(&b, cases[i]);
	zcur_init(&c, b.data, b.len);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(zcur_sv(&c, &v), 0);
		assert_true(v == cases[i]);
	}
	assert_int_equal(zcur_left(&c), 0);
	/* zigzag: small magnitudes are one byte either side of 0 */
	zbuf_reset(&b);
	zbuf_put_sv(&b, -1);
	zbuf_put_sv(&b, -64);
	zbuf_put_sv(&b, 63);
	assert_int_equal(b.len, 3);
	zbuf_reset(&b);
	zbuf_put_sv(&b, INT64_MIN);
	assert_int_equal(b.len, 10);
	zbuf_release(&b);
}

static void test_fixed_and_bytes(void **state)
{
	const uint8_t *p;
	struct zbuf b;
	struct zcur c;
	uint64_t v64;
	uint32_t v32;
	uint8_t v8, raw[3];
	size_t n;
	char *s;

	zbuf_init(&b);
	zbuf_put_u8(&b, 0xfe);
	zbuf_put_u32le(&b, 0x01020304);
	zbuf_put_u64le(&b, 0x1122334455667788ull);
	zbuf_put_str(&b, "hello");
	zbuf_put_str(&b, NULL);
	zbuf_put_bytes(&b, "\0\1", 2);
	zbuf_put(&b, "xyz", 3);
	assert_int_equal(b.err, 0);
	assert_memory_equal(b.data + 1, "\x04\x03\x02\x01", 4);
	zcur_init(&c, b.data, b.len);
	assert_int_equal(zcur_u8(&c, &v8), 0);
	assert_int_equal(v8, 0xfe);
	assert_int_equal(zcur_u32le(&c, &v32), 0);
	assert_int_equal(v32, 0x01020304);
	assert_int_equal(zcur_u64le(&c, &v64), 0);
	assert_true(v64 == 0x1122334455667788ull);
	assert_int_equal(zcur_strdup(&c, &s, 64), 0);
	assert_string_equal(s, "hello");
	free(s);
	assert_int_equal(zcur_strdup(&c, &s, 64), 0);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(zcur_bytes(&c, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(p, "\0\1", 2);
	assert_int_equal(zcur_raw(&c, raw, 3), 0);
	assert_memory_equal(raw, "xyz", 3);
	assert_int_equal(zcur_left(&c), 0);
	assert_int_equal(zcur_u8(&c, &v8), -EBADMSG);

	/* reset keeps the memory */
	n = b.cap;
	zbuf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, n);
	zbuf_put_u8(&b, 1);
	assert_int_equal(zbuf_reserve(&b, SIZE_MAX), -ENOMEM); /* len + extra overflows */
	assert_int_equal(b.err, -ENOMEM); /* sticky */
	zbuf_put_u8(&b, 1);
	assert_int_equal(b.len, 1);
	zbuf_release(&b);
	assert_null(b.data);
}

static void test_cursor_overruns(void **state)
{
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x00 };
	static const uint8_t tenth_big[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff, 0x02 };
	const uint8_t *p;
	struct zcur c;
	uint64_t v;
	uint32_t v32;
	size_t n;
	char *s;

	/* an unterminated varint, then every get fails */
	zcur_init(&c, "\x80\x80", 2);
	assert_int_equal(zcur_uv(&c, &v), -EBADMSG);
	assert_int_equal(c.err, -EBADMSG);
	zcur_init(&c, "\x01\x02", 2);
	c.err = -EBADMSG;
	assert_int_equal(zcur_uv(&c, &v), -EBADMSG);
	assert_int_equal(zcur_left(&c), 2);

	/* longer than 10 bytes, or a 10th byte beyond 64 bits */
	zcur_init(&c, eleven, sizeof(eleven));
	assert_int_equal(zcur_uv(&c, &v), -EBADMSG);
	zcur_init(&c, tenth_big, sizeof(tenth_big));
	assert_int_equal(zcur_uv(&c, &v), -EBADMSG);
	zcur_init(&c, tenth_big, sizeof(tenth_big) - 1);
	assert_int_equal(zcur_uv(&c, &v), -EBADMSG);

	/* fixed sizes past the end */
	zcur_init(&c, "\1\2\3", 3);
	assert_int_equal(zcur_u32le(&c, &v32), -EBADMSG);
	zcur_init(&c, "\1\2\3\4\5\6\7", 7);
	assert_int_equal(zcur_u64le(&c, &v), -EBADMSG);

	/* lengths past the end, embedded NULs, over the cap */
	zcur_init(&c, "\x05" "abcd", 5);
	assert_int_equal(zcur_bytes(&c, &p, &n), -EBADMSG);
	zcur_init(&c, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
	assert_int_equal(zcur_bytes(&c, &p, &n), -EBADMSG);
	zcur_init(&c, "\x03" "a\0b", 4);
	assert_int_equal(zcur_strdup(&c, &s, 64), -EBADMSG);
	zcur_init(&c, "\x03" "abc", 4);
	assert_int_equal(zcur_strdup(&c, &s, 2), -EBADMSG);
	zcur_init(&c, "\x03" "abc", 4);
	assert_int_equal(zcur_strdup(&c, &s, 3), 0);
	assert_string_equal(s, "abc");
	free(s);

	/* an empty cursor */
	zcur_init(&c, "", 0);
	assert_int_equal(zcur_left(&c), 0);
	assert_int_equal(zcur_uv(&c, &v), -EBADMSG);
}

/* Anonymous memory as perf tells it (JIT code lives there); files, memfds
 * and other bracketed names are not. */
static void test_path_is_anon(void **state)
{
	static const char *const anon[] = { "", "//anon", "//anon (deleted)", "[anon:dalvik]",
					    "[anon_shmem]", "/dev/zero", "/dev/zero (deleted)",
					    "/anon_hugepage", "/anon_hugepage (deleted)" };
	static const char *const file[] = { "/usr/lib/libc.so.6", "/", "//", "/dev/zer",
					    "/dev/null", "/anon", "/anon_hugepag", "/a", "/d",
					    "[vdso]", "[heap]", "[stack]", "[ano", "/memfd:jit (deleted)",
					    "app", "anon" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(anon) / sizeof(anon[0]); i++)
		assert_true(prof_path_is_anon(anon[i]));
	for (i = 0; i < sizeof(file) / sizeof(file[0]); i++)
		assert_false(prof_path_is_anon(file[i]));
}

/* zt_src_path() and zt_str_copy() give what snprintf() gives, at every
 * buffer size: the text cut at n - 1 bytes, and the length it needs. */
static void test_src_path(void **state)
{
	static const char *const dirs[] = { NULL, "", "/build/src", "d" };
	static const char *const files[] = { NULL, "", "a.c", "/usr/include/stdio.h", "lib/x.c" };
	char got[64], want[64];
	size_t d, f, n;

	(void)state;
	for (d = 0; d < 4; d++)
		for (f = 0; f < 5; f++)
			for (n = 0; n < 28; n++) {
				const char *file = files[f] ? files[f] : "", *dir = dirs[d];
				int l = file[0] && file[0] != '/' && dir && *dir
						? snprintf(want, n, "%s/%s", dir, file)
						: snprintf(want, n, "%s", file);

				memset(got, 'x', sizeof(got));
				assert_int_equal(zt_src_path(n ? got : NULL, n, dir, files[f]), l);
				if (n)
					assert_string_equal(got, want);
				memset(got, 'x', sizeof(got));
				assert_int_equal(zt_str_copy(n ? got : NULL, n, file), strlen(file));
				if (n) {
					snprintf(want, n, "%s", file);
					assert_string_equal(got, want);
				}
			}
	assert_int_equal(zt_src_path(NULL, 0, "/b", "c.c"), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zbuf_putf),
		cmocka_unit_test(test_intern_dedupe),
		cmocka_unit_test(test_intern_many),
		cmocka_unit_test(test_append_then_intern),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_hex_sanitize),
		cmocka_unit_test(test_uv_edges),
		cmocka_unit_test(test_sv_edges),
		cmocka_unit_test(test_fixed_and_bytes),
		cmocka_unit_test(test_cursor_overruns),
		cmocka_unit_test(test_path_is_anon),
		cmocka_unit_test(test_src_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
