/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof export: a profile as Google's profile.proto (formats/profile.proto),
 * gzip-compressed, as `go tool pprof`, Speedscope, Pyroscope and friends
 * read it.
 *
 * What goes in:
 *  - sample_type [("samples","count"), ("cpu","nanoseconds")] for the
 *    cpu-clock and task-clock events, [("samples","count"), (EVENT,"count")]
 *    for any other (weights are periods: counts of the event); period_type
 *    is the second type, period the recording's fixed period (meta
 *    "period"), else 1e9/freq for clock events, else the mean weight.
 *    A profile with several events (profile_nr_events()) has two types
 *    per event, in the table's order: ("EVENT_samples","count") and
 *    (EVENT,"nanoseconds") for a clock event, (EVENT,"count") for another
 *    ("cpu-clock_samples", "cpu-clock", "page-faults_samples",
 *    "page-faults"); a sample's values are zero in the columns of the
 *    events it has no samples of. period_type, period (from the event's
 *    own period or frequency) and default_sample_type are the first
 *    event's.
 *  - One Sample per distinct (resolved stack, pid, tid, thread name), values
 *    [number of samples, sum of weights] (of each event), labels "pid" and
 *    "tid" (numbers) and "thread" (the thread's name at the sample's time). Location ids
 *    leaf first: kernel frames, then user frames.
 *  - One Location per distinct (mapping, address, resolved lines); its
 *    Lines are the inline chain innermost first, the last one being the
 *    real function (pprof's order). An address without a symbol gets one
 *    line naming a pseudo function "[module+0xOFFSET]" (as zt report
 *    prints it), so that viewers show something.
 *  - One Function per distinct (name, file); system_name = name (the
 *    frames' names, demangled as the session was asked).
 *  - One Mapping per distinct user mapping (range, file offset, path, build
 *    id in hex), and one per kernel image or module ("[kernel.kallsyms]",
 *    "[ext4]") or perf-map JIT region, spanning the addresses seen; the
 *    has_functions / has_filenames / has_line_numbers / has_inline_frames
 *    flags from the best symbol quality of its frames. Addresses in no
 *    mapping have mapping_id 0.
 *  - With GPU records (a struct pprof_gpu given): two more sample types,
 *    ("gpu_samples","count") and ("gpu_time","nanoseconds"), after the
 *    events', every sample having them all (zeros for the types it is not
 *    of). PC samples:
 *    stack = the bucket's device frames (gpu_frametab: a location per
 *    inline chain, mapping 0, the innermost at the PC offset, the kernel
 *    outermost) then the launch's CPU stack; label "stall" = the stall
 *    reason; pid/tid/thread labels of the launching thread. A bucket with
 *    a correlation id (serialized mode) goes under its exact launch; one
 *    without (continuous mode) is shared among the launch stacks of the
 *    kernels of its function in its process in proportion to their GPU
 *    time (exact integer split). Kernels: gpu_time = end - start under a
 *    location of the kernel's shown name, then its launch stack. No launch
 *    stack: the process alone (tid = pid).
 *  - time_nanos from meta "wallclock_start" (s), duration_nanos from
 *    "time_end" - "time_start"; comments: command line, host, lost samples.
 *
 * Strings are copied as they are except that invalid UTF-8 and control
 * characters become '?' (proto3 strings must be UTF-8).
 */
#ifndef ZT_PPROF_H
#define ZT_PPROF_H

#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/profile.h"
#include "libprof/rstacks.h"

/* The most events one profile may have (two sample types each). */
#define PPROF_MAX_EVENTS 1024

/* The GPU side of a pprof export (all borrowed). */
struct pprof_gpu {
	const struct gpu_view *gv;	/* a view of p->gpu */
	const struct gpu_frametab *gft; /* the frames of gv's PC buckets (session_gpu_frames()) */
	/* the name shown for a GPU string id (a kernel's, demangled), or NULL
	 * for the string as recorded; NULL: as recorded */
	const char *(*gpu_name)(void *ctx, uint32_t id);
	void *ctx;
};

/*
 * Write the profile of rs as gzip-compressed pprof to fd (borrowed:
 * written from its current position, not closed), its frames resolved
 * through rs (borrowed); gpu NULL: the CPU samples only. Returns 0 or a negative errno: -ENOMEM, -E2BIG
 * (more than 2^32-2 of some kind of record, or PPROF_MAX_EVENTS events), a write error such as
 * -ENOSPC or -EPIPE, -EIO from zlib. On error the file may hold part of the output.
 */
int pprof_write(const struct rstacks *rs, const struct pprof_gpu *gpu, int fd);

#endif
