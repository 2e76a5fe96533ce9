/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BPF sampler's loader: opens one sampling perf_event per CPU, attaches
 * zt.bpf.c's program to each, and hands each sample record to a callback.
 * Needs CAP_BPF + CAP_PERFMON (or root) and kernel BTF.
 */
#ifndef ZT_SAMPLER_H
#define ZT_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/pywalk.h"
#include "bpf/sample_event.h"

struct sampler;

struct sampler_opts {
	const int *cpus;      /* CPUs to sample */
	int nr_cpus;
	uint32_t type;        /* PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE */
	uint64_t config;      /* PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_SW_CPU_CLOCK ... */
	bool freq;            /* sample_freq (Hz) rather than sample_period */
	uint64_t freq_or_period;
	uint32_t filter_mode; /* ZT_FILTER_* */
	bool follow_children;
	bool callchain;       /* kernel and user stacks; false: the sampled address only */
	bool exclude_kernel;
	uint32_t ustack_size; /* user stack bytes to copy per sample (a multiple of 8, at most
				 ZT_USTACK_MAX), with the user registers; 0: none */
	uint32_t ringbuf_bytes; /* power of two, >= 4096; with ustack_size the loader makes it
				   larger, to hold as many samples of that size (at most 256 MiB) */
	const char *btf_path; /* NULL: the running kernel's */
	bool launches;        /* load the USDT program for CUDA launches (zt record --gpu) */
	/* The kernel unwinder (bpf/kunwind.h): user stacks walked with the
	 * unwind tables record/kunwind.c loads, frame pointers where there
	 * are none (with ustack_size too: the snapshot's chain); needs
	 * callchain. The sizes of its maps. */
	bool kunwind;
	uint32_t uw_procs, uw_files, uw_pages, uw_entries;
	/* Python frames (bpf/pywalk.h) of the processes given with
	 * sampler_py_set(); needs callchain, not with ustack_size */
	bool python;
};

#define SAMPLER_PY_PROCS 4096	 /* CPython processes read at once */
#define SAMPLER_PY_THREADS 65536 /* threads whose PyThreadState is kept */
#define SAMPLER_PY_CODES 65536	 /* entry frames' code objects seen (a new one wakes the reader) */

/* The kernel unwinder's maps (file descriptors the sampler owns). */
struct sampler_uw_maps {
	int procs, files, pages, entries, rules;
};

/* e is borrowed for the call; its size is checked against its counts. */
typedef void (*sampler_cb)(void *ctx, const struct zt_sample_event *e, size_t size);

/* The user registers and stack snapshot of a record (ustack_size), or NULL
 * when it has none (a kernel thread, the idle task, a sampler without
 * ustack_size). data holds e->ustack_len bytes. */
static inline const struct zt_ustack_part *sampler_ustack(const struct zt_sample_event *e)
{
	if (!(e->flags & ZT_EV_USTACK))
		return NULL;
	return (const struct zt_ustack_part *)(e->ips + e->nk + e->nu);
}

/* Load the BPF object and open (but not enable) the perf events.
 * Returns 0 or a negative errno:
 *   -EPERM/-EACCES  missing privileges
 *   -ENOENT         a perf event type the machine does not have (no PMU)
 *   -EINVAL         bad options, or the kernel rejected the program
 * msg receives a short reason when there is one. */
int sampler_open(const struct sampler_opts *o, sampler_cb cb, void *ctx, struct sampler **out,
		 char *msg, size_t msglen);
void sampler_free(struct sampler *s);

/* The kernel unwinder's maps: 0, or -ENOENT when it is off. */
int sampler_uw_maps(const struct sampler *s, struct sampler_uw_maps *m);

/* Read the Python frames of process tgid with pp (its interpreter's
 * layout and runtime), or no longer. 0, -ENOENT (opts.python off) or a
 * negative errno. */
int sampler_py_set(struct sampler *s, uint32_t tgid, const struct zt_py_proc *pp);
void sampler_py_del(struct sampler *s, uint32_t tgid);

/* Filter entries (before or after sampler_start). */
int sampler_add_tgid(struct sampler *s, uint32_t tgid);
int sampler_add_tid(struct sampler *s, uint32_t tid);

/* Attach and enable sampling on every CPU. */
int sampler_start(struct sampler *s);
/* Attach the CUDA launch program (opts.launches) to the USDT probe zt:launch
 * of the library at path lib (libztcupti.so) in every process that maps it,
 * now or later: each admitted launch reaches the callback as a record
 * flagged ZT_EV_LAUNCH. The probe's semaphore tells the library a tracer
 * is there. 0 or a negative errno (-ENOENT: no such probe in lib). */
int sampler_attach_launches(struct sampler *s, const char *lib);
/* Stop sampling (the ring is still drained by sampler_poll). */
void sampler_stop(struct sampler *s);
/* Consume records, waiting up to timeout_ms; returns records handled or a
 * negative errno (-EINTR is not an error to the caller: retry). */
int sampler_poll(struct sampler *s, int timeout_ms);
/* A file descriptor that becomes readable when records wait (for epoll). */
int sampler_fd(const struct sampler *s);

struct sampler_stats {
	uint64_t samples, lost;  /* sent and dropped (ring full) by the program */
	uint64_t run_ns, run_cnt; /* BPF run time, when kernel.bpf_stats_enabled */
};
void sampler_get_stats(const struct sampler *s, struct sampler_stats *st);

#endif
