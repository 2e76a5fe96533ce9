/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recording engine of zt record: opens the sampler (BPF, or
 * perf_event's ring buffer) and the kernel's side-band for a struct
 * target, drains them into a zt.data writer, and adds what the samples
 * need to be read elsewhere: the header (meta data, events, tracepoint
 * formats), the tasks and mappings of the processes that matter (with
 * their build ids, and their binaries in the build-id cache), the
 * kallsyms lines of the kernel frames (as symbol slots for a user who may
 * not see kernel addresses), the perf maps and jitdumps of JIT runtimes,
 * and the GPU records (record/gpurec.h). Says what went wrong through
 * libprof/log.h; never prints, never exits.
 *
 * The command calls recorder_init(), fills the settings below, opens the
 * writer (w), then calls
 * recorder_open() and recorder_open_sideband(), recorder_write_header(),
 * recorder_start(), recorder_drain() and recorder_flush() in its loop,
 * recorder_stop() and recorder_end_file(); recorder_release() at the end.
 * The command keeps what it borrows (tg, gr, output, argv, w until it sets
 * it to NULL) alive until then; recorder_release() frees the writer too.
 */
#ifndef ZT_RECORD_RECORDER_H
#define ZT_RECORD_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/kunwind.h"
#include "record/pyrec.h"
#include "bpf/perfev.h"
#include "bpf/sampler.h"
#include "libprof/htab.h"
#include "libprof/profile.h"
#include "libprof/zbuf.h"
#include "record/mapfile.h"
#include "symbolizer/buildid_cache.h"

struct target;
struct gpurec;
struct kallsyms;
struct ztdata_writer;
struct pending;
struct perfmap_snap;
struct kunwind;
struct pyrec;

/* A set of nonzero u64 (pids, kernel addresses). */
struct u64set {
	uint64_t *k; /* in the order added */
	size_t n, cap;
	struct zt_htab hash; /* k by value */
};

struct recorder {
	/* settings, the command's: set before recorder_open() */
	struct target *tg;    /* events, ids, CPUs (borrowed; a fallback changes its event) */
	int callgraph;        /* -g: call chains, else the sampled address only */
	uint32_t stack_size;  /* --call-graph dwarf: user stack bytes per sample; 0: fp */
	bool fp_only;         /* --call-graph fp: frame pointers alone, as perf; else -g walks
				 user stacks with the kernel unwinder where the BPF sampler runs */
	int no_inherit;       /* only the threads there at the start */
	unsigned ring_pages;  /* ring data pages per CPU; 0: the default */
	int exclude_perf;     /* leave out the samples of self_pid */
	uint32_t self_pid;
	const char *uid_str;  /* -u: only the processes of user uid (NULL: all) */
	uid_t uid;
	const char *output;   /* the file's name, for messages ("-": standard output) */
	int argc;             /* zt record's own command line, for each file's header */
	char **argv;
	struct gpurec *gr;    /* --gpu: the GPU side (borrowed), or NULL */
	const char *gpu_stacks; /* --gpu-stacks (NULL: usdt when the BPF sampler runs) */
	pid_t traced;         /* the workload, when it is what is recorded; else 0 */
	bool privileged;      /* root, or CAP_BPF with CAP_PERFMON */
	bool use_bpf;         /* the BPF sampler, else perf_event's ring buffer */
	bool filtered;        /* only some processes: side-band is filtered too */
	bool want_kernel;     /* kernel frames will be symbolized: collect their addresses */
	bool hide_kaddr;      /* the file goes to a user who may not see kernel addresses */
	bool cache_ok;        /* cache holds the binaries of sampled processes */
	struct buildid_cache cache;
	const char *path_kind; /* "bpf", "perf_event" or "none" (meta "sampler") */

	/* the writer: the command's to open, the recorder's to write */
	struct ztdata_writer *w;

	/* results */
	int err;              /* first write error (negative errno) */
	uint64_t samples, lost_samples, lost_events;
	uint64_t ustacks, ustack_bytes; /* snapshots written, their stack bytes */
	uint64_t t_start, t_end;
	bool gpu_only;        /* --gpu where the CPU cannot be sampled: no sampler */
	struct sampler_stats sst; /* use_bpf: the sampler's, when it stopped */
	struct kunwind *ku;      /* the kernel unwinder's tables, when it walks the stacks */
	bool python;             /* set before recorder_open(): read Python frames (not with
				    --no-python; the BPF sampler, -g without dwarf) */
	struct pyrec *py;        /* ... their processes and code objects, when read */
	uint64_t *pybuf;         /* a stack with its Python frames spliced in */
	struct pyrec_stats py_last; /* the counts at the last file's end */
	uint64_t py_fail;        /* samples whose Python frames could not be read (this file) */
	uint64_t uw_stops[ZT_UW_STOP_MAX]; /* samples written, by why their walk ended (this file) */
	uint64_t uw_stops_all[ZT_UW_STOP_MAX]; /* ... in all files */
	struct u64set tracked; /* the processes whose side-band is kept (filtered) */

	/* the recorder's own */
	struct sampler *smp;     /* use_bpf */
	struct perfev *pev;      /* !use_bpf */
	struct perfev *sideband; /* use_bpf: the kernel's side-band */
	struct perfev_cbs cbs;   /* the side-band (and perf_event samples) into r:
				    procsynth and perfev deliver to it */
	uint64_t maps_hash;      /* gpu_only: the workload's /proc/PID/maps last synthesized */
	uint64_t maps_checked;   /* gpu_only: when it was last read (ns) */
	struct u64set bid_cached, sampled, new_sampled;
	struct u64set uid_in, uid_out; /* -u: pids of the user's processes, of others' */
	struct prof_mmap *deferred; /* mappings of binaries not cached yet */
	size_t nr_deferred, cap_deferred;
	struct { uint32_t pid, ppid; } *forks; /* process creations seen */
	size_t nr_forks, cap_forks;
	struct { size_t snap; uint64_t at; } *resnap; /* pmaps[snap] to read again at 'at' */
	size_t nr_resnap, cap_resnap;
	struct perfmap_snap *pmaps; /* perf maps and jitdumps, and what of them is stored */
	size_t nr_pmaps, cap_pmaps;
	size_t nr_jitdumps;         /* ... of them jitdumps */
	struct u64set kips;  /* kernel addresses seen in samples (hidden: symbol slots) */
	uint64_t *knew;      /* ... of them, not yet covered by a kallsyms blob */
	size_t nr_knew, cap_knew;
	char *ktext;         /* the kernel's text symbols, sorted (ksubset.h), once read */
	size_t ktext_len;
	struct kallsyms *ktab; /* the same parsed, when kernel addresses are hidden */
	bool kernel_read;    /* ktext was tried (read once per recording) */
	bool kernel_off;     /* kernel symbols cannot be had: no more tries */
	bool kfake_bounds;   /* ... and the _text/_etext of its slots are written */
	bool modules_written;
	uint64_t kbuf[2 * ZT_MAX_FRAMES]; /* a stack with its kernel addresses hidden */
	struct { uint64_t ip, slot; } kmemo[4096]; /* recent kernel_hide() answers */
	struct pending *pend; /* side-band records of processes not (yet) known to matter */
	size_t nr_pend, cap_pend;
	struct mapfile_ids bids; /* build ids read from files */
	struct zbuf skipped; /* "what (path): why; " of files refused, for the report */
};

/* Zero r for tg (borrowed), its side-band callbacks (cbs) set: the
 * settings are the command's to fill next. */
void recorder_init(struct recorder *r, struct target *tg);
/* Free what the recorder holds: the sampler, the side-band, the writer,
 * the build-id cache (cache_ok), its sets and lists; r is not used again
 * but through recorder_init(). */
void recorder_release(struct recorder *r);

/* Root working for a sudo user, or a file handed over to another user
 * (handed_over), who may not read kernel addresses: whether the recording
 * must hide them (kernel.kptr_restrict, kernel.perf_event_paranoid). */
bool recorder_must_hide_kaddr(bool handed_over, bool stream);
/* Read the kernel's symbols now (hide_kaddr: they are needed before the
 * first sample). */
void recorder_read_kernel(struct recorder *r);

/* Keep the side-band of process pid (filtered). */
void recorder_track(struct recorder *r, uint32_t pid);

/* The sampler for tg, falling back to another event as target_fallback()
 * says; a --gpu workload whose CPU cannot be sampled is recorded without
 * one (gpu_only). 0, or -1 after a message. */
int recorder_open(struct recorder *r);
/* With BPF, the kernel's side-band from perf_event apart, and the
 * sampler's filter. 0, or -1 after a message. */
int recorder_open_sideband(struct recorder *r);

/* A file's header at time t_start: the meta data (argc, argv), the
 * events, the tracepoints' formats. */
void recorder_write_header(struct recorder *r, uint64_t t_start);
/* The side-band, then the processes already there, then the samples. 0,
 * or -1 after a message. */
int recorder_start(struct recorder *r);

/* One wait of at most 100 ms for samples, then what arrived into w: the
 * side-band, and the binaries of newly sampled processes into the cache.
 * 0, or -1 after a message (the samples could not be read). */
int recorder_drain(struct recorder *r);
/* Whether so much is waiting in the writer that a flush is due now. */
bool recorder_flush_due(const struct recorder *r);
/* Settle the side-band, store what is new in perf maps and jitdumps,
 * kernel symbols and GPU records, and flush the writer. */
void recorder_flush(struct recorder *r);

/* Stop the sampling, drain what is still queued, set t_end. */
void recorder_stop(struct recorder *r);
/* End the file: what is still pending, the binaries of sampled processes,
 * the counts, time t_end and the index (final: the recording ends). 0,
 * or -1 after a message. */
int recorder_end_file(struct recorder *r, bool final, uint64_t t_end);
/* After a new writer replaced the old (w): what each file needs of its
 * own starts again (the kernel's symbols and modules, whole perf maps,
 * the counts of what was lost), and the processes are synthesized again
 * at time t. */
void recorder_new_file(struct recorder *r, uint64_t t);

/* The unwinder that walks the user stacks: "kernel" (the unwind tables,
 * frame pointers where there are none), "fp", "dwarf" (snapshots
 * unwound offline) or "none". */
const char *recorder_unwinder(const struct recorder *r);

/* The CLOCK_MONOTONIC nanoseconds the recorder stamps with. */
uint64_t recorder_now(void);

#endif
