/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU report model (zt report --gpu, text and TUI): kernels by total
 * GPU time with their launches, mean and max duration, grid and block;
 * per kernel its hot source lines and device functions with the PC
 * samples' stall reasons; memory copies by direction and memsets; how
 * well the sampled PCs resolved. The kernels' launch sites (CPU call
 * chains) are a report model of their own (libprof/rmodel.h) over the
 * samples gpureport_launches() makes: one per kernel execution, at its
 * launch, weighing its GPU time, with the kernel as the leaf frame.
 *
 * Embedded: gpureport_init() / gpureport_release(). The report owns its
 * arrays and strings (names are interned: equal strings have one
 * pointer); it borrows nothing after gpureport_init() returns, except
 * that gpureport_launches() pushes frames whose strings are the report's
 * into a frame table (release the report after the table's last use).
 */
#ifndef ZT_GPUREPORT_H
#define ZT_GPUREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "libprof/strtab.h"

/* Samples of one stall reason (the short name: "long_scoreboard" for
 * smsp__pcsamp_warps_issue_stalled_long_scoreboard). */
struct gpurep_stall {
	const char *name;
	uint64_t samples;
};

/* A range of the report's stalls, most samples first. */
struct gpurep_stalls {
	uint32_t first, n;
};

/* A hot source line of a kernel: "file.cu:42" (the sampled PC's innermost
 * position), or "kernel+0x80" (the PC in the recorded function) when the
 * cubin has no line for it. */
struct gpurep_line {
	const char *text;
	const char *func; /* the innermost device function there */
	uint64_t samples;
	struct gpurep_stalls stalls;
};

/* A device function of a kernel (the kernel itself included). */
struct gpurep_func {
	const char *name;
	uint8_t inlined;	     /* seen only inlined into a caller */
	uint64_t self;		     /* samples at its own PCs (it is the innermost frame) */
	uint64_t total;		     /* samples with it anywhere on the frames */
	struct gpurep_stalls stalls; /* of its self samples */
};

struct gpurep_kernel {
	const char *name; /* as shown (demangled unless asked not to) */
	uint32_t name_id; /* the recorded name's string id (struct prof_gpu) */
	uint64_t launches, total_ns, max_ns;
	uint64_t mean_ns;	    /* total_ns / launches */
	uint32_t grid[3], block[3]; /* the most common (the first seen of equally common) */
	uint8_t grid_varies, block_varies;
	uint64_t samples; /* PC samples */
	struct gpurep_stalls stalls;
	struct gpurep_line *lines; /* most samples first (into the report's arrays) */
	size_t nr_lines;
	struct gpurep_func *funcs; /* most self samples first, then most total */
	size_t nr_funcs;
};

/* Memory operations of one kind: copies of one direction, or memsets. */
struct gpurep_copy {
	const char *name; /* "HtoD", "DtoH", "DtoD", ..., "memset" */
	uint8_t kind;	  /* enum prof_gpu_memop_kind */
	uint8_t copy_kind;
	uint64_t count, bytes, total_ns;
};

struct gpureport {
	struct gpurep_kernel *kernels; /* by total GPU time, most first, then name */
	size_t nr_kernels;
	uint64_t total_ns;   /* of every kernel */
	uint64_t nr_records; /* kernel executions */
	uint64_t pc_samples;
	/* the samples of the "X_not_issued" stall reasons: the part of
	 * pc_samples in which the warp issued nothing (not added to it) */
	uint64_t pc_not_issued;
	struct gpurep_copy *copies; /* by total time, most first */
	size_t nr_copies;
	struct gpurep_stall *stalls; /* every range's */
	size_t nr_stalls;
	/* sampled PCs (unique (cubin, function, PC)) resolved: with lines,
	 * names only, none (gpu_frametab.quality) */
	uint64_t pcs_full, pcs_basic, pcs_none;
	/* kernels whose launch stack was captured, taken from a sampled
	 * launch of their kernel (gpu_view_stack); 0, 0: every launch its own */
	uint64_t stacks_captured, stacks_inferred;
	/* private */
	struct gpurep_line *lines;
	size_t nr_lines;
	struct gpurep_func *funcs;
	size_t nr_funcs;
	struct zt_strtab strs; /* the strings, interned */
	uint32_t *by_name;	  /* a recorded name's string id -> its kernel, or UINT32_MAX */
	size_t nr_by_name;
	struct prof_sample *lsamples; /* gpureport_launches() */
	uint32_t *lleaf;
};

struct gpureport_opts {
	/* the shown name of the recorded name with string id (struct
	 * prof_gpu): a string the report copies (e.g. session_gpu_name_cb),
	 * or NULL to show it as recorded; name NULL: as recorded */
	const char *(*name)(void *ctx, uint32_t id);
	void *ctx;
};

/* The report of v's records, with t the frames of v's PC buckets (t may
 * be NULL or have no ranges: no lines nor functions then). o may be
 * NULL. 0 or -ENOMEM (r is then empty; release it anyway). */
int gpureport_init(struct gpureport *r, const struct gpu_view *v, const struct gpu_frametab *t,
		   const struct gpureport_opts *o);
void gpureport_release(struct gpureport *r);

/* The kernel named (as shown) name, or NULL. */
const struct gpurep_kernel *gpureport_find(const struct gpureport *r, const char *name);

/* The stalls of a range. */
static inline const struct gpurep_stall *gpureport_stalls(const struct gpureport *r,
							  struct gpurep_stalls s)
{
	return r->stalls + s.first;
}

/* "long_scoreboard" for "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
 * (a pointer into name). */
const char *gpureport_stall_short(const char *name);

/* The name of a memory copy kind (CUpti_ActivityMemcpyKind: 1 HtoD, ...;
 * "copy" for one not known). */
const char *gpureport_copy_name(unsigned copy_kind);

/* A duration of ns as "123ns", "12.345us", "1.234ms" or "2.000s" into buf. Returns buf. */
const char *gpureport_fmt_dur(char *buf, size_t n, uint64_t ns);

/*
 * The launch-site samples of v's kernels for rmodel_init_with(): one per
 * kernel execution, at its launch (gpu_view_launch()), of its launching
 * thread, weighing its duration in ns, with the launch's stack (or
 * RMODEL_NO_STACK) without its frames inside CUPTI and zt's injection
 * library (in->trim); each kernel gets a frame pushed into rs's frames ("[gpu]"
 * module, the kernel's shown name) as the samples' leaf. in points into
 * the report (valid until gpureport_release()). 0 or -ENOMEM.
 */
struct rmodel_input;
int gpureport_launches(struct gpureport *r, const struct gpu_view *v, const struct rstacks *rs,
		       struct rmodel_input *in);

#endif
