/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The open-addressing index of libprof/htab.h: growth and clearing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/htab.h"

#define HTAB_MIN_CAP 64

void zt_htab_init(struct zt_htab *t)
{
	memset(t, 0, sizeof(*t));
}

void zt_htab_release(struct zt_htab *t)
{
	free(t->slots);
	zt_htab_init(t);
}

void zt_htab_clear(struct zt_htab *t)
{
	if (t->nr)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->nr = 0;
}

int zt_htab_grow(struct zt_htab *t, size_t n, zt_htab_hash_fn *hash, const void *ctx)
{
	struct zt_htab g = { NULL, t->cap ? t->cap : HTAB_MIN_CAP, 0 };
	size_t j;

	if (t->nr + n < t->nr || t->nr + n > SIZE_MAX / 4)
		return -ENOMEM;
	while ((t->nr + n) * 2 > g.cap)
		g.cap *= 2;
	if (g.cap == t->cap)
		return 0;
	g.slots = calloc(g.cap, sizeof(*g.slots));
	if (!g.slots)
		return -ENOMEM;
	/* in slot order: neighbours stay neighbours, the new table is filled
	 * front to back */
	for (j = 0; j < t->cap; j++)
		if (t->slots[j])
			zt_htab_add(&g, hash(ctx, t->slots[j] - 1), t->slots[j] - 1);
	free(t->slots);
	*t = g;
	return 0;
}
