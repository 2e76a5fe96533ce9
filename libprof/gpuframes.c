// SPDX-License-Identifier: GPL-2.0-or-later
/* The GPU frame table: resolved frames of PC-sampling buckets, strings interned. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/gpuframes.h"
#include "libprof/hash.h"

void gpu_frametab_init(struct gpu_frametab *t)
{
	memset(t, 0, sizeof(*t));
	zt_htab_init(&t->str_hash);
}

void gpu_frametab_release(struct gpu_frametab *t)
{
	size_t i;

	for (i = 0; i < t->nr_strs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->frames);
	free(t->pcs);
	free(t->cubins);
	zt_htab_release(&t->str_hash);
	memset(t, 0, sizeof(*t));
}

static inline uint64_t str_hash(const void *ctx, uint32_t i)
{
	const struct gpu_frametab *t = ctx;

	return zt_hash_str(t->strs[i]);
}

const char *gpu_frametab_str(struct gpu_frametab *t, const char *s)
{
	uint64_t h = zt_hash_str(s);
	uint32_t i;
	size_t j;
	char *c;

	if (t->nr_strs >= UINT32_MAX - 1 || zt_htab_reserve(&t->str_hash, 1, str_hash, t))
		return NULL;
	for (j = zt_htab_first(&t->str_hash, h); zt_htab_get(&t->str_hash, j, &i);
	     j = zt_htab_next(&t->str_hash, j))
		if (!strcmp(t->strs[i], s))
			return t->strs[i];
	if (ZT_GROW(t->strs, t->cap_strs, t->nr_strs + 1))
		return NULL;
	c = strdup(s);
	if (!c)
		return NULL;
	t->strs[t->nr_strs] = c;
	zt_htab_set(&t->str_hash, j, (uint32_t)t->nr_strs++);
	return c;
}

int gpu_frametab_push(struct gpu_frametab *t, const struct gpu_frame *f)
{
	if (t->nr_frames >= UINT32_MAX - 1)
		return -E2BIG;
	if (ZT_GROW(t->frames, t->cap_frames, t->nr_frames + 1))
		return -ENOMEM;
	t->frames[t->nr_frames++] = *f;
	return 0;
}

int gpu_frametab_set_pcs(struct gpu_frametab *t, size_t n)
{
	struct gpu_frange *p = NULL;

	if (n) {
		p = calloc(n, sizeof(*p));
		if (!p)
			return -ENOMEM;
	}
	free(t->pcs);
	t->pcs = p;
	t->nr_pcs = n;
	return 0;
}

int gpu_frametab_add_cubin(struct gpu_frametab *t, uint64_t crc, int quality, const char *why)
{
	struct gpu_cubin_note *c;

	if (ZT_GROW(t->cubins, t->cap_cubins, t->nr_cubins + 1))
		return -ENOMEM;
	c = &t->cubins[t->nr_cubins];
	c->crc = crc;
	c->quality = (uint8_t)quality;
	c->why = NULL;
	if (why && !(c->why = gpu_frametab_str(t, why)))
		return -ENOMEM;
	t->nr_cubins++;
	return 0;
}

const struct gpu_frame *gpu_frametab_pc(const struct gpu_frametab *t, size_t i, uint32_t *n)
{
	if (i >= t->nr_pcs || !t->pcs[i].n) {
		*n = 0;
		return NULL;
	}
	*n = t->pcs[i].n;
	return &t->frames[t->pcs[i].first];
}

char *gpu_frame_srcline(const struct gpu_frame *f, char *buf, size_t n)
{
	const char *b;

	if (!f->file || !f->line) {
		snprintf(buf, n, "??:0");
		return buf;
	}
	b = strrchr(f->file, '/');
	snprintf(buf, n, "%s:%u", b ? b + 1 : f->file, f->line);
	return buf;
}
