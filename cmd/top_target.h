/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a live sampler settles before it starts: the event by perf's name,
 * the CPU and id lists of -C/-p/-t, and the privileges it runs with.
 * zt top's for now; zt record has its own copies of the same helpers
 * (parse_list, online_cpus, cap_effective, find_event), to be merged here.
 */
#ifndef ZT_TOP_TARGET_H
#define ZT_TOP_TARGET_H

#include <stdbool.h>
#include <stdint.h>

struct perfev;

struct target_event {
	const char *name;
	uint32_t type;   /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
};

/* The event of that name (cycles, cpu-clock, ...), or NULL. */
const struct target_event *target_event_find(const char *name);
/* The names target_event_find() knows, for messages. */
extern const char target_event_names[];

/* "0,2-5": the numbers in *out (malloc'ed, *nr of them, in order).
 * Returns 0, -EINVAL (bad syntax or empty), -ERANGE (a number >= max) or
 * -ENOMEM. */
int target_parse_list(const char *s, int max, int **out, int *nr);
/* The online CPUs. 0 or a negative errno. */
int target_online_cpus(int **out, int *nr);

/* Root, or CAP_BPF with CAP_PERFMON (or CAP_SYS_ADMIN): what the BPF
 * sampler and system-wide sampling need. *missing names what is missing
 * otherwise ("CAP_BPF and CAP_PERFMON"). */
bool target_privileged(const char **missing);

/* Whether the BPF sampler can load: the kernel has BTF ($ZT_BTF_VMLINUX,
 * else /sys/kernel/btf/vmlinux). Warns when it has not. */
bool target_bpf_loadable(void);

/* The error of a command that needs the privileges it lacks for what
 * (e.g. "system-wide profiling (-a)"): which capabilities, and the setcap
 * command that grants them. */
void target_privileges_error(const char *what, const char *missing);

/* The message for a failure to open the sampling events (err from
 * sampler_open() or perfev_open(); msg its reason, may be empty). */
void target_open_error(int err, const char *msg, const char *event);

/* -F: "max" or a number of Hz (NULL: 4000, perf's default), bounded by
 * kernel.perf_event_max_sample_rate with a warning. 0, or -EINVAL after a
 * message. */
int target_parse_freq(const char *s, uint64_t *freq);

/* The BPF ring's size for nr_cpus sampling at hz: about half a second of
 * samples of ~256 bytes, a power of two from 2 to 64 MB. */
uint32_t target_ringbuf_bytes(int nr_cpus, uint64_t hz);

/* The thread group of thread tid (tid itself when unknown). */
int target_tgid(int tid);

/* The perf_event path: an event per CPU of cpus for each target, a thread
 * (threads) or every thread of a process. 0 or a negative errno (-ESRCH:
 * a process is gone). */
int target_open_threads(struct perfev *pev, const int *ids, int n, bool threads, const int *cpus,
			int nr_cpus);

#endif
