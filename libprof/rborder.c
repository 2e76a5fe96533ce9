/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Insertion order through a red-black tree: rebalancing as lib/rbtree.c's
 * __rb_insert() (the classic bottom-up fix-up), on indexes. */
#include <errno.h>
#include <stdlib.h>

#include "libprof/rborder.h"

#define NIL UINT32_MAX

struct rbnode {
	uint32_t left, right, parent;
	uint8_t red;
};

struct rbt {
	struct rbnode *n;
	uint32_t root;
};

/* Make child take old's place under old's parent. */
static void replace_child(struct rbt *t, uint32_t parent, uint32_t old, uint32_t child)
{
	if (parent == NIL)
		t->root = child;
	else if (t->n[parent].left == old)
		t->n[parent].left = child;
	else
		t->n[parent].right = child;
}

static void rotate_left(struct rbt *t, uint32_t x)
{
	uint32_t y = t->n[x].right;

	t->n[x].right = t->n[y].left;
	if (t->n[y].left != NIL)
		t->n[t->n[y].left].parent = x;
	t->n[y].parent = t->n[x].parent;
	replace_child(t, t->n[x].parent, x, y);
	t->n[y].left = x;
	t->n[x].parent = y;
}

static void rotate_right(struct rbt *t, uint32_t x)
{
	uint32_t y = t->n[x].left;

	t->n[x].left = t->n[y].right;
	if (t->n[y].right != NIL)
		t->n[t->n[y].right].parent = x;
	t->n[y].parent = t->n[x].parent;
	replace_child(t, t->n[x].parent, x, y);
	t->n[y].right = x;
	t->n[x].parent = y;
}

static void insert_color(struct rbt *t, uint32_t node)
{
	struct rbnode *n = t->n;

	for (;;) {
		uint32_t parent = n[node].parent, gparent, uncle;

		if (parent == NIL) { /* the root is black */
			n[node].red = 0;
			return;
		}
		if (!n[parent].red)
			return;
		gparent = n[parent].parent;
		if (parent == n[gparent].left) {
			uncle = n[gparent].right;
			if (uncle != NIL && n[uncle].red) { /* case 1: colour flips */
				n[uncle].red = n[parent].red = 0;
				n[gparent].red = 1;
				node = gparent;
				continue;
			}
			if (node == n[parent].right) { /* case 2: left rotate at parent */
				rotate_left(t, parent);
				node = parent;
				parent = n[node].parent;
			}
			/* case 3: right rotate at gparent */
			n[parent].red = 0;
			n[gparent].red = 1;
			rotate_right(t, gparent);
			return;
		}
		uncle = n[gparent].left;
		if (uncle != NIL && n[uncle].red) {
			n[uncle].red = n[parent].red = 0;
			n[gparent].red = 1;
			node = gparent;
			continue;
		}
		if (node == n[parent].left) {
			rotate_right(t, parent);
			node = parent;
			parent = n[node].parent;
		}
		n[parent].red = 0;
		n[gparent].red = 1;
		rotate_left(t, gparent);
		return;
	}
}

int rborder(size_t n, rborder_cmp_fn cmp, void *ctx, uint32_t *out)
{
	struct rbt t = {NULL, NIL};
	uint32_t i, at, parent, *stack;
	size_t k = 0, sp = 0;

	if (n >= NIL)
		return -E2BIG;
	if (!n)
		return 0;
	t.n = malloc(n * sizeof(*t.n));
	stack = malloc(n * sizeof(*stack));
	if (!t.n || !stack) {
		free(t.n);
		free(stack);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		int left = 0;

		parent = NIL;
		for (at = t.root; at != NIL; at = left ? t.n[at].left : t.n[at].right) {
			parent = at;
			left = cmp(i, at, ctx) < 0;
		}
		t.n[i] = (struct rbnode){NIL, NIL, parent, 1};
		if (parent == NIL)
			t.root = i;
		else if (left)
			t.n[parent].left = i;
		else
			t.n[parent].right = i;
		insert_color(&t, i);
	}
	/* in order, without recursion (the height is at most 2 log2 n) */
	for (at = t.root; at != NIL || sp;) {
		if (at != NIL) {
			stack[sp++] = at;
			at = t.n[at].left;
		} else {
			at = stack[--sp];
			out[k++] = at;
			at = t.n[at].right;
		}
	}
	free(stack);
	free(t.n);
	return 0;
}
