/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one open-addressing hash table: an index over items the caller keeps
 * in its own array. A slot holds an item number + 1 (0: empty); the caller
 * gives each lookup its hash and tests candidates itself, so the equality
 * test is plain code in the caller's loop (inlined, no callback):
 *
 *	if (zt_htab_reserve(&t, 1, item_hash, ctx))
 *		return -ENOMEM;
 *	for (j = zt_htab_first(&t, hash); zt_htab_get(&t, j, &i); j = zt_htab_next(&t, j))
 *		if (equal(&items[i], key))
 *			return i;                       (found)
 *	items[nr] = the new item;
 *	zt_htab_set(&t, j, nr++);                      (j: the empty slot the probe ended on)
 *
 * Linear probing, the load kept at most 1/2. The items of a table are
 * 0, 1, ..., nr - 1: zt_htab_reserve() grows by indexing them again in that
 * order by item_hash(ctx, i), the hash the caller gives for item i (so
 * items need not store it, and growth reads the caller's array front to
 * back). A table of other numbers (string offsets, say) checks
 * zt_htab_room() itself and rebuilds with zt_htab_reset() and
 * zt_htab_add(). A table of structs ({key, value} memo entries, ...) is an
 * item array with such an index; zt_htab_clear() empties the index, the
 * caller its array.
 *
 * Items are numbered below UINT32_MAX. There is no removal. Embedded:
 * zt_htab_init / zt_htab_release (a zeroed struct is an empty table).
 */
#ifndef ZT_HTAB_H
#define ZT_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct zt_htab {
	uint32_t *slots; /* item + 1, 0 = empty; owned */
	size_t cap;      /* slots: 0, or a power of two */
	size_t nr;       /* items in the table */
};

/* The hash of item i, as given to the lookups (ctx: the caller's). */
typedef uint64_t zt_htab_hash_fn(const void *ctx, uint32_t i);

void zt_htab_init(struct zt_htab *t);
void zt_htab_release(struct zt_htab *t);
/* Empty t, keeping its slots for reuse. */
void zt_htab_clear(struct zt_htab *t);
/* Empty t, with room for n items (slots doubling from 64). 0, or -ENOMEM
 * with t unchanged. */
int zt_htab_reset(struct zt_htab *t, size_t n);

/* Whether n more items fit at a load of at most 1/2. */
static inline int zt_htab_room(const struct zt_htab *t, size_t n)
{
	return (t->nr + n) * 2 <= t->cap;
}

/* The first slot of the probe for hash h (t has slots: reserve first). */
static inline size_t zt_htab_first(const struct zt_htab *t, uint64_t h)
{
	return (size_t)h & (t->cap - 1);
}

/* The slot after j in the probe. */
static inline size_t zt_htab_next(const struct zt_htab *t, size_t j)
{
	return (j + 1) & (t->cap - 1);
}

/* Whether slot j holds an item; if so, the item in *i. */
static inline int zt_htab_get(const struct zt_htab *t, size_t j, uint32_t *i)
{
	uint32_t v = t->slots[j];

	*i = v - 1;
	return v != 0;
}

/* Put item i in slot j: the empty slot a probe (after zt_htab_reserve)
 * ended on. */
static inline void zt_htab_set(struct zt_htab *t, size_t j, uint32_t i)
{
	t->slots[j] = i + 1;
	t->nr++;
}

/* Put item i, known to be absent, under hash h (with room for it). */
static inline void zt_htab_add(struct zt_htab *t, uint64_t h, uint32_t i)
{
	size_t j;

	for (j = zt_htab_first(t, h); t->slots[j]; j = zt_htab_next(t, j))
		;
	zt_htab_set(t, j, i);
}

/*
 * Make room for n more items: when they do not fit, grow and index the
 * items 0 .. nr - 1 again by hash(ctx, i). Call it before the probe whose
 * empty slot is filled (growing moves items). 0, or -ENOMEM with t
 * unchanged. Inline, so that hash is inlined into the loop too: declare
 * it static inline (GCC leaves a plain static one out of line there).
 */
static inline int zt_htab_reserve(struct zt_htab *t, size_t n, zt_htab_hash_fn *hash,
				  const void *ctx)
{
	size_t nr = t->nr, i;
	int ret;

	if (zt_htab_room(t, n))
		return 0;
	ret = zt_htab_reset(t, nr + n);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++)
		zt_htab_add(t, hash(ctx, (uint32_t)i), (uint32_t)i);
	return 0;
}

#endif
