/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU chunks of zt.data (version 1.2, man/zt-data.5): their encoders,
 * which buffer records until a chunk is sealed, and their decoders. Used
 * by formats/ztdata.c only, which frames, compresses, orders and indexes
 * the chunks; callers use formats/ztdata.h.
 *
 * Each chunk decodes on its own: its strings are in a table at its start,
 * its deltas start from 0. Launch stack ids are the file's (ztdata.c
 * interns the stacks and puts them in STACKS chunks first).
 */
#ifndef ZT_ZTDATA_GPU_H
#define ZT_ZTDATA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/gpu.h"
#include "libprof/profile.h"
#include "libprof/zbuf.h"

/* Chunk types, in the order a flush writes them. */
enum {
	ZTD_GPU_META = 9,	/* stall tables, per-process counters, info strings */
	ZTD_GPU_CUBINS = 10,	/* cubin images */
	ZTD_GPU_KERNELS = 11,	/* kernel executions */
	ZTD_GPU_MEMOPS = 12,	/* memory copies and sets */
	ZTD_GPU_LAUNCHES = 13,	/* launches, with file stack ids */
	ZTD_GPU_PCS = 14,	/* PC-sampling buckets */
	ZTD_GPU_OVERHEADS = 15, /* CUPTI overhead records */
};
#define ZTD_GPU_FIRST	  ZTD_GPU_META
#define ZTD_GPU_LAST	  ZTD_GPU_OVERHEADS
#define ZTD_GPU_CUBIN_MAX (128u << 20) /* the largest cubin a writer takes */
#define ZTD_GPU_STR_MAX	  (16u << 20)  /* the longest string */

/* Whether type is a GPU chunk type. */
static inline int ztd_gpu_type(uint32_t type)
{
	return type >= ZTD_GPU_FIRST && type <= ZTD_GPU_LAST;
}

/* ---- encoding ---- */

struct ztd_gpu_writer;

/* NULL with errno ENOMEM; free accepts NULL. */
struct ztd_gpu_writer *ztd_gpu_writer_new(void);
void ztd_gpu_writer_free(struct ztd_gpu_writer *gw);

/*
 * Buffer one record for the chunk of its kind. Strings are given as text
 * (the record's string ids are ignored); a launch's stack as the file's
 * stack id, or PROF_GPU_NO_STACK. 0, -ENOMEM, -E2BIG (a string over
 * ZTD_GPU_STR_MAX, a cubin over ZTD_GPU_CUBIN_MAX). A cubin whose crc was
 * put before (in any chunk of the file) is skipped: 1.
 */
int ztd_gpu_put_kernel(struct ztd_gpu_writer *gw, const struct prof_gpu_kernel *k,
		       const char *name);
int ztd_gpu_put_memop(struct ztd_gpu_writer *gw, const struct prof_gpu_memop *m);
int ztd_gpu_put_launch(struct ztd_gpu_writer *gw, const struct prof_gpu_launch *l, uint32_t stack);
int ztd_gpu_put_pcs(struct ztd_gpu_writer *gw, const struct prof_gpu_pcs *s, const char *function);
int ztd_gpu_put_stall(struct ztd_gpu_writer *gw, const struct prof_gpu_stall *s, const char *name);
int ztd_gpu_put_counters(struct ztd_gpu_writer *gw, const struct prof_gpu_counters *c);
int ztd_gpu_put_info(struct ztd_gpu_writer *gw, uint32_t pid, const char *key, const char *value);
int ztd_gpu_put_overhead(struct ztd_gpu_writer *gw, const struct prof_gpu_overhead *o);
int ztd_gpu_put_cubin(struct ztd_gpu_writer *gw, const struct prof_gpu_cubin *c);

/* About the bytes buffered for chunk type (0: none), or for all types
 * when type is 0. */
size_t ztd_gpu_pending(const struct ztd_gpu_writer *gw, uint32_t type);

/* The payload of a chunk of type from what is buffered, into pl (reset
 * first), and the buffer emptied. 0 or -ENOMEM; pl empty when nothing was
 * buffered. */
int ztd_gpu_seal(struct ztd_gpu_writer *gw, uint32_t type, struct zbuf *pl);

/* ---- decoding ---- */

/* What a decoder needs of the reader. */
struct ztd_gpu_ctx {
	struct profile *p;    /* records go to p->gpu (made when NULL) */
	const uint32_t *fmap; /* file stack id -> p's stack id */
	size_t nr_fmap;	      /* file stack ids defined so far */
	char *why;	      /* what did not decode */
	size_t why_len;
};

/*
 * Decode the payload of a GPU chunk of type at c: apply 0 checks all of it
 * (p untouched), apply 1 adds its records (after a check passed). Bytes
 * after the described content are ignored. 0, -EBADMSG (x->why says what),
 * -ENOMEM.
 */
int ztd_gpu_decode(uint32_t type, struct zcur *c, int apply, struct ztd_gpu_ctx *x);

#endif
