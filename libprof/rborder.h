/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The order a red-black tree gives items inserted one after another, as
 * the Linux kernel's rbtree (lib/rbtree.c) builds it: perf sorts its
 * report's entries so, with a comparison that is not always transitive
 * (its Children ties look at call depth only within a thread), and only
 * the same tree, built the same way, gives its order.
 */
#ifndef ZT_RBORDER_H
#define ZT_RBORDER_H

#include <stddef.h>
#include <stdint.h>

/* Compare item a (being inserted) with item b (in the tree): negative
 * goes left of b (before it), anything else right (after). */
typedef int (*rborder_cmp_fn)(uint32_t a, uint32_t b, void *ctx);

/* Insert items 0 .. n-1 in that order into a red-black tree (perf's
 * rb_link_node() + rb_insert_color() descent and rebalancing) and write
 * the tree's in-order sequence of them to out[0 .. n). 0 or -ENOMEM
 * (-E2BIG for n past UINT32_MAX - 1). */
int rborder(size_t n, rborder_cmp_fn cmp, void *ctx, uint32_t *out);

#endif
