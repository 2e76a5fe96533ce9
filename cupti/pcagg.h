/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PC-sampling aggregation: the samples CUPTI hands over (per PC, a list of
 * {stall reason, samples}) are summed into buckets keyed by (cubin crc,
 * PC offset, function index, stall reason, correlation id, context). The
 * correlation id is 0 in continuous mode, so a bucket is a (cubin,
 * function, PC, stall) there; serialized mode keeps one bucket per launch.
 * zc_pcagg_take() moves the buckets out (the deltas since the last take)
 * and starts empty again, so the table never outgrows one flush period.
 *
 * Not thread-safe: the owner locks. Embedded: zc_pcagg_init /
 * zc_pcagg_release. Memory comes from the library's budget; at the cap a
 * record that needs a new bucket is dropped and counted.
 */
#ifndef ZT_CUPTI_PCAGG_H
#define ZT_CUPTI_PCAGG_H

#include <stddef.h>
#include <stdint.h>

#include "cupti/mem.h"
#include "cupti/strtab.h"
#include "libprof/htab.h"

struct zc_pcs_key {
	uint64_t crc, pc;
	uint32_t fn, stall, corr, ctx;
};

struct zc_pcs_bucket {
	struct zc_pcs_key k;
	uint64_t samples;
	uint64_t hash;
	const char *name; /* the function's name, interned (stable), or NULL */
	uint32_t name_len;
	uint32_t pad;
};

/* One PC of a CUPTI buffer (the fields of CUpti_PCSamplingPCData zt keeps). */
struct zc_pcs_pc {
	uint64_t crc, pc;
	uint32_t fn, corr, ctx;
	const char *name; /* CUPTI's; copied (interned) here */
};

#define ZC_PCAGG_NAME_CACHE 256

struct zc_pcagg {
	struct zc_mem *mem;
	struct zc_strtab names;
	struct zc_pcs_bucket *b;
	size_t nr, cap;
	struct zt_htab idx;
	size_t taken; /* bytes of b and idx */
	uint64_t dropped;
	struct zc_pcs_name {
		uint64_t crc;
		uint32_t fn, len;
		const char *s;
	} cache[ZC_PCAGG_NAME_CACHE];
};

/* Buckets taken out of the aggregator: owned, free with zc_pcagg_batch_free(). */
struct zc_pcs_batch {
	struct zc_pcs_bucket *b;
	size_t nr;
	size_t taken;
	struct zc_mem *mem;
};

void zc_pcagg_init(struct zc_pcagg *a, struct zc_mem *mem);
void zc_pcagg_release(struct zc_pcagg *a);

/*
 * Add one PC's samples: pairs holds n {stall reason index, samples} pairs
 * of uint32 (CUpti_PCSamplingStallReason's layout). Pairs with 0 samples
 * are skipped. Returns the number of pairs dropped at the memory cap.
 */
size_t zc_pcagg_add(struct zc_pcagg *a, const struct zc_pcs_pc *pc, const uint32_t *pairs,
		    size_t n);

/* Move the buckets into *out (nr 0 when empty) and start again. */
void zc_pcagg_take(struct zc_pcagg *a, struct zc_pcs_batch *out);
void zc_pcagg_batch_free(struct zc_pcs_batch *b);

#endif
