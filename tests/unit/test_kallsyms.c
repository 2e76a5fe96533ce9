/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kallsyms: a synthetic snapshot with modules and edge cases, and the live
 * /proc/kallsyms of this machine (parse time printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbolizer/kallsyms.h"

static const char synthetic[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000000 t __alias_local\n"
	"ffffffff81000100 t local_fn\n"
	"ffffffff81000180 D some_data\n"  /* data: skipped */
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000300 w weak_local\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000400 T _etext\n"
	"ffffffff81000000 r dup_ro\n"
	"garbage line\n"
	"ffffffff8100050 T\n"                  /* no name */
	"xyz T bad_addr\n"
	"ffffffff81000500 TT two_char_type\n"
	"ffffffff810005000 T too_many_digits\n"
	"\n"
	"ffffffffc0002000 t mod_b_fn2\t[mod_b]\n" /* unsorted: module b before a */
	"ffffffffc0002100 T mod_b_last\t[mod_b]\n"
	"ffffffffc0001000 t mod_a_fn\t[mod_a]\n"
	"ffffffffc0001800 T mod_a_fn2\t[mod_a]\n"
	"ffffffffc0001900 d mod_a_data\t[mod_a]\n"
	"ffffffffc0001a00 b mod_a_bss\t[mod_a]\n"
	"ffffffffc0003000 t bpf_prog_0123456789abcdef_hello\t[bpf]\n"
	"ffffffffc0004000 t no_newline_at_end\t[last]";

static struct kallsyms *parse(const char *s)
{
	struct kallsyms *k = NULL;

	assert_int_equal(kallsyms_parse(s, strlen(s), &k), 0);
	assert_non_null(k);
	return k;
}

static void expect(const struct kallsyms *k, uint64_t addr, const char *name, uint64_t off,
		   const char *mod)
{
	const char *m = NULL, *n;
	uint64_t o = 999;

	n = kallsyms_lookup(k, addr, &o, &m);
	if (!n)
		fail_msg("0x%llx: nothing, want %s", (unsigned long long)addr, name);
	assert_string_equal(n, name);
	assert_int_equal(o, off);
	assert_string_equal(m, mod);
}

static void test_synthetic(void **state)
{
	struct kallsyms *k = parse(synthetic);
	const char *kk = "[kernel.kallsyms]";

	/* _text, startup_64 and __alias_local share an address: one entry,
	 * perf's: the last in the file (perf gives only it an extent, and a
	 * sized symbol beats sizeless ones before binding or names count) */
	expect(k, 0xffffffff81000000, "__alias_local", 0, kk);
	expect(k, 0xffffffff810000ff, "__alias_local", 0xff, kk);
	expect(k, 0xffffffff81000100, "local_fn", 0, kk);
	/* the data symbol does not cut local_fn */
	expect(k, 0xffffffff810001f0, "local_fn", 0xf0, kk);
	expect(k, 0xffffffff81000200, "weak_fn", 0, kk);
	expect(k, 0xffffffff81000301, "weak_local", 1, kk);
	/* the last core symbol reaches at most 1 MiB */
	expect(k, 0xffffffff81000400 + 0xfffff, "_etext", 0xfffff, kk);
	assert_null(kallsyms_lookup(k, 0xffffffff81000400 + 0x100000, NULL, NULL));
	assert_null(kallsyms_lookup(k, 0xffffffff80ffffff, NULL, NULL));
	assert_null(kallsyms_lookup(k, 0, NULL, NULL));

	expect(k, 0xffffffffc0001000, "mod_a_fn", 0, "[mod_a]");
	expect(k, 0xffffffffc0001900, "mod_a_fn2", 0x100, "[mod_a]");
	/* module a ends where module b begins */
	expect(k, 0xffffffffc0001fff, "mod_a_fn2", 0x7ff, "[mod_a]");
	expect(k, 0xffffffffc0002000, "mod_b_fn2", 0, "[mod_b]");
	expect(k, 0xffffffffc0002100, "mod_b_last", 0, "[mod_b]");
	expect(k, 0xffffffffc0002fff, "mod_b_last", 0xeff, "[mod_b]");
	expect(k, 0xffffffffc0003010, "bpf_prog_0123456789abcdef_hello", 0x10, "[bpf]");
	expect(k, 0xffffffffc0004000, "no_newline_at_end", 0, "[last]");
	/* name and module outputs are optional */
	assert_non_null(kallsyms_lookup(k, 0xffffffffc0004000, NULL, NULL));
	assert_int_equal(kallsyms_count(k), 11);
	kallsyms_free(k);
	kallsyms_free(NULL);
}

static void test_restricted(void **state)
{
	/* kptr_restrict: every address reads as zero */
	struct kallsyms *k = parse("0000000000000000 T _text\n"
				   "0000000000000000 T schedule\n"
				   "0000000000000000 t foo\t[mod]\n");

	assert_int_equal(kallsyms_count(k), 0);
	assert_null(kallsyms_lookup(k, 0, NULL, NULL));
	assert_null(kallsyms_lookup(k, 0xffffffff81000000, NULL, NULL));
	kallsyms_free(k);

	k = parse("");
	assert_int_equal(kallsyms_count(k), 0);
	kallsyms_free(k);
	assert_int_equal(kallsyms_parse(NULL, 0, &k), 0);
	assert_int_equal(kallsyms_count(k), 0);
	kallsyms_free(k);
}

static void test_odd_lines(void **state)
{
	/* CRLF, spaces instead of tab, a truncated module, top of the space */
	struct kallsyms *k = parse("ffffffff81000000 T crlf_fn\r\n"
				   "ffffffff81001000 t spaced   [mymod]\n"
				   "ffffffff81002000 t broken_mod\t[unterminated\n"
				   "ffffffffffffff00 T top_fn\n");

	assert_int_equal(kallsyms_count(k), 4);
	expect(k, 0xffffffff81000010, "crlf_fn", 0x10, "[kernel.kallsyms]");
	expect(k, 0xffffffff81001000, "spaced", 0, "[mymod]");
	expect(k, 0xffffffff81002001, "broken_mod", 1, "[kernel.kallsyms]");
	expect(k, 0xfffffffffffffffe, "top_fn", 0xfe, "[kernel.kallsyms]");
	kallsyms_free(k);
}

/* a big synthetic table: every symbol found, the text is not NUL-terminated */
static void test_many(void **state)
{
	size_t n = 50000, i, len = 0, cap = n * 64;
	char *text = malloc(cap), *exact;
	struct kallsyms *k = NULL;

	assert_non_null(text);
	for (i = 0; i < n; i++) {
		/* interleave the order so the parser has to sort */
		size_t j = (i * 7919) % n;

		len += (size_t)snprintf(text + len, cap - len, "%016llx %c sym_%zu%s\n",
					0xffffffff81000000ull + j * 16, j % 2 ? 't' : 'T', j,
					j >= n - 100 ? "\t[tail]" : "");
	}
	/* exactly the bytes, no final newline, no NUL: overreads show under ASan */
	exact = malloc(len - 1);
	assert_non_null(exact);
	memcpy(exact, text, len - 1);
	assert_int_equal(kallsyms_parse(exact, len - 1, &k), 0);
	free(exact);
	assert_int_equal(kallsyms_count(k), n);
	for (i = 0; i < n; i++) {
		char want[32];
		uint64_t off;
		const char *m;

		snprintf(want, sizeof(want), "sym_%zu", i);
		assert_string_equal(kallsyms_lookup(k, 0xffffffff81000000ull + i * 16 + 5, &off, &m),
				    want);
		assert_int_equal(off, 5);
		assert_string_equal(m, i >= n - 100 ? "[tail]" : "[kernel.kallsyms]");
	}
	kallsyms_free(k);
	free(text);
}

static char *read_proc(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			assert_non_null(nb);
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	*len = n;
	return buf;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The address of a text symbol named name, from the text itself (0 if
 * absent); *shared is set when another text symbol has the same address. */
static uint64_t find_in_text(const char *text, size_t len, const char *name, int *shared)
{
	const char *p = text, *end = text + len;
	uint64_t addr = 0;
	char pat[128];

	snprintf(pat, sizeof(pat), " %s\n", name);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);

		if (l > 19 && (p[17] == 'T' || p[17] == 't') && l - 18 == strlen(pat) &&
		    !memcmp(p + 18, pat, l - 18)) {
			addr = strtoull(p, NULL, 16);
			break;
		}
		p += l;
	}
	*shared = 0;
	for (p = text; addr && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);

		if (l > 19 && strchr("tTwW", p[17]) && strtoull(p, NULL, 16) == addr &&
		    memcmp(p + 18, pat, strlen(pat)) != 0)
			*shared = 1;
		p += l;
	}
	return addr;
}

static void test_live(void **state)
{
	static const char *const names[] = { "schedule", "do_sys_open", "vfs_read", "ksys_write" };
	struct kallsyms *k = NULL;
	double t0, best = 1e9;
	size_t len, i;
	char *text = read_proc("/proc/kallsyms", &len);
	int checked = 0;

	if (!text) {
		skip();
		return;
	}
	for (i = 0; i < 5; i++) {
		t0 = now_ms();
		assert_int_equal(kallsyms_parse(text, len, &k), 0);
		t0 = now_ms() - t0;
		if (t0 < best)
			best = t0;
		if (i < 4)
			kallsyms_free(k);
	}
	printf("kallsyms: %zu bytes, %zu text symbols, parsed in %.1f ms (best of 5)\n", len,
	       kallsyms_count(k), best);
	if (kallsyms_count(k) == 0) {
		/* kptr_restrict hides the addresses: nothing more to check */
		kallsyms_free(k);
		free(text);
		return;
	}
	assert_true(kallsyms_count(k) > 1000);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int shared;
		uint64_t addr = find_in_text(text, len, names[i], &shared), off;
		const char *m, *n;

		if (!addr)
			continue;
		n = kallsyms_lookup(k, addr + 1, &off, &m);
		assert_non_null(n);
		assert_int_equal(off, 1);
		assert_string_equal(m, "[kernel.kallsyms]");
		if (!shared)
			assert_string_equal(n, names[i]);
		checked++;
	}
	assert_true(checked > 0);
	/* well under 100 ms; generous for sanitizer builds and loaded machines */
	assert_true(best < 500);
	kallsyms_free(k);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_restricted),
		cmocka_unit_test(test_odd_lines),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
