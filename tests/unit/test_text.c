/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the shared text helpers: hex digits, hex encoding and decoding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/text.h"

/* every byte against the definition */
static void test_hexval(void **state)
{
	(void)state;
	for (int c = 0; c < 256; c++) {
		int want = c >= '0' && c <= '9'	  ? c - '0'
			   : c >= 'a' && c <= 'f' ? c - 'a' + 10
			   : c >= 'A' && c <= 'F' ? c - 'A' + 10
						  : -1;

		assert_int_equal(zt_hexval((char)c), want);
	}
}

static void test_hex_encode(void **state)
{
	static const uint8_t b[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
	char out[2 * sizeof(b) + 1];

	(void)state;
	memset(out, 'x', sizeof(out));
	assert_ptr_equal(zt_hex_encode(b, sizeof(b), out), out);
	assert_string_equal(out, "00017f80abff");
	assert_string_equal(zt_hex_encode(b, 0, out), "");
}

static void test_hex_decode(void **state)
{
	uint8_t b[4] = {0};

	(void)state;
	assert_int_equal(zt_hex_decode("00017F80", 4, b), 0);
	assert_memory_equal(b, "\x00\x01\x7f\x80", 4);
	assert_int_equal(zt_hex_decode("abCDef12", 4, b), 0);
	assert_memory_equal(b, "\xab\xcd\xef\x12", 4);
	assert_int_equal(zt_hex_decode("", 0, b), 0);
	/* a non-digit in either place of a byte */
	assert_int_equal(zt_hex_decode("0g", 1, b), -EINVAL);
	assert_int_equal(zt_hex_decode("g0", 1, b), -EINVAL);
	assert_int_equal(zt_hex_decode("12 4", 2, b), -EINVAL);
	assert_int_equal(zt_hex_decode("-1", 1, b), -EINVAL);
	/* a string shorter than 2n stops at its NUL */
	assert_int_equal(zt_hex_decode("12", 2, b), -EINVAL);
	assert_int_equal(zt_hex_decode("1", 1, b), -EINVAL);
}

static void test_hex_round_trip(void **state)
{
	uint8_t in[256], back[256];
	char hex[513];

	(void)state;
	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)(255 - i);
	zt_hex_encode(in, sizeof(in), hex);
	assert_int_equal(strlen(hex), 512);
	assert_int_equal(zt_hex_decode(hex, sizeof(back), back), 0);
	assert_memory_equal(in, back, sizeof(in));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hexval),
		cmocka_unit_test(test_hex_encode),
		cmocka_unit_test(test_hex_decode),
		cmocka_unit_test(test_hex_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
