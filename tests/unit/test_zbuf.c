/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the JSON writers of struct zbuf: strings and object members. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/zbuf.h"

/* b's bytes as a string, and b emptied */
static const char *take(struct zbuf *b)
{
	static char out[512];

	assert_false(b->err);
	assert_true(b->len < sizeof(out));
	memcpy(out, b->data, b->len);
	out[b->len] = 0;
	zbuf_reset(b);
	return out;
}

static void test_json_str(void **state)
{
	struct zbuf b;

	(void)state;
	zbuf_init(&b);
	zbuf_put_json_str(&b, "plain");
	assert_string_equal(take(&b), "\"plain\"");
	zbuf_put_json_str(&b, "q\"\\\x01\n\x7f<");
	assert_string_equal(take(&b), "\"q\\\"\\\\\\u0001\\u000a\\u007f<\"");
	/* UTF-8 kept, bad bytes replaced, U+2028 escaped */
	zbuf_put_json_str(&b, "\xc3\xa9\xff\xe2\x80\xa8");
	assert_string_equal(take(&b), "\"\xc3\xa9\\ufffd\\u2028\"");
	zbuf_put_json_str(&b, "");
	assert_string_equal(take(&b), "\"\"");
	/* n bytes, a NUL among them escaped */
	zbuf_put_json_strn(&b, "a\0b", 3);
	assert_string_equal(take(&b), "\"a\\u0000b\"");
	zbuf_put_json_strn(&b, "\xc3\xa9", 1); /* a sequence cut short */
	assert_string_equal(take(&b), "\"\\ufffd\"");
	zbuf_release(&b);
}

static void test_json_members(void **state)
{
	struct zbuf b;

	(void)state;
	zbuf_init(&b);
	zbuf_put_u8(&b, '{');
	zbuf_put_json_kv_str(&b, "id", "x\"y", 0);
	zbuf_put_json_kv_str(&b, "host", NULL, 1);
	zbuf_put_json_kv_int(&b, "samples", -42);
	zbuf_put_json_kv_int(&b, "max", INT64_MAX);
	zbuf_put_json_kv_strn(&b, "event", "cycles:uXYZ", 8, 1);
	zbuf_put_json_kv_strn(&b, "format", "ab\0cd", 5, 1);
	zbuf_put_json_kv_strn(&b, "none", NULL, 3, 1);
	zbuf_put_u8(&b, '}');
	assert_string_equal(take(&b), "{\"id\":\"x\\\"y\",\"host\":\"\",\"samples\":-42,"
				      "\"max\":9223372036854775807,\"event\":\"cycles:u\","
				      "\"format\":\"ab\",\"none\":\"\"}");
	zbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_json_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
