/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folded stacks under stackcollapse-perf.pl's default rules: process names
 * (spaces, a " PID " inside), frame names (offsets, argument lists, Go
 * methods, anonymous namespaces, quotes, ';', java's "L", "a->b"),
 * "[unknown]" named after the module, inlined frames, whole stacks from
 * resolved frames, and the sorted set of distinct stacks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/folded.h"

/* Thread names and stackcollapse-perf.pl's process names for them. */
static const struct {
	const char *comm, *name;
} comms[] = {
	{"prog", "prog"},
	{"Web Content", "Web_Content"},
	/* the script's regex ends the name before " DIGITS[/DIGITS] " */
	{"ab 12 cd", "ab"},
	{"ab 12/34 cd", "ab"},
	{"ab 12c d", "ab_12c_d"},
	/* ... after two characters at least */
	{"a 1 b", "a_1_b"},
};

static void test_comm(void **state)
{
	char out[64];
	size_t i;

	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		folded_comm(comms[i].comm, out, sizeof(out));
		assert_string_equal(out, comms[i].name);
	}
	folded_comm("abcdef", out, 4);
	assert_string_equal(out, "abc");
}

/* Frame texts (what follows the address in perf script's lines), whether
 * the process is java, and what stackcollapse-perf.pl makes of them. */
static const struct {
	const char *line;
	int java;
	const char *folded;
} frames[] = {
	{"main+0x1a (/usr/bin/prog)", 0, ";main"},
	{"main (/usr/bin/prog)", 0, ";main"},
	/* argument lists go, except Go methods and anonymous namespaces */
	{"ns::f(int, char const*)+0x10 (/a)", 0, ";ns::f"},
	{"main.(*T).Run+0x5 (/go/bin/x)", 0, ";main.(*T).Run"},
	{"ns::(anonymous namespace)::g(int)+0x4 (/a)", 0, ";ns::(anonymous namespace)::g"},
	/* a name starting with '(' is a process name to the script: skipped */
	{"(anonymous namespace)::g+0x4 (/a)", 0, ""},
	/* quotes dropped, ';' made ':' */
	{"op\"x'y+0x1 (/a)", 0, ";opxy"},
	{"a;b+0x1 (/a)", 0, ";a:b"},
	/* java: "Lpkg/Class;" loses its "L" in a java process only */
	{"Ljava/lang/Thread;::run+0x3 (/tmp/perf-7.map)", 1, ";java/lang/Thread:::run"},
	{"Ljava/lang/Thread;::run+0x3 (/tmp/perf-7.map)", 0, ";Ljava/lang/Thread:::run"},
	/* "a->b": pieces after the first marked inlined */
	{"a->b->c+0x8 (/a)", 0, ";a;b_[i];c_[i]"},
	{"a->b_[i]->+0x8 (/a)", 0, ";a;b_[i]"},
	/* [unknown]: the module's base name in brackets, when known */
	{"[unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)", 0, ";[libc.so.6]"},
	{"[unknown] ([kernel.kallsyms])", 0, ";[[kernel.kallsyms]]"},
	{"[unknown] ([unknown])", 0, ";[unknown]"},
	/* the last " (" splits name and module */
	{"f(x) const (/a b/lib.so)", 0, ";f"},
	/* no "(module)": a line the script does not recognize */
	{"lonely", 0, ""},
	/* an inlined frame's line: the name, unmarked */
	{"inl_a+0x1a (inlined)", 0, ";inl_a"},
};

static void test_frame(void **state)
{
	struct zbuf b;
	size_t i;

	zbuf_init(&b);
	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		char *t = strdup(frames[i].line);

		assert_non_null(t);
		zbuf_reset(&b);
		assert_int_equal(folded_frame(&b, t, frames[i].java), 0);
		zbuf_put(&b, "", 1);
		assert_int_equal(b.err, 0);
		assert_string_equal((char *)b.data, frames[i].folded);
		free(t);
	}
	zbuf_release(&b);
}

static char path_prog[] = "/usr/bin/prog";
static char path_libc[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";

static void test_stack(void **state)
{
	static const struct frametab_source src = {0};
	struct prof_mmap prog = {.start = 0x555555554000ull, .len = 0x10000, .path = path_prog};
	struct prof_mmap libc = {.start = 0x7f0000000000ull, .len = 0x100000, .path = path_libc};
	const struct zt_frame zf[] = {
		{.sym = "do_sys", .module = "[kernel.kallsyms]", .offset = 0x10, .kernel = 1},
		{.sym = "inl_b", .module = "prog", .inlined = 1},
		{.sym = "inl_a", .module = "prog", .inlined = 1},
		{.sym = "outer(int)", .module = "prog", .offset = 0x1a},
		{.sym = NULL, .module = "libc.so.6", .offset = 0x2f0},
		{.sym = NULL, .module = "[unknown]", .offset = 0x1234},
		{.sym = "Ljava/Foo;::bar", .module = "[JIT] tid 42", .offset = 4},
	};
	const uint64_t ips[] = {0xffffffff81001010ull, 0x555555555234ull, 0x7f00000012f0ull, 0x1234,
				0x7e0000000004ull};
	const struct zt_frange r[] = {
		{0, 1, NULL}, {1, 3, &prog}, {4, 1, &libc}, {5, 1, NULL}, {6, 1, NULL},
	};
	struct frametab ft;
	struct zbuf b;
	size_t i;

	frametab_init(&ft, NULL, &src);
	for (i = 0; i < sizeof(zf) / sizeof(zf[0]); i++)
		assert_int_equal(frametab_push(&ft, &zf[i]), 0);
	zbuf_init(&b);
	assert_int_equal(folded_stack(&b, "my prog", &(struct rstacks){NULL, NULL, &ft}, 42, ips, r, 4, 0), 0);
	assert_string_equal((char *)b.data, "my_prog;[unknown];[libc.so.6];outer;do_sys");
	assert_int_equal(b.len, strlen("my_prog;[unknown];[libc.so.6];outer;do_sys"));
	/* --inline: the inlined functions as frames of their own, innermost last */
	assert_int_equal(folded_stack(&b, "my prog", &(struct rstacks){NULL, NULL, &ft}, 42, ips, r, 4, 1), 0);
	assert_string_equal((char *)b.data,
			    "my_prog;[unknown];[libc.so.6];outer;inl_a;inl_b;do_sys");
	/* JIT code in a java process */
	assert_int_equal(folded_stack(&b, "java", &(struct rstacks){NULL, NULL, &ft}, 42, ips + 4, r + 4, 1, 0), 0);
	assert_string_equal((char *)b.data, "java;java/Foo:::bar");
	/* no frames: the process alone */
	assert_int_equal(folded_stack(&b, "swapper", &(struct rstacks){NULL, NULL, &ft}, 0, ips, r, 0, 0), 0);
	assert_string_equal((char *)b.data, "swapper");
	zbuf_release(&b);
	frametab_release(&ft);
}

struct out {
	char buf[256];
	size_t len;
	int fail_at; /* the write that fails (1-based), 0: none */
	int nr;
};

static int out_write(void *ctx, const void *p, size_t n)
{
	struct out *o = ctx;

	if (++o->nr == o->fail_at)
		return -EPIPE;
	assert_true(o->len + n < sizeof(o->buf));
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	o->buf[o->len] = 0;
	return 0;
}

static void test_set(void **state)
{
	struct folded_set fs;
	struct out o = {.len = 0};
	char key[32];
	int i;

	folded_set_init(&fs);
	assert_int_equal(folded_set_add(&fs, "b;x", 2), 0);
	assert_int_equal(folded_set_add(&fs, "a;y", 1), 0);
	assert_int_equal(folded_set_add(&fs, "b;x", 40), 0);
	assert_int_equal(folded_set_add(&fs, "a", 18446744073709551615ull), 0);
	assert_int_equal(fs.nr, 3);
	/* byte order, as the script's sort */
	assert_int_equal(folded_set_write(&fs, out_write, &o), 0);
	assert_string_equal(o.buf, "a 18446744073709551615\na;y 1\nb;x 42\n");
	/* a failed write stops it and is returned */
	memset(&o, 0, sizeof(o));
	o.fail_at = 2;
	assert_int_equal(folded_set_write(&fs, out_write, &o), -EPIPE);
	assert_string_equal(o.buf, "a");
	folded_set_release(&fs);

	/* across rehashes */
	folded_set_init(&fs);
	for (i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "s;%d", i % 5000);
		assert_int_equal(folded_set_add(&fs, key, 1), 0);
	}
	assert_int_equal(fs.nr, 5000);
	folded_set_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
