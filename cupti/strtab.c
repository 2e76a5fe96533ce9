/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interned strings in append-only blocks (see strtab.h). */
#include <stdlib.h>
#include <string.h>

#include "cupti/strtab.h"
#include "libprof/hash.h"

#define BLK_SIZE (64u << 10)

struct zc_strblk {
	struct zc_strblk *next;
	size_t size;
	char data[];
};

void zc_strtab_init(struct zc_strtab *t, struct zc_mem *mem)
{
	memset(t, 0, sizeof(*t));
	t->mem = mem;
	zt_htab_init(&t->idx);
}

void zc_strtab_release(struct zc_strtab *t)
{
	struct zc_strblk *b, *next;

	for (b = t->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t->ents);
	zt_htab_release(&t->idx);
	zc_mem_give(t->mem, t->taken);
	zc_strtab_init(t, t->mem);
}

size_t zc_htab_grow_bytes(const struct zt_htab *t, size_t n)
{
	size_t cap = 64;

	if (zt_htab_room(t, n))
		return 0;
	while ((t->nr + n) * 2 > cap)
		cap *= 2;
	return cap > t->cap ? (cap - t->cap) * sizeof(uint32_t) : 0;
}

static uint64_t str_hash(const char *s, size_t len)
{
	return zt_hash_bytes(s, len);
}

static inline uint64_t ent_hash(const void *ctx, uint32_t i)
{
	const struct zc_strtab *t = ctx;

	return t->ents[i].hash;
}

/* room for n bytes in the newest block: a pointer, or NULL */
static char *blk_alloc(struct zc_strtab *t, size_t n)
{
	struct zc_strblk *b;
	size_t size;

	if (t->blocks && t->blk_cap - t->blk_used >= n) {
		char *p = t->blocks->data + t->blk_used;

		t->blk_used += n;
		return p;
	}
	size = n > BLK_SIZE ? n : BLK_SIZE;
	if (!zc_mem_take(t->mem, sizeof(*b) + size))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b) {
		zc_mem_give(t->mem, sizeof(*b) + size);
		return NULL;
	}
	t->taken += sizeof(*b) + size;
	b->size = size;
	b->next = t->blocks;
	t->blocks = b;
	t->blk_cap = size;
	t->blk_used = n;
	return b->data;
}

const char *zc_strtab_intern(struct zc_strtab *t, const char *s, size_t len)
{
	uint64_t h;
	size_t j, grow;
	uint32_t i;
	char *p;

	if (len > UINT32_MAX - 1)
		return NULL;
	h = str_hash(s, len);
	if (t->idx.cap) {
		for (j = zt_htab_first(&t->idx, h); zt_htab_get(&t->idx, j, &i);
		     j = zt_htab_next(&t->idx, j))
			if (t->ents[i].hash == h && t->ents[i].len == len &&
			    memcmp(t->ents[i].s, s, len) == 0)
				return t->ents[i].s;
	}
	if (t->nr >= UINT32_MAX - 1)
		return NULL;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct zc_str *e;

		if (!zc_mem_take(t->mem, (cap - t->cap) * sizeof(*e)))
			return NULL;
		e = realloc(t->ents, cap * sizeof(*e));
		if (!e) {
			zc_mem_give(t->mem, (cap - t->cap) * sizeof(*e));
			return NULL;
		}
		t->taken += (cap - t->cap) * sizeof(*e);
		t->ents = e;
		t->cap = cap;
	}
	grow = zc_htab_grow_bytes(&t->idx, 1);
	if (grow && !zc_mem_take(t->mem, grow))
		return NULL;
	if (zt_htab_reserve(&t->idx, 1, ent_hash, t)) {
		zc_mem_give(t->mem, grow);
		return NULL;
	}
	t->taken += grow;
	p = blk_alloc(t, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = 0;
	t->ents[t->nr] = (struct zc_str){p, (uint32_t)len, h};
	zt_htab_add(&t->idx, h, (uint32_t)t->nr);
	t->nr++;
	return p;
}
