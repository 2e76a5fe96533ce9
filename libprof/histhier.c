// SPDX-License-Identifier: GPL-2.0-or-later
/* perf report --hierarchy's rows: levels of sort keys (histhier.h). */
#include "libprof/histhier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hh {
	const struct hist *h;
	const struct hist_sortspec *s;
	const struct hist_entry **leaves; /* in perf's tree order, runs of a level alike */
	struct histhier_row *rows;
	size_t nr_rows, cap_rows;
	double limit;
	uint64_t total;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Key k of a and b: 0 exactly when perf's collapse puts them in one entry
 * of that level (hist.c's frame_equal() for one key), otherwise in the
 * order of perf's tree (a function by its module and address). */
static int level_cmp(const struct hist *h, enum hist_key k, const struct hist_entry *a,
		     const struct hist_entry *b)
{
	const struct hist_frame *x = &a->f, *y = &b->f;
	int r;

	switch (k) {
	case HIST_KEY_SYM:
		r = (int)!x->symq - (int)!y->symq;
		if (!r)
			r = strcmp(hist_str(h, x->dso), hist_str(h, y->dso));
		if (!r)
			r = (int)x->inlined - (int)y->inlined;
		if (!r && !x->inlined)
			r = cmp_u64(x->addr, y->addr);
		if (!r)
			r = cmp_u64(x->sym, y->sym);
		return r ? r : (int)x->kernel - (int)y->kernel;
	case HIST_KEY_COMM:
		return cmp_u64(x->comm, y->comm) ? hist_key_cmp(h, k, a, b) : 0;
	case HIST_KEY_DSO:
		r = cmp_u64(x->dso, y->dso) ? hist_key_cmp(h, k, a, b) : 0;
		return r ? r : cmp_u64(x->dso, y->dso);
	case HIST_KEY_SRCLINE:
		return cmp_u64(x->srcline, y->srcline) ? hist_key_cmp(h, k, a, b) : 0;
	case HIST_KEY_PARENT:
		return cmp_u64(x->parent, y->parent) ? hist_key_cmp(h, k, a, b) : 0;
	default:
		return hist_key_cmp(h, k, a, b);
	}
}

static int leaf_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct hist *sort_h = ctx;
	const struct hist_entry *a = *(const struct hist_entry *const *)pa;
	const struct hist_entry *b = *(const struct hist_entry *const *)pb;
	unsigned i;
	int r = 0;

	for (i = 0; i < sort_h->nr_keys && !r; i++)
		r = level_cmp(sort_h, sort_h->keys[i], a, b);
	return r ? r : a < b ? -1 : a > b;
}

/* A row-to-be: a run of leaves alike down to its level. */
struct run {
	size_t lo, hi;
	uint64_t weight, nr;
	uint64_t *grp; /* the other events' Self (hist.grp) below it */
};

/* perf's hist_entry__sort() on the rows' entries (its sort list: Self,
 * samples, the keys), then the order they came in (its tree's) */
static int run_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct run *a = pa, *b = pb;
	const struct hh *c = ctx;
	const struct hist_entry *ea = c->leaves[a->lo], *eb = c->leaves[b->lo];
	unsigned i;
	int r = 0;

	for (i = 0; i < c->s->nr && !r; i++) {
		int by = c->s->by[i];

		if (by == HIST_BY_SAMPLES) {
			r = -cmp_u64(a->nr, b->nr);
		} else if (by < HIST_BY_KEY) {
			unsigned j;

			r = -cmp_u64(a->weight, b->weight);
			for (j = 0; !r && c->h->grp && j < c->h->grp_nr; j++)
				r = -cmp_u64(a->grp[j], b->grp[j]);
		} else
			r = hist_key_cmp(c->h, (enum hist_key)(by - HIST_BY_KEY), ea, eb);
	}
	return r ? r : cmp_u64(a->lo, b->lo);
}

static int below(const struct hh *c, uint64_t w)
{
	return c->limit > 0 && (!c->total || (double)w * 100.0 / (double)c->total < c->limit);
}

static int push_row(struct hh *c, const struct run *u, unsigned depth)
{
	struct histhier_row *r;

	if (c->nr_rows == c->cap_rows) {
		size_t cap = c->cap_rows ? c->cap_rows * 2 : 64;

		r = realloc(c->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		c->rows = r;
		c->cap_rows = cap;
	}
	r = &c->rows[c->nr_rows++];
	r->e = c->leaves[u->lo];
	r->weight = u->weight;
	r->nr = u->nr;
	r->depth = depth;
	r->leaf = depth + 1 == c->h->nr_keys;
	r->empty = 0;
	r->lo = u->lo;
	r->hi = u->hi;
	return 0;
}

/* The rows of leaves [lo, hi), alike above level depth. */
static int level(struct hh *c, size_t lo, size_t hi, unsigned depth)
{
	enum hist_key k = c->h->keys[depth];
	const struct hist *h = c->h;
	unsigned g = h->grp ? h->grp_nr : 0, j;
	struct run *runs;
	uint64_t *sums;
	size_t i, n = 0;
	int ret = 0;

	runs = malloc((hi - lo) * sizeof(*runs)); /* hi > lo */
	sums = calloc((hi - lo) * g + 1, sizeof(*sums));
	if (!runs || !sums) {
		free(runs);
		free(sums);
		return -ENOMEM;
	}
	for (i = lo; i < hi; i++) {
		const struct hist_entry *e = c->leaves[i];

		if (!n || level_cmp(h, k, c->leaves[runs[n - 1].lo], e)) {
			runs[n] = (struct run){.lo = i, .hi = i, .grp = sums + n * g};
			n++;
		}
		runs[n - 1].hi = i + 1;
		runs[n - 1].weight += e->self;
		runs[n - 1].nr += e->self_nr;
		for (j = 0; j < g; j++)
			runs[n - 1].grp[j] += h->grp[(size_t)(e - h->entries) * g + j];
	}
	qsort_r(runs, n, sizeof(*runs), run_cmp, c);
	for (i = 0; i < n && !ret; i++) {
		size_t at = c->nr_rows;

		if (below(c, runs[i].weight))
			continue;
		ret = push_row(c, &runs[i], depth);
		if (ret || depth + 1 == c->h->nr_keys)
			continue;
		ret = level(c, runs[i].lo, runs[i].hi, depth + 1);
		if (!ret && c->nr_rows == at + 1)
			c->rows[at].empty = 1;
	}
	free(runs);
	free(sums);
	return ret;
}

/* with hist.grp: Self in another event */
static int grp_self(const struct hist *h, const struct hist_entry *e)
{
	unsigned j;

	for (j = 0; h->grp && j < h->grp_nr; j++)
		if (h->grp[(size_t)(e - h->entries) * h->grp_nr + j])
			return 1;
	return 0;
}

int histhier_build(const struct hist *h, const struct hist_sortspec *s, double percent_limit,
		   uint64_t total, struct histhier_row **rows, size_t *n,
		   const struct hist_entry ***leaves)
{
	struct hh c = {.h = h, .s = s, .limit = percent_limit, .total = total};
	size_t i, k = 0;
	int ret = 0;

	*rows = NULL;
	*n = 0;
	*leaves = NULL;
	c.leaves = malloc((h->nr_entries ? h->nr_entries : 1) * sizeof(*c.leaves));
	if (!c.leaves)
		return -ENOMEM;
	for (i = 0; i < h->nr_entries; i++)
		if ((h->entries[i].self_nr || grp_self(h, &h->entries[i])) &&
		    hist_sortspec_shows(h, s, &h->entries[i]))
			c.leaves[k++] = &h->entries[i];
	qsort_r(c.leaves, k, sizeof(*c.leaves), leaf_cmp, (void *)h);
	if (k && h->nr_keys)
		ret = level(&c, 0, k, 0);
	if (ret) {
		free(c.leaves);
		free(c.rows);
		return ret;
	}
	*rows = c.rows;
	*n = c.nr_rows;
	*leaves = c.leaves;
	return 0;
}
