/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a live sampler (zt record, zt top) settles before it starts: the
 * event and rate of -e/-F/-c, the ids of -p/-t, the CPUs of -C, the
 * privileges it runs with; and the sampler options and perf_event targets
 * that follow from them. Says what went wrong through libprof/log.h
 * (zt_error and friends, which cmd/ prints); never prints, never exits.
 *
 * A command embeds a struct target, zeroed with .event = "cycles", fills
 * its options (cmd/targetopts.h: TARGET_OPTIONS), then calls
 * target_parse_event() and target_parse_ids(), and target_release() at
 * the end.
 */
#ifndef ZT_RECORD_TARGET_H
#define ZT_RECORD_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "libprof/evsel.h"

struct perfev;
struct perfev_cbs;
struct perfev_event;
struct sampler;
struct sampler_opts;

struct target_event {
	const char *name;
	uint32_t type; /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
};

struct target {
	/* the options (cmd/targetopts.h's TARGET_OPTIONS, -a and -c): strings borrowed from argv */
	int all_cpus;
	const char *pids, *tids, *cpu_list, *event, *freq_str;
	uint64_t period;
	const char *event_args[EVSEL_MAX]; /* each -e (event: the default without any) */
	const char *filter_args[EVSEL_MAX]; /* --filter after each -e, or NULL */
	int nr_event_args;
	int all_user, all_kernel; /* --all-user, --all-kernel (zt record's) */
	int multi;                /* the command samples several events, tracepoints, :u/:k */

	/* settled by target_parse_event() */
	const struct target_event *ev; /* the first event (&ev0) */
	struct target_event ev0;
	struct evsel evs[EVSEL_MAX];   /* every event, modifiers and --all-* applied */
	const char *filters[EVSEL_MAX]; /* each one's --filter (tracepoints only), or NULL */
	size_t nr_evs;
	uint64_t freq;                 /* Hz; 0 with -c */
	/* settled by target_parse_ids(); owned, freed by target_release() */
	int *pid_list, nr_pids; /* -p */
	int *tid_list, nr_tids; /* -t */
	int *cpus, nr_cpus;     /* -C, else the online CPUs */
};

/* -e (each --filter set on the tracepoint it follows; on another event it
 * has no effect, said in a note), then -F with -c, then -F ("max" or Hz,
 * 4000 by default, bounded by kernel.perf_event_max_sample_rate with a
 * warning): t->ev and t->freq. 0, or -1 after a message (a usage error). */
int target_parse_event(struct target *t);

/* For zt record, before it opens anything: each tracepoint's id (an
 * unknown one is an error naming it), each hardware event tried (cycles
 * falls back to cpu-clock, saying so; another one the machine has no PMU
 * for is an error naming it and what to use). 0, or -1 after a message. */
int target_check_events(struct target *t);

/* Whether the BPF sampler can take the events: one software or hardware
 * event, kernel included or not, but not kernel only. */
bool target_bpf_events(const struct target *t);

/* The events for perfev_opts.events (out has room for EVSEL_MAX): rate as
 * -F/-c say, tracepoints every event (period 1) unless -c. Returns their
 * number. */
unsigned target_perfev_events(const struct target *t, struct perfev_event *out);

/* -p and -t (each id must exist), then -C, else the online CPUs: the
 * lists of t. Returns 0, or after a message -EINVAL (a bad list: a usage
 * error), -ESRCH (an id that does not exist) or -ENOENT (no list of the
 * online CPUs). */
int target_parse_ids(struct target *t);

/* Whether any process of -p or thread of -t is still there. */
bool target_alive(const struct target *t);

/* Free the lists (the options stay). */
void target_release(struct target *t);

/* Root, or CAP_BPF with CAP_PERFMON (or CAP_SYS_ADMIN): what the BPF
 * sampler and system-wide sampling need. *missing names what is missing
 * otherwise ("CAP_BPF and CAP_PERFMON"). */
bool target_privileged(const char **missing);

/* The error of a command that needs the privileges it lacks for what
 * (e.g. "system-wide recording (-a)"): which capabilities, and the setcap
 * command that grants them. */
void target_privileges_error(const char *what, const char *missing);

/* Whether the BPF sampler can load: the kernel has BTF ($ZT_BTF_VMLINUX,
 * else /sys/kernel/btf/vmlinux). Warns when it has not. */
bool target_bpf_loadable(void);

/* The BPF sampler's options that follow from t: CPUs, rate, ring size
 * (about half a second of samples of ~256 bytes on every CPU, a power of
 * two from 2 to 64 MB), children followed. The event (type, config: set
 * from t->ev at each try, see target_fallback()), the filter and call
 * graphs are the caller's. */
void target_sampler_opts(const struct target *t, struct sampler_opts *so);

/* After a failure err to open the events: when the machine has no PMU
 * for a hardware event, switch t to cpu-clock (as perf does, saying so)
 * and return true: open again. */
bool target_fallback(struct target *t, int err);

/* The message for a failure to open the sampling events (err from
 * sampler_open() or perfev_open(); msg its reason, may be empty); verb
 * ("record", "sample") is what the command does to a process. */
void target_open_error(const struct target *t, int err, const char *msg, const char *verb);

/* The BPF sampler's filter: the processes of -p, the threads of -t. */
void target_sampler_filter(const struct target *t, struct sampler *smp);

/* The perf_event path: an event on every CPU of t for thread tid (-1:
 * every thread, system-wide). 0 or a negative errno. */
int target_open_cpus(const struct target *t, struct perfev *pev, int tid);
/* The same for -p or -t: for each thread of -t, or every thread of each
 * process of -p. 0 or a negative errno (-ESRCH: a process is gone). */
int target_open_threads(const struct target *t, struct perfev *pev);

/* Side-band events (sb: perfev_opts.sideband) on every CPU of t, and with
 * every_cpu on the other online CPUs too: a process sampled on some CPUs
 * runs on others. 0 or a negative errno. */
int target_open_sideband(const struct target *t, struct perfev *sb, bool every_cpu);

/* A side-band ring (*out) delivering to cbs, its events opened as
 * target_open_sideband() opens them, and smp's filter set for t; prompt:
 * a waiter woken at every record. 0, or -1 after a message. */
int target_sideband(const struct target *t, const struct perfev_cbs *cbs, struct sampler *smp,
		    bool every_cpu, bool prompt, struct perfev **out);

/* The thread group of thread tid (tid itself when unknown). */
int target_tgid(int tid);

#endif
