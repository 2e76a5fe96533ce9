/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Call-chain trees: one node store, children found through a (parent, key) hash. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/callchain.h"
#include "libprof/hash.h"
#include "libprof/htab.h"

void cc_init(struct callchains *c)
{
	memset(c, 0, sizeof(*c));
}

void cc_release(struct callchains *c)
{
	free(c->nodes);
	zt_htab_release(&c->hash);
	memset(c, 0, sizeof(*c));
}

static uint64_t node_hash(uint32_t parent, uint64_t key)
{
	return zt_hash_pair(key, parent);
}

/* A root is in the table under a hash of its own index (the table's
 * items are all the nodes; no lookup asks for a root). */
static inline uint64_t node_hash_at(const void *ctx, uint32_t i)
{
	const struct cc_node *n = &((const struct callchains *)ctx)->nodes[i];

	return n->parent == CC_NONE ? node_hash(CC_NONE, i) : node_hash(n->parent, n->key);
}

static int new_node(struct callchains *c, uint32_t parent, uint64_t key, uint32_t *out)
{
	struct cc_node *n;

	if (c->nr >= CC_NONE - 1 || ZT_GROW(c->nodes, c->cap, c->nr + 1))
		return -ENOMEM;
	n = &c->nodes[c->nr];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->parent = parent;
	n->child = n->next = CC_NONE;
	*out = (uint32_t)c->nr++;
	return 0;
}

int cc_new_root(struct callchains *c, uint32_t *root)
{
	if (zt_htab_reserve(&c->hash, 1, node_hash_at, c) || new_node(c, CC_NONE, 0, root))
		return -ENOMEM;
	zt_htab_add(&c->hash, node_hash(CC_NONE, *root), *root);
	return 0;
}

/* The child of parent with key, made (as the last child) when missing. */
static int child_of(struct callchains *c, uint32_t parent, uint64_t key, uint64_t order,
		    uint32_t *out)
{
	size_t j;
	uint32_t i;
	int ret;

	if (zt_htab_reserve(&c->hash, 1, node_hash_at, c))
		return -ENOMEM;
	for (j = zt_htab_first(&c->hash, node_hash(parent, key)); zt_htab_get(&c->hash, j, &i);
	     j = zt_htab_next(&c->hash, j)) {
		const struct cc_node *n = &c->nodes[i];

		if (n->parent == parent && n->key == key) {
			*out = i;
			return 0;
		}
	}
	ret = new_node(c, parent, key, &i);
	if (ret)
		return ret;
	c->nodes[i].order = order;
	zt_htab_set(&c->hash, j, i);
	/* prepended; node indexes keep the order of first appearance */
	c->nodes[i].next = c->nodes[parent].child;
	c->nodes[parent].child = i;
	c->nodes[parent].nr_children++;
	*out = i;
	return 0;
}

int cc_add(struct callchains *c, uint32_t root, const uint64_t *keys, const uint64_t *orders,
	   size_t n, uint64_t weight, uint64_t nr)
{
	uint32_t cur = root;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		c->nodes[cur].children_hit += weight;
		c->nodes[cur].children_count += nr;
		ret = child_of(c, cur, keys[i], orders ? orders[i] : 0, &cur);
		if (ret)
			return ret;
	}
	c->nodes[cur].hit += weight;
	c->nodes[cur].count += nr;
	return 0;
}

struct sort_item {
	uint64_t cumul, key, order;
	uint32_t idx;
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct sort_item *a = pa, *b = pb;

	if (a->cumul != b->cumul)
		return a->cumul > b->cumul ? -1 : 1;
	if (a->key >> 32 == b->key >> 32 && a->order != b->order)
		return a->order > b->order ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

long cc_sorted_children(const struct callchains *c, uint32_t node, uint64_t min_hit,
			uint32_t **out)
{
	const struct cc_node *p = &c->nodes[node];
	struct sort_item *items;
	uint32_t i, k = 0, *res;

	*out = NULL;
	if (!p->nr_children)
		return 0;
	items = malloc(p->nr_children * sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (i = p->child; i != CC_NONE; i = c->nodes[i].next) {
		uint64_t cu = cc_cumul(&c->nodes[i]);

		if (cu >= min_hit && cu)
			items[k++] = (struct sort_item){ cu, c->nodes[i].key, c->nodes[i].order, i };
	}
	if (!k) {
		free(items);
		return 0;
	}
	qsort(items, k, sizeof(*items), item_cmp);
	res = malloc(k * sizeof(*res));
	if (!res) {
		free(items);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++)
		res[i] = items[i].idx;
	free(items);
	*out = res;
	return (long)k;
}

size_t cc_run(const struct callchains *c, uint32_t node, uint32_t *last)
{
	size_t n = 1;

	while (!c->nodes[node].hit && c->nodes[node].nr_children == 1) {
		node = c->nodes[node].child;
		n++;
	}
	*last = node;
	return n;
}
