/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Chrome trace export: a profile as the Trace Event Format's JSON object
 * (what Perfetto, chrome://tracing, Chrome DevTools and speedscope open).
 *
 * What goes in (times in microseconds relative to the first event of the
 * recording, in steps of 1/1024 us, 0.977 ns, written exactly: such
 * numbers and the ends ts + dur readers compute from them are exact
 * doubles; the slices of a CPU thread end one step early, so that no end
 * and start meet there; "displayTimeUnit":"ns"):
 *  - per recorded process, "M" events process_name and, for each thread
 *    with samples or launches, thread_name (names as the process tree has
 *    them at the thread's last event: after an exec, the program's);
 *  - CPU samples as "X" slices on their thread (cat "cpu", name the
 *    frame, no args), one per frame (root first, inline frames their own),
 *    consecutive samples of a thread merged while their frames agree: a
 *    flame chart over time. ("X", not "B"/"E": Chrome DevTools pairs "B"
 *    and "E" on one stack for all threads, so threads whose slices
 *    interleave in time come out mismatched.) A sample
 *    covers its period (the weight of a cpu-clock/task-clock sample, else
 *    1e9/freq, else 1 ms), stretched to the thread's next sample when that
 *    comes within 1.5 periods. A profile with several events has each
 *    event's samples of a thread on a thread of their own (the first
 *    event's on the thread itself, the others' on CHROMETRACE_EVENT_TIDS
 *    lanes), named "COMM [EVENT]", their slices' cat the event's name;
 *  - per GPU device a process "GPU N" (pid 0x40000000 + N, after the
 *    recorded ones), a thread per (process, context, stream) named
 *    "stream S" ("stream S (pid P)" when several processes share the
 *    device); records overlapping an earlier one of their stream go on a
 *    thread "stream S overlap N" (slices of a thread must nest); kernels
 *    ("X", cat "cuda", name the kernel's shown name; args grid, block,
 *    regs, smem_static, smem_dynamic, local_mem, corr, context, stream,
 *    pid, graph, mangled) and memory copies and sets ("X", cat "cuda",
 *    name "memcpy HtoD"/"memset"; args bytes, kind, src, dst or value,
 *    corr, context, stream, pid);
 *  - per launch that a kernel or memory operation came from
 *    (gpu_view_launch()), a short "X" slice on the launching thread (cat
 *    "cuda", name "launch NAME"; args corr, cbid and stack: its frames,
 *    leaf first, "function (module)", or "none"/"ratelimited"), nested in
 *    the sample slices there (it ends before the next sample boundary, at
 *    most 1 us long), and a flow from it to each kernel or operation: "s"
 *    at the launch, "f" with "bp":"e" at the kernel's start, cat "cuda",
 *    name "launch", one id per flow. One cat for the slices and their
 *    flows: Chrome DevTools binds a flow to the event of its (cat, ts, pid,
 *    tid), Perfetto and chrome://tracing to the enclosing slice.
 * Metadata first, then the events in time order (at one time: longer
 * first, outer frames first).
 * Strings are JSON-escaped; invalid UTF-8 becomes U+FFFD.
 */
#ifndef ZT_CHROMETRACE_H
#define ZT_CHROMETRACE_H

#include <stdint.h>

#include "libprof/gpuview.h"
#include "libprof/profile.h"
#include "libprof/rstacks.h"

/* Several events: event e's samples of thread tid are on a thread of their
 * own, tid + e * CHROMETRACE_EVENT_TIDS (tids are below 2^22, the kernel's
 * PID_MAX_LIMIT); events from CHROMETRACE_MAX_EVENTS - 1 on share the last. */
#define CHROMETRACE_EVENT_TIDS (1u << 22)
#define CHROMETRACE_MAX_EVENTS 1024u

/* GPU processes are numbered from here in the trace (device N: base + N). */
#define CHROMETRACE_GPU_PID 0x40000000u

struct chrometrace_in {
	const struct rstacks *rs;  /* the profile's stacks (samples and launch stacks) */
	const struct gpu_view *gv; /* a view of rs->prof->gpu, or NULL: no GPU side */
	/* the name shown for a GPU string id (a kernel's; demangled, say), or
	 * NULL for the string as recorded; NULL: as recorded */
	const char *(*gpu_name)(void *ctx, uint32_t id);
	void *ctx;
};

/*
 * Write the trace of in to fd (borrowed: written from its current position,
 * not closed). Everything in is borrowed. Returns 0 or a negative errno:
 * -ENOMEM, a write error such as -ENOSPC or -EPIPE. On error the file may
 * hold part of the output.
 */
int chrometrace_write(const struct chrometrace_in *in, int fd);

#endif
