/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ClickHouse side of zt serve's store (zt serve --clickhouse): the
 * profiles' catalogue with the recordings as received, their stacks,
 * frames and per-stack samples, in ClickHouse tables, shared by every zt serve
 * pointed at the same servers. Tokens and the symbol catalogue stay in
 * the instance's SQLite file (server/sqlstore.h); symbol files in the symbol
 * store (a directory, or S3 for several instances).
 *
 * Tables, in the database given (default "zt"), on every server:
 *   frames_local(frame UInt64, key String)                  ReplacingMergeTree, by frame
 *   stacks_local(stack UInt64, frames Array(UInt64))         ReplacingMergeTree, by stack
 *   samples_local(day Date, profile String, ingest UInt64,
 *                 stack UInt64, count UInt64, weight UInt64)  MergeTree, a partition a day
 *   profiles_local(day Date, id String, ingest UInt64, version UInt64,
 *                  deleted UInt8, host, command, event, format String,
 *                  time_start, time_end Int64, samples, weight, size UInt64,
 *                  pushed_at Int64, buildids String,
 *                  label_keys, label_values Array(String),
 *                  body String (the recording as received)) ReplacingMergeTree(version), a partition a day
 *   schema_local(version UInt32, at DateTime)                 what zt created and migrated
 * With a cluster (zt serve --clickhouse-cluster NAME, the name of the
 * servers' remote_servers entry), each also has a Distributed table of the
 * same name without "_local" over the cluster, which every read goes
 * through; without one the reads use the local tables of the one server.
 *
 * Ids: a frame is the first 8 bytes (little endian) of the SHA-256 of its
 * key (server/norm.h), a stack the same of its frames' ids (8 bytes each,
 * leaf first): every instance names a frame and a stack alike.
 *
 * Exactly once: a profile's rows go to one server (its id's first byte
 * modulo the number of servers), samples first, its catalogue row last,
 * and the catalogue row carries the ingest's random number: reads count
 * only the samples of a profile's latest catalogue row (argMax by
 * version), so an ingest cut short or repeated (a push retried after a
 * killed server, two instances taking the same body at once) never shows
 * twice, and a failed one never shows. A deleted profile gets a newer
 * catalogue row with deleted = 1.
 *
 * Days: a profile's day is the UTC day its recording started (the day it
 * was pushed when the recording has no time, or a time in the future);
 * retention drops whole days.
 *
 * Errors: -EAGAIN when a server cannot be reached or is overloaded (zt
 * serve answers 503: try again), -EREMOTEIO when one refused a query,
 * -EACCES for a refused user, -ENOMEM; msg says which server and what it
 * said.
 */
#ifndef ZT_SERVER_CHSTORE_H
#define ZT_SERVER_CHSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/zbuf.h"
#include "server/norm.h"
#include "server/store.h"

#define ZS_CH_MAX_SERVERS 64
#define ZS_CH_SCHEMA	  2 /* the schema version this zt makes and reads */

struct zs_ch_opts {
	const char *urls[ZS_CH_MAX_SERVERS]; /* http://HOST:PORT of each server */
	size_t nr_urls;
	const char *cluster;  /* NULL: one server, no Distributed tables */
	const char *database; /* NULL: "zt" */
	const char *user;     /* NULL: the servers' default user */
	const char *password; /* NULL: none */
	long timeout_ms;      /* one query; 0: 30 s */
};

struct zs_ch;

/*
 * Connect: ask every server its version (refusing one older than 18.16),
 * check the cluster has one shard per URL, create the database and the
 * tables where missing and migrate older ones, refuse a schema newer than
 * ZS_CH_SCHEMA. 0 or an error with msg set.
 */
int zs_ch_open(const struct zs_ch_opts *o, struct zs_ch **out, char *msg, size_t msglen);
void zs_ch_close(struct zs_ch *c); /* accepts NULL */
/* "18.16.1" of the first server. */
const char *zs_ch_version(const struct zs_ch *c);

/* The 8-byte id of a frame key, and of a stack of frame ids (leaf first). */
uint64_t zs_ch_frame_id(const void *key, size_t len);
uint64_t zs_ch_stack_id(const uint64_t *frames, size_t n);

/* Whether profile id is stored (and not deleted): 1 with *samples, 0, or an error. */
int zs_ch_exists(struct zs_ch *c, const char *id, uint64_t *samples, char *msg, size_t msglen);

/* What an ingest writes. fids: the id of each of n's frames; sids: of each
 * of n's stacks; new_frames / new_stacks: the indices (into n's frames and
 * stacks) of those to write (the others are known to be stored). */
struct zs_ch_put {
	const struct zs_norm *n;
	const char *id;
	const char *host; /* the catalogue's host (n->host or a "host" label) */
	const void *body; /* the recording as received */
	size_t len;
	const struct zs_label *labels;
	size_t nr_labels;
	const uint64_t *fids, *sids;
	const uint32_t *new_frames, *new_stacks;
	size_t nr_new_frames, nr_new_stacks;
	const char *buildids; /* space-separated hex */
};
int zs_ch_ingest(struct zs_ch *c, const struct zs_ch_put *p, char *msg, size_t msglen);

/* A re-push of stored profile id: the labels it lacks added (a newer
 * catalogue row with the union of the labels), *added of them; nothing
 * written when it has them all. -EINVAL (msg) when it would have more
 * than max labels, -ENOENT, or an error. Two re-pushes of one profile at
 * the same moment may keep only one's labels. */
int zs_ch_add_labels(struct zs_ch *c, const char *id, const struct zs_label *l, size_t n,
		     unsigned max, unsigned *added, char *msg, size_t msglen);

/* Mark profile id deleted. 0, -ENOENT, or an error. */
int zs_ch_delete(struct zs_ch *c, const char *id, char *msg, size_t msglen);

/* The profiles of a selection as the store's list JSON ({"profiles":[...]}),
 * and one profile's object (-ENOENT). */
int zs_ch_list_json(struct zs_ch *c, const struct zs_selection *sel, struct zbuf *out, char *msg,
		    size_t msglen);
int zs_ch_profile_json(struct zs_ch *c, const char *id, struct zbuf *out, char *msg,
		       size_t msglen);

/* A selection merged by ClickHouse: per stack, its samples and weight. */
struct zs_ch_row {
	uint64_t stack, count, weight;
};
/* The profile type and unit of a selection's profiles, their first
 * start and last end (Unix s; 0: none) and their number into span[0..2];
 * -EDOM with msg when they are of several types. */
int zs_ch_type(struct zs_ch *c, const struct zs_selection *sel, char *type, size_t tlen,
	       char *unit, size_t ulen, int64_t span[3], char *msg, size_t msglen);
/* The values of a selection's samples summed into v[(t - from) / step]
 * (n of them), their samples added to *samples. */
int zs_ch_series(struct zs_ch *c, const struct zs_selection *sel, int64_t from, int64_t step,
		 size_t n, uint64_t *v, uint64_t *samples, char *msg, size_t msglen);
/* Label discovery over a selection: each name (value) to add, unsorted,
 * maybe several times; add's nonzero return stops and is returned. */
int zs_ch_label_names(struct zs_ch *c, const struct zs_selection *sel,
		      int (*add)(void *ctx, const char *s, size_t n), void *ctx, char *msg,
		      size_t msglen);
int zs_ch_label_values(struct zs_ch *c, const struct zs_selection *sel, const char *name,
		       int (*add)(void *ctx, const char *s, size_t n), void *ctx, char *msg,
		       size_t msglen);
/* The number of projects profile id is in (0: none named, a profile
 * pushed before projects), or an error. */
int zs_ch_projects(struct zs_ch *c, const char *id, char *msg, size_t msglen);
/* The selection's samples summed per (stack, pid, comm): cb for each. */
int zs_ch_merge_procs(struct zs_ch *c, const struct zs_selection *sel,
		      int (*cb)(void *ctx, uint64_t stack, uint32_t pid, const char *comm, size_t len,
				uint64_t count, uint64_t weight),
		      void *ctx, char *msg, size_t msglen);
int zs_ch_merge(struct zs_ch *c, const struct zs_selection *sel, struct zs_ch_row **rows,
		size_t *nr, uint64_t *profiles, char *msg, size_t msglen);

/* The frames of stacks ids[0..n): cb(ctx, stack, frames, nr) for each found. */
int zs_ch_stacks(struct zs_ch *c, const uint64_t *ids, size_t n,
		 int (*cb)(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr), void *ctx,
		 char *msg, size_t msglen);
/* The keys of frames ids[0..n): cb(ctx, frame, key, len) for each found. */
int zs_ch_frames(struct zs_ch *c, const uint64_t *ids, size_t n,
		 int (*cb)(void *ctx, uint64_t frame, const uint8_t *key, size_t len), void *ctx,
		 char *msg, size_t msglen);

/* Drop every day before today - days (UTC) on every server: *dropped gets
 * the number of partitions dropped. */
int zs_ch_retention(struct zs_ch *c, unsigned days, unsigned *dropped, char *msg, size_t msglen);

/* ---- ClickHouse's answers (RowBinary), decoded: outside input, fuzzed ---- */

/* Catalogue rows (id h cmd ev fmt: String; ts te ns w sz: 8 bytes; label
 * keys and values: Array(String); pa: 8 bytes) as the store's JSON: a
 * list ({"profiles":[...]}) when many, else one object (-ENOENT: none). */
int zs_ch_decode_list(const void *p, size_t len, int many, struct zbuf *out);
/* (stack, count, weight) rows, malloc'ed. */
int zs_ch_decode_rows(const void *p, size_t len, struct zs_ch_row **rows, size_t *nr);
/* (stack UInt64, frames Array(UInt64)) and (frame UInt64, key String) rows. */
int zs_ch_decode_stacks(const void *p, size_t len,
			int (*cb)(void *ctx, uint64_t stack, const uint64_t *frames, size_t nr),
			void *ctx);
int zs_ch_decode_frames(const void *p, size_t len,
			int (*cb)(void *ctx, uint64_t frame, const uint8_t *key, size_t len),
			void *ctx);
/* All decoders return 0, -EBADMSG (rows zt cannot read) or -ENOMEM. */

/* Numbers for /metrics: profiles, samples and bytes stored. */
int zs_ch_stats(struct zs_ch *c, uint64_t *profiles, uint64_t *samples, uint64_t *bytes);

#endif
