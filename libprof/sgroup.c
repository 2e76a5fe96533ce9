// SPDX-License-Identifier: GPL-2.0-or-later
/* Sample groups: a hash table over (stack, pid, tid, comm, epoch). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/sgroup.h"

void sgroups_init(struct sgroups *g)
{
	memset(g, 0, sizeof(*g));
}

void sgroups_release(struct sgroups *g)
{
	free(g->keys);
	free(g->hash);
	sgroups_init(g);
}

static uint64_t key_hash(const struct sgroup_key *k)
{
	return zt_hash_mix(zt_hash_mix(zt_hash_mix(zt_hash_mix(0x9e3779b97f4a7c15ull, k->stack),
						   k->pid | (uint64_t)k->tid << 32),
				       (uintptr_t)k->comm),
			   k->epoch);
}

static int key_equal(const struct sgroup_key *a, const struct sgroup_key *b)
{
	return a->stack == b->stack && a->pid == b->pid && a->tid == b->tid && a->comm == b->comm &&
	       a->epoch == b->epoch;
}

static int rehash(struct sgroups *g)
{
	size_t ncap = g->hash_cap ? g->hash_cap * 2 : 4096, i;
	uint32_t *t = calloc(ncap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < g->nr; i++) {
		size_t j = key_hash(&g->keys[i]) & (ncap - 1);

		while (t[j])
			j = (j + 1) & (ncap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(g->hash);
	g->hash = t;
	g->hash_cap = ncap;
	return 0;
}

int sgroups_find(struct sgroups *g, const struct sgroup_key *k, uint32_t *idx, int *is_new)
{
	size_t j;

	if ((g->nr + 1) * 2 > g->hash_cap && rehash(g))
		return -ENOMEM;
	j = key_hash(k) & (g->hash_cap - 1);
	while (g->hash[j]) {
		if (key_equal(&g->keys[g->hash[j] - 1], k)) {
			*idx = g->hash[j] - 1;
			*is_new = 0;
			return 0;
		}
		j = (j + 1) & (g->hash_cap - 1);
	}
	if (g->nr >= UINT32_MAX - 1 || ZT_GROW(g->keys, g->cap, g->nr + 1))
		return -ENOMEM;
	g->keys[g->nr] = *k;
	g->hash[j] = (uint32_t)g->nr + 1;
	*idx = (uint32_t)g->nr++;
	*is_new = 1;
	return 0;
}
