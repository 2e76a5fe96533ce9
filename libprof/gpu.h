/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU part of a profile (zt record --gpu): CUDA kernels, memory copies
 * and sets, kernel launches with their CPU stacks, PC-sampling buckets with
 * stall reasons, the stall-reason tables, the cubins the PCs belong to,
 * CUPTI overhead records and per-process counters. Filled by the zt.data
 * reader and by zt record's merge of the CUDA processes' files; a profile
 * without GPU records has p->gpu == NULL.
 *
 * Ownership: struct prof_gpu owns every array, string and cubin; lookups
 * return borrowed pointers valid until the next add of the same kind or
 * prof_gpu_free(). Strings (kernel and function names, stall reasons, info
 * values) are interned: records hold string ids.
 */
#ifndef ZT_GPU_H
#define ZT_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/strtab.h"

#define PROF_GPU_NO_STACK UINT32_MAX

/* prof_gpu_launch.flags: the same bits as cupti/wire.h's ZG_L_* */
#define PROF_GPU_L_STACK 1       /* stack is set (captured in-process, or by BPF) */
#define PROF_GPU_L_USDT 2        /* the stack came from zt's BPF sampler (USDT probe) */
#define PROF_GPU_L_RATELIMITED 4 /* no stack: the thread was over its stack rate */
#define PROF_GPU_L_GRAPH 8       /* a graph launch */
#define PROF_GPU_L_NESTED 16     /* an inner launch: outer_corr is the outer one's */

enum prof_gpu_memop_kind { PROF_GPU_MEMCPY = 1, PROF_GPU_MEMSET = 2 };

struct prof_gpu_kernel {
	uint64_t start, end, queued, submitted; /* ns, CLOCK_MONOTONIC; queued/submitted 0: unknown */
	uint64_t graph_node_id;
	uint32_t pid, corr, device, context, stream, graph_id;
	uint32_t grid[3], block[3];
	uint32_t regs, smem_static, smem_dynamic, local_mem;
	uint32_t name; /* string id: the mangled kernel name */
};

struct prof_gpu_memop {
	uint64_t start, end, bytes;
	uint32_t pid, corr, device, context, stream, value, graph_id;
	uint8_t kind;      /* enum prof_gpu_memop_kind */
	uint8_t copy_kind; /* CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA,
			      6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP */
	uint8_t src_kind, dst_kind; /* CUpti_ActivityMemoryKind: 1 pageable, 2 pinned, 3 device,
				       4 array, 5 managed, 6 device static, 7 managed static */
};

struct prof_gpu_launch {
	uint64_t ts;
	uint32_t pid, tid;
	uint32_t corr, outer_corr;
	uint32_t cbid, domain; /* CUPTI callback id and domain (1 driver API, 2 runtime API) */
	uint32_t flags;        /* PROF_GPU_L_* */
	uint32_t graph_id;
	uint32_t stack;        /* the profile's stack id (user frames), or PROF_GPU_NO_STACK */
};

/* PC-sampling samples of one (process, cubin, function, PC, stall reason). */
struct prof_gpu_pcs {
	uint64_t cubin_crc, pc_offset, samples;
	uint32_t pid, context, function_index, stall, corr;
	uint32_t function; /* string id: the function (kernel) name */
};

struct prof_gpu_stall {
	uint32_t pid, context, index;
	uint32_t name; /* string id */
};

struct prof_gpu_cubin {
	uint64_t crc;
	uint32_t pid, module_id, context; /* of the first process that loaded it */
	uint8_t *data;                    /* owned */
	size_t len;
};

struct prof_gpu_overhead {
	uint64_t start, end;
	uint32_t pid, kind, object_kind;
	uint32_t object_id[2];
};

/* Per-process totals (the library's running counters; the last report wins). */
struct prof_gpu_counters {
	uint32_t pid;
	uint64_t dropped_records, pc_total_samples, pc_dropped_samples, pc_nonuser_samples,
		pc_hw_buffer_full, launches, launch_stacks, launch_ratelimited, mem_dropped, cubins;
};

/* key/value strings a process reported (cupti_version, driver_version, pcs_mode,
 * warning, ...); several entries of one key are kept in order. */
struct prof_gpu_info {
	uint32_t pid;
	uint32_t key, value; /* string ids */
};

struct prof_gpu {
	struct prof_gpu_kernel *kernels;
	size_t nr_kernels, cap_kernels;
	struct prof_gpu_memop *memops;
	size_t nr_memops, cap_memops;
	struct prof_gpu_launch *launches;
	size_t nr_launches, cap_launches;
	struct prof_gpu_pcs *pcs;
	size_t nr_pcs, cap_pcs;
	struct prof_gpu_stall *stalls;
	size_t nr_stalls, cap_stalls;
	struct prof_gpu_cubin *cubins;
	size_t nr_cubins, cap_cubins;
	struct prof_gpu_overhead *overheads;
	size_t nr_overheads, cap_overheads;
	struct prof_gpu_counters *counters;
	size_t nr_counters, cap_counters;
	struct prof_gpu_info *infos;
	size_t nr_infos, cap_infos;
	struct zt_strtab strs;	     /* string id -> NUL-terminated string */
	struct zt_htab cubin_hash;   /* crc -> index into cubins */
	struct zt_htab stall_hash;   /* (pid, context, index) -> index into stalls */
	struct zt_htab counter_hash; /* pid -> index into counters */
};

/* An empty set of records (NULL with errno ENOMEM); free accepts NULL. */
struct prof_gpu *prof_gpu_new(void);
void prof_gpu_free(struct prof_gpu *g);
/* Drop every record and string (ids start again from 0), keeping the
 * memory for reuse: what a recorder does after each flush. */
void prof_gpu_clear(struct prof_gpu *g);
/* Whether g holds no record at all (strings aside). */
int prof_gpu_empty(const struct prof_gpu *g);

/* Intern len bytes (no NUL needed; a NUL inside is cut there) as a string id:
 * equal strings get the same id. 0, -ENOMEM, or -E2BIG past 2^32 - 2 strings. */
int prof_gpu_intern(struct prof_gpu *g, const char *s, size_t len, uint32_t *id);
/* The string of an id ("" for an id out of range). */
const char *prof_gpu_str(const struct prof_gpu *g, uint32_t id);
/* The number of strings: ids are 0 .. nr - 1. */
static inline size_t prof_gpu_nr_strs(const struct prof_gpu *g)
{
	return zt_strtab_count(&g->strs);
}

/* Append records (copied). Return 0 or -ENOMEM; -EINVAL for a string id out
 * of range (a launch's stack is not checked: it refers to a profile g does
 * not know). */
int prof_gpu_add_kernel(struct prof_gpu *g, const struct prof_gpu_kernel *k);
int prof_gpu_add_memop(struct prof_gpu *g, const struct prof_gpu_memop *m);
int prof_gpu_add_launch(struct prof_gpu *g, const struct prof_gpu_launch *l);
int prof_gpu_add_pcs(struct prof_gpu *g, const struct prof_gpu_pcs *s);
/* A stall-reason entry; the same (pid, context, index) again replaces the name. */
int prof_gpu_add_stall(struct prof_gpu *g, const struct prof_gpu_stall *s);
/* A cubin, copied; one with a crc already present is not added again and
 * returns 1 (its first loader is kept). -EINVAL for len bytes without data. */
int prof_gpu_add_cubin(struct prof_gpu *g, uint64_t crc, uint32_t pid, uint32_t module_id,
		       uint32_t context, const void *data, size_t len);
int prof_gpu_add_overhead(struct prof_gpu *g, const struct prof_gpu_overhead *o);
/* Set a process's counters (the same pid again replaces them). */
int prof_gpu_set_counters(struct prof_gpu *g, const struct prof_gpu_counters *c);
/* key and value are NUL-terminated (interned). */
int prof_gpu_add_info(struct prof_gpu *g, uint32_t pid, const char *key, const char *value);

const struct prof_gpu_cubin *prof_gpu_find_cubin(const struct prof_gpu *g, uint64_t crc);
/* The counters of pid, or NULL. */
const struct prof_gpu_counters *prof_gpu_find_counters(const struct prof_gpu *g, uint32_t pid);
/* The stall reason name of (pid, context, index), or NULL. */
const char *prof_gpu_stall_name(const struct prof_gpu *g, uint32_t pid, uint32_t context,
				uint32_t index);
/*
 * Whether a stall reason's samples are a subset of another reason's, so not
 * to be counted again: from Hopper on, CUPTI reports beside each reason X
 * "X_not_issued", the samples of X in which the warp issued nothing. On an
 * H200 the reasons without that suffix, plus CUPTI's non-user samples, add up
 * to CUPTI's totalSamples exactly (tests/gpu/H200-RUN-2.md).
 */
int prof_gpu_stall_name_is_subset(const char *name);
/* The same for (pid, context, index); 0 for a reason g does not name. */
int prof_gpu_stall_is_subset(const struct prof_gpu *g, uint32_t pid, uint32_t context,
			     uint32_t index);

#endif
