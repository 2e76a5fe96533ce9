/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame: the folded-text parser (counts, annotations, bad lines), the frame
 * tree (merging, totals, --reverse), and the SVG (well-formed, escaped,
 * widths proportional to samples, narrow frames left out).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/flame.h"
#include "libprof/hash.h"

static void parse(struct flame *f, const char *s, size_t want_bad)
{
	size_t bad = 0;

	assert_int_equal(flame_parse_folded(f, s, strlen(s), 0, &bad), 0);
	assert_int_equal(bad, want_bad);
}

/* The node at path "a;b;c" from the root, or FLAME_NONE. */
static uint32_t at(const struct flame *f, const char *path)
{
	char buf[256], *tok, *save = NULL;
	uint32_t n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ";", &save); tok && n != FLAME_NONE;
	     tok = strtok_r(NULL, ";", &save))
		n = flame_find_child(f, n, tok);
	if (n == FLAME_NONE)
		fail_msg("no frame at '%s'", path);
	return n;
}

static void test_folded_tree(void **state)
{
	struct flame f;
	uint32_t n;

	assert_int_equal(flame_init(&f), 0);
	parse(&f, "main;foo;bar 10\nmain;foo;baz 5\r\nmain;foo 2\n\nother;x 1", 0);
	assert_int_equal(f.total[0], 18);
	n = at(&f, "main");
	assert_int_not_equal(n, FLAME_NONE);
	assert_int_equal(f.nodes[n].value[0], 17);
	assert_int_equal(f.nodes[at(&f, "main;foo")].value[0], 17);
	assert_int_equal(f.nodes[at(&f, "main;foo;bar")].value[0], 10);
	assert_int_equal(f.nodes[at(&f, "main;foo;baz")].value[0], 5);
	assert_int_equal(f.nodes[at(&f, "main;foo;bar")].depth, 3);
	assert_int_equal(f.nodes[at(&f, "other;x")].value[0], 1);
	/* the same stack again merges */
	parse(&f, "main;foo;bar 1\n", 0);
	assert_int_equal(f.nodes[at(&f, "main;foo;bar")].value[0], 11);
	assert_int_equal(f.nr_nodes, 7);
	flame_release(&f);
}

static void test_folded_kinds(void **state)
{
	struct flame f;

	assert_int_equal(flame_init(&f), 0);
	parse(&f, "p;sys_read_[k] 1\np;jitted_[j] 1\np;inl_[i] 1\np;[libc.so.6] 1\np;plain 1\n", 0);
	assert_int_equal(f.nodes[at(&f, "p;sys_read")].kind, FLAME_KERNEL);
	assert_int_equal(f.nodes[at(&f, "p;jitted")].kind, FLAME_JIT);
	assert_int_equal(f.nodes[at(&f, "p;inl")].kind, FLAME_INLINED);
	assert_int_equal(f.nodes[at(&f, "p;[libc.so.6]")].kind, FLAME_UNRESOLVED);
	assert_int_equal(f.nodes[at(&f, "p;plain")].kind, FLAME_USER);
	flame_release(&f);
}

static void test_folded_bad(void **state)
{
	struct flame f;

	assert_int_equal(flame_init(&f), 0);
	/* no count, count glued to the name, only a count, a count too long */
	parse(&f, "a;b\na;b12\n 12\n12\na;b 99999999999999999999\na;b 3\n", 5);
	assert_int_equal(f.total[0], 3);
	/* empty frames are dropped; spaces inside names kept */
	parse(&f, "a;;b 1\nx y;z w 2\n", 0);
	assert_int_equal(f.nodes[at(&f, "a;b")].value[0], 4);
	assert_int_equal(f.nodes[at(&f, "x y;z w")].value[0], 2);
	assert_int_equal(flame_parse_folded(&f, "a 1", 3, 2, NULL), -EINVAL);
	flame_release(&f);
}

/* A NUL inside a frame name: the line is not folded text. It once made
 * the name table compare "f0\0..." with a stored "f0" as equal up to the
 * NUL and read past it: the suffix here is picked so that both hash to
 * the same slot of the first table (1024 slots), which is the overflow
 * ASan caught. */
static void test_folded_nul(void **state)
{
	struct flame f;
	char line[64];
	size_t bad = 0, n = 0;
	unsigned k;

	assert_int_equal(flame_init(&f), 0);
	parse(&f, "f0;g 1\n", 0);
	for (k = 0; k < 1000000; k++) {
		n = (size_t)snprintf(line, sizeof(line), "f0@%u", k);
		line[2] = 0;
		if ((zt_hash_bytes(line, n) & 1023) == (zt_hash_bytes("f0", 2) & 1023))
			break;
	}
	assert_true(k < 1000000);
	memcpy(line + n, ";g 7\nf0;g 2\n", 12);
	assert_int_equal(flame_parse_folded(&f, line, n + 12, 0, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(f.nodes[at(&f, "f0;g")].value[0], 3);
	assert_int_equal(f.total[0], 3);
	flame_release(&f);
}

/* Lines in one call reuse the prefix shared with the line before: the
 * same tree as each line parsed on its own. */
static void test_folded_prefix(void **state)
{
	static const char text[] = "a;b;c 1\na;b;c;d 2\na;b;cc 3\na;b 4\na;;b;c 5\na;bb;c 6\n"
				   "a;b;c_[k] 7\na;b;c_[k];x 8\nab;c 9\na 10\na;b;c 11\n";
	struct flame one, each;
	const char *p = text;
	size_t i;

	assert_int_equal(flame_init(&one), 0);
	assert_int_equal(flame_init(&each), 0);
	parse(&one, text, 0);
	while (*p) {
		const char *nl = strchr(p, '\n');

		assert_int_equal(flame_parse_folded(&each, p, (size_t)(nl - p), 0, NULL), 0);
		p = nl + 1;
	}
	assert_int_equal(one.nr_nodes, each.nr_nodes);
	for (i = 0; i < one.nr_nodes; i++) {
		assert_int_equal(one.nodes[i].value[0], each.nodes[i].value[0]);
		assert_int_equal(one.nodes[i].parent, each.nodes[i].parent);
		assert_int_equal(one.nodes[i].kind, each.nodes[i].kind);
		assert_string_equal(flame_str(&one, one.nodes[i].name),
				    flame_str(&each, each.nodes[i].name));
	}
	assert_int_equal(one.nodes[at(&one, "a;b;cc")].value[0], 3);
	assert_int_equal(one.nodes[at(&one, "a;b;c;x")].value[0], 8);
	assert_int_equal(one.nodes[at(&one, "a")].value[0],
			 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 10 + 11);
	flame_release(&one);
	flame_release(&each);
}

static void test_reverse(void **state)
{
	struct flame f;
	struct flame_frame st[3] = {{"main", "app", NULL, FLAME_USER},
				    {"work", "app", "w.c:3", FLAME_USER},
				    {"leaf", "libc.so.6", NULL, FLAME_USER}};

	assert_int_equal(flame_init(&f), 0);
	f.reverse = 1;
	parse(&f, "main;a;leaf 4\nmain;b;leaf 6\n", 0);
	assert_int_equal(f.nodes[at(&f, "leaf")].value[0], 10);
	assert_int_equal(f.nodes[at(&f, "leaf;a;main")].value[0], 4);
	assert_int_equal(f.nodes[at(&f, "leaf;b;main")].value[0], 6);
	flame_release(&f);
	assert_int_equal(flame_init(&f), 0);
	f.reverse = 1;
	assert_int_equal(flame_add_stack(&f, st, 3, 5, 0), 0);
	assert_int_equal(flame_add_stack(&f, st, 2, 1, 0), 0);
	assert_int_equal(f.nodes[at(&f, "leaf;work;main")].value[0], 5);
	assert_int_equal(f.nodes[at(&f, "work;main")].value[0], 1);
	assert_string_equal(flame_str(&f, f.nodes[at(&f, "leaf;work")].srcline), "w.c:3");
	assert_string_equal(flame_str(&f, f.nodes[at(&f, "leaf")].module), "libc.so.6");
	assert_int_equal(f.total[0], 6);
	flame_release(&f);
}

/* Stacks by ids: the same tree as by strings; an id not interned refused. */
static void test_ids(void **state)
{
	struct flame a, b;
	struct flame_frame st[3] = {{"main", "app", NULL, FLAME_USER},
				    {"work", "app", "w.c:3", FLAME_INLINED},
				    {"leaf", "libc.so.6", NULL, FLAME_KERNEL}};
	struct flame_idframe ids[3];
	size_t i;

	(void)state;
	assert_int_equal(flame_init(&a), 0);
	assert_int_equal(flame_init(&b), 0);
	assert_int_equal(flame_add_stack(&a, st, 3, 5, 0), 0);
	assert_int_equal(flame_add_stack(&a, st, 2, 1, 1), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(flame_intern(&b, st[i].name, &ids[i].name), 0);
		assert_int_equal(flame_intern(&b, st[i].module, &ids[i].module), 0);
		assert_int_equal(flame_intern(&b, st[i].srcline, &ids[i].srcline), 0);
		ids[i].kind = st[i].kind;
	}
	assert_int_equal(ids[0].srcline, 0);
	assert_int_equal(flame_add_stack_ids(&b, ids, 3, 5, 0), 0);
	assert_int_equal(flame_add_stack_ids(&b, ids, 2, 1, 1), 0);
	assert_int_equal(b.nr_nodes, a.nr_nodes);
	assert_int_equal(b.nodes[at(&b, "main;work;leaf")].value[0], 5);
	assert_int_equal(b.nodes[at(&b, "main;work")].value[1], 1);
	assert_int_equal(b.nodes[at(&b, "main;work")].kind, FLAME_INLINED);
	assert_string_equal(flame_str(&b, b.nodes[at(&b, "main;work")].srcline), "w.c:3");
	assert_string_equal(flame_str(&b, b.nodes[at(&b, "main;work;leaf")].module), "libc.so.6");
	assert_int_equal(b.total[0], a.total[0]);
	assert_int_equal(b.total[1], a.total[1]);
	ids[1].name = 1000;
	assert_int_equal(flame_add_stack_ids(&b, ids, 2, 1, 0), -EINVAL);
	assert_int_equal(flame_add_stack_ids(&b, ids, 1, 1, 2), -EINVAL);
	flame_release(&a);
	flame_release(&b);
}

static char *svg_of(const struct flame *f, const struct flame_svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(flame_write_svg(f, m, o), 0);
	fclose(m);
	return buf;
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static double width_of(const char *svg, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "<g class=\"f\"><title>%s\n", name);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, "width=\"");
	assert_non_null(p);
	return atof(p + 7);
}

static void test_svg(void **state)
{
	struct flame f;
	struct flame_svg_opts o = {.title = "T<&>", .width = 1020, .minwidth = 1};
	char *svg;

	assert_int_equal(flame_init(&f), 0);
	parse(&f, "main;a<b>&\"c 300\nmain;d\x01\xff 700\nmain;tiny 1\n", 0);
	svg = svg_of(&f, &o);
	assert_non_null(strstr(svg, ">T&lt;&amp;&gt;</text>"));
	assert_non_null(strstr(svg, "a&lt;b&gt;&amp;&quot;c"));
	assert_non_null(strstr(svg, "d??"));
	assert_null(strstr(svg, "\xff"));
	/* all, main, two frames: tiny is 1/1001 of 1000 px, under 1 px */
	assert_int_equal(count_of(svg, "<g class=\"f\">"), 4);
	assert_true(width_of(svg, "main") > 999 && width_of(svg, "main") <= 1000);
	assert_true(width_of(svg, "d??") > 699 * 1000.0 / 1001 - 0.01);
	assert_true(width_of(svg, "d??") < 700 * 1000.0 / 1001 + 0.01);
	assert_non_null(strstr(svg, "samples: 300 (29.97%)"));
	assert_non_null(strstr(svg, "</svg>\n"));
	free(svg);
	o.minwidth = 0;
	o.colors = "nope";
	{
		FILE *m = fopen("/dev/null", "w");

		assert_int_equal(flame_write_svg(&f, m, &o), -EINVAL);
		fclose(m);
	}
	flame_release(&f);
}

static void test_diff(void **state)
{
	struct flame f;
	struct flame_svg_opts o = {.diff = 1, .minwidth = 0};
	size_t bad = 0;
	char *svg;

	assert_int_equal(flame_init(&f), 0);
	assert_int_equal(flame_parse_folded(&f, "m;grew 80\nm;same 20\n", 19, 0, &bad), 0);
	assert_int_equal(flame_parse_folded(&f, "m;grew 50\nm;same 50\n", 19, 1, &bad), 0);
	assert_int_equal(f.nodes[at(&f, "m;grew")].value[1], 50);
	svg = svg_of(&f, &o);
	assert_non_null(strstr(svg, "before: 50 (50.00%), change: +30.00%"));
	assert_non_null(strstr(svg, "change: -30.00%"));
	free(svg);
	flame_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_tree), cmocka_unit_test(test_folded_kinds),
		cmocka_unit_test(test_folded_bad),  cmocka_unit_test(test_folded_prefix),
		cmocka_unit_test(test_reverse),	    cmocka_unit_test(test_ids),
		cmocka_unit_test(test_svg),	    cmocka_unit_test(test_diff),
		cmocka_unit_test(test_folded_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
