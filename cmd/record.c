// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt record: sample CPU stacks (BPF sampler, or perf_event's own ring buffer
 * without privileges) plus the kernel's side-band into zt.data.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/perfev.h"
#include "bpf/procsynth.h"
#include "bpf/sampler.h"
#include "cmd/cmd.h"
#include "record/gpurec.h"
#include "cmd/opts.h"
#include "cmd/outfile.h"
#include "cmd/targetopts.h"
#include "formats/ztdata.h"
#include "libprof/asuser.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/log.h"
#include "libprof/procfile.h"
#include "libprof/text.h"
#include "libprof/units.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/kallsyms.h"
#include "symbolizer/kcache.h"
#include "symbolizer/ksubset.h"

#define FLUSH_NS 1000000000ull
#define PENDING_MAX_AGE 3 /* flushes an untracked side-band record waits */

/* A set of nonzero u64 (pids, kernel addresses). */
struct u64set {
	uint64_t *k; /* in the order added */
	size_t n, cap;
	struct zt_htab hash; /* k by value */
};

static inline uint64_t u64set_hash_at(const void *s, uint32_t i)
{
	return zt_hash_mix(0, ((const struct u64set *)s)->k[i]);
}

/* Whether v is in s; if not, the empty slot where it goes in *slot (s has slots). */
static bool u64set_find(const struct u64set *s, uint64_t v, size_t *slot)
{
	size_t j;
	uint32_t i;

	for (j = zt_htab_first(&s->hash, zt_hash_mix(0, v)); zt_htab_get(&s->hash, j, &i);
	     j = zt_htab_next(&s->hash, j))
		if (s->k[i] == v)
			return true;
	*slot = j;
	return false;
}

static bool u64set_has(const struct u64set *s, uint64_t v)
{
	size_t j;

	return s->n && u64set_find(s, v, &j);
}

static int u64set_add(struct u64set *s, uint64_t v)
{
	size_t j;

	if (!v)
		return 0;
	if (s->n >= UINT32_MAX - 1 || zt_htab_reserve(&s->hash, 1, u64set_hash_at, s))
		return -ENOMEM;
	if (u64set_find(s, v, &j))
		return 0;
	if (ZT_GROW(s->k, s->cap, s->n + 1))
		return -ENOMEM;
	s->k[s->n] = v;
	zt_htab_set(&s->hash, j, (uint32_t)s->n++);
	return 0;
}

static void u64set_release(struct u64set *s)
{
	free(s->k);
	zt_htab_release(&s->hash);
	memset(s, 0, sizeof(*s));
}

/* Side-band records of processes not (yet) known to matter. */
struct pending {
	bool is_mmap;
	unsigned age;
	struct prof_task t;
	struct prof_mmap m; /* m.path owned */
};

/* How much of a process's perf map or jitdump is already in the recording. */
struct perfmap_snap {
	uint32_t pid, kind; /* PROF_BLOB_PERFMAP or PROF_BLOB_JITDUMP */
	char *path;         /* as the process sees it: /tmp/perf-NSPID.map, or the jitdump's */
	int fd;             /* a jitdump open since it was mapped, or -1 */
	struct procfile_owner owner; /* whose it is (valid when have_owner) */
	bool have_owner;
	int refused;        /* why it was last refused (negative errno), 0 if not */
	off_t size;
	struct timespec mtime;
};

/* Build ids read from files, keyed by path and identity of the file. */
struct bid_memo {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct prof_build_id bid;
};

/* The command to record, forked and held until sampling runs. */
struct workload {
	pid_t pid;
	int go_fd;  /* write a byte to start it */
	int err_fd; /* exec failure reports errno here; EOF means exec worked */
};

struct record {
	/* options */
	struct target tg; /* -a -p -t -C -e -F -c, and what they settle */
	int callgraph, verbose, quiet;
	const char *output, *callgraph_mode;
	double duration;
	uint32_t stack_size; /* --call-graph dwarf: user stack bytes per sample; 0: fp */
	int gpu;             /* --gpu */
	int no_inherit;      /* -i/--no-inherit: only the threads there at the start */
	int timestamp;       /* -T: accepted, zt always records times */
	int no_buildid;      /* -B: no build-id cache either (as perf) */
	int no_buildid_cache; /* -N: binaries not copied to the build-id cache */
	int stat;            /* -s: accepted, zt report -T counts any recording's threads */
	int data_addr;       /* -d: accepted, zt records no data addresses */
	int exclude_perf;    /* --exclude-perf: zt's own samples dropped */
	const char *uid_str; /* -u: only this user's processes */
	const char *zlevel;  /* -z: accepted, zt.data is always compressed */
	const char *mmap_pages;    /* -m pages[,aux]: ring size per CPU */
	const char *max_size_str;  /* --max-size */
	const char *switch_output; /* --switch-output[=signal|SIZE|TIME] */
	int switch_max_files;      /* --switch-max-files */
	uint64_t max_size;         /* bytes; 0: none */
	unsigned ring_pages;       /* -m: data pages per CPU; 0: the default */
	uint64_t sw_size, sw_time; /* --switch-output at this size (bytes) or time (ns) */
	bool sw_signal;            /* ... on SIGUSR2 */
	uint64_t sw_last;          /* when the current file was started */
	char **sw_files;           /* the files written so far (--switch-max-files) */
	size_t nr_sw_files, cap_sw_files;
	uint64_t total_samples, total_bytes; /* of the files already switched out */
	int argc;                  /* zt record's own command line, for each file's header */
	char **argv;
	struct gpurec_opts gpu_opts;
	struct gpurec *gr;   /* --gpu: the GPU side */

	/* state */
	struct ztdata_writer *w;
	int fd;
	char *tmp_output;
	bool filtered; /* only some processes: side-band is filtered too */
	struct u64set tracked, bid_cached;
	struct u64set sampled; /* pids seen in samples */
	uid_t uid;           /* -u's user */
	struct u64set uid_in, uid_out; /* -u: pids of the user's processes, of others' */
	uint32_t self_pid;   /* --exclude-perf: zt's own */
	struct u64set new_sampled; /* ... since the last flush */
	struct prof_mmap *deferred; /* mappings of binaries not cached yet */
	size_t nr_deferred, cap_deferred;
	struct { uint32_t pid, ppid; } *forks; /* process creations seen */
	size_t nr_forks, cap_forks;
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
	bool hide_kaddr;     /* the file goes to a user who may not see kernel addresses */
	bool kfake_bounds;   /* ... and the _text/_etext of its slots are written */
	bool modules_written;
	uint64_t kbuf[2 * ZT_MAX_FRAMES]; /* a stack with its kernel addresses hidden */
	struct { uint64_t ip, slot; } kmemo[4096]; /* recent kernel_hide() answers */
	struct pending *pend;
	size_t nr_pend, cap_pend;
	struct bid_memo *memo;
	size_t nr_memo, cap_memo;
	struct zbuf skipped; /* "what (path): why; " of files refused, for the report */
	struct buildid_cache cache;
	bool cache_ok;
	int err; /* first write error */
	uint64_t samples, lost_samples, lost_events;
	uint64_t ustacks, ustack_bytes; /* snapshots written, their stack bytes */
	uint64_t t_start, t_end;
	const char *path_kind; /* "bpf" or "perf_event" */
	struct outfile out;    /* the output file, its new copy until sampling runs */
	bool started;          /* sampling ran: the output is worth keeping */
	bool want_kernel;      /* kernel frames will be symbolized: collect their addresses */

	/* the sampling */
	bool privileged;       /* root, or CAP_BPF with CAP_PERFMON */
	bool gpu_only;         /* --gpu where the CPU cannot be sampled: no sampler */
	uint64_t maps_hash;    /* gpu_only: the workload's /proc/PID/maps last synthesized */
	uint64_t maps_checked; /* gpu_only: when it was last read (ns) */
	bool use_bpf;          /* the BPF sampler, else perf_event's ring buffer */
	struct sampler *smp;   /* use_bpf */
	struct perfev *pev;    /* !use_bpf */
	struct perfev *sideband; /* use_bpf: the kernel's side-band */
	struct perfev_cbs cbs; /* the side-band (and perf_event samples) into r */
	struct sampler_stats sst; /* use_bpf: the sampler's, when it stopped */

	/* the workload */
	char **command;        /* after the options, NULL-terminated; NULL: none */
	struct workload wl;
	int child_status;      /* valid when child_done */
	bool child_done;       /* it exited and was waited for */
};

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t child_exited;
static volatile sig_atomic_t switch_flag; /* SIGUSR2 with --switch-output */

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_exited = 1;
	else if (sig == SIGUSR2)
		switch_flag = 1;
	else
		stop_flag = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note_err(struct record *r, int err)
{
	if (err && !r->err)
		r->err = err;
}

/* ---- build ids and the build-id cache ------------------------------------ */

/* The file of a mapping: the one the process mapped (map_files), else
 * its path in the process's root (absolute links resolved inside it, as
 * the process saw them), else, the process gone, in this one. Never a
 * FIFO or device planted at the path since (O_NONBLOCK, a regular file). */
static int open_mapping(const struct prof_mmap *m, struct stat *st)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/%u/map_files/%llx-%llx", m->pid, (unsigned long long)m->start,
		 (unsigned long long)(m->start + m->len));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && m->path[0] == '/')
		fd = procfile_open_in_root(m->pid, m->path, 0);
	if (fd >= 0 && (fstat(fd, st) || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static bool is_file_mapping(const struct prof_mmap *m)
{
	return m->path[0] == '/' && strncmp(m->path, "/memfd:", 7) && strncmp(m->path, "//anon", 6);
}

/* A binary's build id, when the kernel gave none (mappings read from
 * /proc, kernels before 5.12): read from the file, once per file. */
static void fill_build_id(struct record *r, struct prof_mmap *m)
{
	struct stat st;
	size_t i;
	int fd;

	if (m->build_id.len || !is_file_mapping(m))
		return;
	fd = open_mapping(m, &st);
	if (fd < 0)
		return;
	for (i = 0; i < r->nr_memo; i++) {
		struct bid_memo *b = &r->memo[i];

		if (b->dev == st.st_dev && b->ino == st.st_ino && b->mtime.tv_sec == st.st_mtim.tv_sec &&
		    b->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			m->build_id = b->bid;
			close(fd);
			return;
		}
	}
	elf_read_build_id_fd(fd, &m->build_id);
	if (!ZT_GROW(r->memo, r->cap_memo, r->nr_memo + 1))
		r->memo[r->nr_memo++] = (struct bid_memo){ NULL, st.st_dev, st.st_ino, st.st_mtim, m->build_id };
	close(fd);
}

/* Keep a copy of a binary in the build-id cache (once per build id), read
 * through the process while it lives, so a binary deleted or rebuilt
 * afterwards still symbolizes. */
static void cache_binary(struct record *r, const struct prof_mmap *m)
{
	uint64_t key = 14695981039346656037ull;
	char p[PATH_MAX];
	struct stat st;
	size_t i;
	int fd, err;

	if (!r->cache_ok || !m->build_id.len || !is_file_mapping(m))
		return;
	for (i = 0; i < m->build_id.len; i++)
		key = (key ^ m->build_id.data[i]) * 1099511628211ull;
	key |= 1;
	if (u64set_has(&r->bid_cached, key))
		return;
	u64set_add(&r->bid_cached, key);
	if (!buildid_cache_path(&r->cache, &m->build_id, p, sizeof(p)))
		return; /* there already */
	fd = open_mapping(m, &st);
	if (fd < 0)
		return;
	err = buildid_cache_add_fd(&r->cache, &m->build_id, fd, m->path);
	if (err && err != -EEXIST)
		zt_debug("cannot cache '%s': %s", m->path, strerror(-err));
	close(fd);
}

/* Binaries are cached only for processes that get sampled: a system-wide
 * recording must not copy every binary of the machine. The mappings of the
 * others wait here until their process is sampled or the recording ends. */
static void defer_binary(struct record *r, const struct prof_mmap *m)
{
	struct prof_mmap *d;

	if (!r->cache_ok || !m->build_id.len || !is_file_mapping(m))
		return;
	if (ZT_GROW(r->deferred, r->cap_deferred, r->nr_deferred + 1))
		return;
	d = &r->deferred[r->nr_deferred];
	*d = *m;
	d->path = strdup(m->path);
	if (d->path)
		r->nr_deferred++;
}

/* Cache the deferred binaries of the processes in set and drop them from
 * the list. */
static void cache_deferred(struct record *r, const struct u64set *set)
{
	size_t i, k = 0;

	for (i = 0; i < r->nr_deferred; i++) {
		struct prof_mmap *d = &r->deferred[i];

		if (u64set_has(set, d->pid)) {
			cache_binary(r, d);
			free(d->path);
		} else {
			r->deferred[k++] = *d;
		}
	}
	r->nr_deferred = k;
}

/* ---- sinks ----------------------------------------------------------------- */

static void emit_task(struct record *r, const struct prof_task *t)
{
	note_err(r, ztdata_write_task(r->w, t));
}

static void emit_mmap(struct record *r, struct prof_mmap *m)
{
	fill_build_id(r, m);
	if (u64set_has(&r->sampled, m->pid))
		cache_binary(r, m);
	else
		defer_binary(r, m);
	note_err(r, ztdata_write_mmap(r->w, m));
}

static void add_pending(struct record *r, const struct prof_task *t, const struct prof_mmap *m)
{
	struct pending *p;

	if (ZT_GROW(r->pend, r->cap_pend, r->nr_pend + 1)) {
		r->lost_events++;
		return;
	}
	p = &r->pend[r->nr_pend];
	memset(p, 0, sizeof(*p));
	if (m) {
		p->is_mmap = true;
		p->m = *m;
		p->m.path = strdup(m->path);
		if (!p->m.path) {
			r->lost_events++;
			return;
		}
	} else {
		p->t = *t;
	}
	r->nr_pend++;
}

static void track(struct record *r, uint32_t pid)
{
	if (pid && !u64set_has(&r->tracked, pid))
		note_err(r, u64set_add(&r->tracked, pid));
}

static void on_task(void *ctx, const struct prof_task *t)
{
	struct record *r = ctx;

	if (t->kind == PROF_TASK_FORK && t->pid != t->ppid &&
	    !ZT_GROW(r->forks, r->cap_forks, r->nr_forks + 1)) {
		r->forks[r->nr_forks].pid = t->pid;
		r->forks[r->nr_forks++].ppid = t->ppid;
	}
	if (!r->filtered) {
		emit_task(r, t);
		return;
	}
	if (t->kind == PROF_TASK_FORK && u64set_has(&r->tracked, t->ppid))
		track(r, t->pid);
	if (u64set_has(&r->tracked, t->pid))
		emit_task(r, t);
	else
		add_pending(r, t, NULL);
}

static void note_jitdump(struct record *r, const struct prof_mmap *m);

static void on_mmap(void *ctx, const struct prof_mmap *cm)
{
	struct record *r = ctx;
	struct prof_mmap m = *cm;

	if (!(m.prot & PROT_EXEC))
		return;
	note_jitdump(r, &m);
	if (!r->filtered || u64set_has(&r->tracked, m.pid))
		emit_mmap(r, &m);
	else
		add_pending(r, NULL, &m);
}

static void on_lost(void *ctx, uint64_t lost_samples, uint64_t lost_events)
{
	struct record *r = ctx;

	r->lost_samples += lost_samples;
	r->lost_events += lost_events;
}

static void snapshot_perfmap(struct record *r, uint32_t pid);
static void kernel_new(struct record *r, uint64_t v);
static uint64_t kernel_hide(struct record *r, uint64_t ip);
/* x86-64: user addresses end here; the legacy vsyscall page */
#define USER_ADDR_END 0x0000800000000000ull
#define VSYSCALL_START 0xffffffffff600000ull

/* -u: whether process pid is the user's, as perf decides it (the owner
 * of /proc/PID; the idle task, pid 0, is no user's), asked once a process. */
static bool uid_match(struct record *r, uint32_t pid)
{
	struct stat st;
	char p[32];
	bool in;

	if (!pid || u64set_has(&r->uid_out, pid))
		return false;
	if (u64set_has(&r->uid_in, pid))
		return true;
	snprintf(p, sizeof(p), "/proc/%u", pid);
	in = !stat(p, &st) && st.st_uid == r->uid;
	note_err(r, u64set_add(in ? &r->uid_in : &r->uid_out, pid));
	return in;
}

/* Whether a sample of process pid is kept: --exclude-perf leaves out zt's
 * own, -u those of other users. */
static bool sample_wanted(struct record *r, uint32_t pid)
{
	if (r->exclude_perf && pid == r->self_pid)
		return false;
	return !r->uid_str || uid_match(r, pid);
}

/* A sample into the file; false when it is left out (sample_wanted()). */
static bool write_sample(struct record *r, unsigned ev, uint64_t ts, uint64_t period, uint32_t pid,
			 uint32_t tid, uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	if (!sample_wanted(r, pid))
		return false;
	if (!r->callgraph) {
		/* without -g only the sampled address is kept, as perf does (the
		 * BPF sampler sends only that; perf_event's ring has the chain) */
		if (nk)
			nk = 1, nu = 0;
		else if (nu)
			nu = 1;
	}
	if (r->filtered)
		track(r, pid);
	if (pid && !u64set_has(&r->sampled, pid)) {
		note_err(r, u64set_add(&r->sampled, pid));
		note_err(r, u64set_add(&r->new_sampled, pid));
		snapshot_perfmap(r, pid); /* short-lived JITs too */
	}
	if (r->want_kernel && nk) {
		if (r->hide_kaddr) {
			memcpy(r->kbuf, ips, (nk + nu) * sizeof(*ips));
			for (unsigned i = 0; i < nk; i++)
				r->kbuf[i] = kernel_hide(r, ips[i]);
			ips = r->kbuf;
		} else {
			for (unsigned i = 0; i < nk; i++)
				kernel_new(r, ips[i]);
		}
	}
	if (r->hide_kaddr) {
		/* a "user" frame in the kernel's half of the address space (a
		 * stale frame pointer's find) would give the kernel's layout
		 * away: the chain ends before it. The vsyscall page, user code
		 * up there, stays. */
		for (unsigned i = nk; i < nk + nu; i++) {
			if (ips[i] >= USER_ADDR_END &&
			    (ips[i] < VSYSCALL_START || ips[i] >= VSYSCALL_START + 0x1000)) {
				nu = i - nk;
				break;
			}
		}
	}
	note_err(r, ztdata_write_sample_ev(r->w, ev, ts, period, pid, tid, cpu, ips, nk, nu));
	r->samples++;
	return true;
}

/* The stack snapshot of the sample just written (--call-graph dwarf). */
static void write_ustack(struct record *r, uint32_t mask, const uint64_t *regs, const void *stack,
			 size_t len)
{
	note_err(r, ztdata_write_ustack(r->w, mask, regs, stack, len));
	r->ustacks++;
	r->ustack_bytes += len;
}

static void raw_kernel_word(void *ctx, uint64_t v)
{
	kernel_new(ctx, v);
}

/* The raw record of the sample just written (a tracepoint's fields). */
static void write_raw(struct record *r, const uint8_t *raw, uint32_t len)
{
	/* a tracepoint's fields may hold kernel addresses (pointers, call
	 * sites): not for a user who may not see them */
	if (r->hide_kaddr)
		return;
	note_err(r, ztdata_write_raw(r->w, raw, len));
	/* the symbols of its function pointers kept too (perf script names them) */
	if (r->want_kernel)
		prof_raw_kernel_words(raw, len, raw_kernel_word, r);
}

/* A CUDA launch the probe in libztcupti.so reported (zt record --gpu). */
static void on_bpf_launch(struct record *r, const struct zt_sample_event *e)
{
	const struct zt_ustack_part *u = sampler_ustack(e);
	const uint64_t *ips = (const uint64_t *)e->ips;
	unsigned nu = e->nu;

	if (!r->gr || !sample_wanted(r, e->pid))
		return;
	if (r->filtered)
		track(r, e->pid);
	if (e->pid && !u64set_has(&r->sampled, e->pid)) {
		note_err(r, u64set_add(&r->sampled, e->pid));
		note_err(r, u64set_add(&r->new_sampled, e->pid));
	}
	for (unsigned i = 0; i < nu; i++) {
		if (ips[i] >= USER_ADDR_END) {
			nu = i;
			break;
		}
	}
	gpurec_launch(r->gr, r->w, e->ts, e->pid, e->tid, e->period, ips, nu);
	if (u) {
		/* --call-graph dwarf: unwound offline, as a sample's snapshot */
		note_err(r, ztdata_write_gpu_launch_ustack(r->w, (1u << PROF_UREGS) - 1,
							   (const uint64_t *)u->regs, u->data,
							   e->ustack_len));
	}
}

static void on_bpf_sample(void *ctx, const struct zt_sample_event *e, size_t size)
{
	const struct zt_ustack_part *u = sampler_ustack(e);

	if (e->flags & ZT_EV_LAUNCH) {
		on_bpf_launch(ctx, e);
		return;
	}

	if (!write_sample(ctx, 0, e->ts, e->period, e->pid, e->tid, e->cpu,
			  (const uint64_t *)e->ips, e->nk, e->nu))
		return;
	if (u)
		write_ustack(ctx, (1u << PROF_UREGS) - 1, (const uint64_t *)u->regs, u->data,
			     e->ustack_len);
}

static void on_perf_sample(void *ctx, const struct perfev_sample *s)
{
	struct record *r = ctx;

	if (!write_sample(r, s->event, s->ts, s->period, s->pid, s->tid, s->cpu, s->ips, s->nk,
			  s->nu))
		return;
	if (s->uregs)
		write_ustack(r, s->uregs_mask, s->uregs, s->ustack, s->ustack_len);
	if (s->raw)
		write_raw(r, s->raw, s->raw_len);
}

/* At the end: binaries of sampled processes still waiting (through the
 * file path now, if the process is gone; its build id is checked), and
 * those of their parents, whose code forked children run. */
static void cache_sampled_binaries(struct record *r)
{
	struct u64set want = { 0 };
	size_t i, pass;

	for (i = 0; i < r->sampled.n; i++)
		u64set_add(&want, r->sampled.k[i]);
	for (pass = 0; pass < 4; pass++)
		for (i = 0; i < r->nr_forks; i++)
			if (u64set_has(&want, r->forks[i].pid))
				u64set_add(&want, r->forks[i].ppid);
	cache_deferred(r, &want);
	u64set_release(&want);
}

/* Move pending side-band of processes that turned out to matter. */
static void settle_pending(struct record *r, bool final)
{
	size_t i, k = 0;

	for (i = 0; i < r->nr_pend; i++) {
		struct pending *p = &r->pend[i];
		uint32_t pid = p->is_mmap ? p->m.pid : p->t.pid;

		if (u64set_has(&r->tracked, pid)) {
			if (p->is_mmap)
				emit_mmap(r, &p->m);
			else
				emit_task(r, &p->t);
		} else if (!final && ++p->age < PENDING_MAX_AGE) {
			r->pend[k++] = *p;
			continue;
		}
		if (p->is_mmap)
			free(p->m.path);
	}
	r->nr_pend = k;
}

/* ---- files snapshotted into the recording ------------------------------- */

/*
 * Kernel symbols go into the recording as the kallsyms lines its kernel
 * frames need, flushed with the chunk of the samples that needed them, so
 * a recording cut short still names its kernel frames. /proc/kallsyms is
 * read once (from the per-boot cache when it can be) when the first chunk
 * with kernel frames is flushed.
 *
 * A recording handed to a sudo user who may not read kernel addresses
 * (kernel.kptr_restrict, kernel.perf_event_paranoid) holds none: each
 * kernel address becomes a slot address, KFAKE_BASE + (symbol index + 1) *
 * KFAKE_SLOT + its offset in the symbol, and the kallsyms lines name the
 * slots. Names and offsets survive; the kernel's layout does not. See
 * zt-data(5).
 */
#define KFAKE_BASE 0xffff900000000000ull
#define KFAKE_SLOT (1ull << 20) /* no symbol is longer (kallsyms.c) */
#define KFAKE_UNKNOWN (KFAKE_BASE - KFAKE_SLOT) /* an address in no symbol */

/* Whether a user other than root sees real addresses in /proc/kallsyms
 * (the kernel's kallsyms_show_value(), without CAP_SYSLOG). */
static bool users_see_kaddr(void)
{
	char *a = NULL, *b = NULL;
	size_t n;
	bool ok = !zt_read_file("/proc/sys/kernel/kptr_restrict", 64, &a, &n) && atoi(a) == 0 &&
		  !zt_read_file("/proc/sys/kernel/perf_event_paranoid", 64, &b, &n) && atoi(b) <= 1;

	free(a);
	free(b);
	return ok;
}

/* Root working for a sudo user. */
static bool sudo_user(void)
{
	struct zt_user u;

	zt_user_init(&u);
	return u.active;
}

/* Read the kernel's symbols, once: ips/n are the addresses first needed
 * (they decide whether the cache will do). */
static void kernel_read(struct record *r, const uint64_t *ips, size_t n)
{
	char *d = NULL;
	size_t len;
	int cached, err;

	if (r->kernel_read)
		return;
	r->kernel_read = true;
	err = kcache_read(r->cache_ok ? &r->cache : NULL, ips, n, &d, &len, &cached);
	if (err) {
		cmd_warn("cannot read /proc/kallsyms: %s: kernel frames stay unresolved", strerror(-err));
		r->kernel_off = true;
		return;
	}
	cmd_info("kernel symbols from %s", cached ? "the cache" : "/proc/kallsyms");
	if (len <= 16 || !strncmp(d, "0000000000000000", 16)) {
		/* all-zero addresses (kptr_restrict) are worth nothing */
		cmd_warn("kernel addresses are hidden (kernel.kptr_restrict): kernel frames stay unresolved");
		r->kernel_off = true;
		free(d);
		return;
	}
	if (!cached) {
		struct zbuf sorted;

		zbuf_init(&sorted);
		err = kallsyms_sorted_text(d, len, &sorted);
		free(d);
		if (err || sorted.err) {
			zbuf_release(&sorted);
			note_err(r, -ENOMEM);
			r->kernel_off = true;
			return;
		}
		d = (char *)sorted.data;
		len = sorted.len;
	}
	r->ktext = d;
	r->ktext_len = len;
	if (r->hide_kaddr && kallsyms_parse(d, len, &r->ktab)) {
		note_err(r, -ENOMEM);
		r->kernel_off = true;
	}
}

static void kernel_new(struct record *r, uint64_t v)
{
	if (u64set_has(&r->kips, v))
		return;
	if (u64set_add(&r->kips, v) || ZT_GROW(r->knew, r->cap_knew, r->nr_knew + 1)) {
		note_err(r, -ENOMEM);
		return;
	}
	r->knew[r->nr_knew++] = v;
}

/* The slot address standing for kernel address ip (see above). Every
 * kernel frame of every sample comes here: a small direct-mapped memo in
 * front of the bisection. */
static uint64_t kernel_hide(struct record *r, uint64_t ip)
{
	size_t h = zt_hash_mix(0, ip) & (sizeof(r->kmemo) / sizeof(r->kmemo[0]) - 1);
	uint64_t off, slot;
	long i;

	if (r->kmemo[h].ip == ip && ip)
		return r->kmemo[h].slot;
	i = r->ktab ? kallsyms_find(r->ktab, ip, &off) : -1;
	if (i < 0) {
		slot = KFAKE_UNKNOWN;
	} else {
		kernel_new(r, (uint64_t)i + 1);
		slot = KFAKE_BASE + ((uint64_t)i + 1) * KFAKE_SLOT + off;
	}
	r->kmemo[h].ip = ip;
	r->kmemo[h].slot = slot;
	return slot;
}

/* A blob into the recording. One larger than a recording holds is left
 * out with a warning (a symbol source less), never a failed recording.
 * Returns what the writer said. */
static int write_blob(struct record *r, uint32_t kind, uint32_t pid, uint64_t ts, const void *d,
		      size_t n)
{
	static const char *const what[] = {
		[PROF_BLOB_KALLSYMS] = "the kernel symbols",
		[PROF_BLOB_MODULES] = "/proc/modules",
		[PROF_BLOB_PERFMAP] = "a perf map",
		[PROF_BLOB_JITDUMP] = "a jitdump",
		[PROF_BLOB_TRACE_HEADER] = "the tracepoint header",
		[PROF_BLOB_TRACE_FORMAT] = "a tracepoint format",
	};
	const char *name =
		kind < sizeof(what) / sizeof(what[0]) && what[kind] ? what[kind] : "a blob";
	int err = ztdata_write_blob(r->w, kind, pid, ts, d, n);

	if (err == -E2BIG)
		cmd_warn("%s of %zu bytes left out: a recording holds at most %u MiB in one piece",
			 name, n, PROF_BLOB_MAX_MIB);
	else
		note_err(r, err);
	return err;
}

/* /proc/modules, with the load addresses zeroed when they are hidden (as
 * a user without the right to them reads it). */
static void write_modules(struct record *r)
{
	char *d, *p;
	size_t len;

	if (zt_read_file("/proc/modules", 16u << 20, &d, &len))
		return;
	for (p = d; r->hide_kaddr && (p = strstr(p, " 0x")); p += 3)
		for (size_t k = 3; zt_hexval(p[k]) >= 0; k++)
			p[k] = '0';
	write_blob(r, PROF_BLOB_MODULES, 0, r->t_start, d, len);
	free(d);
}

/* The kallsyms lines for the kernel frames written since the last call:
 * called before each flush. */
static void kernel_flush(struct record *r)
{
	struct zbuf out;
	size_t i;

	if (!r->nr_knew || r->kernel_off)
		return;
	if (!r->modules_written) {
		write_modules(r);
		r->modules_written = true;
	}
	kernel_read(r, r->knew, r->nr_knew);
	if (r->kernel_off)
		return;
	zbuf_init(&out);
	if (r->hide_kaddr) {
		if (!r->kfake_bounds) {
			char line[96];

			/* the range of the slots, as _text and _etext bound the kernel's */
			snprintf(line, sizeof(line), "%016llx T _text\n%016llx T _etext\n",
				 (unsigned long long)KFAKE_BASE,
				 (unsigned long long)(KFAKE_BASE + (kallsyms_count(r->ktab) + 1) * KFAKE_SLOT));
			zbuf_put(&out, line, strlen(line));
			r->kfake_bounds = true;
		}
		for (i = 0; i < r->nr_knew; i++) {
			const char *mod, *name = kallsyms_at(r->ktab, (size_t)(r->knew[i] - 1), &mod);
			char line[64];

			if (!name)
				continue;
			snprintf(line, sizeof(line), "%016llx t ",
				 (unsigned long long)(KFAKE_BASE + r->knew[i] * KFAKE_SLOT));
			zbuf_put(&out, line, strlen(line));
			zbuf_put(&out, name, strlen(name));
			if (!kallsyms_is_core(mod)) {
				zbuf_put_u8(&out, '\t');
				zbuf_put(&out, mod, strlen(mod));
			}
			zbuf_put_u8(&out, '\n');
		}
	} else {
		note_err(r, kallsyms_subset_sorted(r->ktext, r->ktext_len, r->knew, r->nr_knew, &out));
	}
	if (!out.err && out.len)
		write_blob(r, PROF_BLOB_KALLSYMS, 0, r->t_start, out.data, out.len);
	zbuf_release(&out);
	r->nr_knew = 0;
}

/* A perf map or jitdump refused (see procfile.h): said once under -v,
 * and kept for the report's symbol summary. */
static void refuse_file(struct record *r, struct perfmap_snap *ps, int err)
{
	char line[PATH_MAX + 160];
	const char *what = ps->kind == PROF_BLOB_PERFMAP ? "perf map" : "jitdump";
	int n;

	if (ps->refused == err)
		return;
	ps->refused = err;
	if (err == -ENOENT)
		return;
	cmd_info("%s of pid %u not read: '%s' is %s", what, ps->pid, ps->path, procfile_why(err));
	n = snprintf(line, sizeof(line), "%s%s of pid %u ('%s': %s)", r->skipped.len ? "; " : "",
		     what, ps->pid, ps->path, procfile_why(err));
	if (n > 0 && r->skipped.len < 8192)
		zbuf_put(&r->skipped, line, strlen(line));
}

/* JIT runtimes append to /tmp/perf-PID.map (or a jit-PID.dump) and may
 * delete it when they exit: store what is new in it while the process
 * lives. The pieces, read in order, are the file: a perf map is cut at
 * line ends (later lines win over earlier ones), a jitdump anywhere.
 * zt reads these as root for a process of any user: see procfile.h for
 * what it refuses. */
static void snapshot_file(struct record *r, struct perfmap_snap *ps)
{
	char *d = NULL;
	struct stat st;
	off_t from;
	size_t n;
	int fd;

	if (!ps->have_owner)
		return;
	if (ps->fd >= 0) {
		int err = procfile_check(&ps->owner, ps->fd, PROCFILE_MAX, &st);

		if (err) {
			refuse_file(r, ps, err);
			return;
		}
		fd = ps->fd;
	} else {
		fd = procfile_open(&ps->owner, ps->path, PROCFILE_MAX, &st);
		if (fd < 0) {
			refuse_file(r, ps, fd);
			return;
		}
	}
	ps->refused = 0;
	if (ps->size == st.st_size && ps->mtime.tv_sec == st.st_mtim.tv_sec &&
	    ps->mtime.tv_nsec == st.st_mtim.tv_nsec)
		goto out;
	/* appended to: the new bytes only; rewritten (shorter): all again */
	from = st.st_size >= ps->size ? ps->size : 0;
	n = (size_t)(st.st_size - from);
	if (!(d = malloc(n ? n : 1)) || pread(fd, d, n, from) != (ssize_t)n)
		goto out;
	if (ps->kind == PROF_BLOB_PERFMAP) /* the rest of a line comes next time */
		while (n && d[n - 1] != '\n')
			n--;
	ps->size = from + (off_t)n;
	ps->mtime = st.st_mtim;
	/* n <= PROCFILE_MAX == PROF_BLOB_MAX fits; were it refused, the file is skipped */
	if (n && write_blob(r, ps->kind, ps->pid, now_ns(), d, n) == -E2BIG)
		refuse_file(r, ps, -EFBIG);
out:
	free(d);
	if (fd != ps->fd)
		close(fd);
}

/* A new snapshot state for (pid, kind, path); NULL on ENOMEM. The owner
 * is read now, while the process lives. */
static struct perfmap_snap *snap_new(struct record *r, uint32_t pid, uint32_t kind, const char *path)
{
	struct perfmap_snap *ps;

	if (ZT_GROW(r->pmaps, r->cap_pmaps, r->nr_pmaps + 1))
		return NULL;
	ps = &r->pmaps[r->nr_pmaps];
	memset(ps, 0, sizeof(*ps));
	ps->fd = -1;
	ps->have_owner = !procfile_owner_init(&ps->owner, pid);
	if (kind == PROF_BLOB_PERFMAP) {
		char p[64];

		/* named by its pid in its own namespace, in its own /tmp */
		snprintf(p, sizeof(p), "/tmp/perf-%u.map", ps->have_owner ? ps->owner.nspid : pid);
		ps->path = strdup(p);
	} else {
		ps->path = strdup(path);
		r->nr_jitdumps++;
	}
	if (!ps->path)
		return NULL;
	ps->pid = pid;
	ps->kind = kind;
	r->nr_pmaps++;
	return ps;
}

/* A process seen in a sample for the first time: its perf map state, and
 * what of its files there is now (short-lived JITs too). */
static void snapshot_perfmap(struct record *r, uint32_t pid)
{
	struct perfmap_snap *ps = snap_new(r, pid, PROF_BLOB_PERFMAP, NULL);
	size_t i;

	if (ps)
		snapshot_file(r, ps);
	/* jitdumps this process mapped before (see on_mmap) */
	for (i = 0; r->nr_jitdumps && i < r->nr_pmaps; i++)
		if (r->pmaps[i].pid == pid && r->pmaps[i].kind == PROF_BLOB_JITDUMP)
			snapshot_file(r, &r->pmaps[i]);
}

/* At each flush: what is new in the files of the sampled processes. */
static void snapshot_perfmaps(struct record *r)
{
	size_t i;

	for (i = 0; i < r->nr_pmaps; i++)
		if (u64set_has(&r->sampled, r->pmaps[i].pid))
			snapshot_file(r, &r->pmaps[i]);
}

/* perf's JIT interface: a runtime writes jit-PID.dump and maps it
 * executable, just so that the profiler learns its path. */
static void note_jitdump(struct record *r, const struct prof_mmap *m)
{
	const char *base = strrchr(m->path, '/');
	struct perfmap_snap *ps;
	size_t digits, i;
	char p[80];

	/* jit-N.dump: N is the pid in the process's own namespace */
	if (!base || strncmp(base + 1, "jit-", 4))
		return;
	digits = strspn(base + 5, "0123456789");
	if (!digits || strcmp(base + 5 + digits, ".dump"))
		return;
	for (ps = NULL, i = 0; r->nr_jitdumps && i < r->nr_pmaps && !ps; i++)
		if (r->pmaps[i].pid == m->pid && r->pmaps[i].kind == PROF_BLOB_JITDUMP &&
		    !strcmp(r->pmaps[i].path, m->path))
			ps = &r->pmaps[i];
	if (!ps)
		ps = snap_new(r, m->pid, PROF_BLOB_JITDUMP, m->path);
	if (!ps) {
		r->lost_events++;
		return;
	}
	if (ps->fd >= 0 || !ps->have_owner)
		return;
	/* the file the process mapped, whatever its path names later: a path
	 * swapped for a link after the mmap is never read */
	snprintf(p, sizeof(p), "/proc/%u/map_files/%llx-%llx", m->pid, (unsigned long long)m->start,
		 (unsigned long long)(m->start + m->len));
	ps->fd = open(p, O_RDONLY | O_CLOEXEC);
}

/* ---- the workload --------------------------------------------------------- */

/* to_stderr: the recording goes to standard output, so the command's own
 * output goes to standard error instead (as perf does for a pipe). */
static int workload_prepare(struct workload *wl, char **argv, bool to_stderr)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -errno;
	wl->pid = fork();
	if (wl->pid < 0)
		return -errno;
	if (!wl->pid) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		if (to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	wl->go_fd = go[1];
	wl->err_fd = er[0];
	return 0;
}

/* Start it; returns 0, or the exec errno as a negative number. */
static int workload_start(struct workload *wl)
{
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, "g", 1) != 1)
		return -errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	n = read(wl->err_fd, &e, sizeof(e));
	close(wl->err_fd);
	wl->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

/* ---- the main loop ----------------------------------------------------- */

/* The recording is made 0600 next to the output path and renamed into
 * place once sampling runs (see outfile.h): stack copies and the
 * addresses in it are for root and the sudo user alone. */
static int open_output(struct record *r)
{
	if (outfile_create(&r->out, r->output, 0600, OUTFILE_STDOUT_OK))
		return -1;
	r->fd = r->out.fd;
	r->w = ztdata_writer_new(r->fd);
	if (!r->w) {
		cmd_error("cannot write '%s': %s", r->output, strerror(errno));
		return -1;
	}
	return 0;
}

/* The event table (zt-data(5) EVENTS), and meta "events" as perf.data's reader sets it. */
static void write_events(struct record *r)
{
	struct perfev_event pe[EVSEL_MAX];
	unsigned n = target_perfev_events(&r->tg, pe), i;
	char all[1024];
	size_t len = 0;

	for (i = 0; i < n; i++) {
		const struct evsel *e = &r->tg.evs[i];
		struct prof_event pv = { (char *)e->name, e->type, e->config, pe[i].freq_or_period,
					 (pe[i].freq ? PROF_EV_FREQ : 0) |
						 (e->exclude_user ? PROF_EV_EXCL_USER : 0) |
						 (e->exclude_kernel ? PROF_EV_EXCL_KERNEL : 0) };

		note_err(r, ztdata_write_event(r->w, &pv));
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", i ? "," : "", e->name);
		if (len >= sizeof(all))
			len = sizeof(all) - 1;
	}
	ztdata_write_meta(r->w, "events", all);
}

/* The tracefs formats of the tracepoints (blobs PROF_BLOB_TRACE_*), so
 * their raw records can be printed elsewhere: the page header once, then
 * each tracepoint's format after its system's name. */
static void write_trace_formats(struct record *r)
{
	bool header = false;

	for (size_t i = 0; i < r->tg.nr_evs; i++) {
		const struct evsel *e = &r->tg.evs[i];
		char *text = NULL, *c;
		size_t len, sl;
		int err;

		if (!evsel_is_tracepoint(e))
			continue;
		if (r->hide_kaddr) {
			cmd_info("'%s' goes to a user who may not read kernel addresses: the "
				 "tracepoints' fields, which may hold some, are not kept",
				 r->output);
			return;
		}
		if (!header && !evsel_tracefs_format(NULL, NULL, &text, &len)) {
			write_blob(r, PROF_BLOB_TRACE_HEADER, 0, 0, text, len);
			free(text);
			text = NULL;
		}
		header = true;
		err = evsel_tracefs_format(e, NULL, &text, &len);
		c = strchr(e->event, ':');
		if (err || !c) {
			cmd_warn("cannot read the format of tracepoint '%s' (%s): its fields will "
				 "not be shown", e->event, strerror(err ? -err : EINVAL));
			continue;
		}
		sl = (size_t)(c - e->event);
		/* "SYSTEM\0" then the format text */
		c = malloc(sl + 1 + len);
		if (c) {
			memcpy(c, e->event, sl);
			c[sl] = 0;
			memcpy(c + sl + 1, text, len);
			write_blob(r, PROF_BLOB_TRACE_FORMAT, 0, 0, c, sl + 1 + len);
		} else {
			note_err(r, -ENOMEM);
		}
		free(c);
		free(text);
	}
}

/* What perf's header says of the machine (CPUDESC, CPUID, TOTAL_MEM),
 * from /proc/cpuinfo and /proc/meminfo; each only when found. */
static void write_machine_meta(struct record *r)
{
	char line[512], vendor[64] = "", desc[256] = "", num[64];
	int fam = -1, model = -1, step = -1;
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && fgets(line, sizeof(line), f) && strcmp(line, "\n")) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += v[1] == ' ' ? 2 : 1;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			fam = atoi(v);
		else if (!strncmp(line, "model name", 10))
			snprintf(desc, sizeof(desc), "%s", v);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(v);
		else if (!strncmp(line, "stepping", 8))
			step = atoi(v);
	}
	if (f)
		fclose(f);
	if (desc[0])
		ztdata_write_meta(r->w, "cpudesc", desc);
	if (vendor[0] && fam >= 0 && model >= 0 && step >= 0) {
		snprintf(line, sizeof(line), "%s,%d,%d,%d", vendor, fam, model, step);
		ztdata_write_meta(r->w, "cpuid", line);
	}
	f = fopen("/proc/meminfo", "re");
	if (f && fscanf(f, "MemTotal: %llu kB", &kb) == 1 && kb) {
		snprintf(num, sizeof(num), "%llu", kb);
		ztdata_write_meta(r->w, "total_mem_kb", num);
	}
	if (f)
		fclose(f);
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	ztdata_write_meta(r->w, "nr_cpus_avail", num);
}

static void write_meta(struct record *r, int argc, char **argv, const char *event, uint64_t freq,
		       uint64_t period, uint64_t t_start)
{
	struct utsname u;
	char buf[4096], num[32];
	size_t n = 0;
	int i;

	uname(&u);
	for (i = 0; i < argc && n < sizeof(buf) - 1; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "zt ", argv[i]);
	ztdata_write_meta(r->w, "cmdline", buf);
	ztdata_write_meta(r->w, "hostname", u.nodename);
	ztdata_write_meta(r->w, "os_release", u.release);
	ztdata_write_meta(r->w, "arch", u.machine);
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	ztdata_write_meta(r->w, "nr_cpus", num);
	write_machine_meta(r);
	ztdata_write_meta(r->w, "event", event);
	write_events(r);
	write_trace_formats(r);
	ztdata_write_meta(r->w, "sampler", r->path_kind);
	ztdata_write_meta(r->w, "callchain", r->stack_size ? "dwarf" : r->callgraph ? "fp" : "none");
	if (r->stack_size) {
		snprintf(num, sizeof(num), "%u", r->stack_size);
		ztdata_write_meta(r->w, "stack_size", num);
	}
	if (freq) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)freq);
		ztdata_write_meta(r->w, "freq", num);
	} else {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)period);
		ztdata_write_meta(r->w, "period", num);
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)t_start);
	ztdata_write_meta(r->w, "time_start", num);
	snprintf(num, sizeof(num), "%lld", (long long)time(NULL));
	ztdata_write_meta(r->w, "wallclock_start", num);
	ztdata_write_meta(r->w, "zt_version", "0.1.0");
	if (r->gr)
		ztdata_write_meta(r->w, "gpu", "cupti");
}

/* --call-graph fp | dwarf[,SIZE], as perf: SIZE rounded up to a multiple
 * of 8, from 8 to 65528. 0, or -1 after a message. */
static int parse_callgraph(struct record *r, const char *arg)
{
	const char *sz;
	unsigned long long v;
	char *end;

	if (!strcmp(arg, "fp")) {
		r->callgraph = 1;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		if (!strcmp(arg, "lbr"))
			cmd_error("--call-graph lbr is not supported: use fp or dwarf");
		else
			cmd_error("unknown --call-graph mode '%s': use fp or dwarf[,size]", arg);
		return -1;
	}
	r->callgraph = 1;
	r->stack_size = 8192;
	if (!arg[5])
		return 0;
	sz = arg + 6;
	errno = 0;
	v = strtoull(sz, &end, 0);
	if (!*sz || *end || errno || sz[0] == '-' || sz[0] == '+' || v == 0 || v > PROF_USTACK_MAX) {
		cmd_error("bad stack dump size '%s' in --call-graph %s: give 1 to %u bytes "
			  "(rounded up to a multiple of 8; default 8192)", sz, arg, PROF_USTACK_MAX);
		return -1;
	}
	r->stack_size = (uint32_t)((v + 7) & ~7ull);
	return 0;
}

static const char *const record_usage[] = {
	"zt record [<options>] [<command> [<args>]]",
	"zt record [<options>] -- <command> [<args>]",
	NULL,
};

/* An option whose value may be left out: "" then. */
static int opt_optional_string(const struct opt *o, const char *arg)
{
	*(const char **)o->value = arg ? arg : "";
	return 0;
}

static int opt_switch_output(const struct opt *o, const char *arg)
{
	*(const char **)o->value = arg ? arg : "signal";
	return 0;
}

/* The options into r; the workload's command starts at argv[*rest]. What
 * opts_parse() returns. */
static int parse_options(struct record *r, int argc, char **argv, int *rest)
{
	const struct opt options[] = {
		{ OPT_BOOL, 'a', "all-cpus", &r->tg.all_cpus, NULL, "system-wide collection from all CPUs" },
		TARGET_OPTIONS(r->tg, "record"),
		{ OPT_U64, 'c', "count", &r->tg.period, "n", "sample every n events (ns for cpu-clock)" },
		{ OPT_BOOL, 'g', NULL, &r->callgraph, NULL, "record call graphs (frame pointers)" },
		{ OPT_BOOL, 0, "all-user", &r->tg.all_user, NULL,
		  "sample in user space only (every event, as :u)" },
		{ OPT_BOOL, 0, "all-kernel", &r->tg.all_kernel, NULL,
		  "sample in the kernel only (every event, as :k)" },
		{ OPT_STRING, 0, "call-graph", &r->callgraph_mode, "mode",
		  "fp (frame pointers, as -g), or dwarf[,size]: also the user registers and size "
		  "bytes of user stack per sample (default 8192, at most 65528), to unwind code "
		  "without frame pointers" },
		{ OPT_STRING, 'o', "output", &r->output, "file", "output file name (default zt.data; an existing one becomes FILE.old)" },
		{ OPT_DOUBLE, 0, "duration", &r->duration, "secs", "stop after this many seconds" },
		{ OPT_BOOL, 0, "gpu", &r->gpu, NULL,
		  "also record CUDA programs' GPU side: kernels with their launch stacks, memory "
		  "copies, PC samples with stall reasons and cubins (through CUPTI; with -a or -p, "
		  "prints the variables to start CUDA programs with)" },
		{ OPT_STRING, 0, "gpu-pcs", &r->gpu_opts.pcs, "mode",
		  "GPU PC sampling: continuous (default: kernels run concurrently), serialized "
		  "(samples tied to each launch; kernels serialized) or off" },
		{ OPT_INT, 0, "gpu-pcs-period", &r->gpu_opts.pcs_period, "n",
		  "GPU PC sampling period: one sample every 2^n cycles per SM (5 to 31; default CUPTI's)" },
		{ OPT_INT, 0, "gpu-stack-rate", &r->gpu_opts.stack_rate, "n",
		  "launch stacks per second and thread (default 100; launches past it have no stack)" },
		{ OPT_STRING, 0, "gpu-stacks", &r->gpu_opts.stacks, "how",
		  "launch stacks: usdt (zt's BPF sampler at the library's probe), unwind (libunwind "
		  "in the process) or off; default usdt when recording with BPF, else unwind" },
		{ OPT_BOOL, 'i', "no-inherit", &r->no_inherit, NULL,
		  "child tasks do not inherit counters: only the threads there at the start "
		  "(the command's first thread, or those of -p), not threads or processes created later" },
		{ OPT_STRING, 'm', "mmap-pages", &r->mmap_pages, "pages[,pages]",
		  "ring buffer data pages per CPU (a power of two, or a size such as 512K); "
		  "a second value (perf's AUX area) is ignored" },
		{ OPT_STRING, 0, "max-size", &r->max_size_str, "size",
		  "stop when the output reaches this size (B/K/M/G)" },
		{ OPT_CALLBACK, 0, "switch-output", &r->switch_output, "signal|size|time",
		  "write the recording in pieces, FILE.YYYYMMDDhhmmssNN each: on SIGUSR2 (signal, "
		  "the default), at a size (10M) or every period (30s, 5m, 1h, 1d)",
		  opt_switch_output, 1 },
		{ OPT_INT, 0, "switch-max-files", &r->switch_max_files, "n",
		  "with --switch-output: keep only the n newest files" },
		{ OPT_BOOL, 'T', "timestamp", &r->timestamp, NULL,
		  "accepted as perf's: zt always records sample times" },
		{ OPT_STRING, 'u', "uid", &r->uid_str, "user",
		  "record the processes of this user (name or number) only, on every CPU" },
		{ OPT_CALLBACK, 0, "filter", &r->tg, "filter",
		  "a filter for the tracepoint of the -e before it (perf's and the kernel's "
		  "syntax: 'prev_pid != 0 && prev_prio < 100')", target_opt_filter },
		{ OPT_BOOL, 0, "exclude-perf", &r->exclude_perf, NULL,
		  "leave out the samples of zt record itself" },
		{ OPT_BOOL, 'B', "no-buildid", &r->no_buildid, NULL,
		  "as perf's: binaries are not copied to the build-id cache (build ids still come "
		  "with the mappings: zt has no build-id pass at the end)" },
		{ OPT_BOOL, 'N', "no-buildid-cache", &r->no_buildid_cache, NULL,
		  "do not copy the sampled binaries to the build-id cache" },
		{ OPT_BOOL, 's', "stat", &r->stat, NULL,
		  "accepted as perf's: zt report -T shows each thread's count of any recording" },
		{ OPT_BOOL, 'd', "data", &r->data_addr, NULL,
		  "accepted as perf's, without effect: zt records no data addresses" },
		{ OPT_CALLBACK, 'z', "compression-level", &r->zlevel, "n",
		  "accepted as perf's: zt.data is always compressed (zstd)", opt_optional_string, 1 },
		{ OPT_COUNT, 'v', "verbose", &r->verbose, NULL, "be more verbose (show the sampler chosen, libbpf messages)" },
		{ OPT_BOOL, 'q', "quiet", &r->quiet, NULL, "do not print any message" },
		OPT_EOL
	};

	return opts_parse("record", record_usage, options, argc, argv, rest);
}

/* -m pages[,aux]: a power of two, or a size rounded up to one, as perf. */
static int parse_mmap_pages(struct record *r)
{
	long psz = sysconf(_SC_PAGESIZE);
	char buf[64], *comma;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", r->mmap_pages);
	if ((comma = strchr(buf, ',')))
		*comma = 0;
	if (!zt_parse_size(buf, ZT_SIZE_NEED_UNIT, &v)) {
		v = (v + (uint64_t)psz - 1) / (uint64_t)psz;
		while (v & (v - 1))
			v += v & -v; /* up to a power of two */
	} else if (zt_parse_size(buf, 0, &v) || !v || (v & (v - 1))) {
		cmd_error("-m '%s': give a number of pages that is a power of two, or a size "
			  "such as 512K", r->mmap_pages);
		return -1;
	}
	if (v > 65536) {
		cmd_error("-m '%s': at most 65536 pages per CPU", r->mmap_pages);
		return -1;
	}
	r->ring_pages = v ? (unsigned)v : 1;
	if (comma)
		cmd_info("-m: the second value (perf's AUX area pages) is ignored: zt uses no AUX area");
	return 0;
}

/* -m, --max-size, --switch-output and their partners. 0, or -1 after a
 * message. */
static int check_output_options(struct record *r)
{
	const char *so = r->switch_output;
	int ret;

	if (r->mmap_pages && parse_mmap_pages(r))
		return -1;
	if (r->max_size_str && (zt_parse_size(r->max_size_str, 0, &r->max_size) || !r->max_size)) {
		cmd_error("--max-size '%s': give a size such as 100M (B, K, M or G)", r->max_size_str);
		return -1;
	}
	if (!so) {
		if (r->switch_max_files) {
			cmd_error("--switch-max-files goes with --switch-output");
			return -1;
		}
		return 0;
	}
	if (!strcmp(r->output, "-")) {
		cmd_error("--switch-output writes files: give -o FILE, not standard output");
		return -1;
	}
	if (r->gpu) {
		cmd_error("--switch-output with --gpu is not supported yet: record the GPU side "
			  "in one file");
		return -1;
	}
	if (r->switch_max_files < 0) {
		cmd_error("--switch-max-files %d: give a number of files, 1 or more",
			  r->switch_max_files);
		return -1;
	}
	if (!strcmp(so, "signal"))
		r->sw_signal = true;
	else if ((ret = zt_parse_size(so, ZT_SIZE_NEED_UNIT, &r->sw_size)) != -EINVAL)
		ret = ret || !r->sw_size ? -1 : 0;
	else
		ret = zt_parse_duration(so, &r->sw_time) || !r->sw_time ? -1 : 0;
	if (!r->sw_signal && ret) {
		cmd_error("--switch-output '%s': give signal, a size (such as 100M) or a time "
			  "(such as 30s, 5m, 1h)", so);
		return -1;
	}
	return 0;
}

/* -u USER: a name, or the number of a user (perf's parse_uid()); the
 * user's processes on every CPU. 0, or -1 after a message. */
static int check_uid(struct record *r)
{
	struct passwd *pw = getpwnam(r->uid_str);
	char *end;
	long v;

	if (!pw) {
		errno = 0;
		v = strtol(r->uid_str, &end, 10);
		if (!errno && end != r->uid_str && !*end && v >= 0 && v <= INT_MAX)
			pw = getpwuid((uid_t)v);
	}
	if (!pw) {
		cmd_error("-u '%s': no such user: give a user name or number", r->uid_str);
		return -1;
	}
	if (r->tg.pids || r->tg.tids || r->tg.cpu_list) {
		cmd_error("-u goes alone: not with -p, -t or -C (perf's rule)");
		return -1;
	}
	r->uid = pw->pw_uid;
	r->tg.all_cpus = 1;
	return 0;
}

/* What the options settle, and whether they go together: ZT_EXIT_OK, or
 * ZT_EXIT_USAGE after a message. */
static int check_options(struct record *r)
{
	struct target *tg = &r->tg;

	if (r->callgraph_mode && parse_callgraph(r, r->callgraph_mode))
		return ZT_EXIT_USAGE;
	if (target_parse_event(tg))
		return ZT_EXIT_USAGE;
	if (tg->pids && tg->tids) {
		cmd_error("give only one of -p and -t");
		return ZT_EXIT_USAGE;
	}
	if (r->uid_str && check_uid(r))
		return ZT_EXIT_USAGE;
	/* perf's rule: no target and no command is the whole system, until
	 * Ctrl-C (or --duration) */
	if (!tg->all_cpus && !tg->cpu_list && !tg->pids && !tg->tids && !r->command)
		tg->all_cpus = 1;
	if (!r->gpu && (r->gpu_opts.pcs || r->gpu_opts.pcs_period || r->gpu_opts.stack_rate ||
			r->gpu_opts.stacks)) {
		cmd_error("the --gpu-* options go with --gpu");
		return ZT_EXIT_USAGE;
	}
	if (r->gpu && gpurec_check(&r->gpu_opts))
		return ZT_EXIT_USAGE;
	if (check_output_options(r))
		return ZT_EXIT_USAGE;
	if (r->timestamp)
		cmd_info("-T: zt always records sample times");
	if (r->zlevel)
		cmd_info("-z: zt.data is always compressed (zstd)");
	if (r->stat)
		cmd_note("-s has no effect: 'zt report -T' shows each thread's count of any "
			 "recording");
	if (r->data_addr)
		cmd_note("-d has no effect: zt records no data addresses (cpu-clock has none: "
			 "perf records 0)");
	r->self_pid = (uint32_t)getpid();
	return ZT_EXIT_OK;
}

/* Privileges decide the sampler before anything starts. 0, or -1 after a
 * message. */
static int choose_sampler(struct record *r)
{
	struct target *tg = &r->tg;
	const char *missing;

	r->privileged = target_privileged(&missing);
	if (!r->privileged && (tg->all_cpus || tg->cpu_list)) {
		target_privileges_error(r->uid_str     ? "recording a user's processes (-u)"
					: tg->all_cpus ? "system-wide recording (-a)"
						       : "system-wide recording (-C)",
					missing);
		return -1;
	}
	for (size_t k = 0; !r->privileged && k < tg->nr_evs; k++) {
		if (tg->evs[k].exclude_user || evsel_is_tracepoint(&tg->evs[k])) {
			target_privileges_error(tg->evs[k].exclude_user
							? "kernel-only sampling (:k, --all-kernel)"
							: "tracepoint sampling",
						missing);
			return -1;
		}
	}
	if (target_check_events(tg))
		return -1;
	/* several events, tracepoints, kernel-only: perf_event's ring buffer */
	r->use_bpf = r->privileged && target_bpf_events(tg) && target_bpf_loadable();
	if (!r->privileged)
		cmd_warn("not root and no CAP_BPF/CAP_PERFMON: recording user-space stacks of %s only, through perf_event "
			 "(run with sudo for kernel stacks and -a)",
			 r->command ? "the command" : "the given processes");
	r->path_kind = r->use_bpf ? "bpf" : "perf_event";
	r->want_kernel = r->privileged;
	r->filtered = !tg->all_cpus && !tg->cpu_list;
	return 0;
}

/* The command is what is recorded (perf's rule: with -p or -t it only
 * bounds the recording, as `-p PID -- sleep 5` does). */
static bool workload_traced(const struct record *r)
{
	return r->wl.pid > 0 && !r->tg.pids && !r->tg.tids;
}

/* The output file, the build-id cache, and whether the file may show
 * kernel addresses. 0, or -1 after a message. */
static int prepare_output(struct record *r)
{
	if (open_output(r))
		return -1;
	/* -B and -N: perf leaves its cache alone with either */
	r->cache_ok = !r->no_buildid && !r->no_buildid_cache && !buildid_cache_init(&r->cache);
	/* the file goes to the sudo user (or, a stream, to whoever reads it):
	 * kernel addresses only if they may see them */
	r->hide_kaddr = r->privileged && (r->out.handed_over || (r->out.stream && sudo_user())) &&
			!users_see_kaddr();
	if (r->hide_kaddr) {
		cmd_info("'%s' goes to the sudo user, who may not read kernel addresses: kernel "
			 "frames are stored as symbol slots, not addresses (see zt-data(5))",
			 r->output);
		/* the symbols are needed before the first sample (0.2 s, less from the cache) */
		kernel_read(r, NULL, 0);
	}
	return 0;
}

/* The workload forked (held until sampling runs), and the processes to
 * track. 0, or -1 after a message. */
static int prepare_workload(struct record *r)
{
	int err, i;

	signal(SIGPIPE, SIG_IGN);
	if (r->gpu) {
		r->gpu_opts.workload = r->command && !r->tg.pids && !r->tg.tids;
		r->gpu_opts.verbose = r->verbose > 0;
		/* without BPF the library unwinds launches itself (libunwind);
		 * with it, zt's sampler takes them at the probe, as samples */
		if (!r->gpu_opts.stacks && !r->use_bpf)
			r->gpu_opts.stacks = "unwind";
		if (gpurec_new(&r->gpu_opts, &r->gr))
			return -1;
		gpurec_export(r->gr);
	}
	if (r->command &&
	    (err = workload_prepare(&r->wl, r->command, !strcmp(r->output, "-")))) {
		cmd_error("cannot start '%s': %s", r->command[0], strerror(-err));
		return -1;
	}
	if (workload_traced(r))
		track(r, (uint32_t)r->wl.pid);
	for (i = 0; i < r->tg.nr_pids; i++)
		track(r, (uint32_t)r->tg.pid_list[i]);
	return 0;
}

/* The sampler, falling back to another event as target_fallback() says.
 * 0, or -1 after a message. */
static int open_sampler(struct record *r)
{
	struct target *tg = &r->tg;
	struct sampler_opts so = { 0 };
	char msg[256];
	int err;

	r->cbs = (struct perfev_cbs){ on_perf_sample, on_task, on_mmap, on_lost, r };
	target_sampler_opts(tg, &so);
	so.filter_mode = tg->tids || (r->filtered && r->no_inherit) ? ZT_FILTER_TID
			 : r->filtered ? ZT_FILTER_TGID : ZT_FILTER_ALL;
	so.follow_children = !r->no_inherit;
	if (r->ring_pages) {
		/* -m is per CPU, as perf's rings; the BPF ring is one for all */
		uint64_t want = (uint64_t)r->ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) *
				(uint64_t)(tg->nr_cpus > 0 ? tg->nr_cpus : 1), sz = 4096;

		while (sz < want && sz < (256u << 20))
			sz <<= 1;
		so.ringbuf_bytes = (uint32_t)sz;
	}
	so.callchain = r->callgraph;
	so.ustack_size = r->stack_size;
	so.launches = r->gr && (!r->gpu_opts.stacks || !strcmp(r->gpu_opts.stacks, "usdt"));
	do {
		struct perfev_event pe[EVSEL_MAX];

		so.type = tg->ev->type;
		so.config = tg->ev->config;
		so.exclude_kernel = tg->evs[0].exclude_kernel;
		if (r->use_bpf) {
			err = sampler_open(&so, on_bpf_sample, r, &r->smp, msg, sizeof(msg));
		} else {
			struct perfev_opts po = {
				.events = pe, .nr_events = target_perfev_events(tg, pe),
				.exclude_kernel = !r->privileged,
				.callchain = r->callgraph != 0, .ustack_size = r->stack_size,
				.sideband = true, .enable_on_exec = r->filtered && workload_traced(r),
				.inherit = r->filtered && !tg->tids && !r->no_inherit,
				/* snapshots: 8 KiB a sample; unprivileged, perf_event_mlock_kb
				 * (516 KiB a CPU) caps the rings */
				.ring_pages = r->ring_pages ? r->ring_pages
					      : r->privileged ? (r->stack_size ? 512 : 256)
							      : (r->stack_size ? 128 : 64),
			};

			msg[0] = 0;
			err = perfev_new(&po, &r->cbs, &r->pev);
			if (!err)
				err = !r->filtered ? target_open_cpus(tg, r->pev, -1)
				      : workload_traced(r) ? target_open_cpus(tg, r->pev, r->wl.pid)
						      : target_open_threads(tg, r->pev);
			if (err) {
				perfev_free(r->pev);
				r->pev = NULL;
			}
		}
	} while (err && target_fallback(tg, err));
	if (err && r->gr && workload_traced(r)) {
		/* a container without perf_event_open, say: the GPU side still
		 * comes from the library, and its launch stacks from libunwind */
		cmd_warn("--gpu: cannot sample the CPU (%s%s%s): recording the GPU side only, "
			 "launch stacks unwound in the process",
			 strerror(err < 0 ? -err : err), msg[0] ? ": " : "", msg);
		r->gpu_only = true;
		r->use_bpf = false;
		r->path_kind = "none";
		return 0;
	}
	if (err) {
		target_open_error(tg, err, msg, "record");
		return -1;
	}
	if (r->smp && so.launches)
		gpurec_usdt(r->gr, sampler_attach_launches(r->smp, gpurec_lib(r->gr)));
	return 0;
}

/* The threads of process pid, into the sampler's thread filter. */
static void add_threads(struct record *r, int pid)
{
	struct dirent *de;
	char dir[64];
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			sampler_add_tid(r->smp, (uint32_t)atoi(de->d_name));
	closedir(d);
}

/* With BPF, the kernel's side-band comes from perf_event apart, and the
 * sampler learns which processes to keep. 0, or -1 after a message. */
static int open_sideband(struct record *r)
{
	struct target *tg = &r->tg;

	if (!r->use_bpf)
		return 0;
	if (target_sideband(tg, &r->cbs, r->smp, tg->cpu_list && !tg->all_cpus, &r->sideband))
		return -1;
	if (workload_traced(r))
		sampler_add_tgid(r->smp, (uint32_t)r->wl.pid);
	if (r->filtered && r->no_inherit && !tg->tids) {
		/* --no-inherit: the threads there now, by thread id */
		int i;

		if (workload_traced(r))
			sampler_add_tid(r->smp, (uint32_t)r->wl.pid);
		for (i = 0; i < tg->nr_pids; i++)
			add_threads(r, tg->pid_list[i]);
	}
	return 0;
}

/* A file's header: the meta data (zt record's own command line from
 * r->argv) and the events; tracepoints record every event unless -c. */
static void write_header(struct record *r, uint64_t t_start)
{
	struct target *tg = &r->tg;
	bool every = evsel_is_tracepoint(&tg->evs[0]) && !tg->period;

	write_meta(r, r->argc, r->argv, tg->ev->name, every ? 0 : tg->freq,
		   every ? 1 : tg->period, t_start);
}

/* The header (argc, argv: zt record's own, for its command line), the
 * signals caught, then the side-band, the processes already there, and
 * the samples. 0, or -1 after a message. */
static int start_sampling(struct record *r, int argc, char **argv)
{
	struct target *tg = &r->tg;
	struct sigaction sa;
	int err, i;

	r->t_start = r->sw_last = now_ns();
	r->argc = argc;
	r->argv = argv;
	write_header(r, r->t_start);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	if (r->sw_signal)
		sigaction(SIGUSR2, &sa, NULL);

	/* side-band first, then existing processes, then the samples */
	if (r->sideband)
		perfev_enable(r->sideband);
	if (!r->filtered)
		procsynth_all(r->t_start, &r->cbs);
	for (i = 0; i < tg->nr_pids; i++)
		procsynth_pid(tg->pid_list[i], r->t_start, &r->cbs);
	for (i = 0; i < tg->nr_tids; i++) {
		int tgid = target_tgid(tg->tid_list[i]);

		track(r, (uint32_t)tgid);
		procsynth_pid(tgid, r->t_start, &r->cbs);
	}
	err = r->use_bpf    ? sampler_start(r->smp)
	      : r->gpu_only ? 0
			    : (r->filtered && workload_traced(r) ? 0 : perfev_enable(r->pev));
	if (err) {
		cmd_error("cannot start sampling: %s", strerror(-err));
		return -1;
	}
	return 0;
}

/* Let the workload exec (perf_event sampling starts with it). 0, or -1
 * after a message. */
static int start_workload(struct record *r)
{
	int err;

	if (r->wl.pid <= 0)
		return 0;
	err = workload_start(&r->wl);
	if (err) {
		cmd_error("cannot run '%s': %s", r->command[0], strerror(-err));
		waitpid(r->wl.pid, NULL, 0);
		r->wl.pid = -1;
		return -1;
	}
	return 0;
}

static bool switch_due(struct record *r, uint64_t t);
static int switch_output(struct record *r);
static bool size_limit(struct record *r);

/* --gpu without a sampler, so without side-band: the workload's mappings
 * (for its launch stacks), synthesized again whenever /proc/PID/maps
 * changed, checked every 50 ms (a large process's maps, PyTorch's, take
 * the kernel a millisecond or two to write). */
static void gpu_only_maps(struct record *r)
{
	char path[64], buf[16384];
	uint64_t h = 0, t = now_ns();
	ssize_t n;
	int fd;

	if (r->wl.pid <= 0 || r->child_done || t - r->maps_checked < 50000000ull)
		return;
	r->maps_checked = t;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)r->wl.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = zt_hash_pair(h, zt_hash_bytes(buf, (size_t)n));
	close(fd);
	if (h == r->maps_hash)
		return;
	r->maps_hash = h;
	procsynth_pid(r->wl.pid, now_ns(), &r->cbs);
}

/* Drain the rings until a signal, the end of --duration, of the workload
 * or of every target, or a write error; settle the side-band and flush
 * the file every FLUSH_NS. */
static void run_loop(struct record *r)
{
	struct target *tg = &r->tg;
	uint64_t last_flush, deadline = 0;
	int err;

	if (r->duration > 0)
		deadline = r->t_start + (uint64_t)(r->duration * 1e9);
	last_flush = now_ns();

	while (!stop_flag) {
		uint64_t t;

		if (r->use_bpf) {
			err = sampler_poll(r->smp, 100);
			if (err < 0 && err != -EINTR) {
				cmd_error("reading samples failed: %s", strerror(-err));
				break;
			}
		} else if (r->pev) {
			perfev_wait(r->pev, 100);
			perfev_drain(r->pev);
		} else {
			poll(NULL, 0, 10);
			gpu_only_maps(r);
		}
		if (r->sideband)
			perfev_drain(r->sideband);
		if (r->new_sampled.n) {
			cache_deferred(r, &r->new_sampled);
			u64set_release(&r->new_sampled);
		}
		if (child_exited && r->wl.pid > 0 && !r->child_done) {
			child_exited = 0;
			if (waitpid(r->wl.pid, &r->child_status, WNOHANG) == r->wl.pid) {
				r->child_done = true;
				break;
			}
		}
		t = now_ns();
		if (deadline && t >= deadline)
			break;
		if (switch_due(r, t) && switch_output(r))
			break;
		/* snapshots compress better in larger chunks */
		if (t - last_flush >= FLUSH_NS ||
		    ztdata_writer_pending(r->w) > (r->stack_size ? 16u << 20 : 4u << 20)) {
			if (r->filtered)
				settle_pending(r, false);
			snapshot_perfmaps(r);
			kernel_flush(r);
			if (r->gr) {
				/* the sampler's launch stacks first: a launch the
				 * library has written was in the ring already, and
				 * gpurec_poll() drops the library's record of it */
				if (r->use_bpf)
					sampler_poll(r->smp, 0);
				note_err(r, gpurec_poll(r->gr, r->w));
			}
			note_err(r, ztdata_writer_flush(r->w));
			last_flush = t;
			if (r->err || size_limit(r))
				break;
			/* like perf: stop when every target is gone */
			if ((tg->nr_pids || tg->nr_tids) && !target_alive(tg))
				break;
		}
	}
}

/* Stop the workload if it still runs, then the sampling, and drain what
 * is still queued. */
static void stop_sampling(struct record *r)
{
	/* Interrupted, timed out or failed with the workload still running:
	 * end it, as perf does, so zt does not wait for it. */
	if (r->wl.pid > 0 && !r->child_done)
		kill(r->wl.pid, SIGTERM);

	if (r->use_bpf) {
		sampler_stop(r->smp);
		sampler_poll(r->smp, 0);
		sampler_get_stats(r->smp, &r->sst);
		r->lost_samples += r->sst.lost;
	} else if (r->pev) {
		perfev_disable(r->pev);
		perfev_drain(r->pev);
	}
	if (r->sideband)
		perfev_drain(r->sideband);
	r->t_end = now_ns();
}

/* What is still pending, the counts, the end time and the index into the
 * file. 0, or -1 after a message. */
static int end_file(struct record *r, bool final, uint64_t t_end)
{
	char num[32];

	if (r->filtered)
		settle_pending(r, final);
	snapshot_perfmaps(r);
	if (r->gr)
		note_err(r, gpurec_poll(r->gr, r->w));
	cache_sampled_binaries(r);
	kernel_flush(r);
	note_err(r, ztdata_write_lost(r->w, r->lost_samples, r->lost_events));
	if (r->skipped.len) {
		zbuf_put_u8(&r->skipped, 0);
		if (!r->skipped.err)
			note_err(r, ztdata_write_meta(r->w, "skipped_files",
						      (const char *)r->skipped.data));
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)t_end);
	note_err(r, ztdata_write_meta(r->w, "time_end", num));
	if (r->use_bpf && r->sst.run_cnt) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->sst.run_ns);
		ztdata_write_meta(r->w, "bpf_run_ns", num);
	}
	note_err(r, ztdata_writer_finish(r->w));
	if (r->err) {
		if (!strcmp(r->output, "-"))
			cmd_error("cannot write to standard output: %s%s", strerror(-r->err),
				  r->err == -EPIPE ? " (the command reading it ended)" : "");
		else
			cmd_error("cannot write '%s': %s", r->output, strerror(-r->err));
		return -1;
	}
	return 0;
}

/* ---- --switch-output ---------------------------------------------------- */

/* The finished piece goes to FILE.YYYYMMDDhhmmssNN (perf's names: local
 * time, then hundredths of a second); the oldest go past
 * --switch-max-files. 0, or -1 after a message. */
static int commit_piece(struct record *r)
{
	char ts[32], dt[24], *name;
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm);
	snprintf(ts, sizeof(ts), "%s%02u", dt, (unsigned)(now.tv_nsec / 10000000));
	if (asprintf(&name, "%s.%s", r->output, ts) < 0 || outfile_rename(&r->out, name)) {
		cmd_error("out of memory");
		return -1;
	}
	if (outfile_commit(&r->out, false)) {
		free(name);
		return -1;
	}
	if (!r->quiet)
		fprintf(stderr, "[ zt record: Dump %s ]\n", name);
	if (ZT_GROW(r->sw_files, r->cap_sw_files, r->nr_sw_files + 1)) {
		free(name);
		return 0;
	}
	r->sw_files[r->nr_sw_files++] = name;
	if (r->switch_max_files && r->nr_sw_files > (size_t)r->switch_max_files) {
		/* rotate: the oldest goes (a file zt named and made) */
		if (unlink(r->sw_files[0]) && errno != ENOENT)
			cmd_warn("cannot remove '%s': %s", r->sw_files[0], strerror(errno));
		free(r->sw_files[0]);
		memmove(r->sw_files, r->sw_files + 1, --r->nr_sw_files * sizeof(*r->sw_files));
	}
	return 0;
}

/* What each file needs of its own: the kernel's symbols and modules for
 * its kernel frames, the whole perf maps of its processes. */
static void reset_file_state(struct record *r)
{
	size_t i;

	u64set_release(&r->kips);
	r->nr_knew = 0;
	r->modules_written = false;
	r->kfake_bounds = false;
	memset(r->kmemo, 0, sizeof(r->kmemo));
	for (i = 0; i < r->nr_pmaps; i++) {
		r->pmaps[i].size = 0;
		memset(&r->pmaps[i].mtime, 0, sizeof(r->pmaps[i].mtime));
	}
	r->lost_samples = r->lost_events = 0;
}

/* End the current file and go on in a new one, which starts with the
 * header and the processes as they are now (perf synthesizes them
 * again too). 0, or -1 after a message: the recording stops. */
static int switch_output(struct record *r)
{
	struct ztdata_stats zst;
	uint64_t t = now_ns();
	size_t i, n;

	if (end_file(r, false, t))
		return -1;
	ztdata_writer_stats(r->w, &zst);
	r->total_samples += zst.samples;
	r->total_bytes += zst.bytes;
	ztdata_writer_free(r->w);
	r->w = NULL;
	if (commit_piece(r))
		return -1;
	outfile_release(&r->out);
	if (open_output(r))
		return -1;
	reset_file_state(r);
	r->sw_last = t;
	write_header(r, t);
	if (!r->filtered) {
		procsynth_all(t, &r->cbs);
		return 0;
	}
	for (i = 0, n = r->tracked.n; i < n; i++)
		procsynth_pid((pid_t)r->tracked.k[i], t, &r->cbs);
	return 0;
}

/* Whether the current file is due to be switched out. */
static bool switch_due(struct record *r, uint64_t t)
{
	struct ztdata_stats zst;

	if (!r->switch_output)
		return false;
	if (switch_flag) {
		switch_flag = 0;
		return true;
	}
	if (r->sw_time)
		return t - r->sw_last >= r->sw_time;
	if (r->sw_size) {
		ztdata_writer_stats(r->w, &zst);
		return zst.bytes >= r->sw_size;
	}
	return false;
}

/* --max-size reached (checked after each flush). */
static bool size_limit(struct record *r)
{
	struct ztdata_stats zst;

	if (!r->max_size)
		return false;
	ztdata_writer_stats(r->w, &zst);
	if (r->total_bytes + zst.bytes < r->max_size)
		return false;
	if (!r->quiet)
		fprintf(stderr, "[ zt record: size limit reached (%llu KB), stopping ]\n",
			(unsigned long long)((r->total_bytes + zst.bytes) / 1024));
	return true;
}

static int finish_output(struct record *r)
{
	if (end_file(r, true, r->t_end))
		return -1;
	return r->switch_output ? commit_piece(r) : 0;
}

/* perf's closing lines on stderr, and with -v the sampler's costs. */
static void print_summary(struct record *r)
{
	const struct sampler_stats *sst = &r->sst;
	struct ztdata_stats zst;

	ztdata_writer_stats(r->w, &zst);
	if (r->quiet)
		return;
	fprintf(stderr, "[ zt record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
		(double)(r->total_bytes + zst.bytes) / (1024.0 * 1024.0),
		r->nr_sw_files ? r->sw_files[r->nr_sw_files - 1] : r->output,
		(unsigned long long)(r->total_samples + zst.samples));
	if (r->gr)
		gpurec_summary(r->gr);
	if (r->lost_samples || r->lost_events)
		fprintf(stderr, "[ zt record: lost %llu samples and %llu side-band events ]\n",
			(unsigned long long)r->lost_samples, (unsigned long long)r->lost_events);
	else
		fprintf(stderr, "[ zt record: no samples lost ]\n");
	if (r->use_bpf && sst->run_cnt)
		cmd_info("BPF program: %llu runs, %.3f us per run, %.3f us per sample sent",
			 (unsigned long long)sst->run_cnt,
			 (double)sst->run_ns / 1000.0 / (double)sst->run_cnt,
			 sst->samples ? (double)sst->run_ns / 1000.0 / (double)sst->samples : 0.0);
	if (r->stack_size)
		cmd_info("stack snapshots: %llu of %llu samples, %.1f KiB of stack each on average "
			 "(%.3f MB in all); the file: %.1f bytes per sample",
			 (unsigned long long)r->ustacks, (unsigned long long)zst.samples,
			 r->ustacks ? (double)r->ustack_bytes / 1024.0 / (double)r->ustacks : 0.0,
			 (double)r->ustack_bytes / (1024.0 * 1024.0),
			 zst.samples ? (double)zst.bytes / (double)zst.samples : 0.0);
}

/* The workload waited for: ended first when it still runs after a failure,
 * and never run when it was held. Returns ret, or after a success the
 * workload's exit status, which zt record passes on. */
static int end_workload(struct record *r, int ret)
{
	if (r->wl.pid > 0 && !r->child_done) {
		if (r->wl.go_fd >= 0) {
			/* never started: let it die without running */
			close(r->wl.go_fd);
			r->wl.go_fd = -1;
		}
		if (ret != ZT_EXIT_OK)
			kill(r->wl.pid, SIGTERM);
		while (waitpid(r->wl.pid, &r->child_status, 0) < 0 && errno == EINTR)
			;
		r->child_done = true;
	}
	if (r->child_done && ret == ZT_EXIT_OK) {
		/* pass the workload's status on */
		if (WIFEXITED(r->child_status))
			ret = WEXITSTATUS(r->child_status);
		else if (WIFSIGNALED(r->child_status))
			ret = 128 + WTERMSIG(r->child_status);
	}
	return ret;
}

static void record_release(struct record *r)
{
	if (r->wl.go_fd >= 0)
		close(r->wl.go_fd);
	if (r->wl.err_fd >= 0)
		close(r->wl.err_fd);
	sampler_free(r->smp);
	gpurec_free(r->gr);
	perfev_free(r->pev);
	perfev_free(r->sideband);
	ztdata_writer_free(r->w);
	/* nothing was recorded: the new file goes, the old one stays as it was */
	outfile_release(&r->out);
	for (size_t k = 0; k < r->nr_pend; k++)
		if (r->pend[k].is_mmap)
			free(r->pend[k].m.path);
	free(r->pend);
	free(r->memo);
	u64set_release(&r->tracked);
	u64set_release(&r->sampled);
	u64set_release(&r->uid_in);
	u64set_release(&r->uid_out);
	for (size_t k = 0; k < r->nr_sw_files; k++)
		free(r->sw_files[k]);
	free(r->sw_files);
	for (size_t k = 0; k < r->nr_pmaps; k++) {
		free(r->pmaps[k].path);
		if (r->pmaps[k].fd >= 0)
			close(r->pmaps[k].fd);
	}
	zbuf_release(&r->skipped);
	u64set_release(&r->new_sampled);
	for (size_t k = 0; k < r->nr_deferred; k++)
		free(r->deferred[k].path);
	free(r->deferred);
	free(r->forks);
	free(r->pmaps);
	u64set_release(&r->bid_cached);
	u64set_release(&r->kips);
	free(r->knew);
	free(r->ktext);
	kallsyms_free(r->ktab);
	if (r->cache_ok)
		buildid_cache_release(&r->cache);
	target_release(&r->tg);
}

int cmd_record(int argc, char **argv)
{
	struct record r = { .fd = -1, .output = "zt.data", .tg = { .event = "cycles", .multi = 1 },
			    .out = { .fd = -1, .dirfd = -1 }, .wl = { -1, -1, -1 } };
	int rest, ret;

	switch (parse_options(&r, argc, argv, &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	cmd_setup("record", r.quiet ? -1 : r.verbose);
	r.command = rest < argc ? argv + rest : NULL;
	ret = check_options(&r);
	if (ret != ZT_EXIT_OK)
		return ret;
	ret = target_ids_exit(target_parse_ids(&r.tg));
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (choose_sampler(&r) || prepare_output(&r) || prepare_workload(&r) || open_sampler(&r) ||
	    open_sideband(&r) || start_sampling(&r, argc, argv) || start_workload(&r))
		goto out;
	/* running: the new recording replaces the old one (which becomes .old);
	 * --switch-output names each file when it is done */
	if (!r.switch_output && outfile_commit(&r.out, true))
		goto out;
	r.started = true;
	run_loop(&r);
	stop_sampling(&r);
	if (finish_output(&r))
		goto out;
	print_summary(&r);
	ret = ZT_EXIT_OK;
out:
	/* after a failure with the workload held or running, it is ended */
	ret = end_workload(&r, ret);
	record_release(&r);
	return ret;
}
