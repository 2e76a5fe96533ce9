/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PC-sampling aggregation (see pcagg.h). */
#include <stdlib.h>
#include <string.h>

#include "cupti/pcagg.h"
#include "cupti/zgw.h"
#include "libprof/hash.h"

void zc_pcagg_init(struct zc_pcagg *a, struct zc_mem *mem)
{
	memset(a, 0, sizeof(*a));
	a->mem = mem;
	zc_strtab_init(&a->names, mem);
	zt_htab_init(&a->idx);
}

void zc_pcagg_release(struct zc_pcagg *a)
{
	free(a->b);
	zt_htab_release(&a->idx);
	zc_mem_give(a->mem, a->taken);
	zc_strtab_release(&a->names);
	zc_pcagg_init(a, a->mem);
}

static inline uint64_t key_hash(const struct zc_pcs_key *k)
{
	uint64_t h = k->crc * 0x9e3779b97f4a7c15ull;

	h ^= k->pc * 0xc2b2ae3d27d4eb4full;
	h ^= (((uint64_t)k->fn << 32) | k->stall) * 0x165667b19e3779f9ull;
	h ^= (((uint64_t)k->corr << 32) | k->ctx) * 0xd6e8feb86659fd93ull;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

static inline int key_eq(const struct zc_pcs_key *a, const struct zc_pcs_key *b)
{
	return a->crc == b->crc && a->pc == b->pc && a->fn == b->fn && a->stall == b->stall &&
	       a->corr == b->corr && a->ctx == b->ctx;
}

static inline uint64_t bucket_hash(const void *ctx, uint32_t i)
{
	const struct zc_pcagg *a = ctx;

	return a->b[i].hash;
}

/* the interned name of (crc, fn), through a small cache */
static const char *fn_name(struct zc_pcagg *a, const struct zc_pcs_pc *pc, uint32_t *len)
{
	struct zc_pcs_name *c;
	size_t n;

	if (!pc->name)
		return NULL;
	c = &a->cache[zt_hash_pair(pc->crc, pc->fn) & (ZC_PCAGG_NAME_CACHE - 1)];
	if (c->s && c->crc == pc->crc && c->fn == pc->fn) {
		*len = c->len;
		return c->s;
	}
	n = strnlen(pc->name, ZGW_STR_MAX);
	c->s = zc_strtab_intern(&a->names, pc->name, n);
	if (!c->s)
		return NULL;
	c->crc = pc->crc;
	c->fn = pc->fn;
	c->len = (uint32_t)n;
	*len = c->len;
	return c->s;
}

/* room for one more bucket: 0, or -1 at the cap */
static int grow(struct zc_pcagg *a)
{
	size_t g;

	if (a->nr == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		size_t more = (cap - a->cap) * sizeof(*a->b);
		struct zc_pcs_bucket *b;

		if (!zc_mem_take(a->mem, more))
			return -1;
		b = realloc(a->b, cap * sizeof(*b));
		if (!b) {
			zc_mem_give(a->mem, more);
			return -1;
		}
		a->taken += more;
		a->b = b;
		a->cap = cap;
	}
	g = zc_htab_grow_bytes(&a->idx, 1);
	if (g) {
		if (!zc_mem_take(a->mem, g))
			return -1;
		if (zt_htab_reserve(&a->idx, 1, bucket_hash, a)) {
			zc_mem_give(a->mem, g);
			return -1;
		}
		a->taken += g;
	}
	return 0;
}

size_t zc_pcagg_add(struct zc_pcagg *a, const struct zc_pcs_pc *pc, const uint32_t *pairs, size_t n)
{
	struct zc_pcs_key k = {pc->crc, pc->pc, pc->fn, 0, pc->corr, pc->ctx};
	const char *name = NULL;
	uint32_t name_len = 0, i;
	size_t dropped = 0, s, j;
	int named = 0;

	for (s = 0; s < n; s++) {
		uint32_t samples = pairs[2 * s + 1];
		uint64_t h;

		if (!samples)
			continue;
		k.stall = pairs[2 * s];
		h = key_hash(&k);
		if (a->idx.cap) {
			for (j = zt_htab_first(&a->idx, h); zt_htab_get(&a->idx, j, &i);
			     j = zt_htab_next(&a->idx, j))
				if (a->b[i].hash == h && key_eq(&a->b[i].k, &k))
					goto found;
		}
		if (a->nr >= UINT32_MAX - 1 || grow(a)) {
			dropped++;
			continue;
		}
		if (!named) {
			name = fn_name(a, pc, &name_len);
			named = 1;
		}
		i = (uint32_t)a->nr++;
		a->b[i] = (struct zc_pcs_bucket){
			.k = k, .hash = h, .name = name, .name_len = name ? name_len : 0};
		zt_htab_add(&a->idx, h, i);
	found:
		a->b[i].samples += samples;
	}
	a->dropped += dropped;
	return dropped;
}

void zc_pcagg_take(struct zc_pcagg *a, struct zc_pcs_batch *out)
{
	out->b = a->b;
	out->nr = a->nr;
	out->taken = a->cap * sizeof(*a->b);
	out->mem = a->mem;
	a->taken -= out->taken;
	a->b = NULL;
	a->nr = a->cap = 0;
	zt_htab_clear(&a->idx);
}

void zc_pcagg_batch_free(struct zc_pcs_batch *b)
{
	free(b->b);
	if (b->mem)
		zc_mem_give(b->mem, b->taken);
	memset(b, 0, sizeof(*b));
}
