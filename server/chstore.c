/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt serve's store in ClickHouse: schema, ingest, catalogue, merged reads (see chstore.h). */
#include "server/chstore.h"
#include "server/norm.h"
#include "server/tagg.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "libprof/log.h"
#include "libprof/text.h"
#include "net/clickhouse.h"
#include "symbolizer/sha256.h"

#define IDS_PER_QUERY (1u << 20) /* ids sent in one external table */
#define IDS_TABLE     "zt_ids"
/* queries carry long lists of ids; inserts are one block each, so that an
 * insert is all or nothing */
#define SET_QUERY  "max_query_size=4194304"
#define SET_INSERT "max_insert_block_size=4294967295"

struct zs_ch {
	struct zt_ch *srv[ZS_CH_MAX_SERVERS];
	size_t nr;
	char db[64];
	char cluster[128]; /* "" none */
	char version[64];
	unsigned rr; /* the next server to read from */
};

/* ---- names and ids ---------------------------------------------------------------- */

static int valid_name(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return i > 0 && i < max;
}

/* The first 8 bytes (little endian) of a finished SHA-256. */
static uint64_t le8(const uint8_t md[ZT_SHA256_LEN])
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | md[i];
	return v;
}

uint64_t zs_ch_frame_id(const void *key, size_t len)
{
	uint8_t md[ZT_SHA256_LEN] = {0};

	zt_sha256(key, len, md);
	return le8(md);
}

uint64_t zs_ch_stack_id(const uint64_t *frames, size_t n)
{
	uint8_t buf[8 * 256], md[ZT_SHA256_LEN];
	struct zt_sha256 h;
	size_t i, k, b = 0;

	zt_sha256_init(&h);
	/* the frames' ids as 8 little-endian bytes each, hashed a buffer at a time */
	for (i = 0; !h.err && i < n; i++) {
		for (k = 0; k < 8; k++)
			buf[b++] = (uint8_t)(frames[i] >> (8 * k));
		if (b == sizeof(buf) || i + 1 == n) {
			zt_sha256_update(&h, buf, b);
			b = 0;
		}
	}
	if (zt_sha256_final(&h, md)) /* out of memory: still one id for the rows of this
					 ingest, which name the stack by it; only another
					 instance would name it otherwise */
		return zs_ch_frame_id(frames, n * sizeof(*frames));
	return le8(md);
}

/* The table reads go through: the Distributed one with a cluster. */
static void rd(const struct zs_ch *c, struct zbuf *q, const char *table)
{
	zbuf_put(q, c->db, strlen(c->db));
	zbuf_put_u8(q, '.');
	zbuf_put(q, table, strlen(table));
	if (!c->cluster[0])
		zbuf_put(q, "_local", 6);
}

static void put(struct zbuf *q, const char *s)
{
	zbuf_put(q, s, strlen(s));
}

/* ---- running queries --------------------------------------------------------------- */

/* q (NUL added here) on server i. */
static int run_on(struct zs_ch *c, size_t i, struct zbuf *q, const char *settings,
		  const void *body, size_t len, struct zbuf *out, char *msg, size_t msglen)
{
	zbuf_put_u8(q, 0);
	if (q->err) {
		zt_say(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	return zt_ch_query(c->srv[i], (const char *)q->data, settings, body, len, out, msg, msglen);
}

/* A read: on one server, the next one when it cannot be reached; with ids, the
 * external table IDS_TABLE holding them (zt_ch_query_ids). */
static int run_read_ids(struct zs_ch *c, struct zbuf *q, const uint64_t *ids, size_t n,
			struct zbuf *out, char *msg, size_t msglen)
{
	unsigned start = __atomic_fetch_add(&c->rr, 1, __ATOMIC_RELAXED);
	size_t k, len = out->len;
	int err = -EAGAIN;

	zbuf_put_u8(q, 0);
	if (q->err) {
		zt_say(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	for (k = 0; k < c->nr; k++) {
		struct zt_ch *s = c->srv[(start + k) % c->nr];

		out->len = len;
		err = ids ? zt_ch_query_ids(s, (const char *)q->data, SET_QUERY, IDS_TABLE, ids, n,
					    out, msg, msglen)
			  : zt_ch_query(s, (const char *)q->data, SET_QUERY, NULL, 0, out, msg,
					msglen);
		if (err != -ECONNREFUSED)
			break;
	}
	return err;
}

static int run_read(struct zs_ch *c, struct zbuf *q, struct zbuf *out, char *msg, size_t msglen)
{
	return run_read_ids(c, q, NULL, 0, out, msg, msglen);
}

/* The server a profile's rows go to. */
static size_t owner(const struct zs_ch *c, const char *id)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 2; i++)
		v = v << 4 | (unsigned)zt_hexval(id[i]); /* ids are checked hex */
	return v % c->nr;
}

/* ---- schema ------------------------------------------------------------------------ */

/* The migrations: migration v (1...) takes the schema from v - 1 to v. "{db}" is the database. */
static const char *const migration_1[] = {
	"CREATE TABLE IF NOT EXISTS {db}.frames_local (frame UInt64, key String)"
	" ENGINE = ReplacingMergeTree() ORDER BY frame",
	"CREATE TABLE IF NOT EXISTS {db}.stacks_local (stack UInt64, frames Array(UInt64))"
	" ENGINE = ReplacingMergeTree() ORDER BY stack",
	"CREATE TABLE IF NOT EXISTS {db}.samples_local (day Date, profile String, ingest UInt64,"
	" stack UInt64, count UInt64, weight UInt64)"
	" ENGINE = MergeTree() PARTITION BY toYYYYMMDD(day) ORDER BY (profile, stack)",
	"CREATE TABLE IF NOT EXISTS {db}.profiles_local (day Date, id String, ingest UInt64,"
	" version UInt64, deleted UInt8, host String, command String, event String,"
	" format String, time_start Int64, time_end Int64, samples UInt64, weight UInt64,"
	" size UInt64, pushed_at Int64, buildids String, label_keys Array(String),"
	" label_values Array(String), body String)"
	" ENGINE = ReplacingMergeTree(version) PARTITION BY toYYYYMMDD(day) ORDER BY id",
	NULL,
};
/* 2: profile types and units; samples by time bucket and process (server/tagg.h) */
static const char *const migration_2[] = {
	"ALTER TABLE {db}.profiles_local ADD COLUMN ptype String DEFAULT '',"
	" ADD COLUMN unit String DEFAULT ''",
	"ALTER TABLE {db}.samples_local ADD COLUMN ts Int64 DEFAULT 0,"
	" ADD COLUMN pid UInt32 DEFAULT 0, ADD COLUMN comm String DEFAULT ''",
	NULL,
};
static const char *const *const migrations[ZS_CH_SCHEMA] = {migration_1, migration_2};
static const char *const dist_tables[] = {"frames", "stacks", "samples", "profiles"};

static void put_sql(struct zbuf *q, const char *sql, const char *db)
{
	const char *p;

	while ((p = strstr(sql, "{db}"))) {
		zbuf_put(q, sql, (size_t)(p - sql));
		put(q, db);
		sql = p + 4;
	}
	put(q, sql);
}

/* A one-number answer (TabSeparated). */
static int number(struct zs_ch *c, size_t i, const char *sql, uint64_t *v, char *msg,
		  size_t msglen)
{
	struct zbuf q, out;
	int err;

	zbuf_init(&q);
	zbuf_init(&out);
	put_sql(&q, sql, c->db);
	err = run_on(c, i, &q, NULL, NULL, 0, &out, msg, msglen);
	if (!err) {
		zbuf_put_u8(&out, 0);
		if (out.err || !out.data || sscanf((const char *)out.data, "%" SCNu64, v) != 1) {
			zt_say(msg, msglen, "ClickHouse at %s: an answer that is no number",
			       zt_ch_url(c->srv[i]));
			err = -EREMOTEIO;
		}
	}
	zbuf_release(&q);
	zbuf_release(&out);
	return err;
}

static int exec_on(struct zs_ch *c, size_t i, const char *sql, char *msg, size_t msglen)
{
	struct zbuf q;
	int err;

	zbuf_init(&q);
	put_sql(&q, sql, c->db);
	err = run_on(c, i, &q, NULL, NULL, 0, NULL, msg, msglen);
	zbuf_release(&q);
	return err;
}

static int server_version(struct zs_ch *c, size_t i, char *msg, size_t msglen)
{
	struct zbuf q, out;
	unsigned major = 0;
	int err;

	zbuf_init(&q);
	zbuf_init(&out);
	put(&q, "SELECT version()");
	err = run_on(c, i, &q, NULL, NULL, 0, &out, msg, msglen);
	if (!err) {
		size_t n = out.len;

		while (n && (out.data[n - 1] == '\n' || out.data[n - 1] == '\r'))
			n--;
		if (!i)
			snprintf(c->version, sizeof(c->version), "%.*s", (int)n,
				 out.data ? (const char *)out.data : "");
		if (sscanf(out.data ? (const char *)out.data : "", "%u.", &major) != 1 || major < 18) {
			zt_say(msg, msglen,
			       "ClickHouse at %s is version %.*s: zt needs 18.16 or later",
			       zt_ch_url(c->srv[i]), (int)(n < 40 ? n : 40),
			       out.data ? (const char *)out.data : "");
			err = -EREMOTEIO;
		}
	}
	zbuf_release(&q);
	zbuf_release(&out);
	return err;
}

static int check_cluster(struct zs_ch *c, char *msg, size_t msglen)
{
	struct zbuf q;
	uint64_t shards;
	int err;

	zbuf_init(&q);
	put(&q, "SELECT uniqExact(shard_num) FROM system.clusters WHERE cluster = ");
	zt_ch_quote(&q, c->cluster);
	zbuf_put_u8(&q, 0);
	err = q.err ? -ENOMEM : number(c, 0, (const char *)q.data, &shards, msg, msglen);
	zbuf_release(&q);
	if (err)
		return err;
	if (!shards) {
		zt_say(msg, msglen,
		       "ClickHouse at %s has no cluster '%s' (remote_servers in its configuration)",
		       zt_ch_url(c->srv[0]), c->cluster);
		return -EINVAL;
	}
	if (shards != c->nr) {
		zt_say(msg, msglen,
		       "the cluster '%s' has %" PRIu64 " shards, and %zu ClickHouse URLs were given:"
		       " give the HTTP URL of each shard's server",
		       c->cluster, shards, c->nr);
		return -EINVAL;
	}
	return 0;
}

static int schema(struct zs_ch *c, size_t i, char *msg, size_t msglen)
{
	uint64_t have;
	unsigned v;
	size_t k;
	int err;

	if ((err = exec_on(c, i, "CREATE DATABASE IF NOT EXISTS {db}", msg, msglen)) ||
	    (err = exec_on(c, i,
			   "CREATE TABLE IF NOT EXISTS {db}.schema_local (version UInt32, at DateTime)"
			   " ENGINE = MergeTree() ORDER BY version",
			   msg, msglen)) ||
	    (err = number(c, i, "SELECT max(version) FROM {db}.schema_local", &have, msg, msglen)))
		return err;
	if (have > ZS_CH_SCHEMA) {
		zt_say(msg, msglen,
		       "the tables in database '%s' at %s are of schema version %" PRIu64
		       ", newer than this zt's (%d): upgrade zt",
		       c->db, zt_ch_url(c->srv[i]), have, ZS_CH_SCHEMA);
		return -EPROTONOSUPPORT;
	}
	for (v = (unsigned)have + 1; v <= ZS_CH_SCHEMA; v++) {
		char sql[128];

		for (k = 0; migrations[v - 1][k]; k++)
			if ((err = exec_on(c, i, migrations[v - 1][k], msg, msglen)))
				return err;
		snprintf(sql, sizeof(sql), "INSERT INTO {db}.schema_local VALUES (%u, now())", v);
		if ((err = exec_on(c, i, sql, msg, msglen)))
			return err;
	}
	/* the Distributed tables hold no data: made anew over the migrated ones */
	for (k = 0; c->cluster[0] && have && have < ZS_CH_SCHEMA &&
		    k < sizeof(dist_tables) / sizeof(dist_tables[0]);
	     k++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS {db}.%s", dist_tables[k]);
		if ((err = exec_on(c, i, sql, msg, msglen)))
			return err;
	}
	for (k = 0; c->cluster[0] && k < sizeof(dist_tables) / sizeof(dist_tables[0]); k++) {
		struct zbuf q;

		zbuf_init(&q);
		zbuf_putf(&q, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local ENGINE = Distributed(", c->db,
		     dist_tables[k], c->db, dist_tables[k]);
		zt_ch_quote(&q, c->cluster);
		zbuf_putf(&q, ", %s, %s_local)", c->db, dist_tables[k]);
		err = run_on(c, i, &q, NULL, NULL, 0, NULL, msg, msglen);
		zbuf_release(&q);
		if (err)
			return err;
	}
	return 0;
}

int zs_ch_open(const struct zs_ch_opts *o, struct zs_ch **out, char *msg, size_t msglen)
{
	struct zs_ch *c;
	size_t i;
	int err = 0;

	*out = NULL;
	if (!o->nr_urls || o->nr_urls > ZS_CH_MAX_SERVERS) {
		zt_say(msg, msglen, "give 1 to %d ClickHouse URLs", ZS_CH_MAX_SERVERS);
		return -EINVAL;
	}
	if (o->database && !valid_name(o->database, 64)) {
		zt_say(msg, msglen, "'%s' is not a database name zt takes ([A-Za-z0-9_], at most 63)",
		       o->database);
		return -EINVAL;
	}
	if (o->cluster && !valid_name(o->cluster, 128)) {
		zt_say(msg, msglen, "'%s' is not a cluster name zt takes ([A-Za-z0-9_])", o->cluster);
		return -EINVAL;
	}
	if (o->nr_urls > 1 && !o->cluster) {
		zt_say(msg, msglen,
		       "several ClickHouse servers need the name of their cluster (--clickhouse-cluster)");
		return -EINVAL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		zt_say(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	snprintf(c->db, sizeof(c->db), "%s", o->database ? o->database : "zt");
	snprintf(c->cluster, sizeof(c->cluster), "%s", o->cluster ? o->cluster : "");
	for (i = 0; i < o->nr_urls && !err; i++) {
		struct zt_ch_opts co = {.url = o->urls[i],
					.user = o->user,
					.password = o->password,
					.timeout_ms = o->timeout_ms};

		if (!(err = zt_ch_new(&co, &c->srv[i], msg, msglen)))
			c->nr++;
	}
	for (i = 0; i < c->nr && !err; i++)
		err = server_version(c, i, msg, msglen);
	if (!err && c->cluster[0])
		err = check_cluster(c, msg, msglen);
	for (i = 0; i < c->nr && !err; i++)
		err = schema(c, i, msg, msglen);
	if (err) {
		zs_ch_close(c);
		return err;
	}
	*out = c;
	return 0;
}

void zs_ch_close(struct zs_ch *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		zt_ch_free(c->srv[i]);
	free(c);
}

const char *zs_ch_version(const struct zs_ch *c)
{
	return c->version;
}

/* ---- the catalogue ------------------------------------------------------------------- */

/* Each profile's latest catalogue row, as columns id h cmd ev fmt ts te ns w sz pa lk lv ing
 * del, of the profiles sel picks (not deleted). */

/* m's positive form on a value (an SQL expression) */
static void ch_positive(struct zbuf *q, const struct zs_matcher *m, const char *value_sql)
{
	if (m->op == ZS_MOP_EQ || m->op == ZS_MOP_NE) {
		put(q, value_sql);
		put(q, " = ");
		zt_ch_quote(q, m->value);
	} else {
		struct zbuf re;

		zbuf_init(&re);
		zbuf_put(&re, "^(", 2);
		zbuf_put(&re, m->value, strlen(m->value));
		zbuf_put(&re, ")$", 3);
		put(q, "match(");
		put(q, value_sql);
		put(q, ", ");
		zt_ch_quote(q, re.err ? "^$" : (const char *)re.data);
		zbuf_put_u8(q, ')');
		zbuf_release(&re);
	}
}

/* A profile's matcher (server/query.c's matcher_sql, in ClickHouse's SQL). */
static void ch_matcher(struct zbuf *q, const struct zs_matcher *m)
{
	const char *col = !strcmp(m->name, "__name__") ? "pt"
			  : !strcmp(m->name, "host")   ? "h"
			  : !strcmp(m->name, "command") ? "cmd"
							: NULL;
	int neg = m->op == ZS_MOP_NE || m->op == ZS_MOP_NRE;

	put(q, neg ? " AND NOT (" : " AND (");
	if (col && strcmp(col, "pt")) {
		/* host and command: the recording's, or a pushed label of that name */
		ch_positive(q, m, col);
		put(q, " OR arrayExists((k, v) -> k = ");
		zt_ch_quote(q, m->name);
		put(q, " AND ");
		ch_positive(q, m, "v");
		put(q, ", lk, lv)");
	} else if (col) {
		ch_positive(q, m, col);
	} else if (m->name[0] == '_' && m->name[1] == '_') {
		put(q, m->empty_ok ? "1" : "0"); /* the store's own labels */
	} else {
		put(q, "arrayExists((k, v) -> k = ");
		zt_ch_quote(q, m->name);
		put(q, " AND ");
		ch_positive(q, m, "v");
		put(q, ", lk, lv)");
		if (m->empty_ok) {
			put(q, " OR NOT has(lk, ");
			zt_ch_quote(q, m->name);
			zbuf_put_u8(q, ')');
		}
	}
	zbuf_put_u8(q, ')');
}

/* The process matchers of sel on the samples' comm and pid. */
static void ch_proc_where(struct zbuf *q, const struct zs_selection *sel)
{
	size_t i;

	for (i = 0; i < sel->match.n; i++) {
		const struct zs_matcher *m = &sel->match.m[i];

		if (!zs_matcher_is_proc(m))
			continue;
		put(q, m->op == ZS_MOP_NE || m->op == ZS_MOP_NRE ? " AND NOT (" : " AND (");
		ch_positive(q, m, m->name[0] == 'p' ? "if(pid = 0 AND comm = '', '', toString(pid))"
						    : "comm");
		zbuf_put_u8(q, ')');
	}
}

static void latest_list(const struct zs_ch *c, struct zbuf *q, const struct zs_selection *sel,
			int list);
static void sel_samples(struct zs_ch *c, struct zbuf *q, const struct zs_selection *sel,
			const char *what);


/* Each profile's latest catalogue row (see latest_list), for a merge. */
static void latest(const struct zs_ch *c, struct zbuf *q, const struct zs_selection *sel)
{
	latest_list(c, q, sel, 0);
}

static void latest_list(const struct zs_ch *c, struct zbuf *q, const struct zs_selection *sel,
			int list)
{
	size_t i;

	put(q, "SELECT id, argMax(host, version) AS h, argMax(command, version) AS cmd,"
	       " argMax(event, version) AS ev, argMax(format, version) AS fmt,"
	       " argMax(time_start, version) AS ts, argMax(time_end, version) AS te,"
	       " argMax(samples, version) AS ns, argMax(weight, version) AS w,"
	       " argMax(size, version) AS sz, argMax(pushed_at, version) AS pa,"
	       " argMax(label_keys, version) AS lk, argMax(label_values, version) AS lv,"
	       " argMax(ingest, version) AS ing, argMax(deleted, version) AS del,"
	       /* the type of a row from before ptype: server/norm.h's zs_profile_type() */
	       " argMax(ptype, version) AS pt0, argMax(unit, version) AS un0,"
	       " if(pt0 != '', pt0, if(ev IN ('cpu-clock', 'task-clock', 'cpu') OR"
	       " ev LIKE 'cpu-clock:%' OR ev LIKE 'task-clock:%', 'cpu', if(ev = '', 'unknown',"
	       " ev))) AS pt, if(un0 != '', un0, if(pt = 'cpu', 'nanoseconds', 'count')) AS un"
	       " FROM ");
	rd(c, q, "profiles");
	if (sel->nr_ids) {
		put(q, " WHERE id IN (");
		for (i = 0; i < sel->nr_ids; i++) {
			if (i)
				zbuf_put_u8(q, ',');
			zt_ch_quote(q, sel->ids[i]);
		}
		zbuf_put_u8(q, ')');
	}
	put(q, " GROUP BY id HAVING del = 0");
	if (sel->host) {
		put(q, " AND h = ");
		zt_ch_quote(q, sel->host);
	}
	if (sel->command) {
		put(q, " AND cmd = ");
		zt_ch_quote(q, sel->command);
	}
	if (sel->project) {
		/* a profile pushed before projects is the default project's */
		put(q, " AND (arrayExists((k, v) -> k = '" ZS_PROJECT_LABEL "' AND v = ");
		zt_ch_quote(q, sel->project);
		put(q, ", lk, lv)");
		if (!strcmp(sel->project, ZS_DEFAULT_PROJECT))
			put(q, " OR NOT has(lk, '" ZS_PROJECT_LABEL "')");
		zbuf_put_u8(q, ')');
	}
	for (i = 0; i < sel->nr_labels; i++) {
		put(q, " AND arrayExists((k, v) -> k = ");
		zt_ch_quote(q, sel->labels[i].key);
		put(q, " AND v = ");
		zt_ch_quote(q, sel->labels[i].value);
		put(q, ", lk, lv)");
	}
	for (i = 0; i < sel->match.n; i++)
		if (!zs_matcher_is_proc(&sel->match.m[i]))
			ch_matcher(q, &sel->match.m[i]);
	/* the profiles with a process that passes, when processes are selected */
	for (i = 0; i < sel->match.n && !zs_matcher_is_proc(&sel->match.m[i]); i++)
		;
	if (i < sel->match.n) {
		put(q, c->cluster[0] ? " AND ing GLOBAL IN (SELECT ingest FROM "
				     : " AND ing IN (SELECT ingest FROM ");
		rd(c, q, "samples");
		put(q, " WHERE 1");
		ch_proc_where(q, sel);
		zbuf_put_u8(q, ')');
	}
	/* a merge cuts samples by their buckets: the profiles that may have one */
	if (sel->from)
		zbuf_putf(q, " AND te >= %" PRId64, sel->from - (list ? 0 : ZS_BUCKET_S));
	if (sel->to)
		zbuf_putf(q, " AND ts <= %" PRId64, sel->to + (list ? 0 : ZS_BUCKET_S));
}

/* One row of LIST_COLS up to lv as the store's JSON object, left open. */
static int profile_obj(struct zcur *r, struct zbuf *out)
{
	const uint8_t *s[5];
	size_t n[5], i, nk;
	uint64_t v[5], cnt;
	struct zcur keys;
	struct zs_label *lab;
	int bad = 0;

	for (i = 0; i < 5; i++)
		bad |= zcur_bytes(r, &s[i], &n[i]);
	for (i = 0; i < 5; i++)
		bad |= zcur_u64le(r, &v[i]);
	if (bad)
		return -EBADMSG;
	zbuf_put_u8(out, '{');
	zbuf_put_json_kv_strn(out, "id", (const char *)s[0], n[0], 0);
	zbuf_put_json_kv_strn(out, "host", (const char *)s[1], n[1], 1);
	zbuf_put_json_kv_strn(out, "command", (const char *)s[2], n[2], 1);
	put(out, ",\"labels\":");
	/* label_keys, then label_values: walk the keys, then read the values alongside */
	if (zcur_uv(r, &cnt) || cnt > 4096)
		return -EBADMSG;
	nk = (size_t)cnt;
	keys = *r;
	for (i = 0; i < nk; i++) {
		const uint8_t *p;
		size_t l;

		if (zcur_bytes(r, &p, &l))
			return -EBADMSG;
	}
	if (zcur_uv(r, &cnt) || cnt != nk)
		return -EBADMSG;
	lab = calloc(nk + 1, sizeof(*lab));
	for (i = 0; lab && i < nk && !bad; i++) {
		const uint8_t *kp, *vp;
		size_t kl, vl;

		if (zcur_bytes(&keys, &kp, &kl) || zcur_bytes(r, &vp, &vl)) {
			bad = -EBADMSG;
			break;
		}
		lab[i].key = strndup((const char *)kp, kl);
		lab[i].value = strndup((const char *)vp, vl);
		if (!lab[i].key || !lab[i].value)
			bad = -ENOMEM;
	}
	if (!lab)
		return -ENOMEM;
	if (!bad)
		zs_labels_json(out, lab, nk);
	for (i = 0; i < nk; i++) {
		free((char *)lab[i].key);
		free((char *)lab[i].value);
	}
	free(lab);
	if (bad)
		return bad;
	zbuf_put_json_kv_int(out, "time_start", (int64_t)v[0]);
	zbuf_put_json_kv_int(out, "time_end", (int64_t)v[1]);
	zbuf_put_json_kv_int(out, "samples", (int64_t)v[2]);
	zbuf_put_json_kv_int(out, "weight", (int64_t)v[3]);
	{
		char ev[256];
		const char *type, *unit;

		snprintf(ev, sizeof(ev), "%.*s", (int)(n[3] < 255 ? n[3] : 255), (const char *)s[3]);
		zs_profile_type(ev, NULL, &type, &unit);
		zbuf_put_json_kv_str(out, "type", type, 1);
		zbuf_put_json_kv_str(out, "unit", unit, 1);
		zbuf_put_json_kv_int(out, "value", (int64_t)v[3]);
	}
	zbuf_put_json_kv_strn(out, "event", (const char *)s[3], n[3], 1);
	zbuf_put_json_kv_strn(out, "format", (const char *)s[4], n[4], 1);
	zbuf_put_json_kv_int(out, "size", (int64_t)v[4]);
	return 0; /* pushed_at, the last column, is the caller's (the object left open) */
}

#define LIST_COLS "id, h, cmd, ev, fmt, ts, te, ns, w, sz, lk, lv, pa"

int zs_ch_decode_list(const void *p, size_t len, int many, struct zbuf *out)
{
	struct zcur r;
	int err = 0, n = 0;

	zcur_init(&r, p, len);
	if (many)
		put(out, "{\"profiles\":[");
	while (!err && zcur_left(&r)) {
		uint64_t pa;

		if (n++)
			zbuf_put_u8(out, ',');
		if (!(err = profile_obj(&r, out)) && !(err = zcur_u64le(&r, &pa) ? -EBADMSG : 0)) {
			zbuf_put_json_kv_int(out, "pushed_at", (int64_t)pa);
			zbuf_put_u8(out, '}');
		}
	}
	if (many)
		put(out, "]}");
	if (!err && !many && !n)
		err = -ENOENT;
	return err ? err : out->err ? -ENOMEM : 0;
}

static int list_rows(struct zs_ch *c, struct zbuf *q, struct zbuf *out, int many, char *msg,
		     size_t msglen)
{
	struct zbuf ans;
	int err;

	zbuf_init(&ans);
	err = run_read(c, q, &ans, msg, msglen);
	if (!err)
		err = zs_ch_decode_list(ans.data, ans.len, many, out);
	if (err == -EBADMSG)
		zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
	zbuf_release(&ans);
	return err;
}

int zs_ch_list_json(struct zs_ch *c, const struct zs_selection *sel, struct zbuf *out, char *msg,
		    size_t msglen)
{
	struct zbuf q;
	int err;

	zbuf_init(&q);
	put(&q, "SELECT " LIST_COLS " FROM (");
	latest_list(c, &q, sel, 1);
	put(&q, ") ORDER BY ts DESC, pa DESC, id DESC");
	if (sel->limit || sel->offset)
		zbuf_putf(&q, " LIMIT %zu, %zu", sel->offset,
			  sel->limit ? sel->limit : (size_t)1 << 40);
	put(&q, " FORMAT RowBinary");
	err = list_rows(c, &q, out, 1, msg, msglen);
	if (!err && out->len && out->data[out->len - 1] == '}') {
		uint64_t total = 0;
		struct zbuf a;
		struct zcur r;

		/* the total, limit and offset aside, as the embedded store gives it */
		zbuf_reset(&q);
		zbuf_init(&a);
		put(&q, "SELECT count() FROM (");
		latest_list(c, &q, sel, 1);
		put(&q, ") FORMAT RowBinary");
		err = run_read(c, &q, &a, msg, msglen);
		zcur_init(&r, a.data, a.len);
		if (!err && zcur_u64le(&r, &total))
			err = -EREMOTEIO;
		zbuf_release(&a);
		if (!err) {
			out->len--;
			zbuf_put_json_kv_int(out, "total", (int64_t)total);
			zbuf_put_u8(out, '}');
		}
	}
	zbuf_release(&q);
	return err;
}

int zs_ch_profile_json(struct zs_ch *c, const char *id, struct zbuf *out, char *msg,
		       size_t msglen)
{
	struct zs_selection *sel = zs_selection_of_id(id);
	struct zbuf q;
	int err;

	if (!sel)
		return -ENOMEM;
	zbuf_init(&q);
	put(&q, "SELECT " LIST_COLS " FROM (");
	latest(c, &q, sel);
	put(&q, ") FORMAT RowBinary");
	err = list_rows(c, &q, out, 0, msg, msglen);
	zbuf_release(&q);
	free(sel);
	return err;
}

int zs_ch_exists(struct zs_ch *c, const char *id, uint64_t *samples, char *msg, size_t msglen)
{
	struct zbuf q, ans;
	struct zcur r;
	uint64_t ns;
	uint8_t del;
	int err;

	zbuf_init(&q);
	zbuf_init(&ans);
	put(&q, "SELECT argMax(samples, version), argMax(deleted, version) FROM ");
	rd(c, &q, "profiles");
	put(&q, " WHERE id = ");
	zt_ch_quote(&q, id);
	put(&q, " GROUP BY id FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, msglen);
	if (!err) {
		zcur_init(&r, ans.data, ans.len);
		if (!zcur_left(&r))
			err = 0;
		else if (zcur_u64le(&r, &ns) || zcur_u8(&r, &del))
			err = -EREMOTEIO;
		else if (!del)
			err = 1, *samples = ns;
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

/* ---- ingest ------------------------------------------------------------------------ */

static int insert(struct zs_ch *c, size_t i, const char *table, const struct zbuf *rows,
		  char *msg, size_t msglen)
{
	struct zbuf q;
	int err;

	if (rows->err) {
		zt_say(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	zbuf_init(&q);
	zbuf_putf(&q, "INSERT INTO %s.%s_local FORMAT RowBinary", c->db, table);
	err = run_on(c, i, &q, SET_INSERT, rows->data ? (const void *)rows->data : "", rows->len,
		     NULL, msg, msglen);
	zbuf_release(&q);
	return err;
}

static uint16_t day_of(int64_t t)
{
	int64_t now = (int64_t)time(NULL);

	if (t <= 0 || t > now + 86400)
		t = now;
	return (uint16_t)(t / 86400);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int zs_ch_ingest(struct zs_ch *c, const struct zs_ch_put *p, char *msg, size_t msglen)
{
	const struct zs_norm *n = p->n;
	size_t srv = owner(c, p->id), i, k;
	uint16_t day = day_of(n->time_start);
	uint64_t ingest = 0;
	struct zbuf b;
	int err = 0;

	if (getrandom(&ingest, sizeof(ingest), 0) != sizeof(ingest))
		ingest = now_ns() ^ ((uint64_t)(uintptr_t)p << 16);
	zbuf_init(&b);
	for (i = 0; i < p->nr_new_frames; i++) {
		size_t len;
		const uint8_t *key = zs_norm_key(n, p->new_frames[i], &len);

		zbuf_put_u64le(&b, p->fids[p->new_frames[i]]);
		zbuf_put_bytes(&b, key, len);
	}
	if (p->nr_new_frames)
		err = insert(c, srv, "frames", &b, msg, msglen);
	zbuf_reset(&b);
	for (i = 0; !err && i < p->nr_new_stacks; i++) {
		const struct zs_nstack *ns = &n->stacks[p->new_stacks[i]];

		zbuf_put_u64le(&b, p->sids[p->new_stacks[i]]);
		zbuf_put_uv(&b, ns->n);
		for (k = 0; k < ns->n; k++)
			zbuf_put_u64le(&b, p->fids[n->sframes[ns->off + k]]);
	}
	if (!err && p->nr_new_stacks)
		err = insert(c, srv, "stacks", &b, msg, msglen);
	zbuf_reset(&b);
	/* a row per time bucket, stack and process (server/tagg.h) */
	for (i = 0; !err && i < n->tagg.nr; i++) {
		const struct zs_tent *e = &n->tagg.ents[i];

		zbuf_put(&b, &(uint8_t[2]){(uint8_t)day, (uint8_t)(day >> 8)}, 2);
		zbuf_put_bytes(&b, p->id, 64);
		zbuf_put_u64le(&b, ingest);
		zbuf_put_u64le(&b, p->sids[e->stack]);
		zbuf_put_u64le(&b, e->count);
		zbuf_put_u64le(&b, e->value);
		zbuf_put_u64le(&b, (uint64_t)e->t);
		zbuf_put_u32le(&b, n->tagg.pids[e->proc]);
		zbuf_put_str(&b, zs_tagg_comm(&n->tagg, e->proc));
	}
	if (!err && n->tagg.nr)
		err = insert(c, srv, "samples", &b, msg, msglen);
	zbuf_reset(&b);
	if (!err) {
		zbuf_put(&b, &(uint8_t[2]){(uint8_t)day, (uint8_t)(day >> 8)}, 2);
		zbuf_put_bytes(&b, p->id, 64);
		zbuf_put_u64le(&b, ingest);
		zbuf_put_u64le(&b, now_ns());
		zbuf_put_u8(&b, 0);
		zbuf_put_str(&b, p->host);
		zbuf_put_str(&b, n->command);
		zbuf_put_str(&b, n->event);
		zbuf_put_str(&b, n->format);
		zbuf_put_u64le(&b, (uint64_t)n->time_start);
		zbuf_put_u64le(&b, (uint64_t)n->time_end);
		zbuf_put_u64le(&b, n->samples);
		zbuf_put_u64le(&b, n->weight);
		zbuf_put_u64le(&b, p->len);
		zbuf_put_u64le(&b, (uint64_t)time(NULL));
		zbuf_put_str(&b, p->buildids);
		zbuf_put_uv(&b, p->nr_labels);
		for (i = 0; i < p->nr_labels; i++)
			zbuf_put_str(&b, p->labels[i].key);
		zbuf_put_uv(&b, p->nr_labels);
		for (i = 0; i < p->nr_labels; i++)
			zbuf_put_str(&b, p->labels[i].value);
		zbuf_put_bytes(&b, p->body, p->len);
		zbuf_put_str(&b, n->ptype);
		zbuf_put_str(&b, n->unit);
		err = insert(c, srv, "profiles", &b, msg, msglen);
	}
	zbuf_release(&b);
	return err;
}

/* Whether the labels decoded at keys and vals (nk each, RowBinary strings)
 * have key k with value v. */
static int has_label(struct zcur keys, struct zcur vals, size_t nk, const char *k, const char *v)
{
	size_t i, kl = strlen(k), vl = strlen(v);

	for (i = 0; i < nk; i++) {
		const uint8_t *kp, *vp;
		size_t a, b;

		if (zcur_bytes(&keys, &kp, &a) || zcur_bytes(&vals, &vp, &b))
			return 0;
		if (a == kl && b == vl && !memcmp(kp, k, kl) && !memcmp(vp, v, vl))
			return 1;
	}
	return 0;
}

int zs_ch_add_labels(struct zs_ch *c, const char *id, const struct zs_label *l, size_t n,
		     unsigned max, unsigned *added, char *msg, size_t msglen)
{
	struct zbuf q, ans;
	struct zcur r, keys, vals;
	uint64_t nk = 0, nv;
	size_t i, j, k;
	char *add = calloc(n + 1, 1);
	int err;

	*added = 0;
	if (!add)
		return -ENOMEM;
	zbuf_init(&q);
	zbuf_init(&ans);
	put(&q, "SELECT argMax(label_keys, version), argMax(label_values, version) FROM ");
	rd(c, &q, "profiles");
	put(&q, " WHERE id = ");
	zt_ch_quote(&q, id);
	put(&q, " GROUP BY id HAVING argMax(deleted, version) = 0 FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, msglen);
	if (err)
		goto out;
	zcur_init(&r, ans.data, ans.len);
	if (!zcur_left(&r)) {
		err = -ENOENT;
		goto out;
	}
	if (zcur_uv(&r, &nk) || nk > 4096) {
		err = -EREMOTEIO;
		goto out;
	}
	keys = r;
	for (i = 0; i < nk && !err; i++) {
		const uint8_t *p;
		size_t len;

		err = zcur_bytes(&r, &p, &len) ? -EREMOTEIO : 0;
	}
	if (err || zcur_uv(&r, &nv) || nv != nk) {
		err = -EREMOTEIO;
		goto out;
	}
	vals = r;
	/* the pairs it lacks, each once */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !(add[j] && !strcmp(l[j].key, l[i].key) &&
				       !strcmp(l[j].value, l[i].value));
		     j++)
			;
		add[i] = j == i && !has_label(keys, vals, (size_t)nk, l[i].key, l[i].value);
		*added += add[i];
	}
	if (!*added)
		goto out;
	if (nk + *added > max) {
		zt_say(msg, msglen,
		       "the profile is stored with %llu labels, and this push's would make %llu: "
		       "at most %u labels a profile",
		       (unsigned long long)nk, (unsigned long long)(nk + *added), max);
		*added = 0;
		err = -EINVAL;
		goto out;
	}
	/* a newer catalogue row: the latest one with the labels added */
	zbuf_reset(&q);
	zbuf_putf(
		&q,
		"INSERT INTO %s.profiles_local (day, id, ingest, version, deleted, host, command,"
		" event, format, time_start, time_end, samples, weight, size, pushed_at, buildids,"
		" ptype, unit, label_keys, label_values, body) SELECT argMax(day, version), id,"
		" argMax(ingest, version), %" PRIu64 ", 0, argMax(host, version),"
		" argMax(command, version), argMax(event, version), argMax(format, version),"
		" argMax(time_start, version), argMax(time_end, version),"
		" argMax(samples, version), argMax(weight, version), argMax(size, version),"
		" argMax(pushed_at, version), argMax(buildids, version), argMax(ptype, version),"
		" argMax(unit, version),",
		c->db, now_ns());
	for (k = 0; k < 2; k++) {
		put(&q, k ? " arrayConcat(argMax(label_values, version), ["
			  : " arrayConcat(argMax(label_keys, version), [");
		for (i = 0, j = 0; i < n; i++) {
			if (!add[i])
				continue;
			if (j++)
				zbuf_put_u8(&q, ',');
			zt_ch_quote(&q, k ? l[i].value : l[i].key);
		}
		put(&q, "]),");
	}
	put(&q, " argMax(body, version) FROM ");
	rd(c, &q, "profiles");
	put(&q, " WHERE id = ");
	zt_ch_quote(&q, id);
	put(&q, " GROUP BY id HAVING argMax(deleted, version) = 0");
	err = run_on(c, owner(c, id), &q, SET_QUERY, NULL, 0, NULL, msg, msglen);
	if (err)
		*added = 0;
out:
	if (err == -EREMOTEIO && !msg[0])
		zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
	free(add);
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

int zs_ch_delete(struct zs_ch *c, const char *id, char *msg, size_t msglen)
{
	uint64_t samples;
	struct zbuf q;
	int err;

	err = zs_ch_exists(c, id, &samples, msg, msglen);
	if (err <= 0)
		return err ? err : -ENOENT;
	zbuf_init(&q);
	zbuf_putf(&q, "INSERT INTO %s.profiles_local (day, id, version, deleted) SELECT argMax(day, version),"
		 " id, %" PRIu64 ", 1 FROM ",
	     c->db, now_ns());
	rd(c, &q, "profiles");
	put(&q, " WHERE id = ");
	zt_ch_quote(&q, id);
	put(&q, " GROUP BY id");
	err = run_on(c, owner(c, id), &q, SET_QUERY, NULL, 0, NULL, msg, msglen);
	zbuf_release(&q);
	return err;
}

/* ---- merged reads -------------------------------------------------------------------- */

int zs_ch_decode_rows(const void *p, size_t len, struct zs_ch_row **rows, size_t *nr)
{
	size_t cap = len / 24, i;
	struct zcur r;

	*rows = NULL;
	*nr = 0;
	if (len % 24)
		return -EBADMSG;
	if (!len)
		return 0;
	if (!(*rows = malloc(cap * sizeof(**rows))))
		return -ENOMEM;
	zcur_init(&r, p, len);
	for (i = 0; i < cap; i++) {
		struct zs_ch_row *w = &(*rows)[i];

		if (zcur_u64le(&r, &w->stack) || zcur_u64le(&r, &w->count) ||
		    zcur_u64le(&r, &w->weight)) {
			free(*rows);
			*rows = NULL;
			return -EBADMSG;
		}
	}
	*nr = cap;
	return 0;
}

int zs_ch_type(struct zs_ch *c, const struct zs_selection *sel, char *type, size_t tlen,
	       char *unit, size_t ulen, int64_t span[3], char *msg, size_t msglen)
{
	struct zbuf q, ans;
	struct zcur r;
	char types[256] = "";
	size_t n = 0, k = 0;
	int err;

	*type = *unit = 0;
	span[0] = span[1] = span[2] = 0;
	zbuf_init(&q);
	zbuf_init(&ans);
	put(&q, "SELECT pt, any(un), min(ts), max(te), count() FROM (");
	latest(c, &q, sel);
	put(&q, ") GROUP BY pt ORDER BY pt LIMIT 64 FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, msglen);
	zcur_init(&r, ans.data, ans.len);
	while (!err && zcur_left(&r)) {
		const uint8_t *p, *u;
		size_t l, ul;
		uint64_t t0, t1, nr;

		if (zcur_bytes(&r, &p, &l) || zcur_bytes(&r, &u, &ul) || zcur_u64le(&r, &t0) ||
		    zcur_u64le(&r, &t1) || zcur_u64le(&r, &nr)) {
			zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
			err = -EREMOTEIO;
			break;
		}
		if (!n) {
			snprintf(type, tlen, "%.*s", (int)(l < 255 ? l : 255), (const char *)p);
			snprintf(unit, ulen, "%.*s", (int)(ul < 63 ? ul : 63), (const char *)u);
			span[0] = (int64_t)t0;
			span[1] = (int64_t)t1;
			span[2] = (int64_t)nr;
		}
		k += (size_t)snprintf(types + k, sizeof(types) - k, "%s%.*s", n ? ", " : "",
				      (int)(l < 64 ? l : 64), (const char *)p);
		if (k >= sizeof(types))
			k = sizeof(types) - 1;
		n++;
	}
	if (!err && n > 1) {
		zt_say(msg, msglen,
		       "the selection holds profiles of %zu types (%s): name one, as in "
		       "query={__name__=\"%s\"}",
		       n, types, type);
		err = -EDOM;
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

/* The samples' conditions of a selection: their time buckets and processes. */
static void samples_where(struct zbuf *q, const struct zs_selection *sel)
{
	if (sel->from)
		zbuf_putf(q, " AND ts > %" PRId64, sel->from - ZS_BUCKET_S);
	if (sel->to)
		zbuf_putf(q, " AND ts <= %" PRId64, sel->to);
	ch_proc_where(q, sel);
}

int zs_ch_merge(struct zs_ch *c, const struct zs_selection *sel, struct zs_ch_row **rows,
		size_t *nr, uint64_t *profiles, char *msg, size_t msglen)
{
	struct zbuf q, ans;
	struct zcur r;
	int err;

	*rows = NULL;
	*nr = 0;
	*profiles = 0;
	zbuf_init(&q);
	zbuf_init(&ans);
	if (zs_selection_cuts_samples(sel)) {
		/* samples cut by time or process: the profiles that gave some */
		sel_samples(c, &q, sel, "uniqExact(ingest)");
		put(&q, " FORMAT RowBinary");
	} else {
		put(&q, "SELECT count() FROM (");
		latest(c, &q, sel);
		put(&q, ") FORMAT RowBinary");
	}
	err = run_read(c, &q, &ans, msg, msglen);
	if (!err) {
		zcur_init(&r, ans.data, ans.len);
		if (zcur_u64le(&r, profiles))
			err = -EREMOTEIO;
	}
	zbuf_reset(&q);
	zbuf_reset(&ans);
	if (!err && *profiles) {
		const char *in = c->cluster[0] ? " GLOBAL IN " : " IN ";

		put(&q, "SELECT stack, sum(count), sum(weight) FROM ");
		rd(c, &q, "samples");
		put(&q, " WHERE ");
		/* Each ingest has its own 64 random bits: the number alone names a profile's
		 * ingest. Comparing it (8 bytes a row) rather than the pair with the profile
		 * id (64 more) takes a merge of 20 M rows from 1.3 s to 0.35 s here. (The
		 * profile ids as a primary-key filter too made a one-host selection slower:
		 * each host's profiles are in every granule.) A stale row would count only if
		 * its ingest drew some profile's latest number, a chance of about
		 * (profiles x ingests) / 2^64. */
		put(&q, "ingest");
		put(&q, in);
		put(&q, "(SELECT ing FROM (");
		latest(c, &q, sel);
		put(&q, "))");
		samples_where(&q, sel);
		put(&q, " GROUP BY stack FORMAT RowBinary");
		err = run_read(c, &q, &ans, msg, msglen);
	}
	if (!err)
		err = zs_ch_decode_rows(ans.data, ans.len, rows, nr);
	if (err == -EBADMSG || (err == -EREMOTEIO && !msg[0])) {
		zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
		err = -EREMOTEIO;
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

static int each_row(const void *p, size_t len, int (*row)(void *ctx, struct zcur *r), void *ctx)
{
	struct zcur r;
	int err = 0;

	zcur_init(&r, p, len);
	while (!err && zcur_left(&r))
		err = row(ctx, &r);
	return err;
}

/* SELECT what, any(col) FROM table WHERE what IN (ids) GROUP BY what, a chunk at a time, the
 * ids sent as an external table (a list of 10,000 literals in the query text cost ClickHouse
 * 18.16 100-200 ms to parse; the same ids as a table, a few ms). */
static int by_ids(struct zs_ch *c, const char *table, const char *what, const char *col,
		  const uint64_t *ids, size_t n, int (*row)(void *ctx, struct zcur *r), void *ctx,
		  char *msg, size_t msglen)
{
	struct zbuf q, ans;
	size_t i, k;
	int err = 0;

	zbuf_init(&q);
	zbuf_init(&ans);
	for (i = 0; i < n && !err; i += IDS_PER_QUERY) {
		zbuf_reset(&q);
		zbuf_reset(&ans);
		zbuf_putf(&q, "SELECT %s, any(%s) FROM ", what, col);
		rd(c, &q, table);
		zbuf_putf(&q, " WHERE %s %s " IDS_TABLE " GROUP BY %s FORMAT RowBinary", what,
			  c->cluster[0] ? "GLOBAL IN" : "IN", what);
		k = n - i < IDS_PER_QUERY ? n - i : IDS_PER_QUERY;
		if ((err = run_read_ids(c, &q, ids + i, k, &ans, msg, msglen)))
			break;
		err = each_row(ans.data, ans.len, row, ctx);
	}
	if (err == -EBADMSG)
		zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

struct stacks_ctx {
	int (*cb)(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr);
	void *ctx;
	uint64_t *f;
	size_t cap;
};

static int stack_row(void *ctx, struct zcur *r)
{
	struct stacks_ctx *s = ctx;
	uint64_t id, n, i;

	if (zcur_u64le(r, &id) || zcur_uv(r, &n) || n > zcur_left(r) / 8)
		return -EBADMSG;
	if (n > s->cap) {
		uint64_t *f = realloc(s->f, (size_t)n * sizeof(*f));

		if (!f)
			return -ENOMEM;
		s->f = f;
		s->cap = (size_t)n;
	}
	for (i = 0; i < n; i++)
		if (zcur_u64le(r, &s->f[i]))
			return -EBADMSG;
	return s->cb(s->ctx, id, s->f, (size_t)n);
}

int zs_ch_decode_stacks(const void *p, size_t len,
			int (*cb)(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr),
			void *ctx)
{
	struct stacks_ctx s = {cb, ctx, NULL, 0};
	int err = each_row(p, len, stack_row, &s);

	free(s.f);
	return err;
}

int zs_ch_stacks(struct zs_ch *c, const uint64_t *ids, size_t n,
		 int (*cb)(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr), void *ctx,
		 char *msg, size_t msglen)
{
	struct stacks_ctx s = {cb, ctx, NULL, 0};
	int err = by_ids(c, "stacks", "stack", "frames", ids, n, stack_row, &s, msg, msglen);

	free(s.f);
	return err;
}

struct frames_ctx {
	int (*cb)(void *ctx, uint64_t frame, const uint8_t *key, size_t len);
	void *ctx;
};

static int frame_row(void *ctx, struct zcur *r)
{
	struct frames_ctx *f = ctx;
	const uint8_t *k;
	uint64_t id;
	size_t n;

	if (zcur_u64le(r, &id) || zcur_bytes(r, &k, &n))
		return -EBADMSG;
	return f->cb(f->ctx, id, k, n);
}

int zs_ch_decode_frames(const void *p, size_t len,
			int (*cb)(void *ctx, uint64_t frame, const uint8_t *key, size_t len),
			void *ctx)
{
	struct frames_ctx f = {cb, ctx};

	return each_row(p, len, frame_row, &f);
}

int zs_ch_frames(struct zs_ch *c, const uint64_t *ids, size_t n,
		 int (*cb)(void *ctx, uint64_t frame, const uint8_t *key, size_t len), void *ctx,
		 char *msg, size_t msglen)
{
	struct frames_ctx f = {cb, ctx};

	return by_ids(c, "frames", "frame", "key", ids, n, frame_row, &f, msg, msglen);
}

/* ---- retention, numbers ---------------------------------------------------------------- */

int zs_ch_retention(struct zs_ch *c, unsigned days, unsigned *dropped, char *msg, size_t msglen)
{
	time_t cut = time(NULL) - (time_t)days * 86400;
	struct tm tm;
	unsigned long cutoff;
	struct zbuf q, ans;
	size_t i;
	int err = 0;

	*dropped = 0;
	gmtime_r(&cut, &tm);
	cutoff = (unsigned long)(tm.tm_year + 1900) * 10000 + (unsigned long)(tm.tm_mon + 1) * 100 +
		 (unsigned long)tm.tm_mday;
	zbuf_init(&q);
	zbuf_init(&ans);
	for (i = 0; i < c->nr && !err; i++) {
		char *line, *save = NULL;

		zbuf_reset(&q);
		zbuf_reset(&ans);
		put(&q, "SELECT DISTINCT table, partition FROM system.parts WHERE active AND database = ");
		zt_ch_quote(&q, c->db);
		put(&q, " AND table IN ('samples_local', 'profiles_local')"
			" FORMAT TabSeparated");
		if ((err = run_on(c, i, &q, NULL, NULL, 0, &ans, msg, msglen)))
			break;
		zbuf_put_u8(&ans, 0);
		if (ans.err) {
			err = -ENOMEM;
			break;
		}
		for (line = strtok_r((char *)ans.data, "\n", &save); line && !err;
		     line = strtok_r(NULL, "\n", &save)) {
			char table[64], part[32];
			unsigned long day;

			if (sscanf(line, "%63[a-z_]\t%31[0-9]", table, part) != 2 ||
			    (day = strtoul(part, NULL, 10)) >= cutoff)
				continue;
			zbuf_reset(&q);
			zbuf_putf(&q, "ALTER TABLE %s.%s DROP PARTITION %lu", c->db, table, day);
			if (!(err = run_on(c, i, &q, NULL, NULL, 0, NULL, msg, msglen)))
				(*dropped)++;
		}
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

int zs_ch_stats(struct zs_ch *c, uint64_t *profiles, uint64_t *samples, uint64_t *bytes)
{
	struct zs_selection *sel = calloc(1, sizeof(*sel));
	struct zbuf q, ans;
	struct zcur r;
	char msg[256];
	int err;

	if (!sel)
		return -ENOMEM;
	zbuf_init(&q);
	zbuf_init(&ans);
	put(&q, "SELECT count(), sum(ns), sum(sz) FROM (");
	latest(c, &q, sel);
	put(&q, ") FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, sizeof(msg));
	if (!err) {
		zcur_init(&r, ans.data, ans.len);
		if (zcur_u64le(&r, profiles) || zcur_u64le(&r, samples) || zcur_u64le(&r, bytes))
			err = -EREMOTEIO;
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	free(sel);
	return err;
}

/* ---- the timeline and discovery (server/query.c's, from ClickHouse) ------------- */

int zs_ch_series(struct zs_ch *c, const struct zs_selection *sel, int64_t from, int64_t step,
		 size_t n, uint64_t *v, uint64_t *samples, char *msg, size_t msglen)
{
	const char *in = c->cluster[0] ? " GLOBAL IN " : " IN ";
	struct zbuf q, ans;
	struct zcur r;
	int err;

	zbuf_init(&q);
	zbuf_init(&ans);
	zbuf_putf(&q, "SELECT intDiv(ts - %" PRId64 ", %" PRId64 ") AS b, sum(weight), sum(count) FROM ",
		  from, step);
	rd(c, &q, "samples");
	put(&q, " WHERE ingest");
	put(&q, in);
	put(&q, "(SELECT ing FROM (");
	latest(c, &q, sel);
	zbuf_putf(&q, ")) AND ts >= %" PRId64 " AND ts < %" PRId64, from,
		  from + (int64_t)n * step);
	samples_where(&q, sel);
	put(&q, " GROUP BY b FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, msglen);
	zcur_init(&r, ans.data, ans.len);
	while (!err && zcur_left(&r)) {
		uint64_t b, w, cnt;

		if (zcur_u64le(&r, &b) || zcur_u64le(&r, &w) || zcur_u64le(&r, &cnt)) {
			zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
			err = -EREMOTEIO;
			break;
		}
		if (b < n)
			v[b] += w;
		*samples += cnt;
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

/* Each String of a one-column RowBinary answer to add. */
static int strings(struct zs_ch *c, struct zbuf *q, int (*add)(void *ctx, const char *s, size_t n),
		   void *ctx, char *msg, size_t msglen)
{
	struct zbuf ans;
	struct zcur r;
	int err;

	zbuf_init(&ans);
	put(q, " FORMAT RowBinary");
	err = run_read(c, q, &ans, msg, msglen);
	zcur_init(&r, ans.data, ans.len);
	while (!err && zcur_left(&r)) {
		const uint8_t *p;
		size_t l;

		if (zcur_bytes(&r, &p, &l)) {
			zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
			err = -EREMOTEIO;
			break;
		}
		err = add(ctx, (const char *)p, l);
	}
	zbuf_release(&ans);
	return err;
}

/* "SELECT what FROM samples WHERE (the selection's samples)" */
static void sel_samples(struct zs_ch *c, struct zbuf *q, const struct zs_selection *sel,
			const char *what)
{
	put(q, "SELECT ");
	put(q, what);
	put(q, " FROM ");
	rd(c, q, "samples");
	put(q, " WHERE ingest");
	put(q, c->cluster[0] ? " GLOBAL IN " : " IN ");
	put(q, "(SELECT ing FROM (");
	latest_list(c, q, sel, 1);
	put(q, "))");
	samples_where(q, sel);
}

int zs_ch_label_names(struct zs_ch *c, const struct zs_selection *sel,
		      int (*add)(void *ctx, const char *s, size_t n), void *ctx, char *msg,
		      size_t msglen)
{
	struct zbuf q;
	int err;

	zbuf_init(&q);
	put(&q, "SELECT arrayJoin(arrayConcat(if(count() > 0, ['__name__'], emptyArrayString()),"
		" if(max(cmd != '') = 1, ['command'], emptyArrayString()),"
		" if(max(h != '') = 1, ['host'], emptyArrayString()),"
		" groupUniqArrayArray(arrayFilter(k -> NOT (k LIKE '\\\\_\\\\_%'), lk)))) FROM (");
	latest_list(c, &q, sel, 1);
	zbuf_put_u8(&q, ')');
	err = strings(c, &q, add, ctx, msg, msglen);
	zbuf_reset(&q);
	if (!err) {
		put(&q, "SELECT arrayJoin(['comm', 'pid']) FROM (");
		sel_samples(c, &q, sel, "comm");
		put(&q, " AND comm != '' LIMIT 1)");
		err = strings(c, &q, add, ctx, msg, msglen);
	}
	zbuf_release(&q);
	return err;
}

int zs_ch_label_values(struct zs_ch *c, const struct zs_selection *sel, const char *name,
		       int (*add)(void *ctx, const char *s, size_t n), void *ctx, char *msg,
		       size_t msglen)
{
	struct zbuf q;
	int err;

	if (name[0] == '_' && name[1] == '_' && strcmp(name, "__name__"))
		return 0; /* the store's own labels: none shown */
	zbuf_init(&q);
	if (!strcmp(name, "comm") || !strcmp(name, "pid")) {
		sel_samples(c, &q, sel, name[0] == 'c' ? "DISTINCT comm" : "DISTINCT toString(pid)");
		put(&q, " AND comm != '' LIMIT 10000");
	} else {
		if (!strcmp(name, "__name__"))
			put(&q, "SELECT DISTINCT pt FROM (");
		else if (!strcmp(name, "host") || !strcmp(name, "command")) {
			/* the recording's, and the labels of that name */
			put(&q, name[0] == 'h' ? "SELECT DISTINCT arrayJoin(arrayConcat([h],"
					       : "SELECT DISTINCT arrayJoin(arrayConcat([cmd],");
			put(&q, " arrayFilter((v, k) -> k = ");
			zt_ch_quote(&q, name);
			put(&q, ", lv, lk))) FROM (");
		} else {
			put(&q, "SELECT DISTINCT arrayJoin(arrayFilter((v, k) -> k = ");
			zt_ch_quote(&q, name);
			put(&q, ", lv, lk)) FROM (");
		}
		latest_list(c, &q, sel, 1);
		put(&q, ") LIMIT 10000");
	}
	err = strings(c, &q, add, ctx, msg, msglen);
	zbuf_release(&q);
	return err;
}

int zs_ch_merge_procs(struct zs_ch *c, const struct zs_selection *sel,
		      int (*cb)(void *ctx, uint64_t stack, uint32_t pid, const char *comm, size_t len,
				uint64_t count, uint64_t weight),
		      void *ctx, char *msg, size_t msglen)
{
	struct zbuf q, ans;
	struct zcur r;
	int err;

	zbuf_init(&q);
	zbuf_init(&ans);
	sel_samples(c, &q, sel, "stack, pid, comm, sum(count), sum(weight)");
	put(&q, " GROUP BY stack, pid, comm FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, msglen);
	zcur_init(&r, ans.data, ans.len);
	while (!err && zcur_left(&r)) {
		uint64_t stack, count, weight;
		uint32_t pid;
		const uint8_t *p;
		size_t l;

		if (zcur_u64le(&r, &stack) || zcur_u32le(&r, &pid) || zcur_bytes(&r, &p, &l) ||
		    zcur_u64le(&r, &count) || zcur_u64le(&r, &weight)) {
			zt_say(msg, msglen, "ClickHouse sent rows zt cannot read");
			err = -EREMOTEIO;
			break;
		}
		err = cb(ctx, stack, pid, (const char *)p, l, count, weight);
	}
	zbuf_release(&q);
	zbuf_release(&ans);
	return err;
}

int zs_ch_projects(struct zs_ch *c, const char *id, char *msg, size_t msglen)
{
	struct zs_selection *sel = zs_selection_of_id(id);
	struct zbuf q, ans;
	struct zcur r;
	uint64_t n = 0;
	int err;

	if (!sel)
		return -ENOMEM;
	zbuf_init(&q);
	zbuf_init(&ans);
	put(&q, "SELECT toUInt64(length(arrayFilter(k -> k = '" ZS_PROJECT_LABEL "', lk))) FROM (");
	latest_list(c, &q, sel, 1);
	put(&q, ") FORMAT RowBinary");
	err = run_read(c, &q, &ans, msg, msglen);
	zcur_init(&r, ans.data, ans.len);
	if (!err && zcur_left(&r) && zcur_u64le(&r, &n))
		err = -EREMOTEIO;
	zbuf_release(&q);
	zbuf_release(&ans);
	free(sel);
	return err ? err : (int)(n < 1000 ? n : 1000);
}
