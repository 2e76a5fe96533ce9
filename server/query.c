// SPDX-License-Identifier: GPL-2.0-or-later
/* Selections, merged aggregates and the query outputs of zt serve (above the store interface). */
#include "server/query.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/flame.h"
#include "formats/folded.h"
#include "formats/profile.pb-c.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/log.h"
#include "libprof/strtab.h"
#include "libprof/text.h"
#include "server/chstore.h"
#include "server/norm.h"
#include "server/store.h"
#include "server/storeint.h"
#include "server/tagg.h"

/* ---- selections ------------------------------------------------------------------ */

static int is_id(const char *v)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return 0;
	return !v[64];
}

/* The binds of a statement being built: texts (borrowed) and integers, in order. */
struct binds {
	struct {
		const char *s;
		int64_t i;
	} v[2 * ZS_SEL_MAX_IDS + 4 * ZS_SEL_MAX_LABELS + 4 * ZS_MAX_MATCHERS + 16];
	size_t n;
};

static void bind_s(struct binds *b, const char *s)
{
	if (b->n < sizeof(b->v) / sizeof(b->v[0]))
		b->v[b->n++].s = s;
}

static void bind_i(struct binds *b, int64_t i)
{
	if (b->n < sizeof(b->v) / sizeof(b->v[0])) {
		b->v[b->n].s = NULL;
		b->v[b->n++].i = i;
	}
}

static void put_s(struct zbuf *q, const char *s)
{
	zbuf_put(q, s, strlen(s));
}

/* The SQL of matcher m on a profile: a column's, or a label's (a label a
 * profile lacks has the value "", a label with several values matches
 * with any of them). */
static void matcher_sql(struct zbuf *q, struct binds *b, const struct zs_matcher *m)
{
	const char *col = !strcmp(m->name, "__name__") ? "ptype"
			  : !strcmp(m->name, "host")   ? "host"
			  : !strcmp(m->name, "command") ? "command"
							: NULL;
	int re = m->op == ZS_MOP_RE || m->op == ZS_MOP_NRE;
	int neg = m->op == ZS_MOP_NE || m->op == ZS_MOP_NRE;

	put_s(q, neg ? " AND NOT (" : " AND (");
	if (col && strcmp(col, "ptype")) {
		/* host and command: the recording's, or a pushed label of that name
		 * (agents on one machine name their hosts so) */
		put_s(q, col);
		put_s(q, re ? " REGEXP ?" : " = ?");
		bind_s(b, m->value);
		put_s(q, " OR EXISTS(SELECT 1 FROM labels l WHERE l.rid=profiles.rid AND l.key=? AND"
			 " l.value");
		put_s(q, re ? " REGEXP ?)" : " = ?)");
		bind_s(b, m->name);
		bind_s(b, m->value);
	} else if (col) {
		put_s(q, col);
		put_s(q, re ? " REGEXP ?" : " = ?");
		bind_s(b, m->value);
	} else if (m->name[0] == '_' && m->name[1] == '_') {
		/* the store's own labels (__project__) are not the selector's */
		put_s(q, m->empty_ok ? "1" : "0");
	} else {
		put_s(q, "EXISTS(SELECT 1 FROM labels l WHERE l.rid=profiles.rid AND l.key=? AND"
			 " l.value");
		put_s(q, re ? " REGEXP ?)" : " = ?)");
		bind_s(b, m->name);
		bind_s(b, m->value);
		if (m->empty_ok) {
			put_s(q, " OR NOT EXISTS(SELECT 1 FROM labels l WHERE l.rid=profiles.rid AND"
				 " l.key=?)");
			bind_s(b, m->name);
		}
	}
	zbuf_put_u8(q, ')');
}

/* The WHERE clause of a selection's profiles into q and b. list: the
 * profiles whose time overlaps [from, to]; else those with a time bucket
 * that may (server/tagg.h: each sample's bucket lies in its profile's
 * [time_start - ZS_BUCKET_S, time_end]). */
static void sel_where(struct zbuf *q, struct binds *b, const struct zs_selection *sel, int list)
{
	size_t i;

	put_s(q, " WHERE 1");
	if (sel->nr_ids) {
		put_s(q, " AND id IN (");
		for (i = 0; i < sel->nr_ids; i++) {
			zbuf_put(q, i ? ",?" : "?", i ? 2 : 1);
			bind_s(b, sel->ids[i]);
		}
		zbuf_put_u8(q, ')');
	}
	if (sel->host) {
		put_s(q, " AND host=?");
		bind_s(b, sel->host);
	}
	if (sel->command) {
		put_s(q, " AND command=?");
		bind_s(b, sel->command);
	}
	for (i = 0; i < sel->nr_labels; i++) {
		put_s(q, " AND EXISTS(SELECT 1 FROM labels l WHERE l.rid=profiles.rid AND"
			 " l.key=? AND l.value=?)");
		bind_s(b, sel->labels[i].key);
		bind_s(b, sel->labels[i].value);
	}
	if (sel->project) {
		/* a profile pushed before projects is the default project's */
		put_s(q, " AND (EXISTS(SELECT 1 FROM labels l WHERE l.rid=profiles.rid AND"
			 " l.key='" ZS_PROJECT_LABEL "' AND l.value=?)");
		bind_s(b, sel->project);
		if (!strcmp(sel->project, ZS_DEFAULT_PROJECT))
			put_s(q, " OR NOT EXISTS(SELECT 1 FROM labels l WHERE l.rid=profiles.rid AND"
				 " l.key='" ZS_PROJECT_LABEL "')");
		zbuf_put_u8(q, ')');
	}
	for (i = 0; i < sel->match.n; i++)
		if (!zs_matcher_is_proc(&sel->match.m[i]))
			matcher_sql(q, b, &sel->match.m[i]);
	if (sel->from) {
		put_s(q, " AND time_end>=?");
		bind_i(b, sel->from - (list ? 0 : ZS_BUCKET_S));
	}
	if (sel->to) {
		put_s(q, " AND time_start<=?");
		bind_i(b, sel->to + (list ? 0 : ZS_BUCKET_S));
	}
}

static int prepare_binds(sqlite3 *db, struct zbuf *q, const struct binds *b, sqlite3_stmt **st)
{
	size_t i;
	int rc;

	zbuf_put_u8(q, 0);
	if (q->err)
		return -ENOMEM;
	rc = sqlite3_prepare_v2(db, (const char *)q->data, -1, st, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	for (i = 0; i < b->n; i++)
		if (b->v[i].s)
			sqlite3_bind_text(*st, (int)i + 1, b->v[i].s, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(*st, (int)i + 1, b->v[i].i);
	return 0;
}

/* The SQL of a selection (its WHERE clause and ORDER/LIMIT) and its binds.
 * list 0: a merge's profiles; 1: the list's, ordered, limit and offset
 * applied; 2: the list's, neither (a count). */
static int sel_prepare(sqlite3 *db, const struct zs_selection *sel, const char *cols, int list,
		       sqlite3_stmt **st)
{
	struct binds *b = calloc(1, sizeof(*b));
	struct zbuf q;
	int err;

	if (!b)
		return -ENOMEM;
	zbuf_init(&q);
	put_s(&q, "SELECT ");
	put_s(&q, cols);
	put_s(&q, " FROM profiles");
	sel_where(&q, b, sel, list != 0);
	if (list == 1) {
		put_s(&q, " ORDER BY time_start DESC, pushed_at DESC, rid DESC");
		if (sel->limit || sel->offset) {
			put_s(&q, " LIMIT ? OFFSET ?");
			bind_i(b, sel->limit ? (int64_t)sel->limit : -1);
			bind_i(b, (int64_t)sel->offset);
		}
	}
	err = prepare_binds(db, &q, b, st);
	zbuf_release(&q);
	free(b);
	return err;
}

/* The number of profiles a selection lists (limit and offset aside). */
static int sel_count(sqlite3 *db, const struct zs_selection *sel, int64_t *n)
{
	sqlite3_stmt *st = NULL;
	int err = sel_prepare(db, sel, "count(*)", 2, &st);

	if (!err)
		err = sqlite3_step(st) == SQLITE_ROW ? 0 : -EIO;
	if (!err)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return err;
}


/* The process matchers of a selection (comm, pid). */
struct procsel {
	const struct zs_matcher *m[ZS_MAX_MATCHERS];
	size_t n;
};

static void procsel_of(struct procsel *ps, const struct zs_selection *sel)
{
	size_t i;

	ps->n = 0;
	for (i = 0; i < sel->match.n; i++)
		if (zs_matcher_is_proc(&sel->match.m[i]))
			ps->m[ps->n++] = &sel->match.m[i];
}

/* Whether process (pid, comm of clen bytes) passes every process matcher;
 * comm NULL: a profile from before processes were kept (its pid and comm
 * are absent labels, ""). */
static int proc_ok(const struct procsel *ps, uint32_t pid, const char *comm, size_t clen)
{
	char pidb[16] = "", cb[256] = "";
	size_t i;

	if (comm) {
		snprintf(pidb, sizeof(pidb), "%" PRIu32, pid);
		if (clen >= sizeof(cb))
			clen = sizeof(cb) - 1;
		memcpy(cb, comm, clen);
		cb[clen] = 0;
	}
	for (i = 0; i < ps->n; i++) {
		const char *v = ps->m[i]->name[0] == 'p' ? pidb : cb;

		if (!zs_matcher_holds(ps->m[i], &v, comm ? 1 : 0))
			return 0;
	}
	return 1;
}

/* this thread's error sentence (zs_store_error()) */
#define STORE_MSG 320
static char *store_msg(void)
{
	char *m = (char *)zs_store_error();

	m[0] = 0;
	return m;
}

/* ---- JSON --------------------------------------------------------------------------- */


#define LIST_COLS "rid, id, host, command, event, format, time_start, time_end, samples, weight," \
		  " size, pushed_at, ptype, unit"

static int profile_obj(sqlite3 *db, sqlite3_stmt *row, struct zbuf *out)
{
	struct zs_label *l = NULL;
	sqlite3_stmt *ls;
	size_t n = 0, cap = 0, i;
	int rc, err = 0;

	zbuf_put_u8(out, '{');
	zbuf_put_json_kv_str(out, "id", (const char *)sqlite3_column_text(row, 1), 0);
	zbuf_put_json_kv_str(out, "host", (const char *)sqlite3_column_text(row, 2), 1);
	zbuf_put_json_kv_str(out, "command", (const char *)sqlite3_column_text(row, 3), 1);
	zbuf_put(out, ",\"labels\":", 10);
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM labels WHERE rid=? ORDER BY rowid", -1, &ls,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(ls, 1, sqlite3_column_int64(row, 0));
	while (!err && (rc = sqlite3_step(ls)) == SQLITE_ROW) {
		if (ZT_GROW(l, cap, n + 1)) {
			err = -ENOMEM;
			break;
		}
		l[n].key = strdup((const char *)sqlite3_column_text(ls, 0));
		l[n].value = strdup((const char *)sqlite3_column_text(ls, 1));
		if (!l[n].key || !l[n].value)
			err = -ENOMEM;
		n++;
	}
	sqlite3_finalize(ls);
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	if (!err)
		zs_labels_json(out, l, n);
	for (i = 0; i < n; i++) {
		free((char *)l[i].key);
		free((char *)l[i].value);
	}
	free(l);
	if (err)
		return err;
	zbuf_put_json_kv_int(out, "time_start", sqlite3_column_int64(row, 6));
	zbuf_put_json_kv_int(out, "time_end", sqlite3_column_int64(row, 7));
	zbuf_put_json_kv_int(out, "samples", sqlite3_column_int64(row, 8));
	zbuf_put_json_kv_int(out, "weight", sqlite3_column_int64(row, 9));
	zbuf_put_json_kv_str(out, "type", (const char *)sqlite3_column_text(row, 12), 1);
	zbuf_put_json_kv_str(out, "unit", (const char *)sqlite3_column_text(row, 13), 1);
	zbuf_put_json_kv_int(out, "value", sqlite3_column_int64(row, 9));
	zbuf_put_json_kv_str(out, "event", (const char *)sqlite3_column_text(row, 4), 1);
	zbuf_put_json_kv_str(out, "format", (const char *)sqlite3_column_text(row, 5), 1);
	zbuf_put_json_kv_int(out, "size", sqlite3_column_int64(row, 10));
	zbuf_put_json_kv_int(out, "pushed_at", sqlite3_column_int64(row, 11));
	zbuf_put_u8(out, '}');
	return out->err ? -ENOMEM : 0;
}

/* Whether any process of profile rid passes ps (a profile without
 * processes: when ps passes absent pid and comm). */
struct anyproc {
	const struct procsel *ps;
	int any;
};

static int anyproc_cb(void *ctx, uint32_t idx, uint32_t pid, const char *comm, size_t len)
{
	struct anyproc *a = ctx;

	(void)idx;
	if (proc_ok(a->ps, pid, comm, len))
		a->any = 1;
	return 0;
}

static void anyproc_visit(void *ctx, const uint8_t *agg, size_t len, int timed)
{
	struct anyproc *a = ctx;
	struct zs_tcur c;

	if (!timed)
		a->any = proc_ok(a->ps, 0, NULL, 0);
	else
		zs_tagg_open(&c, agg, len, anyproc_cb, a);
}

int zs_list_json(struct zs_store *s, const struct zs_selection *sel, struct zbuf *out)
{
	struct zs_selection *all = NULL;
	struct procsel ps;
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t total = 0, k = 0;
	int err, rc, n = 0;

	if (zs_store_ch(s))
		return zs_ch_list_json(zs_store_ch(s), sel, out, store_msg(), STORE_MSG);
	procsel_of(&ps, sel);
	if ((err = zs_db_get(zs_store_sql(s), &db)))
		return err;
	if (!ps.n) {
		err = sel_count(db, sel, &total);
	} else {
		/* the processes are in the rows' taggs: every row is read, limit
		 * and offset counted here */
		all = malloc(sizeof(*all));
		if (!all)
			err = -ENOMEM;
		else {
			memcpy(all, sel, sizeof(*all));
			all->limit = all->offset = 0;
			sel = all;
		}
	}
	if (!err)
		err = sel_prepare(db, sel, LIST_COLS, 1, &st);
	if (!err) {
		zbuf_put(out, "{\"profiles\":[", 13);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (ps.n) {
				struct anyproc a = { &ps, 0 };

				err = zs_agg_visit(zs_store_sql(s), db, sqlite3_column_int64(st, 0), 1,
						   anyproc_visit, &a);
				if (err == -ENOENT)
					err = 0;
				if (err || !a.any)
					continue;
				total++;
				if (k++ < (int64_t)all->offset ||
				    (all->limit && n >= (int)all->limit))
					continue;
			}
			if (n++)
				zbuf_put_u8(out, ',');
			err = profile_obj(db, st, out);
		}
		if (!err && rc != SQLITE_DONE)
			err = -EIO;
		zbuf_put_u8(out, ']');
		zbuf_put_json_kv_int(out, "total", total);
		zbuf_put_u8(out, '}');
		sqlite3_finalize(st);
	}
	zs_db_put(zs_store_sql(s), db);
	free(all);
	return err ? err : out->err ? -ENOMEM : 0;
}

int zs_profile_in_project(struct zs_store *s, const char *id, const char *project)
{
	struct zs_selection *sel;
	struct zbuf out;
	sqlite3 *db;
	int64_t n = 0;
	int err;

	if (!is_id(id))
		return -ENOENT;
	if (!(sel = zs_selection_of_id(id)))
		return -ENOMEM;
	sel->project = project;
	if (zs_store_ch(s)) {
		zbuf_init(&out);
		err = zs_ch_list_json(zs_store_ch(s), sel, &out, store_msg(), STORE_MSG);
		zbuf_put_u8(&out, 0);
		if (!err && !out.err && strstr((const char *)out.data, id))
			n = 1;
		err = out.err ? -ENOMEM : err;
		zbuf_release(&out);
	} else if (!(err = zs_db_get(zs_store_sql(s), &db))) {
		err = sel_count(db, sel, &n);
		zs_db_put(zs_store_sql(s), db);
	}
	free(sel);
	return err ? err : n ? 0 : -ENOENT;
}

int zs_profile_projects(struct zs_store *s, const char *id)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	int n = 0;

	if (is_id(id) && zs_store_ch(s)) {
		n = zs_ch_projects(zs_store_ch(s), id, store_msg(), STORE_MSG);
		return n > 1 ? n : 1;
	}
	if (!is_id(id) || zs_db_get(zs_store_sql(s), &db))
		return 1;
	if (sqlite3_prepare_v2(db,
			       "SELECT count(DISTINCT l.value) FROM profiles p JOIN labels l ON"
			       " l.rid=p.rid AND l.key='" ZS_PROJECT_LABEL "' WHERE p.id=?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	zs_db_put(zs_store_sql(s), db);
	return n ? n : 1;
}

int zs_profile_json(struct zs_store *s, const char *id, struct zbuf *out)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	int err, rc;

	if (!is_id(id))
		return -ENOENT;
	if (zs_store_ch(s))
		return zs_ch_profile_json(zs_store_ch(s), id, out, store_msg(), STORE_MSG);
	if ((err = zs_db_get(zs_store_sql(s), &db)))
		return err;
	if (sqlite3_prepare_v2(db, "SELECT " LIST_COLS " FROM profiles WHERE id=?", -1, &st, NULL) !=
	    SQLITE_OK) {
		zs_db_put(zs_store_sql(s), db);
		return -EIO;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	err = rc == SQLITE_ROW ? profile_obj(db, st, out) : rc == SQLITE_DONE ? -ENOENT : -EIO;
	sqlite3_finalize(st);
	zs_db_put(zs_store_sql(s), db);
	return err;
}

/* ---- merging ------------------------------------------------------------------------ */

/* A time series being summed: values by bucket of step seconds from from. */
struct series {
	int64_t from, step;
	size_t n;
	uint64_t *v;
};

/* A selection merged: per stored stack, its samples and value (the
 * samples' weights: nanoseconds of CPU time for cpu, events for counts). */
struct merged {
	uint64_t *count, *weight; /* by stack id, nr_stacks of them */
	uint32_t *stacks;         /* the stacks with samples, in id order */
	size_t nr_stacks, nr_used;
	uint64_t profiles, samples, total_weight;
	int bad;
	char type[128], unit[64]; /* the selection's profile type and unit ("": none) */
	/* the filters of the samples */
	int timed;        /* read the taggs: a time range or process matchers */
	int64_t from, to; /* the selection's (0: open) */
	struct procsel ps;
	int64_t cur_t;    /* the profile being merged: its start (a row without tagg) */
	int64_t tmin, tmax; /* the merged profiles' first start and last end (0: none) */
	uint8_t *pok;     /* its processes: which pass */
	size_t cap_pok;
	struct series *ts; /* NULL, or the time series to sum into */
	/* byproc: also per (stack, process): the samples of pprof's sample
	 * labels pid and comm */
	int byproc;
	struct psample *psm;
	size_t nr_psm, cap_psm;
	struct zt_htab pshash;
	struct zt_strtab comms;
	uint32_t *ppid, *pcomm; /* the current tagg's processes */
	size_t cap_pp, cap_pc;
};

struct psample {
	uint32_t stack, pid, comm; /* comm: in merged.comms */
	uint64_t count, value;
};

static inline int bucket_in(const struct merged *mg, int64_t b)
{
	return (!mg->from || b + ZS_BUCKET_S > mg->from) && (!mg->to || b <= mg->to);
}

static inline void series_add(struct series *ts, int64_t b, uint64_t v)
{
	if (ts && b >= ts->from && (uint64_t)(b - ts->from) / (uint64_t)ts->step < ts->n)
		ts->v[(b - ts->from) / ts->step] += v;
}

static int pok_cb(void *ctx, uint32_t idx, uint32_t pid, const char *comm, size_t len)
{
	struct merged *mg = ctx;

	if (ZT_GROW(mg->pok, mg->cap_pok, (size_t)idx + 1))
		return -ENOMEM;
	mg->pok[idx] = (uint8_t)proc_ok(&mg->ps, pid, comm, len);
	if (mg->byproc) {
		char cb[256];

		if (ZT_GROW(mg->ppid, mg->cap_pp, (size_t)idx + 1) ||
		    ZT_GROW(mg->pcomm, mg->cap_pc, (size_t)idx + 1))
			return -ENOMEM;
		snprintf(cb, sizeof(cb), "%.*s", (int)(len < 255 ? len : 255), comm);
		mg->ppid[idx] = pid;
		if (zt_strtab_intern_str(&mg->comms, cb, &mg->pcomm[idx]))
			return -ENOMEM;
	}
	return 0;
}

static inline uint64_t psm_hash(uint32_t stack, uint32_t pid, uint32_t comm)
{
	return zt_hash_mix(zt_hash_pair(stack, pid), comm);
}

static uint64_t psm_hash_at(const void *ctx, uint32_t i)
{
	const struct merged *mg = ctx;

	return psm_hash(mg->psm[i].stack, mg->psm[i].pid, mg->psm[i].comm);
}

/* Count samples of stack in process (pid, comm) (byproc). */
static void psm_add(struct merged *mg, uint32_t stack, uint32_t pid, uint32_t comm, uint64_t cnt,
		   uint64_t w)
{
	uint64_t h = psm_hash(stack, pid, comm);
	uint32_t i;
	size_t j;

	if (zt_htab_reserve(&mg->pshash, 1, psm_hash_at, mg)) {
		mg->bad = 1;
		return;
	}
	for (j = zt_htab_first(&mg->pshash, h); zt_htab_get(&mg->pshash, j, &i);
	     j = zt_htab_next(&mg->pshash, j))
		if (mg->psm[i].stack == stack && mg->psm[i].pid == pid && mg->psm[i].comm == comm) {
			mg->psm[i].count += cnt;
			mg->psm[i].value += w;
			return;
		}
	if (ZT_GROW(mg->psm, mg->cap_psm, mg->nr_psm + 1)) {
		mg->bad = 1;
		return;
	}
	mg->psm[mg->nr_psm] = (struct psample){ stack, pid, comm, cnt, w };
	zt_htab_set(&mg->pshash, j, (uint32_t)mg->nr_psm++);
}

static inline void merge_add(struct merged *mg, uint64_t st, uint64_t cnt, uint64_t w)
{
	mg->count[st] += cnt;
	mg->weight[st] += w;
	mg->samples += cnt;
	mg->total_weight += w;
}

static void merge_cb(void *ctx, const uint8_t *agg, size_t len, int timed)
{
	struct merged *mg = ctx;
	uint64_t st, cnt, w;

	if (!timed) {
		struct zs_agg_cur c = { agg, agg + len, 0 };
		int64_t b = zs_bucket_of(mg->cur_t);

		if (mg->timed && (!bucket_in(mg, b) || !proc_ok(&mg->ps, 0, NULL, 0)))
			return;
		while (c.p < c.end) {
			if (zs_agg_next(&c, &st, &cnt, &w)) {
				mg->bad = 1;
				return;
			}
			if (st >= mg->nr_stacks)
				continue; /* committed after this query took the tables */
			merge_add(mg, st, cnt, w);
			series_add(mg->ts, b, w);
			if (mg->byproc)
				psm_add(mg, (uint32_t)st, 0, 0, cnt, w);
		}
	} else {
		struct zs_tcur c;
		struct zs_tent e;
		int r;

		if (zs_tagg_open(&c, agg, len, pok_cb, mg)) {
			mg->bad = 1;
			return;
		}
		while ((r = zs_tagg_next(&c, &e)) == 1) {
			if (!bucket_in(mg, e.t) || !mg->pok[e.proc] || e.stack >= mg->nr_stacks)
				continue;
			merge_add(mg, e.stack, e.count, e.value);
			series_add(mg->ts, e.t, e.value);
			if (mg->byproc)
				psm_add(mg, e.stack, mg->ppid[e.proc], mg->pcomm[e.proc], e.count,
					e.value);
		}
		if (r < 0)
			mg->bad = 1;
	}
}

static void merged_release(struct merged *mg)
{
	free(mg->count);
	free(mg->weight);
	free(mg->stacks);
	free(mg->pok);
	free(mg->psm);
	zt_htab_release(&mg->pshash);
	zt_strtab_release(&mg->comms);
	free(mg->ppid);
	free(mg->pcomm);
}

/* The profile type and unit of a selection into mg: -EDOM (with the
 * store's error sentence) when its profiles are of several types. */
static int sel_type(sqlite3 *db, const struct zs_selection *sel, struct merged *mg)
{
	char types[256] = "", first[128] = "";
	sqlite3_stmt *st;
	size_t n = 0, k = 0;
	int err, rc;

	err = sel_prepare(db, sel, "DISTINCT ptype, unit", 0, &st);
	if (err)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < 8) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (!t)
			t = "";
		if (!n) {
			snprintf(mg->type, sizeof(mg->type), "%s", t);
			snprintf(mg->unit, sizeof(mg->unit), "%s",
				 (const char *)sqlite3_column_text(st, 1));
			snprintf(first, sizeof(first), "%s", t);
		} else if (!strcmp(t, first)) {
			continue; /* the same type with another unit: a pprof's */
		}
		k += (size_t)snprintf(types + k, sizeof(types) - k, "%s%s", n ? ", " : "", t);
		if (k >= sizeof(types))
			k = sizeof(types) - 1;
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -EIO;
	if (n > 1) {
		zt_say(store_msg(), STORE_MSG,
		       "the selection holds profiles of %s%zu types (%s): name one, as in "
		       "query={__name__=\"%s\"}",
		       n >= 8 ? "at least " : "", n, types, first);
		return -EDOM;
	}
	return 0;
}

/* A selection merged by ClickHouse, its stacks in mem (before mem is read-locked). */
struct premerged {
	struct zs_ch_row *rows;
	uint32_t *local; /* the rows' mem stack ids */
	size_t nr;
	uint64_t profiles;
	char type[128], unit[64];
	int64_t span[3];
};

static int ch_premerge(struct zs_store *s, const struct zs_selection *sel, struct premerged *pm)
{
	char *msg = store_msg();
	int err;

	memset(pm, 0, sizeof(*pm));
	err = zs_ch_type(zs_store_ch(s), sel, pm->type, sizeof(pm->type), pm->unit, sizeof(pm->unit),
			 pm->span, msg, STORE_MSG);
	if (!err)
		err = zs_ch_merge(zs_store_ch(s), sel, &pm->rows, &pm->nr, &pm->profiles, msg, STORE_MSG);
	if (!err && !(pm->local = malloc((pm->nr + 1) * sizeof(*pm->local))))
		err = -ENOMEM;
	if (!err)
		err = zs_ch_resolve(s, pm->rows, pm->nr, pm->local, msg, STORE_MSG);
	return err;
}

/* Merge the selection (mem read-locked by the caller; pm: ClickHouse's,
 * or NULL); ts: a time series to sum into too, or NULL. */
static int merge(struct zs_store *s, const struct zs_mem *m, const struct zs_selection *sel,
		 const struct premerged *pm, struct merged *mg, struct series *ts, int byproc)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	size_t i;
	int err, rc = SQLITE_DONE;

	memset(mg, 0, sizeof(*mg));
	mg->byproc = byproc;
	zt_strtab_init(&mg->comms);
	if (byproc && zt_strtab_intern_str(&mg->comms, "", &(uint32_t){ 0 }))
		return -ENOMEM; /* id 0: "" (a profile without processes) */
	mg->nr_stacks = m->nr_stacks;
	mg->count = calloc(mg->nr_stacks + 1, sizeof(*mg->count));
	mg->weight = calloc(mg->nr_stacks + 1, sizeof(*mg->weight));
	if (!mg->count || !mg->weight)
		return -ENOMEM;
	if (pm) {
		for (i = 0; i < pm->nr; i++) {
			uint32_t sid = pm->local[i];

			if (sid >= mg->nr_stacks)
				continue; /* a stack ClickHouse did not give */
			mg->count[sid] += pm->rows[i].count;
			mg->weight[sid] += pm->rows[i].weight;
			mg->samples += pm->rows[i].count;
			mg->total_weight += pm->rows[i].weight;
		}
		mg->profiles = pm->profiles;
		memcpy(mg->type, pm->type, sizeof(mg->type));
		memcpy(mg->unit, pm->unit, sizeof(mg->unit));
		mg->tmin = pm->span[0];
		mg->tmax = pm->span[1];
		goto used;
	}
	mg->timed = zs_selection_cuts_samples(sel);
	mg->from = sel->from;
	mg->to = sel->to;
	mg->ts = ts;
	procsel_of(&mg->ps, sel);
	if ((err = zs_db_get(zs_store_sql(s), &db)))
		return err;
	err = sel_type(db, sel, mg);
	if (!err)
		err = sel_prepare(db, sel, "rid, time_start, time_end", 0, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t before = mg->samples;
		int64_t t1 = sqlite3_column_int64(st, 2);

		mg->cur_t = sqlite3_column_int64(st, 1);
		err = zs_agg_visit(zs_store_sql(s), db, sqlite3_column_int64(st, 0),
				   mg->timed || ts || byproc, merge_cb, mg);
		if (err == -ENOENT) {
			err = 0; /* deleted meanwhile */
		} else if (mg->samples > before || !mg->timed) {
			mg->profiles++;
			if (mg->cur_t > 0 && (!mg->tmin || mg->cur_t < mg->tmin))
				mg->tmin = mg->cur_t;
			if (t1 > mg->tmax)
				mg->tmax = t1;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	zs_db_put(zs_store_sql(s), db);
	if (err)
		return err;
used:
	for (i = 0; i < mg->nr_stacks; i++)
		if (mg->count[i] || mg->weight[i])
			mg->nr_used++;
	mg->stacks = malloc((mg->nr_used + 1) * sizeof(*mg->stacks));
	if (!mg->stacks)
		return -ENOMEM;
	for (i = 0, mg->nr_used = 0; i < mg->nr_stacks; i++)
		if (mg->count[i] || mg->weight[i])
			mg->stacks[mg->nr_used++] = (uint32_t)i;
	return 0;
}

/* A query's view: the tables read-locked, the selection merged, every
 * frame of its stacks symbolized (the symbol cache read-locked). */
struct view {
	struct zs_store *s;
	const struct zs_mem *m;
	struct zs_symcache *c;
	struct zs_symframes *const *frames; /* c's, while locked_c */
	struct merged mg;
	int locked_c;
};

static int view_open_opt(struct view *v, struct zs_store *s, const struct zs_selection *sel,
			 int byproc);

static int view_open(struct view *v, struct zs_store *s, const struct zs_selection *sel)
{
	return view_open_opt(v, s, sel, 0);
}

/* ClickHouse's samples of a merge per (stack, process), into mg (byproc). */
struct chproc {
	struct merged *mg;
	const struct premerged *pm;
	struct zt_htab idx; /* ClickHouse stack -> its row in pm */
};


static int chproc_cb(void *ctx, uint64_t stack, uint32_t pid, const char *comm, size_t len,
		     uint64_t count, uint64_t weight)
{
	struct chproc *c = ctx;
	char cb[256];
	uint32_t i, cid;
	size_t j;

	for (j = zt_htab_first(&c->idx, zt_hash_mix(0, stack)); zt_htab_get(&c->idx, j, &i);
	     j = zt_htab_next(&c->idx, j))
		if (c->pm->rows[i].stack == stack)
			break;
	if (!zt_htab_get(&c->idx, j, &i) || c->pm->local[i] >= c->mg->nr_stacks)
		return 0; /* a stack the merge did not have */
	snprintf(cb, sizeof(cb), "%.*s", (int)(len < 255 ? len : 255), comm);
	if (zt_strtab_intern_str(&c->mg->comms, cb, &cid))
		return -ENOMEM;
	psm_add(c->mg, c->pm->local[i], pid, cid, count, weight);
	return c->mg->bad ? -ENOMEM : 0;
}

static int ch_byproc(struct zs_store *s, const struct zs_selection *sel,
		     const struct premerged *pm, struct merged *mg)
{
	struct chproc c = { mg, pm, { 0 } };
	size_t i;
	int err;

	zt_htab_init(&c.idx);
	if (zt_htab_reset(&c.idx, pm->nr + 1))
		return -ENOMEM;
	for (i = 0; i < pm->nr; i++)
		zt_htab_add(&c.idx, zt_hash_mix(0, pm->rows[i].stack), (uint32_t)i);
	err = zs_ch_merge_procs(zs_store_ch(s), sel, chproc_cb, &c, store_msg(), STORE_MSG);
	zt_htab_release(&c.idx);
	return err;
}

static int view_open_opt(struct view *v, struct zs_store *s, const struct zs_selection *sel,
			 int byproc)
{
	uint8_t *need = NULL;
	size_t i, k;
	int err;

	struct premerged pm;

	memset(v, 0, sizeof(*v));
	v->s = s;
	v->c = zs_store_symcache(s);
	if (zs_store_ch(s) && (err = ch_premerge(s, sel, &pm))) {
		free(pm.rows);
		free(pm.local);
		return err;
	}
	v->m = zs_mem_rdlock(zs_store_sql(s));
	err = merge(s, v->m, sel, zs_store_ch(s) ? &pm : NULL, &v->mg, NULL, byproc);
	if (!err && byproc && zs_store_ch(s))
		err = ch_byproc(s, sel, &pm, &v->mg);
	if (zs_store_ch(s)) {
		free(pm.rows);
		free(pm.local);
	}
	if (!err && !(need = calloc(v->m->nr_frames + 1, 1)))
		err = -ENOMEM;
	for (i = 0; !err && i < v->mg.nr_used; i++) {
		uint32_t st = v->mg.stacks[i];

		for (k = v->m->soff[st]; k < v->m->soff[st + 1]; k++)
			need[v->m->sfr[k]] = 1;
	}
	if (!err)
		err = zs_symcache_fill(v->c, v->m, need, v->m->nr_frames, &v->frames);
	if (!err)
		v->locked_c = 1;
	free(need);
	return err;
}

static void view_close(struct view *v)
{
	if (v->locked_c)
		zs_symcache_unlock(v->c);
	merged_release(&v->mg);
	if (v->m)
		zs_mem_unlock(zs_store_sql(v->s));
}

static inline const struct zs_symframes *view_frame(const struct view *v, uint32_t fid)
{
	return v->frames[fid];
}

/* ---- functions: top, and the hottest line of each ---------------------------------- */

struct func {
	const char *name, *module;
	uint64_t hash; /* zs_dframe.hash */
	uint64_t self, children;
	size_t seen; /* the stack that counted it last, + 1 */
	/* the source line where it has most weight (rmodel_func_line()'s
	 * rule): file NULL when none is known */
	const char *file;
	uint32_t line;
	uint64_t lweight;
	char *srcline; /* "base.c:42" of file and line, made when asked */
};

/* The weight of a function at one position of its source. */
struct fline {
	uint32_t func, line;
	const char *file;
	uint64_t file_hash;
	uint64_t weight;
};

/* A shown frame of a stored frame, found once: its function (index in
 * top.f; FREF_ROOT for the thread's name) and position (index in top.l
 * + 1; 0: none). */
struct fref {
	uint32_t f, l;
};
#define FREF_ROOT UINT32_MAX

struct top {
	struct func *f;
	size_t nr, cap;
	struct zt_htab h;
	struct fline *l; /* in the order first seen */
	size_t nr_l, cap_l;
	struct zt_htab lh;
	/* each stored frame's shown frames: fo[fid] the index of the first
	 * in fr + 1 (0: not met yet), fr[fo[fid] - 1 + j] shown frame j's */
	uint32_t *fo;
	struct fref *fr;
	size_t nr_fr, cap_fr;
};

static inline uint64_t func_hash_at(const void *ctx, uint32_t i)
{
	return ((const struct top *)ctx)->f[i].hash;
}

static struct func *top_func(struct top *t, const struct zs_dframe *d)
{
	uint64_t h = d->hash;
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&t->h, 1, func_hash_at, t))
		return NULL;
	for (j = zt_htab_first(&t->h, h); zt_htab_get(&t->h, j, &i); j = zt_htab_next(&t->h, j))
		if (t->f[i].hash == h && !strcmp(t->f[i].name, d->name) &&
		    !strcmp(t->f[i].module, d->module))
			return &t->f[i];
	if (ZT_GROW(t->f, t->cap, t->nr + 1))
		return NULL;
	t->f[t->nr] = (struct func){ .name = d->name, .module = d->module, .hash = h };
	zt_htab_set(&t->h, j, (uint32_t)t->nr);
	return &t->f[t->nr++];
}

static inline uint64_t fline_hash(uint32_t func, uint64_t file_hash, uint32_t line)
{
	return zt_hash_mix(zt_hash_mix(file_hash, func), line);
}

static inline uint64_t fline_hash_at(const void *ctx, uint32_t i)
{
	const struct fline *l = &((const struct top *)ctx)->l[i];

	return fline_hash(l->func, l->file_hash, l->line);
}

/* Function f's position of frame d, made when new (without weight); *li:
 * its index in t->l + 1, 0 for a frame without one. 0 or -ENOMEM. */
static int top_line(struct top *t, const struct func *f, const struct zs_dframe *d, uint32_t *li)
{
	uint32_t fi = (uint32_t)(f - t->f), i;
	size_t j;

	*li = 0;
	if (!d->file[0] || !d->line)
		return 0;
	if (zt_htab_reserve(&t->lh, 1, fline_hash_at, t))
		return -ENOMEM;
	for (j = zt_htab_first(&t->lh, fline_hash(fi, d->file_hash, d->line)); zt_htab_get(&t->lh, j, &i);
	     j = zt_htab_next(&t->lh, j))
		if (t->l[i].func == fi && t->l[i].line == d->line &&
		    t->l[i].file_hash == d->file_hash && !strcmp(t->l[i].file, d->file)) {
			*li = i + 1;
			return 0;
		}
	if (ZT_GROW(t->l, t->cap_l, t->nr_l + 1))
		return -ENOMEM;
	t->l[t->nr_l] = (struct fline){ fi, d->line, d->file, d->file_hash, 0 };
	zt_htab_set(&t->lh, j, (uint32_t)t->nr_l++);
	*li = (uint32_t)t->nr_l;
	return 0;
}

/* The functions and positions of stored frame sf's shown frames, found
 * once, at t->fr[*fo - 1 ..]. 0 or -ENOMEM. */
static int top_frames(struct top *t, const struct zs_symframes *sf, uint32_t *fo)
{
	unsigned j;

	if (t->nr_fr + sf->n >= UINT32_MAX || ZT_GROW(t->fr, t->cap_fr, t->nr_fr + sf->n + 1))
		return -ENOMEM;
	for (j = 0; j < sf->n; j++) {
		struct fref *r = &t->fr[t->nr_fr + j];
		struct func *f;

		*r = (struct fref){ FREF_ROOT, 0 };
		if (sf->f[j].root)
			continue;
		if (!(f = top_func(t, &sf->f[j])) || top_line(t, f, &sf->f[j], &r->l))
			return -ENOMEM;
		r->f = (uint32_t)(f - t->f);
	}
	*fo = (uint32_t)t->nr_fr + 1;
	t->nr_fr += sf->n;
	return 0;
}

/*
 * Count the functions of v's stacks into t: the samples where each is the
 * leaf (self) and those it is in (children, once per stack), and the weight
 * at each of its source lines, every frame of it counted (as rmodel's
 * count_lines); then each one's hottest line: the most weight, of equals
 * the lowest line, of those the first seen. Each stored frame's shown
 * frames are looked up once (t->fo, t->fr). 0 or -ENOMEM.
 */
static int top_count(struct top *t, const struct view *v)
{
	size_t i, k;

	if (!(t->fo = calloc(v->m->nr_frames + 1, sizeof(*t->fo))))
		return -ENOMEM;
	for (i = 0; i < v->mg.nr_used; i++) {
		uint32_t st = v->mg.stacks[i];
		uint64_t c = v->mg.weight[st], w = v->mg.weight[st];
		int leaf = 1;

		for (k = v->m->soff[st]; k < v->m->soff[st + 1]; k++) {
			uint32_t fid = v->m->sfr[k];
			const struct zs_symframes *sf = view_frame(v, fid);
			const struct fref *r;
			unsigned j;

			if (!t->fo[fid] && top_frames(t, sf, &t->fo[fid]))
				return -ENOMEM;
			r = &t->fr[t->fo[fid] - 1];
			for (j = 0; j < sf->n; j++) {
				struct func *f;

				if (r[j].f == FREF_ROOT)
					continue;
				f = &t->f[r[j].f];
				if (r[j].l)
					t->l[r[j].l - 1].weight += w;
				if (leaf)
					f->self += c;
				leaf = 0;
				if (f->seen != i + 1) {
					f->children += c;
					f->seen = i + 1;
				}
			}
		}
	}
	for (i = 0; i < t->nr_l; i++) {
		const struct fline *l = &t->l[i];
		struct func *f = &t->f[l->func];

		if (!f->file || l->weight > f->lweight || (l->weight == f->lweight && l->line < f->line)) {
			f->file = l->file;
			f->line = l->line;
			f->lweight = l->weight;
		}
	}
	return 0;
}

/* The hottest line of f as "base.c:42" (owned by f), or NULL (none known,
 * or no memory). */
static const char *func_srcline(struct func *f)
{
	const char *base;

	if (!f->file || f->srcline)
		return f->srcline;
	base = strrchr(f->file, '/');
	if (asprintf(&f->srcline, "%s:%u", base ? base + 1 : f->file, f->line) < 0)
		f->srcline = NULL;
	return f->srcline;
}

static void top_release(struct top *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->f[i].srcline);
	free(t->f);
	free(t->l);
	free(t->fo);
	free(t->fr);
	zt_htab_release(&t->h);
	zt_htab_release(&t->lh);
}

static int func_cmp(const void *a, const void *b, void *ctx)
{
	const struct func *x = a, *y = b;
	enum zs_sort key = *(const enum zs_sort *)ctx;
	uint64_t kx = key == ZS_SORT_SELF ? x->self : x->children,
		 ky = key == ZS_SORT_SELF ? y->self : y->children;
	uint64_t sx = key == ZS_SORT_SELF ? x->children : x->self,
		 sy = key == ZS_SORT_SELF ? y->children : y->self;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(x->name, y->name) ?: strcmp(x->module, y->module);
}

int zs_query_top(struct zs_store *s, const struct zs_selection *sel, size_t limit,
		 enum zs_sort sort, struct zbuf *json)
{
	struct top t = { 0 };
	struct view v;
	size_t i;
	char num[96];
	int err;

	err = view_open(&v, s, sel);
	if (!err)
		err = top_count(&t, &v);
	if (!err) {
		if (t.nr)
			qsort_r(t.f, t.nr, sizeof(*t.f), func_cmp, &sort);
		snprintf(num, sizeof(num), "{\"profiles\":%llu,\"samples\":%llu,\"weight\":%llu,",
			 (unsigned long long)v.mg.profiles, (unsigned long long)v.mg.samples,
			 (unsigned long long)v.mg.total_weight);
		zbuf_put(json, num, strlen(num));
		zbuf_put_json_kv_str(json, "type", v.mg.type, 0);
		zbuf_put_json_kv_str(json, "unit", v.mg.unit, 1);
		zbuf_put_u8(json, ',');
		zbuf_put(json, "\"functions\":[", 13);
		for (i = 0; i < t.nr && (!limit || i < limit); i++) {
			if (i)
				zbuf_put_u8(json, ',');
			zbuf_put_u8(json, '{');
			zbuf_put_json_kv_str(json, "name", t.f[i].name, 0);
			zbuf_put_json_kv_str(json, "module", t.f[i].module, 1);
			zbuf_put_json_kv_int(json, "self", (int64_t)t.f[i].self);
			zbuf_put_json_kv_int(json, "children", (int64_t)t.f[i].children);
			if (t.f[i].file) {
				zbuf_put_json_kv_str(json, "file", t.f[i].file, 1);
				zbuf_put_json_kv_int(json, "line", t.f[i].line);
			}
			zbuf_put_u8(json, '}');
		}
		zbuf_put(json, "]}", 2);
		if (json->err)
			err = -ENOMEM;
	}
	view_close(&v);
	top_release(&t);
	return err;
}

/* ---- stacks root first ------------------------------------------------------------ */

/* The shown frames of stored stack st, root (thread name) first, leaf
 * last, into *out (grown as needed). The number, or -ENOMEM. */
static long stack_frames(const struct view *v, uint32_t st, const struct zs_dframe ***out,
			 size_t *cap)
{
	size_t n = 0, k;

	for (k = v->m->soff[st + 1]; k-- > v->m->soff[st];) {
		const struct zs_symframes *sf = view_frame(v, v->m->sfr[k]);
		unsigned j;

		if (ZT_GROW(*out, *cap, n + sf->n))
			return -ENOMEM;
		for (j = sf->n; j-- > 0;)
			(*out)[n++] = &sf->f[j];
	}
	return (long)n;
}

/* A name in folded text: ';' would split it, control characters and
 * newlines would break lines. */
static void folded_name(struct zbuf *b, const char *s, int root)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		zbuf_put_u8(b, c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : root && c == ' ' ? '_' : c);
	}
}

static int zbuf_write(void *ctx, const void *buf, size_t n)
{
	struct zbuf *b = ctx;

	zbuf_put(b, buf, n);
	return b->err;
}

int zs_query_folded(struct zs_store *s, const struct zs_selection *sel, struct zbuf *text)
{
	const struct zs_dframe **fr = NULL;
	struct folded_set fs;
	struct zbuf line;
	size_t cap = 0, i;
	struct view v;
	long n, k;
	int err;

	folded_set_init(&fs);
	zbuf_init(&line);
	err = view_open(&v, s, sel);
	for (i = 0; !err && i < v.mg.nr_used; i++) {
		uint32_t st = v.mg.stacks[i];

		if (!v.mg.weight[st])
			continue;
		n = stack_frames(&v, st, &fr, &cap);
		if (n < 0) {
			err = (int)n;
			break;
		}
		zbuf_reset(&line);
		for (k = 0; k < n; k++) {
			if (k)
				zbuf_put_u8(&line, ';');
			folded_name(&line, fr[k]->name, fr[k]->root);
		}
		zbuf_put_u8(&line, 0);
		err = line.err ? -ENOMEM : folded_set_add(&fs, (const char *)line.data, v.mg.weight[st]);
	}
	if (!err)
		err = folded_set_write(&fs, zbuf_write, text) ? -ENOMEM : 0;
	view_close(&v);
	free(fr);
	zbuf_release(&line);
	folded_set_release(&fs);
	return err;
}

/* ---- flame graphs --------------------------------------------------------------------- */

/* What flame_add_view() keeps across stacks: top_count()'s functions of
 * the shown frames (t.fr), and the flame frame of each, interned once
 * (have[k], k indexing t.fr). */
struct fview {
	struct top t;
	struct flame_idframe *idf;
	uint8_t *have;
};

/* The flame frame of shown frame d (t.fr[k]'s), its srcline its
 * function's hottest line. 0 or -ENOMEM. */
static int flame_frame_of(struct flame *f, struct fview *x, size_t k, const struct zs_dframe *d,
			  struct flame_idframe *out)
{
	struct func *fn = x->t.fr[k].f == FREF_ROOT ? NULL : &x->t.f[x->t.fr[k].f];

	if (x->have[k]) {
		*out = x->idf[k];
		return 0;
	}
	out->kind = (enum flame_kind)d->kind;
	if (flame_intern(f, d->name, &out->name) || flame_intern(f, d->module, &out->module) ||
	    flame_intern(f, fn ? func_srcline(fn) : NULL, &out->srcline))
		return -ENOMEM;
	x->idf[k] = *out;
	x->have[k] = 1;
	return 0;
}

/* Stored stack st of v as flame frames, root first, into *ff (grown as
 * needed). The number, or -ENOMEM. */
static long flame_frames(struct flame *f, const struct view *v, struct fview *x, uint32_t st,
			 struct flame_idframe **ff, size_t *cap)
{
	size_t n = 0, k;

	for (k = v->m->soff[st + 1]; k-- > v->m->soff[st];) {
		uint32_t fid = v->m->sfr[k];
		const struct zs_symframes *sf = view_frame(v, fid);
		unsigned j;

		if (ZT_GROW(*ff, *cap, n + sf->n))
			return -ENOMEM;
		for (j = sf->n; j-- > 0;)
			if (flame_frame_of(f, x, x->t.fo[fid] - 1 + j, &sf->f[j], &(*ff)[n++]))
				return -ENOMEM;
	}
	return (long)n;
}

/* The stacks of v into f (value[which]), each function's tooltip naming its
 * hottest line in v, as zt flame's do. */
static int flame_add_view(struct flame *f, const struct view *v, int which)
{
	struct flame_idframe *ff = NULL;
	struct fview x = { 0 };
	size_t fcap = 0, i;
	long n;
	int err = top_count(&x.t, v);

	if (!err && (!(x.idf = malloc((x.t.nr_fr + 1) * sizeof(*x.idf))) ||
		     !(x.have = calloc(x.t.nr_fr + 1, 1))))
		err = -ENOMEM;
	for (i = 0; !err && i < v->mg.nr_used; i++) {
		uint32_t st = v->mg.stacks[i];

		if (!v->mg.weight[st])
			continue;
		n = flame_frames(f, v, &x, st, &ff, &fcap);
		err = n < 0 ? (int)n : flame_add_stack_ids(f, ff, (size_t)n, v->mg.weight[st], which);
	}
	free(x.idf);
	free(x.have);
	free(ff);
	top_release(&x.t);
	return err;
}

static int flame_svg(struct flame *f, const struct zs_flame_opts *o, int diff, struct zbuf *svg)
{
	struct flame_svg_opts so = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int err;

	if (!out)
		return -ENOMEM;
	so.title = o ? o->title : NULL;
	so.width = o ? o->width : 0;
	so.minwidth = o ? o->minwidth : -1;
	so.inverted = o ? o->inverted : 0;
	so.diff = diff;
	so.unit = "samples";
	so.max_frames = ZS_FLAME_MAX_FRAMES;
	err = flame_write_svg(f, out, &so);
	if (fclose(out) && !err)
		err = -ENOMEM;
	if (!err) {
		zbuf_put(svg, buf, len);
		err = svg->err ? -ENOMEM : 0;
	}
	free(buf);
	return err;
}

int zs_query_flame(struct zs_store *s, const struct zs_selection *sel,
		   const struct zs_flame_opts *o, struct zbuf *svg)
{
	struct flame f;
	struct view v;
	int err;

	if (flame_init(&f))
		return -ENOMEM;
	err = view_open(&v, s, sel);
	if (!err)
		err = flame_add_view(&f, &v, 0);
	view_close(&v);
	if (!err)
		err = flame_svg(&f, o, 0, svg);
	flame_release(&f);
	return err;
}

int zs_query_diff(struct zs_store *s, const struct zs_selection *a, const struct zs_selection *b,
		  const struct zs_flame_opts *o, struct zbuf *svg)
{
	struct flame f;
	struct view v;
	int err;

	if (flame_init(&f))
		return -ENOMEM;
	/* one view at a time: each holds the store's read locks */
	err = view_open(&v, s, b);
	if (!err)
		err = flame_add_view(&f, &v, 0);
	view_close(&v);
	if (!err) {
		err = view_open(&v, s, a);
		if (!err)
			err = flame_add_view(&f, &v, 1);
		view_close(&v);
	}
	if (!err)
		err = flame_svg(&f, o, 1, svg);
	flame_release(&f);
	return err;
}

/* ---- pprof --------------------------------------------------------------------------- */

typedef Perftools__Profiles__Profile PProfile;

struct ppw {
	PProfile p;
	struct zt_htab fhash;
	struct zt_strtab strs;
	char **sptrs; /* the string table, made last */
	Perftools__Profiles__Function *funcs;
	Perftools__Profiles__Function **fptrs;
	size_t nr_funcs, cap_funcs;
	uint64_t *loc_of; /* per stored frame id: location id, 0: none yet */
	Perftools__Profiles__Location *locs;
	Perftools__Profiles__Line *lines;
	size_t nr_locs, cap_locs, nr_lines, cap_lines;
	/* one mapping per (module, build id), as zt convert names modules */
	Perftools__Profiles__Mapping *maps;
	Perftools__Profiles__Mapping **mptrs;
	size_t nr_maps, cap_maps;
	struct zt_htab mhash;
	uint64_t main_map; /* the mapping listed first (pprof's main binary), 0: none */
};

static int64_t pp_str(struct ppw *w, const char *s)
{
	uint32_t id;

	return zt_strtab_intern_str(&w->strs, s, &id) ? -1 : (int64_t)id;
}

static inline uint64_t fn_hash_at(const void *ctx, uint32_t i)
{
	const struct ppw *w = ctx;

	return zt_hash_pair((uint64_t)w->funcs[i].name, (uint64_t)w->funcs[i].filename);
}

/* The function id of (name, source file), as zt convert makes them. */
static uint64_t pp_func(struct ppw *w, const struct zs_dframe *d)
{
	int64_t name = pp_str(w, d->name), file = pp_str(w, d->file);
	size_t j;
	uint32_t i;

	if (name < 0 || file < 0 || zt_htab_reserve(&w->fhash, 1, fn_hash_at, w))
		return 0;
	for (j = zt_htab_first(&w->fhash, zt_hash_pair((uint64_t)name, (uint64_t)file));
	     zt_htab_get(&w->fhash, j, &i); j = zt_htab_next(&w->fhash, j))
		if (w->funcs[i].name == name && w->funcs[i].filename == file)
			return w->funcs[i].id;
	if (ZT_GROW(w->funcs, w->cap_funcs, w->nr_funcs + 1))
		return 0;
	perftools__profiles__function__init(&w->funcs[w->nr_funcs]);
	w->funcs[w->nr_funcs].id = w->nr_funcs + 1;
	w->funcs[w->nr_funcs].name = name;
	w->funcs[w->nr_funcs].system_name = name;
	w->funcs[w->nr_funcs].filename = file;
	zt_htab_set(&w->fhash, j, (uint32_t)w->nr_funcs);
	return ++w->nr_funcs;
}

static inline uint64_t map_hash_at(const void *ctx, uint32_t i)
{
	const struct ppw *w = ctx;

	return zt_hash_pair((uint64_t)w->maps[i].filename, (uint64_t)w->maps[i].build_id);
}

/* The file offset of stored frame fid, or 0 for a frame named without one
 * (kernel, JIT, a pprof's function). */
static uint64_t frame_offset(const struct zs_mem *m, uint32_t fid)
{
	struct zs_fkey k;

	if (zs_fkey_decode(m->keys.data + m->key_off[fid], (size_t)(m->key_off[fid + 1] -
								     m->key_off[fid]), &k))
		return 0;
	return k.kind == ZS_FK_ADDR || k.kind == ZS_FK_UNRESOLVED ? k.off : 0;
}

/*
 * The mapping id of sf's module (its first frame's) and build id, its
 * flags raised by what sf's frames have, its range grown to hold addr; 0:
 * no memory. Addresses are file offsets (the store keeps no others): a
 * mapping starts at 0, at file offset 0.
 */
static uint64_t pp_map(struct ppw *w, const struct zs_symframes *sf, uint64_t addr)
{
	char hex[2 * sizeof(sf->bid.data) + 1] = "";
	int64_t mod = pp_str(w, sf->f[0].module), bid;
	Perftools__Profiles__Mapping *m = NULL;
	size_t j;
	uint32_t i;
	unsigned k;

	if (sf->bid.len)
		prof_build_id_hex(&sf->bid, hex);
	bid = pp_str(w, hex);
	if (mod < 0 || bid < 0 || zt_htab_reserve(&w->mhash, 1, map_hash_at, w))
		return 0;
	for (j = zt_htab_first(&w->mhash, zt_hash_pair((uint64_t)mod, (uint64_t)bid));
	     zt_htab_get(&w->mhash, j, &i); j = zt_htab_next(&w->mhash, j))
		if (w->maps[i].filename == mod && w->maps[i].build_id == bid) {
			m = &w->maps[i];
			break;
		}
	if (!m) {
		if (ZT_GROW(w->maps, w->cap_maps, w->nr_maps + 1))
			return 0;
		m = &w->maps[w->nr_maps];
		perftools__profiles__mapping__init(m);
		m->id = w->nr_maps + 1;
		m->filename = mod;
		m->build_id = bid;
		zt_htab_set(&w->mhash, j, (uint32_t)w->nr_maps++);
	}
	for (k = 0; k < sf->n; k++) {
		if (sf->f[k].kind != FLAME_UNRESOLVED)
			m->has_functions = 1;
		if (sf->f[k].file[0])
			m->has_filenames = 1;
		if (sf->f[k].line)
			m->has_line_numbers = 1;
	}
	if (sf->n > 1)
		m->has_inline_frames = 1;
	if (m->memory_limit <= addr)
		m->memory_limit = addr + 1;
	return m->id;
}

/* Mappings by file name, then build id. */
static int map_cmp_ids(const struct ppw *w, const Perftools__Profiles__Mapping *x,
		       const Perftools__Profiles__Mapping *y)
{
	return strcmp(zt_strtab_str(&w->strs, (uint32_t)x->filename),
		      zt_strtab_str(&w->strs, (uint32_t)y->filename)) ?:
	       strcmp(zt_strtab_str(&w->strs, (uint32_t)x->build_id),
		      zt_strtab_str(&w->strs, (uint32_t)y->build_id));
}

static int map_cmp(const void *a, const void *b, void *ctx)
{
	const Perftools__Profiles__Mapping *x = *(Perftools__Profiles__Mapping *const *)a,
					   *y = *(Perftools__Profiles__Mapping *const *)b;
	const struct ppw *w = ctx;

	if ((x->id == w->main_map) != (y->id == w->main_map))
		return x->id == w->main_map ? -1 : 1;
	return map_cmp_ids(w, x, y);
}

static int gzip_buf(const void *in, size_t len, struct zbuf *out)
{
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	if (zbuf_reserve(out, deflateBound(&z, len))) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out->data + out->len;
	z.avail_out = (uInt)(out->cap - out->len);
	zr = deflate(&z, Z_FINISH);
	out->len += z.total_out;
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}

int zs_query_pprof(struct zs_store *s, const struct zs_selection *sel, struct zbuf *gz)
{
	Perftools__Profiles__ValueType vt[2], *vtp[2] = { &vt[0], &vt[1] }, pt;
	int64_t comments[2];
	uint64_t *rootv = NULL, *seen = NULL; /* per mapping id: the value of the stacks it is in */
	Perftools__Profiles__Sample *samples = NULL, **sptrs = NULL;
	Perftools__Profiles__Location **lptrs = NULL;
	Perftools__Profiles__Label *labels = NULL, **lbp = NULL;
	uint64_t *locids = NULL;
	int64_t *vals = NULL;
	struct ppw w;
	struct view v;
	size_t i, k, nl = 0, ns = 0, nrl = 0;
	uint8_t *buf = NULL;
	int err;

	memset(&w, 0, sizeof(w));
	perftools__profiles__profile__init(&w.p);
	/* per stack and process: the samples' labels pid and comm */
	err = view_open_opt(&v, s, sel, 1);
	if (err)
		goto out;
	if (pp_str(&w, "") < 0)
		goto nomem;
	w.loc_of = calloc(v.m->nr_frames + 1, sizeof(*w.loc_of));
	if (v.mg.bad)
		goto nomem;
	for (i = 0; i < v.mg.nr_psm; i++) {
		uint32_t st = v.mg.psm[i].stack;

		nl += v.m->soff[st + 1] - v.m->soff[st];
	}
	samples = calloc(v.mg.nr_psm + 1, sizeof(*samples));
	sptrs = calloc(v.mg.nr_psm + 1, sizeof(*sptrs));
	labels = calloc(3 * v.mg.nr_psm + 1, sizeof(*labels));
	lbp = calloc(3 * v.mg.nr_psm + 1, sizeof(*lbp));
	vals = calloc(2 * v.mg.nr_psm + 1, sizeof(*vals));
	locids = calloc(nl + 1, sizeof(*locids));
	if (!w.loc_of || !samples || !sptrs || !labels || !lbp || !vals || !locids)
		goto nomem;
	/* locations first (their arrays must not move once pointed to) */
	for (i = 0; i < v.mg.nr_used; i++) {
		uint32_t st = v.mg.stacks[i];

		for (k = v.m->soff[st]; k < v.m->soff[st + 1]; k++) {
			uint32_t fid = v.m->sfr[k];
			const struct zs_symframes *sf = view_frame(&v, fid);

			if (w.loc_of[fid] || sf->f[0].root)
				continue;
			if (ZT_GROW(w.locs, w.cap_locs, w.nr_locs + 1) ||
			    ZT_GROW(w.lines, w.cap_lines, w.nr_lines + sf->n))
				goto nomem;
			w.loc_of[fid] = ++w.nr_locs;
			w.nr_lines += sf->n;
		}
	}
	lptrs = calloc(w.nr_locs + 1, sizeof(*lptrs));
	if (!lptrs || !(w.p.location = calloc(w.nr_locs + 1, sizeof(*w.p.location))))
		goto nomem;
	{
		Perftools__Profiles__Line **lp = calloc(w.nr_lines + 1, sizeof(*lp));
		size_t li = 0;

		if (!lp)
			goto nomem;
		memset(w.loc_of, 0, (v.m->nr_frames + 1) * sizeof(*w.loc_of));
		for (i = 0; i < v.mg.nr_used; i++) {
			uint32_t st = v.mg.stacks[i];

			for (k = v.m->soff[st]; k < v.m->soff[st + 1]; k++) {
				uint32_t fid = v.m->sfr[k];
				const struct zs_symframes *sf = view_frame(&v, fid);
				Perftools__Profiles__Location *l;
				unsigned j;

				if (w.loc_of[fid] || sf->f[0].root)
					continue;
				l = &w.locs[nrl];
				perftools__profiles__location__init(l);
				l->id = nrl + 1;
				l->address = frame_offset(v.m, fid);
				if (!(l->mapping_id = pp_map(&w, sf, l->address))) {
					free(lp);
					goto nomem;
				}
				l->n_line = sf->n;
				l->line = lp + li;
				for (j = 0; j < sf->n; j++) {
					perftools__profiles__line__init(&w.lines[li]);
					w.lines[li].function_id = pp_func(&w, &sf->f[j]);
					w.lines[li].line = sf->f[j].line;
					if (!w.lines[li].function_id) {
						free(lp);
						goto nomem;
					}
					lp[li] = &w.lines[li];
					li++;
				}
				w.p.location[nrl] = l;
				w.loc_of[fid] = ++nrl;
			}
		}
		w.p.n_location = nrl;
		/* lp is owned through the locations: freed below */
		free(lptrs);
		lptrs = (Perftools__Profiles__Location **)lp;
	}
	nl = 0;
	if (!(rootv = calloc(w.nr_maps + 1, sizeof(*rootv))) ||
	    !(seen = calloc(w.nr_maps + 1, sizeof(*seen))))
		goto nomem;
	for (i = 0; i < v.mg.nr_psm; i++) {
		const struct psample *pq = &v.mg.psm[i];
		uint32_t st = pq->stack;
		Perftools__Profiles__Sample *sm = &samples[ns];
		Perftools__Profiles__Label *lb = &labels[3 * ns];
		int64_t thread = 0;

		perftools__profiles__sample__init(sm);
		sm->location_id = locids + nl;
		for (k = v.m->soff[st]; k < v.m->soff[st + 1]; k++) {
			const struct zs_symframes *sf = view_frame(&v, v.m->sfr[k]);

			if (sf->f[0].root)
				thread = pp_str(&w, sf->f[0].name);
			else
				locids[nl + sm->n_location_id++] = w.loc_of[v.m->sfr[k]];
		}
		for (k = 0; k < sm->n_location_id; k++) {
			uint64_t mid = w.locs[locids[nl + k] - 1].mapping_id;

			if (mid <= w.nr_maps && seen[mid] != i + 1) {
				seen[mid] = i + 1;
				rootv[mid] += v.mg.weight[st];
			}
		}
		nl += sm->n_location_id;
		sm->n_value = 2;
		sm->value = vals + 2 * ns;
		sm->value[0] = (int64_t)pq->count;
		sm->value[1] = (int64_t)pq->value;
		sm->label = &lbp[3 * ns];
		if (thread < 0)
			goto nomem;
		if (thread > 0) {
			perftools__profiles__label__init(lb);
			lb->key = pp_str(&w, "thread");
			lb->str = thread;
			lbp[3 * ns + sm->n_label++] = lb++;
		}
		if (pq->pid || pq->comm) { /* the process (a profile kept with its processes) */
			perftools__profiles__label__init(lb);
			lb->key = pp_str(&w, "pid");
			lb->num = pq->pid;
			lbp[3 * ns + sm->n_label++] = lb++;
			perftools__profiles__label__init(lb);
			lb->key = pp_str(&w, "comm");
			lb->str = pp_str(&w, zt_strtab_str(&v.mg.comms, pq->comm));
			if (lb[-1].key < 0 || lb->key < 0 || lb->str < 0)
				goto nomem;
			lbp[3 * ns + sm->n_label++] = lb++;
		}
		if (!sm->n_label)
			sm->label = NULL;
		sptrs[ns++] = sm;
	}
	/* samples and the type's values in its unit (cpu: nanoseconds), the
	 * latter the default; the period, the mean value of a sample; the
	 * time, the merged profiles' span; what was selected, as comments */
	perftools__profiles__value_type__init(&vt[0]);
	perftools__profiles__value_type__init(&vt[1]);
	perftools__profiles__value_type__init(&pt);
	vt[0].type = pp_str(&w, "samples");
	vt[0].unit = pp_str(&w, "count");
	vt[1].type = pp_str(&w, v.mg.type[0] ? v.mg.type : "weight");
	vt[1].unit = pp_str(&w, v.mg.unit[0] ? v.mg.unit : "count");
	pt.type = vt[1].type;
	pt.unit = vt[1].unit;
	comments[0] = pp_str(&w, "zt serve");
	{
		char c[64];

		snprintf(c, sizeof(c), "profiles: %" PRIu64, v.mg.profiles);
		comments[1] = pp_str(&w, c);
	}
	if (vt[0].type < 0 || vt[0].unit < 0 || vt[1].type < 0 || vt[1].unit < 0 ||
	    comments[0] < 0 || comments[1] < 0)
		goto nomem;
	w.p.n_sample_type = 2;
	w.p.sample_type = vtp;
	w.p.default_sample_type = vt[1].type;
	w.p.period_type = &pt;
	w.p.period = v.mg.samples ? (int64_t)(v.mg.total_weight / v.mg.samples) : 0;
	w.p.time_nanos = v.mg.tmin * 1000000000;
	w.p.duration_nanos = v.mg.tmax > v.mg.tmin && v.mg.tmin ? (v.mg.tmax - v.mg.tmin) * 1000000000 : 0;
	w.p.n_comment = 2;
	w.p.comment = comments;
	w.p.n_sample = ns;
	w.p.sample = sptrs;
	w.fptrs = calloc(w.nr_funcs + 1, sizeof(*w.fptrs));
	if (!w.fptrs)
		goto nomem;
	for (i = 0; i < w.nr_funcs; i++)
		w.fptrs[i] = &w.funcs[i];
	w.p.n_function = w.nr_funcs;
	w.p.function = w.fptrs;
	/* mappings by (file name, build id), whatever the stacks' order (the
	 * stores number stacks differently) */
	w.mptrs = calloc(w.nr_maps + 1, sizeof(*w.mptrs));
	if (!w.mptrs)
		goto nomem;
	/* the main binary: of the executables (not a shared library, not the
	 * kernel's), the one in the stacks of the most value */
	for (i = 1; i <= w.nr_maps; i++) {
		const char *f = zt_strtab_str(&w.strs, (uint32_t)w.maps[i - 1].filename);

		/* ties to the first by name and build id, whatever the stores' orders */
		if (f[0] != '[' && !strstr(f, ".so") &&
		    (rootv[i] > rootv[w.main_map] ||
		     (rootv[i] && rootv[i] == rootv[w.main_map] &&
		      map_cmp_ids(&w, &w.maps[i - 1], &w.maps[w.main_map - 1]) < 0)))
			w.main_map = i;
	}
	for (i = 0; i < w.nr_maps; i++)
		w.mptrs[i] = &w.maps[i];
	qsort_r(w.mptrs, w.nr_maps, sizeof(*w.mptrs), map_cmp, &w);
	{
		uint64_t *newid = calloc(w.nr_maps + 1, sizeof(*newid));

		if (!newid)
			goto nomem;
		for (i = 0; i < w.nr_maps; i++)
			newid[w.mptrs[i]->id] = i + 1;
		for (i = 0; i < w.nr_maps; i++)
			w.mptrs[i]->id = i + 1;
		for (i = 0; i < nrl; i++)
			w.locs[i].mapping_id = newid[w.locs[i].mapping_id];
		free(newid);
	}
	w.p.n_mapping = w.nr_maps;
	w.p.mapping = w.mptrs;
	w.sptrs = calloc(zt_strtab_count(&w.strs) + 1, sizeof(*w.sptrs));
	if (!w.sptrs)
		goto nomem;
	for (i = 0; i < zt_strtab_count(&w.strs); i++)
		w.sptrs[i] = (char *)zt_strtab_str(&w.strs, (uint32_t)i);
	w.p.n_string_table = zt_strtab_count(&w.strs);
	w.p.string_table = w.sptrs;
	{
		size_t len = perftools__profiles__profile__get_packed_size(&w.p);

		if (!(buf = malloc(len + 1)))
			goto nomem;
		perftools__profiles__profile__pack(&w.p, buf);
		err = gzip_buf(buf, len, gz);
	}
	goto out;
nomem:
	err = -ENOMEM;
out:
	view_close(&v);
	free(buf);
	free(samples);
	free(sptrs);
	free(labels);
	free(lbp);
	free(vals);
	free(locids);
	free(rootv);
	free(seen);
	free(lptrs);
	free(w.p.location);
	free(w.locs);
	free(w.lines);
	free(w.loc_of);
	free(w.funcs);
	free(w.fptrs);
	free(w.maps);
	free(w.mptrs);
	zt_htab_release(&w.mhash);
	free(w.sptrs);
	zt_strtab_release(&w.strs);
	zt_htab_release(&w.fhash);
	return err;
}

/* ---- time series -------------------------------------------------------------------- */

#define MAX_POINTS 11000 /* Prometheus's bound on a range query's points */

/* The first and last times of a selection's profiles. */
static int sel_span(sqlite3 *db, const struct zs_selection *sel, int64_t *from, int64_t *to)
{
	sqlite3_stmt *st;
	int err = sel_prepare(db, sel, "min(time_start), max(time_end)", 2, &st);

	if (err)
		return err;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*from = sqlite3_column_int64(st, 0);
		*to = sqlite3_column_int64(st, 1);
	} else {
		err = -EIO;
	}
	sqlite3_finalize(st);
	return err;
}

int zs_query_timeline(struct zs_store *s, const struct zs_selection *sel, int64_t step,
		      struct zbuf *json)
{
	struct series ts = { 0 };
	struct merged mg;
	int64_t from = sel->from, to = sel->to, range;
	const struct zs_mem *m;
	sqlite3 *db;
	size_t i;
	int err;

	memset(&mg, 0, sizeof(mg));
	if (zs_store_ch(s)) {
		int64_t span[3];

		err = zs_ch_type(zs_store_ch(s), sel, mg.type, sizeof(mg.type), mg.unit,
				 sizeof(mg.unit), span, store_msg(), STORE_MSG);
		if (err)
			return err;
		if (!from)
			from = span[0];
		if (!to)
			to = span[1] > from ? span[1] : from;
		mg.profiles = (uint64_t)span[2];
	} else if (!from || !to) {
		int64_t f = 0, t = 0;

		if ((err = zs_db_get(zs_store_sql(s), &db)))
			return err;
		err = sel_span(db, sel, &f, &t);
		zs_db_put(zs_store_sql(s), db);
		if (err)
			return err;
		if (!from)
			from = f;
		if (!to)
			to = t > from ? t : from;
	}
	ts.from = zs_bucket_of(from);
	range = zs_bucket_of(to) - ts.from + ZS_BUCKET_S;
	if (!step) {
		step = (range + 1199) / 1200;
		step = step <= ZS_BUCKET_S ? ZS_BUCKET_S : (step + ZS_BUCKET_S - 1) / ZS_BUCKET_S * ZS_BUCKET_S;
	}
	ts.step = step;
	ts.n = (size_t)((range + step - 1) / step);
	if (ts.n > MAX_POINTS) {
		zt_say(store_msg(), STORE_MSG,
		       "a step of %" PRId64 " s gives %zu points from %" PRId64 " to %" PRId64
		       ": at most %d; give a larger step",
		       step, ts.n, from, to, MAX_POINTS);
		return -EDOM;
	}
	if (!(ts.v = calloc(ts.n + 1, sizeof(*ts.v))))
		return -ENOMEM;
	if (zs_store_ch(s)) {
		err = zs_ch_series(zs_store_ch(s), sel, ts.from, ts.step, ts.n, ts.v, &mg.samples,
				   store_msg(), STORE_MSG);
		for (i = 0; i < ts.n; i++)
			mg.total_weight += ts.v[i];
	} else {
		m = zs_mem_rdlock(zs_store_sql(s));
		err = merge(s, m, sel, NULL, &mg, &ts, 0);
		zs_mem_unlock(zs_store_sql(s));
	}
	if (!err) {
		zbuf_put_u8(json, '{');
		zbuf_put_json_kv_str(json, "type", mg.type, 0);
		zbuf_put_json_kv_str(json, "unit", mg.unit, 1);
		zbuf_putf(json,
			  ",\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"step\":%" PRId64
			  ",\"profiles\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"total\":%" PRIu64
			  ",\"points\":[",
			  ts.from, ts.from + (int64_t)ts.n * step, step, mg.profiles, mg.samples,
			  mg.total_weight);
		for (i = 0; i < ts.n; i++)
			zbuf_putf(json, "%s[%" PRId64 ",%" PRIu64 "]", i ? "," : "",
				  ts.from + (int64_t)i * step, ts.v[i]);
		zbuf_put(json, "]}", 2);
		if (json->err)
			err = -ENOMEM;
	}
	merged_release(&mg);
	free(ts.v);
	return err;
}

/* ---- label discovery ----------------------------------------------------------------- */

#define MAX_DISCOVERED 10000 /* names or values of one answer */

struct strset {
	char **v;
	size_t n, cap;
	int truncated;
};

static int strset_add(struct strset *ss, const char *s, size_t len)
{
	if (ss->n >= MAX_DISCOVERED) {
		ss->truncated = 1;
		return 0;
	}
	if (ZT_GROW(ss->v, ss->cap, ss->n + 1) || !(ss->v[ss->n] = strndup(s, len)))
		return -ENOMEM;
	ss->n++;
	return 0;
}

static int strset_add_cb(void *ctx, const char *s, size_t n)
{
	return n ? strset_add(ctx, s, n) : 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The set sorted, each once, as Prometheus's answer; released. */
static void strset_json(struct strset *ss, struct zbuf *json)
{
	size_t i, k = 0;

	if (ss->n)
		qsort(ss->v, ss->n, sizeof(*ss->v), str_cmp);
	zbuf_put(json, "{\"status\":\"success\",\"data\":[", 28);
	for (i = 0; i < ss->n; i++) {
		if (i && !strcmp(ss->v[i], ss->v[i - 1]))
			continue;
		if (k++)
			zbuf_put_u8(json, ',');
		zbuf_put_json_str(json, ss->v[i]);
	}
	zbuf_put_u8(json, ']');
	if (ss->truncated)
		zbuf_putf(json, ",\"warnings\":[\"more than %d: the first listed\"]",
			  MAX_DISCOVERED);
	zbuf_put_u8(json, '}');
	for (i = 0; i < ss->n; i++)
		free(ss->v[i]);
	free(ss->v);
	memset(ss, 0, sizeof(*ss));
}

/* Each first column of "SELECT what FROM profiles WHERE sel" (inner: the
 * profiles' clause wrapped as "... rid IN (SELECT rid FROM profiles
 * WHERE ...)": what then is the whole head, key its first bind). */
static int collect(sqlite3 *db, const struct zs_selection *sel, const char *head,
		   const char *key, int wrapped, struct strset *ss)
{
	struct binds *b = calloc(1, sizeof(*b));
	sqlite3_stmt *st = NULL;
	struct zbuf q;
	int err, rc;

	if (!b)
		return -ENOMEM;
	zbuf_init(&q);
	put_s(&q, head);
	if (key)
		bind_s(b, key);
	if (wrapped)
		put_s(&q, " rid IN (SELECT rid FROM profiles");
	sel_where(&q, b, sel, 1);
	if (wrapped)
		zbuf_put_u8(&q, ')');
	err = prepare_binds(db, &q, b, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		if (v && *v)
			err = strset_add(ss, v, strlen(v));
	}
	if (!err && rc != SQLITE_DONE)
		err = -EIO;
	sqlite3_finalize(st);
	zbuf_release(&q);
	free(b);
	return err;
}

struct procvals {
	struct strset *ss;
	int pid;
	int err;
};

static int procval_cb(void *ctx, uint32_t idx, uint32_t pid, const char *comm, size_t len)
{
	struct procvals *pv = ctx;
	char b[16];

	(void)idx;
	if (pv->pid) {
		snprintf(b, sizeof(b), "%" PRIu32, pid);
		pv->err = strset_add(pv->ss, b, strlen(b));
	} else {
		pv->err = strset_add(pv->ss, comm, len);
	}
	return pv->err;
}

static void procval_visit(void *ctx, const uint8_t *agg, size_t len, int timed)
{
	struct zs_tcur c;

	if (timed)
		zs_tagg_open(&c, agg, len, procval_cb, ctx);
}

/* The processes' comms or pids of a selection's profiles. */
static int collect_procs(struct zs_store *s, sqlite3 *db, const struct zs_selection *sel,
			 int pid, struct strset *ss)
{
	struct procvals pv = { ss, pid, 0 };
	sqlite3_stmt *st;
	int err = sel_prepare(db, sel, "rid", 1, &st), rc;

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW && ss->n < MAX_DISCOVERED) {
		err = zs_agg_visit(zs_store_sql(s), db, sqlite3_column_int64(st, 0), 1, procval_visit,
				   &pv);
		if (err == -ENOENT)
			err = 0;
		if (!err)
			err = pv.err;
	}
	if (!err)
		sqlite3_finalize(st);
	return err;
}

/* One selection's label names into ss, from SQLite. */
static int sql_names(sqlite3 *db, const struct zs_selection *sel, struct strset *ss)
{
	struct strset have = { 0 };
	size_t k;
	int err;

	err = collect(db, sel,
		      "SELECT CASE WHEN count(*) > 0 THEN '__name__' END ||"
		      " CASE WHEN max(command != '') THEN ' command' ELSE '' END ||"
		      " CASE WHEN max(host != '') THEN ' host' ELSE '' END ||"
		      " CASE WHEN max(tagg IS NOT NULL AND length(tagg) > 1) THEN ' comm pid'"
		      " ELSE '' END FROM profiles",
		      NULL, 0, &have);
	for (k = 0; !err && k < have.n; k++) {
		char *p = have.v[k], *e;

		while (!err && *p) {
			e = strchr(p, ' ');
			if (!e)
				e = p + strlen(p);
			if (e > p)
				err = strset_add(ss, p, (size_t)(e - p));
			p = *e ? e + 1 : e;
		}
	}
	for (k = 0; k < have.n; k++)
		free(have.v[k]);
	free(have.v);
	if (!err)
		err = collect(db, sel,
			      "SELECT DISTINCT key FROM labels WHERE key NOT LIKE '\\_\\_%' "
			      "ESCAPE '\\' AND",
			      NULL, 1, ss);
	return err;
}

/* One selection's values of label name into ss, from SQLite. */
static int sql_values(struct zs_store *s, sqlite3 *db, const struct zs_selection *sel,
		      const char *name, struct strset *ss)
{
	int err = 0;

	if (!strcmp(name, "__name__"))
		err = collect(db, sel, "SELECT DISTINCT ptype FROM profiles", NULL, 0, ss);
	else if (!strcmp(name, "host") || !strcmp(name, "command"))
		err = collect(db, sel,
			      name[0] == 'h' ? "SELECT DISTINCT host FROM profiles"
					     : "SELECT DISTINCT command FROM profiles",
			      NULL, 0, ss);
	else if (!strcmp(name, "comm") || !strcmp(name, "pid"))
		err = collect_procs(s, db, sel, name[0] == 'p', ss);
	/* the labels of that name (host and command: besides the recording's);
	 * the store's own (starting "__") never shown */
	if (!err && strcmp(name, "__name__") && strcmp(name, "comm") && strcmp(name, "pid") &&
	    !(name[0] == '_' && name[1] == '_'))
		err = collect(db, sel, "SELECT DISTINCT value FROM labels WHERE key=? AND", name, 1,
			      ss);
	return err;
}

/* The label names (name NULL) or values of name over the union of n selections. */
static int discover(struct zs_store *s, const struct zs_selection *sel, size_t n,
		    const char *name, struct zbuf *json)
{
	struct strset ss = { 0 };
	sqlite3 *db = NULL;
	size_t i;
	int err = 0;

	if (!zs_store_ch(s) && (err = zs_db_get(zs_store_sql(s), &db)))
		return err;
	for (i = 0; !err && i < n; i++) {
		if (zs_store_ch(s))
			err = name ? zs_ch_label_values(zs_store_ch(s), &sel[i], name, strset_add_cb,
							&ss, store_msg(), STORE_MSG)
				   : zs_ch_label_names(zs_store_ch(s), &sel[i], strset_add_cb, &ss,
						       store_msg(), STORE_MSG);
		else
			err = name ? sql_values(s, db, &sel[i], name, &ss) : sql_names(db, &sel[i], &ss);
	}
	if (db)
		zs_db_put(zs_store_sql(s), db);
	strset_json(&ss, json);
	return err ? err : json->err ? -ENOMEM : 0;
}

int zs_query_label_names(struct zs_store *s, const struct zs_selection *sel, size_t n,
			 struct zbuf *json)
{
	return discover(s, sel, n, NULL, json);
}

int zs_query_label_values(struct zs_store *s, const struct zs_selection *sel, size_t n,
			  const char *name, struct zbuf *json)
{
	return discover(s, sel, n, name, json);
}

/* ---- source lines ---------------------------------------------------------------------- */

#define MAX_SOURCE_BYTES (8u << 20) /* of a source file shown */
#define MAX_SOURCE_LINES 200000

struct srcline {
	uint32_t line;
	uint64_t self, total, seen;
};

/* The text of a stored source file as a JSON array of lines, or null. */
static void source_text(struct zs_store *s, const struct prof_build_id *bid, const char *file,
			struct zbuf *json)
{
	char hex[2 * sizeof(bid->data) + 1];
	struct zs_symfile f;
	char *buf = NULL;
	size_t len = 0, i, start, lines = 0;

	if (!bid->len || !*file || bid->len > sizeof(bid->data)) {
		zbuf_put(json, "null", 4);
		return;
	}
	zt_hex_encode(bid->data, bid->len, hex);
	hex[2 * bid->len] = 0;
	if (zs_symfile_open(s, hex, ZS_KIND_SOURCE, file, &f)) {
		zbuf_put(json, "null", 4);
		return;
	}
	len = f.size > MAX_SOURCE_BYTES ? MAX_SOURCE_BYTES : (size_t)f.size;
	buf = malloc(len + 1);
	if (!buf || pread(f.fd, buf, len, 0) != (ssize_t)len) {
		free(buf);
		zs_symfile_close(&f);
		zbuf_put(json, "null", 4);
		return;
	}
	zs_symfile_close(&f);
	zbuf_put_u8(json, '[');
	for (i = start = 0; i <= len && lines < MAX_SOURCE_LINES; i++) {
		if (i < len && buf[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		if (lines++)
			zbuf_put_u8(json, ',');
		zbuf_put_json_strn(json, buf + start, i - start);
		start = i + 1;
	}
	zbuf_put_u8(json, ']');
	free(buf);
}

int zs_query_source(struct zs_store *s, const struct zs_selection *sel, const char *function,
		    struct zbuf *json)
{
	struct {
		const char *file;
		uint64_t hash, value;
		struct prof_build_id bid;
	} best = { 0 }, *files = NULL;
	struct srcline *l = NULL;
	size_t nf = 0, capf = 0, nl = 0, capl = 0, i, k;
	struct view v;
	int err;

	err = view_open(&v, s, sel);
	/* the files the function's frames are in, by value */
	for (i = 0; !err && i < v.mg.nr_used; i++) {
		uint32_t st = v.mg.stacks[i];
		uint64_t w = v.mg.weight[st];

		for (k = v.m->soff[st]; !err && k < v.m->soff[st + 1]; k++) {
			const struct zs_symframes *sf = view_frame(&v, v.m->sfr[k]);
			unsigned j;

			for (j = 0; j < sf->n; j++) {
				const struct zs_dframe *d = &sf->f[j];
				size_t x;

				if (d->root || strcmp(d->name, function))
					continue;
				for (x = 0; x < nf && files[x].hash != d->file_hash; x++)
					;
				if (x == nf) {
					if (ZT_GROW(files, capf, nf + 1)) {
						err = -ENOMEM;
						break;
					}
					memset(&files[nf], 0, sizeof(files[nf]));
					files[nf].file = d->file;
					files[nf].hash = d->file_hash;
					files[nf].bid = sf->bid;
					nf++;
				}
				files[x].value += w;
			}
		}
	}
	for (i = 0; i < nf; i++)
		if (!best.file || files[i].value > best.value ||
		    (files[i].value == best.value && *files[i].file && !*best.file))
			best = files[i];
	if (!err && !nf)
		err = -ENOENT;
	/* per line of that file: self (the leaf) and total (once a stack) */
	for (i = 0; !err && i < v.mg.nr_used; i++) {
		uint32_t st = v.mg.stacks[i];
		uint64_t w = v.mg.weight[st];
		int leaf = 1;

		for (k = v.m->soff[st]; !err && k < v.m->soff[st + 1]; k++) {
			const struct zs_symframes *sf = view_frame(&v, v.m->sfr[k]);
			unsigned j;

			for (j = 0; j < sf->n; j++, leaf = 0) {
				const struct zs_dframe *d = &sf->f[j];
				size_t x;

				if (d->root || strcmp(d->name, function) || d->file_hash != best.hash ||
				    !d->line)
					continue;
				for (x = 0; x < nl && l[x].line != d->line; x++)
					;
				if (x == nl) {
					if (ZT_GROW(l, capl, nl + 1)) {
						err = -ENOMEM;
						break;
					}
					l[nl++] = (struct srcline){ d->line, 0, 0, 0 };
				}
				if (leaf)
					l[x].self += w;
				if (l[x].seen != i + 1) {
					l[x].total += w;
					l[x].seen = i + 1;
				}
			}
		}
	}
	if (!err) {
		for (i = 1; i < nl; i++) /* by line number (few lines: insertion) */
			for (k = i; k > 0 && l[k - 1].line > l[k].line; k--) {
				struct srcline t = l[k];

				l[k] = l[k - 1];
				l[k - 1] = t;
			}
		zbuf_put_u8(json, '{');
		zbuf_put_json_kv_str(json, "function", function, 0);
		zbuf_put_json_kv_str(json, "file", best.file, 1);
		zbuf_put_json_kv_str(json, "type", v.mg.type, 1);
		zbuf_put_json_kv_str(json, "unit", v.mg.unit, 1);
		zbuf_put(json, ",\"lines\":[", 10);
		for (i = 0; i < nl; i++)
			zbuf_putf(json, "%s{\"line\":%" PRIu32 ",\"self\":%" PRIu64 ",\"total\":%" PRIu64 "}",
				  i ? "," : "", l[i].line, l[i].self, l[i].total);
		zbuf_put(json, "],\"text\":", 9);
		/* the store keys sources by the path without its leading "/" (zr_srcpath) */
		source_text(s, &best.bid, best.file[0] == '/' ? best.file + 1 : best.file, json);
		zbuf_put_u8(json, '}');
		if (json->err)
			err = -ENOMEM;
	}
	free(files);
	free(l);
	view_close(&v);
	return err;
}

/* ---- projects ------------------------------------------------------------------------- */

struct projlist {
	const char *only;
	struct zbuf *json;
	int n, counts; /* counts: the profiles' numbers known (not with ClickHouse) */
};

static void project_obj(void *ctx, const char *name, int64_t created, uint64_t profiles,
			uint64_t tokens)
{
	struct projlist *pl = ctx;

	(void)created, (void)tokens;
	if (pl->only && strcmp(pl->only, name))
		return;
	if (pl->n++)
		zbuf_put_u8(pl->json, ',');
	zbuf_put_u8(pl->json, '{');
	zbuf_put_json_kv_str(pl->json, "name", name, 0);
	if (pl->counts)
		zbuf_put_json_kv_int(pl->json, "profiles", (int64_t)profiles);
	zbuf_put_u8(pl->json, '}');
}

int zs_projects_json(struct zs_store *s, const char *only, struct zbuf *json)
{
	struct projlist pl = { only, json, 0, !zs_store_ch(s) };
	int err;

	zbuf_put(json, "{\"projects\":[", 13);
	err = zs_project_list(s, project_obj, &pl);
	zbuf_put(json, "]}", 2);
	return err ? err : json->err ? -ENOMEM : 0;
}
