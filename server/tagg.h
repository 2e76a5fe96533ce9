/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A profile's samples by time and process, as zt serve keeps them beside
 * its per-stack totals: for each ZS_BUCKET_S-second bucket of wall-clock
 * time, each (stack, process) with its sample count and value. Selections
 * by time range cut samples by these buckets, the timeline sums them, and
 * a system-wide recording can be selected by process (comm, pid).
 *
 * The encoded form (a "tagg"), all numbers unsigned LEB128:
 *   nr_procs, then per process: pid, length of comm, comm's bytes
 *   nr_buckets, then per bucket (in time order): its start / ZS_BUCKET_S
 *     (the first absolute, the others as the difference to the one
 *     before), nr_entries, then per entry (in stack order): process index,
 *     stack id (difference to the entry before in the bucket), count, value
 *
 * Decoding is safe on any bytes (fuzzed: tests/fuzz/fuzz_tagg.c).
 */
#ifndef ZT_SERVER_TAGG_H
#define ZT_SERVER_TAGG_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/zbuf.h"

#define ZS_BUCKET_S 10 /* seconds of a time bucket */

/* The bucket (its start, Unix seconds) of time t. */
static inline int64_t zs_bucket_of(int64_t t)
{
	return t >= 0 ? t - t % ZS_BUCKET_S : t - ((t % ZS_BUCKET_S) + ZS_BUCKET_S) % ZS_BUCKET_S;
}

struct zs_tent {
	int64_t t; /* bucket start */
	uint32_t stack, proc;
	uint64_t count, value;
};

/* A tagg being built (by server/norm.c). */
struct zs_tagg {
	struct zs_tent *ents;
	size_t nr, cap;
	uint32_t *pids, *comm_off; /* per process; comm at comms.data + comm_off */
	size_t nr_procs, cap_procs, cap_off;
	struct zbuf comms;
	struct zt_htab ehash, phash;
};

void zs_tagg_init(struct zs_tagg *a);
void zs_tagg_release(struct zs_tagg *a);
/* The index of process (pid, comm), added when new. 0, -ENOMEM. */
int zs_tagg_proc(struct zs_tagg *a, uint32_t pid, const char *comm, uint32_t *idx);
/* Count samples of stack in process proc at time t (Unix seconds). 0, -ENOMEM. */
int zs_tagg_add(struct zs_tagg *a, int64_t t, uint32_t stack, uint32_t proc, uint64_t count,
		uint64_t value);
/* The process comm of index i. */
static inline const char *zs_tagg_comm(const struct zs_tagg *a, uint32_t i)
{
	return (const char *)a->comms.data + a->comm_off[i];
}
/* Encode a, its stacks mapped through map (map[stack]: the stored id;
 * NULL: as they are). 0, -ENOMEM. */
int zs_tagg_encode(const struct zs_tagg *a, const uint32_t *map, struct zbuf *out);

/* ---- reading ---------------------------------------------------------------------- */

struct zs_tcur {
	struct zcur c;
	uint64_t nr_procs, buckets_left, ents_left;
	int64_t t;
	uint64_t stack;
};

/* Start reading the len bytes at p: each process to fn (comm not
 * NUL-terminated; fn may be NULL; a nonzero return stops and is
 * returned), then c is ready for zs_tagg_next. 0, -EBADMSG. */
int zs_tagg_open(struct zs_tcur *c, const void *p, size_t len,
		 int (*fn)(void *ctx, uint32_t idx, uint32_t pid, const char *comm, size_t len),
		 void *ctx);
/* The next entry: 1, 0 at the end, -EBADMSG (a process index past the
 * processes, a bucket outside int64 seconds, damage). */
int zs_tagg_next(struct zs_tcur *c, struct zs_tent *e);

#endif
