// SPDX-License-Identifier: GPL-2.0-or-later
/* The GPU frame table: resolved frames of PC-sampling buckets, strings interned. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/gpuframes.h"

void gpu_frametab_init(struct gpu_frametab *t)
{
	memset(t, 0, sizeof(*t));
	zt_strtab_init(&t->strs);
}

void gpu_frametab_release(struct gpu_frametab *t)
{
	zt_strtab_release(&t->strs);
	free(t->frames);
	free(t->pcs);
	free(t->cubins);
	memset(t, 0, sizeof(*t));
}

const char *gpu_frametab_str(struct gpu_frametab *t, const char *s)
{
	return zt_strtab_ptr(&t->strs, s);
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
