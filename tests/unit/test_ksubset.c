// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of kallsyms_subset: only the lines sampled addresses need. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/ksubset.h"

static const char text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T startup_64\n"
	"ffffffff81000200 d some_data\n"
	"ffffffff81000300 t helper\n"
	"ffffffff81000400 T schedule\n"
	"ffffffff81000500 W weak_fn\n"
	"ffffffff81100000 T _etext\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0001080 t mod_fn2\t[mymod]\n"
	"garbage line\n";

static void test_subset(void **state)
{
	uint64_t ips[] = { 0xffffffff81000410, 0xffffffff81000410, 0xffffffffc0001010 };
	struct zbuf out;

	zbuf_init(&out);
	assert_int_equal(kallsyms_subset(text, sizeof(text) - 1, ips, 3, &out), 0);
	zbuf_put_u8(&out, 0);
	assert_string_equal((char *)out.data,
			    "ffffffff81000000 T _text\n"
			    "ffffffff81000400 T schedule\n"
			    "ffffffff81000500 W weak_fn\n"
			    "ffffffff81100000 T _etext\n"
			    "ffffffffc0001000 t mod_fn\t[mymod]\n"
			    "ffffffffc0001080 t mod_fn2\t[mymod]\n");
	zbuf_release(&out);
}

static void test_below_and_empty(void **state)
{
	uint64_t ips[] = { 0x1000 };
	struct zbuf out;

	zbuf_init(&out);
	assert_int_equal(kallsyms_subset(text, sizeof(text) - 1, ips, 1, &out), 0);
	/* only _text/_etext */
	assert_int_equal(out.len, strlen("ffffffff81000000 T _text\nffffffff81100000 T _etext\n"));
	zbuf_reset(&out);
	assert_int_equal(kallsyms_subset("", 0, ips, 1, &out), 0);
	assert_int_equal(out.len, 0);
	zbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subset),
		cmocka_unit_test(test_below_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
