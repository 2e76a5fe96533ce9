/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GPU records for display: time order, launches by correlation id, PC samples summed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/gpuview.h"
#include "libprof/array.h"
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
		v->pcs[n] = (struct gpu_pcsum){s[i].cubin_crc, s[i].pc_offset, s[i].samples,
					       s[i].pid,       s[i].context,   s[i].function,
					       s[i].stall,     0};
		/* a process's reasons are few: look each (pid, context, stall) up once */
		if (n && v->pcs[n - 1].pid == s[i].pid && v->pcs[n - 1].context == s[i].context &&
		    v->pcs[n - 1].stall == s[i].stall)
			v->pcs[n].subset = v->pcs[n - 1].subset;
		else
			v->pcs[n].subset = (uint32_t)prof_gpu_stall_is_subset(g, s[i].pid, s[i].context,
									      s[i].stall);
		n++;
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

static int sampled_stacks(struct gpu_view *v);

int gpu_view_init(struct gpu_view *v, const struct prof_gpu *g)
{
	int ret;

	memset(v, 0, sizeof(*v));
	v->g = g;
	if (!g)
		return 0;
	if ((ret = timed(v)) || (ret = summed(v)) || (ret = launches(v)) ||
	    (ret = sampled_stacks(v)))
		return ret;
	return 0;
}

void gpu_view_release(struct gpu_view *v)
{
	free(v->ev);
	free(v->pcs);
	free(v->graph);
	free(v->lstack);
	free(v->linferred);
	zt_htab_release(&v->by_corr);
	zt_htab_release(&v->by_outer);
	memset(v, 0, sizeof(*v));
}

/* The first launch of (pid, key) in t (by corr, or by outer_corr). */
static int has_stack(const struct prof_gpu_launch *l)
{
	return l && l->stack != PROF_GPU_NO_STACK;
}

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

		/* the first record of the launch with a stack, else the first:
		 * a recording can hold the library's record of a launch
		 * beside the BPF sampler's, with the stack */
		if (l->pid == pid && (outer ? l->outer_corr : l->corr) == key &&
		    (!best || (has_stack(l) && !has_stack(best)) ||
		     (has_stack(l) == has_stack(best) && l < best)))
			best = l;
	}
	return best;
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

/* ---- sampled launch stacks ------------------------------------------- */

/* a kernel's launch: (pid, kernel name, thread, time), its launch's index
 * and stack */
struct klaunch {
	uint32_t pid, name, tid, li, stack;
	uint64_t ts;
};

/* by (pid, name, tid, ts) with by_tid, else by (pid, name, ts) */
static int kl_cmp(const struct klaunch *x, const struct klaunch *y, int by_tid)
{
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (by_tid && x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->li < y->li ? -1 : x->li > y->li;
}

static int kl_cmp_tid(const void *a, const void *b)
{
	return kl_cmp(a, b, 1);
}

static int kl_cmp_notid(const void *a, const void *b)
{
	return kl_cmp(a, b, 0);
}

/* The captured entry of c[0 .. n) (sorted as by_tid says) of x's group
 * nearest to x in time, or NULL. */
static const struct klaunch *nearest(const struct klaunch *c, size_t n, const struct klaunch *x,
				     int by_tid)
{
	const struct klaunch *a = NULL, *b = NULL;
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first entry not before x */
		size_t mid = lo + (hi - lo) / 2;

		if (kl_cmp(&c[mid], x, by_tid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && c[lo].pid == x->pid && c[lo].name == x->name && (!by_tid || c[lo].tid == x->tid))
		b = &c[lo];
	if (lo > 0 && c[lo - 1].pid == x->pid && c[lo - 1].name == x->name &&
	    (!by_tid || c[lo - 1].tid == x->tid))
		a = &c[lo - 1];
	if (!a || !b)
		return a ? a : b;
	return x->ts - a->ts <= b->ts - x->ts ? a : b;
}

/* For each launch without a captured stack, the stack gpu_view_stack()
 * gives it. Nothing is made when every launch has its own or none has. */
static int sampled_stacks(struct gpu_view *v)
{
	const struct prof_gpu *g = v->g;
	struct klaunch *e = NULL, *c1 = NULL, *c2 = NULL;
	size_t i, n = 0, nc = 0;
	int ret = -ENOMEM;

	if (!g->nr_kernels || !g->nr_launches)
		return 0;
	if (!(e = malloc(g->nr_kernels * sizeof(*e))))
		return -ENOMEM;
	for (i = 0; i < g->nr_kernels; i++) {
		const struct prof_gpu_kernel *k = &g->kernels[i];
		const struct prof_gpu_launch *l =
			gpu_view_launch(v, k->pid, k->corr, k->graph_id, k->start);

		if (!l)
			continue;
		e[n] = (struct klaunch){k->pid, k->name, l->tid, (uint32_t)(l - g->launches),
					l->stack, l->ts};
		nc += l->stack != PROF_GPU_NO_STACK;
		n++;
	}
	v->nr_captured = nc;
	if (!nc || nc == n) {
		free(e);
		return 0;
	}
	if (!(c1 = malloc(nc * sizeof(*c1))) || !(c2 = malloc(nc * sizeof(*c2))) ||
	    !(v->lstack = malloc(g->nr_launches * sizeof(*v->lstack))) ||
	    !(v->linferred = calloc(g->nr_launches, 1)))
		goto out;
	for (i = 0; i < g->nr_launches; i++)
		v->lstack[i] = g->launches[i].stack;
	for (i = nc = 0; i < n; i++)
		if (e[i].stack != PROF_GPU_NO_STACK)
			c1[nc++] = e[i];
	memcpy(c2, c1, nc * sizeof(*c2));
	qsort(c1, nc, sizeof(*c1), kl_cmp_tid);
	qsort(c2, nc, sizeof(*c2), kl_cmp_notid);
	for (i = 0; i < n; i++) {
		const struct klaunch *m;

		if (e[i].stack != PROF_GPU_NO_STACK)
			continue;
		if (!v->linferred[e[i].li]) { /* (a graph's launch: its first kernel) */
			m = nearest(c1, nc, &e[i], 1);
			if (!m)
				m = nearest(c2, nc, &e[i], 0);
			if (!m)
				continue;
			v->lstack[e[i].li] = m->stack;
			v->linferred[e[i].li] = 1;
		}
		v->nr_inferred++;
	}
	ret = 0;
out:
	free(e);
	free(c1);
	free(c2);
	return ret;
}

uint32_t gpu_view_stack(const struct gpu_view *v, const struct prof_gpu_launch *l, int *inferred)
{
	size_t i;

	if (inferred)
		*inferred = 0;
	if (!l)
		return PROF_GPU_NO_STACK;
	if (l->stack != PROF_GPU_NO_STACK || !v->lstack || !v->g || l < v->g->launches ||
	    l >= v->g->launches + v->g->nr_launches)
		return l->stack;
	i = (size_t)(l - v->g->launches);
	if (inferred)
		*inferred = v->linferred[i];
	return v->lstack[i];
}

const struct prof_gpu_launch *gpu_view_with_stack(const struct gpu_view *v,
						  const struct prof_gpu_launch *l,
						  struct prof_gpu_launch *tmp)
{
	if (!l)
		return NULL;
	*tmp = *l;
	tmp->stack = gpu_view_stack(v, l, NULL);
	return tmp;
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

/* ---- gpu_select() ---- */

int gpu_select_active(const struct rfilter *f)
{
	return f && (f->nr_pids || f->nr_tids || f->nr_comms || f->nr_times);
}

/* A kernel name's GPU time in a process: all of it, and what is kept. */
struct kagg {
	uint32_t pid, name;
	uint64_t w, kept_w, n, kept_n;
	size_t nr_pcs, off; /* its continuous PC buckets: pidx[off .. off + nr_pcs) */
};

struct sel {
	const struct prof_gpu *g;
	struct rfilter th; /* f's --pid, --tid, --comm only (shallow) */
	const struct rfilter *f;
	const struct proctree *pt;
	uint64_t first, last;
	struct gpu_view v;
	uint8_t *keep_k, *keep_m;
	struct zt_htab k_by_corr; /* kernels by (pid, corr) */
	struct kagg *agg;
	size_t nr_agg, cap_agg;
	struct zt_htab agg_hash; /* agg by (pid, name) */
};

/* Whether process pid's launch l (NULL: not known) passes --pid, --tid, --comm. */
static int thread_pass(const struct sel *x, uint32_t pid, const struct prof_gpu_launch *l)
{
	struct prof_sample s = {0};
	const char *comm = NULL;
	uint64_t epoch, from, until;

	s.pid = pid;
	s.tid = l ? l->tid : UINT32_MAX;
	if (l && x->th.nr_comms && x->pt)
		proctree_thread_at(x->pt, pid, l->tid, l->ts, &comm, &epoch, &from, &until);
	return rfilter_sample(&x->th, &s, comm, 0, 0) == RFILTER_SHOW;
}

static int record_pass(const struct sel *x, uint32_t pid, uint32_t corr, uint32_t graph,
		       uint64_t start, uint64_t end)
{
	return rfilter_time_overlap(x->f, start, end, x->first, x->last) &&
	       thread_pass(x, pid, gpu_view_launch(&x->v, pid, corr, graph, start));
}

static struct kagg *agg_of(struct sel *x, uint32_t pid, uint32_t name, int add)
{
	uint64_t h = zt_hash_pair(pid, name);
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(&x->agg_hash, h); zt_htab_get(&x->agg_hash, j, &i);
	     j = zt_htab_next(&x->agg_hash, j))
		if (x->agg[i].pid == pid && x->agg[i].name == name)
			return &x->agg[i];
	if (!add || ZT_GROW(x->agg, x->cap_agg, x->nr_agg + 1))
		return NULL;
	zt_htab_set(&x->agg_hash, j, (uint32_t)x->nr_agg);
	x->agg[x->nr_agg] = (struct kagg){pid, name, 0, 0, 0, 0, 0, 0};
	return &x->agg[x->nr_agg++];
}

/* The kernel of (pid, corr), or -1. */
static long kernel_of(const struct sel *x, uint32_t pid, uint32_t corr)
{
	size_t j;
	uint32_t i;

	if (!x->k_by_corr.cap)
		return -1;
	for (j = zt_htab_first(&x->k_by_corr, zt_hash_pair(pid, corr));
	     zt_htab_get(&x->k_by_corr, j, &i); j = zt_htab_next(&x->k_by_corr, j))
		if (x->g->kernels[i].pid == pid && x->g->kernels[i].corr == corr)
			return (long)i;
	return -1;
}

/* The PC samples of s that the filters keep (0: none). */
static uint64_t pcs_kept(struct sel *x, const struct prof_gpu_pcs *s)
{
	const struct kagg *a;
	long k;

	if (s->corr) {
		if ((k = kernel_of(x, s->pid, s->corr)) >= 0)
			return x->keep_k[k] ? s->samples : 0;
		return thread_pass(x, s->pid, gpu_view_launch(&x->v, s->pid, s->corr, 0, 0))
			       ? s->samples
			       : 0;
	}
	a = agg_of(x, s->pid, s->function, 0);
	if (!a || !a->n) /* no kernel of that name: only its process is known */
		return thread_pass(x, s->pid, NULL) ? s->samples : 0;
	return s->samples; /* scaled with the others of its kernel: scale_pcs() */
}

/* The continuous PC buckets of each kernel name (pcs_n: their samples)
 * scaled together to the share of its GPU time kept, rounded to the
 * nearest, and split among them by their samples (gpu_share()). */
static int scale_pcs(struct sel *x, uint64_t *pcs_n)
{
	const struct prof_gpu *g = x->g;
	uint32_t *aof = NULL, *pidx = NULL;
	uint64_t *w = NULL, *part;
	size_t i, k, most = 0;
	int ret = -ENOMEM;

	if (!(aof = malloc((g->nr_pcs + 1) * sizeof(*aof))) ||
	    !(pidx = malloc((g->nr_pcs + 1) * sizeof(*pidx))))
		goto out;
	for (i = 0; i < g->nr_pcs; i++) {
		const struct prof_gpu_pcs *s = &g->pcs[i];
		struct kagg *a = s->corr ? NULL : agg_of(x, s->pid, s->function, 0);

		aof[i] = a && a->n ? (uint32_t)(a - x->agg) : UINT32_MAX;
		if (aof[i] != UINT32_MAX)
			a->nr_pcs++;
	}
	for (k = 0, i = 0; k < x->nr_agg; k++) {
		x->agg[k].off = i;
		i += x->agg[k].nr_pcs;
		most = x->agg[k].nr_pcs > most ? x->agg[k].nr_pcs : most;
		x->agg[k].nr_pcs = 0;
	}
	for (i = 0; i < g->nr_pcs; i++)
		if (aof[i] != UINT32_MAX) {
			struct kagg *a = &x->agg[aof[i]];

			pidx[a->off + a->nr_pcs++] = (uint32_t)i;
		}
	if (!(w = malloc((most ? most : 1) * 2 * sizeof(*w))))
		goto out;
	part = w + (most ? most : 1);
	for (k = 0; k < x->nr_agg; k++) {
		const struct kagg *a = &x->agg[k];
		unsigned __int128 total = 0;
		uint64_t keep;

		if (!a->nr_pcs || (a->w ? a->kept_w == a->w : a->kept_n == a->n))
			continue;
		for (i = 0; i < a->nr_pcs; i++)
			total += w[i] = pcs_n[pidx[a->off + i]];
		keep = a->w ? (uint64_t)((total * a->kept_w + a->w / 2) / a->w)
			    : (uint64_t)((total * a->kept_n + a->n / 2) / a->n);
		gpu_share(keep, w, a->nr_pcs, part);
		for (i = 0; i < a->nr_pcs; i++)
			pcs_n[pidx[a->off + i]] = part[i];
	}
	ret = 0;
out:
	free(aof);
	free(pidx);
	free(w);
	return ret;
}

static void sel_release(struct sel *x)
{
	gpu_view_release(&x->v);
	free(x->keep_k);
	free(x->keep_m);
	free(x->agg);
	zt_htab_release(&x->k_by_corr);
	zt_htab_release(&x->agg_hash);
}

int gpu_select(struct prof_gpu *g, const struct rfilter *f, const struct proctree *pt,
	       uint64_t first, uint64_t last)
{
	struct sel x = {.g = g, .f = f, .pt = pt, .first = first, .last = last};
	uint64_t *pcs_n = NULL;
	size_t i, n;
	int ret;

	if (!g || !gpu_select_active(f))
		return 0;
	x.th = *f;
	x.th.nr_cpus = x.th.nr_times = x.th.nr_dsos = x.th.nr_syms = x.th.nr_addrs = 0;
	zt_htab_init(&x.k_by_corr);
	zt_htab_init(&x.agg_hash);
	ret = gpu_view_init(&x.v, g);
	if (!ret && (!(x.keep_k = calloc(g->nr_kernels + 1, 1)) ||
		     !(x.keep_m = calloc(g->nr_memops + 1, 1)) ||
		     !(pcs_n = calloc(g->nr_pcs + 1, sizeof(*pcs_n))) ||
		     zt_htab_reset(&x.k_by_corr, g->nr_kernels) ||
		     zt_htab_reset(&x.agg_hash, g->nr_kernels)))
		ret = -ENOMEM;
	for (i = 0; !ret && i < g->nr_kernels; i++) {
		const struct prof_gpu_kernel *k = &g->kernels[i];
		uint64_t d = k->end > k->start ? k->end - k->start : 0;
		struct kagg *a = agg_of(&x, k->pid, k->name, 1);

		if (!a) {
			ret = -ENOMEM;
			break;
		}
		x.keep_k[i] =
			(uint8_t)record_pass(&x, k->pid, k->corr, k->graph_id, k->start, k->end);
		zt_htab_add(&x.k_by_corr, zt_hash_pair(k->pid, k->corr), (uint32_t)i);
		a->w += d;
		a->n++;
		if (x.keep_k[i]) {
			a->kept_w += d;
			a->kept_n++;
		}
	}
	for (i = 0; !ret && i < g->nr_memops; i++) {
		const struct prof_gpu_memop *m = &g->memops[i];

		x.keep_m[i] =
			(uint8_t)record_pass(&x, m->pid, m->corr, m->graph_id, m->start, m->end);
	}
	for (i = 0; !ret && i < g->nr_pcs; i++)
		pcs_n[i] = pcs_kept(&x, &g->pcs[i]);
	if (!ret)
		ret = scale_pcs(&x, pcs_n);
	if (ret)
		goto out;
	/* nothing fails from here: g changes only now */
	for (i = n = 0; i < g->nr_kernels; i++)
		if (x.keep_k[i])
			g->kernels[n++] = g->kernels[i];
	g->nr_kernels = n;
	for (i = n = 0; i < g->nr_memops; i++)
		if (x.keep_m[i])
			g->memops[n++] = g->memops[i];
	g->nr_memops = n;
	for (i = n = 0; i < g->nr_pcs; i++)
		if (pcs_n[i]) {
			g->pcs[n] = g->pcs[i];
			g->pcs[n++].samples = pcs_n[i];
		}
	g->nr_pcs = n;
	for (i = n = 0; i < g->nr_overheads; i++) {
		const struct prof_gpu_overhead *o = &g->overheads[i];

		if (thread_pass(&x, o->pid, NULL) &&
		    rfilter_time_overlap(f, o->start, o->end, first, last))
			g->overheads[n++] = *o;
	}
	g->nr_overheads = n;
out:
	free(pcs_n);
	sel_release(&x);
	return ret;
}
