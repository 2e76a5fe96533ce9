// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of kallsyms_subset: only the lines sampled addresses need. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <string.h>

#include <cmocka.h>

#include "libprof/fileio.h"
#include "symbolizer/kallsyms.h"
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

/* The per-boot cache path (sorted text symbols, bisected) gives the same
 * symbols as the full pass, on this machine's /proc/kallsyms. */
static void test_sorted_agrees_live(void **state)
{
	struct zbuf sorted, a, b;
	struct kallsyms *ka, *kb;
	uint64_t ips[400], lo = UINT64_MAX, hi = 0;
	char *kt;
	size_t len, i;

	if (zt_read_file("/proc/kallsyms", 256u << 20, &kt, &len) || len < 16 ||
	    !strncmp(kt, "0000000000000000", 16)) {
		skip();
		return;
	}
	zbuf_init(&sorted);
	zbuf_init(&a);
	zbuf_init(&b);
	assert_int_equal(kallsyms_sorted_text(kt, len, &sorted), 0);
	/* addresses spread over the kernel's kt */
	for (i = 0; i < len;) {
		const char *nl = memchr(kt + i, '\n', len - i);
		uint64_t v = strtoull(kt + i, NULL, 16);

		if (kt[i + 17] == 'T' && v) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		i = nl ? (size_t)(nl - kt) + 1 : len;
	}
	for (i = 0; i < 400; i++)
		ips[i] = lo + (hi - lo) / 400 * i + 7;
	assert_int_equal(kallsyms_subset(kt, len, ips, 400, &a), 0);
	assert_int_equal(kallsyms_subset_sorted((char *)sorted.data, sorted.len, ips, 400, &b), 0);
	assert_int_equal(kallsyms_parse((char *)a.data, a.len, &ka), 0);
	assert_int_equal(kallsyms_parse((char *)b.data, b.len, &kb), 0);
	for (i = 0; i < 400; i++) {
		uint64_t oa = 0, ob = 0;
		const char *ma, *mb, *na = kallsyms_lookup(ka, ips[i], &oa, &ma),
				     *nb = kallsyms_lookup(kb, ips[i], &ob, &mb);

		assert_true((na == NULL) == (nb == NULL));
		if (na) {
			assert_string_equal(na, nb);
			assert_int_equal(oa, ob);
		}
	}
	kallsyms_free(ka);
	kallsyms_free(kb);
	zbuf_release(&sorted);
	zbuf_release(&a);
	zbuf_release(&b);
	free(kt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subset),
		cmocka_unit_test(test_below_and_empty),
		cmocka_unit_test(test_sorted_agrees_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
