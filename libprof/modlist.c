/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A recording's modules: build ids and hits (perf buildid-list). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/modlist.h"

#define KERNEL_NAME "[kernel.kallsyms]"

struct mbuild {
	struct modlist *l;
	struct zt_htab index; /* path -> entry */
};

static uint64_t entry_hash(const void *ctx, uint32_t i)
{
	const struct mbuild *b = ctx;

	return zt_hash_str(b->l->e[i].path);
}

/* The entry of path (added when new), or NULL on -ENOMEM. */
static struct modlist_entry *entry_of(struct mbuild *b, const char *path)
{
	struct modlist *l = b->l;
	uint64_t h = zt_hash_str(path);
	uint32_t i;
	size_t j;

	if (zt_htab_reserve(&b->index, 1, entry_hash, b))
		return NULL;
	for (j = zt_htab_first(&b->index, h); zt_htab_get(&b->index, j, &i);
	     j = zt_htab_next(&b->index, j))
		if (!strcmp(l->e[i].path, path))
			return &l->e[i];
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct modlist_entry *n;

		if (cap > SIZE_MAX / sizeof(*n))
			return NULL;
		n = realloc(l->e, cap * sizeof(*n));
		if (!n)
			return NULL;
		l->e = n;
		l->cap = cap;
	}
	memset(&l->e[l->nr], 0, sizeof(l->e[0]));
	l->e[l->nr].path = path;
	zt_htab_set(&b->index, j, (uint32_t)l->nr);
	return &l->e[l->nr++];
}

static int has_kernel(const struct profile *p)
{
	size_t i;

	if (profile_find_blob(p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX))
		return 1;
	for (i = 0; i < p->nr_mmaps; i++)
		if (p->mmaps[i].pid == ZT_PID_KERNEL)
			return 1;
	for (i = 0; i < p->nr_samples; i++)
		if (p->samples[i].stack < p->nr_stacks && p->stacks[p->samples[i].stack].nk)
			return 1;
	return 0;
}

/* Mark the module of each sample's own address. */
static int mark_hits(struct mbuild *b, const struct profile *p, const struct proctree *pt,
		     int have_kernel)
{
	size_t i;

	for (i = 0; i < p->nr_samples; i++) {
		const struct prof_sample *s = &p->samples[i];
		const struct prof_stack *st;
		const struct prof_mmap *m;
		struct modlist_entry *e;
		uint64_t ip;

		if (s->stack >= p->nr_stacks)
			continue;
		st = &p->stacks[s->stack];
		if (!st->nk && !st->nu)
			continue;
		ip = profile_stack_ips(p, s->stack)[0];
		m = proctree_map(pt, st->nk ? ZT_PID_KERNEL : s->pid, s->ts, ip);
		/* the kernel is entry 0 (entry_of() may move the entries) */
		if (!m) {
			if (st->nk && have_kernel)
				b->l->e[0].hit = 1;
			continue;
		}
		if (m->pid == ZT_PID_KERNEL && !strcmp(m->path, KERNEL_NAME) && have_kernel) {
			b->l->e[0].hit = 1;
			continue;
		}
		if (!(e = entry_of(b, m->path)))
			return -ENOMEM;
		e->hit = 1;
	}
	return 0;
}

static int by_time(const void *a, const void *b, void *ctx)
{
	const struct profile *p = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t tx = p->mmaps[x].ts, ty = p->mmaps[y].ts;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

int modlist_build(struct modlist *l, const struct rstacks *rs)
{
	const struct profile *p = rs->prof;
	const struct proctree *pt = rs->pt;
	size_t *order = NULL;
	struct mbuild b = {.l = l};
	struct modlist_entry *kernel;
	int have_kernel = has_kernel(p);
	size_t i;
	int ret = -ENOMEM;

	zt_htab_init(&b.index);
	if (have_kernel) {
		const struct prof_blob *kb =
			profile_find_blob(p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX);

		if (!(kernel = entry_of(&b, KERNEL_NAME)))
			goto out;
		if (kb && kb->len <= ZT_BUILD_ID_MAX) {
			kernel->bid.len = (uint8_t)kb->len;
			memcpy(kernel->bid.data, kb->data, kb->len);
		}
	}
	/* perf makes its dsos as it meets the mappings, in time order */
	if (!(order = malloc((p->nr_mmaps ? p->nr_mmaps : 1) * sizeof(*order))))
		goto out;
	for (i = 0; i < p->nr_mmaps; i++)
		order[i] = i;
	qsort_r(order, p->nr_mmaps, sizeof(*order), by_time, (void *)p);
	for (i = 0; i < p->nr_mmaps; i++) {
		const struct prof_mmap *m = &p->mmaps[order[i]];
		struct modlist_entry *e;

		if (m->pid == ZT_PID_KERNEL && !strcmp(m->path, KERNEL_NAME))
			continue;
		if (!(e = entry_of(&b, m->path)))
			goto out;
		if (!e->bid.len)
			e->bid = m->build_id;
	}
	ret = mark_hits(&b, p, pt, have_kernel);
out:
	free(order);
	zt_htab_release(&b.index);
	if (ret)
		modlist_release(l);
	return ret;
}

void modlist_release(struct modlist *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}
