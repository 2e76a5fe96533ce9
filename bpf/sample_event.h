/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record the BPF sampler sends per sample: shared by zt.bpf.c and sampler.c. */
#ifndef ZT_SAMPLE_EVENT_H
#define ZT_SAMPLE_EVENT_H

#define ZT_BPF_MAX_STACK 127 /* frames per part, the kernel's default sysctl_perf_event_max_stack */

/* Filter modes (the rodata knob filter_mode). */
#define ZT_FILTER_ALL 0  /* every task (-a, -C) */
#define ZT_FILTER_TGID 1 /* processes in the tgids map (-p, a workload), children followed */
#define ZT_FILTER_TID 2  /* threads in the tids map (-t) */

/* Counters in the per-CPU stats array. */
#define ZT_STAT_SAMPLES 0 /* sent to the ring buffer */
#define ZT_STAT_LOST 1    /* ring buffer full: dropped */
#define ZT_STAT_MAX 2

/* One sample, variable length: ips holds nk kernel then nu user frames,
 * leaf first; the record is cut after the last used ip. */
struct zt_sample_event {
	unsigned long long ts; /* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	unsigned long long period;
	unsigned int pid, tid;
	unsigned int cpu;
	unsigned short nk, nu;
	unsigned long long ips[2 * ZT_BPF_MAX_STACK];
};

#define ZT_SAMPLE_HDR_SIZE 32

#endif
