// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store interface of zt serve (store.h): opens the SQLite store
 * (sqlstore.h), with --clickhouse the ClickHouse one (chstore.h), and the
 * symbolizer cache (symcache.h), and sends each call to the one that
 * answers it.
 */
#include "server/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/log.h"
#include "server/chstore.h"
#include "server/norm.h"
#include "server/sqlstore.h"
#include "server/storeint.h"
#include "server/symcache.h"
#include "symbolizer/sha256.h"

#define LABEL_KEY_MAX 128
#define LABEL_VALUE_MAX 1024

/* A set of ClickHouse ids (of frames or stacks). */
struct idset {
	uint64_t *id;
	size_t cap;
	struct zt_htab h;
};

struct zs_store {
	struct zs_sql *sql;	  /* tokens, symbols; profiles without ClickHouse */
	struct zs_symcache *sym; /* NULL with admin_only */
	uint64_t ingest_errors;	  /* atomic */
	/* with ClickHouse (zt serve --clickhouse): profiles, stacks and frames
	 * live there; mem caches those read or written, each with its
	 * ClickHouse id (chf, chs: by mem id, and the way back) */
	struct zs_ch *ch;
	struct idset chf, chs;
	const struct resolve_source *sources; /* zs_store_opts' */
	size_t nr_sources;
	/* the frames and stacks this server wrote: ingests write only others */
	pthread_mutex_t kslock;
	struct idset kf, ks;
};

/* the last store error's sentence, per thread (zs_store_error()) */
static __thread char last_error[320];

const char *zs_store_error(void)
{
	return last_error;
}

static inline uint64_t idset_hash_at(const void *ctx, uint32_t i)
{
	return ((const struct idset *)ctx)->id[i]; /* SHA-256 bits already */
}

/* The index of id in k, or -1. */
static long idset_find(const struct idset *k, uint64_t id)
{
	size_t j;
	uint32_t i;

	if (!k->h.cap)
		return -1;
	for (j = zt_htab_first(&k->h, id); zt_htab_get(&k->h, j, &i); j = zt_htab_next(&k->h, j))
		if (k->id[i] == id)
			return i;
	return -1;
}

/* Room for n more. */
static int idset_reserve(struct idset *k, size_t n)
{
	if (ZT_GROW(k->id, k->cap, k->h.nr + n + 1) || zt_htab_reserve(&k->h, n, idset_hash_at, k))
		return -ENOMEM;
	return 0;
}

/* id as the next index (room reserved): chf and chs give each mem frame
 * and stack its ClickHouse id this way, in mem's order. */
static void idset_append(struct idset *k, uint64_t id)
{
	k->id[k->h.nr] = id;
	zt_htab_add(&k->h, id, (uint32_t)k->h.nr);
}

static void idset_release(struct idset *k)
{
	free(k->id);
	zt_htab_release(&k->h);
}

/* ---- open and close ------------------------------------------------------------ */

/* The sql store's drop hook: symbols replaced, their frames forgotten. */
static void drop_frames(void *ctx, const struct prof_build_id *bid)
{
	zs_symcache_drop(ctx, bid);
}

int zs_store_open(const char *dir, const struct zs_store_opts *o, struct zs_store **out,
		  char *msg, size_t msglen)
{
	struct zs_store *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->kslock, NULL);
	if (o) {
		s->sources = o->sources;
		s->nr_sources = o->nr_sources;
	}
	if ((err = zs_sql_open(dir, o, &s->sql, msg, msglen)))
		goto fail;
	if (o && o->admin_only) { /* tokens only */
		*out = s;
		return 0;
	}
	if (o && o->clickhouse && (err = zs_ch_open(o->clickhouse, &s->ch, msg, msglen)))
		goto fail;
	zs_sql_start(s->sql);
	err = zs_symcache_new(s->sql, zs_sql_symdir(s->sql), o && o->debuginfod, &s->sym);
	if (err) {
		zt_say(msg, msglen, "out of memory");
		goto fail;
	}
	zs_sql_on_drop(s->sql, drop_frames, s->sym);
	*out = s;
	return 0;
fail:
	zs_store_close(s);
	return err;
}

void zs_store_close(struct zs_store *s)
{
	if (!s)
		return;
	zs_symcache_free(s->sym);
	zs_ch_close(s->ch);
	idset_release(&s->chf);
	idset_release(&s->chs);
	idset_release(&s->kf);
	idset_release(&s->ks);
	pthread_mutex_destroy(&s->kslock);
	zs_sql_close(s->sql);
	free(s);
}

struct zs_sql *zs_store_sql(struct zs_store *s)
{
	return s->sql;
}

struct zs_symcache *zs_store_symcache(struct zs_store *s)
{
	return s->sym;
}

const char *zs_store_tmpdir(const struct zs_store *s)
{
	return zs_sql_tmpdir(s->sql);
}

/* ---- tokens: the SQLite store's -------------------------------------------------- */

int zs_token_create(struct zs_store *s, unsigned scopes, const char *name, char out[65])
{
	return zs_sql_token_create(s->sql, scopes, name, NULL, out);
}

int zs_token_create_in(struct zs_store *s, unsigned scopes, const char *name, const char *project,
		       char out[65])
{
	return zs_sql_token_create(s->sql, scopes, name, project, out);
}

int zs_token_import_in(struct zs_store *s, unsigned scopes, const char *name, const char *project,
		       const char *token, size_t len)
{
	return zs_sql_token_import(s->sql, scopes, name, project, token, len);
}

unsigned zs_token_check_in(struct zs_store *s, const char *token, size_t len,
			   char project[ZS_PROJECT_MAX + 1])
{
	return zs_sql_token_check(s->sql, token, len, project);
}

int zs_project_create(struct zs_store *s, const char *name)
{
	return zs_sql_project_create(s->sql, name);
}

int zs_project_known(struct zs_store *s, const char *name)
{
	return zs_sql_project_known(s->sql, name);
}

int zs_project_list(struct zs_store *s, zs_project_fn *cb, void *ctx)
{
	return zs_sql_project_list(s->sql, cb, ctx);
}

int zs_token_import(struct zs_store *s, unsigned scopes, const char *name, const char *token,
		    size_t len)
{
	return zs_sql_token_import(s->sql, scopes, name, NULL, token, len);
}

unsigned zs_token_check(struct zs_store *s, const char *token, size_t len)
{
	return zs_sql_token_check(s->sql, token, len, NULL);
}

size_t zs_token_count(struct zs_store *s)
{
	return zs_sql_token_count(s->sql);
}

int zs_token_list(struct zs_store *s, zs_token_fn *cb, void *ctx)
{
	return zs_sql_token_list(s->sql, cb, ctx);
}

int zs_token_revoke(struct zs_store *s, const char *name_or_id, zs_token_fn *cb, void *ctx)
{
	return zs_sql_token_revoke(s->sql, name_or_id, cb, ctx);
}

/* ---- symbols: the SQLite store's ------------------------------------------------- */

int zs_symbols_missing(struct zs_store *s, const char *text, size_t len, struct zbuf *out,
		       char *msg, size_t msglen)
{
	return zs_sql_symbols_below(s->sql, text, len, -1, out, msg, msglen);
}

int zs_symbols_below(struct zs_store *s, const char *text, size_t len, int want, struct zbuf *out,
		     char *msg, size_t msglen)
{
	return zs_sql_symbols_below(s->sql, text, len, want, out, msg, msglen);
}

int zs_symbol_stat(struct zs_store *s, const char *id, char etag[65])
{
	return zs_sql_symbol_stat(s->sql, id, etag);
}

int zs_symbol_get(struct zs_store *s, const char *id, void **data, size_t *len)
{
	return zs_sql_symbol_get(s->sql, id, data, len);
}

int zs_symbol_put_file(struct zs_store *s, const char *id, const char *tmp_path,
		       const struct zs_symbol_meta *m, int only_better, struct zs_symbol_put *r,
		       char *msg, size_t msglen)
{
	return zs_sql_symbol_put(s->sql, id, tmp_path, m, only_better, r, msg, msglen);
}

int zs_symfile_admit(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		     uint64_t size, uint64_t *limit, const char **limit_opt, char *msg,
		     size_t msglen)
{
	return zs_sql_symfile_admit(s->sql, id, kind, src, size, limit, limit_opt, msg, msglen);
}

int zs_symfile_put(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		   const char *tmp_path, int only_new, int *created, char *msg, size_t msglen)
{
	return zs_sql_symfile_put(s->sql, id, kind, src, tmp_path, only_new, created, msg, msglen);
}

int zs_symfile_open(struct zs_store *s, const char *id, enum zs_kind kind, const char *src,
		    struct zs_symfile *f)
{
	return zs_sql_symfile_open(s->sql, id, kind, src, f);
}

unsigned zs_symfile_has(struct zs_store *s, const char *id)
{
	return zs_sql_symfile_has(s->sql, id);
}

int zs_symfile_upstream(struct zs_store *s, const char *id, enum zs_kind kind, const char *src)
{
	return zs_sql_symfile_upstream(s->sql, id, kind, src);
}

/* ---- ingest ---------------------------------------------------------------------- */

static int valid_label(const struct zs_label *l)
{
	size_t i, n = l->key ? strlen(l->key) : 0;

	if (!n || n > LABEL_KEY_MAX || !l->value || strlen(l->value) > LABEL_VALUE_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = l->key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return 0;
	}
	for (i = 0; l->value[i]; i++)
		if ((unsigned char)l->value[i] < 0x20 || l->value[i] == 0x7f)
			return 0;
	return 1;
}

/* ---- ClickHouse ------------------------------------------------------------------- */

struct zs_ch *zs_store_ch(struct zs_store *s)
{
	return s->ch;
}

/* id added to k (a cache of what was written: no room, written again next time). */
static void idset_add(struct idset *k, uint64_t id)
{
	if (idset_find(k, id) < 0 && !idset_reserve(k, 1))
		idset_append(k, id);
}

/* The indices of the ids[0..n) not in k, into new (*nr of them). */
static void idset_missing(const struct idset *k, const uint64_t *ids, size_t n, uint32_t *new,
			  size_t *nr)
{
	size_t i;

	*nr = 0;
	for (i = 0; i < n; i++)
		if (idset_find(k, ids[i]) < 0)
			new[(*nr)++] = (uint32_t)i;
}

/* An ingest into ClickHouse: ids computed, the rows written. No wlock: ingests run side by side. */
static int ch_store(struct zs_store *s, const struct zs_norm *n, const void *body, size_t len,
		    const struct zs_label *labels, size_t nr_labels, struct zs_ingest_result *r,
		    char *msg, size_t msglen)
{
	uint64_t *fids = malloc((n->nr_frames + 1) * sizeof(*fids));
	uint64_t *sids = malloc((n->nr_stacks + 1) * sizeof(*sids));
	uint32_t *nf = malloc((n->nr_frames + 1) * sizeof(*nf));
	uint32_t *ns = malloc((n->nr_stacks + 1) * sizeof(*ns));
	uint64_t *buf = NULL, samples;
	size_t cap = 0, i, k, nnf = 0, nns = 0;
	char *bids = zs_norm_bids_text(n);
	int err;

	err = zs_ch_exists(s->ch, r->id, &samples, msg, msglen);
	if (err == 1) { /* stored before: this push's labels added */
		r->samples = samples;
		err = nr_labels ? zs_ch_add_labels(s->ch, r->id, labels, nr_labels, ZS_MAX_LABELS,
						   &r->labels_added, msg, msglen)
				: 0;
		goto out;
	}
	if (err)
		goto out;
	if (!fids || !sids || !nf || !ns || !bids) {
		err = -ENOMEM;
		goto out;
	}
	r->samples = n->samples;
	for (i = 0; i < n->nr_frames; i++) {
		size_t kl;
		const uint8_t *key = zs_norm_key(n, i, &kl);

		fids[i] = zs_ch_frame_id(key, kl);
	}
	for (i = 0; i < n->nr_stacks; i++) {
		const struct zs_nstack *st = &n->stacks[i];

		if (ZT_GROW(buf, cap, st->n + 1)) {
			err = -ENOMEM;
			goto out;
		}
		for (k = 0; k < st->n; k++)
			buf[k] = fids[n->sframes[st->off + k]];
		sids[i] = zs_ch_stack_id(buf, st->n);
	}
	pthread_mutex_lock(&s->kslock);
	idset_missing(&s->kf, fids, n->nr_frames, nf, &nnf);
	idset_missing(&s->ks, sids, n->nr_stacks, ns, &nns);
	pthread_mutex_unlock(&s->kslock);
	{
		struct zs_ch_put put = {.n = n,
					.id = r->id,
					.host = zs_profile_host(n, labels, nr_labels),
					.body = body,
					.len = len,
					.labels = labels,
					.nr_labels = nr_labels,
					.fids = fids,
					.sids = sids,
					.new_frames = nf,
					.new_stacks = ns,
					.nr_new_frames = nnf,
					.nr_new_stacks = nns,
					.buildids = bids};

		err = zs_ch_ingest(s->ch, &put, msg, msglen);
	}
	if (!err) {
		r->stored = 1;
		pthread_mutex_lock(&s->kslock);
		for (i = 0; i < nnf; i++)
			idset_add(&s->kf, fids[nf[i]]);
		for (i = 0; i < nns; i++)
			idset_add(&s->ks, sids[ns[i]]);
		pthread_mutex_unlock(&s->kslock);
	}
out:
	if (err == 1)
		err = 0;
	free(fids);
	free(sids);
	free(nf);
	free(ns);
	free(buf);
	free(bids);
	if (err && !msg[0])
		zt_say(msg, msglen, "cannot store the profile: %s", strerror(-err));
	return err;
}

/* What a resolve fetched: stacks (their frames' ClickHouse ids in fr). */
struct fetch {
	struct zs_store *s;
	struct {
		uint64_t id;
		size_t off, n;
	} *st;
	size_t nr_st, cap_st;
	uint64_t *fr;
	size_t nr_fr, cap_fr;
	int err;
};

static int fetched_stack(void *ctx, uint64_t id, const uint64_t *frames, size_t n)
{
	struct fetch *f = ctx;

	if (ZT_GROW(f->st, f->cap_st, f->nr_st + 1) || ZT_GROW(f->fr, f->cap_fr, f->nr_fr + n + 1))
		return -ENOMEM;
	f->st[f->nr_st].id = id;
	f->st[f->nr_st].off = f->nr_fr;
	f->st[f->nr_st++].n = n;
	memcpy(f->fr + f->nr_fr, frames, n * sizeof(*frames));
	f->nr_fr += n;
	return 0;
}

static int fetched_frame(void *ctx, uint64_t id, const uint8_t *key, size_t len)
{
	struct fetch *f = ctx;
	struct zs_store *s = f->s;
	int err = 0;
	long l;

	if (zs_ch_frame_id(key, len) != id || idset_find(&s->chf, id) >= 0)
		return 0; /* not the frame asked for, or known: skip */
	if ((err = idset_reserve(&s->chf, 1)))
		return err;
	if ((l = zs_mem_add_frame(s->sql, key, len)) < 0)
		return (int)l;
	idset_append(&s->chf, id);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int zs_ch_resolve(struct zs_store *s, const struct zs_ch_row *rows, size_t n, uint32_t *local,
		  char *msg, size_t msglen)
{
	struct fetch f = {.s = s};
	uint64_t *want = NULL;
	uint32_t *lf = NULL;
	size_t nw = 0, cap_want = 0, cap_lf = 0, i, k, u;
	int err = 0;

	pthread_mutex_lock(zs_sql_wlock(s->sql)); /* the writer alone adds to mem and the maps */
	if (ZT_GROW(want, cap_want, n + 1))
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		long l = idset_find(&s->chs, rows[i].stack);

		local[i] = l < 0 ? UINT32_MAX : (uint32_t)l;
		if (l < 0)
			want[nw++] = rows[i].stack;
	}
	if (!err && nw)
		err = zs_ch_stacks(s->ch, want, nw, fetched_stack, &f, msg, msglen);
	/* their frames not known yet, each once */
	if (!err && ZT_GROW(want, cap_want, f.nr_fr + 1))
		err = -ENOMEM;
	for (i = 0, nw = 0; !err && i < f.nr_fr; i++)
		if (idset_find(&s->chf, f.fr[i]) < 0)
			want[nw++] = f.fr[i];
	if (!err && nw) {
		qsort(want, nw, sizeof(*want), u64_cmp);
		for (i = 1, u = 1; i < nw; i++)
			if (want[i] != want[u - 1])
				want[u++] = want[i];
		err = zs_ch_frames(s->ch, want, u, fetched_frame, &f, msg, msglen);
	}
	for (i = 0; !err && i < f.nr_st; i++) {
		size_t nf = f.st[i].n;

		if (ZT_GROW(lf, cap_lf, nf + 1)) {
			err = -ENOMEM;
			break;
		}
		for (k = 0; k < nf; k++) {
			long l = idset_find(&s->chf, f.fr[f.st[i].off + k]);

			if (l < 0)
				break;
			lf[k] = (uint32_t)l;
		}
		if (k < nf || idset_find(&s->chs, f.st[i].id) >= 0)
			continue; /* a frame ClickHouse lacks (or a stack twice): left out */
		if (!(err = idset_reserve(&s->chs, 1))) {
			/* mem may have these frames as a stack already (another id
			 * for the same frames cannot be: ids come from the frames) */
			long l = zs_mem_add_stack(s->sql, lf, nf);

			if (l < 0)
				err = (int)l;
			else
				idset_append(&s->chs, f.st[i].id);
		}
	}
	for (i = 0; !err && i < n; i++)
		if (local[i] == UINT32_MAX) {
			long l = idset_find(&s->chs, rows[i].stack);

			local[i] = l < 0 ? UINT32_MAX : (uint32_t)l;
		}
	pthread_mutex_unlock(zs_sql_wlock(s->sql));
	free(want);
	free(lf);
	free(f.st);
	free(f.fr);
	return err;
}

/* ---- profiles: ClickHouse's, else the SQLite store's ------------------------------ */

static int ingest(struct zs_store *s, const void *body, size_t len, const char *tmp,
		  const struct zs_label *labels, size_t nr_labels, struct zs_ingest_result *r,
		  char *msg, size_t msglen)
{
	uint64_t max_body = zs_sql_max_body(s->sql);
	struct zs_norm n;
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	zt_say(msg, msglen, "%s", "");
	if (nr_labels > ZS_MAX_LABELS) {
		zt_say(msg, msglen, "too many labels (at most %d)", ZS_MAX_LABELS);
		return -EINVAL;
	}
	for (i = 0; i < nr_labels; i++)
		if (!valid_label(&labels[i])) {
			zt_say(msg, msglen, "bad label: keys are 1-%d of [A-Za-z0-9_.-], values at most "
					 "%d printable characters", LABEL_KEY_MAX, LABEL_VALUE_MAX);
			return -EINVAL;
		}
	if (len > max_body) {
		zt_say(msg, msglen, "the profile is larger than %llu bytes", (unsigned long long)max_body);
		return -EFBIG;
	}
	zs_norm_init(&n);
	n.sources = s->sources;
	n.nr_sources = s->nr_sources;
	err = zs_norm_body(&n, body, len, max_body, msg, msglen);
	if (!err)
		err = zt_sha256_hex(body, len, r->id);
	if (err) {
		__atomic_add_fetch(&s->ingest_errors, 1, __ATOMIC_RELAXED);
		zs_norm_release(&n);
		return err;
	}
	if (s->ch) { /* the recording goes to ClickHouse: the upload's file is removed after */
		err = ch_store(s, &n, body, len, labels, nr_labels, r, msg, msglen);
	} else {
		err = zs_sql_ingest(s->sql, &n, body, len, tmp, labels, nr_labels, r, msg, msglen);
	}
	zs_norm_release(&n);
	if (err)
		__atomic_add_fetch(&s->ingest_errors, 1, __ATOMIC_RELAXED);
	return err;
}

int zs_ingest_file(struct zs_store *s, const char *tmp_path, const struct zs_label *labels,
		   size_t nr_labels, struct zs_ingest_result *r, char *msg, size_t msglen)
{
	struct zt_image img;
	int err = zs_sql_map_tmp(s->sql, tmp_path, &img);

	if (err) {
		memset(r, 0, sizeof(*r));
		zt_say(msg, msglen, "cannot read the upload: %s", strerror(-err));
		if (err != -EINVAL)
			unlink(tmp_path);
		return err == -EINVAL ? -EINVAL : -EIO;
	}
	err = zs_fsync_path(tmp_path);
	if (err) {
		zt_image_close(&img);
		unlink(tmp_path);
		zt_say(msg, msglen, "cannot store the profile: %s", strerror(-err));
		return err;
	}
	err = ingest(s, img.data, img.len, tmp_path, labels, nr_labels, r, msg, msglen);
	zt_image_close(&img);
	if (err || !r->stored || s->ch)
		unlink(tmp_path); /* gone already when it was renamed into the store */
	return err;
}

int zs_ingest_mem(struct zs_store *s, const void *body, size_t len, const struct zs_label *labels,
		  size_t nr_labels, struct zs_ingest_result *r, char *msg, size_t msglen)
{
	return ingest(s, body, len, NULL, labels, nr_labels, r, msg, msglen);
}

int zs_profile_delete(struct zs_store *s, const char *id)
{
	if (!zs_profile_id_ok(id))
		return -ENOENT;
	if (s->ch)
		return zs_ch_delete(s->ch, id, last_error, sizeof(last_error));
	return zs_sql_profile_delete(s->sql, id);
}

const char *zs_store_ch_version(struct zs_store *s)
{
	return s->ch ? zs_ch_version(s->ch) : "";
}

int zs_store_retention(struct zs_store *s, unsigned days, unsigned *dropped, char *msg,
		       size_t msglen)
{
	*dropped = 0;
	if (s->ch)
		return zs_ch_retention(s->ch, days, dropped, msg, msglen);
	return zs_sql_retention(s->sql, days, dropped, msg, msglen);
}

/* ---- stats ------------------------------------------------------------------------ */

void zs_store_stats(struct zs_store *s, struct zs_store_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->ingest_errors = __atomic_load_n(&s->ingest_errors, __ATOMIC_RELAXED);
	if (s->sym)
		zs_symcache_counts(s->sym, &st->symbolized_frames, &st->frame_cache_hits);
	if (s->ch)
		zs_ch_stats(s->ch, &st->profiles, &st->samples, &st->bytes);
	zs_sql_stats(s->sql, !s->ch, st);
}

void zs_labels_json(struct zbuf *out, const struct zs_label *l, size_t n)
{
	size_t i, j, k, nv;

	zbuf_put_u8(out, '{');
	for (i = 0, k = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(l[j].key, l[i].key); j++)
			;
		if (j < i)
			continue; /* shown with its first */
		if (l[i].key[0] == '_' && l[i].key[1] == '_')
			continue; /* the store's own (the projects): never shown */
		for (j = i, nv = 0; j < n; j++)
			nv += !strcmp(l[j].key, l[i].key);
		if (k++)
			zbuf_put_u8(out, ',');
		zbuf_put_json_str(out, l[i].key);
		zbuf_put_u8(out, ':');
		if (nv == 1) {
			zbuf_put_json_str(out, l[i].value);
			continue;
		}
		zbuf_put_u8(out, '[');
		for (j = i, nv = 0; j < n; j++) {
			if (strcmp(l[j].key, l[i].key))
				continue;
			if (nv++)
				zbuf_put_u8(out, ',');
			zbuf_put_json_str(out, l[j].value);
		}
		zbuf_put_u8(out, ']');
	}
	zbuf_put_u8(out, '}');
}
