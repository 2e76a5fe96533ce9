// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Samples by time bucket and process (server/tagg.h).
 */
#include "server/tagg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/array.h"
#include "libprof/hash.h"

void zs_tagg_init(struct zs_tagg *a)
{
	memset(a, 0, sizeof(*a));
	zbuf_init(&a->comms);
	zt_htab_init(&a->ehash);
	zt_htab_init(&a->phash);
}

void zs_tagg_release(struct zs_tagg *a)
{
	free(a->ents);
	free(a->pids);
	free(a->comm_off);
	zbuf_release(&a->comms);
	zt_htab_release(&a->ehash);
	zt_htab_release(&a->phash);
	memset(a, 0, sizeof(*a));
}

static inline uint64_t proc_hash(uint32_t pid, const char *comm)
{
	return zt_hash_mix(zt_hash_str(comm), pid);
}

static uint64_t proc_hash_at(const void *ctx, uint32_t i)
{
	const struct zs_tagg *a = ctx;

	return proc_hash(a->pids[i], zs_tagg_comm(a, i));
}

int zs_tagg_proc(struct zs_tagg *a, uint32_t pid, const char *comm, uint32_t *idx)
{
	uint64_t h = proc_hash(pid, comm);
	size_t j, len = strlen(comm);
	uint32_t i;

	if (zt_htab_reserve(&a->phash, 1, proc_hash_at, a))
		return -ENOMEM;
	for (j = zt_htab_first(&a->phash, h); zt_htab_get(&a->phash, j, &i);
	     j = zt_htab_next(&a->phash, j))
		if (a->pids[i] == pid && !strcmp(zs_tagg_comm(a, i), comm)) {
			*idx = i;
			return 0;
		}
	if (a->nr_procs >= UINT32_MAX - 1 || a->comms.len + len + 1 > UINT32_MAX ||
	    ZT_GROW(a->pids, a->cap_procs, a->nr_procs + 1) ||
	    ZT_GROW(a->comm_off, a->cap_off, a->nr_procs + 1))
		return -ENOMEM;
	a->comm_off[a->nr_procs] = (uint32_t)a->comms.len;
	zbuf_put(&a->comms, comm, len + 1);
	if (a->comms.err)
		return -ENOMEM;
	a->pids[a->nr_procs] = pid;
	*idx = (uint32_t)a->nr_procs;
	zt_htab_set(&a->phash, j, (uint32_t)a->nr_procs++);
	return 0;
}

static inline uint64_t ent_hash(int64_t t, uint32_t stack, uint32_t proc)
{
	return zt_hash_mix(zt_hash_pair((uint64_t)t, stack), proc);
}

static uint64_t ent_hash_at(const void *ctx, uint32_t i)
{
	const struct zs_tagg *a = ctx;

	return ent_hash(a->ents[i].t, a->ents[i].stack, a->ents[i].proc);
}

int zs_tagg_add(struct zs_tagg *a, int64_t t, uint32_t stack, uint32_t proc, uint64_t count,
		uint64_t value)
{
	uint64_t h;
	uint32_t i;
	size_t j;

	t = zs_bucket_of(t);
	h = ent_hash(t, stack, proc);
	if (zt_htab_reserve(&a->ehash, 1, ent_hash_at, a))
		return -ENOMEM;
	for (j = zt_htab_first(&a->ehash, h); zt_htab_get(&a->ehash, j, &i);
	     j = zt_htab_next(&a->ehash, j)) {
		struct zs_tent *e = &a->ents[i];

		if (e->t == t && e->stack == stack && e->proc == proc) {
			e->count += count;
			e->value += value;
			return 0;
		}
	}
	if (a->nr >= UINT32_MAX - 1 || ZT_GROW(a->ents, a->cap, a->nr + 1))
		return -ENOMEM;
	a->ents[a->nr] = (struct zs_tent){ t, stack, proc, count, value };
	zt_htab_set(&a->ehash, j, (uint32_t)a->nr++);
	return 0;
}

static int ent_before(const struct zs_tent *x, const struct zs_tent *y)
{
	if (x->t != y->t)
		return x->t < y->t;
	if (x->stack != y->stack)
		return x->stack < y->stack;
	return x->proc < y->proc;
}

ZT_DEFINE_MERGE_SORT(sort_ents, struct zs_tent, ent_before)

int zs_tagg_encode(const struct zs_tagg *a, const uint32_t *map, struct zbuf *out)
{
	struct zs_tent *e = malloc((a->nr + 1) * sizeof(*e)), *tmp = malloc((a->nr + 1) * sizeof(*e)),
		       *s;
	size_t i, k, nb = 0;
	int64_t prev_t = 0;

	if (!e || !tmp) {
		free(e);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < a->nr; i++) {
		e[i] = a->ents[i];
		if (map)
			e[i].stack = map[e[i].stack];
	}
	s = a->nr ? sort_ents(e, tmp, a->nr) : e;
	zbuf_put_uv(out, a->nr_procs);
	for (i = 0; i < a->nr_procs; i++) {
		zbuf_put_uv(out, a->pids[i]);
		zbuf_put_str(out, zs_tagg_comm(a, (uint32_t)i));
	}
	for (i = 0; i < a->nr; i++)
		if (!i || s[i].t != s[i - 1].t)
			nb++;
	zbuf_put_uv(out, nb);
	for (i = 0; i < a->nr; i = k) {
		uint64_t prev_stack = 0;

		for (k = i; k < a->nr && s[k].t == s[i].t; k++)
			;
		/* buckets are whole multiples: store the count of buckets */
		zbuf_put_sv(out, i ? (s[i].t - prev_t) / ZS_BUCKET_S : s[i].t / ZS_BUCKET_S);
		prev_t = s[i].t;
		zbuf_put_uv(out, k - i);
		for (size_t m = i; m < k; m++) {
			zbuf_put_uv(out, s[m].proc);
			zbuf_put_uv(out, s[m].stack - prev_stack);
			zbuf_put_uv(out, s[m].count);
			zbuf_put_uv(out, s[m].value);
			prev_stack = s[m].stack;
		}
	}
	free(e);
	free(tmp);
	return out->err ? -ENOMEM : 0;
}

/* ---- reading ---------------------------------------------------------------------- */

int zs_tagg_open(struct zs_tcur *c, const void *p, size_t len,
		 int (*fn)(void *ctx, uint32_t idx, uint32_t pid, const char *comm, size_t len),
		 void *ctx)
{
	uint64_t i, pid;
	const uint8_t *comm;
	size_t n;

	memset(c, 0, sizeof(*c));
	zcur_init(&c->c, p, len);
	if (zcur_uv(&c->c, &c->nr_procs) || c->nr_procs > zcur_left(&c->c) / 2)
		return -EBADMSG;
	for (i = 0; i < c->nr_procs; i++) {
		if (zcur_uv(&c->c, &pid) || pid > UINT32_MAX || zcur_bytes(&c->c, &comm, &n))
			return -EBADMSG;
		if (fn) {
			int r = fn(ctx, (uint32_t)i, (uint32_t)pid, (const char *)comm, n);

			if (r)
				return r;
		}
	}
	return zcur_uv(&c->c, &c->buckets_left) ? -EBADMSG : 0;
}

int zs_tagg_next(struct zs_tcur *c, struct zs_tent *e)
{
	uint64_t proc, d;

	while (!c->ents_left) {
		int64_t db;

		if (!c->buckets_left)
			return zcur_left(&c->c) ? -EBADMSG : 0;
		c->buckets_left--;
		if (zcur_sv(&c->c, &db) || db > INT64_MAX / (4 * ZS_BUCKET_S) ||
		    db < -(INT64_MAX / (4 * ZS_BUCKET_S)))
			return -EBADMSG;
		db *= ZS_BUCKET_S;
		if ((db > 0 && c->t > INT64_MAX / 2 - db) || (db < 0 && c->t < INT64_MIN / 2 - db))
			return -EBADMSG;
		c->t += db;
		if (zcur_uv(&c->c, &c->ents_left) || c->ents_left > zcur_left(&c->c))
			return -EBADMSG;
		c->stack = 0;
	}
	c->ents_left--;
	if (zcur_uv(&c->c, &proc) || proc >= c->nr_procs || zcur_uv(&c->c, &d) ||
	    d > UINT32_MAX - c->stack || zcur_uv(&c->c, &e->count) || zcur_uv(&c->c, &e->value))
		return -EBADMSG;
	c->stack += d;
	e->t = c->t;
	e->stack = (uint32_t)c->stack;
	e->proc = (uint32_t)proc;
	return 1;
}
