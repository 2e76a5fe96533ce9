/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf diff's model: histograms paired on their keys, changes computed and ordered. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/hash.h"
#include "libprof/hdiff.h"

/* The matching key of entry e: its keys' texts, a function with its
 * module (perf's sym comparison looks at the dso first). */
static int entry_key(const struct hist *h, const struct hist_entry *e, char *buf, size_t n)
{
	char tmp[1200];
	size_t len = 0;
	unsigned k;

	for (k = 0; k < h->nr_keys; k++) {
		const char *t = hist_key_text(h, e, h->keys[k], tmp, sizeof(tmp));
		int w;

		/* perf diff takes the addresses without a symbol as one
		 * function, and functions by their names (of any module
		 * without a dso key) */
		if (h->keys[k] == HIST_KEY_SYM && !e->f.symq)
			w = snprintf(buf + len, n - len, "\x1f\x1e");
		else
			w = snprintf(buf + len, n - len, "%s\x1e", t);
		if (w < 0 || (size_t)w >= n - len)
			return -ENAMETOOLONG;
		len += (size_t)w;
	}
	return 0;
}

struct build {
	struct hdiff *d;
	char **keys; /* of each row, owned */
	size_t cap;
	struct zt_htab index;
};

static uint64_t key_hash(const void *ctx, uint32_t i)
{
	const struct build *b = ctx;

	return zt_hash_str(b->keys[i]);
}

/* The row of key (a new one, NULL entries, when add and none has it). */
static int find_row(struct build *b, const char *key, int add, struct hdiff_row **out)
{
	struct hdiff *d = b->d;
	uint64_t h = zt_hash_str(key);
	uint32_t i;
	size_t j;

	*out = NULL;
	if (zt_htab_reserve(&b->index, 1, key_hash, b))
		return -ENOMEM;
	for (j = zt_htab_first(&b->index, h); zt_htab_get(&b->index, j, &i);
	     j = zt_htab_next(&b->index, j))
		if (!strcmp(b->keys[i], key)) {
			*out = &d->rows[i];
			return 0;
		}
	if (!add)
		return 0;
	if (d->nr_rows == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct hdiff_row *r;
		char **k;

		if (cap > SIZE_MAX / sizeof(*r))
			return -ENOMEM;
		r = realloc(d->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		d->rows = r;
		k = realloc(b->keys, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		b->keys = k;
		b->cap = cap;
	}
	b->keys[d->nr_rows] = strdup(key);
	if (!b->keys[d->nr_rows])
		return -ENOMEM;
	memset(&d->rows[d->nr_rows], 0, sizeof(d->rows[0]));
	zt_htab_set(&b->index, j, (uint32_t)d->nr_rows);
	*out = &d->rows[d->nr_rows++];
	return 0;
}

static uint64_t period(const struct hdiff_row *r, size_t f)
{
	return r->period[f];
}

double hdiff_percent(const struct hdiff *d, const struct hdiff_row *r, size_t file)
{
	return d->total[file] ? (double)period(r, file) * 100.0 / (double)d->total[file] : 0.0;
}

static void compute(struct hdiff *d, struct hdiff_row *r)
{
	size_t i;

	for (i = 1; i < d->nr_files; i++) {
		uint64_t old = period(r, 0), new = period(r, i);

		if (!r->e[i])
			continue;
		r->delta[i] = hdiff_percent(d, r, i) - hdiff_percent(d, r, 0);
		r->ratio[i] = (double)new / (double)(old ? old : 1);
		r->wdiff[i] = (int64_t) new * d->opts.w2 - (int64_t)old * d->opts.w1;
	}
}

static int has_pairs(const struct hdiff *d, const struct hdiff_row *r)
{
	size_t i;

	for (i = 1; i < d->nr_files; i++)
		if (r->e[i])
			return 1;
	return 0;
}

/* Best first: -1 when a's value in file f goes before b's. */
static int cmp_value(const struct hdiff *d, const struct hdiff_row *a, const struct hdiff_row *b,
		     size_t f)
{
	double x, y;

	switch (d->opts.compute) {
	case HDIFF_DELTA_ABS:
		x = fabs(a->delta[f]);
		y = fabs(b->delta[f]);
		break;
	case HDIFF_DELTA:
		x = a->delta[f];
		y = b->delta[f];
		break;
	case HDIFF_RATIO:
		x = a->ratio[f];
		y = b->ratio[f];
		break;
	default:
		return a->wdiff[f] > b->wdiff[f] ? -1 : a->wdiff[f] < b->wdiff[f];
	}
	return x > y ? -1 : x < y;
}

/* perf's per-file column order (hist_entry__cmp_compute) */
static int cmp_column(const struct hdiff *d, const struct hdiff_row *a, const struct hdiff_row *b,
		      size_t f)
{
	int pa = has_pairs(d, a), pb = has_pairs(d, b);

	if (pa != pb)
		return pa ? -1 : 1;
	if (!pa)
		return 0;
	if (!a->e[f] != !b->e[f])
		return a->e[f] ? -1 : 1;
	if (!a->e[f])
		return 0;
	return cmp_value(d, a, b, f);
}

/* perf's -o file first (hist_entry__cmp_compute_idx) */
static int cmp_order(const struct hdiff *d, const struct hdiff_row *a, const struct hdiff_row *b,
		     size_t f)
{
	if (!a->e[f] != !b->e[f])
		return a->e[f] ? -1 : 1;
	if (!a->e[f])
		return 0;
	/* ratio and wdiff mean nothing without the baseline: those last */
	if (d->opts.compute == HDIFF_RATIO || d->opts.compute == HDIFF_WDIFF) {
		if (!a->e[0] != !b->e[0])
			return a->e[0] ? -1 : 1;
		if (!a->e[0])
			return 0;
	}
	return cmp_value(d, a, b, f);
}

const struct hist_entry *hdiff_row_entry(const struct hdiff *d, const struct hdiff_row *r,
					 size_t *file)
{
	size_t i;

	for (i = 0; i < d->nr_files; i++)
		if (r->e[i]) {
			if (file)
				*file = i;
			return r->e[i];
		}
	return NULL;
}

/* perf sorts keys by name, upwards (a function by its name alone) */
static int cmp_keys(const struct hdiff *d, const struct hdiff_row *a, const struct hdiff_row *b)
{
	size_t fa = 0, fb = 0;
	const struct hist_entry *ea = hdiff_row_entry(d, a, &fa), *eb = hdiff_row_entry(d, b, &fb);
	const struct hist *ha = d->h[fa], *hb = d->h[fb];
	char ba[1200], bb[1200];
	unsigned k;

	for (k = 0; k < ha->nr_keys; k++) {
		enum hist_key key = ha->keys[k];
		const char *ta = hist_key_text(ha, ea, key, ba, sizeof(ba));
		const char *tb = hist_key_text(hb, eb, key, bb, sizeof(bb));
		int c;

		/* perf's cmp_null(): a function before an address without one */
		if (key == HIST_KEY_SYM && !ea->f.symq != !eb->f.symq)
			return ea->f.symq ? -1 : 1;
		if (key == HIST_KEY_SYM && !ea->f.symq)
			continue;
		if (key == HIST_KEY_SYM && strlen(ta) > 4 && strlen(tb) > 4) {
			ta += 4; /* "[k] " */
			tb += 4;
		}
		c = strcmp(ta, tb);
		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct hdiff *d = ctx;
	const struct hdiff_row *a = pa, *b = pb;
	uint64_t x, y;
	size_t i;
	int c;

	if (d->opts.order && (c = cmp_order(d, a, b, d->opts.order)))
		return c;
	x = period(a, 0);
	y = period(b, 0);
	if (x != y)
		return x > y ? -1 : 1;
	for (i = 1; i < d->nr_files; i++)
		if ((c = cmp_column(d, a, b, i)))
			return c;
	return cmp_keys(d, a, b);
}

static int add_file(struct build *b, size_t f)
{
	const struct hist *h = b->d->h[f];
	char key[4096];
	size_t i;
	int ret;

	for (i = 0; i < h->nr_entries; i++) {
		const struct hist_entry *e = &h->entries[i];
		struct hdiff_row *r;

		if (!e->self_nr && !e->self)
			continue;
		if ((ret = entry_key(h, e, key, sizeof(key))))
			return ret;
		/* perf -b: no rows for entries the baseline lacks */
		ret = find_row(b, key, f == 0 || !b->d->opts.baseline_only, &r);
		if (ret)
			return ret;
		if (r) {
			if (!r->e[f])
				r->e[f] = e;
			r->period[f] += e->self;
		}
	}
	return 0;
}

int hdiff_build(struct hdiff *d, const struct hist *const *h, const uint64_t *totals, size_t n,
		const struct hdiff_opts *o)
{
	struct build b = {.d = d};
	size_t i, j, nkeys;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	if (n < 2 || n > HDIFF_MAX_FILES || (o && o->order >= n))
		return -EINVAL;
	for (i = 1; i < n; i++)
		if (h[i]->nr_keys != h[0]->nr_keys ||
		    memcmp(h[i]->keys, h[0]->keys, h[0]->nr_keys * sizeof(h[0]->keys[0])))
			return -EINVAL;
	if (o)
		d->opts = *o;
	d->nr_files = n;
	for (i = 0; i < n; i++) {
		d->h[i] = h[i];
		d->total[i] = totals[i];
	}
	zt_htab_init(&b.index);
	for (i = 0; i < n && !ret; i++)
		ret = add_file(&b, i);
	nkeys = d->nr_rows;
	if (!ret && d->opts.baseline_only) {
		for (i = j = 0; i < d->nr_rows; i++)
			if (has_pairs(d, &d->rows[i]))
				d->rows[j++] = d->rows[i];
		d->nr_rows = j;
	}
	if (!ret) {
		for (i = 0; i < d->nr_rows; i++)
			compute(d, &d->rows[i]);
		/* perf: the baseline's 100% is then what is left of it */
		if (d->opts.baseline_only)
			for (i = 0, d->total[0] = 0; i < d->nr_rows; i++)
				d->total[0] += d->rows[i].period[0];
		if (d->nr_rows)
			qsort_r(d->rows, d->nr_rows, sizeof(*d->rows), row_cmp, d);
	}
	for (i = 0; i < nkeys && b.keys; i++)
		free(b.keys[i]);
	free(b.keys);
	zt_htab_release(&b.index);
	if (ret)
		hdiff_release(d);
	return ret;
}

void hdiff_release(struct hdiff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nr_rows = 0;
}
