/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt script's lines for GPU records (zt record --gpu), in the shape of
 * perf script's lines for events that are not samples:
 *
 *   COMM TID TIME: cuda:EVENT: key=value ... [name=NAME]
 *
 * the header as perf script's (comm right-aligned in 16 columns, so a
 * line never starts with the comm: tools that parse perf script's samples
 * pass over these), one line per record; the records without a time (PC
 * samples, cubins, counters, info) leave the time out; a PC sample's
 * resolved frames (device functions, source lines) follow its line as a
 * sample's frames do. A name, which may
 * hold spaces (demangled C++), comes last. Strings from the profiled
 * processes are shown with control characters as '?'. The writers append
 * to a buffer; the caller adds a kernel's launch stack after its line.
 */
#ifndef ZT_GPUSCRIPT_H
#define ZT_GPUSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/gpu.h"
#include "libprof/gpuframes.h"
#include "libprof/gpuview.h"
#include "libprof/zbuf.h"

#define GPUSCRIPT_NO_TIME UINT64_MAX

struct gpuscript_fmt {
	unsigned fields; /* perf script's PERFSCRIPT_F_COMM, _TID, _PID and _TIME: which
			    header fields to show (the others are ignored) */
	int ns;		 /* times in nanoseconds (else microseconds) */
};

/* The header of a record of pid/tid at ts (GPUSCRIPT_NO_TIME: none);
 * comm shown as given (sanitize it). */
void gpuscript_header(struct zbuf *b, const struct gpuscript_fmt *f, const char *comm, uint32_t pid,
		      uint32_t tid, uint64_t ts);

/* "cuda:kernel: dev=D ctx=C stream=S dur=Tus grid=X,Y,Z block=X,Y,Z regs=R
 * smem=STATIC+DYNAMIC lmem=L corr=N [graph=G] [NOTE] name=NAME\n"; note
 * (NULL: none) says why the stack is missing ("launch=none"). */
void gpuscript_kernel(struct zbuf *b, const struct prof_gpu_kernel *k, const char *name,
		      const char *note);
/* "cuda:memcpy: dev ctx stream dur kind=HtoD src=pageable dst=device
 * bytes=N rate=X.XXGB/s corr=N\n", "cuda:memset: ... bytes=N value=V ...". */
void gpuscript_memop(struct zbuf *b, const struct prof_gpu_memop *m);
/* "cuda:overhead: kind=K object=KIND:ID0,ID1 dur=Tus\n" */
void gpuscript_overhead(struct zbuf *b, const struct prof_gpu_overhead *o);
/* "cuda:pcsample: cubin=0xCRC pc=0xPC stall=REASON samples=N function=NAME\n";
 * stall NULL: "stall_INDEX". */
void gpuscript_pcsample(struct zbuf *b, const struct gpu_pcsum *s, const char *function,
			const char *stall);
/* The resolved frames of a PC-sampling bucket (libprof/gpuframes.h: n
 * frames, innermost first, the kernel last), a line each under its
 * cuda:pcsample: line as perf script's frame lines under a sample:
 * "\t%16x FUNC (FILE:LINE)\n", the PC's own row for the innermost frame,
 * the call site for the others ("??:0" unknown), " (inlined)" after a
 * function inlined into the next. The caller ends the block with an
 * empty line. */
void gpuscript_pcframes(struct zbuf *b, const struct gpu_pcsum *s, const struct gpu_frame *f,
			uint32_t n);
/* "cuda:cubin: crc=0xCRC size=N module=M ctx=C\n" */
void gpuscript_cubin(struct zbuf *b, const struct prof_gpu_cubin *c);
/* "cuda:counters: launches=N launch_stacks=N ...\n" */
void gpuscript_counters(struct zbuf *b, const struct prof_gpu_counters *c);
/* "cuda:warning: VALUE\n" for key "warning", else "cuda:info: KEY=VALUE\n". */
void gpuscript_info(struct zbuf *b, const char *key, const char *value);

/* Names of CUPTI's memory-copy and memory kinds ("HtoD", "pinned"), NULL
 * for a value without one. */
const char *gpuscript_copy_kind(unsigned kind);
const char *gpuscript_mem_kind(unsigned kind);

#endif
