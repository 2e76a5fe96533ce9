/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Call-chain trees (perf's callchain_root): for each histogram entry, the
 * paths of the samples it counted, merged into a tree of frames. A node is
 * one frame; its hit is the weight of paths ending at it, its children_hit
 * the weight below it (perf's radix nodes are these nodes with single-child
 * runs merged, which cc_run() reproduces for display).
 *
 * All trees of one histogram share one node store. Frames are identified
 * by a 64-bit key chosen by the caller (hist uses module and function
 * string ids).
 */
#ifndef ZT_CALLCHAIN_H
#define ZT_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"

#define CC_NONE UINT32_MAX

struct cc_node {
	uint64_t key;
	uint64_t order; /* breaks ties between siblings: see cc_sorted_children() */
	uint32_t parent, child, next; /* a child, its next sibling (any order): CC_NONE at the end */
	uint32_t nr_children;
	uint64_t hit, children_hit;     /* weights: paths ending here, paths going below */
	uint64_t count, children_count; /* the same in samples */
};

struct callchains {
	struct cc_node *nodes;
	size_t nr, cap;
	struct zt_htab hash; /* (parent, key) -> node index */
};

void cc_init(struct callchains *c);
void cc_release(struct callchains *c);

/* A new empty tree; its root node (key 0, no frame) in *root. 0 or -ENOMEM. */
int cc_new_root(struct callchains *c, uint32_t *root);

/* Add a path of n frame keys (keys[0] next to the root) of nr samples
 * weighing weight; orders (or NULL) gives each new node its order value.
 * n == 0 counts at the root. 0 or -ENOMEM. */
int cc_add(struct callchains *c, uint32_t root, const uint64_t *keys, const uint64_t *orders,
	   size_t n, uint64_t weight, uint64_t nr);

static inline const struct cc_node *cc_node(const struct callchains *c, uint32_t i)
{
	return &c->nodes[i];
}

/* A node's weight with everything below it (perf's callchain_cumul_hits). */
static inline uint64_t cc_cumul(const struct cc_node *n)
{
	return n->hit + n->children_hit;
}
static inline uint64_t cc_cumul_count(const struct cc_node *n)
{
	return n->count + n->children_count;
}

/*
 * The children of node whose cumulative weight is at least min_hit, most
 * weight first; equal weights: of two keys with the same upper 32 bits (one
 * module), the higher order first (perf orders a module's functions by
 * address, highest first), else in order of first appearance; into *out
 * (malloc'ed, the caller frees; NULL when none). Returns how many, or
 * -ENOMEM.
 */
long cc_sorted_children(const struct callchains *c, uint32_t node, uint64_t min_hit,
			uint32_t **out);

/*
 * The run of frames perf shows as one node from node on: node, then while
 * the current node has no hit of its own and exactly one child, that
 * child. Returns the run's length (>= 1) and its last node in *last;
 * the nodes are node, its only child, ... (follow .child).
 */
size_t cc_run(const struct callchains *c, uint32_t node, uint32_t *last);

#endif
