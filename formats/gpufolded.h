/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU stacks as folded text (FlameGraph's "a;b;c COUNT"), the shape zt
 * flame --gpu draws and zt script --folded --gpu prints. One stack per
 * (launch stack, kernel, device-function chain, source line, stall reason):
 *
 *   comm;main;...;launch_saxpy;cuLaunchKernel;saxpy_[g];shade_[gd];kernels.cu:8_[gl];long_scoreboard_[gs]
 * 42
 *
 * The CPU part is the kernel's launch stack, folded as zt script --folded
 * folds samples (process name first, outermost caller next), without the
 * frames of CUPTI, of zt's injection library and of the CUDA driver's
 * inside (the driver's API function, cuLaunchKernel, is kept; under a
 * runtime API call, none of the driver is). GPU levels carry a suffix,
 * in the manner of flamegraph.pl's "_[k]" (kernel) and "_[j]" (JIT):
 *
 *   _[g]   the kernel (a __global__ function)
 *   _[gd]  a device function it calls (outer to inner)
 *   _[gi]  a device function inlined there
 *   _[gl]  the source line of the sampled PC ("file.cu:42"; left out
 *          when the cubin has no line table)
 *   _[gs]  the stall reason (CUPTI's name without its
 *          "smsp__pcsamp_warps_issue_stalled_" prefix)
 *
 * A launch without a recorded stack (rate-limited, or not found) has
 * "[no launch stack]" after the process name.
 *
 * Weights: GPUFOLDED_SAMPLES (PC samples). A bucket tied to a launch
 * (serialized PC sampling: a correlation id) goes to that launch's stack.
 * A bucket of continuous sampling (no correlation id) is shared among the
 * launch stacks of its kernel (same process and name) in proportion to the
 * GPU time of that kernel's launches from each stack, with the largest
 * remainders rounded up, so the samples of each stack suffix still add up
 * to the recorded total. GPUFOLDED_TIME: each kernel's GPU time in
 * nanoseconds, stacks ending at the kernel (PC samples are per line, time
 * per kernel: time cannot be split by line), kernels without PC samples
 * included.
 *
 * The writers fill a folded_set (formats/folded.h); they do not print.
 */
#ifndef ZT_GPUFOLDED_H
#define ZT_GPUFOLDED_H

#include <stddef.h>
#include <stdint.h>

#include "formats/folded.h"
#include "formats/stackgroups.h"
#include "libprof/frametab.h"
#include "libprof/gpu.h"
#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "libprof/strtab.h"

/* The frame suffixes (see above). */
#define GPUFOLDED_KERNEL   "_[g]"
#define GPUFOLDED_FUNC	   "_[gd]"
#define GPUFOLDED_INLINED  "_[gi]"
#define GPUFOLDED_LINE	   "_[gl]"
#define GPUFOLDED_STALL	   "_[gs]"
#define GPUFOLDED_NO_STACK "[no launch stack]"

enum gpufolded_weight { GPUFOLDED_SAMPLES = 0, GPUFOLDED_TIME = 1 };

/*
 * The CPU part of a stack: the folded launch stack of launch l (NULL: none
 * was found) of a kernel of process pid at time ts, "comm;outer;...;inner"
 * without a trailing ';', into *out: a string that stays valid until the
 * build returns (the callee keeps it). 0 or a negative errno.
 */
typedef int (*gpufolded_prefix_fn)(void *ctx, uint32_t pid, const struct prof_gpu_launch *l,
				   uint64_t ts, const char **out);

struct gpufolded_opts {
	enum gpufolded_weight weight;
	gpufolded_prefix_fn prefix;
	void *prefix_ctx;
	/* a kernel's name as shown (demangled) from its string id; NULL: as
	 * recorded. The string stays valid until the build returns. */
	const char *(*kernel_name)(void *ctx, uint32_t id);
	void *name_ctx;
};

/*
 * The GPU stacks of v (a view of a profile's GPU records) into fs, counted
 * as o->weight says; t: v's PC buckets resolved (session_gpu_frames();
 * only read for GPUFOLDED_SAMPLES, may then be NULL to name kernels only).
 * 0 or a negative errno (the prefix callback's, or -ENOMEM).
 */
int gpufolded_build(struct folded_set *fs, const struct gpu_view *v, const struct gpu_frametab *t,
		    const struct gpufolded_opts *o);

/* A stall reason's name as shown in a stack, into buf (size n): CUPTI's
 * name without its "smsp__pcsamp_warps_issue_stalled_" prefix, or
 * "stall_INDEX" for name NULL. Returns buf. */
char *gpufolded_stall(const char *name, uint32_t index, char *buf, size_t n);

/*
 * The launch stacks of a profile as folded prefixes (the usual
 * gpufolded_prefix_fn): resolved through the frame table like samples,
 * each distinct stack once. Embedded: gpu_launch_stacks_init() /
 * gpu_launch_stacks_release(); what rs names is borrowed for its life.
 * inline_frames: inlined CPU functions as frames of their own.
 */
struct gpu_launch_stacks {
	struct stackgroups sg;
	char **pfx; /* per group of sg: its folded prefix (owned), NULL until made */
	size_t cap_pfx;
	struct zt_strtab other; /* prefixes of launches without a stack */
	struct rstacks rs;
	int inline_frames;
};

void gpu_launch_stacks_init(struct gpu_launch_stacks *ls, const struct rstacks *rs,
			    int inline_frames);
void gpu_launch_stacks_release(struct gpu_launch_stacks *ls);
/* A gpufolded_prefix_fn over ctx, a struct gpu_launch_stacks. */
int gpu_launch_stacks_prefix(void *ctx, uint32_t pid, const struct prof_gpu_launch *l, uint64_t ts,
			     const char **out);

/*
 * How many of a launch stack's n addresses (leaf first, their frames r[i]
 * in ft) to leave out at the leaf: those of CUPTI (libcupti*) and of zt's
 * injection library (libztcupti*), up to the outermost one with what they
 * called, and of the CUDA driver (libcuda*)
 * except its outermost one, the API function the program called (none
 * of the driver when libcudart* called it).
 */
unsigned gpufolded_trim(const struct frametab *ft, const struct zt_frange *r, unsigned n);

#endif
