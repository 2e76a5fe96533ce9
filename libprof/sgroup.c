// SPDX-License-Identifier: GPL-2.0-or-later
/* Sample groups: a hash table over (stack, pid, tid, comm, epoch). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/sgroup.h"

void sgroups_init(struct sgroups *g)
{
	memset(g, 0, sizeof(*g));
}

void sgroups_release(struct sgroups *g)
{
	free(g->keys);
	zt_htab_release(&g->hash);
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

static inline uint64_t key_hash_at(const void *g, uint32_t i)
{
	return key_hash(&((const struct sgroups *)g)->keys[i]);
}

int sgroups_reserve(struct sgroups *g, size_t n)
{
	if (n <= g->nr)
		return 0;
	if (ZT_GROW(g->keys, g->cap, n) || zt_htab_reserve(&g->hash, n - g->nr, key_hash_at, g))
		return -ENOMEM;
	return 0;
}

int sgroups_find(struct sgroups *g, const struct sgroup_key *k, uint32_t *idx, int *is_new)
{
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&g->hash, 1, key_hash_at, g))
		return -ENOMEM;
	for (j = zt_htab_first(&g->hash, key_hash(k)); zt_htab_get(&g->hash, j, &i);
	     j = zt_htab_next(&g->hash, j)) {
		if (key_equal(&g->keys[i], k)) {
			*idx = i;
			*is_new = 0;
			return 0;
		}
	}
	if (g->nr >= UINT32_MAX - 1 || ZT_GROW(g->keys, g->cap, g->nr + 1))
		return -ENOMEM;
	g->keys[g->nr] = *k;
	zt_htab_set(&g->hash, j, (uint32_t)g->nr);
	*idx = (uint32_t)g->nr++;
	*is_new = 1;
	return 0;
}
