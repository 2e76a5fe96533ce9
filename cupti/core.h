/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capture core of libztcupti.so, in plain C (no CUPTI type here: the
 * CUPTI layer, glue.c, translates). It holds what the CUDA process
 * produces until the writer thread appends it to the process's GPU file
 * (wire.h): kernel launches with their CPU stacks, kernel/memory/overhead
 * records, PC-sampling buckets, stall tables, cubins, counters, info and
 * warnings.
 *
 * Launch path (zc_launch_enter/exit, called on the application's threads
 * at CUPTI_API_ENTER/EXIT of every launch): a per-thread ring written
 * without a lock, a thread-local nesting depth (a runtime launch fires
 * nested driver callbacks: the inner ones get ZG_L_NESTED and the outer
 * correlation id), and for the outermost launch a per-thread token bucket
 * (stack_rate a second): an admitted launch fires the USDT probe zt:launch
 * (when a tracer is attached, or always with stacks=usdt: the record gets
 * ZG_L_USDT) or captures its stack in-process (stacks=unwind, or no
 * tracer: ZG_L_STACK, identical stacks written once as ZG_STACK); a launch
 * over the rate gets ZG_L_RATELIMITED and costs one comparison.
 *
 * Every buffer is taken from one budget (mem_mb): over it records are
 * dropped and counted (mem_dropped), never waited for. The writer thread
 * flushes every flush_ms; zc_finish() flushes a last time. A process that
 * forks: the child's copy goes quiet (no writer thread there, and the file
 * is the parent's).
 *
 * Thread safety: every function may be called from any thread, except
 * zc_new/zc_open/zc_start (before any other call) and zc_free (after all
 * others). After zc_finish() every call is a no-op.
 *
 * Lifecycle: zc_new -> [zc_open] -> [zc_start] -> ... -> zc_finish -> zc_free.
 * Without zc_open (no directory, or it failed) the core keeps nothing.
 */
#ifndef ZT_CUPTI_CORE_H
#define ZT_CUPTI_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "cupti/opts.h"
#include "cupti/wire.h"

struct zc;

/* CLOCK_MONOTONIC in ns: the clock of every timestamp (the CPU samples'). */
uint64_t zc_now(void);

/* A core with these options (copied), the process's pid and start time;
 * NULL when out of memory. */
struct zc *zc_new(const struct zc_opts *o);
/* Create the file in dir (wire.h's name): 0, or -errno (the core stays
 * inert: every later call is a no-op). Writes the header only. */
int zc_open(struct zc *zc, const char *dir);
/* Start the writer thread (signals blocked in it): every flush_ms it calls
 * tick(arg) (glue: CUPTI's periodic flush), then zc_flush(). 0 or -errno. */
int zc_start(struct zc *zc, void (*tick)(void *arg), void *arg);
/* Stop accepting records, join the writer thread, write everything still
 * held (counters last) and close the file. Memory stays until zc_free():
 * another thread may still be inside a call. Idempotent. */
void zc_finish(struct zc *zc);
/* zc_finish() and free everything (NULL is fine). Only when no other
 * thread can call in any more (tests, a library that could not start). */
void zc_free(struct zc *zc);

/* Whether records are accepted (file open, not finished, not a fork child). */
int zc_active(const struct zc *zc);
const struct zc_opts *zc_get_opts(const struct zc *zc);
/* gpu-PID-NS.zg, or "" without a file. */
const char *zc_file_name(const struct zc *zc);
/* The memory budget: bytes taken now and at most so far. */
size_t zc_mem_used(const struct zc *zc);
size_t zc_mem_peak(const struct zc *zc);

/* Append everything held to the file now (the writer thread does it every
 * flush_ms): 0, or the first write error (-errno). */
int zc_flush(struct zc *zc);

/* A ZG_INFO key/value pair (copied). */
void zc_info(struct zc *zc, const char *key, const char *value);
/* A ZG_INFO "warning" (printf format), also printed on stderr with
 * verbose=1; before zc_open() (or when it failed) only printed. */
void zc_warn(struct zc *zc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- launches ------------------------------------------------------- */

struct zc_launch {
	uint64_t now;	  /* zc_now() at CUPTI_API_ENTER */
	uintptr_t caller; /* __builtin_return_address(0) of the CUPTI callback: where the
			     user's stack starts (in-process stacks skip the frames above) */
	uint32_t corr;	  /* CUpti_CallbackData.correlationId */
	uint32_t cbid;
	uint32_t domain;   /* 1 driver API, 2 runtime API */
	uint32_t graph;	   /* a graph launch */
	uint32_t graph_id; /* its graph's id, when known */
};

/* A launch callback at CUPTI_API_ENTER (see the top of this file). */
void zc_launch_enter(struct zc *zc, const struct zc_launch *l);
/* The same at CUPTI_API_EXIT (corr: the callback's correlation id, the
 * same as at its enter): 1 when the outermost launch ended, else 0. The
 * outermost launch's exit closes the nesting even when an inner exit went
 * missing. */
int zc_launch_exit(struct zc *zc, uint32_t corr);

/* ---- activity records (CUPTI's buffers) ------------------------------ */

/* A kernel; name (NUL-terminated, may be NULL) is copied (interned). */
void zc_kernel(struct zc *zc, const struct zg_kernel *k, const char *name);
void zc_memop(struct zc *zc, const struct zg_memop *m);
void zc_overhead(struct zc *zc, const struct zg_overhead *o);
/* Records CUPTI reports it dropped (cuptiActivityGetNumDroppedRecords). */
void zc_dropped_records(struct zc *zc, uint64_t n);

/* ---- cubins, stall tables, PC sampling ------------------------------ */

/* Whether a cubin of this crc was taken already. */
int zc_cubin_known(struct zc *zc, uint64_t crc);
/* A cubin (ELF bytes), once per crc, written to the file now (under the
 * flush lock; no copy, nothing from the budget): 1 written, 0 known
 * already, -EFBIG for one over a frame's size, -errno of a failed write
 * (-ENOMEM: the table of crcs at its cap). */
int zc_cubin(struct zc *zc, uint64_t crc, uint32_t module_id, uint32_t context, const void *data,
	     size_t size);

/* A context's stall-reason table: n (index, name) pairs. */
void zc_stalls(struct zc *zc, uint32_t context, size_t n, const uint32_t *index,
	       const char *const *names);

/* One GetData buffer's totals. */
void zc_pcs_totals(struct zc *zc, uint64_t total, uint64_t dropped, uint64_t nonuser,
		   int hw_buffer_full);
/* One PC's samples: n {stall reason index, samples} uint32 pairs. */
void zc_pcs_pc(struct zc *zc, uint64_t crc, uint64_t pc_offset, uint32_t function_index,
	       uint32_t corr, uint32_t context, const char *function_name, const uint32_t *pairs,
	       size_t n);

/* ---- graphs --------------------------------------------------------- */

/* Remember that executable graph exec_id was made from graph graph_id. */
void zc_graph_exec(struct zc *zc, uint32_t exec_id, uint32_t graph_id);
/* The graph of an executable graph, 0 when unknown. */
uint32_t zc_graph_of_exec(struct zc *zc, uint32_t exec_id);

/* ---- memory for the CUPTI layer ------------------------------------- */

/* Take or give back n bytes of the budget (activity buffers, PC-sampling
 * buffers): 1 taken, 0 over the cap (counted as a drop by the caller). */
int zc_mem_take_bytes(struct zc *zc, size_t n);
void zc_mem_give_bytes(struct zc *zc, size_t n);
/* Count n records dropped at the memory cap. */
void zc_mem_dropped(struct zc *zc, uint64_t n);

/* A snapshot of the running counters (what ZG_COUNTERS carries). */
void zc_counters(struct zc *zc, struct zg_counters *c);

#endif
