/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_event ring buffers: the kernel's side-band records (MMAP2 with build
 * ids, COMM, FORK, EXIT, LOST) and, on the unprivileged path, the samples
 * themselves (IP, TID, TIME, CPU, PERIOD, CALLCHAIN, and a tracepoint's
 * RAW record), decoded into the
 * profile model's types. Times are CLOCK_MONOTONIC, like the BPF sampler's.
 */
#ifndef ZT_PERFEV_H
#define ZT_PERFEV_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libprof/profile.h"

struct perfev;

#define PERFEV_MAX_EVENTS 32

struct perfev_sample {
	unsigned event; /* index in perfev_opts.events (0 with one event) */
	uint64_t ts, period;
	uint32_t pid, tid, cpu;
	const uint64_t *ips; /* nk kernel then nu user frames, leaf first */
	unsigned nk, nu;
	/* with perfev_opts.ustack_size: the user registers in DWARF order
	 * (PROF_UREGS, those of uregs_mask; NULL when the sample has none: a
	 * kernel thread) and the ustack_len bytes of user stack that the
	 * kernel copied from the stack pointer up */
	const uint64_t *uregs;
	uint32_t uregs_mask;
	const uint8_t *ustack;
	size_t ustack_len;
	/* with perfev_event.raw: the raw record (a tracepoint's fields, in the
	 * layout of its tracefs format), raw_len bytes; NULL without one */
	const uint8_t *raw;
	uint32_t raw_len;
};

struct perfev_cbs {
	void (*sample)(void *ctx, const struct perfev_sample *s);
	void (*task)(void *ctx, const struct prof_task *t);
	void (*mmap)(void *ctx, const struct prof_mmap *m); /* m->path borrowed */
	void (*lost)(void *ctx, uint64_t lost_samples, uint64_t lost_events);
	void *ctx;
};

/* One of several sampling events (perfev_opts.events). */
struct perfev_event {
	uint32_t type;
	uint64_t config;
	bool freq;
	uint64_t freq_or_period;
	bool exclude_user, exclude_kernel;
	bool raw; /* PERF_SAMPLE_RAW: each sample's raw record (tracepoints) */
	const char *filter; /* a tracepoint's filter (PERF_EVENT_IOC_SET_FILTER), or
			       NULL; borrowed until perfev_free() */
};

struct perfev_opts {
	/* sampling event; type == UINT32_MAX: side-band only (dummy event) */
	uint32_t type;
	uint64_t config;
	bool freq;
	uint64_t freq_or_period;
	/* or nr_events (at most PERFEV_MAX_EVENTS) events, which replace the
	 * one above: each perfev_open() opens them all, into one ring per CPU,
	 * and samples say which one they are of (the side-band, with
	 * .sideband, comes with the first) */
	const struct perfev_event *events;
	unsigned nr_events;
	bool exclude_kernel;
	bool callchain;
	uint32_t ustack_size; /* user registers and this many bytes of user stack per sample
				 (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER): a multiple of 8,
				 at most PROF_USTACK_MAX; 0: none */
	bool sideband;        /* also MMAP2/COMM/FORK/EXIT records */
	bool enable_on_exec;  /* start disabled, enabled when the task execs */
	bool inherit;         /* follow children and threads created later */
	unsigned ring_pages;  /* data pages per ring, power of two */
	bool prompt;          /* wake a waiter at every record (the kernel unwinder wants new
				 mappings at once), not when a ring is a quarter full */
};

/* Empty set of events with callbacks (copied). -EINVAL: a bad ustack_size. */
int perfev_new(const struct perfev_opts *o, const struct perfev_cbs *cbs, struct perfev **out);
void perfev_free(struct perfev *p);
/* Open one event: pid -1 and a cpu for system-wide, or a pid/tid and cpu -1.
 * Returns 0 or a negative errno (-ENOENT: no such event on this machine,
 * -ESRCH: no such process, -EACCES/-EPERM: not allowed, -EBADMSG: the
 * kernel refused an event's filter). */
int perfev_open(struct perfev *p, pid_t pid, int cpu);
int perfev_count(const struct perfev *p);
int perfev_enable(struct perfev *p);
int perfev_disable(struct perfev *p);
/* Decode every record waiting in every ring. Returns the number handled. */
int perfev_drain(struct perfev *p);
/* Wait up to timeout_ms for any ring to have data (poll(2)). */
int perfev_wait(struct perfev *p, int timeout_ms);
/* The rings' descriptors into fds (at most max, events POLLIN), to wait on
 * with others: how many. */
int perfev_pollfds(const struct perfev *p, struct pollfd *fds, int max);

#endif
