/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one string table: ids in first-seen order over strings kept in blocks that never move. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/strtab.h"

#define BLK_MIN (4u << 10)
#define BLK_MAX (1u << 20)

struct zt_strtab_blk {
	struct zt_strtab_blk *next;
	size_t size, used;
	char data[];
};

void zt_strtab_init(struct zt_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

static void free_blocks(struct zt_strtab_blk *b)
{
	while (b) {
		struct zt_strtab_blk *next = b->next;

		free(b);
		b = next;
	}
}

void zt_strtab_release(struct zt_strtab *t)
{
	free(t->ents);
	free_blocks(t->blk);
	zt_htab_release(&t->idx);
	memset(t, 0, sizeof(*t));
}

void zt_strtab_clear(struct zt_strtab *t)
{
	/* keep the newest (largest) block for the next strings */
	if (t->blk) {
		free_blocks(t->blk->next);
		t->blk->next = NULL;
		t->blk->used = 0;
	}
	t->nr = 0;
	zt_htab_clear(&t->idx);
}

/* Room for n bytes, in the newest block or a new one; NULL on ENOMEM. */
static char *alloc_bytes(struct zt_strtab *t, size_t n)
{
	struct zt_strtab_blk *b = t->blk;
	size_t size;

	if (b && b->size - b->used >= n) {
		b->used += n;
		return b->data + b->used - n;
	}
	size = b ? b->size * 2 : BLK_MIN;
	if (size > BLK_MAX)
		size = BLK_MAX;
	if (size < n)
		size = n;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->size = size;
	b->used = n;
	if (t->blk && n > BLK_MAX / 2) {
		/* a large string alone in its block: keep filling the newest one */
		b->next = t->blk->next;
		t->blk->next = b;
	} else {
		b->next = t->blk;
		t->blk = b;
	}
	return b->data;
}

static inline uint32_t bytes_hash(const char *s, size_t len)
{
	return (uint32_t)zt_hash_bytes(s, len);
}

static inline uint64_t ent_hash_at(const void *ctx, uint32_t i)
{
	return ((const struct zt_strtab *)ctx)->ents[i].hash;
}

int zt_strtab_intern(struct zt_strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint32_t h, i;
	size_t j;
	char *c;

	if (len >= UINT32_MAX)
		return -E2BIG;
	if (!len)
		s = ""; /* s may be NULL */
	h = bytes_hash(s, len);
	if (zt_htab_reserve(&t->idx, 1, ent_hash_at, t))
		return -ENOMEM;
	for (j = zt_htab_first(&t->idx, h); zt_htab_get(&t->idx, j, &i);
	     j = zt_htab_next(&t->idx, j)) {
		const struct zt_strtab_ent *e = &t->ents[i];

		if (e->hash == h && e->len == len && !memcmp(e->s, s, len)) {
			*id = i;
			return 0;
		}
	}
	if (t->nr >= UINT32_MAX - 1)
		return -E2BIG;
	if (ZT_GROW(t->ents, t->cap, t->nr + 1) || !(c = alloc_bytes(t, len + 1)))
		return -ENOMEM;
	if (len)
		memcpy(c, s, len);
	c[len] = '\0';
	t->ents[t->nr] = (struct zt_strtab_ent){c, (uint32_t)len, h};
	zt_htab_set(&t->idx, j, (uint32_t)t->nr);
	*id = (uint32_t)t->nr++;
	return 0;
}

int zt_strtab_intern_str(struct zt_strtab *t, const char *s, uint32_t *id)
{
	return zt_strtab_intern(t, s, strlen(s), id);
}

const char *zt_strtab_ptr(struct zt_strtab *t, const char *s)
{
	uint32_t id;
	int ret = zt_strtab_intern_str(t, s, &id);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	return t->ents[id].s;
}
