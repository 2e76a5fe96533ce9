/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GPU records for display: time order, launches by correlation id, PC samples summed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/gpuview.h"
#include "libprof/hash.h"

static int ev_cmp(const void *a, const void *b)
{
	const struct gpu_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int timed(struct gpu_view *v)
{
	const struct prof_gpu *g = v->g;
	size_t n = g->nr_kernels + g->nr_memops + g->nr_overheads, i;
	struct gpu_ev *e;

	if (!n)
		return 0;
	if (n > SIZE_MAX / sizeof(*e) || !(e = malloc(n * sizeof(*e))))
		return -ENOMEM;
	v->ev = e;
	for (i = 0; i < g->nr_kernels; i++)
		*e++ = (struct gpu_ev){g->kernels[i].start, GPU_EV_KERNEL, (uint32_t)i};
	for (i = 0; i < g->nr_memops; i++)
		*e++ = (struct gpu_ev){g->memops[i].start, GPU_EV_MEMOP, (uint32_t)i};
	for (i = 0; i < g->nr_overheads; i++)
		*e++ = (struct gpu_ev){g->overheads[i].start, GPU_EV_OVERHEAD, (uint32_t)i};
	v->nr_ev = n;
	qsort(v->ev, n, sizeof(*v->ev), ev_cmp);
	return 0;
}

static int pcs_cmp_r(const void *a, const void *b, void *arg)
{
	const struct prof_gpu *g = arg;
	const struct prof_gpu_pcs *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->cubin_crc != y->cubin_crc)
		return x->cubin_crc < y->cubin_crc ? -1 : 1;
	if (x->function != y->function &&
	    (c = strcmp(prof_gpu_str(g, x->function), prof_gpu_str(g, y->function))))
		return c;
	if (x->pc_offset != y->pc_offset)
		return x->pc_offset < y->pc_offset ? -1 : 1;
	if (x->stall != y->stall)
		return x->stall < y->stall ? -1 : 1;
	return 0;
}

static int summed(struct gpu_view *v)
{
	const struct prof_gpu *g = v->g;
	struct prof_gpu_pcs *s;
	size_t i, n = 0;

	if (!g->nr_pcs)
		return 0;
	if (!(s = malloc(g->nr_pcs * sizeof(*s))) ||
	    !(v->pcs = malloc(g->nr_pcs * sizeof(*v->pcs)))) {
		free(s);
		return -ENOMEM;
	}
	memcpy(s, g->pcs, g->nr_pcs * sizeof(*s));
	qsort_r(s, g->nr_pcs, sizeof(*s), pcs_cmp_r, (void *)g);
	for (i = 0; i < g->nr_pcs; i++) {
		if (n && !pcs_cmp_r(&s[i - 1], &s[i], (void *)g)) {
			struct gpu_pcsum *o = &v->pcs[n - 1];

			o->samples = s[i].samples > UINT64_MAX - o->samples
					     ? UINT64_MAX
					     : o->samples + s[i].samples;
			continue;
		}
		v->pcs[n++] =
			(struct gpu_pcsum){s[i].cubin_crc, s[i].pc_offset, s[i].samples, s[i].pid,
					   s[i].context,   s[i].function,  s[i].stall};
	}
	v->nr_pcs = n;
	free(s);
	return 0;
}

static uint64_t key_hash(uint32_t pid, uint32_t corr)
{
	return zt_hash_pair(pid, corr);
}

static int graph_cmp_r(const void *a, const void *b, void *arg)
{
	const struct prof_gpu_launch *l = arg, *x = &l[*(const uint32_t *)a],
				     *y = &l[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->graph_id != y->graph_id)
		return x->graph_id < y->graph_id ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int launches(struct gpu_view *v)
{
	const struct prof_gpu *g = v->g;
	size_t i, nested = 0;

	if (!g->nr_launches)
		return 0;
	for (i = 0; i < g->nr_launches; i++) {
		nested += !!(g->launches[i].flags & PROF_GPU_L_NESTED);
		v->nr_graph += !!(g->launches[i].flags & PROF_GPU_L_GRAPH);
	}
	if (g->nr_launches >= UINT32_MAX || zt_htab_reset(&v->by_corr, g->nr_launches) ||
	    zt_htab_reset(&v->by_outer, nested) ||
	    (v->nr_graph && !(v->graph = malloc(v->nr_graph * sizeof(*v->graph)))))
		return -ENOMEM;
	v->nr_graph = 0;
	for (i = 0; i < g->nr_launches; i++) {
		const struct prof_gpu_launch *l = &g->launches[i];

		zt_htab_add(&v->by_corr, key_hash(l->pid, l->corr), (uint32_t)i);
		if (l->flags & PROF_GPU_L_NESTED)
			zt_htab_add(&v->by_outer, key_hash(l->pid, l->outer_corr), (uint32_t)i);
		if (l->flags & PROF_GPU_L_GRAPH)
			v->graph[v->nr_graph++] = (uint32_t)i;
	}
	if (v->nr_graph > 1)
		qsort_r(v->graph, v->nr_graph, sizeof(*v->graph), graph_cmp_r, (void *)g->launches);
	return 0;
}

int gpu_view_init(struct gpu_view *v, const struct prof_gpu *g)
{
	int ret;

	memset(v, 0, sizeof(*v));
	v->g = g;
	if (!g)
		return 0;
	if ((ret = timed(v)) || (ret = summed(v)) || (ret = launches(v)))
		return ret;
	return 0;
}

void gpu_view_release(struct gpu_view *v)
{
	free(v->ev);
	free(v->pcs);
	free(v->graph);
	zt_htab_release(&v->by_corr);
	zt_htab_release(&v->by_outer);
	memset(v, 0, sizeof(*v));
}

/* The first launch of (pid, key) in t (by corr, or by outer_corr). */
static const struct prof_gpu_launch *find(const struct gpu_view *v, const struct zt_htab *t,
					  int outer, uint32_t pid, uint32_t key)
{
	const struct prof_gpu_launch *best = NULL;
	size_t j;
	uint32_t i;

	if (!t->cap)
		return NULL;
	for (j = zt_htab_first(t, key_hash(pid, key)); zt_htab_get(t, j, &i);
	     j = zt_htab_next(t, j)) {
		const struct prof_gpu_launch *l = &v->g->launches[i];

		if (l->pid == pid && (outer ? l->outer_corr : l->corr) == key &&
		    (!best || l < best))
			best = l;
	}
	return best;
}

static int has_stack(const struct prof_gpu_launch *l)
{
	return l && l->stack != PROF_GPU_NO_STACK;
}

/* The last graph launch of (pid, graph_id) at or before ts. */
static const struct prof_gpu_launch *graph_launch(const struct gpu_view *v, uint32_t pid,
						  uint32_t graph_id, uint64_t ts)
{
	const struct prof_gpu_launch *l = v->g->launches;
	size_t lo = 0, hi = v->nr_graph;

	while (lo < hi) { /* the first one after (pid, graph_id, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct prof_gpu_launch *m = &l[v->graph[mid]];

		if (m->pid < pid || (m->pid == pid && (m->graph_id < graph_id ||
						       (m->graph_id == graph_id && m->ts <= ts))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && l[v->graph[lo - 1]].pid == pid && l[v->graph[lo - 1]].graph_id == graph_id)
		return &l[v->graph[lo - 1]];
	return NULL;
}

const struct prof_gpu_launch *gpu_view_launch(const struct gpu_view *v, uint32_t pid, uint32_t corr,
					      uint32_t graph_id, uint64_t ts)
{
	const struct prof_gpu_launch *c[3] = {NULL, NULL, NULL}, *gl;
	int i;

	if (!v->g || !v->g->nr_launches)
		return NULL;
	c[0] = find(v, &v->by_corr, 0, pid, corr);
	c[1] = find(v, &v->by_outer, 1, pid, corr);
	if (c[0] && (c[0]->flags & PROF_GPU_L_NESTED))
		c[2] = find(v, &v->by_corr, 0, pid, c[0]->outer_corr);
	for (i = 0; i < 3; i++)
		if (has_stack(c[i]))
			return c[i];
	gl = graph_id && v->nr_graph ? graph_launch(v, pid, graph_id, ts) : NULL;
	if (has_stack(gl))
		return gl;
	for (i = 0; i < 3; i++)
		if (c[i])
			return c[i];
	return gl;
}

int gpu_share(uint64_t n, const uint64_t *w, size_t m, uint64_t *part)
{
	unsigned __int128 total = 0;
	uint64_t given = 0;
	size_t k;
	int even;

	if (!m)
		return 0;
	for (k = 0; k < m; k++)
		total += w[k];
	even = !total;
	if (even)
		total = m;
	for (k = 0; k < m; k++) {
		part[k] = (uint64_t)((unsigned __int128)n * (even ? 1 : w[k]) / total);
		given += part[k];
	}
	/* fewer than m left: one more each to the largest remainders of the
	 * parts not given one yet (recomputed: no allocation on this path) */
	while (given < n) {
		unsigned __int128 best_rem = 0;
		size_t best = m;

		for (k = 0; k < m; k++) {
			unsigned __int128 x = (unsigned __int128)n * (even ? 1 : w[k]);

			if ((uint64_t)(x / total) != part[k])
				continue; /* given one already */
			if (best == m || x % total > best_rem) {
				best = k;
				best_rem = x % total;
			}
		}
		part[best]++;
		given++;
	}
	return 0;
}
