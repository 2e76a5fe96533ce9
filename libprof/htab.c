/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The open-addressing index of libprof/htab.h: allocation and clearing. */
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

int zt_htab_reset(struct zt_htab *t, size_t n)
{
	size_t cap = HTAB_MIN_CAP;
	uint32_t *slots;

	if (n > SIZE_MAX / 4)
		return -ENOMEM;
	while (n * 2 > cap)
		cap *= 2;
	if (cap == t->cap) {
		zt_htab_clear(t);
		return 0;
	}
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(t->slots);
	*t = (struct zt_htab){ slots, cap, 0 };
	return 0;
}
