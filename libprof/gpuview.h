/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU records of a profile arranged for display (zt script): the timed
 * records (kernels, memory operations, overheads) in time order, the
 * launch each kernel or memory operation came from, and the PC-sampling
 * buckets summed per (process, cubin, function, PC, stall reason).
 *
 * Embedded: gpu_view_init() / gpu_view_release(). The struct prof_gpu is
 * borrowed and must not change while the view lives.
 */
#ifndef ZT_GPUVIEW_H
#define ZT_GPUVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/gpu.h"
#include "libprof/htab.h"
#include "libprof/proctree.h"
#include "libprof/rfilter.h"

enum gpu_ev_kind { GPU_EV_KERNEL = 1, GPU_EV_MEMOP = 2, GPU_EV_OVERHEAD = 3 };

/* A timed record: g->kernels[idx], g->memops[idx] or g->overheads[idx]. */
struct gpu_ev {
	uint64_t ts; /* its start */
	uint32_t kind, idx;
};

/* The samples of one (pid, cubin, function, PC, stall reason). */
struct gpu_pcsum {
	uint64_t crc, pc, samples;
	uint32_t pid;
	uint32_t context;  /* of its first bucket: where its stall reason is named */
	uint32_t function; /* string id */
	uint32_t stall;
	/* its stall reason's samples are counted under another reason too
	 * (CUPTI's "X_not_issued": prof_gpu_stall_is_subset): shown, never
	 * added to a total */
	uint32_t subset;
};

struct gpu_view {
	const struct prof_gpu *g;
	struct gpu_ev *ev; /* by time, then kind, then index */
	size_t nr_ev;
	struct gpu_pcsum *pcs; /* by pid, cubin, function name, PC, stall */
	size_t nr_pcs;
	/* private */
	struct zt_htab by_corr;	 /* launches by (pid, corr) */
	struct zt_htab by_outer; /* nested launches by (pid, outer_corr) */
	uint32_t *graph;	 /* graph launches by (pid, graph_id, ts) */
	size_t nr_graph;
	uint32_t *lstack; /* per launch: its stack, or one taken from a sampled launch
			     (gpu_view_stack), PROF_GPU_NO_STACK; NULL: none inferred */
	uint8_t *linferred;
	uint64_t nr_captured, nr_inferred; /* kernels whose launch stack was captured,
					      taken from another launch (0, 0 when
					      every launch has its own) */
};

/* 0 or -ENOMEM (v is then empty; release it anyway). g may be NULL. */
int gpu_view_init(struct gpu_view *v, const struct prof_gpu *g);
void gpu_view_release(struct gpu_view *v);

/*
 * The launch a kernel or memory operation of pid came from: the launch
 * with its correlation id, the nested (driver) launch inside that one, or
 * the outer (runtime) launch of that one, the first of them that has a
 * stack, else the first there is; failing those, for a kernel of a graph
 * (graph_id not 0), the last launch of that graph in pid at or before ts.
 * NULL when there is none.
 */
const struct prof_gpu_launch *gpu_view_launch(const struct gpu_view *v, uint32_t pid, uint32_t corr,
					      uint32_t graph_id, uint64_t ts);

/*
 * The launch stack the views show for l (from gpu_view_launch of v): its
 * own when it was captured; else, since launch stacks are sampled
 * (--gpu-stack-rate per thread: a PyTorch loop on an H200 had 3% of its
 * launches with one), the captured stack of a launch of the same kernel in
 * the same thread nearest in time, or failing that in the same process;
 * PROF_GPU_NO_STACK when its kernel has no captured launch there. *inferred
 * (may be NULL) says whether it was taken from another launch. zt script
 * and the chrome trace show each launch's own.
 */
uint32_t gpu_view_stack(const struct gpu_view *v, const struct prof_gpu_launch *l, int *inferred);
/* l with gpu_view_stack's stack, in *tmp (NULL stays NULL). */
const struct prof_gpu_launch *gpu_view_with_stack(const struct gpu_view *v,
						  const struct prof_gpu_launch *l,
						  struct prof_gpu_launch *tmp);

/*
 * Keep only the records of g that the filters f select, the others
 * removed from g (before any view of it is made): what zt report --gpu,
 * zt flame --gpu and zt script show under --pid, --tid, --comm and --time.
 *   kernels and memory operations: by the process and thread that launched
 *     them (gpu_view_launch(); the thread's name at the launch, from pt),
 *     and by their time: one overlapping a --time range is kept;
 *     first..last is the span percents of --time are of;
 *   PC samples of one launch (serialized sampling): with their kernel;
 *     without a kernel recorded, by their launch, whatever their time;
 *   PC samples of no one launch (continuous sampling): by their process,
 *     their count scaled to the share of their kernel's GPU time (its
 *     kernels of that name in the process) that is kept, as the views
 *     share them among its launches;
 *   CUPTI overheads: by their process and time (no thread: --tid and
 *     --comm leave them out).
 * A record whose thread is not known (no launch recorded) is left out by
 * --tid and --comm. --cpu, --dsos and --symbols do not apply. Launches,
 * cubins, stall names, counters and infos stay. 0 or -ENOMEM (g is then
 * unchanged).
 */
int gpu_select(struct prof_gpu *g, const struct rfilter *f, const struct proctree *pt,
	       uint64_t first, uint64_t last);
/* Whether f has a filter gpu_select() applies. */
int gpu_select_active(const struct rfilter *f);

/*
 * Split n samples among m parts in proportion to weights w[0 .. m) (all 0:
 * evenly), in whole samples that add up to n: each part its floor, then
 * one more each to the largest remainders (the first of equal ones). How
 * PC samples not tied to a launch (continuous mode) are shared among their
 * kernel's launch stacks by GPU time, in every view. part[0 .. m) gets the
 * shares. Allocates nothing; returns 0.
 */
int gpu_share(uint64_t n, const uint64_t *w, size_t m, uint64_t *part);

#endif
