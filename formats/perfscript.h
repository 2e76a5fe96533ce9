/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf script's default text (perf 6.1), built from resolved frames: a
 * sample's header line (perf_sample__fprintf_start(), the period and the
 * event after it), and its call chain as frame lines, "\t%16x sym+0xoff
 * (dso)\n", leaf first; what stackcollapse-perf.pl, speedscope and the
 * Firefox Profiler parse. The writers fill buffers; they do not print.
 */
#ifndef ZT_PERFSCRIPT_H
#define ZT_PERFSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/frametab.h"
#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "libprof/zbuf.h"

/* perf script's -F fields that apply to zt's samples */
enum {
	PERFSCRIPT_F_COMM = 1 << 0,
	PERFSCRIPT_F_TID = 1 << 1,
	PERFSCRIPT_F_PID = 1 << 2,
	PERFSCRIPT_F_TIME = 1 << 3,
	PERFSCRIPT_F_CPU = 1 << 4,
	PERFSCRIPT_F_EVENT = 1 << 5,
	PERFSCRIPT_F_IP = 1 << 6,
	PERFSCRIPT_F_SYM = 1 << 7,
	PERFSCRIPT_F_SYMOFF = 1 << 8,
	PERFSCRIPT_F_DSO = 1 << 9,
	PERFSCRIPT_F_PERIOD = 1 << 10,
	PERFSCRIPT_F_SRCLINE = 1 << 11,
	PERFSCRIPT_F_TRACE = 1 << 12, /* a tracepoint's fields (formats/tracefmt.h): the
					 caller prints them after the header */
};

/* How samples are shown. */
struct perfscript_fmt {
	unsigned fields;   /* PERFSCRIPT_F_* */
	int callchain;	   /* frames on their own lines (else the sampled address on the
			      header's line) */
	int inline_frames; /* with callchain: inlined functions as lines of their own */
	int ns;		   /* times in nanoseconds (else microseconds) */
	const char *event; /* the event's name (shown as given: sanitize it) */
	int event_width;   /* right-aligned in this many bytes (perf, with several events:
			      the longest name's length; at most 255); 0: as it is */
	uint64_t *t0;	   /* perf script --reltime: times shown from *t0, which the first
			      nonzero time shown sets (0 until then); NULL: as they are */
};

/* The name perf shows for a thread: comm, or "swapper" for the idle
 * threads (pid and tid 0), or ":TID" made in buf (of size n). */
const char *perfscript_comm(const char *comm, uint32_t pid, uint32_t tid, char *buf, size_t n);

/* Room the header line needs besides its comm and event name. */
#define PERFSCRIPT_HEADER_ROOM 128

/*
 * smp's header line into out (not NUL-terminated), which has room for
 * PERFSCRIPT_HEADER_ROOM + strlen(comm) + strlen(f->event) bytes; comm
 * is shown as given (sanitize it). With PERFSCRIPT_F_IP it ends with a
 * newline when the frames follow on their own lines, else a space (the
 * sample's frame line follows on the same line); the caller ends the
 * sample with a newline. Returns the length.
 */
size_t perfscript_header(const struct perfscript_fmt *f, const struct prof_sample *smp,
			 const char *comm, char *out);

/*
 * A side-band record as perf script --show-task-events and
 * --show-mmap-events show it after the header's start (perfscript_header()
 * with only comm, tid, cpu and time): "PERF_RECORD_COMM: comm:pid/tid",
 * "PERF_RECORD_COMM exec: ...", "PERF_RECORD_FORK(pid:tid):(ppid:ptid)",
 * "PERF_RECORD_EXIT(...)", "PERF_RECORD_MMAP2 pid/tid: [0xstart(0xlen) @
 * 0xpgoff maj:min ino gen]: r-xp path" (device and inode unknown here:
 * 00:00 0 0), the kernel's "PERF_RECORD_MMAP -1/0: [...]: x path", each
 * with a newline, into out of size n (comm and path sanitized). Returns
 * the length.
 */
size_t perfscript_task(const struct prof_task *t, char *out, size_t n);
size_t perfscript_mmap(const struct prof_mmap *m, char *out, size_t n);

/*
 * One frame as perf script shows it. Strings are valid until the walk's
 * callback returns.
 */
struct perfscript_frame {
	uint64_t ip;	 /* the sampled address */
	uint64_t addr;	 /* shown in call chains: DSO-relative for user code in a file,
			    absolute for kernel, JIT and unmapped code */
	uint64_t off;	 /* from the function's start (an inlined frame: its function's) */
	const char *sym; /* sanitized; "[unknown]" without a symbol */
	const char *dso; /* sanitized: the mapped file's path, "[kernel.kallsyms]",
			    "/tmp/perf-PID.map" for JIT code, "[unknown]"; NULL: an inlined
			    function (shown as "(inlined)") */
	int has_sym;
	const char *srcline; /* sanitized: perf's srcline, "file.c:42", or without line
				information "module[addr]" */
};

typedef int (*perfscript_frame_fn)(void *ctx, const struct perfscript_frame *f);

/*
 * The frames of n resolved addresses of process pid, leaf first: ips[i]
 * and its frames r[i] in ft. Each address gives, with inline_frames, its
 * inlined functions innermost first, then its function. fn's non-zero
 * return stops the walk and is returned; else 0.
 */
int perfscript_walk(const struct frametab *ft, uint32_t pid, const uint64_t *ips,
		    const struct zt_frange *r, unsigned n, int inline_frames,
		    perfscript_frame_fn fn, void *ctx);

/* One frame's text appended to b: with callchain a "\t" first and a "\n"
 * last; the address (call chains: fr->addr, else fr->ip), " sym+0xoff",
 * " (dso)" as f->fields ask; " (inlined)" for an inlined frame; with
 * PERFSCRIPT_F_SRCLINE "  srcline" on a line of its own after it. 0 or
 * -ENOMEM (b's sticky error). */
int perfscript_frame_text(struct zbuf *b, const struct perfscript_fmt *f,
			  const struct perfscript_frame *fr);

/*
 * A sample's frame text appended to b: with f->callchain a line per frame
 * (perfscript_walk()), else the first address's function on the header's
 * line ("[unknown]" for a sample without addresses). ips, r, n as for
 * perfscript_walk(), r frames of rs. 0 or -ENOMEM.
 */
int perfscript_stack(struct zbuf *b, const struct perfscript_fmt *f, const struct rstacks *rs,
		     uint32_t pid, const uint64_t *ips, const struct zt_frange *r, unsigned n);

#endif
