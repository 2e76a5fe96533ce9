/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt top's live model: the machine's processes and mappings as the
 * side-band tells them (a profile that grows), the samples of the current
 * interval, and a decaying history of resolved stacks from which each
 * refresh builds a histogram, as perf top's hists decay by 7/8 a refresh.
 *
 * Addresses resolve once per address space (the frame table persists
 * until the mappings change; the symbolizer follows the growing profile);
 * processes that exited are forgotten now and then (a fresh profile of the
 * living, a fresh symbolizer: modules open again from the GSYM cache), so
 * it can run for days.
 */
#ifndef ZT_TOP_LIVE_H
#define ZT_TOP_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/htab.h"
#include "libprof/hist.h"
#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "libprof/sgroup.h"

struct live_opts {
	enum hist_key keys[HIST_MAX_KEYS];
	unsigned nr_keys;      /* 0: dso,sym (perf top's columns) */
	int callchain;         /* whole stacks: Children and Self; else the sampled address only */
	enum hist_chain chain; /* with callchain: keep call chains in this order */
	struct rstacks_live *stacks; /* the stacks of the growing profile (borrowed: the
					session's live part, session_live_stacks()) */
};

/* A sample of the current interval (stack: in the interval's stacks). */
struct live_sample {
	uint64_t ts, weight;
	uint32_t pid, tid, cpu, stack;
};

/* A resolved stack of the history: frames[off .. off+n), leaf first. */
struct live_stack {
	uint32_t off, n;
	uint64_t weight, nr; /* decayed */
	uint64_t hash;
};

/* A group of the interval's samples that resolve alike. */
struct live_group {
	uint32_t stack, pid, tid, cpu;
	const char *comm;
	uint64_t epoch; /* of its mappings (and of what else sets the group apart) */
	uint64_t ts, weight, nr;
};

/* What the last refresh folded in. */
struct live_stats {
	uint64_t samples, kernel; /* the interval's samples, those in the kernel */
	uint64_t weight;          /* their event count */
};

struct live {
	struct live_opts o;
	struct hist hist; /* built by live_refresh(); rows from hist_sort() */
	struct live_stats last;
	uint64_t samples_total;
	uint64_t compactions; /* times the exited processes were forgotten */

	/* private */
	unsigned used; /* bit per enum hist_key in use */
	struct profile prof; /* the machine: tasks, mappings, kernel symbols */
	size_t base_size;    /* tasks + mappings after the last compaction */
	const struct rstacks *rs; /* o.stacks->rs: prof's stacks, as last followed */
	struct zt_frange *ranges; /* a stack's */
	size_t cap_ranges;
	int dirty;           /* prof changed since pt was built */
	struct prof_task *exits; /* exits seen since the last compaction */
	size_t nr_exits, cap_exits;
	uint64_t iv_start;   /* when the interval began (monotonic ns) */
	struct profile ivs;  /* the interval's stacks */
	struct live_sample *samples;
	size_t nr_samples, cap_samples;
	struct sgroups sg;
	struct live_group *groups;
	size_t cap_groups;
	struct live_stack *stacks; /* the history */
	size_t nr_stacks, cap_stacks;
	struct hist_frame *frames;
	size_t nr_frames, cap_frames;
	struct zt_htab shash; /* stacks by frames */
	struct hist_frame *scratch;
	uint32_t *pm_seen; /* pids whose perf map was looked for */
	size_t nr_pm_seen, cap_pm_seen;
	struct zt_htab pm_hash; /* pm_seen by pid */
};

/* JIT code: a process's /tmp/perf-PID.map is read when its first samples
 * resolve, so code it announced by then is named ([JIT] tid PID). */

/* Empty model (o copied; o->stacks borrowed, to outlive l). t_start: when sampling starts
 * (side-band stamped before it counts from the beginning). 0 or -ENOMEM. */
int live_init(struct live *l, const struct live_opts *o, uint64_t t_start);
void live_release(struct live *l);

/* Side-band: copied into the model. 0 or -ENOMEM. */
int live_task(struct live *l, const struct prof_task *t);
int live_mmap(struct live *l, const struct prof_mmap *m);
/* /proc/kallsyms text (copied), before the first refresh. */
int live_kernel_symbols(struct live *l, const char *text, size_t len);

/* The addresses of a sample that are kept: all (at most ZT_MAX_FRAMES of
 * each part) with callchain, else the sampled one only, as perf does. */
static inline void live_trim(int callchain, unsigned *nk, unsigned *nu)
{
	if (!callchain) {
		*nu = *nk ? 0 : *nu ? 1 : 0;
		*nk = *nk ? 1 : 0;
	}
	if (*nk > ZT_MAX_FRAMES)
		*nk = ZT_MAX_FRAMES;
	if (*nu > ZT_MAX_FRAMES)
		*nu = ZT_MAX_FRAMES;
}

/* A sample: nk kernel then nu user addresses, leaf first (trimmed by
 * live_trim()). 0 or -ENOMEM. */
int live_sample(struct live *l, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu);

/* End the interval at now (monotonic ns): the history decays by 7/8 (or
 * is forgotten, zero), the interval's samples resolve into it, and
 * l->hist is built again from it. 0 or -ENOMEM. */
int live_refresh(struct live *l, int zero, uint64_t now);

#endif
