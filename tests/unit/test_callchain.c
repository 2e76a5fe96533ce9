/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callchain: the node store (merging, hits, order of equal siblings, the
 * min-hit cut, perf's merged runs), and hist's call chains per entry by
 * perf's rules in caller and callee order, with recursion and inlined
 * frames.
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

#include "libprof/callchain.h"
#include "libprof/hist.h"

static void test_tree(void **state)
{
	struct callchains c;
	uint32_t root, *kids, last;
	const uint64_t ab[] = { 1, 2 }, abc[] = { 1, 2, 3 }, abd[] = { 1, 2, 4 }, e[] = { 5 };
	long n;

	(void)state;
	cc_init(&c);
	assert_int_equal(cc_new_root(&c, &root), 0);
	assert_int_equal(cc_add(&c, root, abc, NULL, 3, 10, 1), 0);
	assert_int_equal(cc_add(&c, root, abd, NULL, 3, 30, 3), 0);
	assert_int_equal(cc_add(&c, root, ab, NULL, 2, 5, 1), 0);
	assert_int_equal(cc_add(&c, root, e, NULL, 1, 30, 2), 0);
	assert_int_equal(cc_node(&c, root)->children_hit, 75);
	/* two roots of equal weight: in order of first appearance */
	n = cc_sorted_children(&c, root, 0, &kids);
	assert_int_equal(n, 2);
	assert_int_equal(cc_node(&c, kids[0])->key, 1);
	assert_int_equal(cc_cumul(cc_node(&c, kids[0])), 45);
	assert_int_equal(cc_cumul_count(cc_node(&c, kids[0])), 5);
	assert_int_equal(cc_node(&c, kids[1])->key, 5);
	/* 1 -> 2 is one run (1 has no hits, one child); 2 has hits: the run ends */
	assert_int_equal(cc_run(&c, kids[0], &last), 2);
	assert_int_equal(cc_node(&c, last)->key, 2);
	assert_int_equal(cc_node(&c, last)->hit, 5);
	free(kids);
	n = cc_sorted_children(&c, last, 0, &kids);
	assert_int_equal(n, 2);
	assert_int_equal(cc_node(&c, kids[0])->key, 4); /* 30 before 10 */
	assert_int_equal(cc_node(&c, kids[1])->key, 3);
	free(kids);
	/* the cut: only branches of at least min_hit */
	n = cc_sorted_children(&c, last, 11, &kids);
	assert_int_equal(n, 1);
	free(kids);
	n = cc_sorted_children(&c, last, 31, &kids);
	assert_int_equal(n, 0);
	assert_null(kids);
	cc_release(&c);
}

static void test_many_nodes(void **state)
{
	struct callchains c;
	uint32_t root, *kids;
	uint64_t k[3];
	long n;

	(void)state;
	cc_init(&c);
	assert_int_equal(cc_new_root(&c, &root), 0);
	for (uint64_t i = 0; i < 20000; i++) { /* a wide level, through rehashes */
		k[0] = 7;
		k[1] = i;
		k[2] = i % 3;
		assert_int_equal(cc_add(&c, root, k, NULL, 3, i + 1, 1), 0);
	}
	assert_int_equal(c.nr, 1 + 1 + 20000 + 20000);
	n = cc_sorted_children(&c, 1, 0, &kids);
	assert_int_equal(n, 20000);
	assert_int_equal(cc_node(&c, kids[0])->key, 19999);
	assert_int_equal(cc_node(&c, kids[n - 1])->key, 0);
	free(kids);
	cc_release(&c);
}

/* Frames named by sym ids: interned "f0".."f9" in dso "m". */
static struct hist_frame fr(struct hist *h, const char *sym)
{
	struct hist_frame f = { .pid = 1 };

	assert_int_equal(hist_intern(h, "prog", &f.comm), 0);
	assert_int_equal(hist_intern(h, "m", &f.dso), 0);
	assert_int_equal(hist_intern(h, sym, &f.sym), 0);
	f.inlined = strstr(sym, "(inlined)") != NULL;
	return f;
}

static const struct hist_entry *entry(const struct hist *h, const char *sym)
{
	for (size_t i = 0; i < h->nr_entries; i++)
		if (!strcmp(hist_str(h, h->entries[i].f.sym), sym))
			return &h->entries[i];
	return NULL;
}

/* The entry's chain paths as "a>b>c:hits" lines (every node with hits),
 * depth first in sorted order, into buf. */
static void paths(const struct hist *h, uint32_t node, char *prefix, char *buf, size_t n)
{
	uint32_t *kids;
	long k = cc_sorted_children(&h->cc, node, 0, &kids);
	size_t plen = strlen(prefix);

	for (long i = 0; i < k; i++) {
		const struct cc_node *c = cc_node(&h->cc, kids[i]);

		snprintf(prefix + plen, 256 - plen, "%s%s", plen ? ">" : "",
			 hist_str(h, hist_chain_key_sym(c->key)));
		if (c->hit)
			snprintf(buf + strlen(buf), n - strlen(buf), "%s:%llu ", prefix,
				 (unsigned long long)c->hit);
		paths(h, kids[i], prefix, buf, n);
		prefix[plen] = 0;
	}
	free(kids);
}

static const char *chains_of(const struct hist *h, const char *sym)
{
	static char buf[1024];
	char prefix[256] = "";
	const struct hist_entry *e = entry(h, sym);

	buf[0] = 0;
	assert_non_null(e);
	assert_int_not_equal(e->chain, CC_NONE);
	paths(h, e->chain, prefix, buf, sizeof(buf));
	return buf;
}

/* Samples main>a>leaf (x3) and main>b>a>leaf (x1), leaf first in frames. */
static void add_samples(struct hist *h)
{
	struct hist_frame s1[] = { fr(h, "leaf"), fr(h, "a"), fr(h, "main") };
	struct hist_frame s2[] = { fr(h, "leaf"), fr(h, "a"), fr(h, "b"), fr(h, "main") };

	assert_int_equal(hist_add_sample(h, s1, 3, 3, 3), 0);
	assert_int_equal(hist_add_sample(h, s2, 4, 1, 1), 0);
}

static void test_caller_children(void **state)
{
	struct hist h;
	struct hist_opts o = { 1, HIST_CHAIN_CALLER };

	(void)state;
	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	add_samples(&h);
	/* perf: the leaf gets the whole stack, outermost first; every other
	 * entry its part from itself down to the leaf */
	assert_string_equal(chains_of(&h, "leaf"), "main>a>leaf:3 main>b>a>leaf:1 ");
	assert_string_equal(chains_of(&h, "main"), "main>a>leaf:3 main>b>a>leaf:1 ");
	assert_string_equal(chains_of(&h, "a"), "a>leaf:4 ");
	assert_string_equal(chains_of(&h, "b"), "b>a>leaf:1 ");
	assert_int_equal(entry(&h, "a")->children, 4);
	assert_int_equal(entry(&h, "a")->self, 0);
	hist_release(&h);
}

/* --max-stack 2 in caller order (perf): the chain is the outermost two
 * frames, the leaf's own frame outside it (hist_frame.outside) */
static void test_caller_outside(void **state)
{
	struct hist h;
	struct hist_opts o = { 1, HIST_CHAIN_CALLER };
	struct hist_frame s[3];

	(void)state;
	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	s[0] = fr(&h, "leaf");
	s[1] = fr(&h, "b");
	s[2] = fr(&h, "main");
	s[0].outside = 1;
	assert_int_equal(hist_add_sample(&h, s, 3, 2, 2), 0);
	assert_string_equal(chains_of(&h, "leaf"), "main>b:2 ");
	assert_string_equal(chains_of(&h, "main"), "main>b:2 ");
	assert_string_equal(chains_of(&h, "b"), "b:2 ");
	assert_int_equal(entry(&h, "leaf")->self, 2);
	assert_int_equal(entry(&h, "leaf")->children, 2);
	assert_int_equal(entry(&h, "main")->children, 2);
	assert_int_equal(entry(&h, "main")->self, 0);
	hist_release(&h);
}

static void test_callee_and_self_only(void **state)
{
	struct hist h;
	struct hist_opts o = { 1, HIST_CHAIN_CALLEE };

	(void)state;
	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	add_samples(&h);
	/* callee order: each entry's callers up to the outermost frame */
	assert_string_equal(chains_of(&h, "leaf"), "leaf>a>main:3 leaf>a>b>main:1 ");
	assert_string_equal(chains_of(&h, "a"), "a>main:3 a>b>main:1 ");
	assert_string_equal(chains_of(&h, "main"), "main:4 ");
	hist_release(&h);
	/* without children: only the leaf's entry has a chain */
	o.children = 0;
	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	add_samples(&h);
	assert_string_equal(chains_of(&h, "leaf"), "leaf>a>main:3 leaf>a>b>main:1 ");
	assert_string_equal(chains_of(&h, "a"), "");
	hist_release(&h);
	/* no chains asked: none kept */
	assert_int_equal(hist_init(&h, NULL, 0), 0);
	add_samples(&h);
	assert_int_equal(entry(&h, "leaf")->chain, CC_NONE);
	assert_int_equal(h.cc.nr, 0);
	hist_release(&h);
}

static void test_recursion_and_inline(void **state)
{
	struct hist h;
	struct hist_opts o = { 1, HIST_CHAIN_CALLER };
	char buf[64];

	(void)state;
	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	{
		/* main > r > r > leaf: r counted once in Children; its chain from
		 * its outermost place */
		struct hist_frame s[] = { fr(&h, "leaf"), fr(&h, "r"), fr(&h, "r"), fr(&h, "main") };

		assert_int_equal(hist_add_sample(&h, s, 4, 2, 2), 0);
	}
	assert_int_equal(entry(&h, "r")->children, 2);
	assert_string_equal(chains_of(&h, "r"), "r>r>leaf:2 ");
	hist_release(&h);

	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	{
		/* an inlined function at the leaf: Self goes to the function it
		 * is inlined into (perf's sample symbol) */
		struct hist_frame s[] = { fr(&h, "in (inlined)"), fr(&h, "f"), fr(&h, "main") };

		assert_int_equal(hist_add_sample(&h, s, 3, 5, 5), 0);
	}
	assert_int_equal(entry(&h, "f")->self, 5);
	assert_int_equal(entry(&h, "in (inlined)")->self, 0);
	assert_int_equal(entry(&h, "in (inlined)")->children, 5);
	snprintf(buf, sizeof(buf), "%s", chains_of(&h, "f"));
	assert_string_equal(buf, "main>f>in (inlined):5 ");
	hist_release(&h);
}

static void test_reset_keeps_strings(void **state)
{
	struct hist h;
	struct hist_opts o = { 1, HIST_CHAIN_CALLEE };
	enum hist_key k[] = { HIST_KEY_SYM };
	uint32_t id;

	(void)state;
	assert_int_equal(hist_init_opts(&h, NULL, 0, &o), 0);
	add_samples(&h);
	assert_int_equal(hist_intern(&h, "leaf", &id), 0);
	assert_int_equal(hist_reset(&h, k, 1, NULL), 0);
	assert_int_equal(h.nr_entries, 0);
	assert_int_equal(h.total, 0);
	assert_string_equal(hist_str(&h, id), "leaf");
	add_samples(&h);
	assert_int_equal(h.nr_entries, 4);
	assert_int_equal(entry(&h, "leaf")->chain, CC_NONE);
	hist_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_many_nodes),
		cmocka_unit_test(test_caller_children),
		cmocka_unit_test(test_callee_and_self_only),
		cmocka_unit_test(test_caller_outside),
		cmocka_unit_test(test_recursion_and_inline),
		cmocka_unit_test(test_reset_keeps_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
